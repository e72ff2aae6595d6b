package engine

import (
	"math/bits"
	"slices"
)

// This file holds the short way through a step that most steps of a
// conversation take: no parallel state active, so one atomic state (the
// Config's State) selects at most one transition per round, and a
// transition that records no history, enters no parallel state, and is
// not replaced by an override. For such a transition, the recommendation's
// microstep (micro.go) reduces to what settle does: the exits from the leaf
// up to the transition's domain, its actions, the entries down to its
// leaf. Skipping the general algorithm's selection set, conflict removal
// and per-transition bookkeeping is most of Step's time on the WORKLOAD
// machine (docs/one-interpreter.md). Whenever a precondition fails (a
// parallel state entered, an event on the internal queue, a transition
// that is not plain), the step goes on along the general path from where
// it is, so that both give the same Config and Result byte for byte
// (fast_test.go compares them on every bundled suite).

// prepareFast marks, once the tables are built, the transitions settle
// can take: those that record no history, resume none, enter no parallel
// state and that no override may replace, from every leaf that selects
// them (the states outside any parallel state's regions, whose candidate
// lists hold them), and compiles a plan for each.
func (m *Machine) prepareFast() {
	m.plans = make([]plan, len(m.trans))
	for i := range m.trans {
		tr, p := &m.trans[i], &m.plans[i]
		p.plain = tr.scope != scopeRegion && tr.override == "" && tr.history == histNone &&
			!tr.histPar && tr.regionPaths == nil && tr.regionHist == nil &&
			(tr.scope == scopeNone || len(m.overrides) == 0)
		p.quietExit, p.domain, p.to = true, tr.domain, tr.target
		if tr.target != NoID {
			p.to = tr.leaf
			p.ends = m.states[tr.leaf].final && m.states[tr.leaf].parent == NoID
			for _, s := range tr.enter {
				if m.states[s].fork != nil {
					p.plain = false
				}
			}
		}
	}
	for _, tab := range [][][]TransID{m.userTab, m.timerTab, m.doneTab, m.failTab, m.alwaysTab} {
		if len(m.states) == 0 {
			break
		}
		stride := len(tab) / len(m.states)
		for k, cands := range tab {
			leaf := StateID(k / stride)
			if m.states[leaf].forkRoot != NoID {
				// Only a parallel state's regions hold it: never the
				// Config's State.
				continue
			}
			for _, t := range cands {
				m.exitsFrom(&m.trans[t], &m.plans[t], leaf)
			}
		}
	}
	for i := range m.plans {
		if m.plans[i].plain {
			m.compilePlan(&m.trans[i], &m.plans[i])
		}
	}
}

// exitsFrom clears p.plain when tr, selected by leaf, leaves a state
// settle does not fire itself (one that records a history, a parallel state),
// and p.quietExit when a state it leaves has exit actions.
func (m *Machine) exitsFrom(tr *transition, p *plan, leaf StateID) {
	if tr.target == NoID {
		return
	}
	for s := leaf; s != tr.domain && s != NoID; s = m.states[s].parent {
		st := &m.states[s]
		if st.fork != nil || st.histShallow >= 0 || st.histDeep >= 0 {
			p.plain = false
		}
		if len(st.exit) > 0 {
			p.quietExit = false
		}
	}
}

// A plan is what settle does for a plain transition once its exits ran
// (they depend on the leaf it is taken from): its actions, then the
// entries down to its leaf, as one list of ops, the same actions in the
// same order as microstep's. An action of a kind that evaluates nothing
// but slots (most of a conversation's) is an op of a few words; a block
// holding any other is one op, run by runBlock. What no action can see
// is left out: the Config's State is set for an entered state only where
// something may read it (an error's message, an expression, a done
// event's data), since only those do.
type plan struct {
	ops        []op
	to, domain StateID // its leaf (NoID: no target) and its domain
	// plain: taken alone from a configuration without a parallel state,
	// from any leaf that selects it, settle fires the transition itself;
	// quietExit: the states it exits then run no exit actions; ends: its
	// leaf is a top-level final state.
	plain, quietExit, ends bool
}

// op is one step of a plan. An action's record (action) is 328 bytes,
// most of them for the kinds that evaluate expressions: an op holds what
// the kinds settle runs itself read.
type op struct {
	code opCode
	kind ValueKind // opSetSlot, opFillSlot: the slot's value as (slotAs)
	dst  uint16    // the slot, counter or flow it writes
	src  SlotID    // opSetSlot, opFillSlot: the slot it reads
	// st is the state whose entry it is part of (NoID: the transition's
	// own actions, run in the leaf it is taken from).
	st StateID
	id uint32 // the action, for Result.Actions
}

type opCode uint8

const (
	// The ops of the actions that make no call (settle runs them in a
	// loop of their own), on a machine whose slots are all in the
	// Config's array.
	opSetSlot      opCode = iota // set: {dst: src}
	opSetConst                   // set: {dst: a constant}
	opSetEvent                   // set: {dst: event.value}
	opFillSlot                   // fill: src
	opClearWaiting               // clear: waiting
	opClearSlot                  // clear: dst
	opAskNext                    // ask: next
	opAskNone                    // ask: none
	opAskSlot                    // ask: dst
	opIncr                       // incr: dst
	opReset                      // reset: dst
	opResetAll                   // reset: all
	opPush                       // push: dst
	opPop                        // pop
	opResetContext               // reset_context
	// The ops that make one (runOp).
	opInvoke   // invoke: dst (settle runs the main machine only)
	opClearAll // clear: all
	// opBlock is a block with an action of another kind: the
	// transition's own (st NoID) or st's entry actions, run by runBlock.
	opBlock
	// opEnter starts the entries: what ran so far is the transition's.
	opEnter
	// opFinal: st, a final state, was entered; its parent's done event
	// is raised.
	opFinal
	opCalls = opInvoke
)

// compilePlan fills in p.ops for plain transition tr: an op for each
// action when every action it runs is of a kind settle runs itself (on
// a machine whose slots all fit in the Config's array, where reading
// and writing one makes no call), else an op for each block.
func (m *Machine) compilePlan(tr *transition, p *plan) {
	flat := len(m.slots) <= InlineSlots && m.allOps(tr.actions)
	for _, s := range tr.enter {
		flat = flat && m.allOps(m.states[s].entry)
	}
	add := func(acts []uint32, s StateID) {
		if !flat && len(acts) > 0 {
			p.ops = append(p.ops, op{code: opBlock, st: s})
			return
		}
		for _, ai := range acts {
			o, _ := m.opOf(ai)
			o.st, o.id = s, ai
			p.ops = append(p.ops, o)
		}
	}
	add(tr.actions, NoID)
	entering := false
	for _, s := range tr.enter {
		st := &m.states[s]
		if len(st.entry) == 0 && !st.final {
			continue
		}
		if !entering {
			p.ops, entering = append(p.ops, op{code: opEnter}), true
		}
		add(st.entry, s)
		if st.final {
			p.ops = append(p.ops, op{code: opFinal, st: s})
		}
	}
}

// allOps reports whether every action of block acts is of a kind settle
// runs itself.
func (m *Machine) allOps(acts []uint32) bool {
	for _, ai := range acts {
		if _, ok := m.opOf(ai); !ok {
			return false
		}
	}
	return true
}

// opOf is action ai as an op, when it is of a kind settle runs itself.
func (m *Machine) opOf(ai uint32) (op, bool) {
	a := &m.acts[ai]
	o := op{dst: NoID, src: NoID}
	switch a.kind {
	case ActSet:
		o.dst = uint16(a.slot)
		switch a.x.shape {
		case shapeSlot:
			o.code, o.kind, o.src = opSetSlot, a.x.kind, a.x.sid
		case shapeConst:
			o.code = opSetConst
		case shapeEventValue:
			o.code = opSetEvent
		default:
			return o, false
		}
	case ActFill:
		if a.x.shape != shapeSlot {
			return o, false
		}
		o.code, o.kind, o.src = opFillSlot, a.x.kind, a.x.sid
	case ActClear:
		switch {
		case a.all:
			o.code = opClearAll
		case a.to == toWaiting:
			o.code = opClearWaiting
		default:
			o.code, o.dst = opClearSlot, uint16(a.slot)
		}
	case ActAsk:
		switch a.to {
		case toNext:
			o.code = opAskNext
		case toNone:
			o.code = opAskNone
		default:
			o.code, o.dst = opAskSlot, uint16(a.slot)
		}
	case ActIncr:
		o.code, o.dst = opIncr, uint16(a.counter)
	case ActReset:
		o.code, o.dst = opReset, uint16(a.counter)
		if a.all {
			o.code = opResetAll
		}
	case ActPush:
		o.code, o.dst = opPush, uint16(a.flow)
	case ActPop:
		o.code = opPop
	case ActInvoke:
		o.code, o.dst = opInvoke, uint16(a.ext)
	case ActResetContext:
		o.code = opResetContext
	default:
		return o, false
	}
	return o, true
}

// pickLeaf is pick, without a call for the common candidate list whose
// first transition has no guard.
func (m *Machine) pickLeaf(e *evalEnv, cands []TransID, r *Result) TransID {
	if m.trans[cands[0]].guard == nil {
		return cands[0]
	}
	return m.pick(e, cands, r)
}

// settle takes transition t (NoID: none), selected by the active leaf
// with its guards at r.Guards[lo:], then is macrostep while the
// configuration holds no active parallel state and the internal queue is
// empty: it takes the eventless transitions one at a time, and hands over
// to macrostep, at the same round, as soon as either stops being so.
//
// A transition that is not plain is the general microstep's, as a set of
// one. A plain one is fired here, in the loop (a call per transition is
// 3% of Step on the WORKLOAD machine): microstep for one transition
// taken from the active leaf, the same trace step, filled in at the same
// points (a step that fails part way leaves the same partial record), the
// same actions in the same order, the same configuration. Its exits are
// walked from the leaf, when Build found any with actions; the rest is
// its plan.
func (m *Machine) settle(e *evalEnv, t TransID, lo uint32, r *Result) error {
	c := e.c
	// n counts the eventless rounds, as macrostep does: -1 is the
	// event's own transition.
	for n := -1; ; n++ {
		if t != NoID {
			p := &m.plans[t]
			if !p.plain {
				if err := m.microstep1(e, t, lo, r); err != nil {
					return err
				}
				if c.NBranch != 0 && !c.Final {
					// It entered a parallel state: macrostep goes on.
					return m.macrostep(*e, r, n+1)
				}
			} else {
				leaf := c.State
				// The trace step is appended once, complete or, when an
				// action fails, as far as microstep would have filled it in.
				ghi, exitLo := uint32(len(r.Guards)), uint32(len(r.Actions))
				if !p.quietExit {
					if err := m.exitPlain(e, leaf, p.domain, r); err != nil {
						r.addStep(leaf, leaf, t, lo, ghi, 0, 0)
						return err
					}
				}
				actLo, actHi := uint32(len(r.Actions)), -1
				ops := p.ops
				// The ops that make no call run in a loop of their own: a
				// call in it would have the compiler save its registers on
				// every round. Each records its id as it starts (nothing
				// reads them while the ops run), where there is room
				// without append's call. An op that must make a call (its
				// kind's, a conversion, an error's) leaves the loop, its id
				// not recorded, for runOp; one that found no room for its
				// id runs again once there is.
				for i := 0; i < len(ops); i++ {
				calls:
					for ; i < len(ops); i++ {
						o := &ops[i]
						k := len(r.Actions)
						if o.code >= opCalls || k >= cap(r.Actions) {
							break
						}
						r.Actions = r.Actions[:k+1]
						r.Actions[k] = o.id
						switch o.code {
						case opSetSlot:
							c.slots[o.dst] = emptyText(slotAs(o.kind, c.slots[o.src]))
						case opSetConst:
							c.slots[o.dst] = emptyText(m.acts[o.id].x.cv)
						case opSetEvent:
							e.payload()
							c.slots[o.dst] = emptyText(TextValue(e.ev.Value))
						case opFillSlot:
							v := emptyText(slotAs(o.kind, c.slots[o.src]))
							if c.Waiting == NoID || !v.IsEmpty() && (v.Kind != Text || m.slots[c.Waiting].typ != TypeText) {
								r.Actions = r.Actions[:k]
								break calls
							}
							c.slots[c.Waiting] = v
						case opClearWaiting:
							if c.Waiting != NoID {
								c.slots[c.Waiting] = Value{}
							}
						case opClearSlot:
							c.slots[o.dst] = Value{}
						case opAskNext:
							c.Waiting = m.nextInline(c)
						case opAskNone:
							c.Waiting = NoID
						case opAskSlot:
							c.Waiting = SlotID(o.dst)
						case opIncr:
							c.Counters[o.dst]++
						case opReset:
							c.Counters[o.dst] = 0
						case opResetAll:
							c.Counters = [MaxCounters]int32{}
						case opPush:
							if int(c.FlowDepth) >= MaxFlowDepth {
								r.Actions = r.Actions[:k]
								break calls
							}
							c.Flows[c.FlowDepth] = FlowID(o.dst)
							c.FlowDepth++
						case opPop:
							if c.FlowDepth > 0 {
								c.FlowDepth--
								c.Flows[c.FlowDepth] = NoID
							}
						case opResetContext:
							// resetSlots without its call: no slot is beyond the
							// array.
							for mask := m.transient; mask != 0; mask &= mask - 1 {
								c.slots[bits.TrailingZeros32(mask)] = Value{}
							}
							c.clearContext()
						}
					}
					if i == len(ops) {
						break
					}
					o := &ops[i]
					if o.code < opCalls && len(r.Actions) >= cap(r.Actions) {
						r.Actions = slices.Grow(r.Actions, len(ops)-i)
						i--
					} else if o.code == opEnter {
						actHi = len(r.Actions)
					} else if err := m.runOp(e, t, o, r); err != nil {
						// As far as microstep would have filled it in: the
						// actions of the exits only, or with the transition's
						// own when an entry failed.
						if actHi < 0 {
							r.addStep(leaf, leaf, t, lo, ghi, actLo, 0)
						} else {
							r.addStep(leaf, leaf, t, lo, ghi, exitLo, uint32(actHi))
						}
						return err
					}
				}
				to := p.to
				if to == NoID {
					to = leaf
				}
				c.State, c.Final = to, p.ends
				r.addStep(leaf, to, t, lo, ghi, exitLo, uint32(len(r.Actions)))
			}
		}
		if c.Final {
			return nil
		}
		// A plain transition enters no parallel state (nor does step
		// hand one over): only the internal queue is left to look at.
		if r.nextInternal < len(r.internal) {
			return m.macrostep(*e, r, n+1)
		}
		cands := m.alwaysTab[c.State]
		if len(cands) == 0 {
			return nil
		}
		lo = uint32(len(r.Guards))
		if t = m.pickLeaf(e, cands, r); t == NoID {
			return nil
		}
		if n+1 >= m.maxChain {
			return m.chainErr(c, t)
		}
	}
}

// exitPlain runs the exit actions of the states a plain transition
// leaves, from leaf up to its domain. As exitStates: each state leaves the
// configuration once its exit actions ran.
func (m *Machine) exitPlain(e *evalEnv, leaf, domain StateID, r *Result) error {
	c := e.c
	for s := leaf; s != domain && s != NoID; s = m.states[s].parent {
		c.State = s
		if acts := m.states[s].exit; len(acts) > 0 {
			r.abort = false
			if err := m.runBlock(e, acts, r); err != nil {
				return err
			}
		}
	}
	c.State = leaf
	return nil
}

// runOp runs op o of transition t's plan, one that makes a call, or a
// call-free one that found it must make one (to convert a value, to
// report an error), and records the id of its action. It leaves the
// Config's State, when it fails, at the state microstep would have been
// in.
func (m *Machine) runOp(e *evalEnv, t TransID, o *op, r *Result) error {
	c := e.c
	if o.code < opBlock {
		r.Actions = append(r.Actions, o.id)
	}
	switch o.code {
	case opFillSlot:
		// The state first: its name is in the error's message.
		o.enter(c)
		return m.fill(c, emptyText(slotAs(o.kind, c.slots[o.src])), o.id)
	case opPush:
		o.enter(c)
		return m.fullFlows(c, o.id)
	case opInvoke:
		r.Effects = append(r.Effects, Effect{Kind: EffInvoke, Action: o.id, Ext: ExtID(o.dst), Timer: NoID})
	case opClearAll:
		c.ClearSlots()
	case opBlock:
		acts := m.trans[t].actions
		if o.st != NoID {
			c.State = o.st
			acts = m.states[o.st].entry
		}
		r.abort = false
		return m.runBlock(e, acts, r)
	case opFinal:
		c.State = o.st
		m.raiseDone(*e, m.states[o.st].parent, o.st, r)
	}
	return nil
}

// nextInline is nextEmpty on a machine whose slots are all in the
// Config's array, small enough to be inlined.
func (m *Machine) nextInline(c *Config) SlotID {
	if d := c.FlowDepth; d > 0 {
		for _, s := range m.flows[c.Flows[d-1]].slots {
			if c.slots[s].Kind == Empty {
				return s
			}
		}
	}
	return NoID
}

// enter sets the Config's State to the state whose entry o is part of,
// as microstep has it while the entry runs.
func (o *op) enter(c *Config) {
	if o.st != NoID {
		c.State = o.st
	}
}

// addStep appends a trace step of the main machine, its fields stored in
// place (a literal would be built on the stack and copied, and the copy's
// wide loads wait on the narrow stores).
func (r *Result) addStep(from, to StateID, t TransID, glo, ghi, alo, ahi uint32) {
	n := len(r.Steps)
	r.Steps = append(r.Steps, TraceStep{})
	st := &r.Steps[n]
	st.From, st.To, st.Trans, st.Overrode = from, to, t, NoID
	st.GuardLo, st.GuardHi, st.ActLo, st.ActHi = glo, ghi, alo, ahi
}

// microstep1 is the general microstep of the one transition t.
func (m *Machine) microstep1(e *evalEnv, t TransID, lo uint32, r *Result) error {
	sel := &r.sel
	sel.s[0] = chosen{t: t, scope: m.scope(t), lo: lo, hi: uint32(len(r.Guards))}
	sel.n = 1
	return m.microstep(e, sel, r)
}
