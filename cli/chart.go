package cli

// SCXML suites (machine.scxml) on the command line: lint, run, explore and
// graph read them; the other commands say that they do not. A chart runs on
// package statechart (the SCXML recommendation's algorithm), not on
// engine, so reports, generation, shards and coverage CSVs cover YAML suites
// only for now.

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
	"github.com/simctl/simctl/statechart"
)

// loadAll discovers the suites under paths and loads them: YAML suites and
// SCXML chart suites, each sorted by name.
func loadAll(ctx context.Context, paths []string) ([]*spec.Suite, []*spec.ChartSuite, error) {
	if len(paths) == 0 {
		return nil, nil, &usageError{"no suite given (simctl run scenarios/)"}
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
	return &usageError{fmt.Sprintf("%s/%s: simctl %s does not read SCXML suites yet (lint, run, explore and graph do)", charts[0].Dir, spec.ChartFile, cmd)}
}

// chartMaxTurns bounds a generated run of a chart.
const chartMaxTurns = 20

// runCharts plays every chart suite's scenarios, then --generate runs of
// its event alphabet, and explores it to depth, printing as run does for
// YAML suites; it returns the tally.
func runCharts(w io.Writer, charts []*spec.ChartSuite, depth int, o runOptions) tally {
	var total tally
	for _, c := range charts {
		var t tally
		fmt.Fprintf(w, "suite %s (%s, SCXML)\n", c.Name, c.Dir)
		covered := map[string]bool{}
		for _, sc := range c.Scenarios {
			if !chartSelected(sc, o.only) {
				continue
			}
			r := sim.RunChartScenario(c, sc, o.verbose)
			for _, x := range r.Taken {
				covered[x] = true
			}
			t.add(r.Status)
			label := "PASS"
			if r.Status != sim.Pass {
				label = "FAIL"
			}
			fmt.Fprintf(w, "  %s  %-40s %3d %-5s %4d %s\n", label, r.Scenario, r.Turns, plural(r.Turns, "turn", "turns"),
				r.Transitions, plural(r.Transitions, "transition", "transitions"))
			for _, f := range r.Failures {
				fmt.Fprintf(w, "         %s\n", f)
			}
			for _, l := range r.Trace {
				fmt.Fprintf(w, "         %s\n", l)
			}
		}
		if len(c.Scenarios) > 0 {
			fmt.Fprintf(w, "  coverage: %d of %d transitions taken by the scenarios\n", len(covered), sim.ChartTransitions(c))
		}
		if o.generate > 0 {
			g := sim.GenerateChart(c, explore.ChartAlphabet(c.Machine.Chart), o.generate, uint64(o.seed), chartMaxTurns)
			fmt.Fprintf(w, "  generated %d runs of at most %d events: %d reached a final state, %.1f events per run, %d of %d transitions taken\n",
				g.Runs, chartMaxTurns, g.Done, float64(g.Turns)/float64(max(g.Runs, 1)), g.Covered, g.Total)
			if g.Halted > 0 {
				t.fail++
				fmt.Fprintf(w, "  FAIL  generated: %d runs halted (%s); the first: %s\n", g.Halted, g.HaltMsg, strings.Join(g.FirstHalt, ", "))
			}
		}
		if depth > 0 {
			res := explore.Chart(c.Machine, explore.ChartOptions{Depth: depth})
			for _, f := range res.Findings {
				t.fail++
				fmt.Fprintf(w, "  FAIL  explore: %s: shortest path %d events (%s): %s\n", f.Kind, len(f.Path), pathText(f.Path), f.Msg)
			}
		}
		fmt.Fprintf(w, "%s: %s\n\n", c.Name, t)
		total.merge(t)
	}
	return total
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
func exploreCharts(w io.Writer, charts []*spec.ChartSuite, depth, maxStates int, emit string) (bool, error) {
	failed := false
	var names, dirs []string
	var results []explore.ChartResult
	for _, c := range charts {
		res := explore.Chart(c.Machine, explore.ChartOptions{Depth: depth, MaxStates: maxStates})
		names, dirs, results = append(names, c.Name), append(dirs, c.Dir), append(results, res)
		fmt.Fprintf(w, "explore %s (SCXML)\n", c.Name)
		fmt.Fprintf(w, "  %d states generated, %d distinct states, depth %d\n", res.Generated, res.Distinct, res.Depth)
		fmt.Fprintf(w, "  events: %s\n", strings.Join(res.Alphabet, " "))
		if res.Complete {
			fmt.Fprintf(w, "  complete: every reachable configuration was explored\n")
		} else {
			fmt.Fprintf(w, "  bounded: explored to depth %d\n", res.Depth)
		}
		fmt.Fprintf(w, "  transitions covered: %d of %d\n", res.Covered, res.Total)
		if len(res.Unreached) > 0 {
			fmt.Fprintf(w, "  states never active: %s\n", strings.Join(res.Unreached, " "))
		}
		for _, f := range res.Findings {
			failed = true
			fmt.Fprintf(w, "  FAIL  %s: shortest path %d events: %s\n", f.Kind, len(f.Path), f.Msg)
			fmt.Fprintf(w, "        path: %s\n", pathText(f.Path))
			fmt.Fprintf(w, "        active: %s\n", strings.Join(f.Active, " "))
		}
		if len(res.Findings) == 0 {
			fmt.Fprintf(w, "  no dead ends, stuck regions or livelocks\n")
		}
	}
	if emit != "" && len(charts) > 0 {
		n, err := explore.EmitChartScenarios(emit, names, dirs, results)
		if err != nil {
			return failed, err
		}
		fmt.Fprintf(w, "wrote %d scenarios of SCXML findings to %s\n", n, emit)
	}
	return failed, nil
}

// chartGraph writes a chart as DOT (also for svg, which graphCmd lays out)
// or Mermaid: compound and parallel
// states as clusters (a parallel state's regions as dashed clusters side
// by side), transitions as edges labelled with their events.
func chartGraph(w io.Writer, c *spec.ChartSuite, format string) {
	ch := c.Machine.Chart
	var b strings.Builder
	isCluster := func(i int) bool {
		k := ch.States[i].Kind
		return len(ch.States[i].Children) > 0 && (k == statechart.Compound || k == statechart.Parallel)
	}
	// leafOf picks a node to hang a cluster's edges on (DOT edges join
	// nodes; Mermaid's join states directly).
	var leafOf func(i int) int
	leafOf = func(i int) int {
		if !isCluster(i) {
			return i
		}
		return leafOf(ch.States[i].Children[0])
	}
	label := func(t *statechart.Transition) string {
		l := strings.Join(t.Events, " ")
		if t.Cond != statechart.NoExpr {
			l += " [" + ch.Exprs[t.Cond].Src + "]"
		}
		return l
	}
	if format == reports.FormatMermaid {
		b.WriteString("stateDiagram-v2\n")
		var walk func(i int, indent string)
		walk = func(i int, indent string) {
			st := &ch.States[i]
			for k, x := range st.Children {
				cs := &ch.States[x]
				switch {
				case cs.Kind == statechart.HistoryShallow || cs.Kind == statechart.HistoryDeep:
					continue
				case isCluster(x):
					fmt.Fprintf(&b, "%sstate %s {\n", indent, cs.ID)
					walk(x, indent+"  ")
					fmt.Fprintf(&b, "%s}\n", indent)
				case cs.Kind == statechart.Final:
					fmt.Fprintf(&b, "%s%s --> [*]\n", indent, cs.ID)
				}
				if st.Kind == statechart.Parallel && k < len(st.Children)-1 {
					fmt.Fprintf(&b, "%s--\n", indent)
				}
			}
			if st.Initial != nil && st.Kind != statechart.Parallel {
				for _, tg := range st.Initial.Targets {
					fmt.Fprintf(&b, "%s[*] --> %s\n", indent, ch.States[tg].ID)
				}
			}
		}
		walk(0, "  ")
		for i := range ch.States {
			for _, t := range ch.States[i].Trans {
				for _, tg := range t.Targets {
					fmt.Fprintf(&b, "  %s --> %s: %s\n", ch.States[i].ID, ch.States[tg].ID, label(t))
				}
			}
		}
		io.WriteString(w, b.String())
		return
	}
	fmt.Fprintf(&b, "digraph %q {\n  compound=true;\n  node [shape=box, style=rounded];\n", c.Name)
	var walk func(i int, indent string)
	walk = func(i int, indent string) {
		for _, x := range ch.States[i].Children {
			cs := &ch.States[x]
			switch {
			case cs.Kind == statechart.HistoryShallow || cs.Kind == statechart.HistoryDeep:
				fmt.Fprintf(&b, "%s%q [label=\"H%s\", shape=circle];\n", indent, cs.ID, map[bool]string{true: "*", false: ""}[cs.Kind == statechart.HistoryDeep])
			case isCluster(x):
				style := "rounded"
				if ch.States[i].Kind == statechart.Parallel {
					style = "dashed"
				}
				fmt.Fprintf(&b, "%ssubgraph %q {\n%s  label=%q; style=%s;\n", indent, "cluster_"+cs.ID, indent, cs.ID+map[bool]string{true: " (parallel)", false: ""}[cs.Kind == statechart.Parallel], style)
				walk(x, indent+"  ")
				fmt.Fprintf(&b, "%s}\n", indent)
			case cs.Kind == statechart.Final:
				fmt.Fprintf(&b, "%s%q [shape=doublecircle];\n", indent, cs.ID)
			default:
				fmt.Fprintf(&b, "%s%q;\n", indent, cs.ID)
			}
		}
	}
	walk(0, "  ")
	for i := range ch.States {
		for _, t := range ch.States[i].Trans {
			for _, tg := range t.Targets {
				attrs := fmt.Sprintf("label=%q", label(t))
				if isCluster(i) {
					attrs += fmt.Sprintf(", ltail=%q", "cluster_"+ch.States[i].ID)
				}
				if isCluster(tg) {
					attrs += fmt.Sprintf(", lhead=%q", "cluster_"+ch.States[tg].ID)
				}
				fmt.Fprintf(&b, "  %q -> %q [%s];\n", ch.States[leafOf(i)].ID, ch.States[leafOf(tg)].ID, attrs)
			}
		}
	}
	b.WriteString("}\n")
	io.WriteString(w, b.String())
}
