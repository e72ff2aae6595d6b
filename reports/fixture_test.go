package reports_test

import (
	"slices"

	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// fixtureSeed is the seed written into the fixture run's report.
const fixtureSeed = 42

// fixtureSuites are the suite folders of the fixture run. greeter has a
// passing, a known and a failing scenario (the last one full of markup);
// alarm has a passing scenario and one that ends in a runtime error.
var fixtureSuites = []string{"testdata/suites/alarm", "testdata/suites/greeter"}

// loadFixture loads the fixture suites, by name.
func loadFixture() map[string]*spec.Suite {
	out := map[string]*spec.Suite{}
	for _, dir := range fixtureSuites {
		s, err := spec.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		out[s.Name] = s
	}
	return out
}

// fixtureRun loads and plays the fixture suites the way simctl run does:
// one coverage per suite over all its scenarios, traces kept. The paths
// stay relative, as a user would type them.
func fixtureRun() *reports.Run {
	run := &reports.Run{Seed: fixtureSeed}
	for _, dir := range fixtureSuites {
		s, err := spec.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		cov := eval.NewCoverage(s.Machine)
		rs := &reports.Suite{Name: s.Name, Dir: s.Dir, Machine: s.Machine, Coverage: cov, Def: s.Def}
		for t := range s.Tags {
			rs.Tags = append(rs.Tags, t)
		}
		slices.Sort(rs.Tags)
		for _, v := range s.Variants {
			rs.Variants = append(rs.Variants, v.Name)
		}
		for _, sc := range s.Scenarios {
			opts := sim.Options{Trace: true, Observers: []sim.Observer{cov}}
			rs.Scenarios = append(rs.Scenarios, sim.RunScenario(s, sc, opts))
		}
		run.Suites = append(run.Suites, rs)
	}
	return run
}

// fullFixtureRun is fixtureRun with everything a run with --generate, an
// exploration and a latency model adds to greeter, made up so that the
// golden files do not move when the generator or the explorer change:
// generated conversations (the happy scenario played 3 times) with their
// metrics and two shrunk failures (one known), an exploration's coverage
// (bob played once) with a finding, and latency samples.
func fullFixtureRun() *reports.Run {
	run := fixtureRun()
	run.Generate = 3
	suites := loadFixture()
	greeter, s := run.Suites[1], suites["greeter"]
	byName := map[string]*spec.Scenario{}
	for _, sc := range s.Scenarios {
		byName[sc.Name] = sc
	}

	greeter.GeneratedCoverage = eval.NewCoverage(s.Machine)
	for range 3 {
		sim.RunScenario(s, byName["happy"], sim.Options{Observers: []sim.Observer{greeter.GeneratedCoverage}})
	}
	greeter.Generated = []generate.Metrics{{Suite: "greeter", Variant: "default", Conversations: 3, Successes: 2,
		TurnsToCompletion: 7, Turns: 11, Escalations: 0, Cancellations: 1, Violating: 2, Violations: 3}}
	bob := sim.RunScenario(s, byName["bob"], sim.Options{})
	greeter.Failures = []reports.GenFailure{
		{Failure: generate.Failure{Suite: "greeter", Variant: "default", Invariant: "no_bob", Index: 1, Turns: 6, ShrunkTurns: 2,
			Violation: bob.Violations[0], Name: "gen-greeter-default-no_bob-1",
			Scenario: []byte("name: gen-greeter-default-no_bob-1\nturns:\n  - user: hello\n  - user: Bob\n")}},
		{Failure: generate.Failure{Suite: "greeter", Variant: "default", Invariant: "dead_end", Index: 2, Turns: 4, ShrunkTurns: 1,
			Violation: eval.Violation{Invariant: "dead_end", Turn: 1, Trans: engine.NoID, To: "done",
				Msg: "done is not final <b>really</b>", After: "state=done"},
			Name: "gen-greeter-default-dead_end-2", Scenario: []byte("name: gen-greeter-default-dead_end-2\nturns:\n  - user: bye\n")},
			Known: "the <i>document</i> says so"},
	}

	greeter.ExploredCoverage = eval.NewCoverage(s.Machine)
	sim.RunScenario(s, byName["bob"], sim.Options{Observers: []sim.Observer{greeter.ExploredCoverage}})
	greeter.Explored = []reports.Exploration{{Variant: "default", Depth: 3, Generated: 40, Distinct: 12, Covered: 4, Transitions: 5,
		Findings: []reports.ExploreFinding{{Kind: "no_bob", Path: 2, Message: "never expression became true"}}}}

	lat := eval.NewLatency()
	for i := range 200 {
		state, _ := s.Machine.StateID([]string{"idle", "asking", "idle", "done"}[i%4])
		lat.AddTurn(int64(80+(i*37)%450+(i%7)*i), state, i%5+1)
	}
	lat.AddSkippedNLU(120)
	greeter.Latency = map[string]*eval.Latency{"default": lat}
	return run
}
