package engine_test

import (
	"testing"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// BenchmarkStep times engine.Step alone on the WORKLOAD machine
// (scenarios/bench-soni): the user events of the happy script are parsed
// once, then replayed conversation after conversation on one Config, which
// the machine itself resets on its return to idle. The external action's
// result is stepped too, as the driver would.
func BenchmarkStep(b *testing.B) {
	s, err := spec.Load("../scenarios/bench-soni")
	if err != nil {
		b.Fatal(err)
	}
	m := s.Machine
	stub := sim.NewStub(s.NLU, m)
	var evs []engine.Event
	for _, u := range []string{"book a flight", "Madrid", "Barcelona", "tomorrow", "yes"} {
		var ev engine.Event
		if err := stub.Parse(u, 0, &ev); err != nil {
			b.Fatal(err)
		}
		evs = append(evs, ev)
	}
	var c engine.Config
	var r engine.Result
	if err := m.Start(&c, 0, &r); err != nil {
		b.Fatal(err)
	}
	var done engine.Event
	transitions := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range evs {
			if err := m.Step(&c, &evs[j], &r); err != nil {
				b.Fatal(err)
			}
			transitions += len(r.Steps)
			for k := range r.Effects {
				if e := &r.Effects[k]; e.Kind == engine.EffInvoke {
					m.Invoke(&c, e.Ext, c.Now, &done)
					if err := m.Step(&c, &done, &r); err != nil {
						b.Fatal(err)
					}
					transitions += len(r.Steps)
					break
				}
			}
		}
	}
	b.StopTimer()
	if transitions != 11*b.N {
		b.Fatalf("got %d transitions, want %d", transitions, 11*b.N)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(transitions), "ns/transition")
}

// BenchmarkParallelToggle is scxml.BenchmarkNullChartStep's chart in
// YAML: a parallel state with two regions of two states each, both
// regions moving on every event: the SCXML chart without scripts costs
// what its YAML twin does (docs/one-interpreter.md).
func BenchmarkParallelToggle(b *testing.B) {
	s, err := spec.LoadMachine("toggle.yaml", []byte(`machine: toggle
initial: p
intents: [go]
states:
  p:
    parallel: true
    states:
      r1:
        initial: a1
        states:
          a1: {on: {go: r1.a2}}
          a2: {on: {go: r1.a1}}
      r2:
        initial: b1
        states:
          b1: {on: {go: r2.b2}}
          b2: {on: {go: r2.b1}}
`))
	if err != nil {
		b.Fatal(err)
	}
	m := s.Machine
	id, _ := m.IntentID("go")
	ev := engine.Event{Kind: engine.UserEvent, Intent: id, Confidence: 1, Timer: engine.NoID, Ext: engine.NoID}
	var c engine.Config
	var r engine.Result
	if err := m.Start(&c, 0, &r); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := m.Step(&c, &ev, &r); err != nil {
			b.Fatal(err)
		}
		if len(r.Steps) != 2 {
			b.Fatalf("%d steps, want 2", len(r.Steps))
		}
	}
}
