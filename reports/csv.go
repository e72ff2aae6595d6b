package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/gocarina/gocsv"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/sim"
)

// ScenarioRow is one line of scenarios.csv. The column order is the field
// order; docs/reports.md documents each column.
type ScenarioRow struct {
	Suite           string `csv:"suite"`
	Variant         string `csv:"variant"`
	Scenario        string `csv:"scenario"`
	File            string `csv:"file"`
	Status          string `csv:"status"`
	Tags            string `csv:"tags"` // space separated
	Turns           int    `csv:"turns"`
	Transitions     int    `csv:"transitions"`
	NLUCalls        int    `csv:"nlu_calls"`
	NLUSkipped      int    `csv:"nlu_skipped"`
	FinalState      string `csv:"final_state"`
	Failures        int    `csv:"failures"`
	Violations      int    `csv:"violations"`
	KnownViolations string `csv:"known_violations"` // space separated invariant names
	FirstProblem    string `csv:"first_problem"`
}

// TransitionRow is one line of transitions.csv: a transition of a suite's
// machine and how often the suite's scenarios took it.
type TransitionRow struct {
	Suite      string `csv:"suite"`
	Transition int    `csv:"transition"` // the engine's transition id
	From       string `csv:"from"`
	To         string `csv:"to"` // empty for a targetless (internal) transition
	Trigger    string `csv:"trigger"`
	Guard      string `csv:"guard"`
	Spec       string `csv:"spec"` // file:line:col of the transition in machine.yaml
	Count      int64  `csv:"count"`
	GuardTrue  int64  `csv:"guard_true"`
	GuardFalse int64  `csv:"guard_false"`
}

// WriteScenariosCSV writes scenarios.csv for run: a header, then one row
// per scenario, by suite name and then in scenario file order.
func WriteScenariosCSV(w io.Writer, run *Run) error {
	suites, err := ordered(run)
	if err != nil {
		return err
	}
	return marshalCSV(w, scenarioRows(suites))
}

// WriteTransitionsCSV writes transitions.csv for run: a header, then one
// row per transition of each suite's machine, by suite name and then by
// transition id.
func WriteTransitionsCSV(w io.Writer, run *Run) error {
	suites, err := ordered(run)
	if err != nil {
		return err
	}
	return marshalCSV(w, transitionRows(suites))
}

// marshalCSV writes rows as CSV, one line per record: line-based tools
// (wc -l, grep, head) count records right.
func marshalCSV(w io.Writer, rows any) error {
	if err := gocsv.MarshalCSV(rows, oneLineWriter{csv.NewWriter(w)}); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}

// oneLineWriter writes each record on one line: a cell's trailing line
// breaks are dropped and those inside it (a bot's lines, a multi-line
// guard or note) become " | ". docs/reports.md says so.
type oneLineWriter struct{ *csv.Writer }

var lineBreaks = strings.NewReplacer("\r\n", " | ", "\n", " | ", "\r", " | ")

func (o oneLineWriter) Write(row []string) error {
	for i, cell := range row {
		if strings.ContainsAny(cell, "\r\n") {
			row[i] = lineBreaks.Replace(strings.TrimRight(cell, "\r\n"))
		}
	}
	return o.Writer.Write(row)
}

func scenarioRows(suites []*Suite) []ScenarioRow {
	var rows []ScenarioRow
	for _, s := range suites {
		for _, r := range s.Scenarios {
			rows = append(rows, ScenarioRow{
				Suite:           s.Name,
				Variant:         r.Variant,
				Scenario:        r.Scenario,
				File:            r.File,
				Status:          string(r.Status),
				Tags:            strings.Join(r.Tags, " "),
				Turns:           r.Turns,
				Transitions:     r.Transitions,
				NLUCalls:        r.NLUCalls,
				NLUSkipped:      r.NLUSkipped,
				FinalState:      r.FinalState,
				Failures:        len(r.Failures),
				Violations:      max(r.ViolationCount, len(r.Violations)),
				KnownViolations: strings.Join(r.Known, " "),
				FirstProblem:    firstProblem(r),
			})
		}
	}
	// gocsv needs a slice, not nil, to know the columns of an empty file.
	if rows == nil {
		rows = []ScenarioRow{}
	}
	return rows
}

func transitionRows(suites []*Suite) []TransitionRow {
	rows := []TransitionRow{}
	for _, s := range suites {
		m, cov := s.shape(), played(s)
		for i := range m.NumTransitions() {
			t := m.Transition(engine.TransID(i))
			rows = append(rows, TransitionRow{
				Suite:      s.Name,
				Transition: i,
				From:       m.StateName(t.Source),
				To:         target(m, t),
				Trigger:    t.Trigger,
				Guard:      t.Guard,
				Spec:       t.Pos.String(),
				Count:      cov.Trans[i],
				GuardTrue:  cov.GuardTrue[i],
				GuardFalse: cov.GuardFalse[i],
			})
		}
	}
	return rows
}

// target names a transition's target state, or "" when it has none.
func target(m Shape, t engine.TransitionInfo) string {
	if t.Internal || t.Target == engine.NoID {
		return ""
	}
	return m.StateName(t.Target)
}

// firstProblem is the one line that best says why a scenario did not
// simply pass: its first failed expectation, else its first violation of
// an invariant it does not list as known, else its runtime error, else its
// first known violation. It is empty for a clean pass.
func firstProblem(r *sim.ScenarioResult) string {
	if len(r.Failures) > 0 {
		return r.Failures[0].String()
	}
	for i, v := range r.Violations {
		if noteOf(r, i) == "" {
			return v.String()
		}
	}
	if r.Error != "" {
		return r.Error
	}
	if len(r.Violations) > 0 {
		return r.Violations[0].String()
	}
	return ""
}

// isKnown reports whether invariant broke in the scenario only in
// findings a note names.
func isKnown(r *sim.ScenarioResult, invariant string) bool {
	broke := false
	for i, v := range r.Violations {
		if v.Invariant == invariant {
			if noteOf(r, i) == "" {
				return false
			}
			broke = true
		}
	}
	return broke
}

// noteOf is the note that makes the scenario's i-th violation known, or "".
func noteOf(r *sim.ScenarioResult, i int) string {
	if i < len(r.Notes) {
		return r.Notes[i]
	}
	return ""
}

// numberRe matches a plain decimal number, which a spreadsheet reads as a
// number and never as a formula.
var numberRe = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

// NeutraliseCell keeps a spreadsheet from taking a CSV cell for a formula
// (CSV injection): a scenario name, an utterance or a message written by
// whoever wrote the suite, such as =HYPERLINK(...) or @SUM(A1:A2), would
// otherwise run when the report is opened in Excel, LibreOffice or Google
// Sheets. As OWASP recommends, a cell that begins with =, +, -, @, a tab or
// a carriage return gets a leading single quote, which those programs
// show as text and hide; plain numbers (-2, +1.5) are left as they are, so
// they stay numbers. A cell that already begins with a quote gets another,
// so that the change can be undone exactly (UnneutraliseCell) and the
// spreadsheet still shows the cell as written.
func NeutraliseCell(cell string) string {
	if cell == "" {
		return cell
	}
	switch cell[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if numberRe.MatchString(cell) {
			return cell
		}
		return "'" + cell
	case '\'':
		return "'" + cell
	}
	return cell
}

// UnneutraliseCell undoes NeutraliseCell, for simctl's own readers of its
// CSV reports.
func UnneutraliseCell(cell string) string {
	return strings.TrimPrefix(cell, "'")
}
