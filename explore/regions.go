package explore

import (
	"fmt"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// StuckRegion is the kind of a finding of a parallel state that can never
// complete: one of its regions can no longer reach its final state, and
// nothing leaves the parallel state either (cancel would: that is stuck).
const StuckRegion = eval.StuckRegion

// parNode is a configuration with a parallel state (or fork) active: the
// state, its regions that have a final state to reach (meant, a bit per
// region), and those in theirs (done).
type parNode struct {
	node        int32
	p           engine.StateID
	meant, done uint64
}

// regions returns, for a configuration in a parallel state, its regions
// that have a final state (meant) and those that reached one (done).
func (x *explorer) regions(c *engine.Config) (meant, done uint64) {
	for i := 0; i < int(c.NBranch); i++ {
		b := &c.Branches[i]
		if b.Status == 0 || b.State == engine.NoID {
			continue // a position of a nested parallel state's region
		}
		if x.hasFinal(x.regionRoot(c.State, b.State)) {
			meant |= 1 << i
		}
		if b.Status != engine.BranchRunning {
			done |= 1 << i
		}
	}
	return meant, done
}

// regionRoot is the state region leaf runs in under parallel state p:
// its ancestor that is p's child, or p itself when p has one region (a
// fork, whose branches run all its children).
func (x *explorer) regionRoot(p, leaf engine.StateID) engine.StateID {
	if x.m.Regions(p) <= 1 {
		return p
	}
	for s := leaf; s != engine.NoID; s = x.m.Parent(s) {
		if x.m.Parent(s) == p {
			return s
		}
	}
	return p
}

// hasFinal reports whether some final state lies in region root.
func (x *explorer) hasFinal(root engine.StateID) bool {
	if x.finals == nil {
		x.finals = map[engine.StateID]bool{}
	}
	has, ok := x.finals[root]
	if !ok {
		for s := 0; s < x.m.NumStates() && !has; s++ {
			has = x.m.IsFinal(engine.StateID(s)) && engine.StateID(s) != root && x.m.InState(engine.StateID(s), root)
		}
		x.finals[root] = has
	}
	return has
}

// notePar records new node n, configuration c, when a parallel state is
// active.
func (x *explorer) notePar(n int32, c *engine.Config) {
	if c.NBranch == 0 || c.Final {
		return
	}
	if meant, done := x.regions(c); meant != 0 {
		x.res.par = append(x.res.par, parNode{node: n, p: c.State, meant: meant, done: done})
	}
}

// stuckRegions finds, in the explored graph, the first configuration (in
// search order) in a parallel state one of whose regions can no longer
// reach its final state while the parallel state stays active: from
// there, every way either keeps the region short of its end or stays in
// the parallel state for ever. Unexpanded configurations count as able
// to reach anything (unexpanded reports them), as for livelocks.
func (res *Result) stuckRegions(at, rev []int32, unexpanded func(int) bool, known *eval.Known) {
	if len(res.par) == 0 {
		return
	}
	in := make([]int32, len(res.nodes)) // per node: its index in par, plus one
	for k, pn := range res.par {
		in[pn.node] = int32(k + 1)
	}
	type region struct {
		p engine.StateID
		i int
	}
	var regs []region
	seenReg := map[region]bool{}
	for _, pn := range res.par {
		for i := 0; i < 64; i++ {
			if r := (region{pn.p, i}); pn.meant&(1<<i) != 0 && !seenReg[r] {
				seenReg[r] = true
				regs = append(regs, r)
			}
		}
	}
	bad := make([]uint64, len(res.par))
	good := make([]bool, len(res.nodes))
	var q []int32
	for _, r := range regs {
		clear(good)
		q = q[:0]
		for n := range res.nodes {
			k := in[n] - 1
			if k < 0 || res.par[k].p != r.p || res.par[k].done&(1<<r.i) != 0 || unexpanded(n) {
				good[n] = true
				q = append(q, int32(n))
			}
		}
		q = reachBack(at, rev, good, q, false)
		for k, pn := range res.par {
			if pn.p == r.p && pn.meant&(1<<r.i) != 0 && !good[pn.node] {
				bad[k] |= 1 << r.i
			}
		}
	}
	res.addFirstFinding(known, len(res.par), func(k int) (Finding, bool) {
		pn := res.par[k]
		if bad[k] == 0 || res.nodes[pn.node].witness {
			return Finding{}, false
		}
		c := res.ConfigAt(pn.node)
		var names []string
		for i := 0; i < 64; i++ {
			if bad[k]&(1<<i) != 0 {
				names = append(names, res.m.StateName(res.regionName(c, i)))
			}
		}
		pname := res.m.StateName(pn.p)
		word := "region " + names[0] + " cannot reach its final state"
		if len(names) > 1 {
			word = "regions " + strings.Join(names, ", ") + " cannot reach their final states"
		}
		return Finding{Kind: StuckRegion, Node: pn.node, Violation: eval.Violation{Invariant: StuckRegion, Turn: int(res.nodes[pn.node].depth),
			State: pname, Msg: fmt.Sprintf("parallel state %s can never complete: %s, and no transition leaves %s", pname, word, pname),
			After: res.m.Describe(c)}}, true
	})
}

// regionName is the state that names region i of configuration c's
// parallel state: its root, or the parallel state for a fork's branch.
func (res *Result) regionName(c *engine.Config, i int) engine.StateID {
	x := explorer{m: res.m}
	return x.regionRoot(c.State, c.Branches[i].State)
}
