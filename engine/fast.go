package engine

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
// lists hold them).
func (m *Machine) prepareFast() {
	for i := range m.trans {
		tr := &m.trans[i]
		tr.plain = tr.scope != scopeRegion && tr.override == "" && tr.history == histNone &&
			!tr.histPar && tr.regionPaths == nil && tr.regionHist == nil &&
			(tr.scope == scopeNone || len(m.overrides) == 0)
		tr.quietExit, tr.quietEnter = true, true
		if tr.target == NoID {
			continue
		}
		for _, s := range tr.enter {
			st := &m.states[s]
			if st.fork != nil {
				tr.plain = false
			}
			if len(st.entry) > 0 || st.final {
				tr.quietEnter = false
			}
		}
		tr.ends = m.states[tr.leaf].final && m.states[tr.leaf].parent == NoID
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
				m.exitsFrom(&m.trans[t], leaf)
			}
		}
	}
}

// exitsFrom clears tr.plain when tr, selected by leaf, leaves a state
// settle does not fire itself (one that records a history, a parallel state),
// and tr.quietExit when a state it leaves has exit actions.
func (m *Machine) exitsFrom(tr *transition, leaf StateID) {
	if tr.target == NoID {
		return
	}
	for s := leaf; s != tr.domain && s != NoID; s = m.states[s].parent {
		st := &m.states[s]
		if st.fork != nil || st.histShallow >= 0 || st.histDeep >= 0 {
			tr.plain = false
		}
		if len(st.exit) > 0 {
			tr.quietExit = false
		}
	}
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
// same actions in the same order, the same configuration. What Build
// found quiet (no exit or entry action on the way) is skipped: no action
// can see it.
func (m *Machine) settle(e *evalEnv, t TransID, lo uint32, r *Result) error {
	c := e.c
	// n counts the eventless rounds, as macrostep does: -1 is the
	// event's own transition.
	for n := -1; ; n++ {
		if t != NoID {
			tr := &m.trans[t]
			if !tr.plain {
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
				if !tr.quietExit {
					for s := leaf; s != tr.domain && s != NoID; s = m.states[s].parent {
						// As exitStates: each state leaves the configuration once its
						// exit actions ran.
						c.State = s
						if acts := m.states[s].exit; len(acts) > 0 {
							r.abort = false
							if err := m.runBlock(e, acts, r); err != nil {
								r.addStep(leaf, leaf, t, lo, ghi, 0, 0)
								return err
							}
						}
					}
					c.State = leaf
				}
				if acts := tr.actions; len(acts) > 0 {
					actLo := uint32(len(r.Actions))
					r.abort = false
					if err := m.runBlock(e, acts, r); err != nil {
						r.addStep(leaf, leaf, t, lo, ghi, actLo, 0)
						return err
					}
				}
				to := leaf
				if tr.target != NoID {
					if !tr.quietEnter {
						actHi := uint32(len(r.Actions))
						// As enterMain, without a parallel state to start.
						for _, s := range tr.enter {
							en := &m.states[s]
							c.State = s
							if len(en.entry) > 0 {
								r.abort = false
								if err := m.runBlock(e, en.entry, r); err != nil {
									r.addStep(leaf, leaf, t, lo, ghi, exitLo, actHi)
									return err
								}
							}
							if en.final {
								m.raiseDone(*e, en.parent, s, r)
							}
						}
					}
					to = tr.leaf
					c.State = to
					c.Final = tr.ends
				}
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
