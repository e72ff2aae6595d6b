package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// lintCmd prints every problem of each suite's machine.yaml (errors and
// warnings, one per line, file:line:col first), then the first problem of
// its nlu.yaml, cassette and users.yaml, and the problem of every
// scenario file, then the notes of known findings that are stale. Exit
// status 2 when any is an error.
func lintCmd(args []string, w io.Writer) (int, error) {
	fs := newFlags("lint")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if fs.NArg() == 0 {
		return 0, &usageError{"no suite given (simctl lint scenarios/)"}
	}
	dirs, err := spec.Discover(fs.Args())
	if err != nil {
		return 0, err
	}
	nerr, nwarn := 0, 0
	for _, dir := range dirs {
		if spec.IsChartSuite(dir) {
			// machine.scxml: its problems are those of loading it, the
			// first error or every warning.
			s, err := spec.Load(dir)
			if err != nil {
				nerr += printLoadErrors(w, dir, err)
				continue
			}
			for _, d := range s.Warnings {
				nwarn++
				fmt.Fprintf(w, "%s: warning: %s\n", d.Pos, d.Msg)
			}
			continue
		}
		mpath := filepath.Join(dir, spec.MachineFile)
		data, err := spec.ReadFile(mpath, "machine file", spec.MaxFileSize)
		if err != nil {
			return 0, err
		}
		bad := false
		for _, d := range spec.Diagnostics(mpath, data) {
			if d.Warning {
				nwarn++
				fmt.Fprintf(w, "%s: warning: %s\n", d.Pos, d.Msg)
			} else {
				nerr++
				bad = true
				fmt.Fprintf(w, "%s: error: %s\n", d.Pos, d.Msg)
			}
		}
		if bad {
			continue
		}
		s, err := spec.Load(dir)
		if err != nil {
			nerr += printLoadErrors(w, dir, err)
			continue
		}
		for _, e := range s.Citations() {
			nerr++
			fmt.Fprintf(w, "%s: error: %s\n", e.Pos, e.Msg)
		}
		stale, err := staleNotes(s)
		if err != nil {
			return 0, err
		}
		for _, l := range stale {
			nwarn++
			fmt.Fprintf(w, "%s\n", l)
		}
	}
	fmt.Fprintf(w, "lint: %s, %s, %s\n", count(len(dirs), "suite", "suites"), count(nerr, "error", "errors"), count(nwarn, "warning", "warnings"))
	if nerr > 0 {
		return ExitBadInput, nil
	}
	return ExitOK, nil
}

// printLoadErrors prints the error of loading a suite, one line per bad
// file (Load and LoadChartSuite join the errors of every bad scenario
// file), and returns how many it printed.
func printLoadErrors(w io.Writer, dir string, err error) int {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, err := range errs {
		var se *spec.Error
		if errors.As(err, &se) {
			fmt.Fprintf(w, "%s: error: %s\n", se.Pos, se.Msg)
		} else {
			fmt.Fprintf(w, "%s: error: %s\n", dir, oneLine(err.Error()))
		}
	}
	return len(errs)
}

// staleNotes returns a warning for each note of s's machine.yaml that
// excuses nothing: a move its table allows, or a finding that neither the
// scripted scenarios nor the exploration simctl run makes (to the suite's
// explore_depth, within its configuration cap) reach.
func staleNotes(s *spec.Suite) ([]string, error) {
	var out []string
	for _, inv := range s.Machine.Invariants() {
		if inv.Kind != engine.InvAllowed {
			continue
		}
		for _, n := range inv.Notes {
			if inv.Allows(n.From, n.To) {
				out = append(out, fmt.Sprintf("%s: warning: invariant %s: the table allows %s -> %s: the note excuses nothing", n.Pos, inv.Name, s.Machine.StateName(n.From), s.Machine.StateName(n.To)))
			}
		}
	}
	rs := &reports.Suite{Name: s.Name, Dir: s.Dir, Machine: s.Machine}
	for _, sc := range s.Scenarios {
		for _, v := range s.VariantsFor(sc) {
			r := sim.RunScenario(s, sc, sim.Options{Variant: v})
			rs.Scenarios = append(rs.Scenarios, r)
			for _, l := range r.Stale {
				out = append(out, strings.Replace(l, ": ", ": warning: stale note: ", 1))
			}
		}
	}
	limit := s.ExploreMaxStates
	if limit <= 0 {
		limit = runMaxStates
	}
	if s.ExploreDepth > 0 {
		for _, v := range s.Variants {
			res, err := explore.Explore(s, v, explore.Options{Depth: s.ExploreDepth, MaxStates: limit})
			if err != nil {
				return nil, err
			}
			var e reports.Exploration
			for _, f := range res.Findings {
				if f.Known != "" {
					e.Findings = append(e.Findings, reports.ExploreFinding{Kind: f.Kind, NoteAt: f.Note.String()})
				}
			}
			rs.Explored = append(rs.Explored, e)
		}
	}
	for _, l := range reports.Stale(rs) {
		out = append(out, strings.Replace(l, ": ", ": warning: stale note: ", 1)+": no scenario or exploration reaches it")
	}
	return out, nil
}
