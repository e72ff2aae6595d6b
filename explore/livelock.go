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
// the k-th expanded node, node[k]; esc[j] says that only escape events
// (cancel, a session timeout) lead along edge j.
type graph struct {
	to, start, node []int32
	esc             []bool
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
			g.to = append(g.to, t>>1)
			g.esc = append(g.esc, t&1 != 0)
		}
	}
}

// livelocks finds, in the explored graph, configurations from which no
// final or idle configuration can be reached and no dead end either: the
// conversation can only go round. Unexpanded configurations (at the depth
// bound) count as possibly good. Nothing is concluded from a search the
// state cap stopped.
func (res *Result) livelocks(g *graph, depthBound int) {
	if res.Stopped != "" {
		return
	}
	n := len(res.nodes)
	// The predecessors of each node, as one array in runs (rev[at[i]:at[i+1]]).
	at := make([]int32, n+1)
	for _, t := range g.to {
		at[t+1]++
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
		for _, t := range g.to[g.start[k]:end] {
			rev[fill[t]] = from
			fill[t]++
		}
	}
	// Back from the good configurations (final, idle, or unexpanded at the
	// depth bound or left to another shard) and from the ends: every dead end, not only the one
	// reported, and every configuration from which an event makes the
	// engine fail (a runtime error, reported already).
	seen := make([]bool, n)
	var q []int32
	for i := range res.nodes {
		nd := &res.nodes[i]
		if nd.good || nd.dead || nd.fails || nd.skipped || int(nd.depth) >= depthBound {
			seen[i] = true
			q = append(q, int32(i))
		}
	}
	for len(q) > 0 {
		y := q[len(q)-1]
		q = q[:len(q)-1]
		for _, p := range rev[at[y]:at[y+1]] {
			if !seen[p] {
				seen[p] = true
				q = append(q, p)
			}
		}
	}
	for i := 0; i < n; i++ {
		if !seen[i] {
			c := res.ConfigAt(int32(i))
			res.add(Finding{Kind: "livelock", Node: int32(i), Violation: eval.Violation{Invariant: "livelock", Turn: int(res.nodes[i].depth),
				Msg:   fmt.Sprintf("from %s no final or idle state can be reached: the conversation can only go round", res.m.StateName(c.State)),
				After: res.m.Describe(c)}})
			break
		}
	}
	res.stuck(g, depthBound, at, rev, seen)
}

// stuck finds, like TLC's liveness under fairness, configurations from
// which the task can still end, but only through escape events: every way
// to a final or idle configuration passes a cancel or a session timeout.
// A fork branch that entered a state with no way out is such a place,
// though cancel keeps the conversation from being a dead end or a
// livelock. canEnd holds the configurations from which an end is reachable
// at all (the livelock analysis's); what it cannot reach is a livelock.
func (res *Result) stuck(g *graph, depthBound int, at, rev []int32, canEnd []bool) {
	n := len(res.nodes)
	// Whether each predecessor edge (rev) is an escape edge, in rev's order.
	revEsc := make([]bool, len(g.to))
	fill := slices.Clone(at[:n])
	for k := range g.node {
		end := int32(len(g.to))
		if k+1 < len(g.start) {
			end = g.start[k+1]
		}
		for j := g.start[k]; j < end; j++ {
			t := g.to[j]
			revEsc[fill[t]] = g.esc[j]
			fill[t]++
		}
	}
	done := make([]bool, n)
	var q []int32
	for i := range res.nodes {
		nd := &res.nodes[i]
		if nd.good || nd.dead || nd.fails || nd.skipped || int(nd.depth) >= depthBound {
			done[i] = true
			q = append(q, int32(i))
		}
	}
	for len(q) > 0 {
		y := q[len(q)-1]
		q = q[:len(q)-1]
		for j := at[y]; j < at[y+1]; j++ {
			if p := rev[j]; !revEsc[j] && !done[p] {
				done[p] = true
				q = append(q, p)
			}
		}
	}
	for i := 0; i < n; i++ {
		if !done[i] && canEnd[i] {
			c := res.ConfigAt(int32(i))
			res.add(Finding{Kind: Stuck, Node: int32(i), Violation: eval.Violation{Invariant: Stuck, Turn: int(res.nodes[i].depth),
				Msg:   fmt.Sprintf("from %s the task can end only through an escape (%s): its own completion cannot be reached", res.m.StateName(c.State), res.escapeNames()),
				After: res.m.Describe(c)}})
			return
		}
	}
}

// Stuck is the kind of a finding of a configuration from which the task
// ends only through escape events.
const Stuck = "stuck"

// escapeNames lists the machine's escape events.
func (res *Result) escapeNames() string {
	var out []string
	for i, name := range res.m.Intents() {
		if res.m.IsEscapeIntent(engine.IntentID(i)) {
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
