// Package eval holds the observers that judge conversations as they run:
// the invariant Checker and the Coverage counters. Each implements
// sim.Observer and sees every engine step, streaming; none keeps a whole
// trace.
package eval

import (
	"fmt"

	"github.com/simctl/simctl/engine"
)

// Violation is one broken invariant: which one, where in the conversation,
// on which transition, and the configuration before and after the step.
type Violation struct {
	Invariant string
	Pos       engine.Pos // where the invariant is declared
	Turn      int
	Trans     engine.TransID // engine.NoID when not tied to one transition
	From, To  string
	Msg       string
	Before    string
	After     string
}

func (v Violation) String() string {
	return fmt.Sprintf("invariant %s broken at turn %d: %s", v.Invariant, v.Turn, v.Msg)
}

// maxViolations caps what one conversation records; the count goes on.
const maxViolations = 32

// Checker checks a machine's declared invariants on every step of one
// conversation at a time. Reset it between conversations.
type Checker struct {
	m    *engine.Machine
	invs []engine.Invariant
	// last holds, per allowed-transition invariant, the last state the
	// table saw (transparent states are skipped).
	last       []engine.StateID
	Violations []Violation
	Count      int
}

// NewChecker returns a checker for m's invariants.
func NewChecker(m *engine.Machine) *Checker {
	k := &Checker{m: m, invs: m.Invariants()}
	k.last = make([]engine.StateID, len(k.invs))
	k.Reset()
	return k
}

// Reset starts a new conversation.
func (k *Checker) Reset() {
	for i := range k.last {
		k.last[i] = engine.NoID
	}
	k.Violations = k.Violations[:0]
	k.Count = 0
}

// Observe implements sim.Observer.
func (k *Checker) Observe(turn int, before, after *engine.Config, r *engine.Result) {
	for i := range k.invs {
		inv := &k.invs[i]
		if inv.Kind != engine.InvAllowed {
			if !k.m.Holds(inv, after) {
				k.report(turn, inv, engine.NoID, "", "", "", before, after)
			}
			continue
		}
		for _, s := range r.Steps {
			if s.Trans != engine.NoID && k.m.IsInternal(s.Trans) {
				continue
			}
			if inv.Transparent(s.To) {
				continue
			}
			from := k.last[i]
			k.last[i] = s.To
			if from == engine.NoID || inv.Allows(from, s.To) {
				continue
			}
			k.report(turn, inv, s.Trans, k.m.StateName(from), k.m.StateName(s.To),
				fmt.Sprintf("transition %s → %s is not in the allowed-transition table", k.m.StateName(from), k.m.StateName(s.To)),
				before, after)
		}
	}
}

func (k *Checker) report(turn int, inv *engine.Invariant, t engine.TransID, from, to, msg string, before, after *engine.Config) {
	k.Count++
	if len(k.Violations) >= maxViolations {
		return
	}
	if msg == "" {
		what := "no longer holds"
		if inv.Kind == engine.InvNever {
			what = "became true"
		}
		msg = fmt.Sprintf("%s expression %s", kindWord(inv.Kind), what)
	}
	k.Violations = append(k.Violations, Violation{Invariant: inv.Name, Pos: inv.Pos, Turn: turn, Trans: t,
		From: from, To: to, Msg: msg, Before: k.m.Describe(before), After: k.m.Describe(after)})
}

func kindWord(k engine.InvariantKind) string {
	if k == engine.InvNever {
		return "never"
	}
	return "always"
}
