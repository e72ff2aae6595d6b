package explore

import (
	"sort"
	"strings"

	"github.com/expr-lang/expr/parser"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/machinevalues"
)

// A guard the search never saw true may be dead code, or it may wait for a
// value the user alphabet does not hold: `event.value == "premium"` when
// neither users.yaml nor any scenario ever says "premium". The second is a
// limit of the search, not of the machine; AlphabetLacks tells them apart.

// AlphabetLacks returns the constants that guard t compares the user's
// data with (the event's value, text or entities, or a slot, which only
// user data fills) and that no event of the alphabet carries: while it
// returns any, the search could not have made the guard true through
// them. It returns nil for a guard that compares no user data with a
// constant, or whose constants the alphabet all holds.
func (r *Result) AlphabetLacks(t engine.TransID) []string {
	src := r.m.Transition(t).Guard
	if src == "" {
		return nil
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return nil
	}
	var lacks []string
	seen := map[string]bool{}
	for _, c := range machinevalues.Constants(r.userSlots, tree.Node) {
		if seen[c.Text] || r.alphabetHas(c) {
			continue
		}
		seen[c.Text] = true
		lacks = append(lacks, c.Text)
	}
	sort.Strings(lacks)
	return lacks
}

func (r *Result) alphabetHas(c machinevalues.Constant) bool {
	match := func(s string) bool {
		a, b := s, c.Text
		if c.Fold {
			a, b = strings.ToLower(a), strings.ToLower(b)
		}
		if c.Part {
			return strings.Contains(a, b)
		}
		return strings.TrimSpace(a) == b
	}
	for i := range r.alpha {
		ev := &r.alpha[i]
		if match(ev.Value) || match(ev.Text) {
			return true
		}
		for k := 0; k < int(ev.NEnt); k++ {
			if match(ev.Entities[k].Value.Str) {
				return true
			}
		}
	}
	return false
}

// GuardsUnreached returns the guards the search never saw true for want of
// a value (AlphabetLacks is not empty), by transition id: while there is
// one, "complete" holds only over the alphabet.
func (r *Result) GuardsUnreached() []engine.TransID {
	var out []engine.TransID
	c := r.Coverage
	for t := 0; t < r.m.NumTransitions(); t++ {
		id := engine.TransID(t)
		if r.m.Transition(id).Guard != "" && c.GuardTrue[t] == 0 && c.GuardFalse[t] > 0 && len(r.AlphabetLacks(id)) > 0 {
			out = append(out, id)
		}
	}
	return out
}
