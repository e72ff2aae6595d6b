package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/mutate"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/spec"
)

// Defaults of simctl mutate: a few generated conversations per variant
// (each mutant plays them all), and a cap on the complete searches that
// decide equivalence.
const (
	mutateGenerate    = 100
	mutateEquivStates = 200_000
	// A mutant's exploration that reaches 100 times the configurations of
	// the original's finished search, and at least 10,000, runs away
	// (docs/mutate.md#runaway-mutants).
	mutateRunawayFactor = 100
	mutateRunawayFloor  = 10_000
)

// mutateCmd is simctl mutate PATH...: the mutants of each suite's machine,
// judged by the suite's scripted scenarios, generated conversations and
// exploration (docs/mutate.md).
func mutateCmd(ctx context.Context, args []string, stdout io.Writer) (int, error) {
	fs := newFlags("mutate")
	var o mutate.Options
	fs.Int64Var(&o.Seed, "seed", 1, "seed of the run's random source (the same seed gives the same mutants and verdicts)")
	fs.IntVar(&o.Generate, "generate", mutateGenerate, "generated conversations per variant played against each mutant")
	fs.IntVar(&o.ExploreDepth, "explore-depth", -1, "explore each mutant to this depth (default: the suite's explore_depth, as simctl run; 0: no exploration)")
	fs.IntVar(&o.MaxStates, "max-states", runMaxStates, "stop an exploration after this many distinct configurations")
	fs.IntVar(&o.EquivStates, "equiv-states", mutateEquivStates, "cap of the complete searches that prove a survivor equivalent")
	fs.IntVar(&o.RunawayFactor, "runaway-factor", mutateRunawayFactor, "a mutant's exploration past this many times the original's configurations (and --runaway-floor) is a runaway, killed (0: never)")
	fs.IntVar(&o.RunawayFloor, "runaway-floor", mutateRunawayFloor, "the fewest configurations a mutant's exploration reaches before it can run away")
	workers := fs.Int("workers", 1, "judge mutants on this many goroutines (same results as 1)")
	shard := fs.String("shard", "", "judge slice i of n of the mutants (i/n); simctl report merge combines the shards")
	out := fs.String("out", "out", "folder for mutants.csv and report.html (empty: write nothing)")
	minScore := fs.Float64("min-score", 0, "exit 1 when a suite's score is below this percentage")
	emit := fs.String("emit-scenarios", "", "write, into DIR/SUITE/, scenarios that kill the survivors (they pass on the original machine)")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	o.SuiteCap = !fs.Changed("max-states")
	if o.Generate < 0 {
		return 0, &usageError{"--generate takes a number of conversations, 0 or more"}
	}
	if o.RunawayFactor < 0 || o.RunawayFloor < 0 {
		return 0, &usageError{"--runaway-factor and --runaway-floor take a number, 0 or more"}
	}
	if *workers < 1 {
		return 0, &usageError{"--workers takes a number of goroutines, 1 or more"}
	}
	if *minScore < 0 || *minScore > 100 {
		return 0, &usageError{"--min-score takes a percentage, from 0 to 100"}
	}
	var sh shardSpec
	if *shard != "" {
		var err error
		if sh, err = parseShard(*shard); err != nil {
			return 0, err
		}
	}
	suites, err := loadSuites(ctx, "mutate", fs.Args())
	if err != nil {
		return 0, err
	}
	o.Known = func(s *spec.Suite, f generate.Failure) bool { return generatedKnown(s, f) != "" }
	// A signal stops the searches and generated runs under way within a
	// few milliseconds; the verdicts they were reaching are dropped.
	o.Stop = func() bool { return ctx.Err() != nil }
	var results []mutate.Result
	g := 0 // mutants numbered across suites, for the shards
	interrupted := false
	for _, s := range suites {
		var mine []*mutate.Mutant
		for _, m := range mutate.Enumerate(s.Def, o.Seed) {
			if sh.n <= 1 || g%sh.n == sh.i {
				mine = append(mine, m)
			}
			g++
		}
		if len(mine) == 0 {
			continue
		}
		rs := judge(ctx, mutate.NewRunner(s, o), mine, *workers)
		if len(rs) < len(mine) {
			interrupted = true
		}
		results = append(results, rs...)
		if interrupted {
			break
		}
	}
	status := printMutation(stdout, suites, results, *minScore)
	if *emit != "" && !interrupted {
		if err := emitKillers(*emit, suites, results, o, stdout); err != nil {
			return 0, err
		}
	}
	if *out != "" {
		if err := reports.WriteMutation(*out, o.Seed, results); err != nil {
			return 0, err
		}
		fmt.Fprintf(stdout, "reports written to %s\n", *out)
	}
	if interrupted {
		fmt.Fprintf(stdout, "interrupted: the report covers only the mutants judged before the signal\n")
		return ExitInterrupted, nil
	}
	return status, nil
}

// judge runs r on every mutant, on up to workers goroutines, and returns
// the verdicts in mutant order; after a signal, those judged up to the
// first mutant left undone.
func judge(ctx context.Context, r *mutate.Runner, ms []*mutate.Mutant, workers int) []mutate.Result {
	out := make([]mutate.Result, len(ms))
	done := make([]bool, len(ms))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(ms)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res := r.Judge(ms[i])
				// A verdict finished after the signal may rest on a
				// search it cut short: it is not kept.
				if ctx.Err() == nil {
					out[i], done[i] = res, true
				}
			}
		}()
	}
	for i := range ms {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for i := range done {
		if !done[i] {
			return out[:i]
		}
	}
	return out
}

// printMutation prints each suite's tally per operator and its survivors,
// and returns ExitFailed when a suite scores below minScore percent.
func printMutation(w io.Writer, suites []*spec.Suite, results []mutate.Result, minScore float64) int {
	dirs := map[string]string{}
	for _, s := range suites {
		dirs[s.Name] = s.Dir
	}
	status := ExitOK
	sums := mutate.Summarize(results)
	for _, s := range sums {
		fmt.Fprintf(w, "suite %s (%s): %d mutants\n", s.Suite, dirs[s.Suite], s.All.Mutants)
		fmt.Fprintf(w, "  %-13s %7s %7s %9s %9s %9s %9s %9s %10s %8s %7s\n", "operator", "mutants", "killed", "scripted", "generated", "explored", "survived", "unreached", "equivalent", "invalid", "score")
		row := func(name string, t mutate.Tally) {
			fmt.Fprintf(w, "  %-13s %7d %7d %9d %9d %9d %9d %9d %10d %8d %6.1f%%\n", name, t.Mutants, t.Killed, t.BySource[mutate.Scripted],
				t.BySource[mutate.Generated], t.BySource[mutate.Explored], t.Survived, t.Unreached, t.Equivalent, t.Invalid, 100*t.ScoreWithoutPins())
		}
		for _, op := range s.Ops {
			row(string(op.Op), op.Tally)
		}
		row("all", s.All)
		for _, r := range s.Survivors {
			what := "SURVIVED"
			if r.Status == mutate.Unreached {
				what = "UNREACHED"
			}
			fmt.Fprintf(w, "  %s %s: %s: %s\n", what, r.Mutant.Pos, r.Mutant.Op, r.Mutant.Desc)
		}
		for _, r := range s.Runaways {
			fmt.Fprintf(w, "  RUNAWAY %s: %s: %s (killed: %s)\n", r.Mutant.Pos, r.Mutant.Op, r.Mutant.Desc, r.Detail)
		}
		// The score is the one without pins: a pin: true scenario holds
		// the machine to what it does, not to what the seed says.
		score := 100 * s.All.ScoreWithoutPins()
		fmt.Fprintf(w, "%s: mutation score %.1f%% without pins, %.1f%% with (%d killed of %d, %d only by pins; %d unreached, %d equivalent, %d invalid)\n\n",
			s.Suite, score, 100*s.All.Score(), s.All.Killed, s.All.Judged(), s.All.Pinned, s.All.Unreached, s.All.Equivalent, s.All.Invalid)
		if score < minScore {
			status = ExitFailed
		}
	}
	return status
}

// mergeMutants combines the mutants.csv of simctl mutate's shards into
// the mutants.csv and report.html one process would have written.
func mergeMutants(dirs []string, out string, w io.Writer) (int, error) {
	var seed int64
	var all []mutate.Result
	for i, d := range dirs {
		s, rs, err := reports.ReadMutantsCSV(reports.MutantsPath(d))
		if err != nil {
			return 0, err
		}
		if i > 0 && s != seed {
			return 0, &usageError{fmt.Sprintf("report merge: %s has seed %d, the shards before it %d", d, s, seed)}
		}
		seed = s
		all = append(all, rs...)
	}
	// One process lists suites by name and each suite's mutants in order.
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Suite != all[j].Suite {
			return all[i].Suite < all[j].Suite
		}
		return all[i].Mutant.ID < all[j].Mutant.ID
	})
	for i := 1; i < len(all); i++ {
		if all[i].Suite == all[i-1].Suite && all[i].Mutant.ID == all[i-1].Mutant.ID {
			return 0, &usageError{fmt.Sprintf("report merge: mutant %d of suite %s is in two shards", all[i].Mutant.ID, all[i].Suite)}
		}
	}
	status := printMutation(w, nil, all, 0)
	if err := reports.WriteMutation(out, seed, all); err != nil {
		return 0, err
	}
	fmt.Fprintf(w, "reports written to %s\n", out)
	return status, nil
}

// isMutateShard reports whether dir holds a shard of simctl mutate (a
// mutants.csv without a shard.json of simctl run).
func isMutateShard(dir string) bool {
	_, errM := os.Stat(reports.MutantsPath(dir))
	_, errS := os.Stat(filepath.Join(dir, ShardFile))
	return errM == nil && errS != nil
}

// emitKillers writes, for each suite with survivors, the scenarios
// mutate.Killers finds into dir/SUITE/, each naming its suite by a path
// relative to where it is written.
func emitKillers(dir string, suites []*spec.Suite, results []mutate.Result, o mutate.Options, w io.Writer) error {
	for _, s := range suites {
		var surv []*mutate.Mutant
		for _, r := range results {
			if r.Suite == s.Name && r.Status == mutate.Survived {
				surv = append(surv, r.Mutant)
			}
		}
		if len(surv) == 0 {
			continue
		}
		sub := filepath.Join(dir, s.Name)
		rel := s.Dir
		if a, err := filepath.Abs(s.Dir); err == nil {
			if b, err := filepath.Abs(sub); err == nil {
				if r, err := filepath.Rel(b, a); err == nil {
					rel = r
				}
			}
		}
		ks := mutate.Killers(s, surv, mutate.KillerOptions{Seed: o.Seed, Generate: max(o.Generate, mutateGenerate),
			MaxStates: o.EquivStates, SuitePath: rel})
		if len(ks) == 0 {
			fmt.Fprintf(w, "%s: no scenario found that kills any of its %d survivors\n", s.Name, len(surv))
			continue
		}
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		n := 0
		for _, k := range ks {
			tmp, err := reports.WriteTemp(sub, k.Name+spec.ScenarioSuffix, k.Data)
			if err == nil {
				err = os.Rename(tmp, filepath.Join(sub, k.Name+spec.ScenarioSuffix))
			}
			if err != nil {
				os.Remove(tmp)
				return err
			}
			n += len(k.Kills)
		}
		fmt.Fprintf(w, "%s: wrote %d scenarios to %s that kill %d of its %d survivors\n", s.Name, len(ks), sub, n, len(surv))
	}
	return nil
}
