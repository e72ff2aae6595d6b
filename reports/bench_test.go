package reports_test

import (
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// benchConversations and benchTurns size the aggregates of the benchmark
// run: this many generated conversations per suite and variant, of this
// many turns each.
const (
	benchConversations = 100_000
	benchTurns         = 5
)

// benchRun builds what simctl run --generate 100000 on the bundled suites
// hands to WriteAll: every scripted scenario played (failing ones with
// their trace), and per variant the metrics, coverage and latency
// histograms of 100,000 generated conversations of 5 turns (500,000
// latency samples, spread over states, transitions and turn numbers), an
// exploration, and a few shrunk failures. Report writing reads only these
// aggregates, so its cost does not grow with the conversations.
func benchRun(b *testing.B) *reports.Run {
	dirs, err := spec.Discover([]string{"../scenarios"})
	if err != nil {
		b.Fatal(err)
	}
	run := &reports.Run{Seed: 1, Generate: benchConversations}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dir := range dirs {
		s, err := spec.Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		m := s.Machine
		rs := &reports.Suite{Name: s.Name, Dir: s.Dir, Machine: m, Coverage: eval.NewCoverage(m), Def: s.Def,
			GeneratedCoverage: eval.NewCoverage(m), ExploredCoverage: eval.NewCoverage(m), Latency: map[string]*eval.Latency{}}
		for t := range s.Tags {
			rs.Tags = append(rs.Tags, t)
		}
		slices.Sort(rs.Tags)
		for _, v := range s.Variants {
			rs.Variants = append(rs.Variants, v.Name)
		}
		for _, sc := range s.Scenarios {
			for _, v := range s.VariantsFor(sc) {
				rs.Scenarios = append(rs.Scenarios, sim.RunScenario(s, sc, sim.Options{Trace: true,
					Observers: []sim.Observer{rs.Coverage}, Variant: v, Seed: 1}))
			}
		}
		for _, v := range s.Variants {
			rs.Generated = append(rs.Generated, generate.Metrics{Suite: s.Name, Variant: v.Name,
				Conversations: benchConversations, Successes: benchConversations * 4 / 5,
				TurnsToCompletion: benchConversations * 4 / 5 * 4, Turns: benchConversations * benchTurns,
				Escalations: benchConversations / 20, Cancellations: benchConversations / 10})
			lat := eval.NewLatency()
			for range benchConversations {
				for turn := 1; turn <= benchTurns; turn++ {
					// Long-tailed milliseconds, as NLU and LLM calls give.
					ms := int64(50 + rng.ExpFloat64()*400)
					lat.AddTurn(ms, engine.StateID(rng.IntN(m.NumStates())), turn)
					if m.NumTransitions() > 0 {
						lat.AddTransition(engine.TransID(rng.IntN(m.NumTransitions())), ms/3)
					}
				}
			}
			rs.Latency[v.Name] = lat
			rs.Explored = append(rs.Explored, reports.Exploration{Variant: v.Name, Depth: 3, Generated: 50_000, Distinct: 9_000,
				Covered: m.NumTransitions() / 2, Transitions: m.NumTransitions()})
		}
		c := rs.GeneratedCoverage
		for i := range c.Trans {
			c.Trans[i] = rng.Int64N(benchConversations * benchTurns / 4)
			c.GuardTrue[i], c.GuardFalse[i] = c.Trans[i]/2, c.Trans[i]/3
			rs.ExploredCoverage.Trans[i] = rng.Int64N(1000)
		}
		for i := range c.States {
			c.States[i] = rng.Int64N(benchConversations)
		}
		for i := range c.Intents {
			c.Intents[i] = rng.Int64N(benchConversations)
		}
		for i := range c.Slots {
			c.Slots[i] = rng.Int64N(benchConversations)
		}
		if len(rs.Scenarios) > 0 && len(rs.Scenarios[0].Violations) > 0 {
			rs.Failures = append(rs.Failures, reports.GenFailure{Failure: generate.Failure{Suite: s.Name,
				Variant: rs.Variants[0], Invariant: rs.Scenarios[0].Violations[0].Invariant, Index: 17, Turns: 9, ShrunkTurns: 2,
				Violation: rs.Scenarios[0].Violations[0], Name: "gen-" + s.Name + "-bench",
				Scenario: []byte("name: gen-" + s.Name + "-bench\nturns:\n  - user: hi\n")}})
		}
		run.Suites = append(run.Suites, rs)
	}
	return run
}

// BenchmarkWriteAll100k measures WriteAll on the reports of 100,000
// generated conversations per suite and variant of the bundled suites. The
// bar is 2 s and 300 MB; it reports MB allocated per write (an upper bound
// of what the write needs) and the live heap after it.
func BenchmarkWriteAll100k(b *testing.B) {
	run := benchRun(b)
	dir := filepath.Join(b.TempDir(), "out")
	var before, after runtime.MemStats
	peak := uint64(0)
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for b.Loop() {
		if err := reports.WriteAll(dir, run); err != nil {
			b.Fatal(err)
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/1e6, "MB-alloc/op")
	b.ReportMetric(float64(peak)/1e6, "MB-heap-inuse")
}
