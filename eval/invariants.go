// Package eval holds the observers that judge conversations as they run:
// the invariant Checker and the Coverage counters. Each sees every engine
// step as a Step, streaming; none keeps a whole trace.
package eval

import (
	"fmt"

	"github.com/simctl/simctl/engine"
)

// Built-in invariants, checked on every step of every machine besides the
// ones its machine.yaml declares. A scenario may list them under
// known_violations like declared ones.
const (
	// RuntimeError: the engine reported an error (a runaway eventless
	// chain, a fill with no waiting slot, ...).
	RuntimeError = "runtime_error"
	// UndefinedState: the machine is in a state it does not have.
	UndefinedState = "undefined_state"
	// CounterLimit: a counter went past its limit.
	CounterLimit = "counter_limit"
	// TimerLaw: a timer fired off its deadline, after a cancel, or twice.
	TimerLaw = "timer_law"
	// SlotOverwrite: a filled slot changed other than by an explicit set or
	// clear naming it, or by a declared correction intent.
	SlotOverwrite = "slot_overwrite"
	// WaitingSlot: the machine rests in a state with direct slot mapping
	// without asking for a slot, or asks for a slot its flow does not have.
	WaitingSlot = "waiting_slot"
	// JoinComplete: a fork joined before every branch finished, or did not
	// deliver every branch's contract exactly once.
	JoinComplete = "join_complete"
	// Liveness: a user who always cooperates did not see the task end
	// within the suite's turn bound (checked on generated conversations).
	Liveness = "liveness"
	// DeadEnd: at the end of a turn the machine rests in a configuration
	// that is not final and that no event can move.
	DeadEnd = "dead_end"
	// UnhandledFailure: an external action failed, and no transition took
	// the failure in a state that waits for the action's success (it has a
	// done: transition for it): the conversation stays where it was.
	UnhandledFailure = "unhandled_failure"
)

// BuiltinInvariants lists the built-in invariants' names.
var BuiltinInvariants = []string{RuntimeError, UndefinedState, CounterLimit, TimerLaw, SlotOverwrite, WaitingSlot, JoinComplete, Liveness, DeadEnd, UnhandledFailure}

// Violation is one broken invariant: which one, where in the conversation,
// on which transition, and the configuration before and after the step.
type Violation struct {
	Invariant string
	Pos       engine.Pos // where the invariant is declared (built-ins: none)
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

// maxViolations caps what one conversation records, one per invariant;
// Count goes on.
const maxViolations = 32

// Checker checks built-in and declared invariants on every step of one
// conversation at a time. Reset it between conversations.
type Checker struct {
	m    *engine.Machine
	invs []engine.Invariant
	// last holds, per allowed-transition invariant, the last state the
	// table saw (transparent states are skipped).
	last []engine.StateID
	// due holds, per within invariant, the last turn by which its goal must
	// hold, or -1 when it is not armed.
	due        []int
	Violations []Violation
	Count      int
}

// NewChecker returns a checker for m's invariants.
func NewChecker(m *engine.Machine) *Checker {
	k := &Checker{m: m, invs: m.Invariants()}
	k.last = make([]engine.StateID, len(k.invs))
	k.due = make([]int, len(k.invs))
	k.Reset()
	return k
}

// PathState is the part of a checker that depends on the path taken so far
// (the last state each allowed-transition table saw, the bound of each armed
// within invariant): an explorer saves it with each configuration.
type PathState struct {
	Last []engine.StateID
	Due  []int
}

// Save returns a copy of the checker's path state.
func (k *Checker) Save() PathState {
	return PathState{Last: append([]engine.StateID(nil), k.last...), Due: append([]int(nil), k.due...)}
}

// SaveInto copies the checker's path state into p's arrays (grown as
// needed) and returns it: an explorer saving the state after every step
// reuses its arrays instead of allocating.
func (k *Checker) SaveInto(p PathState) PathState {
	return PathState{Last: append(p.Last[:0], k.last...), Due: append(p.Due[:0], k.due...)}
}

// Restore sets the checker's path state and clears its violations.
func (k *Checker) Restore(p PathState) {
	copy(k.last, p.Last)
	copy(k.due, p.Due)
	k.Violations = k.Violations[:0]
	k.Count = 0
}

// Reset starts a new conversation.
func (k *Checker) Reset() {
	for i := range k.last {
		k.last[i] = engine.NoID
		k.due[i] = -1
	}
	k.Violations = k.Violations[:0]
	k.Count = 0
}

// Observe implements sim.Observer.
func (k *Checker) Observe(st *Step) {
	k.builtins(st)
	for i := range k.invs {
		inv := &k.invs[i]
		if inv.Kind == engine.InvWithin {
			k.within(st, i, inv)
			continue
		}
		if inv.Kind != engine.InvAllowed {
			if !k.m.Holds(inv, before(st), st.After) {
				what := "no longer holds"
				if inv.Kind == engine.InvNever {
					what = "became true"
				}
				if k.fresh(inv.Name) {
					k.report(st, inv.Name, inv.Pos, engine.NoID, "", "", fmt.Sprintf("%s expression %s", kindWord(inv.Kind), what))
				}
			}
			continue
		}
		for _, s := range st.Result.Steps {
			if s.Branch != 0 || (s.Trans != engine.NoID && k.m.IsInternal(s.Trans)) {
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
			if k.fresh(inv.Name) {
				k.report(st, inv.Name, inv.Pos, s.Trans, k.m.StateName(from), k.m.StateName(s.To),
					fmt.Sprintf("transition %s → %s is not in the allowed-transition table", k.m.StateName(from), k.m.StateName(s.To)))
			}
		}
	}
}

// before is the configuration before the step, or the one after it at a
// conversation's start, where nothing came before.
func before(st *Step) *engine.Config {
	if st.Event == nil || st.Before == nil {
		return st.After
	}
	return st.Before
}

// within arms an InvWithin invariant when its trigger holds, disarms it
// when its goal holds, and reports it when the turn is past its bound.
func (k *Checker) within(st *Step, i int, inv *engine.Invariant) {
	trigger, goal := k.m.Within(inv, before(st), st.After)
	switch {
	case k.due[i] >= 0 && goal:
		k.due[i] = -1
	case k.due[i] >= 0 && st.Turn > k.due[i]:
		if k.fresh(inv.Name) {
			k.report(st, inv.Name, inv.Pos, engine.NoID, "", "", fmt.Sprintf("not reached within %d turns (due by turn %d)", inv.Turns, k.due[i]))
		}
		k.due[i] = -1
	}
	if k.due[i] < 0 && trigger && !goal {
		k.due[i] = st.Turn + inv.Turns
	}
}

// EndOfTurn checks what can only be judged between turns: a dead end.
func (k *Checker) EndOfTurn(turn int, c *engine.Config) {
	if !k.m.DeadEnd(c) {
		return
	}
	st := &Step{Turn: turn, Before: c, After: c, Result: &engine.Result{}}
	if k.fresh(DeadEnd) {
		k.report(st, DeadEnd, engine.Pos{}, engine.NoID, "", k.m.StateName(c.State),
			fmt.Sprintf("%s is not final, and no intent, timer or branch can move the conversation on", k.m.StateName(c.State)))
	}
}

// builtins checks the built-in invariants that need no declaration.
func (k *Checker) builtins(st *Step) {
	m, after, r := k.m, st.After, st.Result
	if int(after.State) >= m.NumStates() {
		if k.fresh(UndefinedState) {
			k.report(st, UndefinedState, engine.Pos{}, engine.NoID, "", "", fmt.Sprintf("state id %d does not exist", after.State))
		}
		return
	}
	for i := 0; i < int(after.NBranch); i++ {
		if int(after.Branches[i].State) >= m.NumStates() {
			if k.fresh(UndefinedState) {
				k.report(st, UndefinedState, engine.Pos{}, engine.NoID, "", "", fmt.Sprintf("branch %d is in state id %d, which does not exist", i, after.Branches[i].State))
			}
		}
	}
	for i := 0; i < m.NumCounters(); i++ {
		if limit := m.CounterLimit(engine.CounterID(i)); limit > 0 && int(after.Counters[i]) > limit {
			if k.fresh(CounterLimit) {
				k.report(st, CounterLimit, engine.Pos{}, engine.NoID, "", "", fmt.Sprintf("counter %s is %d, past its limit %d", m.CounterName(engine.CounterID(i)), after.Counters[i], limit))
			}
		}
	}
	if ev := st.Event; ev != nil && ev.Kind == engine.TimerEvent && r.Handled {
		k.timerLaw(st, ev)
	}
	k.slotOverwrite(st)
	if ev := st.Event; ev != nil && ev.Kind == engine.FailedEvent && !r.Handled {
		k.unhandledFailure(st, ev)
	}
	if m.Waits(after.State) && m.DirectIntent(after.State) != engine.NoID && after.Waiting == engine.NoID && after.NBranch == 0 {
		if k.fresh(WaitingSlot) {
			k.report(st, WaitingSlot, engine.Pos{}, engine.NoID, "", m.StateName(after.State),
				fmt.Sprintf("the machine rests in %s, which maps answers into the waiting slot, but waits for no slot", m.StateName(after.State)))
		}
	}
	if f := after.Flow(); f != engine.NoID && after.Waiting != engine.NoID && !m.FlowHasSlot(f, after.Waiting) {
		if k.fresh(WaitingSlot) {
			k.report(st, WaitingSlot, engine.Pos{}, engine.NoID, "", "",
				fmt.Sprintf("waiting for slot %s, which flow %s does not collect", m.SlotName(after.Waiting), m.FlowName(f)))
		}
	}
	for _, j := range r.Joins {
		if j.Finished != j.Branches || j.Delivered != j.Branches {
			if k.fresh(JoinComplete) {
				k.report(st, JoinComplete, engine.Pos{}, j.Trans, m.StateName(j.Fork), "",
					fmt.Sprintf("fork %s joined with %d of %d branches finished and %d contracts delivered", m.StateName(j.Fork), j.Finished, j.Branches, j.Delivered))
			}
		}
	}
}

// unhandledFailure: a failure no transition took, where the action's
// success would have been taken.
func (k *Checker) unhandledFailure(st *Step, ev *engine.Event) {
	s := st.Before.State
	if ev.Branch > 0 && int(ev.Branch) <= int(st.Before.NBranch) {
		s = st.Before.Branches[ev.Branch-1].State
	}
	if !k.m.TakesResult(s, ev.Ext, false) || !k.fresh(UnhandledFailure) {
		return
	}
	name := k.m.ExtName(ev.Ext)
	k.report(st, UnhandledFailure, engine.Pos{}, engine.NoID, k.m.StateName(s), k.m.StateName(s),
		fmt.Sprintf("%s failed and no transition takes failed:%s in %s, which waits for done:%s: the conversation stays there", name, name, k.m.StateName(s), name))
}

// timerLaw: a timer event that the machine took must have been pending in
// the configuration before, with exactly this deadline.
func (k *Checker) timerLaw(st *Step, ev *engine.Event) {
	for _, t := range st.Before.Timers {
		if t.Active && t.ID == ev.Timer {
			if t.Deadline != ev.At {
				if k.fresh(TimerLaw) {
					k.report(st, TimerLaw, engine.Pos{}, engine.NoID, "", "", fmt.Sprintf("timer %s fired at %dms, its deadline is %dms", k.m.TimerName(ev.Timer), ev.At, t.Deadline))
				}
			}
			return
		}
	}
	if k.fresh(TimerLaw) {
		k.report(st, TimerLaw, engine.Pos{}, engine.NoID, "", "", fmt.Sprintf("timer %s fired at %dms but was not pending (cancelled, or fired already)", k.m.TimerName(ev.Timer), ev.At))
	}
}

// slotOverwrite: a slot filled before the step and different after it must
// have been named by a set or clear action of the step, or changed under a
// correction intent or an action's result.
func (k *Checker) slotOverwrite(st *Step) {
	m, before, after, r := k.m, st.Before, st.After, st.Result
	if ev := st.Event; ev != nil {
		if ev.Kind == engine.DoneEvent || (ev.Kind == engine.UserEvent && m.IsCorrection(ev.Intent)) {
			return
		}
	}
	for i := 0; i < m.NumSlots(); i++ {
		b, a := before.Slots[i], after.Slots[i]
		if b.IsEmpty() || a == b {
			continue
		}
		named := false
		for _, ai := range r.Actions {
			s, all := m.ActionSlot(ai)
			if all || s == engine.SlotID(i) {
				named = true
				break
			}
		}
		if !named {
			if k.fresh(SlotOverwrite) {
				k.report(st, SlotOverwrite, engine.Pos{}, engine.NoID, "", "",
					fmt.Sprintf("slot %s changed from %q to %q without an explicit set or clear, outside a correction", m.SlotName(engine.SlotID(i)), b.String(), a.String()))
			}
		}
	}
}

// fresh counts a violation of invariant name and reports whether it is to
// be recorded: the first violation of each invariant is kept in full, later
// ones are only counted (describing configurations, and formatting the
// message, is the costly part).
func (k *Checker) fresh(name string) bool {
	k.Count++
	if len(k.Violations) >= maxViolations {
		return false
	}
	for i := range k.Violations {
		if k.Violations[i].Invariant == name {
			return false
		}
	}
	return true
}

// report records a violation that fresh let through.
func (k *Checker) report(st *Step, name string, pos engine.Pos, t engine.TransID, from, to, msg string) {
	if t == engine.NoID && from == "" && len(st.Result.Steps) > 0 {
		// Tie the violation to the step's last transition, for reports.
		s := st.Result.Steps[len(st.Result.Steps)-1]
		t = s.Trans
		if s.From != engine.NoID {
			from = k.m.StateName(s.From)
		}
		if to == "" {
			to = k.m.StateName(s.To)
		}
	}
	k.Violations = append(k.Violations, Violation{Invariant: name, Pos: pos, Turn: st.Turn, Trans: t,
		From: from, To: to, Msg: msg, Before: k.m.Describe(st.Before), After: k.m.Describe(st.After)})
}

func kindWord(k engine.InvariantKind) string {
	if k == engine.InvNever {
		return "never"
	}
	return "always"
}
