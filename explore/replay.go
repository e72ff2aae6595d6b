package explore

import (
	"github.com/simctl/simctl/engine"
)

// replay applies edge e to c (and d, its Data, nil for a machine without)
// the way the search did, and returns the transitions taken and the
// invoked actions that failed, in order. limit >= 0 stops it after that
// many of the actions' results are delivered.
func (r *Result) replay(c *engine.Config, d engine.Data, e edge, scratch *engine.Result, limit int) (taken []engine.TransID, failed []engine.ExtID) {
	m := r.m
	var ev engine.Event
	switch {
	case e.event == edgeStartResults:
	case e.event >= 0:
		ev = r.alpha[e.event]
		ev.At = c.Now
	case e.event == edgeTimer:
		t, _ := m.NextTimer(c)
		ev = engine.Event{Kind: engine.TimerEvent, Timer: t.ID, At: t.Deadline, Ext: engine.NoID}
	default:
		// A region's awaited result; bit 0 says whether it failed.
		i := int(edgeBranch - e.event)
		x := c.Branches[i].Pending
		m.InvokeIn(c, x, uint8(i+1), c.Now, &ev)
		if e.fails&1 != 0 {
			ev = engine.Event{Kind: engine.FailedEvent, Ext: x, At: c.Now, Branch: uint8(i + 1), Timer: engine.NoID}
			failed = append(failed, x)
		}
	}
	bit := uint(0)
	if e.event <= edgeBranch && e.event > edgeBranch-engine.MaxBranches {
		bit = 1
	}
	// step applies one event and returns the actions it invoked; none when
	// the engine fails or the search's limits end the path.
	step := func(ev *engine.Event, level int) []pending {
		if err := m.StepWith(c, d, ev, scratch); err != nil || !scratch.Handled || invokes(scratch) > maxInvokes {
			return nil
		}
		for _, s := range scratch.Steps {
			if s.Trans != engine.NoID {
				taken = append(taken, s.Trans)
			}
		}
		var inv []pending
		for i := range scratch.Effects {
			if x := &scratch.Effects[i]; x.Kind == engine.EffInvoke && x.Branch == 0 {
				inv = append(inv, pending{ext: x.Ext, branch: x.Branch, level: uint8(level + 1)})
			}
		}
		if level >= maxInvokeDepth {
			return nil
		}
		return inv
	}
	// Results are delivered depth first, as the search did.
	var queue []pending
	if e.event == edgeStartResults {
		queue = append(queue, r.startInv...)
	} else {
		queue = step(&ev, 0)
	}
	for delivered := 0; len(queue) > 0 && delivered != limit; delivered++ {
		p := queue[0]
		var res engine.Event
		m.InvokeIn(c, p.ext, p.branch, c.Now, &res)
		if bit < maxChoiceBits && e.fails&(1<<bit) != 0 {
			res = engine.Event{Kind: engine.FailedEvent, Ext: p.ext, At: c.Now, Branch: p.branch, Timer: engine.NoID}
			failed = append(failed, p.ext)
		}
		bit++
		queue = append(step(&res, int(p.level)), queue[1:]...)
	}
	return taken, failed
}

// ConfigAt rebuilds the configuration of node n by replaying its path.
func (r *Result) ConfigAt(n int32) *engine.Config {
	var c engine.Config
	var scratch engine.Result
	d := r.begin(&c, &scratch)
	for _, e := range r.path(n) {
		r.replay(&c, d, e, &scratch, -1)
	}
	return &c
}
