package engine

import "fmt"

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

// start puts c into the machine's initial configuration at virtual time at:
// it enters the initial states, runs their entry actions, then follows
// eventless transitions. The entry is recorded as a trace step with
// Trans == NoID and From == NoID.
func (m *Machine) start(c *Config, at int64, r *Result) error {
	*c = Config{Now: at, State: NoID, Waiting: NoID, LastSay: NoID}
	for i := range c.Flows {
		c.Flows[i] = NoID
	}
	r.reset()
	r.Handled = true
	e := evalEnv{m: m, c: c, ev: &noEvent, r: r}
	step := TraceStep{From: NoID, To: m.initial, Trans: NoID, Overrode: NoID, ActLo: uint32(len(r.Actions))}
	for _, s := range m.initPath {
		c.State = s
		if err := m.run(e, m.states[s].entry, r); err != nil {
			return err
		}
		if m.states[s].fork != nil {
			if err := m.startFork(e, s, r); err != nil {
				return err
			}
		}
	}
	c.State = m.initial
	c.Final = m.states[m.initial].final && m.states[m.initial].parent == NoID
	step.ActHi = uint32(len(r.Actions))
	r.Steps = append(r.Steps, step)
	if err := m.joinIfDone(e, r); err != nil {
		return err
	}
	return m.settle(e, r)
}

// step advances c by one event, in place. Copy c first to keep the
// configuration before the step. r is reset and then filled with the trace
// and effects; r.Handled is false when no transition took the event, which
// leaves c unchanged apart from the clock and what the event itself consumes
// or delivers: a timer that fell due is no longer pending, a fork branch's
// awaited result is consumed, and an action's outputs land in their slots.
//
// A timer event must carry the timer's deadline as At; a timer that is not
// pending (cancelled, or already fired) is ignored.
func (m *Machine) step(c *Config, ev *Event, r *Result) error {
	r.reset()
	if ev.At < c.Now {
		return m.rtErr(c, Pos{}, "event at %dms is before the current time %dms", ev.At, c.Now)
	}
	if c.Final {
		// A final configuration takes no transition, but a timer left
		// pending when it was reached still falls due: its event at its
		// deadline consumes it, as in any other state, or a caller firing
		// due timers would be handed the same one for ever.
		if ev.Kind == TimerEvent {
			if i := c.timerIndex(ev.Timer); i >= 0 && c.Timers[i].Deadline == ev.At {
				c.Timers[i] = Timer{}
			}
		}
		c.Now = ev.At
		return nil
	}
	if ev.Kind != TimerEvent {
		// A timer that falls due before the event must fire first; once the
		// clock passed its deadline it could never fire at it.
		if t, ok := m.NextTimer(c); ok && t.Deadline < ev.At {
			return m.rtErr(c, Pos{}, "event at %dms skips timer %s due at %dms (fire due timers first)", ev.At, m.timers[t.ID].name, t.Deadline)
		}
	}
	var cands []TransID
	switch ev.Kind {
	case UserEvent:
		if int(ev.Intent) >= len(m.intents) {
			return m.rtErr(c, Pos{}, "unknown intent id %d", ev.Intent)
		}
		cands = m.userTab[int(c.State)*len(m.intents)+int(ev.Intent)]
	case TimerEvent:
		if int(ev.Timer) >= len(m.timers) {
			return m.rtErr(c, Pos{}, "unknown timer id %d", ev.Timer)
		}
		i := c.timerIndex(ev.Timer)
		if i < 0 {
			c.Now = ev.At
			return nil
		}
		if c.Timers[i].Deadline != ev.At {
			return m.rtErr(c, Pos{}, "timer %s fired at %dms, but its deadline is %dms", m.timers[ev.Timer].name, ev.At, c.Timers[i].Deadline)
		}
		c.Timers[i] = Timer{}
		cands = m.timerTab[int(c.State)*len(m.timers)+int(ev.Timer)]
	case BranchEvent:
		return m.stepBranch(c, ev, r)
	case DoneEvent, FailedEvent:
		if int(ev.Ext) >= len(m.exts) {
			return m.rtErr(c, Pos{}, "unknown action id %d", ev.Ext)
		}
		if ev.Branch > 0 {
			return m.stepBranch(c, ev, r)
		}
		tab := m.doneTab
		if ev.Kind == FailedEvent {
			tab = m.failTab
		}
		cands = tab[int(c.State)*len(m.exts)+int(ev.Ext)]
		if ev.Kind == DoneEvent {
			// An action's outputs land in the slots they are named after.
			for i := 0; i < int(ev.NEnt); i++ {
				if s := m.entitySlot(ev.Entities[i].ID); s != NoID {
					c.Slots[s] = emptyText(ev.Entities[i].Value)
				}
			}
		}
	default:
		return m.rtErr(c, Pos{}, "unknown event kind %d", ev.Kind)
	}
	c.Now = ev.At
	e := evalEnv{m: m, c: c, ev: ev, r: r}
	lo := uint32(len(r.Guards))
	t := m.pick(e, cands, r)
	if t == NoID {
		return nil
	}
	r.Handled = true
	if err := m.fire(e, t, lo, r); err != nil {
		return err
	}
	return m.settle(e, r)
}

// pick returns the first candidate whose guard holds, recording each guard
// it evaluates.
func (m *Machine) pick(e evalEnv, cands []TransID, r *Result) TransID {
	for _, t := range cands {
		tr := &m.trans[t]
		if tr.guard == nil {
			return t
		}
		pass := tr.guard(e)
		r.Guards = append(r.Guards, GuardOutcome{Trans: t, Pass: pass})
		if pass {
			return t
		}
	}
	return NoID
}

// settle follows eventless transitions until none is enabled, or reports a
// runaway chain once the machine's bound is passed.
func (m *Machine) settle(e evalEnv, r *Result) error {
	for n := 0; !e.c.Final; n++ {
		lo := uint32(len(r.Guards))
		t := m.pick(e, m.alwaysTab[e.c.State], r)
		if t == NoID {
			return nil
		}
		if n >= m.maxChain {
			return m.rtErr(e.c, m.trans[t].pos, "eventless transitions did not settle after %d steps (a loop of always: transitions?)", m.maxChain)
		}
		if err := m.fire(e, t, lo, r); err != nil {
			return err
		}
	}
	return nil
}

// fire takes transition t: exit actions from the leaf up to the domain,
// the transition's actions, then entry actions down to the new leaf.
func (m *Machine) fire(e evalEnv, t TransID, guardLo uint32, r *Result) error {
	c := e.c
	tr := &m.trans[t]
	step := TraceStep{From: c.State, To: c.State, Trans: t, Overrode: NoID, GuardLo: guardLo}
	if tr.target != NoID && len(m.overrides) > 0 {
		if o := m.intercept(e, tr, r); o != NoID {
			step.Trans, step.Overrode = o, t
			tr = &m.trans[o]
		}
	}
	step.GuardHi, step.ActLo = uint32(len(r.Guards)), uint32(len(r.Actions))
	if tr.target == NoID {
		if err := m.run(e, tr.actions, r); err != nil {
			return err
		}
		step.ActHi = uint32(len(r.Actions))
		r.Steps = append(r.Steps, step)
		return nil
	}
	domain, enter := tr.domain, tr.enter
	if tr.override != "" {
		domain = m.domainOf(c.State, tr.target)
		enter = tr.rootPath
		if domain != NoID {
			enter = enter[m.states[domain].depth+1:]
		}
	}
	leftFork := false
	for x := c.State; x != domain && x != NoID; x = m.states[x].parent {
		leftFork = leftFork || m.states[x].fork != nil
		if err := m.run(e, m.states[x].exit, r); err != nil {
			return err
		}
	}
	if err := m.run(e, tr.actions, r); err != nil {
		return err
	}
	if leftFork {
		// Leaving a fork abandons its branches: a join was taken, or a
		// transition (a cancel) left the fork state. They are dropped only
		// now, so that the fork's exit actions and the transition's own
		// (a join saying how many failed) still read their outcome.
		c.clearFork()
	}
	for _, s := range enter {
		c.State = s
		if err := m.run(e, m.states[s].entry, r); err != nil {
			return err
		}
		if m.states[s].fork != nil {
			if err := m.startFork(e, s, r); err != nil {
				return err
			}
		}
	}
	c.State = tr.leaf
	c.Final = m.states[tr.leaf].final && m.states[tr.leaf].parent == NoID
	step.To = tr.leaf
	step.ActHi = uint32(len(r.Actions))
	r.Steps = append(r.Steps, step)
	return m.joinIfDone(e, r)
}

func (c *Config) clearFork() {
	for i := 0; i < int(c.NBranch); i++ {
		c.Branches[i] = Branch{}
	}
	c.NBranch, c.Finished = 0, 0
}

// startFork starts the branches of fork state s: one per fixed count, or
// one per "|"-separated part of the inputs slot, each entering the fork's
// initial path with its own context.
func (m *Machine) startFork(e evalEnv, s StateID, r *Result) error {
	c, fi := e.c, m.states[s].fork
	c.clearFork()
	n := fi.fixed
	inputs := ""
	if fi.inputs != NoID {
		inputs = c.Slots[fi.inputs].Str
		n = 0
		if inputs != "" {
			n = 1
			for i := 0; i < len(inputs); i++ {
				if inputs[i] == '|' {
					n++
				}
			}
		}
	}
	if n > MaxBranches {
		return m.rtErr(c, fi.startPos(m), "fork %s: %d branches, more than %d", m.states[s].path, n, MaxBranches)
	}
	c.NBranch = uint8(n)
	for i := 0; i < n; i++ {
		b := &c.Branches[i]
		*b = Branch{Status: BranchRunning, Pending: NoID}
		if fi.inputs != NoID {
			part := inputs
			if j := indexByte(inputs, '|'); j >= 0 {
				part, inputs = inputs[:j], inputs[j+1:]
			}
			b.Input = part
		}
		be := e
		be.br = uint8(i + 1)
		for _, x := range fi.start {
			b.State = x
			if err := m.run(be, m.states[x].entry, r); err != nil {
				return err
			}
		}
		m.branchEnded(c, i)
	}
	return nil
}

func (fi *forkInfo) startPos(m *Machine) Pos { return m.states[fi.start[0]].pos }

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// branchEnded marks branch i finished when its leaf is final.
func (m *Machine) branchEnded(c *Config, i int) {
	b := &c.Branches[i]
	if b.Status != BranchRunning || !m.states[b.State].final {
		return
	}
	b.Status = BranchDone
	if m.states[b.State].failed {
		b.Status = BranchFailed
	}
	c.Finished++
	b.Order = c.Finished
}

// stepBranch advances fork branch ev.Branch-1 by one transition: an
// eventless one for a BranchEvent, or the handler of its action's result.
func (m *Machine) stepBranch(c *Config, ev *Event, r *Result) error {
	i := int(ev.Branch) - 1
	if i >= int(c.NBranch) && ev.Kind != BranchEvent {
		// The result of an action invoked by a branch of a fork that has
		// since joined or been left: like the event of a cancelled timer,
		// it is ignored.
		c.Now = ev.At
		return nil
	}
	if i < 0 || i >= int(c.NBranch) {
		return m.rtErr(c, Pos{}, "no fork branch %d is running", i)
	}
	b := &c.Branches[i]
	var cands []TransID
	switch ev.Kind {
	case BranchEvent:
		if b.Status != BranchRunning || b.Pending != NoID {
			return m.rtErr(c, Pos{}, "fork branch %d cannot step (finished, or waiting for an action)", i)
		}
		cands = m.alwaysTab[b.State]
	default:
		if b.Pending != ev.Ext {
			return m.rtErr(c, Pos{}, "fork branch %d did not invoke %s", i, m.exts[ev.Ext].name)
		}
		b.Pending = NoID
		if b.Status != BranchRunning {
			// A branch that invoked the action as it ended takes no
			// further transition: its result is consumed.
			c.Now = ev.At
			return nil
		}
		tab := m.doneTab
		if ev.Kind == FailedEvent {
			tab = m.failTab
		}
		cands = tab[int(b.State)*len(m.exts)+int(ev.Ext)]
		if ev.Kind == DoneEvent {
			for k := 0; k < int(ev.NEnt); k++ {
				if s := m.entitySlot(ev.Entities[k].ID); s != NoID {
					c.Slots[s] = emptyText(ev.Entities[k].Value)
				}
			}
		}
	}
	c.Now = ev.At
	e := evalEnv{m: m, c: c, ev: ev, br: uint8(i + 1), r: r}
	root := m.states[b.State].forkRoot
	lo := uint32(len(r.Guards))
	t := TransID(NoID)
	for _, ct := range cands {
		tr := &m.trans[ct]
		// Only the branch's own states, not the fork state and above.
		if m.states[tr.source].forkRoot != root {
			continue
		}
		if tr.guard != nil {
			pass := tr.guard(e)
			r.Guards = append(r.Guards, GuardOutcome{Trans: ct, Pass: pass})
			if !pass {
				continue
			}
		}
		t = ct
		break
	}
	if t == NoID {
		return nil
	}
	r.Handled = true
	tr := &m.trans[t]
	step := TraceStep{From: b.State, To: b.State, Trans: t, Overrode: NoID, Branch: uint8(i + 1), GuardLo: lo, GuardHi: uint32(len(r.Guards)), ActLo: uint32(len(r.Actions))}
	if tr.target != NoID {
		for x := b.State; x != tr.domain && x != NoID; x = m.states[x].parent {
			if err := m.run(e, m.states[x].exit, r); err != nil {
				return err
			}
		}
	}
	if err := m.run(e, tr.actions, r); err != nil {
		return err
	}
	if tr.target != NoID {
		for _, s := range tr.enter {
			b.State = s
			if err := m.run(e, m.states[s].entry, r); err != nil {
				return err
			}
		}
		b.State = tr.leaf
		step.To = tr.leaf
	}
	step.ActHi = uint32(len(r.Actions))
	r.Steps = append(r.Steps, step)
	m.branchEnded(c, i)
	main := evalEnv{m: m, c: c, ev: ev, r: r}
	if err := m.joinIfDone(main, r); err != nil {
		return err
	}
	return m.settle(main, r)
}

// joinIfDone joins the active fork once every branch has finished: it
// merges the contracts into the fork's slot, records the join, and takes
// the first join transition whose guard holds.
func (m *Machine) joinIfDone(e evalEnv, r *Result) error {
	c := e.c
	fi := m.states[c.State].fork
	if fi == nil || c.Finished != c.NBranch {
		return nil
	}
	if len(r.Joins) >= m.maxChain {
		// A join that re-enters a fork whose branches end at once would
		// otherwise recurse without bound.
		return m.rtErr(c, m.states[c.State].pos, "forks did not settle after %d joins in one step (a join re-entering a fork whose branches end at once?)", m.maxChain)
	}
	j := Join{Fork: c.State, Trans: NoID, Branches: int(c.NBranch), Finished: int(c.Finished)}
	var merged []byte
	for k := 1; k <= int(c.NBranch); k++ {
		for i := 0; i < int(c.NBranch); i++ {
			b := &c.Branches[i]
			if (fi.byFinish && int(b.Order) != k) || (!fi.byFinish && i != k-1) {
				continue
			}
			j.Delivered++
			if b.Status == BranchFailed {
				j.Failed++
			}
			if b.Result != "" {
				if len(merged) > 0 {
					merged = append(merged, '\n')
				}
				merged = append(merged, b.Result...)
			}
		}
	}
	if fi.into != NoID {
		c.Slots[fi.into] = emptyText(TextValue(string(merged)))
	}
	lo := uint32(len(r.Guards))
	t := m.pick(e, fi.join, r)
	if t == NoID {
		return m.rtErr(c, m.states[c.State].pos, "fork %s joined, but no join transition applies", m.states[c.State].path)
	}
	j.Trans = t
	r.Joins = append(r.Joins, j)
	return m.fire(e, t, lo, r)
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

func (c *Config) timerIndex(id TimerID) int {
	for i := range c.Timers {
		if c.Timers[i].Active && c.Timers[i].ID == id {
			return i
		}
	}
	return -1
}

// maxDurationMS bounds a computed timer duration (about 30,000 years), so
// that the deadline cannot overflow.
const maxDurationMS = 1e15

// run performs actions in order, appending their ids and effects to r.
func (m *Machine) run(e evalEnv, acts []uint32, r *Result) error {
	c := e.c
	for _, ai := range acts {
		a := &m.acts[ai]
		r.Actions = append(r.Actions, ai)
		switch a.kind {
		case ActSet:
			c.Slots[a.slot] = emptyText(a.x.value(e))
		case ActFill:
			if c.Waiting == NoID {
				return m.rtErr(c, a.pos, "fill: no slot is being waited for")
			}
			v := emptyText(a.x.value(e))
			if v.IsEmpty() {
				c.Slots[c.Waiting] = v
				break
			}
			if err := m.coerce(c, c.Waiting, &v, a.pos); err != nil {
				return err
			}
			c.Slots[c.Waiting] = v
		case ActClear:
			switch {
			case a.all:
				for i := range m.slots {
					c.Slots[i] = Value{}
				}
			case a.text == "waiting":
				if c.Waiting != NoID {
					c.Slots[c.Waiting] = Value{}
				}
			default:
				c.Slots[a.slot] = Value{}
			}
		case ActAsk:
			switch a.text {
			case "next":
				c.Waiting = m.nextEmpty(c)
			case "none":
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
				return m.rtErr(c, a.pos, "push %s: flow stack is full (%d flows)", m.flows[a.flow].name, MaxFlowDepth)
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
			r.Text = a.tmpl.appendTo(e, r.Text)
			kind := EffSay
			if a.kind == ActEscalate {
				kind = EffEscalate
			} else {
				c.LastSay = uint16(ai)
			}
			r.Effects = append(r.Effects, Effect{Kind: kind, Action: ai, Template: uint16(ai), TextLo: lo, TextHi: uint32(len(r.Text)), Ext: NoID, Timer: NoID})
		case ActInvoke:
			if e.br > 0 {
				c.Branches[e.br-1].Pending = a.ext
			}
			r.Effects = append(r.Effects, Effect{Kind: EffInvoke, Action: ai, Ext: a.ext, Timer: NoID, Branch: e.br})
		case ActContract:
			if e.br == 0 {
				return m.rtErr(c, a.pos, "contract: not in a fork branch")
			}
			c.Branches[e.br-1].Result = a.x.s(e)
		case ActStart:
			after := m.timers[a.timer].afterMS
			if a.hasX {
				// A computed duration that is negative (or not a number)
				// would put the deadline before the clock, where the timer
				// could never fire and would block every later event.
				d := a.x.n(e)
				if !(d >= 0 && d < maxDurationMS) {
					return m.rtErr(c, a.pos, "start %s: %gms is not a duration", m.timers[a.timer].name, d)
				}
				after = int64(d)
			}
			i := c.timerIndex(a.timer)
			if i < 0 {
				for j := range c.Timers {
					if !c.Timers[j].Active {
						i = j
						break
					}
				}
			}
			if i < 0 {
				return m.rtErr(c, a.pos, "start %s: more than %d timers pending", m.timers[a.timer].name, MaxTimers)
			}
			c.TimerSeq++
			c.Timers[i] = Timer{Deadline: c.Now + after, Seq: c.TimerSeq, ID: a.timer, Active: true}
			r.Effects = append(r.Effects, Effect{Kind: EffStartTimer, Action: ai, Timer: a.timer, Deadline: c.Now + after, Ext: NoID})
		case ActCancel:
			if i := c.timerIndex(a.timer); i >= 0 {
				c.Timers[i] = Timer{}
				r.Effects = append(r.Effects, Effect{Kind: EffCancelTimer, Action: ai, Timer: a.timer, Ext: NoID})
			}
		case ActResetContext:
			for i := range m.slots {
				if !m.slots[i].persist {
					c.Slots[i] = Value{}
				}
			}
			c.Counters = [MaxCounters]int32{}
			c.Waiting = NoID
			for i := 0; i < int(c.FlowDepth); i++ {
				c.Flows[i] = NoID
			}
			c.FlowDepth = 0
		}
	}
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
	best := -1
	for i := range c.Timers {
		t := &c.Timers[i]
		if !t.Active {
			continue
		}
		if best < 0 || t.Deadline < c.Timers[best].Deadline ||
			(t.Deadline == c.Timers[best].Deadline && t.Seq < c.Timers[best].Seq) {
			best = i
		}
	}
	if best < 0 {
		return Timer{}, false
	}
	return c.Timers[best], true
}

// Invoke evaluates the stub of external action x against c, as the
// simulator does when it performs an invoke effect: it fills ev with the
// done: or failed: event, outputs as entities, at virtual time at.
func (m *Machine) Invoke(c *Config, x ExtID, at int64, ev *Event) { m.InvokeIn(c, x, 0, at, ev) }

// InvokeIn is Invoke for an action that fork branch branch-1 invoked (0:
// the main machine): the stub sees the branch's context, and the event is
// addressed back to the branch.
func (m *Machine) InvokeIn(c *Config, x ExtID, branch uint8, at int64, ev *Event) {
	*ev = Event{Kind: DoneEvent, Ext: x, At: at, Confidence: 1, Branch: branch}
	e := evalEnv{m: m, c: c, ev: ev, br: branch}
	xt := &m.exts[x]
	if xt.succeeds != nil && !xt.succeeds(e) {
		ev.Kind = FailedEvent
		return
	}
	for _, o := range xt.outputs {
		ev.AddEntity(o.entity, o.x.value(e))
	}
}
