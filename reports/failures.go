package reports

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/sim"
)

// FailuresCSV is the failures report's file name.
const FailuresCSV = "failures.csv"

// FailureRow is one line of failures.csv: one problem found by a scripted
// scenario (a failed expectation or an invariant violation), by generated
// conversations (a shrunk failure) or by an exploration (a finding).
type FailureRow struct {
	Suite   string `csv:"suite"`
	Variant string `csv:"variant"`
	Source  string `csv:"source"` // scripted, generated or explored
	// Scenario and File name the scenario (a generated failure's scenario
	// file is relative to the output folder); for an exploration, the
	// exploration and the suite folder.
	Scenario string `csv:"scenario"`
	File     string `csv:"file"`
	// At is where the failed expectation is written, or where the broken
	// invariant is declared (empty for a built-in): file:line:col.
	At string `csv:"at"`
	// Turn is the turn it happened at; for an exploration, the length of
	// the shortest path to it, in events.
	Turn      int    `csv:"turn"`
	What      string `csv:"what"` // what was expected (state, bot said, ...) or "invariant"
	Got       string `csv:"got"`
	Want      string `csv:"want"`
	Invariant string `csv:"invariant"`
	Message   string `csv:"message"`
	// Known is why the problem does not fail the run, when it does not: the
	// note that names the finding, with its kind (contradiction or
	// modelling_choice), where it is written and the seed line it rests
	// on. Empty for a failure.
	Known  string `csv:"known"`
	Replay string `csv:"replay"`
}

// WriteFailuresCSV writes failures.csv for run: a header, then by suite
// name the problems of its scripted scenarios (in scenarios.csv order: the
// failed expectations, then the invariant violations), its generated
// failures and its exploration findings.
func WriteFailuresCSV(w io.Writer, run *Run) error {
	suites, err := ordered(run)
	if err != nil {
		return err
	}
	rows := []FailureRow{}
	for _, s := range suites {
		rows = append(rows, failureRows(run, s)...)
	}
	return marshalCSV(w, rows)
}

// replayScenario is the command that replays a scenario file.
func replayScenario(file string) string { return "simctl replay " + shellQuote(file) }

// scenarioReplay is the command that plays a scripted scenario's result
// again.
func scenarioReplay(r *sim.ScenarioResult) string {
	if r.Replay != "" {
		return r.Replay
	}
	return replayScenario(r.File)
}

// replayGenerated is the command that replays a generated failure, run
// from the report folder: it names the scenario file inside it, so that
// the reports do not depend on where they were written (the scenario names
// its suite relative to itself).
func replayGenerated(f GenFailure) string {
	return replayScenario(filepath.ToSlash(FailureFile(f.Name)))
}

// replayExplore is the command that finds an exploration's findings again
// and writes the shortest path to each as a scenario.
func replayExplore(s *Suite, e Exploration) string {
	variant := ""
	if e.Variant != "" && (e.Variant != "default" || len(variants(s)) > 1) {
		variant = " --variant " + shellQuote(e.Variant)
	}
	return fmt.Sprintf("simctl explore %s --depth %d%s --emit-scenarios explored", shellQuote(s.Dir), e.Depth, variant)
}

func failureRows(run *Run, s *Suite) []FailureRow {
	var rows []FailureRow
	for _, r := range s.Scenarios {
		if r.Status == sim.Pass {
			continue
		}
		base := FailureRow{Suite: s.Name, Variant: r.Variant, Source: SourceScripted, Scenario: r.Scenario, File: r.File,
			Replay: scenarioReplay(r)}
		for _, f := range r.Failures {
			row := base
			row.At, row.Turn, row.What, row.Got, row.Want = f.Pos.String(), f.Turn, f.What, f.Got, f.Want
			rows = append(rows, row)
		}
		for i, v := range r.Violations {
			row := base
			row.Turn, row.What, row.Invariant, row.Message = v.Turn, "invariant", v.Invariant, v.Msg
			if v.Pos != (engine.Pos{}) {
				row.At = v.Pos.String()
			}
			row.Known = noteOf(r, i)
			rows = append(rows, row)
		}
	}
	for _, f := range s.Failures {
		rows = append(rows, FailureRow{Suite: s.Name, Variant: f.Variant, Source: SourceGenerated, Scenario: f.Name,
			File: filepath.ToSlash(FailureFile(f.Name)), At: posString(f.Violation.Pos), Turn: f.Violation.Turn,
			What: "invariant", Invariant: f.Invariant, Message: f.Violation.Msg, Known: f.Known,
			Replay: replayGenerated(f)})
	}
	declaredAt := map[string]string{}
	for _, inv := range s.Machine.Invariants() {
		declaredAt[inv.Name] = posString(inv.Pos)
	}
	for _, e := range s.Explored {
		for _, f := range e.Findings {
			rows = append(rows, FailureRow{Suite: s.Name, Variant: e.Variant, Source: SourceExplored,
				Scenario: "explore", File: s.Dir, At: declaredAt[f.Kind], Turn: f.Path, What: "invariant", Invariant: f.Kind,
				Message: f.Message, Known: f.Known, Replay: replayExplore(s, e)})
		}
	}
	return rows
}

// posString is p as file:line:col, or "" for no position.
func posString(p engine.Pos) string {
	if p == (engine.Pos{}) {
		return ""
	}
	return p.String()
}
