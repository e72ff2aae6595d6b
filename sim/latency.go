package sim

import (
	"math/rand/v2"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// The driver's side of the latency model (package latency). While a turn
// runs, every cost is drawn from the conversation's seeded source, in the
// order the effects happen: the NLU call first, then, step by step, the
// states each transition entered (top down), then the external actions its
// actions invoked. Costs add up along the turn's chain, except that fork
// branches run side by side: from a fork's start to its join only the
// slowest branch counts. When the chain is over, the virtual clock moves
// on by the turn's latency, firing the timers that fall due meanwhile, at
// their deadlines; what those timers set off costs time too, and keeps the
// clock going.

// costs is the latency account of the turn under way.
type costs struct {
	main   int64                     // the main machine's chain, the NLU call included
	branch [engine.MaxBranches]int64 // each fork branch's chain since its fork started
	// nlu is the turn's NLU call, charged to its first transition;
	// placed says it has been (or the turn is over).
	nlu    int64
	placed bool
	// saved is the NLU call direct slot mapping skipped (skipped).
	saved   int64
	skipped bool
	// trans lists each transition taken, with the latency that fell to it.
	trans []eval.TransCost
}

func (c *costs) reset() {
	*c = costs{trans: c.trans[:0]}
}

// join ends a fork episode: the branches ran side by side, so the slowest
// adds to the chain.
func (c *costs) join() {
	slowest := int64(0)
	for i := range c.branch {
		slowest = max(slowest, c.branch[i])
		c.branch[i] = 0
	}
	c.main += slowest
}

// total is the chain's latency so far, branches joined.
func (c *costs) total() int64 {
	c.join()
	return c.main
}

func (c *costs) add(branch uint8, trans int, ms int64) {
	if branch > 0 {
		c.branch[branch-1] += ms
	} else {
		c.main += ms
	}
	if trans >= 0 {
		c.trans[trans].MS += ms
	}
}

// latencySource is the source costs are drawn from: the conversation's.
// A driver without one draws from a fixed seed, reset at every Start, so
// its conversations stay deterministic too.
func (d *Driver) latencySource() *rand.Rand {
	if d.Rand != nil {
		return d.Rand
	}
	if d.fixedRand == nil {
		d.fixedRand = rand.New(rand.NewPCG(0, 0))
	}
	return d.fixedRand
}

// chargeNLU draws the cost of the turn's NLU call: part of the turn, or,
// when direct slot mapping skipped the call, what it saved.
func (d *Driver) chargeNLU(skipped bool) {
	ms := d.Latency.NLU.Sample(d.latencySource())
	if skipped {
		d.acct.saved, d.acct.skipped = ms, true
		return
	}
	d.acct.nlu = ms
	d.acct.main += ms
}

// charge draws the costs of the step just taken (d.Res): for each trace
// step in order, the states it entered, then the external actions its
// actions invoked; a fork's branches each enter their first states.
func (d *Driver) charge() {
	r, lm, rng := &d.Res, d.Latency, d.latencySource()
	a, e := 0, 0 // cursors into r.Actions and r.Effects
	// effectAt returns the effect the action at position a produced, if
	// any: each action produces at most one, in the order they run.
	effectAt := func(a int) *engine.Effect {
		if e < len(r.Effects) && r.Effects[e].Action == r.Actions[a] {
			e++
			return &r.Effects[e-1]
		}
		return nil
	}
	invoke := func(eff *engine.Effect, trans int) {
		if eff != nil && eff.Kind == engine.EffInvoke {
			if dist := lm.ExtCost(eff.Ext); dist != nil {
				d.acct.add(eff.Branch, trans, dist.Sample(rng))
			}
		}
	}
	for i := range r.Steps {
		s := &r.Steps[i]
		// Actions outside any trace step (none, as the engine records
		// them) would still cost the chain.
		for ; a < int(s.ActLo) && a < len(r.Actions); a++ {
			invoke(effectAt(a), -1)
		}
		ti := -1
		if s.Trans != engine.NoID {
			if s.Branch == 0 && d.M.IsJoin(s.Trans) {
				d.acct.join()
			}
			d.acct.trans = append(d.acct.trans, eval.TransCost{Trans: s.Trans})
			ti = len(d.acct.trans) - 1
			if !d.acct.placed {
				d.acct.trans[ti].MS += d.acct.nlu
				d.acct.placed = true
			}
		}
		d.entered = d.enteredBy(s, d.entered[:0])
		for _, st := range d.entered {
			if dist := lm.StateCost(st); dist != nil {
				d.acct.add(s.Branch, ti, dist.Sample(rng))
			}
		}
		if s.Branch == 0 && s.To != engine.NoID && d.M.IsFork(s.To) && d.Cfg.NBranch > 0 {
			// The regions started with the parallel state, each in its
			// first states below it.
			for b := 0; b < int(d.Cfg.NBranch); b++ {
				for _, st := range d.M.RegionEntry(s.To, b) {
					if dist := lm.StateCost(st); dist != nil {
						d.acct.add(uint8(b+1), ti, dist.Sample(rng))
					}
				}
			}
		}
		for ; a < int(s.ActHi) && a < len(r.Actions); a++ {
			invoke(effectAt(a), ti)
		}
	}
	for ; a < len(r.Actions); a++ {
		invoke(effectAt(a), -1)
	}
}

// enteredBy appends the states trace step s entered, top down: those
// below the transition's domain down to the new leaf (all of them at the
// start), none for an internal transition.
func (d *Driver) enteredBy(s *engine.TraceStep, buf []engine.StateID) []engine.StateID {
	m := d.M
	if s.To == engine.NoID {
		return buf
	}
	if s.Trans == engine.NoID {
		return d.below(s.To, engine.NoID, buf)
	}
	if d.domains == nil {
		d.domains = make([]engine.StateID, m.NumTransitions())
		for i := range d.domains {
			d.domains[i] = unknownDomain
		}
	}
	dom := d.domains[s.Trans]
	if dom == unknownDomain || m.IsOverride(s.Trans) {
		t := m.Transition(s.Trans)
		if t.Internal {
			dom = internalDomain
		} else {
			src := t.Source
			if m.IsOverride(s.Trans) {
				// An override leaves from wherever the machine was.
				src = s.From
			}
			dom = domainOf(m, src, t.Target)
		}
		if !m.IsOverride(s.Trans) {
			d.domains[s.Trans] = dom
		}
	}
	if dom == internalDomain {
		return buf
	}
	return d.below(s.To, dom, buf)
}

// Markers in Driver.domains, which caches each transition's domain.
const (
	unknownDomain  = engine.StateID(engine.NoID - 1)
	internalDomain = engine.StateID(engine.NoID - 2)
)

// below appends the states from leaf up to (not including) top, top down.
func (d *Driver) below(leaf, top engine.StateID, buf []engine.StateID) []engine.StateID {
	n := len(buf)
	for x := leaf; x != top && x != engine.NoID; x = d.M.Parent(x) {
		buf = append(buf, x)
	}
	for i, j := n, len(buf)-1; i < j; i, j = i+1, j-1 {
		buf[i], buf[j] = buf[j], buf[i]
	}
	return buf
}

// domainOf is the nearest proper ancestor of source that contains target
// and is not target itself (NoID: the root): a transition exits and
// re-enters everything below it, as the engine does.
func domainOf(m *engine.Machine, source, target engine.StateID) engine.StateID {
	if source == engine.NoID {
		return engine.NoID
	}
	for a := m.Parent(source); a != engine.NoID; a = m.Parent(a) {
		if a != target && m.InState(target, a) {
			return a
		}
	}
	return engine.NoID
}

// endTurn closes the turn's latency account: the clock moves on by the
// turn's latency (firing the timers due meanwhile), and the aggregate, if
// any, records the turn (user turns only: a wait is no response time),
// the transitions taken and the NLU call skipped.
// Without a model there is nothing to close: that test is kept apart, so
// that it is inlined into every turn.
func (d *Driver) endTurn(user bool) error {
	if d.Latency == nil {
		return nil
	}
	return d.closeTurn(user)
}

func (d *Driver) closeTurn(user bool) error {
	total := d.acct.total()
	d.acct.placed = true
	d.Info.Latency = total
	if err := d.elapse(d.Cfg.Now + total); err != nil {
		return err
	}
	d.record(user, total)
	return nil
}

// elapse moves the clock to target, firing each timer that falls due on
// the way at its deadline, in (deadline, sequence) order. Under a latency
// model what a timer sets off takes time as well: the clock then goes on
// at least until the timer's deadline plus that time.
func (d *Driver) elapse(target int64) error {
	for {
		t, ok := d.M.NextTimer(&d.Cfg)
		if !ok || t.Deadline > target {
			break
		}
		var before int64
		if d.Latency != nil {
			before = d.acct.total()
		}
		d.ev = engine.Event{Kind: engine.TimerEvent, Timer: t.ID, At: t.Deadline}
		if err := d.step(&d.ev, 0); err != nil {
			return err
		}
		if err := d.runBranches(); err != nil {
			return err
		}
		if d.Latency != nil {
			target = max(target, t.Deadline+d.acct.total()-before)
		}
	}
	d.Cfg.Now = max(d.Cfg.Now, target)
	return nil
}

// record adds the turn to the aggregate.
func (d *Driver) record(user bool, total int64) {
	out := d.LatencyOut
	if out == nil {
		return
	}
	for _, tc := range d.acct.trans {
		out.AddTransition(tc.Trans, tc.MS)
	}
	if user {
		out.AddTurn(total, d.Cfg.State, d.Turn)
	}
	if d.acct.skipped {
		out.AddSkippedNLU(d.acct.saved)
	}
}
