package cli

import (
	"sort"

	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// What simctl run adds to its reports beyond running things: the
// positions and tags coverage.csv names, coverage by source, and the trace
// of every failing scenario. run.go calls these at the marked places.

// describeSuite fills in what the reports need to know of suite s besides
// its results: machine positions, its tags and its variants.
func describeSuite(s *spec.Suite, rs *reports.Suite) {
	rs.Def = s.Def
	rs.Tags = rs.Tags[:0]
	for t := range s.Tags {
		rs.Tags = append(rs.Tags, t)
	}
	sort.Strings(rs.Tags)
	if len(rs.Variants) == 0 {
		for _, v := range s.Variants {
			rs.Variants = append(rs.Variants, v.Name)
		}
	}
}

// generatedCoverage returns the coverage the suite's generated
// conversations feed, created on first use.
func generatedCoverage(s *spec.Suite, rs *reports.Suite) *eval.Coverage {
	if rs.GeneratedCoverage == nil {
		rs.GeneratedCoverage = eval.NewCoverage(s.Machine)
	}
	return rs.GeneratedCoverage
}

// addExplored folds an exploration's coverage into the suite's.
func addExplored(s *spec.Suite, rs *reports.Suite, res *explore.Result) {
	if res.Coverage == nil {
		return
	}
	if rs.ExploredCoverage == nil {
		rs.ExploredCoverage = eval.NewCoverage(s.Machine)
	}
	rs.ExploredCoverage.Add(res.Coverage)
}

// keepTrace gives a failing scenario its trace when the run did not keep
// traces (no -v): it plays the scenario again, tracing, with the same seed
// and variant, so the trace is the one of the failure (the run is
// deterministic). The replay feeds no coverage, and a scratch latency
// aggregate, so the run's counts are untouched. Only failing scenarios pay.
func keepTrace(s *spec.Suite, sc *spec.Scenario, opts sim.Options, r *sim.ScenarioResult) {
	if r.Status != sim.Fail || opts.Trace {
		return
	}
	opts.Trace, opts.Observers, opts.Wall = true, nil, nil
	if opts.Latency != nil {
		opts.Latency = eval.NewLatency()
	}
	r.Trace = sim.RunScenario(s, sc, opts).Trace
}
