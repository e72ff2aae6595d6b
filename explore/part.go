package explore

import (
	"fmt"
	"slices"
	"sort"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/machinevalues"
	"github.com/simctl/simctl/spec"
)

// Sharded search. Every shard searches the levels before the split alike;
// at the first level holding at least splitWidth configurations per shard
// (or else at the last level expanded, if it holds one per shard), shard i
// keeps the i-th, (i+n)-th, ... of them and searches on from those alone,
// with its own visited set. Each shard keeps a Part: every
// configuration it saw (fingerprint, the path it was first reached by,
// whether it is good, a dead end or fails), and for each one it expanded
// the successors it computed, the fingerprints they lead to and the
// coverage they added; and the first finding of each kind with its path.
//
// Merge rebuilds from the parts the Result one search would have found.
// One search discovers configurations in the order of their shortest paths,
// compared event by event in the order events are tried (branch steps,
// then the alphabet, then the timer; a success before a failure): each
// configuration's path is the least of its shortest paths. That least path
// passes through one configuration of the split level, so the shard owning
// that one reaches the configuration by the same path (no path it sees is
// shorter or less, since every path it sees is a real one). Taking, for
// each fingerprint, the least path any shard offers gives each
// configuration's depth and place in the order; what its expansion
// generated and covered is that of the shard that reached it by that path
// (another shard may reach the same fingerprint by another path, holding
// other values in the slots the fingerprint leaves out, and count other
// slot changes). The
// first finding of each kind is likewise the least by where it was found
// (the configuration being expanded, then the event), and the shard owning
// that place reports it first too. Livelocks are judged on the merged
// graph, as one search judges them on its own.
//
// Two things do not merge exactly: a search the state cap stopped (the
// shards stop at other places than one search would), and covering
// scenarios (Cover needs the first taking of each transition, which the
// parts do not keep).

// splitWidth is how many configurations per shard the split level holds at
// least, so that the shards' shares are alike: splitting deeper balances
// them better and overlaps their subtrees less, at the cost of searching
// more levels in every shard (128 did best on the seed suites, 4 shards:
// soni to depth 6 2.4x, thea to depth 5 2.1x, formfill to depth 3 3.3x
// faster than one search; 8 gave 1.5x, 2.0x and 2.4x).
var splitWidth = 128

// Edge is an event on a path: an index into the alphabet, or a timer or
// branch step (negative), with the invoked actions that failed (bit k: the
// k-th).
type Edge struct {
	Event int32  `json:"e"`
	Fails uint32 `json:"f,omitempty"`
}

// CovCount is one coverage counter's increase: Of names the counter list
// (transitions, states, guards true, guards false, intents, slots).
type CovCount struct {
	Of    uint8 `json:"k"`
	Index int32 `json:"i"`
	N     int64 `json:"n"`
}

// PartNode is one configuration a shard saw. Parent indexes the part's
// nodes (-1: the start).
type PartNode struct {
	FP       uint64   `json:"fp"`
	Parent   int32    `json:"parent"`
	In       Edge     `json:"in"`
	Good     bool     `json:"good,omitempty"`
	Dead     bool     `json:"dead,omitempty"`
	Fails    bool     `json:"fails,omitempty"`
	Expanded bool     `json:"expanded,omitempty"`
	Succ     int      `json:"succ,omitempty"`
	To       []uint64 `json:"to,omitempty"`
	// Esc lists the indices into To that only escape events lead to.
	Esc []int32    `json:"esc,omitempty"`
	Cov []CovCount `json:"cov,omitempty"`
	// Par is the parallel state active there and its regions, when one
	// is (regions.go), for the stuck_region analysis of the merge.
	Par *PartPar `json:"par,omitempty"`
}

// PartPar is a configuration's parallel state (its id), the regions that
// have a final state (Meant, a bit each) and those in it (Done).
type PartPar struct {
	State       int32
	Meant, Done uint64
}

// Where a finding was made.
const (
	atEdge  = 0 // on a step into the last configuration of its path
	atStart = 1 // at the machine's start
	atNode  = 2 // at the configuration of its path, once expanded (a dead end)
)

// PartFinding is a shard's first finding of one kind.
type PartFinding struct {
	Kind      string         `json:"kind"`
	Path      []Edge         `json:"path"`
	At        int            `json:"at"`
	Violation eval.Violation `json:"violation"`
	Known     string         `json:"known,omitempty"`
	Note      engine.Pos     `json:"note"`
}

// Part is what one shard's search found, in the form Merge takes. Its
// nodes travel packed (partcodec.go).
type Part struct {
	Part        int `json:"part"`
	Parts       int `json:"parts"`
	Depth       int `json:"depth"`
	Alphabet    int `json:"alphabet"`
	Transitions int `json:"transitions"`
	// NoReduce: the search offered every user act (Options.NoReduce).
	NoReduce bool          `json:"no_reduce,omitempty"`
	Stopped  string        `json:"stopped,omitempty"`
	Start    []CovCount    `json:"start"`
	Nodes    []PartNode    `json:"-"`
	Findings []PartFinding `json:"findings"`
}

// Part returns what a search with Options.Parts set kept for Merge.
func (r *Result) Part() *Part { return r.part }

// expansion is what expanding one node added.
type expansion struct {
	node int32
	succ int
	cov  []CovCount
}

func (x *explorer) startPart(rootFP uint64) {
	x.parting = true
	x.fps = append(x.fps[:0], rootFP)
	x.total = x.res.Coverage
	x.scratch = eval.NewCoverage(x.m)
}

func (x *explorer) noteFP(n int32, fp uint64) {
	if !x.parting {
		return
	}
	for len(x.fps) < int(n) {
		x.fps = append(x.fps, 0) // witnesses
	}
	x.fps = append(x.fps, fp)
}

// beginNode and endNode bracket the expansion of node x.ci: its coverage
// goes to a scratch set, then into the search's and the node's record.
func (x *explorer) beginNode() {
	if x.parting {
		x.res.Coverage = x.scratch
	}
}

func (x *explorer) endNode(n int) {
	if !x.parting {
		return
	}
	x.res.Coverage = x.total
	x.expanded = append(x.expanded, expansion{node: x.ci, succ: n, cov: drain(x.scratch, x.total)})
}

func counters(c *eval.Coverage) [6][]int64 {
	return [6][]int64{c.Trans, c.States, c.GuardTrue, c.GuardFalse, c.Intents, c.Slots}
}

// drain moves every count of src into dst, returning what it moved.
func drain(src, dst *eval.Coverage) []CovCount {
	var out []CovCount
	s := counters(src)
	var d [6][]int64
	if dst != nil {
		d = counters(dst)
	}
	for k := range s {
		for i, n := range s[k] {
			if n != 0 {
				out = append(out, CovCount{Of: uint8(k), Index: int32(i), N: n})
				if dst != nil {
					d[k][i] += n
				}
				s[k][i] = 0
			}
		}
	}
	return out
}

func (x *explorer) makePart(opts Options) *Part {
	res := x.res
	p := &Part{Part: opts.Part, Parts: opts.Parts, Depth: opts.Depth, Alphabet: len(x.alpha), Transitions: x.m.NumTransitions(),
		NoReduce: opts.NoReduce, Stopped: res.Stopped, Nodes: []PartNode{}, Findings: []PartFinding{}}
	start := eval.NewCoverage(x.m)
	start.Add(res.Coverage)
	for _, ex := range x.expanded {
		for _, c := range ex.cov {
			counters(start)[c.Of][c.Index] -= c.N
		}
	}
	p.Start = drain(start, nil)
	idx := make([]int32, len(res.nodes))
	par := map[int32]*parNode{}
	for k := range res.par {
		par[res.par[k].node] = &res.par[k]
	}
	for i, nd := range res.nodes {
		idx[i] = -1
		if nd.witness {
			continue
		}
		idx[i] = int32(len(p.Nodes))
		parent := int32(-1)
		if nd.parent >= 0 {
			parent = idx[nd.parent]
		}
		p.Nodes = append(p.Nodes, PartNode{FP: x.fps[i], Parent: parent, In: Edge{Event: nd.in.event, Fails: nd.in.fails}, Good: nd.good, Dead: nd.dead, Fails: nd.fails})
		if pn := par[int32(i)]; pn != nil {
			p.Nodes[len(p.Nodes)-1].Par = &PartPar{State: int32(pn.p), Meant: pn.meant, Done: pn.done}
		}
	}
	g := &x.edges
	for k, ex := range x.expanded {
		if k >= len(g.node) {
			// The node the state cap cut off: its edges were not kept,
			// and it counts as unexpanded.
			break
		}
		pn := &p.Nodes[idx[ex.node]]
		pn.Expanded, pn.Succ, pn.Cov = true, ex.succ, ex.cov
		end := len(g.to)
		if k+1 < len(g.start) {
			end = int(g.start[k+1])
		}
		for _, e := range g.to[g.start[k]:end] {
			t, esc := edgeTo(e)
			if esc {
				pn.Esc = append(pn.Esc, int32(len(pn.To)))
			}
			pn.To = append(pn.To, x.fps[t])
		}
	}
	for _, f := range res.Findings {
		if f.Kind == livelock || f.Kind == Stuck {
			continue
		}
		at := atEdge
		switch {
		case f.Kind == eval.DeadEnd:
			at = atNode
		case f.Node == 0:
			at = atStart
		}
		path := []Edge{}
		for _, e := range res.path(f.Node) {
			path = append(path, Edge{Event: e.event, Fails: e.fails})
		}
		p.Findings = append(p.Findings, PartFinding{Kind: f.Kind, Path: path, At: at, Violation: f.Violation, Known: f.Known, Note: f.Note})
	}
	return p
}

const livelock = eval.Livelock

// ord places an event in the order expand tries events.
func ord(e int32, nAlpha int) int64 {
	switch {
	case e >= 0:
		return engine.MaxBranches + int64(e)
	case e == edgeTimer:
		return engine.MaxBranches + int64(nAlpha)
	default:
		return int64(edgeBranch - e)
	}
}

// cmpEdge orders two edges from one configuration as expand emits them: by
// event, then by the first action whose outcome differs, success first.
func cmpEdge(a, b Edge, nAlpha int) int {
	if oa, ob := ord(a.Event, nAlpha), ord(b.Event, nAlpha); oa != ob {
		if oa < ob {
			return -1
		}
		return 1
	}
	d := a.Fails ^ b.Fails
	if d == 0 {
		return 0
	}
	if a.Fails&(d&-d) == 0 {
		return -1
	}
	return 1
}

// cmpPath orders paths as a breadth-first search discovers their ends:
// shorter first, then event by event.
func cmpPath(a, b []Edge, nAlpha int) int {
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	for i := range a {
		if c := cmpEdge(a[i], b[i], nAlpha); c != 0 {
			return c
		}
	}
	return 0
}

// cmpFound orders two findings by where a search makes them: at the start,
// then by the configuration being expanded, then by event (a dead end after
// every event, since it is judged once they are all tried).
func cmpFound(a, b *PartFinding, nAlpha int) int {
	if (a.At == atStart) != (b.At == atStart) {
		if a.At == atStart {
			return -1
		}
		return 1
	}
	if a.At == atStart {
		return 0
	}
	ea, eb := expandedPath(a), expandedPath(b)
	if c := cmpPath(ea, eb, nAlpha); c != 0 {
		return c
	}
	switch {
	case a.At == atNode && b.At == atNode:
		return 0
	case a.At == atNode:
		return 1
	case b.At == atNode:
		return -1
	}
	return cmpEdge(a.Path[len(a.Path)-1], b.Path[len(b.Path)-1], nAlpha)
}

// expandedPath is the path of the configuration whose expansion made f.
func expandedPath(f *PartFinding) []Edge {
	if f.At == atNode {
		return f.Path
	}
	return f.Path[:len(f.Path)-1]
}

// MergeError says why parts could not be merged.
type MergeError struct{ Msg string }

func (e *MergeError) Error() string { return e.Msg }

func mergeErr(format string, args ...any) error {
	return &MergeError{Msg: fmt.Sprintf(format, args...)}
}

// Merge rebuilds, from the parts of every shard of a sharded search of
// machine v of suite s, the Result one search would have found (see the
// comment at the top of this file). The Result has no covering scenarios.
func Merge(s *spec.Suite, v *spec.Variant, parts []*Part) (*Result, error) {
	if len(parts) == 0 {
		return nil, mergeErr("no parts to merge")
	}
	parts = slices.Clone(parts)
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].Part < parts[j].Part })
	m := v.Machine
	p0 := parts[0]
	alpha, note := alphabet(s, m, !p0.NoReduce)
	if !p0.NoReduce {
		note = stateNote(m, note)
	}
	for i, p := range parts {
		switch {
		case p.Parts != len(parts):
			return nil, mergeErr("%d parts given of a search in %d", len(parts), p.Parts)
		case p.Part != i:
			return nil, mergeErr("part %d of %d is missing or given twice", i, len(parts))
		case p.NoReduce != p0.NoReduce:
			return nil, mergeErr("some parts were searched with --no-reduce, some without")
		case p.Depth != p0.Depth:
			return nil, mergeErr("the parts searched to different depths (%d and %d)", p0.Depth, p.Depth)
		case p.Alphabet != len(alpha) || p.Transitions != m.NumTransitions():
			return nil, mergeErr("part %d was searched on another machine (%d events and %d transitions; this one has %d and %d)",
				i, p.Alphabet, p.Transitions, len(alpha), m.NumTransitions())
		}
	}
	nAlpha := len(alpha)
	// The parts' configurations level by level (a part lists a parent
	// before its children, so depths come in one pass).
	type rec struct {
		part, idx int
		parent    int32 // the merged index of its parent (-1: the start)
	}
	var levels [][]rec
	for pi, p := range parts {
		depth := make([]int32, len(p.Nodes))
		for i := range p.Nodes {
			if err := checkNode(p, i, nAlpha); err != nil {
				return nil, err
			}
			if i > 0 {
				depth[i] = depth[p.Nodes[i].Parent] + 1
			}
			for len(levels) <= int(depth[i]) {
				levels = append(levels, nil)
			}
			levels[depth[i]] = append(levels[depth[i]], rec{part: pi, idx: i})
		}
	}
	// Level by level, each configuration not reached before takes the
	// least path offered: the least parent (merged indices grow in the
	// order of paths), then the least event. Only a record whose part
	// reached it along the merged path to its parent offers a path: a
	// part that reached the parent's fingerprint by another path holds
	// another configuration (alike in what the fingerprint keeps, not in
	// the slots it leaves out), whose expansion counts other slot changes.
	// On the same path, a shard that expanded the configuration is
	// preferred (the split level is seen by every shard, expanded by one).
	var chosen []rec
	var chosenDepth []int32
	index := map[uint64]int32{}
	partNode := func(r rec) *PartNode { return &parts[r.part].Nodes[r.idx] }
	// onPath[part][i] is the merged index of the part's node i when the
	// part reached it by the merged path, else -1.
	onPath := make([][]int32, len(parts))
	for pi, p := range parts {
		onPath[pi] = make([]int32, len(p.Nodes))
		for i := range onPath[pi] {
			onPath[pi][i] = -1
		}
	}
	for d, level := range levels {
		less := func(a, b rec) bool {
			if a.parent != b.parent {
				return a.parent < b.parent
			}
			if c := cmpEdge(partNode(a).In, partNode(b).In, nAlpha); c != 0 {
				return c < 0
			}
			return partNode(a).Expanded && !partNode(b).Expanded
		}
		best := map[uint64]rec{}
		offered := level[:0]
		for _, r := range level {
			pn := partNode(r)
			if _, seen := index[pn.FP]; seen {
				continue
			}
			r.parent = -1
			if d > 0 {
				if r.parent = onPath[r.part][pn.Parent]; r.parent < 0 {
					continue
				}
			}
			offered = append(offered, r)
			if cur, ok := best[pn.FP]; !ok || less(r, cur) {
				best[pn.FP] = r
			}
		}
		won := make([]rec, 0, len(best))
		for _, r := range best {
			won = append(won, r)
		}
		if d == 0 && len(won) != 1 {
			return nil, mergeErr("the parts start from different configurations")
		}
		sort.Slice(won, func(i, j int) bool { return less(won[i], won[j]) })
		for _, r := range won {
			index[partNode(r).FP] = int32(len(chosen))
			chosen = append(chosen, r)
			chosenDepth = append(chosenDepth, int32(d))
		}
		for _, r := range offered {
			pn := partNode(r)
			if w := best[pn.FP]; r.parent == w.parent && pn.In == partNode(w).In {
				onPath[r.part][r.idx] = index[pn.FP]
			}
		}
	}

	if len(chosen) == 0 {
		return nil, mergeErr("the parts hold no start configuration")
	}
	res := &Result{Suite: s.Name, Variant: v.Name, suiteDir: s.Dir, assign: v.Assign, m: m, alpha: alpha, Coverage: eval.NewCoverage(m),
		userSlots: machinevalues.UserSlots(s.Def), Values: note}
	var start engine.Config
	var sr engine.Result
	res.begin(&start, &sr)
	res.startInv = startInvokes(sr.Effects)
	res.firstTaken = make([]int32, m.NumTransitions())
	for i := range res.firstTaken {
		res.firstTaken[i] = -1
	}
	for _, p := range parts {
		if p.Stopped != "" && res.Stopped == "" {
			res.Stopped = p.Stopped
		}
	}
	if err := addCov(res.Coverage, p0.Start); err != nil {
		return nil, err
	}
	var g graph
	children := map[[2]int64]int32{}
	for i, r := range chosen {
		p := parts[r.part]
		pn := &p.Nodes[r.idx]
		nd := node{parent: -1, depth: chosenDepth[i], in: edge{event: edgeStart}, good: pn.Good, dead: pn.Dead, fails: pn.Fails}
		if i > 0 {
			nd.parent, nd.in = r.parent, edge{event: pn.In.Event, fails: pn.In.Fails}
			children[childKey(r.parent, pn.In)] = int32(i)
		}
		res.nodes = append(res.nodes, nd)
		if pp := pn.Par; pp != nil {
			if pp.State < 0 || int(pp.State) >= m.NumStates() {
				return nil, mergeErr("a configuration names parallel state %d, which the machine does not have", pp.State)
			}
			res.par = append(res.par, parNode{node: int32(i), p: engine.StateID(pp.State), meant: pp.Meant, done: pp.Done})
		}
		res.Depth = max(res.Depth, int(nd.depth))
		if int(nd.depth) >= p0.Depth {
			res.Queue++
			continue
		}
		if !pn.Expanded {
			// Parts of a search the state cap stopped may leave gaps (each
			// stopped at its own place): the merge is then a best effort.
			if res.Stopped != "" {
				continue
			}
			return nil, mergeErr("no part expanded a configuration at depth %d: a shard's result is missing or cut short", nd.depth)
		}
		res.Generated += pn.Succ
		if err := addCov(res.Coverage, pn.Cov); err != nil {
			return nil, err
		}
		var targets []int32
		esc := 0
		for k, fp := range pn.To {
			t, ok := index[fp]
			if !ok {
				if res.Stopped != "" {
					continue // a best effort: see above
				}
				return nil, mergeErr("a successor of a configuration at depth %d is in no part", nd.depth)
			}
			for esc < len(pn.Esc) && int(pn.Esc[esc]) < k {
				esc++
			}
			if esc < len(pn.Esc) && int(pn.Esc[esc]) == k {
				t = escapeTarget(t)
			}
			targets = append(targets, t)
		}
		g.add(int32(i), targets)
	}
	res.Distinct = len(chosen)
	res.Complete = res.Depth < p0.Depth && res.Stopped == ""

	if err := res.mergeFindings(parts, children, nAlpha); err != nil {
		return nil, err
	}
	g.lossy = res.Stopped != ""
	res.livelocks(&g, p0.Depth)
	return res, nil
}

func childKey(parent int32, e Edge) [2]int64 {
	return [2]int64{int64(parent), int64(e.Event)<<32 | int64(e.Fails)}
}

// checkNode checks node i of part p, so that a damaged part gives an error,
// not a wrong report or a panic.
func checkNode(p *Part, i, nAlpha int) error {
	n := &p.Nodes[i]
	if i == 0 {
		if n.Parent != -1 {
			return mergeErr("part %d: its first configuration is not the start", p.Part)
		}
		return nil
	}
	if n.Parent < 0 || int(n.Parent) >= i {
		return mergeErr("part %d: configuration %d has parent %d", p.Part, i, n.Parent)
	}
	return checkEdge(p, n.In, nAlpha)
}

func checkEdge(p *Part, e Edge, nAlpha int) error {
	if (e.Event >= 0 && int(e.Event) < nAlpha) || e.Event == edgeTimer || e.Event == edgeStartResults || (e.Event <= edgeBranch && e.Event > edgeBranch-engine.MaxBranches) {
		return nil
	}
	return mergeErr("part %d: event %d is not in the alphabet", p.Part, e.Event)
}

func addCov(c *eval.Coverage, counts []CovCount) error {
	cs := counters(c)
	for _, n := range counts {
		if int(n.Of) >= len(cs) || n.Index < 0 || int(n.Index) >= len(cs[n.Of]) {
			return mergeErr("a coverage count names counter %d/%d, which the machine does not have", n.Of, n.Index)
		}
		cs[n.Of][n.Index] += n.N
	}
	return nil
}

// mergeFindings keeps, for each kind, the finding a single search would
// have made first, in the order it would have made them.
func (r *Result) mergeFindings(parts []*Part, children map[[2]int64]int32, nAlpha int) error {
	type cand struct {
		f       *PartFinding
		part, i int
	}
	less := func(a, b cand) bool {
		if c := cmpFound(a.f, b.f, nAlpha); c != 0 {
			return c < 0
		}
		if a.part != b.part {
			return a.part < b.part
		}
		return a.i < b.i
	}
	best := map[string]cand{}
	for pi, p := range parts {
		for i := range p.Findings {
			f := &p.Findings[i]
			if f.Kind == livelock || f.Kind == Stuck || f.Kind == StuckRegion {
				continue
			}
			if f.At < atEdge || f.At > atNode || (f.At == atEdge && len(f.Path) == 0) {
				return mergeErr("part %d: finding %s has no place", p.Part, f.Kind)
			}
			for _, e := range f.Path {
				if err := checkEdge(p, e, nAlpha); err != nil {
					return err
				}
			}
			c := cand{f: f, part: pi, i: i}
			key := (&Finding{Kind: f.Kind, Violation: f.Violation}).Key()
			if cur, ok := best[key]; !ok || less(c, cur) {
				best[key] = c
			}
		}
	}
	var won []cand
	for _, c := range best {
		won = append(won, c)
	}
	sort.Slice(won, func(i, j int) bool { return less(won[i], won[j]) })
	for _, c := range won {
		f := c.f
		// Walk the path through the merged configurations; the last step
		// may lead to one first reached by another path: a witness.
		n := int32(0)
		path := f.Path
		if f.At == atStart {
			path = nil
		}
		for k, e := range path {
			if next, ok := children[childKey(n, e)]; ok && !r.nodes[n].witness {
				n = next
				continue
			}
			// Only the last step can lead to a configuration first reached
			// by another path (the rest is the shortest path to the
			// configuration expanded), unless the search was stopped.
			if (k < len(path)-1 || f.At != atEdge) && r.Stopped == "" {
				return mergeErr("the parts disagree on the path to a %s finding", f.Kind)
			}
			r.nodes = append(r.nodes, node{parent: n, depth: int32(k + 1), in: edge{event: e.Event, fails: e.Fails}, good: true, witness: true})
			n = int32(len(r.nodes) - 1)
		}
		r.Findings = append(r.Findings, Finding{Kind: f.Kind, Node: n, Violation: f.Violation, Known: f.Known, Note: f.Note})
	}
	return nil
}

// startInvokes lists the actions the start invoked (its effects), as
// Explore keeps them.
func startInvokes(effects []engine.Effect) []pending {
	var out []pending
	for i := range effects {
		if e := &effects[i]; e.Kind == engine.EffInvoke && e.Branch == 0 {
			out = append(out, pending{ext: e.Ext, branch: e.Branch, level: 1})
		}
	}
	return out
}
