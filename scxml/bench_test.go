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

// chartMachine loads an SCXML chart and builds it on the engine, as simctl
// run does.
func chartMachine(b *testing.B, src string) (*scxml.Machine, *engine.Machine, engine.Data) {
	sm, err := scxml.Load("bench.scxml", []byte(src), scxml.Options{})
	if err != nil {
		b.Fatal(err)
	}
	def, _, err := sm.Definition()
	if err != nil {
		b.Fatal(err)
	}
	m, diags := engine.Build(def)
	if err := diags.Err(); err != nil {
		b.Fatal(err)
	}
	return sm, m, m.NewData("bench")
}

// stepChart takes event go b.N times and reports the time per
// transition (the chart takes want per event).
func stepChart(b *testing.B, sm *scxml.Machine, m *engine.Machine, d engine.Data, want int) {
	var c engine.Config
	var r engine.Result
	if err := m.StartWith(&c, d, 0, &r); err != nil {
		b.Fatal(err)
	}
	ev, err := sm.Event(m, "go", 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := m.StepWith(&c, d, &ev, &r); err != nil {
			b.Fatal(err)
		}
		if len(r.Steps) != want {
			b.Fatalf("%d transitions, want %d", len(r.Steps), want)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*want), "ns/transition")
}

// BenchmarkNullChartStep is engine.BenchmarkParallelToggle's machine as an
// SCXML chart with the null data model and no scripts, on the engine as
// simctl runs it: a parallel state whose two regions both move on every
// event. Issue #25 asks for the YAML machine's cost per transition.
func BenchmarkNullChartStep(b *testing.B) {
	sm, m, d := chartMachine(b, `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="null">
<parallel id="p">
  <state id="r1"><state id="a1"><transition event="go" target="a2"/></state><state id="a2"><transition event="go" target="a1"/></state></state>
  <state id="r2"><state id="b1"><transition event="go" target="b2"/></state><state id="b2"><transition event="go" target="b1"/></state></state>
</parallel></scxml>`)
	stepChart(b, sm, m, d, 2)
}

// BenchmarkECMAScriptChartEvent is an ECMAScript chart on the engine, ns
// per event: two states toggle on go, each transition guarded by a
// condition on a variable it assigns, an In() condition beside it.
func BenchmarkECMAScriptChartEvent(b *testing.B) {
	sm, m, d := chartMachine(b, `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript">
<datamodel><data id="n" expr="0"/></datamodel>
<state id="a"><transition event="go" cond="n &gt;= 0 &amp;&amp; In('a')" target="b"><assign location="n" expr="(n + 1) % 1000"/></transition></state>
<state id="b"><transition event="go" cond="n &gt;= 0" target="a"><assign location="n" expr="(n + 1) % 1000"/></transition></state>
</scxml>`)
	stepChart(b, sm, m, d, 1)
}
