package reports

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
)

// The state graph on the page is laid out here, deterministically and
// simply. States stand in columns by their distance (in transitions) from
// the initial state; a compound state stands in the column of its initial
// child, and is drawn as a box around those of its descendants that share
// its column, with its own name in a header node that its transitions
// start from. A column is ordered by where the states leading into it
// stand, keeping each compound state's box together. Transitions are cubic
// curves: forward to a later column, as an arc to the right within a
// column, from left to right side back to the column before, along a lane
// below all nodes back to an earlier one, as a loop on the node
// itself when targetless or a self-transition. A nested state shows its
// parent path above its name. It aims to be readable, not minimal in
// crossings.

// Layout sizes, in SVG user units (CSS pixels).
const (
	graphMargin  = 24.0
	graphGapX    = 150.0 // between columns: room for curves and their labels
	graphGapY    = 26.0
	nodeHeight   = 38.0
	nameCharW    = 7.6 // bold 13px, roughly
	prefixCharW  = 5.6 // 10px
	labelCharW   = 5.8 // 10px edge labels
	minNodeWidth = 70.0
	nodePadding  = 18.0
	boxPadX      = 5.0 // a compound box's margin around the box inside it
	boxPadY      = 3.0
)

// graphView is a laid-out state graph, ready for the template.
type graphView struct {
	ID            string // prefix of the element ids inside the SVG
	Width, Height string
	Boxes         []graphBox
	Nodes         []graphNode
	Edges         []graphEdge
	Legend        graphLegend
}

type graphLegend struct {
	Covered, Explored, Uncovered int
}

// graphBox is the frame of a compound state around its descendants.
type graphBox struct {
	X, Y, W, H string
	Class      string
}

type graphNode struct {
	Name           string // full path
	Prefix, Short  string // the path's parent part ("a.b.") and last part
	X, Y, W, H     string
	TextX          string
	PrefixY, NameY string
	Class          string // node plus compound, initial, final, unentered, any
	Title          string
	Initial        bool
	StartX, StartY string // the initial marker's circle
	StartPath      string // its arrow
}

type graphEdge struct {
	Path           string
	Class          string // edge plus covered, explored or uncovered
	Marker         string // id of its arrowhead
	Label          string
	LabelX, LabelY string
	LabelAnchor    string
	Title          string
}

// num formats a coordinate with at most one decimal.
func num(x float64) string {
	return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64)
}

// graphShape is the machine as the layout sees it: nodes 0..n-1 are the
// states, node n (when the machine has overrides) stands for any state.
type graphShape struct {
	m        *engine.Machine
	n        int // nodes, the pseudo node included
	any      int // the pseudo node, or -1
	edges    [][2]int
	parent   []int   // -1 for a top-level state and the pseudo node
	children [][]int // in id order
	initial  []int   // a compound state's initial child, else -1
	order    []int   // preorder position: a state's descendants follow it
}

func newGraphShape(m *engine.Machine, def *engine.Definition) *graphShape {
	g := &graphShape{m: m, n: m.NumStates(), any: -1}
	if hasOverrides(m) {
		g.any = g.n
		g.n++
	}
	g.parent = make([]int, g.n)
	g.children = make([][]int, g.n)
	g.initial = make([]int, g.n)
	for i := range g.n {
		g.parent[i], g.initial[i] = -1, -1
		if i < m.NumStates() {
			if p := m.Parent(engine.StateID(i)); p != engine.NoID {
				g.parent[i] = int(p)
				g.children[p] = append(g.children[p], i)
			}
		}
	}
	for c, kids := range g.children {
		if len(kids) > 0 {
			g.initial[c] = initialChild(m, def, c, kids)
		}
	}
	g.order = make([]int, g.n)
	next := 0
	var visit func(int)
	visit = func(s int) {
		g.order[s] = next
		next++
		for _, c := range g.children[s] {
			visit(c)
		}
	}
	for i := range g.n {
		if g.parent[i] < 0 {
			visit(i)
		}
	}
	for i := range m.NumTransitions() {
		t := m.Transition(engine.TransID(i))
		from, to := g.node(t.Source), g.node(t.Target)
		if t.Internal || t.Target == engine.NoID {
			to = from
		}
		g.edges = append(g.edges, [2]int{from, to})
	}
	return g
}

// initialChild finds compound state c's initial child among kids from the
// definition (the compiled machine does not export it); without one, the
// first child stands in, which only moves it in the drawing.
func initialChild(m *engine.Machine, def *engine.Definition, c int, kids []int) int {
	if def != nil {
		pos := m.StatePos(engine.StateID(c))
		for _, sd := range def.States {
			if sd.Pos != pos || sd.Initial == "" {
				continue
			}
			for _, k := range kids {
				if _, short := splitPath(m.StateName(engine.StateID(k))); short == sd.Initial {
					return k
				}
			}
		}
	}
	return kids[0]
}

func (g *graphShape) node(s engine.StateID) int {
	if s == engine.NoID {
		return g.any
	}
	return int(s)
}

// depths assigns each node its column: the fewest transitions from the
// initial state. A compound state and its initial child share a column (one
// is entered with the other), a state stands no further than its children
// (it takes their transitions' place as a source), and the overrides' "any
// state" stands in the first column. Nodes that cannot be reached go to a
// last column.
func (g *graphShape) depths() (depth []int, columns int) {
	m, n := g.m, g.n
	out := make([][]int, n)
	for _, e := range g.edges {
		if e[0] != e[1] {
			out[e[0]] = append(out[e[0]], e[1])
		}
	}
	depth = make([]int, n)
	for i := range depth {
		depth[i] = -1
	}
	// A 0-1 breadth-first search: weight 0 from a state to its parent and
	// from a compound state to its initial child, 1 along a transition.
	var deque []int
	push := func(s, d int, front bool) {
		if depth[s] >= 0 && depth[s] <= d {
			return
		}
		depth[s] = d
		if front {
			deque = append([]int{s}, deque...)
		} else {
			deque = append(deque, s)
		}
	}
	for s := m.Initial(); s != engine.NoID; s = m.Parent(s) {
		push(int(s), 0, false)
	}
	if g.any >= 0 {
		push(g.any, 0, false)
	}
	for len(deque) > 0 {
		s := deque[0]
		deque = deque[1:]
		d := depth[s]
		if p := g.parent[s]; p >= 0 {
			push(p, d, true)
		}
		if c := g.initial[s]; c >= 0 {
			push(c, d, true)
		}
		for _, t := range out[s] {
			push(t, d+1, false)
		}
	}
	for _, d := range depth {
		columns = max(columns, d+1)
	}
	unreached := false
	for i, d := range depth {
		if d < 0 {
			depth[i] = columns
			unreached = true
		}
	}
	if unreached {
		columns++
	}
	return depth, columns
}

// columnLayout orders the nodes of each column and finds the compound
// boxes: for a node, anchor is its outermost ancestor in the same column
// (itself if its parent stands elsewhere) and nest the number of its
// ancestors in the same column.
func (g *graphShape) columnLayout(depth []int, columns int) (cols [][]int, nest []int) {
	n := g.n
	anchor := make([]int, n)
	nest = make([]int, n)
	for i := range n {
		anchor[i] = i
		for p := g.parent[i]; p >= 0 && depth[p] == depth[i]; p = g.parent[p] {
			anchor[i] = p
			nest[i]++
		}
	}
	preds := make([][]int, n)
	for _, e := range g.edges {
		if e[0] != e[1] {
			preds[e[1]] = append(preds[e[1]], e[0])
		}
	}
	cols = make([][]int, columns)
	for i := range n {
		cols[depth[i]] = append(cols[depth[i]], i)
	}
	row := make([]float64, n)
	for c, col := range cols {
		// A group (an anchor and the descendants sharing its column) is
		// placed by the mean row of the states leading into any of its
		// members from earlier columns; groups led into from nowhere go
		// last, by id.
		sum, k := map[int]float64{}, map[int]int{}
		for _, s := range col {
			for _, p := range preds[s] {
				if depth[p] < c {
					sum[anchor[s]] += row[p]
					k[anchor[s]]++
				}
			}
		}
		key := func(s int) float64 {
			a := anchor[s]
			if k[a] == 0 {
				return math.Inf(1)
			}
			return sum[a] / float64(k[a])
		}
		slices.SortStableFunc(col, func(a, b int) int {
			if c := cmp.Compare(key(a), key(b)); c != 0 {
				return c
			}
			if c := cmp.Compare(g.order[anchor[a]], g.order[anchor[b]]); c != 0 {
				return c
			}
			return cmp.Compare(g.order[a], g.order[b])
		})
		for r, s := range col {
			row[s] = float64(r)
		}
	}
	return cols, nest
}

// newGraphView lays out the machine of s with its coverage: played counts
// on the edges, explored-only and uncovered transitions told apart.
func newGraphView(s *Suite, id string) *graphView {
	m := s.Machine
	if m.NumStates() == 0 {
		return nil
	}
	shape := newGraphShape(m, s.Def)
	n := shape.n
	cov := played(s)
	depth, columns := shape.depths()
	cols, nest := shape.columnLayout(depth, columns)
	name := func(i int) string {
		if i == shape.any {
			return anyState
		}
		return m.StateName(engine.StateID(i))
	}
	// entered counts a state's entries, a compound state's as the sum of
	// its descendants'.
	entered := make([]int64, n)
	for i := range m.NumStates() {
		c := countAt(cov.States, i)
		for x := i; x >= 0; x = shape.parent[x] {
			entered[x] += c
		}
	}

	// Sizes and positions.
	g := &graphView{ID: id}
	type box struct{ x, y, w, h float64 }
	boxes := make([]box, n)
	rows := 0
	for _, col := range cols {
		rows = max(rows, len(col))
	}
	x := graphMargin + 20 // room for the initial marker
	colNest := make([]int, columns)
	for c, col := range cols {
		w := minNodeWidth
		deepest := 0
		for _, s := range col {
			prefix, short := splitPath(name(s))
			w = max(w, nodePadding+float64(len([]rune(short)))*nameCharW, nodePadding+float64(len([]rune(prefix)))*prefixCharW)
			if len(shape.children[s]) > 0 {
				deepest = max(deepest, nest[s]+1)
			}
		}
		colNest[c] = deepest
		x += boxPadX * float64(deepest)
		top := graphMargin + 16 + float64(rows-len(col))*(nodeHeight+graphGapY)/2
		for r, s := range col {
			boxes[s] = box{x, top + float64(r)*(nodeHeight+graphGapY), w, nodeHeight}
		}
		x += w + graphGapX + boxPadX*float64(deepest)
	}
	width := x - graphGapX + graphMargin + 40
	height := graphMargin*2 + 32 + float64(rows)*(nodeHeight+graphGapY)

	// Compound boxes, outermost first, so that inner ones are drawn on top.
	for c, col := range cols {
		for i, s := range col {
			if len(shape.children[s]) == 0 {
				continue
			}
			last := s
			for _, t := range col[i+1:] {
				inside := false
				for p := shape.parent[t]; p >= 0 && depth[p] == c; p = shape.parent[p] {
					inside = inside || p == s
				}
				if !inside {
					break
				}
				last = t
			}
			padX := boxPadX * float64(colNest[c]-nest[s])
			padY := boxPadY * float64(colNest[c]-nest[s])
			b, l := boxes[s], boxes[last]
			g.Boxes = append(g.Boxes, graphBox{X: num(b.x - padX), Y: num(b.y - padY), W: num(b.w + 2*padX),
				H: num(l.y + l.h - b.y + 2*padY), Class: "box nest" + strconv.Itoa(min(nest[s], 3))})
		}
	}
	slices.SortStableFunc(g.Boxes, func(a, b graphBox) int { return cmp.Compare(a.Class, b.Class) })

	for i := range n {
		b := boxes[i]
		full := name(i)
		prefix, short := splitPath(full)
		if i == shape.any {
			prefix, short = "", full
		}
		nd := graphNode{Name: full, Prefix: prefix, Short: short, X: num(b.x), Y: num(b.y), W: num(b.w), H: num(b.h),
			TextX: num(b.x + b.w/2), PrefixY: num(b.y + 14), NameY: num(b.y + 29)}
		if prefix == "" {
			nd.NameY = num(b.y + 24)
		}
		if i == shape.any {
			nd.Class = "node any"
			nd.Title = "overrides: transitions any state takes"
			g.Nodes = append(g.Nodes, nd)
			continue
		}
		sid := engine.StateID(i)
		class := []string{"node"}
		kind := "state"
		if len(shape.children[i]) > 0 {
			class = append(class, "compound")
			kind = "compound state"
		}
		if m.IsFinal(sid) {
			class = append(class, "final")
		}
		if entered[i] == 0 {
			class = append(class, "unentered")
		}
		if sid == m.Initial() {
			class = append(class, "initial")
			nd.Initial = true
			cy := b.y + b.h/2
			nd.StartX, nd.StartY = num(b.x-26-boxPadX*float64(nest[i])), num(cy)
			nd.StartPath = fmt.Sprintf("M%s,%sL%s,%s", num(b.x-21-boxPadX*float64(nest[i])), num(cy), num(b.x-2), num(cy))
		}
		nd.Class = strings.Join(class, " ")
		nd.Title = fmt.Sprintf("%s %s: entered %d times", kind, full, entered[i])
		if pos := m.StatePos(sid); pos != (engine.Pos{}) {
			nd.Title += " · " + pos.String()
		}
		g.Nodes = append(g.Nodes, nd)
	}

	// Edges, with parallel ones (same source and target) fanned out, and
	// long back edges in lanes below the nodes.
	seen := map[[2]int]int{}
	bottom := graphMargin + 16 + float64(rows)*(nodeHeight+graphGapY) - graphGapY
	lanes := 0
	for i, fromTo := range shape.edges {
		t := m.Transition(engine.TransID(i))
		from, to := fromTo[0], fromTo[1]
		k := seen[fromTo]
		seen[fromTo] = k + 1
		count := countAt(cov.Trans, i)
		e := graphEdge{Label: edgeLabel(t.Trigger, count)}
		switch {
		case count > 0:
			e.Class, e.Marker = "edge covered", id+"-arrow-covered"
			g.Legend.Covered++
		case s.ExploredCoverage != nil && countAt(s.ExploredCoverage.Trans, i) > 0:
			e.Class, e.Marker = "edge explored", id+"-arrow-explored"
			g.Legend.Explored++
		default:
			e.Class, e.Marker = "edge uncovered", id+"-arrow-uncovered"
			g.Legend.Uncovered++
		}
		e.Title = fmt.Sprintf("#%d %s: taken %d times", i, transitionItem(m, t), count)
		if s.ExploredCoverage != nil {
			e.Title += fmt.Sprintf(", explored %d", countAt(s.ExploredCoverage.Trans, i))
		}
		e.Title += " · " + t.Pos.String()
		a, b := boxes[from], boxes[to]
		var lx, ly float64
		e.LabelAnchor = "middle"
		switch {
		case from == to:
			// A loop over the node's top right corner, larger for each
			// further loop on the same node.
			r := 16 + 10*float64(k)
			x0, y0 := a.x+a.w-12-4*float64(k), a.y
			x1, y1 := a.x+a.w, a.y+12+4*float64(k)
			e.Path = fmt.Sprintf("M%s,%sC%s,%s %s,%s %s,%s", num(x0), num(y0), num(x0), num(y0-r*1.6),
				num(x1+r*1.6), num(y1), num(x1), num(y1))
			lx, ly = a.x+a.w+r*0.55, a.y-r*0.55-2
			e.LabelAnchor = "start"
		case depth[to] > depth[from]:
			x0, y0 := a.x+a.w, a.y+a.h/2+fan(k)
			x3, y3 := b.x, b.y+b.h/2+fan(k)
			dx := (x3 - x0) / 2
			e.Path = cubic(x0, y0, x0+dx, y0, x3-dx, y3, x3, y3)
			lx, ly = bezierMid(x0, y0, x0+dx, y0, x3-dx, y3, x3, y3)
			ly -= 3
		case depth[to] == depth[from]:
			// Same column: an arc out of the right side.
			x0, y0 := a.x+a.w, a.y+a.h/2+fan(k)
			x3, y3 := b.x+b.w, b.y+b.h/2+fan(k)
			bulge := 40 + 0.25*math.Abs(y3-y0) + 12*float64(k)
			e.Path = cubic(x0, y0, x0+bulge, y0, x3+bulge, y3, x3, y3)
			lx, ly = bezierMid(x0, y0, x0+bulge, y0, x3+bulge, y3, x3, y3)
			e.LabelAnchor = "start"
			lx += 3
		case depth[from]-depth[to] > 1:
			// Back over more than one column: out of the source's left
			// side, down the gap beside its column to a lane of its own
			// below every node, along it, and up the gap beside the
			// target's column into its right side. Only the gaps and the
			// lanes are crossed, never a node.
			x0, y0 := a.x-boxPadX*float64(nest[from]), a.y+a.h/2+8+fan(k)
			x3, y3 := b.x+b.w+boxPadX*float64(nest[to]), b.y+b.h/2+8+fan(k)
			gs := x0 - 22 - 3*float64(lanes%6)
			gt := x3 + 22 + 3*float64(lanes%6)
			bus := bottom + 22 + 12*float64(lanes)
			lanes++
			const r = 10.0
			e.Path = fmt.Sprintf("M%s,%sQ%s,%s %s,%sL%s,%sQ%s,%s %s,%sL%s,%sQ%s,%s %s,%sL%s,%sQ%s,%s %s,%s",
				num(x0), num(y0), num(gs), num(y0), num(gs), num(y0+r),
				num(gs), num(bus-r), num(gs), num(bus), num(gs-r), num(bus),
				num(gt+r), num(bus), num(gt), num(bus), num(gt), num(bus-r),
				num(gt), num(y3+r), num(gt), num(y3), num(x3), num(y3))
			lx, ly = (gs+gt)/2, bus-3
		default:
			// Back to the column before: out of the source's left side into
			// the target's right side, below the middle, so that it stays
			// in the gap between the columns and apart from forward edges.
			x0, y0 := a.x, a.y+a.h/2+8+fan(k)
			x3, y3 := b.x+b.w, b.y+b.h/2+8+fan(k)
			dx := max(50, (x0-x3)/2)
			e.Path = cubic(x0, y0, x0-dx, y0, x3+dx, y3, x3, y3)
			lx, ly = bezierMid(x0, y0, x0-dx, y0, x3+dx, y3, x3, y3)
			ly += 11
		}
		e.LabelX, e.LabelY = num(lx), num(ly)
		g.Edges = append(g.Edges, e)
		height = max(height, ly+graphMargin)
		if e.LabelAnchor == "start" {
			width = max(width, lx+float64(len([]rune(e.Label)))*labelCharW+graphMargin)
		}
	}
	g.Width, g.Height = num(math.Ceil(width)), num(math.Ceil(height))
	return g
}

// fan spreads the k-th of parallel edges: 0, +6, -6, +12, ...
func fan(k int) float64 {
	if k == 0 {
		return 0
	}
	step := float64((k + 1) / 2 * 6)
	if k%2 == 0 {
		return -step
	}
	return step
}

func cubic(x0, y0, x1, y1, x2, y2, x3, y3 float64) string {
	return fmt.Sprintf("M%s,%sC%s,%s %s,%s %s,%s", num(x0), num(y0), num(x1), num(y1), num(x2), num(y2), num(x3), num(y3))
}

// bezierMid is the point of a cubic Bézier curve at t = 1/2.
func bezierMid(x0, y0, x1, y1, x2, y2, x3, y3 float64) (float64, float64) {
	return (x0 + 3*x1 + 3*x2 + x3) / 8, (y0 + 3*y1 + 3*y2 + y3) / 8
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
