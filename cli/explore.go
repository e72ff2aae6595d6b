package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/scxml"
	"github.com/simctl/simctl/spec"
)

// exploreCmd model-checks each suite (and variant) breadth-first to a depth
// and prints, as TLC does, the states generated and distinct, the depth
// reached, the queue left and the rate; then coverage and every finding with
// the length of its shortest path.
//
// SIGINT or SIGTERM (ctx cancelled) ends the search under way within a
// second: what it found so far is printed, marked interrupted, no
// scenarios are written, and the status is ExitInterrupted.
func exploreCmd(ctx context.Context, args []string, w io.Writer) (int, error) {
	fs := newFlags("explore")
	depth := fs.Int("depth", 8, "explore every path of at most this many events")
	maxStates := fs.Int("max-states", explore.DefaultMaxStates, "stop after this many distinct configurations")
	emit := fs.String("emit-scenarios", "", "write scenarios covering every reachable transition (and each finding) to this folder")
	variant := fs.String("variant", "", "explore only this variant of each suite (default: every variant)")
	quiet := fs.BoolP("quiet", "q", false, "print each search's totals and findings only, not what it never reached")
	noReduce := fs.Bool("no-reduce", false, "offer every user act and keep every slot in the state (no value classes; slow, for checking the reductions)")
	workers := fs.Int("workers", 1, "expand each level on this many goroutines (same results as 1)")
	queueMB := fs.Int("queue-mb", int(explore.DefaultQueueMemory>>20), "keep at most this many megabytes of the queue in memory, the rest in a temporary file in $TMPDIR (0: no bound)")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if err := checkDepth("--depth", *depth); err != nil {
		return 0, err
	}
	if err := checkMaxStates(*maxStates); err != nil {
		return 0, err
	}
	if err := checkSearch(*workers, *queueMB); err != nil {
		return 0, err
	}
	suites, err := loadSuites(ctx, "explore", fs.Args())
	if err != nil {
		return 0, err
	}
	if *variant != "" {
		for _, s := range suites {
			if chartSearch(s) {
				return 0, &usageError{fmt.Sprintf("--variant: suite %s is an SCXML suite, which has no variants", s.Name)}
			}
		}
	}
	stop := func() bool { return interrupted(ctx) }
	status := ExitOK
	var charts []*spec.Suite
	suites = slices.DeleteFunc(suites, func(s *spec.Suite) bool {
		if chartSearch(s) {
			charts = append(charts, s)
		}
		return chartSearch(s)
	})
	failed, err := exploreCharts(w, charts, *depth, *maxStates, *emit, stop)
	if err != nil {
		return 0, err
	}
	if failed {
		status = ExitFailed
	}
	var results []*explore.Result
	for _, s := range suites {
		known := false
		for _, v := range s.Variants {
			known = known || v.Name == *variant
		}
		if *variant != "" && !known {
			var names []string
			for _, v := range s.Variants {
				names = append(names, v.Name)
			}
			return 0, &usageError{fmt.Sprintf("--variant: suite %s has no variant %q (it has: %s)", s.Name, *variant, strings.Join(names, ", "))}
		}
	}
	for _, s := range suites {
		for _, v := range s.Variants {
			if stop() {
				break
			}
			if *variant != "" && v.Name != *variant {
				continue
			}
			start := time.Now()
			res, err := explore.Explore(s, v, explore.Options{Depth: *depth, MaxStates: *maxStates, Stop: stop, NoReduce: *noReduce,
				Workers: *workers, QueueMemory: queueMemory(*queueMB)})
			if err != nil {
				return 0, err
			}
			res.Seconds = time.Since(start).Seconds()
			results = append(results, res)
			if printExplore(w, res, *quiet) {
				status = ExitFailed
			}
		}
	}
	if stop() {
		fmt.Fprintf(w, "interrupted: the searches above are incomplete; no scenarios were written\n")
		return ExitInterrupted, nil
	}
	if *emit != "" && (len(results) > 0 || len(charts) == 0) {
		n, err := explore.EmitScenarios(*emit, results)
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(w, "wrote %d scenarios to %s\n", n, *emit)
	}
	return status, nil
}

// printExplore prints one search and reports whether it found a failure
// (a violation no note names, a dead end, a livelock).
func printExplore(w io.Writer, r *explore.Result, quiet bool) bool {
	name := r.Suite
	if r.Variant != "default" {
		name += " [" + r.Variant + "]"
	}
	fmt.Fprintf(w, "explore %s\n", name)
	fmt.Fprintf(w, "  %d states generated, %d distinct states, depth %d, %d states left on queue\n", r.Generated, r.Distinct, r.Depth, r.Queue)
	if r.Seconds > 0 {
		fmt.Fprintf(w, "  %.2f s, %.0f distinct states/s, %.0f states generated/s (wall clock)\n", r.Seconds, r.Rate(), float64(r.Generated)/r.Seconds)
	}
	switch {
	case r.Stopped != "":
		fmt.Fprintf(w, "  %s\n", r.Stopped)
	case r.Complete && len(r.GuardsUnreached()) > 0:
		fmt.Fprintf(w, "  complete over the alphabet, %s unreached: every configuration its user acts reach was explored\n", count(len(r.GuardsUnreached()), "guard", "guards"))
	case r.Complete:
		fmt.Fprintf(w, "  complete: every reachable configuration was explored\n")
	default:
		fmt.Fprintf(w, "  bounded: explored to depth %d\n", r.Depth)
	}
	fmt.Fprintf(w, "  %s\n", r.Values)
	fmt.Fprintf(w, "  fingerprints: 64-bit, probability of a collision %.1g\n", r.Collision())
	if r.Spilled > 0 {
		fmt.Fprintf(w, "  queue: %.0f MB spilled to disk (--queue-mb)\n", float64(r.Spilled)/(1<<20))
	}
	cov, total := r.Covered()
	fmt.Fprintf(w, "  transitions covered: %d of %d\n", cov, total)
	if !quiet {
		printUnreached(w, r)
	}
	failed := false
	for _, f := range r.Findings {
		label := "FAIL "
		if f.Known != "" {
			label = "KNOWN"
		} else {
			failed = true
		}
		fmt.Fprintf(w, "  %s %s: %s\n", label, f.Kind, f.Violation.Msg)
		printPath(w, r.PathEvents(f.Node))
	}
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "  no violations, dead ends or livelocks\n")
	}
	return failed
}

// printUnreached lists, with their positions in machine.yaml, the states
// the search never entered, the transitions it never took, and the guards
// it saw only one way (never true: the transition cannot fire; never
// false: the guard never rules anything out). A guard never true that
// compares the user's data with values no event of the alphabet carries is
// listed apart: the search could not make it true, which says nothing of
// the machine. Within a bounded search, "never" means "not within the
// depth".
func printUnreached(w io.Writer, r *explore.Result) {
	m, c := r.Machine(), r.Coverage
	var states, trans, never, lacking []string
	for s := 0; s < m.NumStates(); s++ {
		if c.States[s] == 0 && m.IsLeaf(engine.StateID(s)) {
			states = append(states, fmt.Sprintf("%s (%s)", m.StateName(engine.StateID(s)), m.StatePos(engine.StateID(s))))
		}
	}
	for t := 0; t < m.NumTransitions(); t++ {
		ti := m.Transition(engine.TransID(t))
		from := m.StateName(ti.Source)
		if from == "" {
			from = "(any)"
		}
		if c.Trans[t] == 0 {
			trans = append(trans, fmt.Sprintf("%s --%s--> %s (%s)", from, ti.Trigger, m.StateName(ti.Target), ti.Pos))
		}
		if ti.Guard == "" {
			continue
		}
		switch {
		case c.GuardTrue[t] == 0 && c.GuardFalse[t] > 0:
			if lacks := r.AlphabetLacks(engine.TransID(t)); len(lacks) > 0 {
				lacking = append(lacking, fmt.Sprintf("%s (%s): no event carries %s", ti.Guard, ti.Pos, quoteList(lacks)))
				break
			}
			never = append(never, fmt.Sprintf("never true: %s (%s)", ti.Guard, ti.Pos))
		case c.GuardFalse[t] == 0 && c.GuardTrue[t] > 0:
			never = append(never, fmt.Sprintf("never false: %s (%s)", ti.Guard, ti.Pos))
		}
	}
	list := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(w, "  %s (%d):\n", title, len(items))
		for _, it := range items {
			fmt.Fprintf(w, "    %s\n", it)
		}
	}
	list("states never entered", states)
	list("transitions never taken", trans)
	list("guards seen one way only", never)
	list("guards never true, for want of values in the alphabet (add them to users.yaml or a scenario)", lacking)
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

// pathShown is how many events of a path simctl explore prints before it
// shortens it to its first and last pathEnds: a screenful.
const (
	pathShown = 20
	pathEnds  = 8
)

// printPath prints the events of a finding's shortest path, numbered,
// shortened in the middle past a screenful (--emit-scenarios writes it
// whole, as a scenario).
func printPath(w io.Writer, events []string) {
	fmt.Fprintf(w, "         shortest path, %s:\n", count(len(events), "event", "events"))
	if len(events) == 0 {
		fmt.Fprintf(w, "           (the initial configuration)\n")
	}
	for i, e := range events {
		if len(events) > pathShown && i == pathEnds {
			fmt.Fprintf(w, "           … %d events not shown (--emit-scenarios DIR writes them all)\n", len(events)-2*pathEnds)
		}
		if len(events) > pathShown && i >= pathEnds && i < len(events)-pathEnds {
			continue
		}
		fmt.Fprintf(w, "           %2d. %s\n", i+1, e)
	}
}

// The SCXML suites' exploration, until explore.Explore steps machines
// whose data lives outside the Config (the explore helper's part of issue
// #25): explore.Chart searches the statechart session of the suite's
// machine.scxml, and its results are printed and reported here. Every
// other command runs an SCXML suite as any suite.

// chartSearch reports whether s is explored by explore.Chart.
func chartSearch(s *spec.Suite) bool { return spec.IsChartSuite(s.Dir) }

// chartOf loads the statechart of SCXML suite s.
func chartOf(s *spec.Suite) (*scxml.Machine, error) {
	return spec.LoadChart(filepath.Join(s.Dir, spec.ChartFile))
}

// addChartExploration explores SCXML suite s (shard 0 only: the search of
// a chart is not split), adds the search to the report, and prints its
// line and findings; each finding fails the run (a chart has no notes).
// Its coverage counts the chart's own ids, not the engine's the report
// draws, so it is left out of the report.
func addChartExploration(w io.Writer, s *spec.Suite, rs *reports.Suite, depth int, o runOptions, t *tally) error {
	if o.shard.on() && o.shard.i != 0 {
		return nil
	}
	cm, err := chartOf(s)
	if err != nil {
		return err
	}
	opts := explore.ChartOptions{Depth: depth, Stop: o.interrupted}
	if o.maxStatesSet {
		opts.MaxStates = o.maxStates
	}
	res := explore.Chart(cm, opts)
	e := reports.Exploration{Depth: res.Depth, Generated: res.Generated, Distinct: res.Distinct, Complete: res.Complete,
		Covered: res.Covered, Transitions: res.Total}
	how := fmt.Sprintf("to depth %d", res.Depth)
	if res.Complete {
		how = "completely"
	}
	fmt.Fprintf(w, "  %-*s %s: %s, %d transitions of %d\n", o.width+6, "explored", how, count(res.Distinct, "distinct state", "distinct states"), res.Covered, res.Total)
	switch {
	case res.Interrupted:
		e.Stopped = explore.Interrupted
		fmt.Fprintf(w, "         %s\n", e.Stopped)
	case res.Capped:
		e.Stopped = cappedText(res, opts.MaxStates)
		fmt.Fprintf(w, "         %s\n", e.Stopped)
	}
	for _, f := range res.Findings {
		e.Findings = append(e.Findings, reports.ExploreFinding{Kind: f.Kind, Where: "in " + strings.Join(f.Active, " "), Path: len(f.Path), Message: f.Msg})
		t.findings++
		fmt.Fprintf(w, "  FAIL  explored finds %s, shortest path %s (%s): %s\n", f.Kind, count(len(f.Path), "event", "events"), pathText(f.Path), f.Msg)
		fmt.Fprintf(w, "         see it: simctl explore %s --depth %d --emit-scenarios DIR\n", s.Dir, len(f.Path))
	}
	rs.Explored = append(rs.Explored, e)
	return nil
}

// cappedText says that the state bound stopped a chart's search; limit
// is the bound (0: the explorer's default).
func cappedText(res explore.ChartResult, limit int) string {
	if limit <= 0 {
		limit = explore.DefaultChartMaxStates
	}
	return fmt.Sprintf("stopped: the search reached %d configurations (--max-states); depth %d is only partly explored", limit, res.Depth)
}

func pathText(p []explore.ChartStep) string {
	parts := make([]string, len(p))
	for i, s := range p {
		parts[i] = s.String()
	}
	if len(parts) == 0 {
		return "at the start"
	}
	return strings.Join(parts, ", ")
}

// exploreCharts explores each SCXML suite and prints the search and its
// findings; it reports whether any was found, and writes a scenario per
// finding to emit when it is not empty.
func exploreCharts(w io.Writer, charts []*spec.Suite, depth, maxStates int, emit string, stop func() bool) (bool, error) {
	failed := false
	var names, dirs []string
	var results []explore.ChartResult
	for _, c := range charts {
		if stop() {
			break
		}
		cm, err := chartOf(c)
		if err != nil {
			return failed, err
		}
		res := explore.Chart(cm, explore.ChartOptions{Depth: depth, MaxStates: maxStates, Stop: stop})
		names, dirs, results = append(names, c.Name), append(dirs, c.Dir), append(results, res)
		fmt.Fprintf(w, "explore %s (SCXML)\n", c.Name)
		fmt.Fprintf(w, "  %d states generated, %d distinct states, depth %d\n", res.Generated, res.Distinct, res.Depth)
		fmt.Fprintf(w, "  events: %s\n", strings.Join(res.Alphabet, " "))
		switch {
		case res.Interrupted:
			fmt.Fprintf(w, "  %s\n", explore.Interrupted)
		case res.Capped:
			fmt.Fprintf(w, "  %s\n", cappedText(res, maxStates))
		case res.Complete:
			fmt.Fprintf(w, "  complete: every reachable configuration was explored\n")
		default:
			fmt.Fprintf(w, "  bounded: explored to depth %d\n", res.Depth)
		}
		fmt.Fprintf(w, "  transitions covered: %d of %d\n", res.Covered, res.Total)
		if len(res.Unreached) > 0 {
			fmt.Fprintf(w, "  states never active: %s\n", strings.Join(res.Unreached, " "))
		}
		for _, f := range res.Findings {
			failed = true
			fmt.Fprintf(w, "  FAIL  %s: shortest path %s: %s\n", f.Kind, count(len(f.Path), "event", "events"), f.Msg)
			fmt.Fprintf(w, "        path: %s\n", pathText(f.Path))
			fmt.Fprintf(w, "        active: %s\n", strings.Join(f.Active, " "))
		}
		if len(res.Findings) == 0 {
			fmt.Fprintf(w, "  no dead ends, stuck regions or livelocks\n")
		}
	}
	if emit != "" && len(charts) > 0 && !stop() {
		n, err := explore.EmitChartScenarios(emit, names, dirs, results)
		if err != nil {
			return failed, err
		}
		fmt.Fprintf(w, "wrote %d scenarios of SCXML findings to %s\n", n, emit)
	}
	return failed, nil
}
