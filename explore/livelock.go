package explore

import (
	"fmt"
	"slices"

	"github.com/simctl/simctl/eval"
)

// graph holds the edges the search walked, for the livelock analysis:
// nodes are expanded in increasing order, so each expanded node's
// distinct successors are one run of to, starting at start[k] for the
// k-th expanded node, node[k].
type graph struct {
	to, start, node []int32
}

// add records the edges from node n to each of targets, each target once.
func (g *graph) add(n int32, targets []int32) {
	slices.Sort(targets)
	g.node = append(g.node, n)
	g.start = append(g.start, int32(len(g.to)))
	for k, t := range targets {
		if k == 0 || targets[k-1] != t {
			g.to = append(g.to, t)
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
			return
		}
	}
}
