package eval

import (
	"fmt"

	"github.com/simctl/simctl/engine"
)

// Note is one known finding: a note of an invariant in machine.yaml, or of
// a scenario's known_violations entry.
type Note struct {
	Invariant string
	engine.Note
}

// String names the note for people: its kind, where it is written, and
// the seed text it rests on.
func (n *Note) String() string {
	s := fmt.Sprintf("%s (%s", n.Kind, n.Pos)
	if n.Seed != "" {
		s += ", seed " + n.Seed
	}
	return s + ")"
}

// Known matches violations against the notes that excuse them. Only a
// violation whose finding a note names is known; any other violation of
// the same invariant is not.
type Known struct {
	m     *engine.Machine
	notes map[string][]Note
}

// NewKnown returns the notes of m's invariants.
func NewKnown(m *engine.Machine) *Known {
	k := &Known{m: m, notes: map[string][]Note{}}
	for _, inv := range m.Invariants() {
		k.Add(inv.Name, inv.Notes)
	}
	for _, b := range m.BuiltinNotes() {
		k.Add(b.Name, b.Notes)
	}
	return k
}

// Add adds notes for invariant inv (a scenario's own).
func (k *Known) Add(inv string, notes []engine.Note) {
	for _, n := range notes {
		k.notes[inv] = append(k.notes[inv], Note{Invariant: inv, Note: n})
	}
}

// With returns a copy of k with the notes of a scenario added.
func (k *Known) With(inv string, notes []engine.Note) *Known {
	c := &Known{m: k.m, notes: make(map[string][]Note, len(k.notes)+1)}
	for name, l := range k.notes {
		c.notes[name] = append([]Note(nil), l...)
	}
	c.Add(inv, notes)
	return c
}

// Has reports whether invariant inv has notes.
func (k *Known) Has(inv string) bool { return len(k.notes[inv]) > 0 }

// Notes returns every note, by invariant in the machine's order, then the
// scenario's.
func (k *Known) Notes() []Note {
	var out []Note
	seen := map[string]bool{}
	for _, inv := range k.m.Invariants() {
		out = append(out, k.notes[inv.Name]...)
		seen[inv.Name] = true
	}
	for _, name := range Notable {
		if !seen[name] {
			out = append(out, k.notes[name]...)
		}
	}
	return out
}

// Match returns the note that names v's finding, or nil.
func (k *Known) Match(v *Violation) *Note {
	l := k.notes[v.Invariant]
	if len(l) == 0 {
		return nil
	}
	if v.Move {
		// A move through transparent states is named by the table's view
		// (From -> To) or by an actual step: the one out of From (From ->
		// Via) or the one into To (Src -> To).
		for i := range l {
			for _, m := range [][2]string{{v.From, v.To}, {v.From, v.Via}, {v.Src, v.To}} {
				if m[0] != "" && m[1] != "" && k.m.NoteMatches(&l[i].Note, k.id(m[0]), k.id(m[1]), engine.NoID, engine.NoID) {
					return &l[i]
				}
			}
		}
		return nil
	}
	state, slot := k.id(v.State), engine.SlotID(engine.NoID)
	if v.Slot != "" {
		if id, ok := k.m.SlotID(v.Slot); ok {
			slot = id
		}
	}
	for i := range l {
		if k.m.NoteMatches(&l[i].Note, engine.NoID, engine.NoID, state, slot) {
			return &l[i]
		}
	}
	return nil
}

func (k *Known) id(name string) engine.StateID {
	if id, ok := k.m.StateID(name); ok {
		return id
	}
	return engine.NoID
}
