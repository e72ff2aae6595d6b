package reports

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/simctl/simctl/eval"
)

// The files WriteAll writes.
const (
	ScenariosCSV   = "scenarios.csv"
	TransitionsCSV = "transitions.csv"
	ReportHTML     = "report.html"
)

// WriteAll writes every report (scenarios.csv, transitions.csv,
// coverage.csv, turns.csv, invariants.csv, failures.csv, junit.xml,
// summary.json, report.html, and with generated conversations generated.csv
// and failures/) into dir, creating dir if needed.
//
// Every report is rendered in memory first, then written to a temporary
// file in dir, and only when all of them are on disk are they renamed into
// place. On any error WriteAll removes its temporary files, the reports it
// already renamed and the folders it created, so a failed call leaves no
// half-written output. (A report of the same name from an earlier call that
// was already replaced is gone too: it would no longer match the others.)
func WriteAll(dir string, run *Run) error {
	outs, err := render(run)
	if err != nil {
		return err
	}
	made, err := mkdirAll(dir)
	if err == nil {
		err = install(dir, outs)
	}
	if err == nil {
		err = removeStale(dir, run, outs)
	}
	if err != nil {
		// Deepest first; os.Remove leaves a folder that is not empty.
		for i := len(made) - 1; i >= 0; i-- {
			os.Remove(made[i])
		}
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}

type output struct {
	name string
	data []byte
}

// render produces the three reports in memory, so that bad input fails
// before anything touches the disk.
func render(run *Run) ([]output, error) {
	writers := []struct {
		name  string
		write func(*bytes.Buffer, *Run) error
	}{
		{ScenariosCSV, func(b *bytes.Buffer, r *Run) error { return WriteScenariosCSV(b, r) }},
		{TransitionsCSV, func(b *bytes.Buffer, r *Run) error { return WriteTransitionsCSV(b, r) }},
		{ReportHTML, func(b *bytes.Buffer, r *Run) error { return WriteHTML(b, r) }},
		{SummaryJSON, func(b *bytes.Buffer, r *Run) error { return WriteSummaryJSON(b, r) }},
		{CoverageCSV, func(b *bytes.Buffer, r *Run) error { return WriteCoverageCSV(b, r) }},
		{TurnsCSV, func(b *bytes.Buffer, r *Run) error { return WriteTurnsCSV(b, r) }},
		{InvariantsCSV, func(b *bytes.Buffer, r *Run) error { return WriteInvariantsCSV(b, r) }},
		{FailuresCSV, func(b *bytes.Buffer, r *Run) error { return WriteFailuresCSV(b, r) }},
		{JUnitXML, func(b *bytes.Buffer, r *Run) error { return WriteJUnitXML(b, r) }},
	}
	if run != nil && run.Generate > 0 {
		writers = append(writers, struct {
			name  string
			write func(*bytes.Buffer, *Run) error
		}{GeneratedCSV, func(b *bytes.Buffer, r *Run) error { return WriteGeneratedCSV(b, r) }})
	}
	if hasLatency(run) {
		writers = append(writers, struct {
			name  string
			write func(*bytes.Buffer, *Run) error
		}{LatencyCSV, func(b *bytes.Buffer, r *Run) error { return WriteLatencyCSV(b, r) }})
	}
	if hasNoise(run) {
		writers = append(writers, struct {
			name  string
			write func(*bytes.Buffer, *Run) error
		}{NoiseCSV, func(b *bytes.Buffer, r *Run) error { return WriteNoiseCSV(b, r) }})
	}
	outs := make([]output, len(writers))
	for i, w := range writers {
		var b bytes.Buffer
		if err := w.write(&b, run); err != nil {
			return nil, err
		}
		data := b.Bytes()
		if strings.HasSuffix(w.name, ".csv") {
			var err error
			if data, err = withSeed(data, run.Seed); err != nil {
				return nil, err
			}
		}
		outs[i] = output{name: w.name, data: data}
	}
	if run != nil {
		for _, s := range run.Suites {
			for _, f := range s.Failures {
				outs = append(outs, output{name: FailureFile(f.Name), data: f.Scenario})
			}
		}
	}
	return outs, nil
}

// removeStale deletes what an earlier run left in the output folder that
// this run replaces: a generated.csv when this run generated nothing, and,
// after a run that generated conversations, failure scenarios it did not
// write (so failures/ holds exactly this run's failures; a run that did not
// generate leaves them, so that replaying one does not delete it).
func removeStale(dir string, run *Run, outs []output) error {
	if err := removeStaleLatency(dir, run); err != nil {
		return err
	}
	if err := removeStaleNoise(dir, run); err != nil {
		return err
	}
	if run.Generate == 0 {
		if err := os.Remove(filepath.Join(dir, GeneratedCSV)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	keep := map[string]bool{}
	for _, o := range outs {
		keep[filepath.Clean(o.name)] = true
	}
	old, _ := filepath.Glob(filepath.Join(dir, FailuresDir, "*.scenario.yaml"))
	for _, f := range old {
		rel, err := filepath.Rel(dir, f)
		if err == nil && !keep[rel] {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// mkdirAll creates dir and its missing parents, and returns the folders it
// created, outermost first, so that a failed WriteAll can remove them.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for p := filepath.Clean(dir); ; {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, p)
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	slices.Reverse(missing)
	return missing, os.MkdirAll(dir, 0o755)
}

// install writes each output to a temporary file in dir, then renames them
// all into place. On error it removes the temporary files and the outputs
// it renamed.
func install(dir string, outs []output) (err error) {
	temps := make([]string, len(outs))
	var placed []string
	defer func() {
		if err == nil {
			return
		}
		for _, t := range temps {
			if t != "" {
				os.Remove(t)
			}
		}
		for _, p := range placed {
			os.Remove(p)
		}
	}()
	for i, o := range outs {
		if temps[i], err = WriteTemp(dir, o.name, o.data); err != nil {
			return err
		}
	}
	for _, o := range outs {
		if sub := filepath.Dir(o.name); sub != "." {
			if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
				return err
			}
		}
	}
	for i, o := range outs {
		dst := filepath.Join(dir, o.name)
		if err := os.Rename(temps[i], dst); err != nil {
			return err
		}
		temps[i] = ""
		placed = append(placed, dst)
	}
	return nil
}

// WriteTemp writes data to a new temporary file in dir, named after name
// and hidden (".name.*.tmp"), synced and readable by all, and returns its
// path; on error no file is left. Renaming it over the real file then
// replaces that file whole: no reader ever sees half of it.
func WriteTemp(dir, name string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		// CreateTemp makes the file private; reports are for sharing.
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// ordered checks that run is complete enough to report on and returns its
// suites sorted by name (stably, so equal names keep the run's order).
func ordered(run *Run) ([]*Suite, error) {
	if run == nil {
		return nil, errors.New("reports: no run")
	}
	for i, s := range run.Suites {
		if err := check(s); err != nil {
			if s != nil {
				return nil, fmt.Errorf("reports: suite %q: %w", s.Name, err)
			}
			return nil, fmt.Errorf("reports: suite %d: %w", i, err)
		}
	}
	suites := slices.Clone(run.Suites)
	slices.SortStableFunc(suites, func(a, b *Suite) int { return cmp.Compare(a.Name, b.Name) })
	return suites, nil
}

func check(s *Suite) error {
	switch {
	case s == nil:
		return errors.New("missing")
	case s.Machine == nil:
		return errors.New("no machine")
	case s.Coverage == nil:
		return errors.New("no coverage")
	}
	m := s.shape()
	nt, ns := m.NumTransitions(), m.NumStates()
	for _, c := range []*eval.Coverage{s.Coverage, s.GeneratedCoverage, s.ExploredCoverage} {
		if c == nil {
			continue // only Coverage is required, and checked above
		}
		if len(c.Trans) != nt || len(c.GuardTrue) != nt || len(c.GuardFalse) != nt || len(c.States) != ns {
			return fmt.Errorf("coverage does not match the machine (%d transitions and %d states, coverage of %d and %d)",
				nt, ns, len(c.Trans), len(c.States))
		}
	}
	for i, r := range s.Scenarios {
		if r == nil {
			return fmt.Errorf("scenario %d missing", i)
		}
	}
	return nil
}

// withSeed puts the run's seed in a first column of a CSV report, so that
// every row says which seeded run it comes from (rows of several runs can
// then be concatenated and told apart), and neutralises every cell a
// spreadsheet would take for a formula (NeutraliseCell). Every CSV report
// passes through here on its way to the disk.
func withSeed(data []byte, seed int64) ([]byte, error) {
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	s := strconv.FormatInt(seed, 10)
	for i, r := range recs {
		first := s
		if i == 0 {
			first = "seed"
		}
		for k := range r {
			r[k] = NeutraliseCell(r[k])
		}
		if err := cw.Write(append([]string{first}, r...)); err != nil {
			return nil, err
		}
	}
	cw.Flush()
	return b.Bytes(), cw.Error()
}
