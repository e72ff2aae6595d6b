package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/explore"
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
	stop := func() bool { return interrupted(ctx) }
	status := ExitOK
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
	if *emit != "" {
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
