// Package eval holds the observers that judge conversations as they run:
// the invariant Checker and the Coverage counters. Each sees every engine
// step as a Step, streaming; none keeps a whole trace.
package eval

import (
	"fmt"
	"slices"
	"strings"

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
	// LeakedTimer: a timer fell due where no active state handles it: it
	// was started, then left behind (not cancelled) when the states that
	// handle it were exited.
	LeakedTimer = "leaked_timer"
)

// Livelock, Stuck and StuckRegion are the explorer's findings about the
// whole graph (package explore): no end can be reached, or one only
// through escapes, or a parallel state's region can no longer reach its
// final state. Like the built-in invariants, a machine may give them notes.
const (
	Livelock    = "livelock"
	Stuck       = "stuck"
	StuckRegion = "stuck_region"
)

// Notable lists the names a machine's invariants section may give notes
// for without declaring them: the built-in invariants and the explorer's
// graph findings.
var Notable = append(append([]string{}, BuiltinInvariants...), Livelock, Stuck, StuckRegion)

// BuiltinInvariants lists the built-in invariants' names.
var BuiltinInvariants = []string{RuntimeError, UndefinedState, CounterLimit, TimerLaw, SlotOverwrite, WaitingSlot, JoinComplete, Liveness, DeadEnd, UnhandledFailure, LeakedTimer}

// Violation is one broken invariant: which one, where in the conversation,
// on which transition, and the configuration before and after the step.
//
// What identifies the finding (Where): for an allowed-transition table the
// move From -> To it does not allow (Move is set); for any other invariant
// the State the machine is in after the step (for leaked_timer, before it)
// and, for a finding about a slot or a timer, the Slot or the Timer.
type Violation struct {
	Invariant string
	Pos       engine.Pos // where the invariant is declared (built-ins: none)
	Turn      int
	Trans     engine.TransID // engine.NoID when not tied to one transition
	From, To  string
	Move      bool
	// Src and Via name a table's move through transparent states: the
	// leaf the step into To came from, and the first state the path
	// entered after From ("" when the move is direct).
	Src, Via string
	State    string
	Slot     string
	Timer    string
	Msg      string
	Before   string
	After    string
}

func (v Violation) String() string {
	if w := v.Where(); w != "" {
		return fmt.Sprintf("invariant %s broken at turn %d (%s): %s", v.Invariant, v.Turn, w, v.Msg)
	}
	return fmt.Sprintf("invariant %s broken at turn %d: %s", v.Invariant, v.Turn, v.Msg)
}

// Where is what identifies the finding: "from -> to" for a table's move,
// else "in state" or "slot s in state".
func (v *Violation) Where() string {
	switch {
	case v.Move && v.Via != "":
		if v.Src == v.Via {
			return v.From + " -> " + v.Via + " -> " + v.To
		}
		return v.From + " -> " + v.Via + " … " + v.Src + " -> " + v.To
	case v.Move:
		return v.From + " -> " + v.To
	case v.Slot != "":
		return "slot " + v.Slot + " in " + v.State
	case v.Timer != "":
		return "timer " + v.Timer + " in " + v.State
	case v.State == "":
		// Not tied to a state (a runtime error the driver reports).
		return ""
	}
	return "in " + v.State
}

// Key identifies the finding: its invariant and Where.
func (v *Violation) Key() string {
	if w := v.Where(); w != "" {
		return v.Invariant + ": " + w
	}
	return v.Invariant
}

// maxViolations caps the distinct findings one conversation records;
// Count goes on, and Unrecorded counts the violations past the cap that
// match none recorded.
const maxViolations = 64

// Checker checks built-in and declared invariants on every step of one
// conversation at a time. Reset it between conversations.
type Checker struct {
	m    *engine.Machine
	invs []engine.Invariant
	// last holds, per allowed-transition invariant, the last state the
	// table saw (transparent states are skipped).
	last []engine.StateID
	// via holds, per allowed-transition invariant, the first transparent
	// state entered after last (NoID: none), to name the actual move.
	via []engine.StateID
	// due holds, per within invariant, the last turn by which its goal must
	// hold, or -1 when it is not armed.
	due        []int
	Violations []Violation
	Count      int
	Unrecorded int
}

// NewChecker returns a checker for m's invariants.
func NewChecker(m *engine.Machine) *Checker {
	k := &Checker{m: m, invs: m.Invariants()}
	k.last = make([]engine.StateID, len(k.invs))
	k.via = make([]engine.StateID, len(k.invs))
	k.due = make([]int, len(k.invs))
	k.Reset()
	return k
}

// PathState is the part of a checker that depends on the path taken so far
// (the last state each allowed-transition table saw, the bound of each armed
// within invariant): an explorer saves it with each configuration.
//
// Via only names findings (the first transparent state after Last): an
// explorer may leave it out of what tells configurations apart, and a
// path state without it names a move through transparent states by its
// ends only.
type PathState struct {
	Last []engine.StateID
	Due  []int
	Via  []engine.StateID
}

// Save returns a copy of the checker's path state.
func (k *Checker) Save() PathState {
	return PathState{Last: append([]engine.StateID(nil), k.last...), Due: append([]int(nil), k.due...), Via: append([]engine.StateID(nil), k.via...)}
}

// SaveInto copies the checker's path state into p's arrays (grown as
// needed) and returns it: an explorer saving the state after every step
// reuses its arrays instead of allocating.
func (k *Checker) SaveInto(p PathState) PathState {
	return PathState{Last: append(p.Last[:0], k.last...), Due: append(p.Due[:0], k.due...), Via: append(p.Via[:0], k.via...)}
}

// Restore sets the checker's path state and clears its violations.
func (k *Checker) Restore(p PathState) {
	copy(k.last, p.Last)
	copy(k.due, p.Due)
	for i := range k.via {
		k.via[i] = engine.NoID
	}
	copy(k.via, p.Via)
	k.Violations = k.Violations[:0]
	k.Count, k.Unrecorded = 0, 0
}

// Reset starts a new conversation.
func (k *Checker) Reset() {
	for i := range k.last {
		k.last[i] = engine.NoID
		k.via[i] = engine.NoID
		k.due[i] = -1
	}
	k.Violations = k.Violations[:0]
	k.Count, k.Unrecorded = 0, 0
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
			// An always or never invariant breaks where it stops holding:
			// a step after which it still does not hold is not a new
			// finding (its state would name every state visited since).
			if !k.m.Holds(inv, before(st), st.After) && (st.Event == nil || st.Before == nil || st.Before.State == engine.NoID ||
				int(st.Before.State) >= k.m.NumStates() || k.m.Holds(inv, st.Before, st.Before)) {
				what := "no longer holds"
				if inv.Kind == engine.InvNever {
					what = "became true"
				}
				if w := k.in(st.After.State, engine.NoID); k.fresh(inv.Name, w) {
					k.report(st, inv.Name, inv.Pos, engine.NoID, w, fmt.Sprintf("%s expression %s", kindWord(inv.Kind), what))
				}
			}
			continue
		}
		for _, s := range st.Result.Steps {
			if s.Branch != 0 || (s.Trans != engine.NoID && k.m.IsInternal(s.Trans)) {
				continue
			}
			if inv.Transparent(s.To) {
				if k.via[i] == engine.NoID && k.last[i] != engine.NoID && !inv.Transparent(s.From) {
					k.via[i] = s.To
				}
				continue
			}
			from, via := k.last[i], k.via[i]
			k.last[i], k.via[i] = s.To, engine.NoID
			if from == engine.NoID || inv.Allows(from, s.To) {
				continue
			}
			w := where{move: true, from: from, to: s.To, state: engine.NoID, slot: engine.NoID, timer: engine.NoID, src: engine.NoID, via: engine.NoID}
			if via != engine.NoID {
				w.src, w.via = s.From, via
			}
			if k.fresh(inv.Name, w) {
				k.report(st, inv.Name, inv.Pos, s.Trans, w,
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
		if w := k.in(st.After.State, engine.NoID); k.fresh(inv.Name, w) {
			k.report(st, inv.Name, inv.Pos, engine.NoID, w, fmt.Sprintf("not reached within %d turns (due by turn %d)", inv.Turns, k.due[i]))
		}
		k.due[i] = -1
	}
	if k.due[i] < 0 && trigger && !goal {
		k.due[i] = st.Turn + inv.Turns
	}
}

// EndOfTurn checks what can only be judged between turns: a dead end. d
// is the conversation's data when the machine keeps it outside the Config
// (engine.Machine.NewData), else nil.
func (k *Checker) EndOfTurn(turn int, c *engine.Config, d engine.Data) {
	if !k.m.DeadEndWith(c, d) {
		return
	}
	st := &Step{Turn: turn, Before: c, After: c, Result: &engine.Result{}}
	if w := k.in(c.State, engine.NoID); k.fresh(DeadEnd, w) {
		k.report(st, DeadEnd, engine.Pos{}, engine.NoID, w,
			fmt.Sprintf("%s is not final, and no intent, timer or branch can move the conversation on", k.m.StateName(c.State)))
	}
}

// builtins checks the built-in invariants that need no declaration.
func (k *Checker) builtins(st *Step) {
	m, after, r := k.m, st.After, st.Result
	if int(after.State) >= m.NumStates() {
		if w := k.in(engine.NoID, engine.NoID); k.fresh(UndefinedState, w) {
			k.report(st, UndefinedState, engine.Pos{}, engine.NoID, w, fmt.Sprintf("state id %d does not exist", after.State))
		}
		return
	}
	for i := 0; i < int(after.NBranch); i++ {
		if s := after.Branches[i].State; s != engine.NoID && int(s) >= m.NumStates() {
			if w := k.in(after.State, engine.NoID); k.fresh(UndefinedState, w) {
				k.report(st, UndefinedState, engine.Pos{}, engine.NoID, w, fmt.Sprintf("branch %d is in state id %d, which does not exist", i, after.Branches[i].State))
			}
		}
	}
	for i := 0; i < m.NumCounters(); i++ {
		if limit := m.CounterLimit(engine.CounterID(i)); limit > 0 && int(after.Counters[i]) > limit {
			if w := k.in(after.State, engine.NoID); k.fresh(CounterLimit, w) {
				k.report(st, CounterLimit, engine.Pos{}, engine.NoID, w, fmt.Sprintf("counter %s is %d, past its limit %d", m.CounterName(engine.CounterID(i)), after.Counters[i], limit))
			}
		}
	}
	if ev := st.Event; ev != nil && ev.Kind == engine.TimerEvent {
		switch {
		case k.timerTaken(r, ev.Timer):
			k.timerLaw(st, ev)
		case m.HandlesTimer(ev.Timer):
			k.leakedTimer(st, ev)
		}
	}
	k.slotOverwrite(st)
	if ev := st.Event; ev != nil && ev.Kind == engine.FailedEvent && !r.Handled {
		k.unhandledFailure(st, ev)
	}
	if m.Waits(after.State) && m.DirectIntent(after.State) != engine.NoID && after.Waiting == engine.NoID && after.NBranch == 0 {
		if w := k.in(after.State, engine.NoID); k.fresh(WaitingSlot, w) {
			k.report(st, WaitingSlot, engine.Pos{}, engine.NoID, w,
				fmt.Sprintf("the machine rests in %s, which maps answers into the waiting slot, but waits for no slot", m.StateName(after.State)))
		}
	}
	if f := after.Flow(); f != engine.NoID && after.Waiting != engine.NoID && !m.FlowHasSlot(f, after.Waiting) {
		if w := k.in(after.State, after.Waiting); k.fresh(WaitingSlot, w) {
			k.report(st, WaitingSlot, engine.Pos{}, engine.NoID, w,
				fmt.Sprintf("waiting for slot %s, which flow %s does not collect", m.SlotName(after.Waiting), m.FlowName(f)))
		}
	}
	for _, j := range r.Joins {
		if j.Finished != j.Branches || j.Delivered != j.Branches {
			if w := k.in(j.Fork, engine.NoID); k.fresh(JoinComplete, w) {
				k.report(st, JoinComplete, engine.Pos{}, j.Trans, w,
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
	if s == engine.NoID {
		return
	}
	w := k.in(s, engine.NoID)
	if !k.m.TakesResult(s, ev.Ext, false) || !k.fresh(UnhandledFailure, w) {
		return
	}
	name := k.m.ExtName(ev.Ext)
	k.report(st, UnhandledFailure, engine.Pos{}, engine.NoID, w,
		fmt.Sprintf("%s failed and no transition takes failed:%s in %s, which waits for done:%s: the conversation stays there", name, name, k.m.StateName(s), name))
}

// timerLaw: a timer event that the machine took must have been pending in
// the configuration before, with exactly this deadline.
func (k *Checker) timerLaw(st *Step, ev *engine.Event) {
	// A send's timer may have several instances pending: the one due
	// at the event's time is the one fired.
	pending, deadline := false, int64(0)
	for i := 0; i < st.Before.TimerSlots(); i++ {
		if t := st.Before.TimerAt(i); t.Active && t.ID == ev.Timer {
			if t.Deadline == ev.At {
				return
			}
			if !pending {
				pending, deadline = true, t.Deadline
			}
		}
	}
	if pending {
		if w := k.in(st.After.State, engine.NoID); k.fresh(TimerLaw, w) {
			k.report(st, TimerLaw, engine.Pos{}, engine.NoID, w, fmt.Sprintf("timer %s fired at %dms, its deadline is %dms", k.m.TimerName(ev.Timer), ev.At, deadline))
		}
		return
	}
	if w := k.in(st.After.State, engine.NoID); k.fresh(TimerLaw, w) {
		k.report(st, TimerLaw, engine.Pos{}, engine.NoID, w, fmt.Sprintf("timer %s fired at %dms but was not pending (cancelled, or fired already)", k.m.TimerName(ev.Timer), ev.At))
	}
}

// timerTaken reports whether the step's first transition was triggered by
// timer t (an eventless transition selected after an event no transition
// took does not count).
func (k *Checker) timerTaken(r *engine.Result, t engine.TimerID) bool {
	if len(r.Steps) == 0 {
		return false
	}
	s := r.Steps[0]
	tr := s.Trans
	if s.Overrode != engine.NoID {
		tr = s.Overrode
	}
	if tr == engine.NoID {
		return false
	}
	if ev := k.m.SendEvent(t); ev != engine.NoID {
		// A send's timer delivers its event: taken by a transition on it
		// (one of its descriptors: an SCXML transition's event="back
		// help.timeout"), or the catch-all "*", in any region.
		trig := k.m.Transition(tr).Trigger
		return trig == "*" || slices.Contains(strings.Fields(trig), k.m.Intents()[ev])
	}
	// Only a timer event triggers a timer: transition ("timer:NAME" or the
	// catch-all "timer:*").
	return s.Branch == 0 && strings.HasPrefix(k.m.Transition(tr).Trigger, "timer:")
}

// leakedTimer: a timer that was pending and fell due at its deadline, but
// that no transition of the active states took, though some state handles
// it (a timer no state handles is not one left behind).
func (k *Checker) leakedTimer(st *Step, ev *engine.Event) {
	for i := 0; i < st.Before.TimerSlots(); i++ {
		if t := st.Before.TimerAt(i); !t.Active || t.ID != ev.Timer || t.Deadline != ev.At {
			continue
		}
		w := k.in(st.Before.State, engine.NoID)
		w.timer = ev.Timer
		if k.fresh(LeakedTimer, w) {
			k.report(st, LeakedTimer, engine.Pos{}, engine.NoID, w,
				fmt.Sprintf("timer %s fell due at %dms in %s, which does not handle it: it was left running when the states that handle it were exited", k.m.TimerName(ev.Timer), ev.At, k.m.StateName(st.Before.State)))
		}
		return
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
		b, a := before.Slot(engine.SlotID(i)), after.Slot(engine.SlotID(i))
		if b.IsEmpty() || a == b {
			continue
		}
		named := false
		for _, j := range r.Joins {
			// A join merges its branches' contracts into the fork's slot.
			if m.ForkInto(j.Fork) == engine.SlotID(i) {
				named = true
			}
		}
		for _, ai := range r.Actions {
			s, all := m.ActionSlot(ai)
			if all || s == engine.SlotID(i) {
				named = true
				break
			}
		}
		if !named {
			if w := k.in(after.State, engine.SlotID(i)); k.fresh(SlotOverwrite, w) {
				k.report(st, SlotOverwrite, engine.Pos{}, engine.NoID, w,
					fmt.Sprintf("slot %s changed from %q to %q without an explicit set or clear, outside a correction", m.SlotName(engine.SlotID(i)), b.String(), a.String()))
			}
		}
	}
}

// where identifies a finding: a table's move, or a state and a slot.
type where struct {
	move     bool
	from, to engine.StateID
	src, via engine.StateID
	state    engine.StateID
	slot     engine.SlotID
	timer    engine.TimerID
}

// in is the finding in state s, about slot (engine.NoID: none).
func (k *Checker) in(s engine.StateID, slot engine.SlotID) where {
	return where{from: engine.NoID, to: engine.NoID, src: engine.NoID, via: engine.NoID, state: s, slot: slot, timer: engine.NoID}
}

// same reports whether recorded violation v is the finding w of
// invariant name (comparing names, so that nothing is formatted).
func (k *Checker) same(v *Violation, name string, w where) bool {
	if v.Invariant != name || v.Move != w.move {
		return false
	}
	if w.move {
		return v.From == k.m.StateName(w.from) && v.To == k.m.StateName(w.to) && v.Via == k.name(w.via) && v.Src == k.name(w.src)
	}
	return v.State == k.m.StateName(w.state) && v.Slot == k.slotName(w.slot) && v.Timer == k.timerName(w.timer)
}

// name is state s's name, or "" for NoID.
func (k *Checker) name(s engine.StateID) string {
	if s == engine.NoID {
		return ""
	}
	return k.m.StateName(s)
}

func (k *Checker) timerName(t engine.TimerID) string {
	if t == engine.NoID {
		return ""
	}
	return k.m.TimerName(t)
}

func (k *Checker) slotName(s engine.SlotID) string {
	if s == engine.NoID || int(s) >= k.m.NumSlots() {
		return ""
	}
	return k.m.SlotName(s)
}

// fresh counts a violation of invariant name at w and reports whether it
// is to be recorded: the first violation of each distinct finding is kept
// in full, later ones are only counted (describing configurations, and
// formatting the message, is the costly part).
func (k *Checker) fresh(name string, w where) bool {
	k.Count++
	for i := range k.Violations {
		if k.same(&k.Violations[i], name, w) {
			return false
		}
	}
	if len(k.Violations) >= maxViolations {
		k.Unrecorded++
		return false
	}
	return true
}

// report records a violation that fresh let through.
func (k *Checker) report(st *Step, name string, pos engine.Pos, t engine.TransID, w where, msg string) {
	v := Violation{Invariant: name, Pos: pos, Turn: st.Turn, Trans: t, Move: w.move, Msg: msg,
		Before: k.m.Describe(st.Before), After: k.m.Describe(st.After)}
	if w.move {
		v.From, v.To, v.Src, v.Via = k.m.StateName(w.from), k.m.StateName(w.to), k.name(w.src), k.name(w.via)
	} else {
		v.State, v.Slot, v.Timer = k.m.StateName(w.state), k.slotName(w.slot), k.timerName(w.timer)
		if len(st.Result.Steps) > 0 {
			// Tie the violation to the step's last transition, for reports.
			s := st.Result.Steps[len(st.Result.Steps)-1]
			if t == engine.NoID {
				v.Trans = s.Trans
			}
			if s.From != engine.NoID {
				v.From = k.m.StateName(s.From)
			}
			v.To = k.m.StateName(s.To)
		}
	}
	k.Violations = append(k.Violations, v)
}

func kindWord(k engine.InvariantKind) string {
	if k == engine.InvNever {
		return "never"
	}
	return "always"
}
