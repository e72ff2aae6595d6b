package explore

import (
	"fmt"

	"github.com/simctl/simctl/engine"
)

// startConfig puts c into the configuration a driver's conversation begins
// in (sim.Driver.Start): the machine's start, then the results of the
// external actions it invoked, depth first, each as its stub decides (no
// scenario turn can fail them, so neither does the search). seen, if not
// nil, is called after each step with the event (nil for the start) and
// the configuration before it; it returns the transitions taken.
func startConfig(m *engine.Machine, c *engine.Config, r *engine.Result, seen func(ev *engine.Event, before *engine.Config)) ([]engine.TransID, error) {
	var taken []engine.TransID
	before := engine.Config{State: engine.NoID, Waiting: engine.NoID, LastSay: engine.NoID}
	if err := m.Start(c, 0, r); err != nil {
		return nil, err
	}
	type call struct {
		ext    engine.ExtID
		branch uint8
		level  int
	}
	var queue []call
	record := func(ev *engine.Event, level int) ([]call, error) {
		if seen != nil {
			seen(ev, &before)
		}
		var inv []call
		for _, s := range r.Steps {
			if s.Trans != engine.NoID {
				taken = append(taken, s.Trans)
			}
		}
		for i := range r.Effects {
			if e := &r.Effects[i]; e.Kind == engine.EffInvoke {
				inv = append(inv, call{ext: e.Ext, branch: e.Branch, level: level + 1})
			}
		}
		if len(inv) > maxInvokes {
			return nil, fmt.Errorf("more than %d external actions invoked in one step", maxInvokes)
		}
		if len(inv) > 0 && level >= maxInvokeDepth {
			return nil, fmt.Errorf("external actions kept invoking each other past %d levels", maxInvokeDepth)
		}
		return inv, nil
	}
	queue, err := record(nil, 0)
	if err != nil {
		return taken, err
	}
	var ev engine.Event
	for len(queue) > 0 {
		p := queue[0]
		before = *c
		m.InvokeIn(c, p.ext, p.branch, c.Now, &ev)
		if err := m.Step(c, &ev, r); err != nil {
			return taken, err
		}
		more, err := record(&ev, p.level)
		if err != nil {
			return taken, err
		}
		queue = append(more, queue[1:]...)
	}
	return taken, nil
}
