package cli

import (
	"fmt"
	"io"

	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/latency"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// prepareLatency gives rs one latency aggregate per variant when suite s
// has a latency model, and returns the wall clock that times the suite's
// engine steps when --measure-engine asks for it (nil otherwise).
func prepareLatency(s *spec.Suite, rs *reports.Suite, o runOptions) *sim.WallClock {
	if len(rs.Variants) == 0 {
		for _, v := range s.Variants {
			rs.Variants = append(rs.Variants, v.Name)
		}
	}
	if s.Latency != nil {
		rs.Latency = map[string]*eval.Latency{}
		for _, v := range s.Variants {
			rs.Latency[v.Name] = eval.NewLatency()
		}
	}
	if o.measureEngine {
		return &sim.WallClock{}
	}
	return nil
}

// latencyReport prints a suite's latency, one line per variant, judges its
// SLOs over all its conversations (scripted and generated; not when only
// chosen scenario files ran, as in a replay) and prints each verdict; a
// failed objective counts as a failed item. With --measure-engine it then
// prints the engine's wall-clock cost, labelled as such.
func latencyReport(s *spec.Suite, rs *reports.Suite, o runOptions, w io.Writer, t *tally) {
	label := func(what, variant string) string {
		if len(s.Variants) > 1 {
			return what + " [" + variant + "]"
		}
		return what
	}
	for _, v := range s.Variants {
		l := rs.Latency[v.Name]
		if l == nil {
			continue
		}
		sum := l.Turn.Summary()
		if sum.Count == 0 {
			continue // no turn played (--only chose none of this suite's scenarios)
		}
		fmt.Fprintf(w, "  %s p50 %dms p95 %dms p99 %dms max %dms over %d turns; direct mapping saved %d NLU calls (%d ms)\n",
			label("latency", v.Name), sum.P50, sum.P95, sum.P99, sum.Max, sum.Count, l.NLUSkipped, l.NLUSavedMS)
	}
	// A shard sees part of the turns: objectives are judged on the whole,
	// by simctl report merge.
	if o.files == nil && !o.shard.on() {
		for _, v := range s.Variants {
			l := rs.Latency[v.Name]
			if l == nil {
				continue
			}
			for i := range s.SLOs {
				slo := &s.SLOs[i]
				verdict := slo.Check(v.Machine, l)
				verdict.Variant = v.Name
				rs.SLOs = append(rs.SLOs, verdict)
				status := map[string]string{latency.StatusPass: "PASS ", latency.StatusFail: "FAIL ", latency.StatusNotJudged: "NOT JUDGED"}[verdict.Status()]
				if verdict.Failed() {
					t.sloFail++
				}
				got := "got " + verdict.GotText()
				if verdict.Samples == 0 {
					got = "no samples in this run"
				}
				fmt.Fprintf(w, "  %s %s: %s\n", status, label("slo "+slo.Text, v.Name), got)
			}
		}
	}
	if o.wall != nil {
		rs.EngineWall = &reports.EngineWall{Steps: o.wall.Steps(), NS: o.wall.NS()}
		fmt.Fprintf(w, "  engine wall clock (measured on this host, not simulated): %d engine steps, %.0f ns/step\n",
			o.wall.Steps(), o.wall.NSPerStep())
	}
}
