package spec

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/simctl/simctl/engine"
)

// A note's scope: the states it names (their descendants only with
// descendants: true) and the variants it names. A note without variants:
// holds in every variant only when no variant changes the states it
// names: when a parameter whose value differs between variants is read by
// a guard or an action of a transition out of them (or out of an
// ancestor, or a descendant for descendants: true), the note must say
// which variants it holds in, or the loader refuses it. hfsm's
// skip-validation move tool -> answer is the example: a note on it without
// variants would hide the same move in the variants where validation runs.

// checkNoteScopes checks the variants: of every note of def against the
// suite's variants (built, by name) and refuses a note without variants:
// whose states a variant changes.
func checkNoteScopes(def *engine.Definition, variants []*Variant, declared bool) error {
	differ := differingParams(def, variants)
	return eachNote(def, func(n *engine.NoteDef) error {
		for _, v := range n.Variants {
			if !declared {
				return &Error{Pos: v.Pos, Msg: fmt.Sprintf("variants: the suite declares no variants (unknown variant %q)", v.Name)}
			}
			if !slices.ContainsFunc(variants, func(x *Variant) bool { return x.Name == v.Name }) {
				return &Error{Pos: v.Pos, Msg: fmt.Sprintf("variants: unknown variant %q (the suite has: %s)", v.Name, variantNames(variants))}
			}
		}
		if len(n.Variants) > 0 || len(differ) == 0 {
			return nil
		}
		m := variants[0].Machine
		for _, name := range []string{n.From.Name, n.To.Name, n.State.Name} {
			if name == "" {
				continue
			}
			id, ok := m.StateID(name)
			if !ok {
				continue // the build reports it
			}
			if p := paramAt(def, m.StateName(id), n.Descendants, differ); p != "" {
				return &Error{Pos: n.Pos, Msg: fmt.Sprintf("the variants differ at %s (parameter %s): say which variants the note holds in (variants: [...])", name, p)}
			}
		}
		return nil
	})
}

// eachNote calls f on every note of def's invariants and built-ins.
func eachNote(def *engine.Definition, f func(*engine.NoteDef) error) error {
	for i := range def.Invariants {
		for j := range def.Invariants[i].Notes {
			if err := f(&def.Invariants[i].Notes[j]); err != nil {
				return err
			}
		}
	}
	for i := range def.BuiltinNotes {
		for j := range def.BuiltinNotes[i].Notes {
			if err := f(&def.BuiltinNotes[i].Notes[j]); err != nil {
				return err
			}
		}
	}
	return nil
}

// notesOf returns a copy of def whose invariants keep only the notes that
// hold in variant v.
func notesOf(def *engine.Definition, v string) *engine.Definition {
	keep := func(l []engine.NoteDef) []engine.NoteDef {
		var out []engine.NoteDef
		for _, n := range l {
			if len(n.Variants) == 0 || slices.ContainsFunc(n.Variants, func(x engine.NameDef) bool { return x.Name == v }) {
				out = append(out, n)
			}
		}
		return out
	}
	c := *def
	c.Invariants = slices.Clone(def.Invariants)
	for i := range c.Invariants {
		c.Invariants[i].Notes = keep(c.Invariants[i].Notes)
	}
	c.BuiltinNotes = nil
	for _, b := range def.BuiltinNotes {
		if l := keep(b.Notes); len(l) > 0 {
			b.Notes = l
			c.BuiltinNotes = append(c.BuiltinNotes, b)
		}
	}
	return &c
}

// differingParams returns the parameters whose value is not the same in
// every variant, sorted.
func differingParams(def *engine.Definition, variants []*Variant) []string {
	if len(variants) < 2 {
		return nil
	}
	var out []string
	for _, pd := range def.Params {
		p := pd.Name
		first, _ := variants[0].Machine.Param(p)
		for _, v := range variants[1:] {
			if val, _ := v.Machine.Param(p); val != first {
				out = append(out, p)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// paramAt returns the first of params read by a guard or an action of a
// transition out of the state at path (or out of its ancestors, or with
// below, its descendants), or "".
func paramAt(def *engine.Definition, path string, below bool, params []string) string {
	reads := func(src string) string {
		for _, p := range params {
			if regexp.MustCompile(`\b` + regexp.QuoteMeta(p) + `\b`).MatchString(src) {
				return p
			}
		}
		return ""
	}
	for _, s := range def.States {
		full := s.Name
		if s.Parent != "" {
			full = s.Parent + "." + s.Name
		}
		ancestor := full == path || strings.HasPrefix(path, full+".")
		if !ancestor && !(below && strings.HasPrefix(full, path+".")) {
			continue
		}
		ts := append(append([]engine.TransitionDef(nil), s.On...), s.Always...)
		if s.Timeout != nil {
			ts = append(ts, s.Timeout.Then...)
		}
		for _, t := range ts {
			if p := reads(t.Guard.Src); p != "" {
				return p
			}
			for _, a := range t.Actions {
				if p := reads(a.Expr.Src); p != "" {
					return p
				}
			}
		}
	}
	return ""
}

func variantNames(variants []*Variant) string {
	names := make([]string, len(variants))
	for i, v := range variants {
		names[i] = v.Name
	}
	return strings.Join(names, ", ")
}
