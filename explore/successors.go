package explore

import (
	"fmt"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/spec"
)

// maxChoiceBits bounds the external actions whose failure is explored in
// one event; later ones in the same event only succeed.
const maxChoiceBits = 8

type explorer struct {
	s             *spec.Suite
	m             *engine.Machine
	alpha         []engine.Event
	checker       *eval.Checker
	res           *Result
	r             engine.Result
	contradiction map[string]string
	good          []bool // per node: final, or idle
	dead          []bool // per node: a dead end
	out           []successor
}

func newExplorer(s *spec.Suite, m *engine.Machine) *explorer {
	x := &explorer{s: s, m: m, alpha: alphabet(s, m), checker: eval.NewChecker(m), contradiction: map[string]string{}}
	for _, inv := range m.Invariants() {
		x.contradiction[inv.Name] = inv.Contradiction
	}
	return x
}

// successor is one configuration reachable from a node by one event (and
// one choice of outcomes for the actions it set off).
type successor struct {
	st       searchState
	in       edge
	findings []Finding
	firstIdx []engine.TransID // transitions taken on the way
	stop     bool             // the engine failed: keep the node, do not expand it
}

type pending struct {
	ext    engine.ExtID
	branch uint8
}

// successors computes every successor of cur: branch steps while a fork's
// branches can move, else every user act and the next timer.
func (x *explorer) successors(cur *searchState, ci int32) []successor {
	x.out = x.out[:0]
	c := &cur.cfg
	depth := int(x.res.nodes[ci].depth)
	if mask := c.Runnable(); mask != 0 {
		for i := 0; i < int(c.NBranch); i++ {
			if mask&(1<<i) != 0 {
				ev := engine.Event{Kind: engine.BranchEvent, Branch: uint8(i + 1), At: c.Now, Timer: engine.NoID, Ext: engine.NoID}
				x.apply(cur, ev, int32(edgeBranch-i), depth)
			}
		}
		if len(x.out) > 0 {
			return x.out
		}
		// Every runnable branch is stuck (no eventless transition of its
		// state applies): as in a driver, the turn ends and the user or a
		// timer moves the conversation on.
	}
	for ui := range x.alpha {
		ev := x.alpha[ui]
		ev.At = c.Now
		x.apply(cur, ev, int32(ui), depth)
	}
	if t, ok := x.m.NextTimer(c); ok {
		ev := engine.Event{Kind: engine.TimerEvent, Timer: t.ID, At: t.Deadline, Ext: engine.NoID}
		x.apply(cur, ev, edgeTimer, depth)
	}
	return x.out
}

// apply steps ev from cur, then resolves the actions it invoked, each way.
func (x *explorer) apply(cur *searchState, ev engine.Event, event int32, depth int) {
	st := *cur
	sc := successor{in: edge{event: event}}
	inv, ok := x.step(&st, &ev, depth, &sc)
	if !ok && !sc.stop {
		return
	}
	x.resolve(st, sc, inv, 0, depth)
}

// resolve delivers the invoked actions' results one at a time, branching
// on success and failure, and emits a successor when none is left.
func (x *explorer) resolve(st searchState, sc successor, inv []pending, bit uint, depth int) {
	if sc.stop || len(inv) == 0 {
		sc.st = st
		x.out = append(x.out, sc)
		return
	}
	p, rest := inv[0], inv[1:]
	// The stub decides; failure is a second choice only for actions the
	// machine says what to do about (a failed: transition somewhere).
	outcomes := 2
	if bit >= maxChoiceBits || !x.m.HandlesFailure(p.ext) {
		outcomes = 1
	}
	for o := 0; o < outcomes; o++ {
		st2 := st
		sc2 := sc
		sc2.findings = append([]Finding(nil), sc.findings...)
		sc2.firstIdx = append([]engine.TransID(nil), sc.firstIdx...)
		var ev engine.Event
		x.m.InvokeIn(&st2.cfg, p.ext, p.branch, st2.cfg.Now, &ev)
		if o == 1 {
			ev = engine.Event{Kind: engine.FailedEvent, Ext: p.ext, At: st2.cfg.Now, Branch: p.branch, Timer: engine.NoID}
			sc2.in.fails |= 1 << bit
		}
		more, _ := x.step(&st2, &ev, depth, &sc2)
		// Results are delivered depth first, as a driver does: the actions
		// a result sets off before the ones invoked after it.
		x.resolve(st2, sc2, append(append([]pending(nil), more...), rest...), bit+1, depth)
	}
}

// step applies one event to st, checks every invariant on it, and returns
// the actions it invoked. ok is false when the event changed nothing (no
// transition) or the engine failed (sc.stop, with a runtime_error finding).
func (x *explorer) step(st *searchState, ev *engine.Event, depth int, sc *successor) ([]pending, bool) {
	x.checker.Restore(st.path)
	before := st.cfg
	err := x.m.Step(&st.cfg, ev, &x.r)
	if err != nil {
		sc.stop = true
		sc.findings = append(sc.findings, Finding{Kind: eval.RuntimeError, Violation: eval.Violation{Invariant: eval.RuntimeError,
			Turn: depth + 1, Msg: err.Error(), Before: x.m.Describe(&before), After: x.m.Describe(&st.cfg)}})
		return nil, false
	}
	if !x.r.Handled {
		if ev.Kind == engine.UserEvent || ev.Kind == engine.BranchEvent {
			// Nothing changed: not a successor. Its guards were tried.
			for _, g := range x.r.Guards {
				x.res.Coverage.GuardFalse[g.Trans]++
			}
			st.cfg = before
			return nil, false
		}
		// A timer that fell due, or an action's result that no transition
		// takes, still changes the configuration (the timer is no longer
		// pending, outputs land in slots, a branch stops waiting): the
		// step stands, as it does in a driver.
	}
	x.observe(depth+1, ev, &before, &st.cfg, &x.r, 0)
	for _, v := range x.checker.Violations {
		sc.findings = append(sc.findings, Finding{Kind: v.Invariant, Violation: v, Known: x.contradiction[v.Invariant]})
	}
	st.path = x.checker.Save()
	for _, s := range x.r.Steps {
		if s.Trans != engine.NoID {
			sc.firstIdx = append(sc.firstIdx, s.Trans)
		}
	}
	var inv []pending
	for i := range x.r.Effects {
		if e := &x.r.Effects[i]; e.Kind == engine.EffInvoke {
			inv = append(inv, pending{ext: e.Ext, branch: e.Branch})
		}
	}
	return inv, true
}

func (x *explorer) isGood(c *engine.Config) bool { return x.m.IsIdle(c) }

func (x *explorer) observe(turn int, ev *engine.Event, before, after *engine.Config, r *engine.Result, _ int) {
	st := eval.Step{Turn: turn, Event: ev, Before: before, After: after, Result: r}
	x.checker.Observe(&st)
	x.res.Coverage.Observe(&st)
}

// record notes, for a new node, the transitions first taken on the way to
// it, and whether it is a good (final or idle) configuration.
func (x *explorer) record(ni int32, taken []engine.TransID) {
	for _, t := range taken {
		if x.res.firstTaken[t] < 0 {
			x.res.firstTaken[t] = ni
		}
	}
}

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
