package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// InvariantsCSV is the invariants report's file name.
const InvariantsCSV = "invariants.csv"

// Invariant kinds, as invariants.csv names them.
const (
	InvBuiltin = "builtin"
	InvAllowed = "allowed"
	InvAlways  = "always"
	InvNever   = "never"
	InvWithin  = "within"
)

// Invariant verdicts.
const (
	InvHolds  = "holds"  // nothing broke it
	InvKnown  = "known"  // only findings its notes name broke it
	InvBroken = "broken" // something broke it unexpectedly
)

// InvariantRow is one line of invariants.csv: one invariant of one suite
// and variant, and what broke it.
type InvariantRow struct {
	Suite      string `csv:"suite"`
	Variant    string `csv:"variant"`
	Invariant  string `csv:"invariant"`
	Kind       string `csv:"kind"`        // builtin, allowed, always, never or within
	DeclaredAt string `csv:"declared_at"` // file:line:col in machine.yaml; empty for a built-in
	// Violations is Scenarios + Generated + Explored.
	Violations int `csv:"violations"`
	// Scenarios counts the scripted scenarios that broke it, Generated the
	// shrunk generated conversations that did (one at most), Explored the
	// exploration's findings of it (one at most).
	Scenarios int    `csv:"scenarios"`
	Generated int    `csv:"generated"`
	Explored  int    `csv:"explored"`
	Status    string `csv:"status"` // holds, known or broken
	// Notes counts the invariant's notes in machine.yaml by kind:
	// "contradiction 2, modelling_choice 1" (empty: none).
	Notes string `csv:"notes"`
}

// invariantInfo is what the reports say about an invariant.
type invariantInfo struct {
	Name, Kind, Notes string
	Pos               engine.Pos
}

// invariantList returns the built-in invariants, then the machine's in
// declaration order, then any other name that was reported broken (the
// explorer's livelock and stuck), in the order first seen.
func invariantList(s *Suite) []invariantInfo {
	var out []invariantInfo
	seen := map[string]bool{}
	builtins, declared := eval.BuiltinInvariants, s.Machine.Invariants()
	for _, name := range builtins {
		out = append(out, invariantInfo{Name: name, Kind: InvBuiltin})
		seen[name] = true
	}
	for _, inv := range declared {
		if !seen[inv.Name] {
			out = append(out, invariantInfo{Name: inv.Name, Kind: invKind(inv.Kind), Notes: noteKinds(inv.Notes), Pos: inv.Pos})
			seen[inv.Name] = true
		}
	}
	extra := func(name string) {
		if !seen[name] {
			out = append(out, invariantInfo{Name: name, Kind: InvBuiltin})
			seen[name] = true
		}
	}
	for _, r := range s.Scenarios {
		for _, v := range r.Violations {
			extra(v.Invariant)
		}
	}
	for _, f := range s.Failures {
		extra(f.Invariant)
	}
	for _, e := range s.Explored {
		for _, f := range e.Findings {
			extra(f.Kind)
		}
	}
	return out
}

// noteKinds counts notes by kind: "contradiction 2, modelling_choice 1".
func noteKinds(notes []engine.Note) string {
	var n [3]int
	for _, x := range notes {
		n[x.Kind]++
	}
	var parts []string
	for _, k := range []engine.NoteKind{engine.Contradiction, engine.ModellingChoice} {
		if n[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, n[k]))
		}
	}
	return strings.Join(parts, ", ")
}

func invKind(k engine.InvariantKind) string {
	switch k {
	case engine.InvAllowed:
		return InvAllowed
	case engine.InvAlways:
		return InvAlways
	case engine.InvNever:
		return InvNever
	case engine.InvWithin:
		return InvWithin
	}
	return InvBuiltin
}

// variants returns the suite's variant names: as the suite lists them, or
// else in the order its results first name them; "default" when nothing
// does.
func variants(s *Suite) []string {
	if len(s.Variants) > 0 {
		return s.Variants
	}
	var out []string
	see := func(v string) {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, r := range s.Scenarios {
		see(r.Variant)
	}
	for _, g := range s.Generated {
		see(g.Variant)
	}
	for _, e := range s.Explored {
		see(e.Variant)
	}
	if len(out) == 0 {
		out = []string{"default"}
	}
	return out
}

// invariantRow counts what broke invariant inv in one variant of s.
func invariantRow(s *Suite, variant string, inv invariantInfo) InvariantRow {
	row := InvariantRow{Suite: s.Name, Variant: variant, Invariant: inv.Name, Kind: inv.Kind,
		Notes: inv.Notes}
	if inv.Pos != (engine.Pos{}) {
		row.DeclaredAt = inv.Pos.String()
	}
	unknown := 0
	for _, r := range s.Scenarios {
		if r.Variant != variant || !slices.ContainsFunc(r.Violations, func(v eval.Violation) bool { return v.Invariant == inv.Name }) {
			continue
		}
		row.Scenarios++
		if !isKnown(r, inv.Name) {
			unknown++
		}
	}
	for _, f := range s.Failures {
		if f.Variant == variant && f.Invariant == inv.Name {
			row.Generated++
			if f.Known == "" {
				unknown++
			}
		}
	}
	for _, e := range s.Explored {
		if e.Variant != variant {
			continue
		}
		for _, f := range e.Findings {
			if f.Kind == inv.Name {
				row.Explored++
				if f.Known == "" {
					unknown++
				}
			}
		}
	}
	row.Violations = row.Scenarios + row.Generated + row.Explored
	switch {
	case unknown > 0:
		row.Status = InvBroken
	case row.Violations > 0:
		row.Status = InvKnown
	default:
		row.Status = InvHolds
	}
	return row
}

func invariantRows(s *Suite) []InvariantRow {
	var rows []InvariantRow
	invs := invariantList(s)
	for _, v := range variants(s) {
		for _, inv := range invs {
			rows = append(rows, invariantRow(s, v, inv))
		}
	}
	return rows
}

// WriteInvariantsCSV writes invariants.csv for run: a header, then by suite
// name and variant every invariant: the built-in ones, then the machine's
// in declaration order.
func WriteInvariantsCSV(w io.Writer, run *Run) error {
	suites, err := ordered(run)
	if err != nil {
		return err
	}
	rows := []InvariantRow{}
	for _, s := range suites {
		rows = append(rows, invariantRows(s)...)
	}
	return marshalCSV(w, rows)
}
