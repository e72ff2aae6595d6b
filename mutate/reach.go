package mutate

import (
	"reflect"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// A survivor is called equivalent only when the original's complete
// search exercised what the mutant changed: a transition the search never
// took, and whose guard it never saw both true and false, could differ in
// every way and no search of this alphabet would show it. Such a mutant
// is Unreached and counts against the score, as a survivor does.

// changedTransitions returns the positions (in machine.yaml) of the
// transitions mutant def changes against orig: a guard, a target or an
// action list. A mutant that changes no transition (a counter's limit, an
// entry action, an override) gives none.
func changedTransitions(orig, def *engine.Definition) []engine.Pos {
	var out []engine.Pos
	cmp := func(a, b []engine.TransitionDef) {
		for i := range min(len(a), len(b)) {
			if !reflect.DeepEqual(a[i], b[i]) {
				out = append(out, a[i].Pos, b[i].Pos)
			}
		}
	}
	for i := range orig.States {
		a, b := &orig.States[i], &def.States[i]
		cmp(a.On, b.On)
		cmp(a.Always, b.Always)
		if a.Timeout != nil && b.Timeout != nil {
			cmp(a.Timeout.Then, b.Timeout.Then)
		}
		if a.Fork != nil && b.Fork != nil {
			cmp(a.Fork.Join, b.Fork.Join)
		}
	}
	cmp(orig.On, def.On)
	return out
}

// reached reports whether a search with coverage cov exercised one of the
// transitions at positions: took it, or saw its guard both ways.
func reached(m *engine.Machine, cov *eval.Coverage, positions []engine.Pos) bool {
	for t := range m.NumTransitions() {
		p := m.Transition(engine.TransID(t)).Pos
		for _, q := range positions {
			if p == q && (cov.Trans[t] > 0 || cov.GuardTrue[t] > 0 && cov.GuardFalse[t] > 0) {
				return true
			}
		}
	}
	return false
}
