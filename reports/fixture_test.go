package reports_test

import (
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/eval"
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

// fixtureRun loads and plays the fixture suites the way simctl run does:
// one coverage per suite over all its scenarios, traces kept. The paths
// stay relative, as a user would type them.
func fixtureRun() *reports.Run {
	run := &reports.Run{Seed: fixtureSeed}
	for _, dir := range fixtureSuites {
		s, err := spec.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		cov := eval.NewCoverage(s.Machine)
		rs := &reports.Suite{Name: s.Name, Dir: s.Dir, Machine: s.Machine, Coverage: cov}
		for _, sc := range s.Scenarios {
			opts := sim.Options{Trace: true, Observers: []sim.Observer{cov}}
			rs.Scenarios = append(rs.Scenarios, sim.RunScenario(s, sc, opts))
		}
		run.Suites = append(run.Suites, rs)
	}
	return run
}
