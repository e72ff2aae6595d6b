package sim

import (
	"fmt"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

// Turn kinds, as TurnRecord.Kind gives them.
const (
	TurnUser  = "user"
	TurnWait  = "wait"
	TurnEvent = "event"
)

// TurnRecord is what one turn of a scripted scenario did, kept for reports
// (turns.csv). It is small: a scenario keeps one per turn it played, in
// ScenarioResult.TurnLog.
type TurnRecord struct {
	Turn int
	// Kind is user, wait or event.
	Kind string
	// Input is the utterance of a user turn, the duration of a wait (as
	// written, "1500ms") or the text of an event (empty if it has none).
	Input string
	// Intent is the intent the turn's event carried: the NLU's parse, the
	// direct slot mapping's intent or the injected event's; empty for a
	// wait or an utterance not understood.
	Intent string
	// State is the full path of the state the turn ended in.
	State string
	// Said is what the bot said during the turn, lines joined by "\n".
	Said string
	// NLU is "called", "skipped" (direct slot mapping) or empty for a turn
	// without an utterance.
	NLU string
	// Transitions counts the transitions taken during the turn.
	Transitions int
}

// recordTurn describes the turn the driver just played.
func recordTurn(d *Driver, t *spec.Turn) TurnRecord {
	m := d.M
	r := TurnRecord{Turn: d.Turn, State: m.StateName(d.Cfg.State), Said: string(d.Info.Said), Transitions: d.Info.Steps}
	switch {
	case t.User != nil:
		r.Kind, r.Input, r.NLU = TurnUser, t.User.Value, "called"
		if d.Info.Skipped {
			r.NLU = "skipped"
		}
	case t.Wait != nil:
		r.Kind, r.Input = TurnWait, fmt.Sprintf("%dms", int64(*t.Wait))
	case t.Event != nil:
		r.Kind, r.Input = TurnEvent, t.Event.Text
	}
	if t.Wait == nil && d.Info.Intent != engine.NoID && int(d.Info.Intent) < len(m.Intents()) {
		r.Intent = m.Intents()[d.Info.Intent]
	}
	return r
}
