package eval

import "github.com/simctl/simctl/engine"

// Coverage counts, for one machine, how often each transition was taken,
// each state entered, each guard seen true and false, each intent received
// and each slot filled.
type Coverage struct {
	Trans      []int64
	States     []int64
	GuardTrue  []int64
	GuardFalse []int64
	// Intents counts, per intent id, the user events with that intent the
	// machine stepped on (parsed utterances, direct slot mapping, injected
	// events); Slots counts, per slot id, the steps after which the slot
	// held a new, non-empty value.
	Intents []int64
	Slots   []int64
	// m, when set, is the machine, whose parallel states' regions are
	// entered with them.
	m *engine.Machine
}

// NewCoverage returns zeroed counters sized for m.
func NewCoverage(m *engine.Machine) *Coverage {
	n := m.NumTransitions()
	return &Coverage{Trans: make([]int64, n), States: make([]int64, m.NumStates()),
		GuardTrue: make([]int64, n), GuardFalse: make([]int64, n),
		Intents: make([]int64, len(m.Intents())), Slots: make([]int64, len(m.Slots())), m: m}
}

// Observe implements sim.Observer.
func (c *Coverage) Observe(st *Step) { c.ObserveN(st, 1) }

// regionLeaves counts the states entering parallel state p enters in each
// of its regions, which no trace step of its own names: a leaf, or a
// nested parallel state and its regions' leaves.
func (c *Coverage) regionLeaves(p engine.StateID, n int64) {
	for i := 0; i < c.m.Regions(p); i++ {
		if path := c.m.RegionEntry(p, i); len(path) > 0 {
			leaf := path[len(path)-1]
			c.States[leaf] += n
			c.regionLeaves(leaf, n)
		}
	}
}

// ObserveN counts step st as n alike steps: an explorer that steps one
// event for several that it knows step the same way counts them all.
func (c *Coverage) ObserveN(st *Step, n int64) {
	r := st.Result
	for _, s := range r.Steps {
		if s.Trans != engine.NoID {
			c.Trans[s.Trans] += n
		}
		if s.To != engine.NoID {
			c.States[s.To] += n
			if c.m != nil {
				c.regionLeaves(s.To, n)
			}
		}
	}
	for _, g := range r.Guards {
		if g.Pass {
			c.GuardTrue[g.Trans] += n
		} else {
			c.GuardFalse[g.Trans] += n
		}
	}
	if ev := st.Event; ev != nil && ev.Kind == engine.UserEvent && int(ev.Intent) < len(c.Intents) {
		c.Intents[ev.Intent] += n
	}
	if st.Before != nil && st.After != nil {
		for i := range c.Slots {
			if a := st.After.Slot(engine.SlotID(i)); !a.IsEmpty() && a != st.Before.Slot(engine.SlotID(i)) {
				c.Slots[i] += n
			}
		}
	}
}

// Add folds another coverage of the same machine into c.
func (c *Coverage) Add(o *Coverage) {
	add(c.Trans, o.Trans)
	add(c.GuardTrue, o.GuardTrue)
	add(c.GuardFalse, o.GuardFalse)
	add(c.States, o.States)
	add(c.Intents, o.Intents)
	add(c.Slots, o.Slots)
}

// add sums src into dst, as far as both reach (a Coverage built by hand may
// leave the intent and slot counters out).
func add(dst, src []int64) {
	for i := range min(len(dst), len(src)) {
		dst[i] += src[i]
	}
}
