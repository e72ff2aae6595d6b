package sim

import (
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/statechart"
)

// ChartCoverage and CountChart serve only explore/chart.go, the
// statechart explorer that the explore helper of issue #25 replaces with
// explore.Explore on the engine; this file goes with it. A chart's ids in
// a Coverage: state k is the chart's state k+1 (the <scxml> root is left
// out), transition k is Chart.Transitions()[k].

// ChartCoverage returns zeroed coverage counters for a chart.
func ChartCoverage(c *statechart.Chart) *eval.Coverage {
	return eval.NewCoverageSized(len(c.Transitions()), len(c.States)-1)
}

// CountChart makes session s count into cov: every transition taken,
// every cond's outcome each time it is evaluated, and every state entered. A history pseudo-state counts as entered when a
// transition to it is taken (no configuration ever holds it). Trace, when
// set, is called after counting.
func CountChart(s *statechart.Session, cov *eval.Coverage, trace func([]*statechart.Transition)) {
	c := s.Chart()
	s.Trace = func(ts []*statechart.Transition) {
		for _, t := range ts {
			if cov != nil && t.ID < len(cov.Trans) {
				cov.Trans[t.ID]++
				for _, tg := range t.Targets {
					if k := c.States[tg].Kind; k == statechart.HistoryShallow || k == statechart.HistoryDeep {
						cov.States[tg-1]++
					}
				}
			}
		}
		if trace != nil {
			trace(ts)
		}
	}
	s.Guard = func(t *statechart.Transition, ok bool) {
		if cov == nil || t.ID >= len(cov.Trans) {
			return
		}
		if ok {
			cov.GuardTrue[t.ID]++
		} else {
			cov.GuardFalse[t.ID]++
		}
	}
	s.Entered = func(i int) {
		if cov != nil && i > 0 {
			cov.States[i-1]++
		}
	}
}
