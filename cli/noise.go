package cli

// The NLU flags of simctl run: --nlu-fallback, --nlu-noise and
// --nlu-noise-sweep, and the sweep itself.

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// nluFlags are the NLU choices of a run.
type nluFlags struct {
	fallback string
	noise    float64
	sweepArg []string
	sweep    []float64
}

// register adds the flags to fs; replay takes only --nlu-fallback.
func (f *nluFlags) register(fs *pflag.FlagSet, all bool) {
	fs.StringVar(&f.fallback, "nlu-fallback", "", "with a cassette, parse utterances it has no record of with the stub rules (stub) instead of failing")
	if !all {
		return
	}
	fs.Float64Var(&f.noise, "nlu-noise", 0, "NLU error rate (0 to 1) injected into generated conversations")
	fs.StringSliceVar(&f.sweepArg, "nlu-noise-sweep", nil, "play the generated conversations at each of these NLU error rates and report success against them (0,0.05,0.1,0.2)")
}

// check validates the flags; generate is --generate.
func (f *nluFlags) check(generate int) error {
	switch f.fallback {
	case "", "none", "stub":
	default:
		return &usageError{fmt.Sprintf("--nlu-fallback: unknown fallback %q (want stub, or none for strict replay)", f.fallback)}
	}
	if !checkRate(f.noise) {
		return &usageError{fmt.Sprintf("--nlu-noise takes an error rate from 0 to 1, got %v", f.noise)}
	}
	seen := map[float64]bool{}
	for _, a := range f.sweepArg {
		r, err := strconv.ParseFloat(strings.TrimSpace(a), 64)
		if err != nil || !checkRate(r) {
			return &usageError{fmt.Sprintf("--nlu-noise-sweep takes error rates from 0 to 1, got %q", a)}
		}
		if !seen[r] {
			seen[r] = true
			f.sweep = append(f.sweep, r)
		}
	}
	sort.Float64s(f.sweep)
	if f.noise > 0 && generate == 0 {
		return &usageError{"--nlu-noise applies to generated conversations: give their number with --generate N"}
	}
	if len(f.sweep) > 0 && generate == 0 {
		return &usageError{"--nlu-noise-sweep plays generated conversations: give their number with --generate N"}
	}
	return nil
}

// scripted is the NLU of scripted scenarios. They are played without
// noise: their expectations name the intents and slots a correct parse
// gives, so noise would fail them for the NLU's sake, not the machine's.
func (f *nluFlags) scripted() sim.NLUOptions {
	return sim.NLUOptions{Fallback: f.fallback == "stub", Strict: f.fallback == "none"}
}

// generated is the NLU of the generated conversations of simctl run.
func (f *nluFlags) generated() sim.NLUOptions {
	return sim.NLUOptions{Fallback: f.fallback == "stub", Strict: f.fallback == "none", Generated: true, Noise: f.noise}
}

// noiseSweep plays the generated conversations of every variant of s at
// each rate of --nlu-noise-sweep (the same conversations at every rate:
// same seed, noise drawn per conversation), prints a table and adds the
// points to the report. It measures only: violations under noise are
// counted, not shrunk (--nlu-noise with --generate does that).
func noiseSweep(s *spec.Suite, rs *reports.Suite, o runOptions, w io.Writer) error {
	if len(o.nlu.sweep) == 0 || o.generate == 0 {
		return nil
	}
	for _, v := range s.Variants {
		name := "noise sweep"
		if len(s.Variants) > 1 {
			name += " [" + v.Name + "]"
		}
		fmt.Fprintf(w, "  %s, %d generated conversations per rate:\n", name, o.generate)
		fmt.Fprintf(w, "    %-6s %8s %11s %10s", "noise", "success", "escalation", "violating")
		for k := 1; k <= generate.MaxPassK; k++ {
			fmt.Fprintf(w, " %7s", fmt.Sprintf("pass^%d", k))
		}
		fmt.Fprintln(w)
		for _, rate := range o.nlu.sweep {
			if o.interrupted() {
				return nil
			}
			nlu := o.nlu.generated()
			nlu.Noise = rate
			met, goals, err := generate.Measure(s, v, generate.Options{Seed: o.seed, From: 0, To: o.generate, NLU: nlu,
				Stop: o.interrupted})
			if err != nil {
				return err
			}
			rs.Noise = append(rs.Noise, reports.NoisePoint{Variant: v.Name, Rate: rate, Metrics: met, Goals: goals})
			success := fmt.Sprintf("%7.1f%%", pct(met.Successes, met.Conversations))
			if met.SuccessBy == generate.SuccessNone {
				success = fmt.Sprintf("%8s", "-") // no goal to reach
			}
			fmt.Fprintf(w, "    %-6s %s %10.1f%% %10d", strconv.FormatFloat(rate, 'f', -1, 64),
				success, pct(met.Escalations, met.Conversations), met.Violating)
			for k := 1; k <= generate.MaxPassK; k++ {
				if p, ok := generate.PassHatK(goals, k); ok {
					fmt.Fprintf(w, " %7.3f", p)
				} else {
					fmt.Fprintf(w, " %7s", "-")
				}
			}
			fmt.Fprintln(w)
		}
	}
	return nil
}
