package explore

import (
	"fmt"

	"github.com/simctl/simctl/eval"
)

// livelocks finds, in the explored graph, configurations from which no
// final or idle configuration can be reached and no dead end either: the
// conversation can only go round. Unexpanded configurations (at the depth
// bound) count as possibly good. Nothing is concluded from a search the
// state cap stopped.
func (x *explorer) livelocks(from, to []int32, full bool, depthBound int) {
	res := x.res
	if res.Stopped != "" {
		return
	}
	n := len(res.nodes)
	good := make([]bool, n)
	// Every dead end, not only the first one reported; and a configuration
	// from which an event makes the engine fail ends the conversation with
	// a runtime error, already reported: it does not go round either.
	dead := make([]bool, n)
	for i := range res.nodes {
		dead[i] = res.nodes[i].dead || res.nodes[i].fails
	}
	// Reconstructing every node's configuration would cost a replay;
	// instead good-ness is decided from the replayed configuration of each
	// node once, in BFS order, which is cheap next to the search.
	for i := range res.nodes {
		good[i] = res.nodes[i].good || int(res.nodes[i].depth) >= depthBound
	}
	rev := make([][]int32, n)
	for k := range from {
		rev[to[k]] = append(rev[to[k]], from[k])
	}
	reach := func(seed []bool) []bool {
		seen := make([]bool, n)
		var q []int32
		for i, s := range seed {
			if s {
				seen[i] = true
				q = append(q, int32(i))
			}
		}
		for len(q) > 0 {
			y := q[0]
			q = q[1:]
			for _, p := range rev[y] {
				if !seen[p] {
					seen[p] = true
					q = append(q, p)
				}
			}
		}
		return seen
	}
	canGood := reach(good)
	canDead := reach(dead)
	for i := 0; i < n; i++ {
		if !canGood[i] && !canDead[i] {
			c := res.ConfigAt(int32(i))
			res.add(Finding{Kind: "livelock", Node: int32(i), Violation: eval.Violation{Invariant: "livelock", Turn: int(res.nodes[i].depth),
				Msg:   fmt.Sprintf("from %s no final or idle state can be reached: the conversation can only go round", res.m.StateName(c.State)),
				After: res.m.Describe(c)}})
			return
		}
	}
}
