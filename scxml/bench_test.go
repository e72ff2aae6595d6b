package scxml_test

import (
	"testing"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
	"github.com/simctl/simctl/scxml"
)

// BenchmarkECMAScriptStepFromStored is the explorer's unit of work on a
// chart with ECMAScript data, on the engine: take a stored configuration
// (the Config and its saved heap), restore the heap, take one event,
// save the heap again. Two states toggle and a counter moves on each
// event; configurations per second is the figure issue #25 asks for
// (50,000 on one core).
func BenchmarkECMAScriptStepFromStored(b *testing.B) {
	dm := scxml.NewECMAScript()
	m, err := et.New("toggle", "a").Intents("go").DataModel(dm).
		State("a", et.Waits(), et.Entry(et.Script("if (typeof n === 'undefined') { n = 0 }")),
			et.OnIf("go", "n < 1000", "b", et.Assign("n", "n + 1"))).
		State("b", et.Waits(), et.OnIf("go", "n < 1000", "a", et.Assign("n", "n + 1"))).
		Build()
	if err != nil {
		b.Fatal(err)
	}
	d := dm.NewData(m, "bench")
	var cfg engine.Config
	var res engine.Result
	if err := m.StartWith(&cfg, d, 0, &res); err != nil {
		b.Fatal(err)
	}
	saved, ok := d.Save()
	if !ok {
		b.Fatal("the heap cannot be saved")
	}
	type stored struct {
		cfg   engine.Config
		saved any
	}
	start := stored{cfg, saved}
	cur := start
	ev := engine.Event{Kind: engine.UserEvent, Confidence: 1, Timer: engine.NoID, Ext: engine.NoID}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cfg = cur.cfg
		if !d.Restore(cur.saved) {
			b.Fatal("restore failed")
		}
		if err := m.StepWith(&cfg, d, &ev, &res); err != nil {
			b.Fatal(err)
		}
		s, ok := d.Save()
		if !ok {
			b.Fatal("save failed")
		}
		cur = stored{cfg, s}
		if i%1000 == 999 {
			// Back to the start, so that the counter keeps moving.
			cur = start
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "configs/s")
}
