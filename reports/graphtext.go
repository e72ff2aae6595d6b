package reports

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
)

// Graph formats for simctl graph.
const (
	FormatDOT     = "dot"
	FormatMermaid = "mermaid"
	FormatSVG     = "svg" // the DOT graph laid out by dot (go-graphviz), as a standalone SVG file
)

// GraphFormats lists the formats WriteGraph knows.
var GraphFormats = []string{FormatDOT, FormatMermaid, FormatSVG}

// WriteGraph writes machine m as a graph in format (dot or mermaid): states
// in declaration order, compound states as clusters (DOT) or subgraphs
// (Mermaid) around their children, transitions in id order labelled
// "trigger [guard]". With counts (one per transition, as ReadCoverageCounts
// returns them) each label ends in "×N" and untaken transitions are drawn
// dashed and red.
//
// svg is the DOT graph laid out by Graphviz's dot, run in-process through
// go-graphviz: the same layout engine report.html uses, the same bytes on
// every machine.
func WriteGraph(w io.Writer, format string, m Shape, counts []int64) error {
	if counts != nil && len(counts) != m.NumTransitions() {
		return fmt.Errorf("reports: %d counts for %d transitions", len(counts), m.NumTransitions())
	}
	bw := bufio.NewWriter(w)
	switch format {
	case FormatDOT:
		writeDOT(bw, m, counts)
	case FormatMermaid:
		writeMermaid(bw, m, counts)
	case FormatSVG:
		var dot bytes.Buffer
		dw := bufio.NewWriter(&dot)
		writeDOT(dw, m, counts)
		if err := dw.Flush(); err != nil {
			return err
		}
		svg, err := layoutSVG(dot.Bytes())
		if err != nil {
			return fmt.Errorf("reports: laying out the graph: %w", err)
		}
		bw.Write(svg)
	default:
		return fmt.Errorf("unknown graph format %q (want %s)", format, strings.Join(GraphFormats, " or "))
	}
	return bw.Flush()
}

// hasOverrides reports whether m has transitions from any state (the
// overrides), which the graphs draw from a node "(any state)".
func hasOverrides(m Shape) bool {
	for i := range m.NumTransitions() {
		if m.Transition(engine.TransID(i)).Source == engine.NoID {
			return true
		}
	}
	return false
}

// childStates lists each state's children, in id order.
func childStates(m Shape) [][]engine.StateID {
	out := make([][]engine.StateID, m.NumStates())
	for i := range m.NumStates() {
		if p := m.Parent(engine.StateID(i)); p != engine.NoID {
			out[p] = append(out[p], engine.StateID(i))
		}
	}
	return out
}

// transLabel is "trigger [guard]", with " ×N" when counts are given.
func transLabel(t engine.TransitionInfo, counts []int64) string {
	s := t.Trigger
	if t.Guard != "" {
		s += " [" + strings.Join(strings.Fields(t.Guard), " ") + "]"
	}
	if counts != nil {
		s += " ×" + strconv.FormatInt(counts[t.ID], 10)
	}
	return s
}

// dotQuote quotes s as a DOT string.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	return `"` + r.Replace(s) + `"`
}

func writeDOT(w *bufio.Writer, m Shape, counts []int64) {
	kids := childStates(m)
	fmt.Fprintf(w, "digraph %s {\n", dotQuote(m.Name()))
	w.WriteString("  compound=true;\n  rankdir=LR;\n")
	w.WriteString("  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n")
	w.WriteString("  edge [fontname=\"Helvetica\", fontsize=10];\n")
	var state func(s engine.StateID, indent string)
	state = func(s engine.StateID, indent string) {
		name := m.StateName(s)
		if len(kids[s]) == 0 {
			var attrs []string
			if _, short := splitPath(name); short != name {
				// Inside its parent's cluster, its own name says enough.
				attrs = append(attrs, "label="+dotQuote(short))
			}
			if m.IsFinal(s) {
				attrs = append(attrs, "peripheries=2")
			}
			if len(attrs) > 0 {
				fmt.Fprintf(w, "%s%s [%s];\n", indent, dotQuote(name), strings.Join(attrs, ", "))
			} else {
				fmt.Fprintf(w, "%s%s;\n", indent, dotQuote(name))
			}
			return
		}
		// A compound state is a cluster; its own node, a point inside it,
		// is where its transitions start and end (clipped to the cluster).
		// A parallel state's regions are dashed clusters inside it.
		fmt.Fprintf(w, "%ssubgraph %s {\n", indent, dotQuote("cluster_"+name))
		fmt.Fprintf(w, "%s  label=%s;\n", indent, dotQuote(name+parallelMark(m, s)))
		if isRegion(m, s) {
			fmt.Fprintf(w, "%s  style=dashed;\n", indent)
		}
		fmt.Fprintf(w, "%s  %s [shape=point, width=0.05];\n", indent, dotQuote(name))
		for _, c := range kids[s] {
			state(c, indent+"  ")
		}
		fmt.Fprintf(w, "%s}\n", indent)
	}
	for i := range m.NumStates() {
		if m.Parent(engine.StateID(i)) == engine.NoID {
			state(engine.StateID(i), "  ")
		}
	}
	w.WriteString("  \"__start\" [shape=point, label=\"\"];\n")
	fmt.Fprintf(w, "  \"__start\" -> %s;\n", dotQuote(m.StateName(m.Initial())))
	if hasOverrides(m) {
		w.WriteString("  \"__any\" [shape=plaintext, label=\"(any state)\"];\n")
	}
	for i := range m.NumTransitions() {
		t := m.Transition(engine.TransID(i))
		to, from, toName := dotEnds(m, t)
		attrs := []string{"label=" + dotQuote(transLabel(t, counts))}
		if t.Source != engine.NoID && len(kids[t.Source]) > 0 && !m.InState(to, t.Source) {
			attrs = append(attrs, "ltail="+dotQuote("cluster_"+m.StateName(t.Source)))
		}
		if to != engine.NoID && len(kids[to]) > 0 && (t.Source == engine.NoID || !m.InState(t.Source, to)) {
			attrs = append(attrs, "lhead="+dotQuote("cluster_"+m.StateName(to)))
		}
		if t.Internal || t.Target == engine.NoID {
			attrs = append(attrs, "arrowhead=odot")
		}
		if counts != nil && counts[i] == 0 {
			attrs = append(attrs, "style=dashed", "color=red", "fontcolor=red")
		}
		fmt.Fprintf(w, "  %s -> %s [%s];\n", from, toName, strings.Join(attrs, ", "))
	}
	w.WriteString("}\n")
}

// mermaidText makes s safe inside a quoted Mermaid label.
func mermaidText(s string) string {
	r := strings.NewReplacer(`"`, "#quot;", "\n", " ", "\r", "", "<", "#lt;", ">", "#gt;")
	return r.Replace(s)
}

func writeMermaid(w *bufio.Writer, m Shape, counts []int64) {
	kids := childStates(m)
	var dashed []string
	id := func(s engine.StateID) string { return "s" + strconv.Itoa(int(s)) }
	w.WriteString("flowchart LR\n")
	var state func(s engine.StateID, indent string)
	state = func(s engine.StateID, indent string) {
		name := mermaidText(m.StateName(s))
		if len(kids[s]) == 0 {
			// Inside its parent's subgraph, its own name says enough.
			_, short := splitPath(m.StateName(s))
			name = mermaidText(short)
			open, close := "(", ")"
			if m.IsFinal(s) {
				open, close = "((", "))"
			}
			fmt.Fprintf(w, "%s%s%s\"%s\"%s\n", indent, id(s), open, name, close)
			return
		}
		// A parallel state's regions are subgraphs inside it, dashed.
		fmt.Fprintf(w, "%ssubgraph %s [\"%s\"]\n", indent, id(s), name+parallelMark(m, s))
		if isRegion(m, s) {
			dashed = append(dashed, id(s))
		}
		for _, c := range kids[s] {
			state(c, indent+"  ")
		}
		fmt.Fprintf(w, "%send\n", indent)
	}
	for i := range m.NumStates() {
		if m.Parent(engine.StateID(i)) == engine.NoID {
			state(engine.StateID(i), "  ")
		}
	}
	w.WriteString("  start((\"start\"))\n")
	fmt.Fprintf(w, "  start --> %s\n", id(m.Initial()))
	if hasOverrides(m) {
		w.WriteString("  any[\"(any state)\"]\n")
	}
	var red []string
	link := 1 // link 0 is the start arrow
	for i := range m.NumTransitions() {
		t := m.Transition(engine.TransID(i))
		to := t.Target
		if t.Internal || to == engine.NoID {
			to = t.Source
		}
		arrow := "-->"
		if counts != nil && counts[i] == 0 {
			arrow = "-.->"
			red = append(red, strconv.Itoa(link))
		}
		from, toName := "any", "any"
		if t.Source != engine.NoID {
			from = id(t.Source)
		}
		if to != engine.NoID {
			toName = id(to)
		}
		fmt.Fprintf(w, "  %s %s|\"%s\"| %s\n", from, arrow, mermaidText(transLabel(t, counts)), toName)
		link++
	}
	for _, d := range dashed {
		fmt.Fprintf(w, "  style %s stroke-dasharray: 5 5\n", d)
	}
	if len(red) > 0 {
		fmt.Fprintf(w, "  linkStyle %s stroke:red,color:red\n", strings.Join(red, ","))
	}
}

// arrow names a transition of transitions.csv in one line, as
// coverage.csv's items do (without the guard).
func arrow(from, to, trigger string) string {
	if from == "" {
		from = anyState
	}
	if to == "" {
		to = "(internal)"
	}
	return from + " -> " + to + " on " + trigger
}

// ReadCoverageCounts reads how often each transition of suite's machine m
// was taken from a transitions.csv or coverage.csv written by an earlier
// run (name is the file's name, for errors). It checks that the file
// describes this machine: it must hold rows for suite, and each of them
// must name the transition as m does.
func ReadCoverageCounts(r io.Reader, name, suite string, m Shape) ([]int64, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty file, expected a transitions.csv or coverage.csv", name)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	need := func(cols ...string) bool {
		for _, c := range cols {
			if _, ok := col[c]; !ok {
				return false
			}
		}
		return true
	}
	var idCol, itemCol int
	coverageFile := false
	switch {
	case need("suite", "transition", "from", "to", "trigger", "count"):
		idCol = col["transition"]
	case need("suite", "kind", "id", "item", "count"):
		idCol, itemCol, coverageFile = col["id"], col["item"], true
	default:
		return nil, fmt.Errorf("%s:1: expected the header of a transitions.csv or coverage.csv, got %q", name, strings.Join(header, ","))
	}
	counts := make([]int64, m.NumTransitions())
	found := 0
	var others []string
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		field := func(c int) string {
			if c < len(rec) {
				return UnneutraliseCell(rec[c])
			}
			return ""
		}
		if s := field(col["suite"]); s != suite {
			if !slices.Contains(others, s) {
				others = append(others, s)
			}
			continue
		}
		if coverageFile && field(col["kind"]) != KindTransition {
			continue
		}
		id, err := strconv.Atoi(field(idCol))
		if err != nil || id < 0 || id >= m.NumTransitions() {
			return nil, fmt.Errorf("%s:%d: suite %s has no transition %q (it has %d): a file of another version of the machine?",
				name, line, suite, field(idCol), m.NumTransitions())
		}
		t := m.Transition(engine.TransID(id))
		var got, want string
		if coverageFile {
			got, want = field(itemCol), transitionItem(m, t)
		} else {
			got = arrow(field(col["from"]), field(col["to"]), field(col["trigger"]))
			want = arrow(m.StateName(t.Source), target(m, t), t.Trigger)
		}
		if got != want {
			return nil, fmt.Errorf("%s:%d: transition %d is %q in the file but %q in suite %s: a file of another version of the machine?",
				name, line, id, got, want, suite)
		}
		n, err := strconv.ParseInt(field(col["count"]), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s:%d: count: expected a whole number, got %q", name, line, field(col["count"]))
		}
		counts[id] = n
		found++
	}
	if found == 0 {
		if len(others) == 0 {
			return nil, fmt.Errorf("%s: no transitions of suite %s (the file lists none)", name, suite)
		}
		return nil, fmt.Errorf("%s: no transitions of suite %s (the file covers %s)", name, suite, strings.Join(others, ", "))
	}
	if found != m.NumTransitions() {
		return nil, fmt.Errorf("%s: %d of suite %s's %d transitions listed: a file of another version of the machine?",
			name, found, suite, m.NumTransitions())
	}
	return counts, nil
}

// dotEnds returns the state t leads to and the quoted DOT node names of
// its ends: a targetless or internal transition loops on its source, and
// an override's missing source (or target) is the "(any state)" node.
func dotEnds(m Shape, t engine.TransitionInfo) (to engine.StateID, from, toName string) {
	to = t.Target
	if t.Internal || to == engine.NoID {
		to = t.Source
	}
	from, toName = `"__any"`, `"__any"`
	if t.Source != engine.NoID {
		from = dotQuote(m.StateName(t.Source))
	}
	if to != engine.NoID {
		toName = dotQuote(m.StateName(to))
	}
	return to, from, toName
}
