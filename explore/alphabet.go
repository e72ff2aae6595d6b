package explore

import (
	"fmt"
	"sort"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/machinevalues"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// Invalid is the value the explorer offers beside the known good ones, so
// that validation failures are explored too.
const Invalid = "???"

// alphabet builds the suite's finite user-act alphabet for machine m and,
// with reduce, keeps a few acts of each value class (classes.go); note says
// what the reduction did. The alphabet is every
// intent bare; every intent carrying each known value (the values slots take
// after the NLU, and an invalid one); correction intents also carrying each
// value as the entity named after each slot; and what the stub NLU makes of
// every utterance in the suite's scenarios and users.yaml, for machines
// whose guards read the text itself; and the values the machine compares
// user input with, and utterances built from the NLU's rules
// (package machinevalues).
func alphabet(s *spec.Suite, m *engine.Machine, reduce bool) ([]engine.Event, string) {
	all := fullAlphabet(s, m)
	if !reduce {
		return all, fmt.Sprintf("value classes: off (--no-reduce), %d user acts", len(all))
	}
	return classes(m, all)
}

func fullAlphabet(s *spec.Suite, m *engine.Machine) []engine.Event {
	var vals values
	if s.Def == nil || s.Def.DataModel == nil {
		// Slot values, and the invalid one their validators reject, are
		// the expression language's; a data model of its own (an SCXML
		// chart's ECMAScript) gets events bare, and with the data the
		// suite's scenarios send.
		vals = knownValues(s, m)
	}
	var evs []engine.Event
	base := engine.Event{Kind: engine.UserEvent, Confidence: 1, Timer: engine.NoID, Ext: engine.NoID}
	for i, name := range m.Intents() {
		if platformEvent(name) {
			continue
		}
		id := engine.IntentID(i)
		e := base
		e.Intent = id
		evs = append(evs, e)
		for _, v := range vals.all {
			e := base
			e.Intent, e.Value, e.Text = id, v, v
			evs = append(evs, e)
		}
		if !m.IsCorrection(id) {
			continue
		}
		for _, slot := range vals.slots {
			eid, ok := m.EntityID(m.SlotName(slot))
			if !ok {
				continue
			}
			for _, v := range vals.per[slot] {
				e := base
				e.Intent, e.Value, e.Text = id, v, v
				e.AddEntity(eid, engine.TextValue(v))
				evs = append(evs, e)
			}
		}
	}
	return append(evs, utterances(s, m, evs)...)
}

// platformEvent reports whether an intent is one the platform raises
// (error.execution, done.state.x), which no user sends.
func platformEvent(name string) bool {
	return strings.HasPrefix(name, "error.") || strings.HasPrefix(name, "done.")
}

// utterances parses the suite's own utterances with its stub NLU, keeping
// the events not already in the alphabet.
func utterances(s *spec.Suite, m *engine.Machine, have []engine.Event) []engine.Event {
	stub := sim.NewStub(s.NLU, m)
	var texts []string
	for _, sc := range s.Scenarios {
		for _, t := range sc.Turns {
			if t.User != nil {
				texts = append(texts, t.User.Value)
			}
		}
	}
	if s.Users != nil {
		for _, g := range s.Users.Goals {
			if g.Say != "" {
				texts = append(texts, g.Say)
			}
		}
	}
	// The values the machine compares user input with, and utterances
	// built from the NLU's own rules (package machinevalues).
	texts = append(texts, machinevalues.GuardValues(s.Def)...)
	texts = append(texts, machinevalues.NLUUtterances(s.NLU, machinevalues.ReadEntities(s.Def))...)
	sort.Strings(texts)
	seen := map[engine.Event]bool{}
	for _, e := range have {
		seen[e] = true
	}
	var out []engine.Event
	// A scenario's event: turns (an imported bot's commands) are user
	// acts of the suite as its utterances are.
	for _, sc := range s.Scenarios {
		for _, t := range sc.Turns {
			if t.Event == nil {
				continue
			}
			ev := sim.EventOf(m, t.Event)
			ev.Timer, ev.Ext = engine.NoID, engine.NoID
			if !seen[ev] && ev.Intent != engine.NoID {
				seen[ev] = true
				out = append(out, ev)
			}
		}
	}
	for _, t := range texts {
		var ev engine.Event
		if stub.Parse(t, 0, &ev) != nil || ev.Intent == engine.NoID {
			continue
		}
		ev.Timer, ev.Ext = engine.NoID, engine.NoID
		if !seen[ev] {
			seen[ev] = true
			out = append(out, ev)
		}
	}
	return out
}

type values struct {
	all   []string
	slots []engine.SlotID
	per   map[engine.SlotID][]string
}

// knownValues gathers, per slot, up to two values the machine would receive
// for it (from the simulated users' model, normalised through the stub NLU),
// and the union of them with Invalid.
func knownValues(s *spec.Suite, m *engine.Machine) values {
	v := values{per: map[engine.SlotID][]string{}}
	stub := sim.NewStub(s.NLU, m)
	mo, err := generate.NewModel(s, m)
	seen := map[string]bool{}
	add := func(slot engine.SlotID, x string) {
		x = stub.Normalize(slot, x)
		for _, y := range v.per[slot] {
			if y == x {
				return
			}
		}
		if len(v.per[slot]) >= 2 {
			return
		}
		v.per[slot] = append(v.per[slot], x)
		if !seen[x] {
			seen[x] = true
			v.all = append(v.all, x)
		}
	}
	if err == nil {
		for slot, xs := range mo.SlotValues() {
			for _, x := range xs {
				add(slot, x)
			}
		}
	}
	for slot := range v.per {
		v.slots = append(v.slots, slot)
	}
	sort.Slice(v.slots, func(i, j int) bool { return v.slots[i] < v.slots[j] })
	sort.Strings(v.all)
	v.all = append(v.all, Invalid)
	return v
}
