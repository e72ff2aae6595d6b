package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
)

// CiteTolerance is how many lines a citation's quote may sit before or
// after the line it names: seed documents get edited, and a quote that
// moved a line or two is still the seed's text.
const CiteTolerance = 3

// Citations checks every seed citation of the suite's notes (machine.yaml's
// and the scenarios' own) against the documents its sources: list: a
// contradiction's quote must appear, whitespace-normalised, at the cited
// document and line (within CiteTolerance lines); a modelling choice that
// names a seed line must name one that exists. It returns one error per
// bad citation, in file order. A note whose citation fails excuses nothing
// it can be trusted with, so lint exits 2 and run fails on it.
func (s *Suite) Citations() []*Error {
	var out []*Error
	docs := map[string][]string{} // document name -> lines (nil: not found)
	check := func(n engine.NoteDef) {
		if n.Seed == "" {
			return
		}
		if e := s.cite(n, docs); e != nil {
			out = append(out, e)
		}
	}
	for _, inv := range s.Def.Invariants {
		for _, n := range inv.Notes {
			check(n)
		}
	}
	for _, b := range s.Def.BuiltinNotes {
		for _, n := range b.Notes {
			check(n)
		}
	}
	for _, sc := range s.Scenarios {
		for _, k := range sc.KnownViolations {
			for _, n := range k.Notes {
				check(n)
			}
		}
	}
	return out
}

// cite checks one note's citation; docs caches the documents read.
func (s *Suite) cite(n engine.NoteDef, docs map[string][]string) *Error {
	doc, ref, _ := strings.Cut(n.Seed, ":")
	a, b, _ := strings.Cut(ref, "-")
	first, _ := strconv.Atoi(a)
	last := first
	if b != "" {
		last, _ = strconv.Atoi(b)
	}
	if len(s.Sources) == 0 {
		if n.Kind != engine.Contradiction {
			return nil
		}
		return &Error{Pos: n.Pos, Msg: fmt.Sprintf("seed %s: a contradiction's quote is checked against the seed documents, and machine.yaml names none (sources: the folders or files holding them, relative to the suite folder)", n.Seed)}
	}
	lines, seen := docs[doc]
	if !seen {
		lines = s.readSource(doc)
		docs[doc] = lines
	}
	if lines == nil {
		return &Error{Pos: n.Pos, Msg: fmt.Sprintf("seed %s: no document %s in the suite's sources (%s)", n.Seed, doc, strings.Join(s.Sources, ", "))}
	}
	if last < first || last > len(lines) {
		return &Error{Pos: n.Pos, Msg: fmt.Sprintf("seed %s: %s has %d lines", n.Seed, doc, len(lines))}
	}
	if n.Kind != engine.Contradiction {
		return nil
	}
	from, to := max(first-CiteTolerance, 1), min(last+CiteTolerance, len(lines))
	text := normalise(strings.Join(lines[from-1:to], " "))
	if !strings.Contains(text, normalise(n.Quote)) {
		return &Error{Pos: n.Pos, Msg: fmt.Sprintf("seed %s: the quote is not in %s at lines %d-%d (whitespace aside): %s", n.Seed, doc, from, to, Quote(n.Quote))}
	}
	return nil
}

// readSource returns the lines of document doc from the first source that
// holds it (a folder holding doc, or a file named doc), or nil.
func (s *Suite) readSource(doc string) []string {
	if doc != filepath.Base(doc) {
		return nil
	}
	for _, src := range s.Sources {
		p := src
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.SourceDir, src)
		}
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if st.IsDir() {
			p = filepath.Join(p, doc)
		} else if filepath.Base(p) != doc {
			continue
		}
		data, err := ReadFile(p, "seed document", MaxFileSize)
		if err != nil {
			continue
		}
		return strings.Split(string(data), "\n")
	}
	return nil
}

// normalise collapses every run of white space to one space.
func normalise(s string) string { return strings.Join(strings.Fields(s), " ") }
