package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// loadSuites discovers and loads every suite under paths (machine.yaml
// and machine.scxml alike), sorted by name. The first bad file stops the
// load: nothing runs and nothing is written. A signal (ctx cancelled)
// stops it between files with errInterrupted. cmd names the command, for
// the example given when paths is empty.
func loadSuites(ctx context.Context, cmd string, paths []string) ([]*spec.Suite, error) {
	if len(paths) == 0 {
		return nil, &usageError{fmt.Sprintf("no suite given (for example: %s)", noSuiteExample(cmd))}
	}
	dirs, err := spec.Discover(paths)
	if err != nil {
		return nil, err
	}
	var suites []*spec.Suite
	names := map[string]string{}
	for _, d := range dirs {
		if interrupted(ctx) {
			return nil, errInterrupted
		}
		s, err := spec.Load(d)
		if err != nil {
			return nil, err
		}
		if prev, dup := names[s.Name]; dup {
			return nil, &spec.Error{Msg: fmt.Sprintf("%s: duplicate machine name %q (also in %s)", s.Def.Pos, s.Name, prev)}
		}
		names[s.Name] = d
		suites = append(suites, s)
	}
	sort.Slice(suites, func(i, j int) bool { return suites[i].Name < suites[j].Name })
	return suites, nil
}

// noSuiteExample is a command line of cmd on a bundled suite.
func noSuiteExample(cmd string) string {
	switch cmd {
	case "run", "mutate":
		return "simctl " + cmd + " scenarios/"
	case "record":
		return "simctl record scenarios/soni --nlu-url URL"
	}
	return "simctl " + cmd + " scenarios/soni"
}

// interrupted reports whether a signal asked the run to stop.
func (o runOptions) interrupted() bool { return interrupted(o.ctx) }

// runMaxStates caps the exploration inside simctl run unless the suite
// (explore_max_states) or --max-states says otherwise: a search that
// passes it is cut back to the deepest level it completed.
const runMaxStates = 1_000_000

type runOptions struct {
	shard        shardSpec
	ctx          context.Context
	stderr       io.Writer
	quiet        bool
	workers      int
	prog         *progress
	seed         int64
	generate     int
	exploreDepth int // -1: each suite's explore_depth
	maxStates    int
	maxStatesSet bool
	noReduce     bool
	queueMB      int
	out          string
	only         []string
	verbose      bool
	width        int // of the name column: the longest name printed, within bounds
	// measureEngine times the engine's steps with the wall clock
	// (--measure-engine); wall is the current suite's clock.
	measureEngine bool
	wall          *sim.WallClock
	// files, when set, limits the run to these scenario files.
	files map[string]bool
	// nlu holds --nlu-fallback, --nlu-noise and --nlu-noise-sweep (noise.go).
	nlu nluFlags
	// bot holds --bot and its options (bot.go).
	bot botFlags
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("run")
	o := runOptions{ctx: ctx, stderr: stderr}
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no progress reports on stderr")
	fs.IntVar(&o.workers, "workers", 1, "play generated conversations, and explore, on this many goroutines (same results as 1)")
	shard := fs.String("shard", "", "run slice i of n of the work and write shard.json for simctl report merge; i counts from 0, as Kubernetes numbers Indexed Jobs (0/4 … 3/4)")
	fs.Int64Var(&o.seed, "seed", 1, "seed of the run's random source")
	fs.StringVar(&o.out, "out", "out", "folder for report.html and the CSV files")
	fs.StringSliceVar(&o.only, "only", nil, "run only scenarios carrying this tag (repeatable)")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "print a turn-by-turn trace of every scenario")
	fs.IntVar(&o.generate, "generate", 0, "also play N generated conversations per suite and variant")
	fs.IntVar(&o.exploreDepth, "explore-depth", -1, "explore each suite to this depth (default: its explore_depth, else completely; 0: no exploration)")
	fs.IntVar(&o.maxStates, "max-states", runMaxStates, "cap each exploration at this many distinct configurations, then keep the deepest level completed (default: the suite's explore_max_states, else this)")
	fs.BoolVar(&o.noReduce, "no-reduce", false, "explore without value classes, every slot kept in the state (slow)")
	fs.IntVar(&o.queueMB, "queue-mb", int(explore.DefaultQueueMemory>>20), "keep at most this many megabytes of an exploration's queue in memory, the rest in a temporary file in --out if it exists, else in $TMPDIR (0: no bound)")
	o.nlu.register(fs, true)
	o.bot.register(fs)
	fs.BoolVar(&o.measureEngine, "measure-engine", false, "also time the engine's steps with the wall clock and report ns/step (not reproducible)")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if err := checkGenerate(o.generate); err != nil {
		return 0, err
	}
	// -1, the default, means each suite's explore_depth; a negative value
	// given on the command line is a mistake, as it is for explore --depth.
	if fs.Changed("explore-depth") {
		if err := checkDepth("--explore-depth", o.exploreDepth); err != nil {
			return 0, err
		}
	}
	// Given, the flag overrides each suite's explore_max_states.
	o.maxStatesSet = fs.Changed("max-states")
	if err := checkMaxStates(o.maxStates); err != nil {
		return 0, err
	}
	if err := o.nlu.check(o.generate); err != nil {
		return 0, err
	}
	if err := checkSearch(o.workers, o.queueMB); err != nil {
		return 0, err
	}
	if *shard != "" {
		var err error
		if o.shard, err = parseShard(*shard); err != nil {
			return 0, err
		}
		if len(o.nlu.sweep) > 0 || o.nlu.sweepArg != nil {
			return 0, &usageError{"--nlu-noise-sweep cannot be sharded: run the sweep in one process"}
		}
		if o.out == "" {
			return 0, &usageError{"--shard needs --out: the shard result is written there"}
		}
	}
	if err := o.bot.check(o); err != nil {
		return 0, err
	}
	if o.out != "" {
		if err := checkWritable(o.out); err != nil {
			return 0, err
		}
	}
	suites, err := loadTargets(fs.Args(), &o)
	if err != nil {
		return 0, err
	}
	if err := checkTags(suites, o.only); err != nil {
		return 0, err
	}
	if o.bot.url != "" {
		return runBot(suites, o, stdout)
	}
	return execute(suites, o, stdout)
}

// checkTags rejects an --only tag that no suite knows.
func checkTags(suites []*spec.Suite, only []string) error {
	for _, t := range only {
		known := false
		for _, s := range suites {
			known = known || s.Tags[t]
		}
		if !known {
			return &usageError{fmt.Sprintf("--only: unknown tag %q (known tags: %s)", t, strings.Join(spec.BuiltinTags, ", "))}
		}
	}
	return nil
}

// loadTargets loads the suites named by paths; when every path is a
// scenario file, it loads their suites and selects just those scenarios.
func loadTargets(paths []string, o *runOptions) ([]*spec.Suite, error) {
	files := 0
	for _, p := range paths {
		if strings.HasSuffix(p, spec.ScenarioSuffix) {
			files++
		}
	}
	if files == 0 {
		return loadSuites(o.ctx, "run", paths)
	}
	if files != len(paths) {
		return nil, &usageError{"give suite folders or scenario files, not both"}
	}
	o.files = map[string]bool{}
	bySuite := map[string]*spec.Suite{}
	var suites []*spec.Suite
	for _, p := range paths {
		if o.interrupted() {
			return nil, errInterrupted
		}
		s, sc, err := spec.LoadScenarioFile(p)
		if err != nil {
			return nil, err
		}
		if prev, ok := bySuite[s.Dir]; ok {
			s = prev
		} else {
			bySuite[s.Dir] = s
			suites = append(suites, s)
		}
		if !containsScenario(s, sc) {
			s.Scenarios = append(s.Scenarios, sc)
		}
		o.files[filepath.Clean(sc.File)] = true
	}
	sort.Slice(suites, func(i, j int) bool { return suites[i].Name < suites[j].Name })
	return suites, nil
}

func containsScenario(s *spec.Suite, sc *spec.Scenario) bool {
	for _, x := range s.Scenarios {
		if x == sc {
			return true
		}
	}
	return false
}

func selected(sc *spec.Scenario, o runOptions) bool {
	if o.files != nil {
		return o.files[filepath.Clean(sc.File)]
	}
	if len(o.only) == 0 {
		return true
	}
	for _, t := range sc.Tags {
		for _, want := range o.only {
			if t.Value == want {
				return true
			}
		}
	}
	return false
}

// execute runs the selected scenarios of every suite, prints one line per
// scenario and a summary, and writes the reports.
func execute(suites []*spec.Suite, o runOptions, w io.Writer) (int, error) {
	if o.out != "" {
		// Held from before the first scenario to after the last report, so
		// that a second run given the same --out is refused at once
		// instead of mixing its reports with these.
		release, err := reports.Lock(o.out)
		if err != nil {
			return 0, err
		}
		defer release()
	}
	run := &reports.Run{Seed: o.seed, Generate: o.generate}
	if o.generate > 0 {
		// A shard plays its span of each variant's stream: count that, so
		// that its last line reads finished, not 25%.
		total := 0
		from, to := o.shard.span(o.generate)
		for _, s := range suites {
			total += (to - from) * len(s.Variants)
		}
		o.prog = newProgress(o.stderr, int64(total), o.quiet)
	}
	if o.files != nil {
		// A replay of chosen files generates and explores nothing.
		run.Generate, o.generate, o.exploreDepth = 0, 0, 0
	}
	o.width = nameWidth(suites, o)
	var total tally
	tags := map[string]*[2]int{}       // tag -> passing, total
	var exploreParts [][]*explore.Part // per suite, per variant
	for _, s := range suites {
		rs := &reports.Suite{Name: s.Name, Dir: s.Dir, Machine: s.Machine, Coverage: eval.NewCoverage(s.Machine),
			Partial: o.files != nil || len(o.only) > 0}
		o.wall = prepareLatency(s, rs, o)
		describeSuite(s, rs) // reporthooks.go
		var t tally
		fmt.Fprintf(w, "suite %s (%s)\n", s.Name, s.Dir)
		for _, e := range s.Citations() {
			// A note that cites text its seed does not hold excuses
			// nothing: the run fails on it, as lint does.
			fmt.Fprintf(w, "  FAIL citation %s: %s\n", e.Pos, e.Msg)
			t.citations++
		}
		for _, sc := range s.Scenarios {
			if !selected(sc, o) {
				continue
			}
			if o.interrupted() {
				run.Incomplete = true
				break
			}
			for _, v := range s.VariantsFor(sc) {
				if !o.shard.owns(s.Name, v.Name, sc.Name) {
					continue
				}
				opts := sim.Options{Trace: o.verbose, Observers: []sim.Observer{rs.Coverage},
					Variant: v, Seed: o.seed, Latency: rs.Latency[v.Name], Wall: o.wall}
				opts.NLU = o.nlu.scripted()
				// A generated conversation's failure file replays with the
				// NLU generated conversations had (nlu.yaml's
				// cassette_fallback applies to it).
				opts.NLU.Generated = sc.HasTag("generated")
				r := sim.RunScenario(s, sc, opts)
				keepTrace(s, sc, opts, r) // reporthooks.go: failing scenarios carry their trace
				rs.Scenarios = append(rs.Scenarios, r)
				t.add(r.Status)
				countTags(tags, r)
				printScenario(w, r, o.verbose, len(s.Variants) > 1, o.width)
			}
		}
		if o.generate > 0 {
			if err := generated(s, rs, o, w, &t); err != nil {
				return 0, err
			}
		}
		if err := noiseSweep(s, rs, o, w); err != nil {
			return 0, err
		}
		depth := o.exploreDepth
		if depth < 0 {
			depth = s.ExploreDepth
		}
		var parts []*explore.Part
		if depth > 0 {
			var err error
			if parts, err = explored(s, rs, depth, o, w, &t); err != nil {
				return 0, err
			}
		}
		exploreParts = append(exploreParts, parts)
		latencyReport(s, rs, o, w, &t)
		if o.interrupted() {
			// A signal cut this suite's run short: what it did not
			// reach says nothing of the notes (no STALE advice).
			rs.Partial = true
		}
		if !o.shard.on() {
			// A shard sees part of the run: only the merge can say.
			for _, l := range reports.Stale(rs) {
				fmt.Fprintf(w, "  STALE %s: nothing in this run reached it (remove the note?)\n", l)
			}
		}
		fmt.Fprintf(w, "%s: %s\n\n", s.Name, t)
		total.merge(t)
		run.Suites = append(run.Suites, rs)
	}
	o.prog.finish(o.interrupted())
	if o.interrupted() {
		run.Incomplete = true
	}
	if o.out != "" {
		if err := reports.WriteAll(o.out, run); err != nil {
			return 0, err
		}
		if o.shard.on() {
			if err := writeShard(o.out, o, o.exploreDepth, suites, run, exploreParts); err != nil {
				return 0, err
			}
		}
	}
	if run.Incomplete {
		fmt.Fprintf(w, "interrupted: the report covers only the work finished before the signal\n")
		return ExitInterrupted, nil
	}
	fmt.Fprintf(w, "tags (passed or known / scenarios): %s\n", tagSummary(tags))
	fmt.Fprintf(w, "seed %d: %s in %s: %s\n", o.seed, count(total.n(), "scenario", "scenarios"), count(len(suites), "suite", "suites"), total)
	if o.out != "" {
		fmt.Fprintf(w, "reports written to %s\n", o.out)
	}
	if total.failed() {
		return ExitFailed, nil
	}
	return ExitOK, nil
}

// countTags adds scenario r to the per-tag tally (tag -> passing, total).
// A known scenario passes the run: it counts with the passed, as it does
// everywhere else.
func countTags(tags map[string]*[2]int, r *sim.ScenarioResult) {
	for _, tag := range r.Tags {
		if tags[tag] == nil {
			tags[tag] = &[2]int{}
		}
		tags[tag][1]++
		if r.Status != sim.Fail {
			tags[tag][0]++
		}
	}
}

func tagSummary(tags map[string]*[2]int) string {
	if len(tags) == 0 {
		return "none"
	}
	names := make([]string, 0, len(tags))
	for k := range tags {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d/%d", n, tags[n][0], tags[n][1])
	}
	return strings.Join(parts, ", ")
}

func printScenario(w io.Writer, r *sim.ScenarioResult, verbose, variants bool, width int) {
	label := map[sim.Status]string{sim.Pass: "PASS ", sim.Known: "KNOWN", sim.Fail: "FAIL "}[r.Status]
	name := r.Scenario
	if variants {
		name += " [" + r.Variant + "]"
	}
	fmt.Fprintf(w, "  %s %-*s %3d %-5s %4d %s\n", label, width, name, r.Turns, plural(r.Turns, "turn", "turns"),
		r.Transitions, plural(r.Transitions, "transition", "transitions"))
	for _, l := range r.Stale {
		fmt.Fprintf(w, "         STALE %s (remove the note?)\n", l)
	}
	if r.Status == sim.Known {
		for i := range r.Violations {
			fmt.Fprintf(w, "         breaks %s, known: %s\n", r.Violations[i].Key(), r.Notes[i])
		}
	}
	if r.Status == sim.Fail {
		for _, f := range r.Failures {
			fmt.Fprintf(w, "         %s\n", f)
		}
		for i, v := range r.Violations {
			if i < len(r.Notes) && r.Notes[i] != "" {
				fmt.Fprintf(w, "         breaks %s, known: %s\n", v.Key(), r.Notes[i])
				continue
			}
			fmt.Fprintf(w, "         %s: %s\n", r.File, v)
			if v.Before != "" {
				fmt.Fprintf(w, "           before: %s\n", v.Before)
			}
			fmt.Fprintf(w, "           after:  %s\n", v.After)
		}
		fmt.Fprintf(w, "         replay: simctl replay %s\n", r.File)
	}
	if verbose {
		printTrace(w, r)
	}
}

// generated plays o.generate conversations per variant of suite s, prints
// their metrics and failures, and adds them to the report. A failure is
// known when a note of its invariant in machine.yaml names its finding.
func generated(s *spec.Suite, rs *reports.Suite, o runOptions, w io.Writer, t *tally) error {
	for _, v := range s.Variants {
		known := eval.NewKnown(v.Machine)
		from, to := o.shard.span(o.generate)
		met, fails, err := generate.Run(s, v, generate.Options{Seed: o.seed, From: from, To: to,
			FailuresDir: filepath.Join(o.out, reports.FailuresDir), Observers: []sim.Observer{generatedCoverage(s, rs)}, Wall: o.wall,
			Workers: o.workers, Stop: o.interrupted, Progress: o.prog.add, NLU: o.nlu.generated(),
			Fork: func() ([]sim.Observer, func()) {
				c := eval.NewCoverage(v.Machine)
				return []sim.Observer{c}, func() { generatedCoverage(s, rs).Add(c) }
			}})
		if err != nil {
			return err
		}
		rs.Generated = append(rs.Generated, met)
		if l := rs.Latency[v.Name]; l != nil {
			l.Merge(met.Latency)
		}
		name := "generated"
		if len(s.Variants) > 1 {
			name += " [" + v.Name + "]"
		}
		outcome := fmt.Sprintf("success %.1f%% (%s; cooperative users %.1f%% of %d), %.1f turns to completion", pct(met.Successes, met.Conversations), met.SuccessBy,
			pct(met.CooperativeSuccesses, met.Cooperative), met.Cooperative, mean(met.TurnsToCompletion, met.Successes))
		if met.SuccessBy == generate.SuccessNone {
			// Nothing marks a task done: no success rate is claimed.
			outcome = fmt.Sprintf("no goal to reach (no final state, flow, idle_states, nlu.yaml or users.yaml goal), %.1f turns each", mean(met.Turns, met.Conversations))
		}
		fmt.Fprintf(w, "  %-*s %d conversations: %s, escalation %.1f%%, cancellation %.1f%%, %d violating%s\n",
			o.width+6, name, met.Conversations, outcome,
			pct(met.Escalations, met.Conversations), pct(met.Cancellations, met.Conversations), met.Violating, violatingNote(fails, known))
		for _, f := range fails {
			gf := reports.GenFailure{Failure: f}
			if n := known.Match(&f.Violation); n != nil {
				gf.Known, gf.NoteAt = n.String(), n.Pos.String()
			}
			rs.Failures = append(rs.Failures, gf)
			file := filepath.Join(o.out, reports.FailureFile(f.Name))
			if gf.Known != "" {
				t.genKnown++
				fmt.Fprintf(w, "  KNOWN %s breaks %s, known: %s; shortest: %s: %s\n", name, f.Violation.Key(), gf.Known, count(f.ShrunkTurns, "turn", "turns"), file)
				continue
			}
			t.genFail++
			fmt.Fprintf(w, "  FAIL  %s breaks %s at conversation %d, %s\n", name, f.Violation.Key(), f.Index, f.ShrunkFrom())
			fmt.Fprintf(w, "         %s\n", f.Violation)
			fmt.Fprintf(w, "         replay: simctl replay %s\n", file)
		}
	}
	return nil
}

// generatedKnown returns the note that makes a generated failure known,
// or "" when it fails the run: the same matching run applies to each
// variant's failures. simctl mutate judges generated failures by it too.
func generatedKnown(s *spec.Suite, f generate.Failure) string {
	m := s.Machine
	for _, v := range s.Variants {
		if v.Name == f.Variant {
			m = v.Machine
		}
	}
	if n := eval.NewKnown(m).Match(&f.Violation); n != nil {
		return n.String()
	}
	return ""
}

// explored runs the exploration of each variant of s, prints its line and
// findings, and adds it to the report; a finding no note names fails the
// run. A shard searches its part of each exploration and returns the
// parts, for simctl report merge.
func explored(s *spec.Suite, rs *reports.Suite, depth int, o runOptions, w io.Writer, t *tally) ([]*explore.Part, error) {
	var parts []*explore.Part
	for _, v := range s.Variants {
		res, err := search(s, v, depth, o, o.shard.on())
		if err != nil {
			return nil, err
		}
		if o.shard.on() {
			parts = append(parts, res.Part())
		}
		addExploration(s, rs, res, depth, w, t, o.width)
	}
	return parts, nil
}

// searched, when set, is told of every search (the specs count them: one
// per variant a run explores).
var searched func(suite, variant string)

// search explores variant v of s to depth with the run's limits: the one
// search behind both a run's explored findings and the explored
// conversations a --bot run plays. With part set, a shard searches only
// its part.
func search(s *spec.Suite, v *spec.Variant, depth int, o runOptions, part bool) (*explore.Result, error) {
	if searched != nil {
		searched(s.Name, v.Name)
	}
	limit := o.maxStates
	if !o.maxStatesSet && s.ExploreMaxStates > 0 {
		limit = s.ExploreMaxStates
	}
	opts := explore.Options{Depth: depth, MaxStates: limit, Stop: o.interrupted, NoReduce: o.noReduce,
		Workers: o.workers, QueueMemory: queueMemory(o.queueMB), SpillDir: spillDir(o.out)}
	if part {
		opts.Part, opts.Parts = o.shard.i, max(o.shard.n, 1)
	}
	res, err := explore.Explore(s, v, opts)
	if err != nil {
		return nil, err
	}
	if res.Stopped != "" && !part && res.Depth > 0 {
		// The cap cut a level short: search again to the deepest
		// level completed, so that the result is that level's, whole.
		opts.Depth = res.Depth
		if res, err = explore.Explore(s, v, opts); err != nil {
			return nil, err
		}
		res.Stopped = fmt.Sprintf("the search passed %d configurations (--max-states, explore_max_states); kept to depth %d, the deepest level it completed", limit, opts.Depth)
	}
	return res, nil
}

// addExploration adds the search of one variant to the report, and prints
// its line and findings.
func addExploration(s *spec.Suite, rs *reports.Suite, res *explore.Result, depth int, w io.Writer, t *tally, width int) {
	addExplored(s, rs, res) // reporthooks.go
	cov, total := res.Covered()
	e := reports.Exploration{Variant: res.Variant, Depth: res.Depth, Generated: res.Generated, Distinct: res.Distinct,
		Complete: res.Complete, Stopped: res.Stopped, Covered: cov, Transitions: total}
	name := "explored"
	if len(s.Variants) > 1 {
		name += " [" + res.Variant + "]"
	}
	how := fmt.Sprintf("to depth %d", res.Depth)
	if res.Complete {
		how = "completely"
		if n := len(res.GuardsUnreached()); n > 0 {
			// A guard no value of the alphabet makes true: the search is
			// complete over its alphabet only.
			how = "completely over the alphabet, " + count(n, "guard", "guards") + " unreached"
		}
	}
	fmt.Fprintf(w, "  %-*s %s: %s, %d transitions of %d\n", width+6, name, how, count(res.Distinct, "distinct state", "distinct states"), cov, total)
	if res.Stopped != "" {
		fmt.Fprintf(w, "         %s\n", res.Stopped)
	}
	for _, f := range res.Findings {
		ef := reports.ExploreFinding{Kind: f.Kind, Path: res.PathLen(f.Node), Message: f.Violation.Msg, Known: f.Known}
		if key := f.Key(); key != f.Kind {
			ef.Where = f.Violation.Where()
		}
		if f.Known != "" {
			ef.NoteAt = f.Note.String()
		}
		e.Findings = append(e.Findings, ef)
		if f.Known != "" {
			continue
		}
		t.findings++
		fmt.Fprintf(w, "  FAIL  %s finds %s, shortest path %d events: %s\n", name, f.Key(), res.PathLen(f.Node), f.Violation.Msg)
		variant := ""
		if len(s.Variants) > 1 {
			variant = " --variant " + res.Variant
		}
		fmt.Fprintf(w, "         see it: simctl explore %s --depth %d%s --emit-scenarios DIR\n", s.Dir, seeItDepth(res, &f), variant)
	}
	rs.Explored = append(rs.Explored, e)
}

// seeItDepth is the --depth with which simctl explore reproduces finding
// f: its shortest path suffices for a violation (one more level for a dead
// end, found when its configuration is expanded), but livelock and stuck
// are judged on the whole graph the search saw, so their command searches
// as deep as this one did (one level more when it was complete, so that
// explore finds nothing new past it and knows the search complete).
func seeItDepth(res *explore.Result, f *explore.Finding) int {
	switch f.Kind {
	case eval.DeadEnd:
		// A dead end is known once its configuration is expanded.
		return res.PathLen(f.Node) + 1
	case eval.Livelock, eval.Stuck:
	default:
		return res.PathLen(f.Node)
	}
	if res.Complete {
		return res.Depth + 1
	}
	return res.Depth
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func mean(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func replayCmd(ctx context.Context, args []string, stdout io.Writer) (int, error) {
	fs := newFlags("replay")
	o := runOptions{ctx: ctx}
	fs.Int64Var(&o.seed, "seed", 1, "seed of the run's random source")
	fs.StringVar(&o.out, "out", "", "folder for reports (none by default)")
	fs.BoolVarP(&o.verbose, "verbose", "v", true, "print the turn-by-turn trace")
	o.nlu.register(fs, false)
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if err := o.nlu.check(0); err != nil {
		return 0, err
	}
	if fs.NArg() != 1 {
		return 0, &usageError{"replay takes one scenario file"}
	}
	file := fs.Arg(0)
	if !strings.HasSuffix(file, spec.ScenarioSuffix) {
		return 0, &spec.Error{Msg: fmt.Sprintf("%s: expected a file ending in %s", file, spec.ScenarioSuffix)}
	}
	suites, err := loadTargets([]string{file}, &o)
	if err != nil {
		return 0, err
	}
	return execute(suites, o, stdout)
}

// nameWidth is the width of the name column of simctl run's lines: the
// longest scenario name (with its variant) the run prints, at least 40
// and at most 64 characters, so that columns stay put.
func nameWidth(suites []*spec.Suite, o runOptions) int {
	width := 40
	for _, s := range suites {
		for _, sc := range s.Scenarios {
			if !selected(sc, o) {
				continue
			}
			n := len([]rune(sc.Name))
			if len(s.Variants) > 1 {
				for _, v := range s.VariantsFor(sc) {
					width = max(width, n+len([]rune(v.Name))+3)
				}
			}
			width = max(width, n)
		}
		if len(s.Variants) > 1 {
			for _, v := range s.Variants {
				width = max(width, len("generated [")+len([]rune(v.Name))+1)
			}
		}
	}
	return min(width, 64)
}

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// violatingNote says which findings the violating generated conversations
// made, and which of those a note names (known): a
// count of violations beside a passing verdict must say why it passes.
func violatingNote(fails []generate.Failure, notes *eval.Known) string {
	var known, notKnown []string
	for _, f := range fails {
		if notes.Match(&f.Violation) != nil {
			known = append(known, f.Violation.Key())
		} else {
			notKnown = append(notKnown, f.Violation.Key())
		}
	}
	switch {
	case len(known)+len(notKnown) == 0:
		return ""
	case len(notKnown) == 0:
		return " (all known: " + strings.Join(known, ", ") + ")"
	case len(known) == 0:
		return " (breaking " + strings.Join(notKnown, ", ") + ")"
	}
	return " (breaking " + strings.Join(notKnown, ", ") + "; known: " + strings.Join(known, ", ") + ")"
}

// spillDir is where an exploration's queue spills: the output folder when
// it exists (it is the run's own space), else the system's temporary
// folder.
func spillDir(out string) string {
	if fi, err := os.Stat(out); out != "" && err == nil && fi.IsDir() {
		return out
	}
	return ""
}
