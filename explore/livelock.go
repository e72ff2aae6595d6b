package explore

import (
	"fmt"
	"slices"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// graph holds the edges the search walked, for the livelock and stuck
// analyses: nodes are expanded in increasing order, so each expanded
// node's distinct successors are one run of to, starting at start[k] for
// the k-th expanded node, node[k]. An edge is its target shifted left by
// one, the low bit set when only escape events (cancel, a session
// timeout) lead along it: a flag of its own cost a byte an edge, a tenth
// of a big search's memory. (Nodes are below 2³⁰ long before memory
// runs out.)
type graph struct {
	to, start, node []int32
	// lossy: some expanded node's edges may be missing (shards of a
	// search the state cap stopped, merged as a best effort), so nothing
	// can be concluded from what the graph lacks.
	lossy bool
}

// expanded marks the nodes of n whose successors the graph holds in full.
func (g *graph) expanded(n int) []bool {
	out := make([]bool, n)
	for _, k := range g.node {
		out[k] = true
	}
	return out
}

// edgeTo is the target of edge e of graph.to, and whether it is an escape
// edge.
func edgeTo(e int32) (int32, bool) { return e >> 1, e&1 != 0 }

// reachBack marks every configuration from which a marked one is
// reachable, walking the reverse edges (rev[at[y]:at[y+1]] are y's
// predecessors) from q, the marked ones to start from; with noEscapes,
// not along an edge an escape event took. It returns q emptied, for the
// next walk to reuse.
func reachBack(at, rev []int32, mark []bool, q []int32, noEscapes bool) []int32 {
	for len(q) > 0 {
		y := q[len(q)-1]
		q = q[:len(q)-1]
		for _, e := range rev[at[y]:at[y+1]] {
			if p, esc := edgeTo(e); !(esc && noEscapes) && !mark[p] {
				mark[p] = true
				q = append(q, p)
			}
		}
	}
	return q
}

// escapeTarget marks a target reached by an escape event, as add takes it.
func escapeTarget(t int32) int32 { return -t - 1 }

// add records the edges from node n to each of targets, each target once;
// a target given as escapeTarget(t) was reached by an escape event. An
// edge is an escape edge when every event along it is one.
func (g *graph) add(n int32, targets []int32) {
	for k, t := range targets {
		if t < 0 {
			// Sorted by target, an escape after a non-escape event to it.
			targets[k] = (-t-1)<<1 | 1
		} else {
			targets[k] = t << 1
		}
	}
	slices.Sort(targets)
	g.node = append(g.node, n)
	g.start = append(g.start, int32(len(g.to)))
	for k, t := range targets {
		if k == 0 || targets[k-1]>>1 != t>>1 {
			g.to = append(g.to, t)
		}
	}
}

// livelocks finds, in the explored graph, configurations from which no
// final or idle configuration can be reached and no dead end either: the
// conversation can only go round. Unexpanded configurations (at the depth
// bound, or left on the queue when the state cap or a stop ended the
// search) count as possibly good, so a configuration is a livelock only
// when everything reachable from it was expanded: a set of
// configurations with no way out, fully explored, is evidence enough even
// in a search cut short. Only a graph with missing edges (lossy) decides
// nothing.
func (res *Result) livelocks(g *graph, depthBound int) {
	if res.Stopped != "" && g.lossy {
		return
	}
	n := len(res.nodes)
	// The predecessors of each node, as one array in runs (rev[at[i]:at[i+1]]),
	// each shifted and marked as graph.to marks its edges.
	at := make([]int32, n+1)
	for _, e := range g.to {
		at[e>>1+1]++
	}
	for i := 0; i < n; i++ {
		at[i+1] += at[i]
	}
	rev := make([]int32, len(g.to))
	fill := slices.Clone(at[:n])
	for k, from := range g.node {
		end := int32(len(g.to))
		if k+1 < len(g.start) {
			end = g.start[k+1]
		}
		for _, e := range g.to[g.start[k]:end] {
			t := e >> 1
			rev[fill[t]] = from<<1 | e&1
			fill[t]++
		}
	}
	fill = nil
	// Back from the good configurations (final, idle, or unexpanded at the
	// depth bound or left to another shard) and from the ends: every dead end, not only the one
	// reported, and every configuration from which an event makes the
	// engine fail (a runtime error, reported already).
	expanded := g.expanded(n)
	open := func(i int) bool {
		nd := &res.nodes[i]
		return nd.good || nd.dead || nd.fails || nd.skipped || int(nd.depth) >= depthBound || !expanded[i]
	}
	seen := make([]bool, n)
	var q []int32
	for i := range res.nodes {
		if open(i) {
			seen[i] = true
			q = append(q, int32(i))
		}
	}
	reachBack(at, rev, seen, q, false)
	known := eval.NewKnown(res.m)
	res.addGraphFinding(known, livelock, func(i int) bool { return !seen[i] },
		"from %s no final or idle state can be reached: the conversation can only go round")
	res.stuck(open, at, rev, seen, known)
	res.stuckRegions(at, rev, func(i int) bool {
		nd := &res.nodes[i]
		return nd.skipped || int(nd.depth) >= depthBound || !expanded[i]
	}, known)
}

// stuck finds, like TLC's liveness under fairness, configurations from
// which the task can still end, but only through escape events: every way
// to a final or idle configuration passes a cancel or a session timeout.
// A fork branch that entered a state with no way out is such a place,
// though cancel keeps the conversation from being a dead end or a
// livelock. open says which configurations may lead anywhere (the
// livelock analysis's starting points). canEnd holds the configurations from which an end is reachable
// at all (the livelock analysis's); what it cannot reach is a livelock.
func (res *Result) stuck(open func(int) bool, at, rev []int32, canEnd []bool, known *eval.Known) {
	n := len(res.nodes)
	done := make([]bool, n)
	var q []int32
	for i := range res.nodes {
		if open(i) {
			done[i] = true
			q = append(q, int32(i))
		}
	}
	reachBack(at, rev, done, q, true)
	res.addGraphFinding(known, Stuck, func(i int) bool { return !done[i] && canEnd[i] },
		"from %s the task can end only through an escape ("+strings.ReplaceAll(res.escapeNames(), "%", "%%")+"): its own completion cannot be reached")
}

// addGraphFinding adds the first configuration, in search order, that is
// a finding of kind by is (see addFirstFinding). msg formats the state's
// name.
func (res *Result) addGraphFinding(known *eval.Known, kind string, is func(int) bool, msg string) {
	res.addFirstFinding(known, len(res.nodes), func(i int) (Finding, bool) {
		if !is(i) {
			return Finding{}, false
		}
		c := res.ConfigAt(int32(i))
		name := res.m.StateName(c.State)
		return Finding{Kind: kind, Node: int32(i), Violation: eval.Violation{Invariant: kind, Turn: int(res.nodes[i].depth),
			State: name, Msg: fmt.Sprintf(msg, name), After: res.m.Describe(c)}}, true
	})
}

// addFirstFinding adds the first of n candidates, in order, that is a
// finding: the first one no note names, else the first one a note names
// (known). One finding of each kind is kept, so a note that excuses one
// state must not hide another state's unexcused one.
func (res *Result) addFirstFinding(known *eval.Known, n int, candidate func(i int) (Finding, bool)) {
	var first *Finding
	for i := 0; i < n; i++ {
		f, ok := candidate(i)
		if !ok {
			continue
		}
		note := known.Match(&f.Violation)
		if note == nil {
			res.add(f)
			return
		}
		if first == nil {
			f.Known, f.Note = note.String(), note.Pos
			first = &f
		}
	}
	if first != nil {
		res.add(*first)
	}
}

// Stuck is the kind of a finding of a configuration from which the task
// ends only through escape events.
const Stuck = eval.Stuck

// escapeNames lists the machine's escape events.
func (res *Result) escapeNames() string {
	var out []string
	esc := escapeIntents(res.m)
	for i, name := range res.m.Intents() {
		if esc[i] {
			out = append(out, name)
		}
	}
	for i := 0; i < res.m.NumTimers(); i++ {
		if res.m.IsEscapeTimer(engine.TimerID(i)) {
			out = append(out, "timer:"+res.m.TimerName(engine.TimerID(i)))
		}
	}
	if len(out) == 0 {
		return "none declared"
	}
	return strings.Join(out, ", ")
}

// escapeIntents marks the escape intents: the machine's, and those an
// escape timer delivers (a delayed send of session.timeout), which
// abandon the task whoever sends them.
func escapeIntents(m *engine.Machine) []bool {
	out := make([]bool, len(m.Intents()))
	for i := range out {
		out[i] = m.IsEscapeIntent(engine.IntentID(i))
	}
	for t := range m.NumTimers() {
		if ev := m.SendEvent(engine.TimerID(t)); ev != engine.NoID && m.IsEscapeTimer(engine.TimerID(t)) {
			out[ev] = true
		}
	}
	return out
}
