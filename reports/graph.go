package reports

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-graphviz"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// The state graph on the page is laid out by Graphviz's dot, run through
// github.com/goccy/go-graphviz: Graphviz compiled to WebAssembly and run
// by wazero, so no system Graphviz is needed and the layout is the same on
// every machine (its text widths are estimated from built-in font
// metrics, not from installed fonts). The page gets dot's SVG inline: dot
// places the nodes, routes the edges and places their labels apart from
// each other. A compound state is a cluster around its descendants.

// graphView is a rendered state graph, ready for the template.
type graphView struct {
	ID     string        // prefix of the element ids inside the SVG
	SVG    template.HTML // dot's SVG, without its XML prologue
	Width  int           // natural width in CSS pixels
	Legend graphLegend
}

type graphLegend struct {
	Covered, Explored, Uncovered int
}

// Edge colours, as class and stroke, for covered, explored-only and
// uncovered transitions (the legend's colours in report.html.tmpl).
const (
	colorCovered   = "#2e7d32"
	colorExplored  = "#3949ab"
	colorUncovered = "#c62828"
)

// newGraphView lays out suite s's state graph with coverage: transitions
// taken, reached only by the exploration, or never taken, each labelled
// "trigger ×times"; states never entered in red (a compound state counts
// as entered when any of its descendants was).
func newGraphView(s *Suite, id string) (*graphView, error) {
	m := s.shape()
	if m.NumStates() == 0 {
		return nil, nil
	}
	g := &graphView{ID: id}
	src := graphDOT(s, id, &g.Legend)
	svg, err := layoutSVG(src)
	if err != nil {
		return nil, fmt.Errorf("reports: laying out the state graph of %s: %w", s.Name, err)
	}
	fitted, width := fitSVG(svg)
	g.SVG, g.Width = template.HTML(fitted), width // dot escapes every name and label it writes (see layoutSVG)
	return g, nil
}

// graphDOT writes the DOT source of s's coverage graph. Node and edge ids
// are prefixed with id, so that several graphs can share the page.
func graphDOT(s *Suite, id string, legend *graphLegend) []byte {
	m := s.shape()
	cov := played(s)
	kids := childStates(m)
	entered := enteredCounts(m, cov.States)

	// Every transition's look first. A self-transition (or a targetless
	// one) is drawn through a node of its own that holds its label,
	// declared beside its state: dot places the labels of loops over
	// their neighbours', and two nodes never overlap.
	edges := make([]graphEdge, m.NumTransitions())
	loops := map[engine.StateID][]int{}
	for i := range edges {
		edges[i] = newGraphEdge(s, cov, i, legend)
		if t := m.Transition(engine.TransID(i)); t.Source != engine.NoID && (t.Internal || t.Target == engine.NoID || t.Target == t.Source) {
			loops[t.Source] = append(loops[t.Source], i)
		}
	}

	var b bytes.Buffer
	loopNodes := func(sid engine.StateID, indent string) {
		for _, i := range loops[sid] {
			e := edges[i]
			fmt.Fprintf(&b, "%s%s [shape=plaintext, style=\"\", height=0.2, margin=0.02, label=%s, fontsize=10, fontcolor=%s, tooltip=%s, class=%s];\n",
				indent, dotQuote(loopNode(i)), dotQuote(e.label), dotQuote(e.color), dotQuote(e.title), dotQuote("loop "+e.class))
		}
	}
	fmt.Fprintf(&b, "digraph %s {\n", dotQuote(m.Name()))
	fmt.Fprintf(&b, "  id=%s; compound=true; rankdir=LR; nodesep=0.3; ranksep=0.45; pad=0.1;\n", dotQuote(id))
	b.WriteString("  fontname=\"Helvetica\"; fontsize=12;\n")
	b.WriteString("  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", color=\"#555555\", fontname=\"Helvetica\", fontsize=12, height=0.35];\n")
	b.WriteString("  edge [fontname=\"Helvetica\", fontsize=10, arrowsize=0.7];\n")
	regions, _ := m.(regionShape)
	var state func(sid engine.StateID, indent string)
	state = func(sid engine.StateID, indent string) {
		name := m.StateName(sid)
		_, short := splitPath(name)
		title := fmt.Sprintf("%s: entered %d times", name, entered[sid])
		if pos := m.StatePos(sid); pos != (engine.Pos{}) {
			title += " · " + pos.String()
		}
		if len(kids[sid]) == 0 {
			attrs := []string{"label=" + dotQuote(short), "tooltip=" + dotQuote(title)}
			class := []string{"state"}
			if deep, ok := isHistory(regions, sid); ok {
				// A history pseudo-state: a small circle, H or H*.
				attrs = []string{"label=" + dotQuote(historyLabel(deep)), "tooltip=" + dotQuote(title), "shape=circle", "width=0.3", "fixedsize=true", "fontsize=10"}
				class = append(class, "history")
			}
			if m.IsFinal(sid) {
				attrs = append(attrs, "peripheries=2")
				class = append(class, "final")
			}
			if sid == m.Initial() {
				attrs = append(attrs, "color=\"#135c22\"", "penwidth=2")
				class = append(class, "initial")
			}
			if entered[sid] == 0 {
				attrs = append(attrs, "fillcolor=\"#fff3f2\"", "color=\"#c0392b\"", "fontcolor=\"#8a1209\"")
				class = append(class, "unentered")
			}
			attrs = append(attrs, "class="+dotQuote(strings.Join(class, " ")))
			fmt.Fprintf(&b, "%s%s [%s];\n", indent, dotQuote(name), strings.Join(attrs, ", "))
			loopNodes(sid, indent)
			return
		}
		// A compound state is a cluster around its descendants. Its name is
		// a node inside it (a cluster's own label may sit under an edge
		// label; nodes never overlap), where its transitions start and end,
		// clipped by dot to the cluster's frame. A machine with parallel
		// states (regionShape: an SCXML chart) draws each region as one
		// more nested cluster, dashed.
		fmt.Fprintf(&b, "%ssubgraph %s {\n", indent, dotQuote("cluster_"+name))
		class := "compound"
		style := "rounded,filled"
		switch {
		case parallelMark(m, sid) != "":
			// A parallel state: its regions, side by side inside it,
			// are active together.
			class, short = "compound parallel", short+parallelMark(m, sid)
		case isRegion(m, sid):
			// A region of a parallel state: dashed, as in UML.
			class, style = "compound region", "rounded,filled,dashed"
		}
		attrs := []string{"tooltip=" + dotQuote(title), "style=" + dotQuote(style),
			"fillcolor=\"#f1f4fa\"", "color=\"#8e9bb8\"", "id=" + dotQuote(id+"_cluster"+strconv.Itoa(int(sid)))}
		header := []string{"label=" + dotQuote(short), "tooltip=" + dotQuote(title), "fillcolor=\"#dfe5f1\"", "color=\"#6b7a99\"",
			"fontname=\"Helvetica-Bold\"", "fontsize=11"}
		if entered[sid] == 0 {
			attrs = append(attrs, "color=\"#c0392b\"")
			header = append(header, "color=\"#c0392b\"", "fontcolor=\"#8a1209\"")
			class += " unentered"
		}
		attrs = append(attrs, "class="+dotQuote(class))
		for _, a := range attrs {
			fmt.Fprintf(&b, "%s  %s;\n", indent, a)
		}
		fmt.Fprintf(&b, "%s  %s [%s, class=%s];\n", indent, dotQuote(name), strings.Join(header, ", "), dotQuote("state "+class))
		loopNodes(sid, indent+"  ")
		for _, c := range kids[sid] {
			state(c, indent+"  ")
		}
		fmt.Fprintf(&b, "%s}\n", indent)
	}
	for i := range m.NumStates() {
		if m.Parent(engine.StateID(i)) == engine.NoID {
			state(engine.StateID(i), "  ")
		}
	}
	b.WriteString("  \"__start\" [shape=point, width=0.14, style=filled, fillcolor=\"#135c22\", color=\"#135c22\", tooltip=\"start\"];\n")
	fmt.Fprintf(&b, "  \"__start\" -> %s [color=\"#135c22\"%s];\n", dotQuote(m.StateName(m.Initial())), lhead(m, kids, engine.NoID, m.Initial()))
	if hasOverrides(m) {
		b.WriteString("  \"__any\" [label=\"(any state)\", style=\"rounded,dashed\", color=\"#999999\", tooltip=\"overrides: transitions any state takes\", class=\"any\"];\n")
	}
	for i, e := range edges {
		t := m.Transition(engine.TransID(i))
		to, from, toName := dotEnds(m, t)
		common := []string{"tooltip=" + dotQuote(e.title), "class=" + dotQuote(e.class), "color=" + dotQuote(e.color), "style=" + e.style}
		var tail string
		if t.Source != engine.NoID && len(kids[t.Source]) > 0 && !m.InState(to, t.Source) {
			tail = ", ltail=" + dotQuote("cluster_"+m.StateName(t.Source))
		}
		head := "normal"
		if t.Internal || t.Target == engine.NoID {
			head = "odot"
		}
		if slices.Contains(loops[t.Source], i) {
			ln := dotQuote(loopNode(i))
			fmt.Fprintf(&b, "  %s -> %s [%s, arrowhead=none];\n", from, ln, strings.Join(common, ", "))
			fmt.Fprintf(&b, "  %s -> %s [%s, arrowhead=%s];\n", ln, toName, strings.Join(common, ", "), head)
			continue
		}
		attrs := append([]string{"label=" + dotQuote(e.label), "labeltooltip=" + dotQuote(e.title), "fontcolor=" + dotQuote(e.color),
			"arrowhead=" + head}, common...)
		fmt.Fprintf(&b, "  %s -> %s [%s%s%s];\n", from, toName, strings.Join(attrs, ", "), tail, lhead(m, kids, t.Source, to))
		// An SCXML transition may enter several regions at once: one more
		// edge, unlabelled, to each further target.
		for _, x := range moreTargets(regions, t) {
			fmt.Fprintf(&b, "  %s -> %s [%s, arrowhead=%s%s%s];\n", from, dotQuote(m.StateName(x)), strings.Join(common, ", "), head, tail, lhead(m, kids, t.Source, x))
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// graphEdge is how a transition looks in the graph.
type graphEdge struct {
	label, title        string
	class, color, style string
}

// newGraphEdge gives transition i its label, tooltip and colour by what
// took it: the conversations played, only the exploration, or nothing.
func newGraphEdge(s *Suite, cov *eval.Coverage, i int, legend *graphLegend) graphEdge {
	m := s.shape()
	t := m.Transition(engine.TransID(i))
	count := countAt(cov.Trans, i)
	e := graphEdge{label: edgeLabel(t.Trigger, count), class: "covered", color: colorCovered, style: "solid"}
	e.title = fmt.Sprintf("#%d %s: taken %d times", i, transitionItem(m, t), count)
	if s.ExploredCoverage != nil {
		e.title += fmt.Sprintf(", explored %d", countAt(s.ExploredCoverage.Trans, i))
	}
	e.title += " · " + t.Pos.String()
	switch {
	case count > 0:
		legend.Covered++
	case s.ExploredCoverage != nil && countAt(s.ExploredCoverage.Trans, i) > 0:
		e.class, e.color, e.style = "explored", colorExplored, "dotted"
		legend.Explored++
	default:
		e.class, e.color, e.style = "uncovered", colorUncovered, "dashed"
		legend.Uncovered++
	}
	return e
}

// loopNode names the node holding the label of self-transition i.
func loopNode(i int) string { return "__loop" + strconv.Itoa(i) }

// lhead clips an edge into compound state to at its cluster's frame,
// unless it comes from inside it.
func lhead(m Shape, kids [][]engine.StateID, from, to engine.StateID) string {
	if to == engine.NoID || len(kids[to]) == 0 || (from != engine.NoID && m.InState(from, to)) {
		return ""
	}
	return ", lhead=" + dotQuote("cluster_"+m.StateName(to))
}

// enteredCounts gives each state its entries, a compound state's as the
// sum of its descendants' and its own: a parent is entered whenever any
// descendant is.
func enteredCounts(m Shape, own []int64) []int64 {
	out := make([]int64, m.NumStates())
	if _, chart := m.(regionShape); chart {
		// An SCXML session counts every state it enters, compound and
		// parallel ones included (sim.CountChart).
		copy(out, own)
		return out
	}
	for i := range m.NumStates() {
		for x := engine.StateID(i); x != engine.NoID; x = m.Parent(x) {
			out[x] += countAt(own, i)
		}
	}
	return out
}

// layoutSVG lays out a DOT graph with dot and returns its SVG. Graphviz's
// SVG writer escapes every name, label and tooltip (&, <, >, quotes), so
// the result can go into the page as markup.
func layoutSVG(src []byte) ([]byte, error) {
	ctx := context.Background()
	gv, err := graphviz.New(ctx)
	if err != nil {
		return nil, err
	}
	defer gv.Close()
	g, err := graphviz.ParseBytes(src)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	var buf bytes.Buffer
	if err := gv.Render(ctx, g, graphviz.SVG, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

var (
	svgComment = regexp.MustCompile(`(?s)<!--.*?-->\n?`)
	svgXMLNS   = regexp.MustCompile(`\s+xmlns(:\w+)?="[^"]*"`)
	svgLink    = regexp.MustCompile(`<a xlink:title="([^"]*)">`)
	svgSize    = regexp.MustCompile(`<svg width="[0-9.]+pt" height="[0-9.]+pt"\s+viewBox="0\.00 0\.00 ([0-9.]+) ([0-9.]+)"`)
)

// fitSVG drops the XML prologue, comments and namespaces of dot's SVG, turns
// its tooltips into <title> elements, and gives it its
// natural size in CSS pixels (dot measures in points); the page's CSS
// shrinks it to the column unless the reader asks for full size.
func fitSVG(svg []byte) ([]byte, int) {
	if i := bytes.Index(svg, []byte("<svg")); i >= 0 {
		svg = svg[i:]
	}
	svg = svgComment.ReplaceAll(svg, nil)
	// Inline SVG needs no namespace declarations (and the page then holds
	// no URL); a tooltip reads best as the <title> browsers show on hover.
	svg = svgXMLNS.ReplaceAll(svg, nil)
	svg = svgLink.ReplaceAll(svg, []byte("<a><title>$1</title>"))
	width := 0
	svg = svgSize.ReplaceAllFunc(svg, func(tag []byte) []byte {
		sub := svgSize.FindSubmatch(tag)
		w, _ := strconv.ParseFloat(string(sub[1]), 64)
		h, _ := strconv.ParseFloat(string(sub[2]), 64)
		width = int(math.Ceil(w * 4 / 3))
		return fmt.Appendf(nil, `<svg width="%d" height="%d" viewBox="0 0 %s %s" role="img" aria-label="state graph"`,
			width, int(math.Ceil(h*4/3)), sub[1], sub[2])
	})
	return bytes.TrimSpace(svg), width
}

// edgeLabel is what an edge says: its trigger and how often it was taken.
func edgeLabel(trigger string, count int64) string {
	return trigger + " ×" + strconv.FormatInt(count, 10)
}

// splitPath splits a state path into its parent part, with the final dot,
// and its own name.
func splitPath(path string) (prefix, short string) {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return "", path
	}
	return path[:i+1], path[i+1:]
}

func countAt(xs []int64, i int) int64 {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}
