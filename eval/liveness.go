package eval

import (
	"slices"
	"strings"

	"github.com/simctl/simctl/engine"
)

// LivenessViolation is the finding of a conversation in which a
// cooperative user did not see the task end within its turns: identified
// by the cycle it went round, the distinct states it was in after the
// turns of its second half (sorted), so that each distinct loop is its own
// finding and a replay of the same turns names the same one. states holds
// the main machine's state after each turn; c is the configuration at the
// end.
func LivenessViolation(m *engine.Machine, states []engine.StateID, c *engine.Config, turn int) Violation {
	var names []string
	for _, s := range states[len(states)/2:] {
		if n := m.StateName(s); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return Violation{Invariant: Liveness, Turn: turn, Trans: engine.NoID, State: "{" + strings.Join(names, ", ") + "}",
		Msg:   "a cooperative user did not reach a final or idle state within the turn bound",
		After: m.Describe(c)}
}
