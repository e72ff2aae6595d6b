package reports

import (
	"fmt"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// Stale lists the notes in s's machine.yaml that nothing in the run
// reached: no scripted scenario, generated failure or exploration finding
// matched them; nothing for a partial run. Each line is "file:line:col: invariant: kind where".
func Stale(s *Suite) []string {
	if s.Partial {
		return nil
	}
	reached := map[string]bool{}
	for _, r := range s.Scenarios {
		for _, p := range r.Reached {
			reached[p.String()] = true
		}
	}
	for _, f := range s.Failures {
		reached[f.NoteAt] = true
	}
	for _, e := range s.Explored {
		for _, f := range e.Findings {
			reached[f.NoteAt] = true
		}
	}
	var out []string
	for _, n := range eval.NewKnown(s.Machine).Notes() {
		if !reached[n.Pos.String()] {
			out = append(out, fmt.Sprintf("%s: %s: %s %s", n.Pos, n.Invariant, n.Kind, describeNote(s, &n)))
		}
	}
	return out
}

// describeNote names the finding a note excuses: "a -> b", or "in s" (and
// "slot x").
func describeNote(s *Suite, n *eval.Note) string {
	m := s.Machine
	if n.From != engine.NoID {
		return m.StateName(n.From) + " -> " + m.StateName(n.To)
	}
	w := "in " + m.StateName(n.State)
	if n.Slot != engine.NoID {
		w = "slot " + m.SlotName(n.Slot) + " " + w
	}
	return w
}
