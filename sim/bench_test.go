package sim_test

import (
	"testing"

	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// workload is WORKLOAD.md's five scripts, taken from the bench-soni
// scenarios, with the outcome each must end in.
type workloadScript struct {
	turns   []string
	outcome string
}

func loadWorkload(b *testing.B) (*spec.Suite, []workloadScript) {
	s, err := spec.Load("../scenarios/bench-soni")
	if err != nil {
		b.Fatal(err)
	}
	outcome := map[string]string{"happy": "booked", "retry": "booked", "deny": "cancelled", "cancel": "cancelled", "error": "failed"}
	var scripts []workloadScript
	for _, name := range []string{"happy", "retry", "deny", "cancel", "error"} {
		for _, sc := range s.Scenarios {
			if sc.Name != name {
				continue
			}
			w := workloadScript{outcome: outcome[name]}
			for _, t := range sc.Turns {
				w.turns = append(w.turns, t.User.Value)
			}
			scripts = append(scripts, w)
		}
	}
	if len(scripts) != 5 {
		b.Fatalf("got %d workload scripts, want 5", len(scripts))
	}
	return s, scripts
}

// BenchmarkWorkload runs WORKLOAD.md's mix (conversation i is script i%5)
// through the whole driver: stub NLU, direct mapping check, the engine, the
// stubbed booking action, and the outcome check after every conversation.
// Each conversation starts a fresh configuration (the peers' fresh mode).
// It keeps no turn paths (Driver.KeepPath): the peers count transitions
// while timed, and check their traces only before.
func BenchmarkWorkload(b *testing.B) {
	s, scripts := loadWorkload(b)
	m := s.Machine
	stub := sim.NewStub(s.NLU, m)
	d := sim.NewDriver(m, stub, stub)
	lastOutcome, _ := m.SlotID("last_outcome")
	turns, k := 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// k is i%len(scripts), without a division per conversation.
		w := &scripts[k]
		if k++; k == len(scripts) {
			k = 0
		}
		if err := d.Start(0); err != nil {
			b.Fatal(err)
		}
		for _, u := range w.turns {
			if err := d.User(u); err != nil {
				b.Fatal(err)
			}
		}
		turns += len(w.turns)
		if got := d.Cfg.Slot(lastOutcome); got.Str != w.outcome || d.Cfg.State != 0 {
			b.Fatalf("conversation %d ended %q in %s, want %q in idle", i, got.Str, m.StateName(d.Cfg.State), w.outcome)
		}
	}
	b.StopTimer()
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "conv/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(d.Transitions), "ns/transition")
}

// benchScenario replays one scripted scenario per iteration through the
// driver, without expectations: the cost of the conversation itself.
func benchScenario(b *testing.B, dir, name string) {
	s, err := spec.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	var sc *spec.Scenario
	for _, x := range s.Scenarios {
		if x.Name == name {
			sc = x
		}
	}
	stub := sim.NewStub(s.NLU, s.Machine)
	d := sim.NewDriver(s.Machine, stub, stub)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := d.Start(0); err != nil {
			b.Fatal(err)
		}
		for _, t := range sc.Turns {
			switch {
			case t.User != nil:
				err = d.User(t.User.Value)
			case t.Wait != nil:
				err = d.Wait(int64(*t.Wait))
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "conv/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(d.Transitions), "ns/transition")
}

// BenchmarkForkMerge: a 3-branch research fork, each branch invoking an
// external action and writing a contract, joined and merged into a slot.
func BenchmarkForkMerge(b *testing.B) { benchScenario(b, "testdata/fork", "three") }

// BenchmarkTimeout: a disambiguation that times out three times at 5
// minutes on the virtual clock, then gives up.
func BenchmarkTimeout(b *testing.B) { benchScenario(b, "testdata/timeout", "retries") }
