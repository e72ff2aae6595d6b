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
	"github.com/simctl/simctl/layoutcache"
)

// The state graph on the page is laid out by Graphviz's dot, run through
// github.com/goccy/go-graphviz: Graphviz compiled to WebAssembly and run
// by wazero, so no system Graphviz is needed and the layout is the same on
// every machine (its text widths are estimated from built-in font
// metrics, not from installed fonts). The page gets dot's SVG inline: dot
// places the nodes, routes the edges and places their labels apart from
// each other. A compound state is a cluster around its descendants.

// graphView is a suite's state graph, ready for the template: one pane
// for the machine, and, for a machine too big to read whole, one more
// pane per folded compound state.
type graphView struct {
	Panes  []graphPane
	Folded bool // some compound states are drawn folded, as one box each
	Legend graphLegend
}

// graphPane is one laid-out view of the machine: the whole machine (the
// first pane), or the inside of one folded compound state.
type graphPane struct {
	ID     string        // element id of the pane, and prefix of the ids inside its SVG
	Title  string        // the folded state's name; "" for the first pane
	Up     string        // the id of the pane it is folded in
	States int           // the states inside the folded state
	SVG    template.HTML // dot's SVG, without its XML prologue
	Width  int           // natural width in CSS pixels
}

type graphLegend struct {
	Covered, Explored, Uncovered int
	Partial                      bool // some bundle has transitions taken and not
}

// Edge colours, as class and stroke, for covered, explored-only,
// partly covered (a bundle of transitions, some taken) and uncovered
// transitions (the legend's colours in report.html.tmpl).
const (
	colorCovered   = "#2e7d32"
	colorExplored  = "#3949ab"
	colorPartial   = "#b35c00"
	colorUncovered = "#c62828"
)

// Folding. A machine of more than foldStates states is drawn folded: a
// compound state with more than foldInside states below it is one box in
// its parent's pane, linked to a pane of its own. A 300-state machine laid
// out whole is a picture whose labels are a few pixels tall at any width a
// page has; folded, each pane holds a few dozen boxes.
const (
	foldStates = 30
	foldInside = 8
)

// minZoom is the smallest scale at which the page shows a graph by
// default, as a share of its natural size: dot's 10 pt edge labels are
// 13.3 CSS px at natural size, so they stay at least 11 px. A pane wider
// than its column at that scale scrolls and pans instead of shrinking.
const minZoom = 0.85

// newGraphView lays out suite s's state graph with coverage: transitions
// taken, reached only by the exploration, or never taken, each labelled
// "trigger ×times"; states never entered in red (a compound state counts
// as entered when any of its descendants was). Transitions between the
// same two boxes are bundled into one edge that says how many there are.
func newGraphView(s *Suite, id string) (*graphView, error) {
	m := s.shape()
	if m.NumStates() == 0 {
		return nil, nil
	}
	gr := newGrapher(s)
	g := &graphView{}
	roots := []engine.StateID{engine.NoID}
	for i := range m.NumStates() {
		if gr.folded[i] {
			g.Folded = true
			roots = append(roots, engine.StateID(i))
		}
	}
	for _, root := range roots {
		pane := graphPane{ID: id}
		if root != engine.NoID {
			pane.ID = gr.paneID(id, root)
			pane.Title = m.StateName(root)
			pane.Up = gr.paneID(id, gr.foldedAbove(root))
			pane.States = gr.size[root]
		}
		// The SVG's own id: the first pane's is the graph's id (links to a
		// way out of a pane into it land there); a folded state's pane
		// has its id on the <details> element around it.
		svgID := id
		if root != engine.NoID {
			svgID = pane.ID + "-g"
		}
		fitted, width, err := gr.layout(svgID, root, id)
		if err != nil {
			return nil, fmt.Errorf("reports: laying out the state graph of %s: %w", s.Name, err)
		}
		pane.SVG, pane.Width = template.HTML(fitted), width // dot escapes every name and label it writes (see layoutSVG)
		g.Panes = append(g.Panes, pane)
	}
	g.Legend = gr.legend
	return g, nil
}

// wideGraph is the natural width in CSS pixels beyond which a pane laid
// out left to right is laid out top to bottom as well, and the narrower
// of the two is kept: a page scrolls down more easily than across.
const wideGraph = 1500

// layout lays out root's pane, left to right or, when that is too wide for
// a page and top to bottom is narrower, top to bottom.
func (gr *grapher) layout(id string, root engine.StateID, link string) ([]byte, int, error) {
	svg, err := layoutSVG(gr.dot(id, root, link, "LR"))
	if err != nil {
		return nil, 0, err
	}
	fitted, width := fitSVG(svg)
	if width <= wideGraph {
		return fitted, width, nil
	}
	svg, err = layoutSVG(gr.dot(id, root, link, "TB"))
	if err != nil {
		return nil, 0, err
	}
	if tb, w := fitSVG(svg); w < width {
		return tb, w, nil
	}
	return fitted, width, nil
}

// grapher holds what every pane of one suite's graph shares.
type grapher struct {
	s       *Suite
	m       Shape
	kids    [][]engine.StateID
	entered []int64
	size    []int  // states below each state
	folded  []bool // drawn as one box, its inside in a pane of its own
	edges   []graphEdge
	legend  graphLegend
}

func newGrapher(s *Suite) *grapher {
	m := s.shape()
	cov := played(s)
	gr := &grapher{s: s, m: m, kids: childStates(m), entered: enteredCounts(m, cov.States),
		size: make([]int, m.NumStates()), folded: make([]bool, m.NumStates())}
	for i := range m.NumStates() {
		for x := m.Parent(engine.StateID(i)); x != engine.NoID; x = m.Parent(x) {
			gr.size[x]++
		}
	}
	if m.NumStates() > foldStates {
		for i := range m.NumStates() {
			gr.folded[i] = gr.size[i] > foldInside
		}
	}
	gr.edges = make([]graphEdge, m.NumTransitions())
	for i := range gr.edges {
		gr.edges[i] = newGraphEdge(s, cov, i, &gr.legend)
	}
	return gr
}

// paneID is the id of the pane showing the inside of root (the first
// pane for NoID).
func (gr *grapher) paneID(id string, root engine.StateID) string {
	if root == engine.NoID {
		return id
	}
	return id + "-in" + strconv.Itoa(int(root))
}

// foldedAbove is the nearest folded ancestor of s, or NoID.
func (gr *grapher) foldedAbove(s engine.StateID) engine.StateID {
	for x := gr.m.Parent(s); x != engine.NoID; x = gr.m.Parent(x) {
		if gr.folded[x] {
			return x
		}
	}
	return engine.NoID
}

// inside reports whether s is root or below it (everything is inside NoID).
func (gr *grapher) inside(s, root engine.StateID) bool {
	if root == engine.NoID {
		return true
	}
	for x := s; x != engine.NoID; x = gr.m.Parent(x) {
		if x == root {
			return true
		}
	}
	return false
}

// box is where state s is drawn in root's pane: s itself, or the
// outermost folded state holding it below root. ok is false when s is
// not inside root: the pane then draws a box for the way out.
func (gr *grapher) box(s, root engine.StateID) (b engine.StateID, ok bool) {
	if !gr.inside(s, root) {
		// Outside: the ancestor of s that is a sibling of root or of one
		// of root's ancestors, so that a pane shows each way out once.
		for b = s; ; b = gr.m.Parent(b) {
			if p := gr.m.Parent(b); p == engine.NoID || gr.inside(root, p) {
				return b, false
			}
		}
	}
	b = s
	for x := s; x != engine.NoID && x != root; x = gr.m.Parent(x) {
		if gr.folded[x] {
			b = x
		}
	}
	return b, true
}

// bundle is the transitions of one pane drawn as one edge: all those
// between the same two boxes (a loop when both are one box).
type bundle struct {
	from, to  string         // DOT node names
	toState   engine.StateID // for lhead; NoID for a node with no cluster
	fromState engine.StateID // for ltail
	loop      bool
	head      string
	trans     []int
}

// dot writes the DOT source of root's pane (root NoID: the whole
// machine, folded states as boxes). Node and edge ids are prefixed with
// id; link is the first pane's id, from which folded boxes' links are made.
func (gr *grapher) dot(id string, root engine.StateID, link, rankdir string) []byte {
	m := gr.m
	// The bundles, in the order of their first transition.
	var bundles []*bundle
	byKey := map[string]*bundle{}
	outside := map[engine.StateID]bool{}
	add := func(i int, src, dst engine.StateID, head string) {
		var from, to string
		var fromState, toState engine.StateID = engine.NoID, engine.NoID
		if src == engine.NoID {
			if root != engine.NoID {
				return // overrides are drawn once, in the first pane
			}
			from = "__any"
		} else {
			b, in := gr.box(src, root)
			if !in {
				outside[b] = true
			}
			from, fromState = m.StateName(b), b
		}
		if dst == engine.NoID {
			// A targetless override: a loop on "(any state)", drawn as
			// an ordinary edge (the loop nodes hang beside states).
			to = "__any"
		} else {
			b, in := gr.box(dst, root)
			if !in {
				if fromState != engine.NoID && !gr.inside(fromState, root) {
					return // both ends outside this pane
				}
				outside[b] = true
			}
			to, toState = m.StateName(b), b
			if fromState == toState && gr.folded[b] && b != root && !(src == dst && src == b) {
				return // inside one folded box: drawn in its own pane
			}
		}
		loop := fromState == toState && fromState != engine.NoID
		key := from + "\x00" + to + "\x00" + head
		if x, ok := byKey[key]; ok {
			x.trans = append(x.trans, i)
			return
		}
		x := &bundle{from: from, to: to, fromState: fromState, toState: toState, loop: loop, head: head, trans: []int{i}}
		byKey[key] = x
		bundles = append(bundles, x)
	}
	for i := range m.NumTransitions() {
		t := m.Transition(engine.TransID(i))
		to, _, _ := dotEnds(m, t)
		head := "normal"
		if t.Internal || t.Target == engine.NoID {
			head = "odot"
		}
		add(i, t.Source, to, head)
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, "digraph %s {\n", dotQuote(m.Name()))
	fmt.Fprintf(&b, "  id=%s; compound=true; rankdir=%s; nodesep=0.3; ranksep=0.45; pad=0.1;\n", dotQuote(id), rankdir)
	b.WriteString("  fontname=\"Helvetica\"; fontsize=12;\n")
	b.WriteString("  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", color=\"#555555\", fontname=\"Helvetica\", fontsize=12, height=0.35];\n")
	b.WriteString("  edge [fontname=\"Helvetica\", fontsize=10, arrowsize=0.7];\n")
	// A loop is drawn through a node of its own that holds its label,
	// declared beside its state: dot places the labels of loops over
	// their neighbours', and two nodes never overlap.
	loops := map[engine.StateID][]int{}
	for k, x := range bundles {
		if x.loop {
			loops[x.fromState] = append(loops[x.fromState], k)
		}
	}
	loopNodes := func(sid engine.StateID, indent string) {
		for _, k := range loops[sid] {
			e := gr.look(bundles[k].trans)
			fmt.Fprintf(&b, "%s%s [shape=plaintext, style=\"\", height=0.2, margin=0.02, label=%s, fontsize=10, fontcolor=%s, tooltip=%s, class=%s];\n",
				indent, dotQuote(loopNode(k)), dotQuote(e.label), dotQuote(e.color), dotQuote(e.title), dotQuote("loop "+e.class))
		}
	}
	var state func(sid engine.StateID, indent string)
	state = func(sid engine.StateID, indent string) {
		name := m.StateName(sid)
		_, short := splitPath(name)
		title := fmt.Sprintf("%s: entered %d times", name, gr.entered[sid])
		if pos := m.StatePos(sid); pos != (engine.Pos{}) {
			title += " · " + pos.String()
		}
		if gr.folded[sid] && sid != root {
			// A folded compound state: one box, linked to its pane.
			attrs := []string{"label=" + dotQuote(short+" ▸\n"+strconv.Itoa(gr.size[sid])+" states"),
				"tooltip=" + dotQuote(title+" · click to open"), "href=" + dotQuote("#"+gr.paneID(link, sid)),
				"style=\"rounded,filled,bold\"", "fillcolor=\"#dfe5f1\"", "color=\"#6b7a99\""}
			class := "state folded"
			if gr.entered[sid] == 0 {
				attrs = append(attrs, "color=\"#c0392b\"", "fontcolor=\"#8a1209\"")
				class += " unentered"
			}
			attrs = append(attrs, "class="+dotQuote(class))
			fmt.Fprintf(&b, "%s%s [%s];\n", indent, dotQuote(name), strings.Join(attrs, ", "))
			loopNodes(sid, indent)
			return
		}
		if len(gr.kids[sid]) == 0 {
			attrs := []string{"label=" + dotQuote(short), "tooltip=" + dotQuote(title)}
			class := []string{"state"}
			if m.IsFinal(sid) {
				attrs = append(attrs, "peripheries=2")
				class = append(class, "final")
			}
			if sid == m.Initial() {
				attrs = append(attrs, "color=\"#135c22\"", "penwidth=2")
				class = append(class, "initial")
			}
			if gr.entered[sid] == 0 {
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
		// clipped by dot to the cluster's frame. A parallel state's
		// regions are more nested clusters, dashed.
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
		if gr.entered[sid] == 0 {
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
		for _, c := range gr.kids[sid] {
			state(c, indent+"  ")
		}
		fmt.Fprintf(&b, "%s}\n", indent)
	}
	if root == engine.NoID {
		for i := range m.NumStates() {
			if m.Parent(engine.StateID(i)) == engine.NoID {
				state(engine.StateID(i), "  ")
			}
		}
		b.WriteString("  \"__start\" [shape=point, width=0.14, style=filled, fillcolor=\"#135c22\", color=\"#135c22\", tooltip=\"start\"];\n")
		init, _ := gr.box(m.Initial(), root)
		fmt.Fprintf(&b, "  \"__start\" -> %s [color=\"#135c22\"%s];\n", dotQuote(m.StateName(init)), gr.lhead(engine.NoID, init))
		if hasOverrides(m) {
			b.WriteString("  \"__any\" [label=\"(any state)\", style=\"rounded,dashed\", color=\"#999999\", tooltip=\"overrides: transitions any state takes\", class=\"any\"];\n")
		}
	} else {
		state(root, "  ")
		// The states outside this pane that its transitions come from
		// or go to, each linked to the pane that shows it.
		var out []engine.StateID
		for x := range outside {
			out = append(out, x)
		}
		slices.Sort(out)
		for _, x := range out {
			fmt.Fprintf(&b, "  %s [label=%s, style=\"rounded,dashed\", color=\"#999999\", fontcolor=\"#555555\", tooltip=%s, href=%s, class=\"outside\"];\n",
				dotQuote(m.StateName(x)), dotQuote("↗ "+m.StateName(x)), dotQuote(m.StateName(x)+": outside this state"),
				dotQuote("#"+gr.paneID(link, gr.foldedAbove(x))))
		}
	}
	for k, x := range bundles {
		e := gr.look(x.trans)
		common := []string{"tooltip=" + dotQuote(e.title), "class=" + dotQuote(e.class), "color=" + dotQuote(e.color), "style=" + e.style}
		from, to := dotQuote(x.from), dotQuote(x.to)
		if x.loop {
			ln := dotQuote(loopNode(k))
			fmt.Fprintf(&b, "  %s -> %s [%s, arrowhead=none];\n", from, ln, strings.Join(common, ", "))
			fmt.Fprintf(&b, "  %s -> %s [%s, arrowhead=%s];\n", ln, to, strings.Join(common, ", "), x.head)
			continue
		}
		var tail string
		if x.fromState != engine.NoID && gr.drawnCluster(x.fromState, root) && !m.InState(x.toState, x.fromState) {
			tail = ", ltail=" + dotQuote("cluster_"+x.from)
		}
		attrs := append([]string{"label=" + dotQuote(e.label), "labeltooltip=" + dotQuote(e.title), "fontcolor=" + dotQuote(e.color),
			"arrowhead=" + x.head}, common...)
		fmt.Fprintf(&b, "  %s -> %s [%s%s%s];\n", from, to, strings.Join(attrs, ", "), tail, gr.lheadIn(x.fromState, x.toState, root))
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// drawnCluster reports whether s is drawn as a cluster in root's pane: a
// compound state inside it that is not folded (root itself included).
func (gr *grapher) drawnCluster(s, root engine.StateID) bool {
	return s != engine.NoID && len(gr.kids[s]) > 0 && gr.inside(s, root) && (!gr.folded[s] || s == root)
}

// lheadIn clips an edge into a cluster of root's pane at its frame,
// unless it comes from inside it.
func (gr *grapher) lheadIn(from, to, root engine.StateID) string {
	if !gr.drawnCluster(to, root) || (from != engine.NoID && gr.m.InState(from, to)) {
		return ""
	}
	return ", lhead=" + dotQuote("cluster_"+gr.m.StateName(to))
}

func (gr *grapher) lhead(from, to engine.StateID) string { return gr.lheadIn(from, to, engine.NoID) }

// look is how a bundle of transitions looks: one transition as itself;
// several as "N transitions ×times", coloured by how many were taken, each
// listed in the tooltip.
func (gr *grapher) look(trans []int) graphEdge {
	if len(trans) == 1 {
		return gr.edges[trans[0]]
	}
	var total int64
	var titles []string
	taken, explored := 0, 0
	for _, i := range trans {
		e := gr.edges[i]
		total += e.count
		titles = append(titles, e.title)
		switch e.class {
		case "covered":
			taken++
		case "explored":
			explored++
		}
	}
	e := graphEdge{title: strings.Join(titles, "\n")}
	n := len(trans)
	switch {
	case taken == n:
		e.class, e.color, e.style = "covered", colorCovered, "solid"
		e.label = fmt.Sprintf("%d transitions ×%d", n, total)
	case taken == 0 && explored == n:
		e.class, e.color, e.style = "explored", colorExplored, "dotted"
		e.label = fmt.Sprintf("%d transitions ×0", n)
	case taken == 0 && explored == 0:
		e.class, e.color, e.style = "uncovered", colorUncovered, "dashed"
		e.label = fmt.Sprintf("%d transitions ×0", n)
	default:
		gr.legend.Partial = true
		e.class, e.color, e.style = "partial", colorPartial, "solid"
		e.label = fmt.Sprintf("%d transitions, %d taken ×%d", n, taken, total)
	}
	return e
}

// graphEdge is how a transition looks in the graph.
type graphEdge struct {
	label, title        string
	class, color, style string
	count               int64
}

// newGraphEdge gives transition i its label, tooltip and colour by what
// took it: the conversations played, only the exploration, or nothing.
func newGraphEdge(s *Suite, cov *eval.Coverage, i int, legend *graphLegend) graphEdge {
	m := s.shape()
	t := m.Transition(engine.TransID(i))
	count := countAt(cov.Trans, i)
	e := graphEdge{label: edgeLabel(t.Trigger, count), class: "covered", color: colorCovered, style: "solid", count: count}
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

// enteredCounts gives each state its entries, a compound state's as the
// sum of its descendants' and its own: a parent is entered whenever any
// descendant is.
func enteredCounts(m Shape, own []int64) []int64 {
	out := make([]int64, m.NumStates())
	for i := range m.NumStates() {
		for x := engine.StateID(i); x != engine.NoID; x = m.Parent(x) {
			out[x] += countAt(own, i)
		}
	}
	return out
}

// layoutSVG lays out a DOT graph with dot and returns its SVG. Graphviz's
// SVG writer escapes every name, label and tooltip (&, <, >, quotes), so
// the result can go into the page as markup. The library is loaded here,
// at the first layout, not at the program's start (package layoutcache).
func layoutSVG(src []byte) ([]byte, error) {
	ctx := context.Background()
	if err := layoutcache.Load(ctx); err != nil {
		return nil, err
	}
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
	svgHref    = regexp.MustCompile(`<a xlink:href="([^"]*)" xlink:title="([^"]*)">`)
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
	svg = svgHref.ReplaceAll(svg, []byte(`<a href="$1"><title>$2</title>`))
	width := 0
	svg = svgSize.ReplaceAllFunc(svg, func(tag []byte) []byte {
		sub := svgSize.FindSubmatch(tag)
		w, _ := strconv.ParseFloat(string(sub[1]), 64)
		h, _ := strconv.ParseFloat(string(sub[2]), 64)
		width = int(math.Ceil(w * 4 / 3))
		// The page shrinks a graph to its column, but never below
		// minZoom: a wider one scrolls instead.
		return fmt.Appendf(nil, `<svg width="%d" height="%d" viewBox="0 0 %s %s" style="min-width:%dpx" role="img" aria-label="state graph"`,
			width, int(math.Ceil(h*4/3)), sub[1], sub[2], int(math.Ceil(float64(width)*minZoom)))
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
