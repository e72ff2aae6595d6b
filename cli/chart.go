package cli

// SCXML suites (machine.scxml) on the command line: lint, run (its reports,
// shards and report merge included), replay, explore and graph read them;
// record and mutate say that they do not. A chart runs on package
// statechart (the SCXML recommendation's algorithm), not on engine; its
// results take the shapes of a YAML suite's (sim.ScenarioResult,
// eval.Coverage, reports.Suite), so the reports are written by one code
// path.

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
	"github.com/simctl/simctl/statechart"
)

// loadAll discovers the suites under paths and loads them: YAML suites and
// SCXML chart suites, each sorted by name. cmd names the command, for the
// example given when paths is empty.
func loadAll(ctx context.Context, cmd string, paths []string) ([]*spec.Suite, []*spec.ChartSuite, error) {
	if len(paths) == 0 {
		return nil, nil, &usageError{fmt.Sprintf("no suite given (for example: %s)", noSuiteExample(cmd))}
	}
	dirs, err := spec.Discover(paths)
	if err != nil {
		return nil, nil, err
	}
	var suites []*spec.Suite
	var charts []*spec.ChartSuite
	names := map[string]string{}
	for _, d := range dirs {
		if interrupted(ctx) {
			return nil, nil, errInterrupted
		}
		var name string
		var pos fmt.Stringer
		if spec.IsChartSuite(d) {
			c, err := spec.LoadChartSuite(d)
			if err != nil {
				return nil, nil, err
			}
			charts = append(charts, c)
			name, pos = c.Name, c.Machine.Chart.States[0].Pos
		} else {
			s, err := spec.Load(d)
			if err != nil {
				return nil, nil, err
			}
			suites = append(suites, s)
			name, pos = s.Name, s.Def.Pos
		}
		if prev, dup := names[name]; dup {
			return nil, nil, &spec.Error{Msg: fmt.Sprintf("%s: duplicate machine name %q (also in %s)", pos, name, prev)}
		}
		names[name] = d
	}
	sort.Slice(suites, func(i, j int) bool { return suites[i].Name < suites[j].Name })
	sort.Slice(charts, func(i, j int) bool { return charts[i].Name < charts[j].Name })
	return suites, charts, nil
}

// noCharts is the error of a command that does not read SCXML suites.
func noCharts(cmd string, charts []*spec.ChartSuite) error {
	if len(charts) == 0 {
		return nil
	}
	return &usageError{fmt.Sprintf("%s/%s: simctl %s does not read SCXML suites (%s; lint, run, replay, explore, graph and report merge do)", charts[0].Dir, spec.ChartFile, cmd, noChartsWhy[cmd])}
}

// noChartsWhy says why a command does not read SCXML suites.
var noChartsWhy = map[string]string{
	"record": "it records a live NLU's parses of utterances, and a chart's scenarios send events by name, with no utterance to parse",
	"mutate": "its mutation operators rewrite machine.yaml's transitions, guards, actions and timers",
}

// chartMaxTurns bounds a generated run of a chart.
const chartMaxTurns = 20

// chartReport makes the report of a chart suite: the same reports.Suite
// a YAML suite gets, its counts by sim.ChartCoverage's ids.
func chartReport(c *spec.ChartSuite) *reports.Suite {
	rs := &reports.Suite{Name: c.Name, Dir: c.Dir, Chart: c.Machine.Chart, Coverage: sim.ChartCoverage(c.Machine.Chart),
		Tags: []string{}, Variants: []string{""}}
	return rs
}

// runChart plays chart suite c's selected scenarios (this shard's), then
// its share of --generate runs of the event alphabet, and explores it to
// depth (shard 0 only: the search of a chart is not split), printing as
// run does for YAML suites and adding everything to rs.
func runChart(w io.Writer, c *spec.ChartSuite, rs *reports.Suite, depth int, o runOptions, t *tally) {
	fmt.Fprintf(w, "suite %s (%s, SCXML)\n", c.Name, c.Dir)
	if depth < 0 {
		depth = spec.DefaultExploreDepth
	}
	rs.Partial = o.files != nil || len(o.only) > 0
	for _, sc := range c.Scenarios {
		if !chartSelected(sc, o.only) || !o.shard.owns(c.Name, "", sc.Name) {
			continue
		}
		if o.interrupted() {
			return
		}
		r := sim.RunChartScenario(c, sc, rs.Coverage, o.verbose)
		if r.Status == sim.Fail && !o.verbose {
			// A failing scenario carries its trace into the reports, as a
			// YAML suite's does (keepTrace); the replay counts nothing.
			r.Trace = sim.RunChartScenario(c, sc, nil, true).Trace
		}
		rs.Scenarios = append(rs.Scenarios, r)
		t.add(r.Status)
		printScenario(w, r, o.verbose, false, o.width)
	}
	if o.generate > 0 && !o.interrupted() {
		generatedChart(w, c, rs, o, t)
	}
	if o.measureEngine {
		// Said rather than left out: the statechart interpreter is not
		// timed (--measure-engine times engine.Machine's steps).
		fmt.Fprintf(w, "  engine wall clock: not measured for an SCXML suite\n")
	}
	if depth > 0 && (!o.shard.on() || o.shard.i == 0) && !o.interrupted() {
		opts := explore.ChartOptions{Depth: depth, Stop: o.interrupted}
		if o.maxStatesSet {
			opts.MaxStates = o.maxStates
		}
		addChartExploration(w, c, rs, explore.Chart(c.Machine, opts), opts.MaxStates, t, o.width)
	}
}

// generatedChart plays this shard's runs of the chart's event alphabet
// (run k from its own stream of (seed, k)) and adds them to the report: a
// run reaching a top-level final state is a success, one whose macrostep
// does not settle breaks halted, and the first such run, shrunk, becomes
// a scenario in failures/.
func generatedChart(w io.Writer, c *spec.ChartSuite, rs *reports.Suite, o runOptions, t *tally) {
	if rs.GeneratedCoverage == nil {
		rs.GeneratedCoverage = sim.ChartCoverage(c.Machine.Chart)
	}
	from, to := o.shard.span(o.generate)
	alphabet := c.Machine.Chart.Alphabet()
	// Batches of runs, so that progress shows and an interruption stops
	// the runs within a fraction of a second.
	var m sim.ChartMetrics
	var first *sim.ChartRun
	for k := from; k < to && !o.interrupted(); k += chartBatch {
		bm, bf := sim.GenerateChart(c, alphabet, k, min(k+chartBatch, to), uint64(o.seed), chartMaxTurns, rs.GeneratedCoverage)
		m.Runs, m.Done, m.Halted, m.Turns, m.TurnsToDone = m.Runs+bm.Runs, m.Done+bm.Done, m.Halted+bm.Halted, m.Turns+bm.Turns, m.TurnsToDone+bm.TurnsToDone
		if first == nil {
			first = bf
		}
		o.prog.add(bm.Runs, bm.Halted)
	}
	met := generate.Metrics{Suite: c.Name, Conversations: m.Runs, Successes: m.Done, TurnsToCompletion: m.TurnsToDone,
		Turns: m.Turns, Violating: m.Halted, Violations: m.Halted, SuccessBy: chartSuccess}
	rs.Generated = append(rs.Generated, met)
	note := ""
	if m.Halted > 0 {
		note = " (breaking halted)"
	}
	fmt.Fprintf(w, "  %-*s %d runs of at most %d events: %s %.1f%%, %.1f events per run, %d violating%s\n",
		o.width+6, "generated", m.Runs, chartMaxTurns, chartSuccess, pct(m.Done, m.Runs), mean(m.Turns, m.Runs), m.Halted, note)
	if first == nil {
		return
	}
	f := chartFailure(c, first, o)
	rs.Failures = append(rs.Failures, reports.GenFailure{Failure: f})
	t.genFail++
	file := filepath.Join(o.out, reports.FailureFile(f.Name))
	fmt.Fprintf(w, "  FAIL  generated breaks halted at run %d, shrunk from %d to %d events\n", f.Index, f.Turns, f.ShrunkTurns)
	fmt.Fprintf(w, "         %s\n", f.Violation)
	fmt.Fprintf(w, "         replay: simctl replay %s\n", file)
}

// chartBatch is how many generated runs of a chart are played between
// two looks at progress and interruption: a few milliseconds' worth.
const chartBatch = 64

// chartSuccess is what a successful generated run of a chart did.
const chartSuccess = "final state reached"

// chartFailure shrinks a halted run (dropping each step that the halt
// does not need, last first) and writes it as a scenario of the suite,
// named relative to the failures folder, that simctl replay plays.
func chartFailure(c *spec.ChartSuite, run *sim.ChartRun, o runOptions) generate.Failure {
	steps := slices.Clone(run.Steps)
	halts := func(steps []string) bool {
		s := c.Machine.NewSession()
		s.Start()
		for _, st := range steps {
			playChartStep(s, st)
			if s.Halted() != "" {
				return true
			}
		}
		return false
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if try := slices.Delete(slices.Clone(steps), i, i+1); halts(try) {
			steps = try
		}
	}
	f := generate.Failure{Suite: c.Name, Invariant: "halted", Index: run.Index, Turns: len(run.Steps), ShrunkTurns: len(steps),
		Violation: eval.Violation{Invariant: "halted", Turn: len(steps), Trans: engine.NoID, Msg: run.Msg}}
	f.Name = fmt.Sprintf("gen-%s-halted-%d", c.Name, run.Index)
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated by simctl run --generate (seed %d, run %d), shrunk from %d to %d events.\n", o.seed, f.Index, f.Turns, f.ShrunkTurns)
	fmt.Fprintf(&b, "# Replay: simctl replay <this file>\n")
	fmt.Fprintf(&b, "name: %s\n", f.Name)
	fmt.Fprintf(&b, "suite: %s\n", strconv.Quote(relSuite(c.Dir, o.out)))
	fmt.Fprintf(&b, "description: %s\n", strconv.Quote(fmt.Sprintf("breaks halted at event %d: %s", f.Violation.Turn, f.Violation.Msg)))
	b.WriteString("tags: [generated]\nturns:\n")
	for _, st := range steps {
		if ms, ok := strings.CutPrefix(st, "wait "); ok {
			fmt.Fprintf(&b, "  - wait: %s\n", ms)
		} else {
			fmt.Fprintf(&b, "  - event: {name: %s}\n", strconv.Quote(st))
		}
	}
	f.Scenario = []byte(b.String())
	return f
}

// playChartStep plays a generated step: an event name, or "wait Nms".
func playChartStep(s *statechart.Session, st string) {
	if ms, ok := strings.CutPrefix(st, "wait "); ok {
		n, _ := strconv.ParseInt(strings.TrimSuffix(ms, "ms"), 10, 64)
		s.Advance(n)
		return
	}
	s.Send(statechart.Event{Name: st})
}

// addChartExploration adds a chart's search to the report, and prints its
// line and findings; each finding fails the run (a chart has no notes).
func addChartExploration(w io.Writer, c *spec.ChartSuite, rs *reports.Suite, res explore.ChartResult, maxStates int, t *tally, width int) {
	if rs.ExploredCoverage == nil {
		rs.ExploredCoverage = sim.ChartCoverage(c.Machine.Chart)
	}
	rs.ExploredCoverage.Add(res.Coverage)
	e := reports.Exploration{Depth: res.Depth, Generated: res.Generated, Distinct: res.Distinct, Complete: res.Complete,
		Covered: res.Covered, Transitions: res.Total}
	how := fmt.Sprintf("to depth %d", res.Depth)
	if res.Complete {
		how = "completely"
	}
	fmt.Fprintf(w, "  %-*s %s: %s, %d transitions of %d\n", width+6, "explored", how, count(res.Distinct, "distinct state", "distinct states"), res.Covered, res.Total)
	switch {
	case res.Interrupted:
		e.Stopped = explore.Interrupted
		fmt.Fprintf(w, "         %s\n", e.Stopped)
	case res.Capped:
		e.Stopped = cappedText(res, maxStates)
		fmt.Fprintf(w, "         %s\n", e.Stopped)
	}
	for _, f := range res.Findings {
		e.Findings = append(e.Findings, reports.ExploreFinding{Kind: f.Kind, Where: "in " + strings.Join(f.Active, " "), Path: len(f.Path), Message: f.Msg})
		t.findings++
		fmt.Fprintf(w, "  FAIL  explored finds %s, shortest path %s (%s): %s\n", f.Kind, count(len(f.Path), "event", "events"), pathText(f.Path), f.Msg)
		fmt.Fprintf(w, "         see it: simctl explore %s --depth %d --emit-scenarios DIR\n", c.Dir, len(f.Path))
	}
	rs.Explored = append(rs.Explored, e)
}

// cappedText says that the state bound stopped a chart's search; limit
// is the bound (0: the explorer's default).
func cappedText(res explore.ChartResult, limit int) string {
	if limit <= 0 {
		limit = explore.DefaultChartMaxStates
	}
	return fmt.Sprintf("stopped: the search reached %d configurations (--max-states); depth %d is only partly explored", limit, res.Depth)
}

// chartSelected applies --only to a chart scenario's tags.
func chartSelected(sc *spec.ChartScenario, only []string) bool {
	if len(only) == 0 {
		return true
	}
	for _, t := range sc.Tags {
		for _, want := range only {
			if t.Value == want {
				return true
			}
		}
	}
	return false
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

// exploreCharts explores each chart suite and prints the search and its
// findings; it reports whether any was found, and writes a scenario per
// finding to emit when it is not empty.
func exploreCharts(w io.Writer, charts []*spec.ChartSuite, depth, maxStates int, emit string, stop func() bool) (bool, error) {
	failed := false
	var names, dirs []string
	var results []explore.ChartResult
	for _, c := range charts {
		if stop() {
			break
		}
		res := explore.Chart(c.Machine, explore.ChartOptions{Depth: depth, MaxStates: maxStates, Stop: stop})
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
