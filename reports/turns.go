package reports

import (
	"io"
)

// TurnsCSV is the turn-by-turn report's file name.
const TurnsCSV = "turns.csv"

// TurnRow is one line of turns.csv: one turn of one scripted scenario.
type TurnRow struct {
	Suite    string `csv:"suite"`
	Variant  string `csv:"variant"`
	Scenario string `csv:"scenario"`
	File     string `csv:"file"` // the scenario file, as given
	Turn     int    `csv:"turn"`
	Kind     string `csv:"kind"`   // user, wait or event
	Input    string `csv:"input"`  // the utterance, the wait ("1500ms") or the event's text
	Intent   string `csv:"intent"` // empty for a wait or an utterance not understood
	State    string `csv:"state"`  // the state the turn ended in
	BotSaid  string `csv:"bot_said"`
	NLU      string `csv:"nlu"` // called, skipped or empty
	// Transitions counts the transitions taken during the turn.
	Transitions int `csv:"transitions"`
}

// WriteTurnsCSV writes turns.csv for run: a header, then one row per turn
// of each scenario, by suite name, then in scenarios.csv order.
func WriteTurnsCSV(w io.Writer, run *Run) error {
	suites, err := ordered(run)
	if err != nil {
		return err
	}
	rows := []TurnRow{}
	for _, s := range suites {
		for _, r := range s.Scenarios {
			for _, t := range r.TurnLog {
				rows = append(rows, TurnRow{Suite: s.Name, Variant: r.Variant, Scenario: r.Scenario, File: r.File, Turn: t.Turn,
					Kind: t.Kind, Input: t.Input, Intent: t.Intent, State: t.State, BotSaid: t.Said, NLU: t.NLU,
					Transitions: t.Transitions})
			}
		}
	}
	return marshalCSV(w, rows)
}
