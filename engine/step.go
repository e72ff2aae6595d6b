package engine

import (
	"fmt"
	"math"
)

// RuntimeError is an error found while stepping: a runaway eventless chain,
// time going backwards, a timer fired off its deadline, an action that cannot
// run. It names the position in the spec it concerns.
type RuntimeError struct {
	Pos   Pos
	State string
	Msg   string
}

func (e *RuntimeError) Error() string {
	if e.Pos == (Pos{}) {
		return fmt.Sprintf("in state %s: %s", e.State, e.Msg)
	}
	return fmt.Sprintf("%s: in state %s: %s", e.Pos, e.State, e.Msg)
}

func (m *Machine) rtErr(c *Config, pos Pos, format string, args ...any) *RuntimeError {
	return &RuntimeError{Pos: pos, State: m.StateName(c.State), Msg: fmt.Sprintf(format, args...)}
}

// noEvent stands for "no event" where expressions are evaluated outside a
// step (Start, invariants): no intent, no timer, no action.
var noEvent = Event{Kind: UserEvent, Intent: NoID, Timer: NoID, Ext: NoID}

// step advances c by one event, in place. Copy c first to keep the
// configuration before the step. r is reset and then filled with the trace
// and effects; r.Handled is false when no transition took the event and
// none of the eventless transitions then selected again did, which leaves c
// unchanged apart from the clock and what the event itself consumes or
// delivers: a timer that fell due is no longer pending, a region's
// awaited result is consumed, and an action's outputs land in their slots.
//
// A timer event must carry the timer's deadline as At; a timer that is not
// pending (cancelled, or already fired) is ignored.
func (m *Machine) step(c *Config, ev *Event, r *Result) error {
	r.clear()
	if r.rare() {
		r.clearRare()
	}
	if ev.At < c.Now {
		return m.rtErr(c, Pos{}, "event at %dms is before the current time %dms", ev.At, c.Now)
	}
	if c.Final {
		// A final configuration takes no transition, but a timer left
		// pending when it was reached still falls due: its event at its
		// deadline consumes it, as in any other state, or a caller firing
		// due timers would be handed the same one for ever.
		if ev.Kind == TimerEvent {
			if i := c.timerAt(ev.Timer, ev.At); i >= 0 && c.TimerAt(i).Deadline == ev.At {
				c.setTimer(i, Timer{})
			}
		}
		c.Now = ev.At
		return nil
	}
	if ev.Kind != TimerEvent && len(m.timers) > 0 {
		// A timer that falls due before the event must fire first; once the
		// clock passed its deadline it could never fire at it. A machine
		// without timers (or delayed sends) has none pending: no pass.
		if t, ok := m.NextTimer(c); ok && t.Deadline < ev.At {
			return m.rtErr(c, Pos{}, "event at %dms skips timer %s due at %dms (fire due timers first)", ev.At, m.timers[t.ID].name, t.Deadline)
		}
	}
	var tab [][]TransID
	var stride, col int
	switch ev.Kind {
	case UserEvent:
		if int(ev.Intent) >= len(m.intents) {
			return m.rtErr(c, Pos{}, "unknown intent id %d", ev.Intent)
		}
		tab, stride, col = m.userTab, len(m.intents), int(ev.Intent)
	case TimerEvent:
		if int(ev.Timer) >= len(m.timers) {
			return m.rtErr(c, Pos{}, "unknown timer id %d", ev.Timer)
		}
		i := c.timerAt(ev.Timer, ev.At)
		if i < 0 {
			c.Now = ev.At
			return nil
		}
		t := c.TimerAt(i)
		if t.Deadline != ev.At {
			return m.rtErr(c, Pos{}, "timer %s fired at %dms, but its deadline is %dms", m.timers[ev.Timer].name, ev.At, t.Deadline)
		}
		seq := t.Seq
		c.setTimer(i, Timer{})
		tab, stride, col = m.timerTab, len(m.timers), int(ev.Timer)
		if t := &m.timers[ev.Timer]; t.send {
			// A delayed send fell due: the machine takes its event from
			// the external queue, with the data it was sent with.
			r.iev = Event{Kind: UserEvent, Intent: t.event, Timer: ev.Timer, Ext: NoID, At: ev.At, Confidence: 1, Source: SourceSend}
			if t.data && r.data != nil {
				r.data.Take(seq)
				r.iev.Payload = seq
			}
			ev = &r.iev
			tab, stride, col = m.userTab, len(m.intents), int(t.event)
		}
	case DoneEvent, FailedEvent:
		if int(ev.Ext) >= len(m.exts) {
			return m.rtErr(c, Pos{}, "unknown action id %d", ev.Ext)
		}
		if ev.Branch > 0 {
			i := int(ev.Branch) - 1
			if i >= int(c.NBranch) || c.Branches[i].State == NoID {
				// The result of an action invoked by a region of a parallel
				// state that has since been left: like the event of a
				// cancelled timer, it is ignored.
				c.Now = ev.At
				return nil
			}
			b := &c.Branches[i]
			if b.Pending != ev.Ext {
				return m.rtErr(c, Pos{}, "region %d did not invoke %s", i, m.exts[ev.Ext].name)
			}
			b.Pending = NoID
			if b.Status == BranchDone || b.Status == BranchFailed {
				// A region that invoked the action as it ended takes no
				// further transition: its result is consumed.
				c.Now = ev.At
				return nil
			}
		}
		tab, stride, col = m.doneTab, len(m.exts), int(ev.Ext)
		if ev.Kind == FailedEvent {
			tab = m.failTab
		}
		if ev.Kind == DoneEvent {
			// Invoke computed the outputs outside a step: one that is a
			// number that is not one (NaN, ±Inf) is reported as the result
			// is delivered.
			for i := 0; i < int(ev.NEnt); i++ {
				if v := &ev.Entities[i].Value; v.Kind == Number && !finite(v.Num) {
					if err := m.outputError(c, ev, i); err != nil {
						return err
					}
				}
			}
			// An action's outputs land in the slots they are named after.
			for i := 0; i < int(ev.NEnt); i++ {
				if s := m.entitySlot(ev.Entities[i].ID); s != NoID {
					c.SetSlot(s, emptyText(ev.Entities[i].Value))
				}
			}
		}
	default:
		return m.rtErr(c, Pos{}, "unknown event kind %d", ev.Kind)
	}
	c.Now = ev.At
	e := evalEnv{m: m, c: c, ev: ev, r: r}
	if c.NBranch == 0 && !m.general {
		// The short way (fast.go): the active leaf's candidates, then
		// settle. r was reset: the guards and trace steps start at 0.
		t := TransID(NoID)
		if cands := tab[int(c.State)*stride+col]; len(cands) > 0 {
			t = m.pickLeaf(&e, cands, r)
		}
		if t != NoID {
			r.Handled = true
			return r.stepErr(m.settle(&e, t, 0, r))
		}
		// As the general path: the eventless transitions are selected
		// again, and Handled says whether the configuration moved.
		err := m.settle(&e, NoID, 0, r)
		r.Handled = len(r.Steps) > 0
		return r.stepErr(err)
	}
	sel := &r.sel
	m.selectTransitions(&e, tab, stride, col, NoID, int(ev.Branch), sel, r)
	if sel.n == 0 {
		// No transition takes the event. As SCXML's event loop does after
		// every external event, matched or not, the eventless transitions
		// are selected again: what the event delivered (an action's
		// outputs, a timer no longer pending) or the event itself (read as
		// event.* by a guard) may enable one. Handled then reports whether
		// the configuration moved.
		n := len(r.Steps)
		err := m.macrostep(e, r, 0)
		r.Handled = len(r.Steps) > n
		return r.stepErr(err)
	}
	r.Handled = true
	if err := m.microstep(&e, sel, r); err != nil {
		return err
	}
	return r.stepErr(m.macrostep(e, r, 0))
}

// pick returns the first candidate whose guard holds, recording each guard
// it evaluates. e is a pointer: the environment is copied only for a
// guard, and most candidates have none.
//
// A guard's valid(slot), alone or on the left of an and or an or, is
// kept for the next guard, which on a slot's validating state is often
// valid(slot) again (`valid(candidate) and remaining() == 1`, then
// `valid(candidate)`): guards change nothing, so it would give the same.
func (m *Machine) pick(e *evalEnv, cands []TransID, r *Result) TransID {
	known, knownPass := SlotID(NoID), false
	for _, t := range cands {
		tr := &m.trans[t]
		if tr.guard == nil {
			return t
		}
		var pass bool
		if g := tr.test; g == nil {
			pass = tr.guard(*e)
		} else if g.op == testValid && g.sid == known {
			pass = knownPass
		} else {
			// holds, without the call.
			x := g
			if g.op >= testAnd {
				x = g.l
			}
			left := m.holds1(x, e.c)
			pass = left
			if g.op >= testAnd && left == (g.op == testAnd) {
				pass = m.holds1(g.r, e.c)
			}
			if x.op == testValid {
				known, knownPass = x.sid, left
			}
		}
		r.Guards = append(r.Guards, GuardOutcome{Trans: t, Pass: pass})
		if pass {
			return t
		}
	}
	return NoID
}

// outputError is the error of an action result whose entity i is a
// number that is not one, at the expression of the output it is (nil when
// it is no output of the action).
func (m *Machine) outputError(c *Config, ev *Event, i int) error {
	for _, o := range m.exts[ev.Ext].outputs {
		if o.entity == ev.Entities[i].ID {
			return m.rtErr(c, o.pos, "output %s of action %s is %v, not a number", o.name, m.exts[ev.Ext].name, ev.Entities[i].Value.Num)
		}
	}
	return nil
}

func (c *Config) clearFork() {
	for i := 0; i < int(c.NBranch); i++ {
		c.Branches[i] = Branch{}
	}
	c.NBranch, c.Finished, c.texts = 0, 0, ""
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// intercept returns the first override that applies to transition tr from
// the current state, or NoID. Its guard outcome is recorded with the others.
func (m *Machine) intercept(e evalEnv, tr *transition, r *Result) TransID {
	for i := range m.overrides {
		o := &m.overrides[i]
		ot := &m.trans[o.trans]
		if ot.target == tr.target || (o.from != nil && !o.from[e.c.State]) || (o.to != nil && !o.to[tr.target]) {
			continue
		}
		if o.guard != nil {
			pass := o.guard(e)
			r.Guards = append(r.Guards, GuardOutcome{Trans: o.trans, Pass: pass})
			if !pass {
				continue
			}
		}
		return o.trans
	}
	return NoID
}

// domainOf is the nearest proper ancestor of leaf that is also a proper
// ancestor of target, or NoID (the root): what an external transition from
// leaf to target exits and re-enters below.
func (m *Machine) domainOf(leaf, target StateID) StateID {
	for a := m.states[leaf].parent; a != NoID; a = m.states[a].parent {
		if a != target && m.InState(target, a) {
			return a
		}
	}
	return NoID
}

// timerAt returns the pending instance of timer id due at at, or, when
// none is, the first pending one (a send's timer may have several), or -1.
func (c *Config) timerAt(id TimerID, at int64) int {
	first := -1
	for i, n := 0, c.TimerSlots(); i < n; i++ {
		if t := c.TimerAt(i); t.Active && t.ID == id {
			if t.Deadline == at {
				return i
			}
			if first < 0 {
				first = i
			}
		}
	}
	return first
}

func (c *Config) timerIndex(id TimerID) int {
	for i, n := 0, c.TimerSlots(); i < n; i++ {
		if t := c.TimerAt(i); t.Active && t.ID == id {
			return i
		}
	}
	return -1
}

// maxDurationMS bounds a computed timer duration (about 30,000 years), so
// that the deadline cannot overflow.
const maxDurationMS = 1e15

// run performs a block of actions (entry, exit, a transition's) in order,
// appending their ids and effects to r. A data model error stops the
// block, as the recommendation says (runBlock); the next block runs.
// Most states have no entry or exit actions: run is small enough to be
// inlined, so an empty block costs its callers no call.
func (m *Machine) run(e evalEnv, acts []uint32, r *Result) error {
	if len(acts) == 0 {
		return nil
	}
	r.abort = false
	return m.runBlock(&e, acts, r)
}

// runBlock runs actions until one raises an error (Result.abort), also
// inside an if's or a foreach's actions. Only the actions that evaluate
// a data model's expressions can raise one, so only they are checked:
// the expression language's actions pay nothing for it.
//
// The environment comes by pointer, so that the call passes its arguments
// in registers; the actions' expressions take a copy, only they.
func (m *Machine) runBlock(e *evalEnv, acts []uint32, r *Result) error {
	c := e.c
	for _, ai := range acts {
		a := &m.acts[ai]
		r.Actions = append(r.Actions, ai)
		switch a.kind {
		case ActSet:
			// set: {last: other} and set: {outcome: '"booked"'}, the
			// common shapes, without value's call.
			switch a.x.shape {
			case shapeSlot:
				c.SetSlot(a.slot, emptyText(slotAs(a.x.kind, c.Slot(a.x.sid))))
			case shapeConst:
				c.SetSlot(a.slot, emptyText(a.x.cv))
			case shapeEventValue:
				// set: {candidate: event.value}: the closure's read.
				e.payload()
				c.SetSlot(a.slot, emptyText(TextValue(e.ev.Value)))
			default:
				c.SetSlot(a.slot, emptyText(a.x.value(*e)))
			}
		case ActFill:
			if c.Waiting == NoID {
				// Before the value: its expression reads nothing then.
				return m.notWaiting(c, ai)
			}
			var v Value
			if a.x.shape == shapeSlot {
				// fill: candidate, the common shape: read in place.
				v = emptyText(slotAs(a.x.kind, c.Slot(a.x.sid)))
			} else {
				v = emptyText(a.x.value(*e))
			}
			if err := m.fill(c, v, ai); err != nil {
				return err
			}
		case ActClear:
			switch {
			case a.all:
				c.ClearSlots()
			case a.to == toWaiting:
				if c.Waiting != NoID {
					c.SetSlot(c.Waiting, Value{})
				}
			default:
				c.SetSlot(a.slot, Value{})
			}
		case ActAsk:
			switch a.to {
			case toNext:
				c.Waiting = m.nextEmpty(c)
			case toNone:
				c.Waiting = NoID
			default:
				c.Waiting = a.slot
			}
		case ActIncr:
			c.Counters[a.counter]++
		case ActReset:
			if a.all {
				c.Counters = [MaxCounters]int32{}
			} else {
				c.Counters[a.counter] = 0
			}
		case ActPush:
			if int(c.FlowDepth) >= MaxFlowDepth {
				return m.fullFlows(c, ai)
			}
			c.Flows[c.FlowDepth] = a.flow
			c.FlowDepth++
		case ActPop:
			if c.FlowDepth > 0 {
				c.FlowDepth--
				c.Flows[c.FlowDepth] = NoID
			}
		case ActSay, ActEscalate:
			lo := uint32(len(r.Text))
			r.Text = a.tmpl.appendTo(*e, r.Text)
			kind := EffSay
			if a.kind == ActEscalate {
				kind = EffEscalate
			} else {
				c.LastSay = uint16(ai)
			}
			r.Effects = append(r.Effects, Effect{Kind: kind, Action: ai, Template: uint16(ai), TextLo: lo, TextHi: uint32(len(r.Text)), Ext: NoID, Timer: NoID})
		case ActInvoke:
			if e.br > 0 {
				// A region awaits one result at a time: invoking again
				// drops the one it awaited, as SCXML cancels an
				// invocation whose state is left.
				c.Branches[e.br-1].Pending = a.ext
			}
			r.Effects = append(r.Effects, Effect{Kind: EffInvoke, Action: ai, Ext: a.ext, Timer: NoID, Branch: e.br})
		case ActContract:
			if e.br == 0 {
				return m.rtErr(c, a.pos, "contract: not in a fork branch")
			}
			i := int(e.br) - 1
			c.SetBranchTexts(i, c.BranchInput(i), a.x.s(*e))
		case ActStart:
			after := m.timers[a.timer].afterMS
			if a.hasX {
				// A computed duration that is negative (or not a number)
				// would put the deadline before the clock, where the timer
				// could never fire and would block every later event.
				d := a.x.n(*e)
				if !(d >= 0 && d < maxDurationMS) {
					return m.rtErr(c, a.pos, "start %s: %gms is not a duration", m.timers[a.timer].name, d)
				}
				after = int64(d)
			}
			i := c.timerIndex(a.timer)
			if i < 0 {
				i = c.freeTimer()
			}
			if i < 0 {
				return m.rtErr(c, a.pos, "start %s: more than %d timers pending", m.timers[a.timer].name, MaxTimers)
			}
			c.TimerSeq++
			c.setTimer(i, Timer{Deadline: c.Now + after, Seq: c.TimerSeq, ID: a.timer, Active: true})
			r.Effects = append(r.Effects, Effect{Kind: EffStartTimer, Action: ai, Timer: a.timer, Deadline: c.Now + after, Ext: NoID})
		case ActCancel:
			if i := c.timerIndex(a.timer); i >= 0 {
				c.setTimer(i, Timer{})
				r.Effects = append(r.Effects, Effect{Kind: EffCancelTimer, Action: ai, Timer: a.timer, Ext: NoID})
			}
		case ActRaise:
			q := queued{kind: queuedRaise, id: uint16(a.intent)}
			if a.hold != nil {
				// The data is held under a fresh sequence number until
				// the event is taken.
				c.TimerSeq++
				q.key = c.TimerSeq
				if a.hold(*e, q.key); r.abort {
					return nil
				}
			}
			r.internal = append(r.internal, q)
		case ActSend:
			if err := m.send(*e, ai, a, r); err != nil || r.abort {
				return err
			}
		case ActCancelSend:
			for _, t := range a.timers {
				// Backwards: a timer beyond the inline ones that is
				// cancelled moves the later ones down.
				for i := c.TimerSlots() - 1; i >= 0; i-- {
					if p := c.TimerAt(i); p.Active && p.ID == t {
						if m.timers[t].data && r.data != nil {
							r.data.Drop(p.Seq)
						}
						c.setTimer(i, Timer{})
						r.Effects = append(r.Effects, Effect{Kind: EffCancelTimer, Action: ai, Timer: t, Ext: NoID})
					}
				}
			}
		case ActIf:
			for i, cond := range a.conds {
				if cond == nil || cond(*e) {
					if err := m.runBlock(e, a.blocks[i], r); err != nil {
						return err
					}
					break
				}
				if r.abort {
					break
				}
			}
			if r.abort {
				return nil
			}
		case ActForeach:
			// The body's environment is a copy the closure owns, so that
			// only a foreach moves one to the heap.
			be := *e
			if err := a.each(*e, func() error {
				if err := m.runBlock(&be, a.body, r); err != nil || r.abort {
					return errAbort(err)
				}
				return nil
			}); (err != nil && err != errAborted) || r.abort {
				return errOrNil(err)
			}
		case ActLog:
			lo := uint32(len(r.Text))
			r.Text = append(r.Text, a.text...)
			if a.val != nil {
				if a.text != "" {
					r.Text = append(r.Text, ": "...)
				}
				r.Text = a.val(*e).AppendTo(r.Text)
			}
			r.Effects = append(r.Effects, Effect{Kind: EffLog, Action: ai, TextLo: lo, TextHi: uint32(len(r.Text)), Ext: NoID, Timer: NoID})
			if r.abort {
				return nil
			}
		case ActAssign, ActScript:
			if a.do(*e); r.abort {
				return nil
			}
		case ActBlock:
			if err := m.runBlock(e, a.body, r); err != nil {
				return err
			}
			r.abort = false
		case ActResetContext:
			m.resetContext(c)
		}
	}
	return nil
}

// fill sets the slot waited for to v (fill action ai's value).
func (m *Machine) fill(c *Config, v Value, ai uint32) error {
	if c.Waiting == NoID {
		return m.notWaiting(c, ai)
	}
	if !v.IsEmpty() && (v.Kind != Text || m.slots[c.Waiting].typ != TypeText) {
		// Text into a text slot, the common case, needs no
		// conversion: no call.
		if err := m.coerce(c, c.Waiting, &v, m.acts[ai].pos); err != nil {
			return err
		}
	}
	c.SetSlot(c.Waiting, v)
	return nil
}

// notWaiting is the error of fill action ai when no slot is waited for.
func (m *Machine) notWaiting(c *Config, ai uint32) error {
	return m.rtErr(c, m.acts[ai].pos, "fill: no slot is being waited for")
}

// fullFlows is the error of push action ai on a full flow stack.
func (m *Machine) fullFlows(c *Config, ai uint32) error {
	return m.rtErr(c, m.acts[ai].pos, "push %s: flow stack is full (%d flows)", m.flows[m.acts[ai].flow].name, MaxFlowDepth)
}

// resetContext is reset_context: the slots that do not persist, the
// counters, the slot waited for and the flow stack are emptied.
func (m *Machine) resetContext(c *Config) {
	c.resetSlots(m.transient, func(i SlotID) bool { return m.slots[i].persist })
	c.clearContext()
}

// clearContext empties what reset_context empties besides the slots.
func (c *Config) clearContext() {
	c.Counters = [MaxCounters]int32{}
	c.Waiting = NoID
	for i := 0; i < int(c.FlowDepth); i++ {
		c.Flows[i] = NoID
	}
	c.FlowDepth = 0
}

// errAborted stops a foreach whose body raised an error: the rest of the
// block is skipped.
var errAborted = fmt.Errorf("block aborted")

// errOrNil is err, except errAborted, which is no error of the step.
func errOrNil(err error) error {
	if err == errAborted {
		return nil
	}
	return err
}

func errAbort(err error) error {
	if err != nil {
		return err
	}
	return errAborted
}

// send puts the event of send action a on the external queue after its
// delay: a pending instance of the send's timer, which the caller fires
// at its deadline like any timer (a delay of 0 makes the event the next
// one due). Unlike start, a send does not replace the event an earlier
// send left pending: both are delivered.
func (m *Machine) send(e evalEnv, ai uint32, a *action, r *Result) error {
	c := e.c
	var after int64
	if a.val != nil {
		v := a.val(e)
		d := v.Num
		if v.Kind == Text {
			var ok bool
			if d, ok = parseNumber(v.Str); !ok {
				d = math.NaN()
			}
		}
		if !(d >= 0 && d < maxDurationMS) {
			return m.rtErr(c, a.pos, "send %s: %v is not a delay in milliseconds", m.intents[m.timers[a.timer].event], v)
		}
		after = int64(d)
	}
	i := c.freeTimer()
	if i < 0 {
		return m.rtErr(c, a.pos, "send %s: more than %d timers and sends pending", m.intents[m.timers[a.timer].event], MaxTimers)
	}
	c.TimerSeq++
	if a.hold != nil {
		// Its data first: a send whose data fails (error.execution) is
		// not sent.
		if a.hold(e, c.TimerSeq); r.abort {
			return nil
		}
	}
	c.setTimer(i, Timer{Deadline: c.Now + after, Seq: c.TimerSeq, ID: a.timer, Active: true})
	r.Effects = append(r.Effects, Effect{Kind: EffStartTimer, Action: ai, Timer: a.timer, Deadline: c.Now + after, Ext: NoID})
	return nil
}

// emptyText treats empty text as an empty slot, so that a conditional
// expression can leave a slot unfilled.
func emptyText(v Value) Value {
	if v.Kind == Text && v.Str == "" {
		return Value{}
	}
	return v
}

// coerce converts a filled value to the slot's declared type: text given for
// a number slot is parsed, so that direct slot mapping of "3" fills 3.
func (m *Machine) coerce(c *Config, s SlotID, v *Value, pos Pos) error {
	switch m.slots[s].typ {
	case TypeText:
		if v.Kind != Text {
			*v = TextValue(v.String())
		}
	case TypeNumber:
		if v.Kind == Text {
			n, ok := parseNumber(v.Str)
			if !ok {
				return m.rtErr(c, pos, "fill: %q is not a number for slot %s", v.Str, m.slots[s].name)
			}
			*v = NumberValue(n)
		}
	case TypeBool:
		if v.Kind == Text {
			switch v.Str {
			case "true", "yes":
				*v = BoolValue(true)
			case "false", "no":
				*v = BoolValue(false)
			default:
				return m.rtErr(c, pos, "fill: %q is not a boolean for slot %s", v.Str, m.slots[s].name)
			}
		}
	}
	return nil
}

// NextTimer returns the pending timer that fires first, ordered by
// (deadline, sequence).
func (m *Machine) NextTimer(c *Config) (Timer, bool) {
	var best Timer
	for i := range c.Timers {
		t := &c.Timers[i]
		if t.Active && (!best.Active || t.Deadline < best.Deadline || (t.Deadline == best.Deadline && t.Seq < best.Seq)) {
			best = *t
		}
	}
	for i, n := InlineTimers, c.TimerSlots(); i < n; i++ {
		if t := c.TimerAt(i); !best.Active || t.Deadline < best.Deadline || (t.Deadline == best.Deadline && t.Seq < best.Seq) {
			best = t
		}
	}
	return best, best.Active
}

// Invoke evaluates the stub of external action x against c, as the
// simulator does when it performs an invoke effect: it fills ev with the
// done: or failed: event, outputs as entities, at virtual time at.
func (m *Machine) Invoke(c *Config, x ExtID, at int64, ev *Event) { m.InvokeIn(c, x, 0, at, ev) }

// InvokeIn is Invoke for an action that fork branch branch-1 invoked (0:
// the main machine): the stub sees the branch's context, and the event is
// addressed back to the branch.
func (m *Machine) InvokeIn(c *Config, x ExtID, branch uint8, at int64, ev *Event) {
	// Field by field: a literal is copied from a template with a
	// write-barrier-aware move of the whole event. The entities are
	// cleared last, past the outputs: no expression sees one beyond NEnt.
	ev.Kind, ev.Intent, ev.Timer, ev.Ext, ev.Branch = DoneEvent, 0, 0, x, branch
	ev.At, ev.Confidence, ev.Text, ev.Value = at, 1, "", ""
	ev.NEnt = 0
	ev.Payload, ev.Source, ev.Done = 0, 0, 0
	e := evalEnv{m: m, c: c, ev: ev, br: branch}
	xt := &m.exts[x]
	if xt.succeeds != nil && !xt.succeeds(e) {
		ev.Kind = FailedEvent
	} else {
		// By index: a range would copy each output (21 words).
		for i := range xt.outputs {
			o := &xt.outputs[i]
			ev.AddEntity(o.entity, o.x.value(e))
		}
	}
	for i := int(ev.NEnt); i < MaxEntities; i++ {
		ev.Entities[i] = Entity{}
	}
}
