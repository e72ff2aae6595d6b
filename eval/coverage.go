package eval

import "github.com/simctl/simctl/engine"

// Coverage counts, for one machine, how often each transition was taken,
// each state entered, and each guard seen true and false.
type Coverage struct {
	Trans      []int64
	States     []int64
	GuardTrue  []int64
	GuardFalse []int64
}

// NewCoverage returns zeroed counters sized for m.
func NewCoverage(m *engine.Machine) *Coverage {
	n := m.NumTransitions()
	return &Coverage{Trans: make([]int64, n), States: make([]int64, m.NumStates()),
		GuardTrue: make([]int64, n), GuardFalse: make([]int64, n)}
}

// Observe implements sim.Observer.
func (c *Coverage) Observe(st *Step) {
	r := st.Result
	for _, s := range r.Steps {
		if s.Trans != engine.NoID {
			c.Trans[s.Trans]++
		}
		if s.To != engine.NoID {
			c.States[s.To]++
		}
	}
	for _, g := range r.Guards {
		if g.Pass {
			c.GuardTrue[g.Trans]++
		} else {
			c.GuardFalse[g.Trans]++
		}
	}
}

// Add folds another coverage of the same machine into c.
func (c *Coverage) Add(o *Coverage) {
	for i := range c.Trans {
		c.Trans[i] += o.Trans[i]
		c.GuardTrue[i] += o.GuardTrue[i]
		c.GuardFalse[i] += o.GuardFalse[i]
	}
	for i := range c.States {
		c.States[i] += o.States[i]
	}
}
