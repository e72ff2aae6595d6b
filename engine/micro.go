package engine

// This file holds SCXML's event processing (the W3C recommendation's
// Appendix D: selectTransitions, removeConflictingTransitions, microstep,
// exitStates, enterStates), specialised to the configurations a Config
// holds: the main machine's one active leaf, or, while a parallel state is
// active, one leaf per region. A parallel: true state may hold others in
// its regions: the Config's regions then hold the atomic states of every
// region of every active parallel state, each at the position Build laid
// out for it (state.off), and a position whose region is not active holds
// NoID.

// atom is an active atomic state and the region it is in (i+1; 0: the main
// machine).
type atom struct {
	leaf StateID
	br   uint8
}

// atoms lists the active atomic states in document order: the main leaf,
// or each region's leaf in region order. only > 0 keeps region only-1
// alone (the result of an action that region invoked).
func (m *Machine) atoms(c *Config, only int, buf *[MaxBranches + 1]atom) []atom {
	if c.NBranch == 0 {
		buf[0] = atom{leaf: c.State}
		return buf[:1]
	}
	n := 0
	for i := 0; i < int(c.NBranch); i++ {
		if (only > 0 && i != only-1) || c.Branches[i].State == NoID {
			continue
		}
		buf[n] = atom{leaf: c.Branches[i].State, br: uint8(i + 1)}
		n++
	}
	return buf[:n]
}

// context returns the region context (i+1, or 0) in which transition t,
// selected by an atomic state of region br, evaluates its guard and runs
// its actions: the region's when t is declared inside the regions, the
// main machine's when it is declared on the parallel state or above. In a
// parallel: true state it is the first region its source spans, whichever
// region selected it, so that a transition of a nested parallel state is
// one however many of its regions select it.
func (m *Machine) context(t TransID, br uint8) uint8 {
	src := m.trans[t].source
	if src == NoID || m.states[src].forkRoot == NoID {
		return 0
	}
	if m.states[src].par {
		return m.states[src].off + 1
	}
	return br
}

// exitRange returns the regions transition t, selected in region br, exits
// when its scope is scopeRegion: those below its domain in a parallel:
// true state, region br alone in a fork.
func (m *Machine) exitRange(t TransID, br uint8) (lo, hi uint8) {
	tr := &m.trans[t]
	if tr.target != NoID && m.states[tr.target].par {
		return tr.exLo, tr.exHi
	}
	return br - 1, br
}

// chosen is one transition of a microstep's set.
type chosen struct {
	t TransID
	// br is the region whose atomic state selected it (i+1; 0: main); ctx
	// the context it runs in (see context).
	br, ctx uint8
	// scope is the extent of its exit set: scopeNone (targetless),
	// scopeRegion (inside regions exLo to exHi-1) or scopeAll (the whole
	// configuration below its domain, every region included).
	scope      uint8
	exLo, exHi uint8
	lo, hi     uint32 // its guards in Result.Guards
}

const (
	scopeNone uint8 = iota
	scopeRegion
	scopeAll
)

// selection is the optimal enabled transition set of one microstep, in
// document order.
type selection struct {
	n int
	s [MaxBranches + 1]chosen
}

// selectTransitions fills sel with the transitions the event enables, as SCXML's
// selectTransitions does: for each active atomic state in document order,
// the first transition (its own, then its ancestors', then the
// machine-level ones) whose trigger matches and whose guard holds; then
// conflicts are removed. tab[leaf*stride+col] lists a state's candidates;
// want, when not NoID, keeps only done.state.want transitions. e is a
// pointer (as for microstep and enterMain): the call, made once per event
// and once per eventless round, then passes its arguments in registers.
func (m *Machine) selectTransitions(e *evalEnv, tab [][]TransID, stride, col int, want StateID, only int, sel *selection, r *Result) {
	c := e.c
	sel.n = 0
	if c.NBranch == 0 {
		// Most states have no candidates for most events (nor eventless
		// transitions): those cost no call.
		cands := tab[int(c.State)*stride+col]
		if len(cands) == 0 {
			return
		}
		lo := uint32(len(r.Guards))
		var t TransID
		if want == NoID {
			t = m.pick(e, cands, r)
		} else {
			t = m.pickDone(*e, cands, want, r)
		}
		if t != NoID {
			sel.s[0] = chosen{t: t, scope: m.scope(t), lo: lo, hi: uint32(len(r.Guards))}
			sel.n = 1
		}
		return
	}
	for _, a := range m.atoms(c, only, &r.atoms) {
		lo := uint32(len(r.Guards))
		for _, t := range tab[int(a.leaf)*stride+col] {
			tr := &m.trans[t]
			if want != NoID && StateID(tr.trig.id) != want {
				continue
			}
			ce := *e
			ce.br = m.context(t, a.br)
			if tr.guard != nil {
				pass := tr.guard(ce)
				r.Guards = append(r.Guards, GuardOutcome{Trans: t, Pass: pass})
				if !pass {
					continue
				}
			}
			// A transition of the parallel state or above is one, whichever
			// region selects it; a fork's regions share their states, so
			// each region's copy of a transition inside them is its own.
			if !sel.has(t, ce.br) {
				ch := chosen{t: t, br: a.br, ctx: ce.br, scope: m.scope(t), lo: lo, hi: uint32(len(r.Guards))}
				if ch.scope == scopeRegion {
					ch.exLo, ch.exHi = m.exitRange(t, a.br)
				}
				sel.s[sel.n] = ch
				sel.n++
			}
			break
		}
	}
	if sel.n > 1 {
		m.removeConflictingTransitions(sel)
	}
}

// pickDone is pick for a done.state event: only the transitions it
// triggers.
func (m *Machine) pickDone(e evalEnv, cands []TransID, want StateID, r *Result) TransID {
	for _, t := range cands {
		tr := &m.trans[t]
		if StateID(tr.trig.id) != want {
			continue
		}
		if tr.guard != nil {
			pass := tr.guard(e)
			r.Guards = append(r.Guards, GuardOutcome{Trans: t, Pass: pass})
			if !pass {
				continue
			}
		}
		return t
	}
	return NoID
}

func (s *selection) has(t TransID, ctx uint8) bool {
	for i := 0; i < s.n; i++ {
		if s.s[i].t == t && s.s[i].ctx == ctx {
			return true
		}
	}
	return false
}

// scope classifies the exit set of transition t: a target inside the
// regions of a parallel state (Build allows one only from the same region)
// keeps the exit set inside that region.
func (m *Machine) scope(t TransID) uint8 { return m.trans[t].scope }

// scopeOf computes transition t's scope, once, for Build.
func (m *Machine) scopeOf(t TransID) uint8 {
	tr := &m.trans[t]
	switch {
	case tr.target == NoID:
		return scopeNone
	case m.states[tr.target].forkRoot != NoID:
		return scopeRegion
	}
	return scopeAll
}

// conflict reports whether the exit sets of a and b intersect: both exit
// something, and one exits every region or both exit in a common one.
func conflict(a, b *chosen) bool {
	if a.scope == scopeNone || b.scope == scopeNone {
		return false
	}
	return a.scope == scopeAll || b.scope == scopeAll || (a.exLo < b.exHi && b.exLo < a.exHi)
}

// removeConflictingTransitions is SCXML's removeConflictingTransitions: of two
// transitions whose exit sets intersect, the one whose source is a
// descendant of the other's preempts it; otherwise the one first in
// document order wins.
//
// It filters sel in place: the set kept so far is sel.s[:n], n never past
// the transition considered, so that no second selection (a kilobyte) is
// zeroed and copied back per event.
func (m *Machine) removeConflictingTransitions(sel *selection) {
	n := 0
	for i := 0; i < sel.n; i++ {
		t1 := sel.s[i]
		preempted := false
		var drop [MaxBranches + 1]bool
		for j := 0; j < n; j++ {
			t2 := &sel.s[j]
			if !conflict(&t1, t2) {
				continue
			}
			if m.descends(m.trans[t1.t].source, m.trans[t2.t].source) {
				drop[j] = true
			} else {
				preempted = true
				break
			}
		}
		if preempted {
			continue
		}
		k := 0
		for j := 0; j < n; j++ {
			if !drop[j] {
				sel.s[k] = sel.s[j]
				k++
			}
		}
		sel.s[k] = t1
		n = k + 1
	}
	sel.n = n
}

// descends reports whether state a is a proper descendant of state b (the
// root, NoID, is everyone's ancestor).
func (m *Machine) descends(a, b StateID) bool {
	if a == b || a == NoID {
		return false
	}
	if b == NoID {
		return true
	}
	for x := m.states[a].parent; x != NoID; x = m.states[x].parent {
		if x == b {
			return true
		}
	}
	return false
}

// macrostep runs the rest of SCXML's macrostep (the inner loop of the
// recommendation's mainEventLoop): eventless transitions until none is
// enabled, then the internal queue's events (done.state, raised events,
// error.execution) one at a time, each followed by eventless transitions
// again, until the machine is quiescent; it reports a runaway chain once
// the machine's bound is passed. n is the round it starts at (settle
// hands over part way).
func (m *Machine) macrostep(e evalEnv, r *Result, n int) error {
	c := e.c
	r.general = true
	sel := &r.sel
	for ; ; n++ {
		if c.Final {
			return nil
		}
		m.selectEventlessTransitions(&e, sel, r)
		if sel.n == 0 {
			if r.nextInternal >= len(r.internal) {
				return nil
			}
			if err := m.selectInternal(&e, sel, r); err != nil {
				return err
			}
			if sel.n == 0 {
				continue
			}
		}
		if n >= m.maxChain {
			return m.chainErr(c, sel.s[0].t)
		}
		if err := m.microstep(&e, sel, r); err != nil {
			return err
		}
	}
}

// chainErr reports a chain of eventless transitions longer than the
// machine's bound, at transition t, the one past it.
func (m *Machine) chainErr(c *Config, t TransID) error {
	return m.rtErr(c, m.trans[t].pos, "eventless transitions did not settle after %d steps (a loop of always: transitions?)", m.maxChain)
}

// selectInternal takes the next event off the internal queue and selects
// the transitions it enables; e.ev becomes the event, as the
// recommendation's _event, for the rest of the macrostep. It is macrostep's
// less travelled branch, kept out of its loop.
func (m *Machine) selectInternal(e *evalEnv, sel *selection, r *Result) error {
	c := e.c
	q := r.internal[r.nextInternal]
	r.nextInternal++
	switch q.kind {
	case queuedDone:
		if q.val.Kind != Empty || r.data != nil {
			// A final state's donedata: the done.state event carries it
			// as its value. A data model outside the Config sees the
			// event as _event.
			r.iev = Event{Kind: UserEvent, Intent: NoID, Timer: NoID, Ext: NoID, At: c.Now, Confidence: 1, Value: q.val.String(),
				Source: SourceInternal, Done: StateID(q.id)}
			e.ev = &r.iev
		}
		return m.selectDone(*e, StateID(q.id), sel, r)
	case queuedRaise, queuedError:
		r.iev = Event{Kind: UserEvent, Intent: IntentID(q.id), Timer: NoID, Ext: NoID, At: c.Now, Confidence: 1, Source: SourceInternal}
		if q.kind == queuedError {
			r.iev.Source = SourcePlatform
		}
		if q.key != 0 && r.data != nil {
			r.data.Take(q.key)
			r.iev.Payload = q.key
		}
		e.ev = &r.iev
		m.selectTransitions(e, m.userTab, len(m.intents), int(q.id), NoID, 0, sel, r)
	}
	return nil
}

// selectEventlessTransitions is the recommendation's: the transitions
// without an event whose guard holds, conflicts removed. Inlined; e is
// a pointer so that no evalEnv is copied for it.
func (m *Machine) selectEventlessTransitions(e *evalEnv, sel *selection, r *Result) {
	m.selectTransitions(e, m.alwaysTab, 1, 0, NoID, 0, sel, r)
}

// selectDone selects the transitions done.state.x triggers. For the active
// fork x, whose regions have all finished, it first merges their contracts
// into the fork's slot and records the join; a fork whose join
// transitions all fail their guards is a runtime error, as it would stay
// with its regions ended for ever.
func (m *Machine) selectDone(e evalEnv, x StateID, sel *selection, r *Result) error {
	c := e.c
	fi := m.states[x].fork
	join := fi != nil && !fi.parallel && c.State == x && c.Finished == c.NBranch
	var j Join
	if join {
		j = m.merge(c, x)
	}
	m.selectTransitions(&e, m.doneStateTab, 1, 0, x, 0, sel, r)
	if !join {
		return nil
	}
	j.Trans = NoID
	for i := 0; i < sel.n; i++ {
		if m.trans[sel.s[i].t].join {
			j.Trans = sel.s[i].t
		}
	}
	if j.Trans == NoID {
		return m.rtErr(c, m.states[x].pos, "fork %s joined, but no join transition applies", m.states[x].path)
	}
	r.Joins = append(r.Joins, j)
	return nil
}

// merge writes the contracts of fork x's regions into its into slot, in
// region or finish order, and returns the join's record.
func (m *Machine) merge(c *Config, x StateID) Join {
	fi := m.states[x].fork
	j := Join{Fork: x, Trans: NoID, Branches: int(c.NBranch), Finished: int(c.Finished)}
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
			if res := c.BranchResult(i); res != "" {
				if len(merged) > 0 {
					merged = append(merged, '\n')
				}
				merged = append(merged, res...)
			}
		}
	}
	if fi.into != NoID {
		c.SetSlot(fi.into, emptyText(TextValue(string(merged))))
	}
	return j
}

// raiseDone queues the internal event done.state.x when a transition
// listens for it; final, when not NoID, is the final state whose entry
// raised it, and its donedata the event's value.
func (m *Machine) raiseDone(e evalEnv, x, final StateID, r *Result) {
	if x == NoID {
		return
	}
	q := queued{kind: queuedDone, id: uint16(x)}
	if final != NoID && m.states[final].doneData != nil {
		// Evaluated even when no transition listens: an error in it
		// raises error.execution all the same.
		q.val = m.states[final].doneData(e)
	}
	if m.states[x].heard {
		r.internal = append(r.internal, q)
	}
}

// microstep takes the transitions of sel together, as SCXML does: every
// state they exit (deepest first, in reverse document order), then their
// actions in document order, then every state they enter (outermost
// first, in document order). Each transition is one trace step; the
// exits are part of the first step's actions and the entries of the
// last's.
func (m *Machine) microstep(e *evalEnv, sel *selection, r *Result) error {
	c := e.c
	r.general = true
	// The trace steps are written into r.Steps at once (its capacity is
	// kept from step to step, so this does not allocate) and filled in
	// as the microstep runs.
	base := len(r.Steps)
	global := -1
	for k := 0; k < sel.n; k++ {
		ch := &sel.s[k]
		st := TraceStep{From: c.State, To: c.State, Trans: ch.t, Overrode: NoID, GuardLo: ch.lo, GuardHi: ch.hi}
		if ch.br > 0 && ch.scope != scopeAll {
			st.From, st.To, st.Branch = c.Branches[ch.br-1].State, c.Branches[ch.br-1].State, ch.br
		}
		if ch.scope == scopeAll {
			global = k
			if len(m.overrides) > 0 {
				lo := uint32(len(r.Guards))
				if o := m.intercept(*e, &m.trans[ch.t], r); o != NoID {
					st.Trans, st.Overrode = o, ch.t
				}
				if uint32(len(r.Guards)) > lo {
					if st.GuardHi != lo {
						st.GuardLo = lo
					}
					st.GuardHi = uint32(len(r.Guards))
				}
			}
		}
		r.Steps = append(r.Steps, st)
	}
	exitLo := uint32(len(r.Actions))
	// Assigned field by field: a composite literal would be built in a
	// temporary and copied.
	var x microState
	x.sel, x.steps, x.global = sel, r.Steps[base:], global
	if err := m.exitStates(e, &x); err != nil {
		return err
	}
	if err := m.executeTransitionContent(e, &x); err != nil {
		return err
	}
	x.steps[0].ActLo = exitLo
	if err := m.enterStates(e, &x); err != nil {
		return err
	}
	x.steps[sel.n-1].ActHi = uint32(len(r.Actions))
	if c.NBranch > 0 {
		m.regionsEnded(*e, r)
	}
	return nil
}

// microState is the microstep being taken, which exitStates,
// executeTransitionContent and enterStates share: its transitions (sel)
// and their trace steps, the transition of the set that exits the whole
// configuration below its domain (global, -1: none), that domain, the
// states it enters below it, and whether it left a parallel state's
// regions. It is passed by pointer, beside a pointer to the evalEnv
// (whose r is the Result), so that the three calls pass two words in
// registers rather than a dozen, some on the stack: Step's time per
// transition. The microstep's own evalEnv is shared that way too; a
// region's context is set on a copy.
type microState struct {
	sel         *selection
	steps       []TraceStep
	global      int
	domain      StateID
	enter       []StateID
	leftRegions bool
}

// exitStates is the recommendation's: it exits the states the
// transitions of x.sel leave, deepest first, in reverse document order,
// recording histories and running exit actions.
func (m *Machine) exitStates(e *evalEnv, x *microState) error {
	sel, r := x.sel, e.r
	c := e.c
	if x.global < 0 {
		for k := sel.n - 1; k >= 0; k-- {
			ch := &sel.s[k]
			if ch.scope != scopeRegion {
				continue
			}
			if err := m.exitBelow(*e, m.trans[ch.t].domain, ch.exLo, ch.exHi, r); err != nil {
				return err
			}
		}
		return nil
	}
	tr := &m.trans[x.steps[x.global].Trans]
	x.domain, x.enter = tr.domain, tr.enter
	if tr.override != "" {
		x.domain = m.domainOf(c.State, tr.target)
		x.enter = tr.rootPath
		if x.domain != NoID {
			x.enter = x.enter[m.states[x.domain].depth+1:]
		}
	}
	prev, leaf := c.State, c.State
	for s := c.State; s != x.domain && s != NoID; s = m.states[s].parent {
		st := &m.states[s]
		if st.fork != nil {
			x.leftRegions = true
			if m.nHist > 0 {
				m.recordPositions(c, s, x.domain)
			}
			if err := m.exitRegions(*e, s, r); err != nil {
				return err
			}
		}
		if m.nHist > 0 {
			m.record(c, s, prev, leaf)
		}
		// The recommendation takes each state out of the configuration
		// once its onexit ran: an ancestor's onexit sees it gone (In()).
		// The transition's content still sees the source's leaf, as
		// machine.yaml's actions read it.
		c.State = s
		if err := m.run(*e, st.exit, r); err != nil {
			return err
		}
		prev = s
	}
	c.State = leaf
	return nil
}

// executeTransitionContent is the recommendation's: the transitions'
// actions, in document order, each in its region's context.
func (m *Machine) executeTransitionContent(e *evalEnv, x *microState) error {
	sel, steps, r := x.sel, x.steps, e.r
	act := uint32(len(r.Actions))
	for k := 0; k < sel.n; k++ {
		te := *e
		te.br = sel.s[k].ctx
		steps[k].ActLo = act
		if err := m.run(te, m.trans[steps[k].Trans].actions, r); err != nil {
			return err
		}
		act = uint32(len(r.Actions))
		steps[k].ActHi = act
	}
	return nil
}

// enterStates is the recommendation's: it enters the states the
// transitions of sel lead to, outermost first, in document order (a
// history resumed where it was recorded), running entry actions.
func (m *Machine) enterStates(e *evalEnv, x *microState) error {
	sel, steps, r := x.sel, x.steps, e.r
	c := e.c
	if x.global >= 0 {
		if x.leftRegions {
			// Leaving a parallel state abandons its regions: they are
			// dropped only now, so that its exit actions and the
			// transition's own (a join saying how many failed) still read
			// their outcome.
			c.clearFork()
		}
		tr := &m.trans[steps[x.global].Trans]
		enter, leaf, into := x.enter, tr.leaf, tr.regionPaths
		if tr.regionHist != nil || tr.nested != nil || tr.histPar || tr.history != histNone {
			if err := m.enterResumed(e, tr, &enter, &into, &leaf); err != nil {
				return err
			}
		} else if err := m.enterMain(e, enter, into, r); err != nil {
			return err
		}
		c.State = leaf
		c.Final = m.states[leaf].final && m.states[leaf].parent == NoID
		steps[x.global].To = leaf
		return nil
	}
	for k := 0; k < sel.n; k++ {
		ch := &sel.s[k]
		if ch.scope != scopeRegion {
			continue
		}
		re := *e
		re.br = ch.br
		tr := &m.trans[ch.t]
		enter, resume, leaf, dflt := tr.enter, []StateID(nil), tr.leaf, false
		if tr.history != histNone {
			enter, resume, leaf, dflt = m.resume(c, tr)
			if tr.history == histDeep && !dflt {
				m.loadPositions(c, tr.target, r)
			}
		}
		// Paths into parallel states below the target, and histories,
		// are rare: the common transition sets and clears nothing.
		rare := tr.nested != nil || tr.regionHist != nil || tr.history != histNone
		if rare {
			r.nested = tr.nested
			if dflt {
				r.nested = tr.histNested
			}
			if tr.regionHist != nil {
				m.resumeInRegions(c, tr, r)
			}
		}
		err := m.enterRegion(re, enter, r)
		if err == nil && dflt {
			err = m.run(re, tr.histActs, r)
		}
		if err == nil && resume != nil {
			err = m.enterRegion(re, resume, r)
		}
		if rare {
			r.resume, r.nested, r.histRun = r.resume[:0], nil, r.histRun[:0]
		}
		if err != nil {
			return err
		}
		steps[k].To = leaf
	}
	return nil
}

// enterResumed is enterStates' entry for a transition of the main
// machine that resumes a history or enters parallel states nested in
// regions (the rare ones, kept out of the common path): enter, into and
// leaf are the transition's, changed to what its histories recorded.
func (m *Machine) enterResumed(e *evalEnv, tr *transition, enter *[]StateID, into *[][]StateID, leaf *StateID) error {
	c, r := e.c, e.r
	var resume []StateID
	var dflt bool
	switch {
	case tr.regionHist != nil:
		*into = m.resumeInRegions(c, tr, r)
	case tr.nested != nil:
		r.nested = tr.nested
	case tr.histPar:
		*enter, *into, *leaf, dflt = m.resumeRegions(c, tr, r)
	case tr.history != histNone:
		*enter, resume, *leaf, dflt = m.resume(c, tr)
	}
	if dflt {
		r.nested = tr.histNested
	}
	err := m.enterMain(e, *enter, *into, r)
	r.resume = r.resume[:0]
	if err == nil && dflt {
		err = m.run(*e, tr.histActs, r)
	}
	if err == nil && resume != nil {
		// A deep history that recorded a parallel state resumes each of
		// its regions where it was, as the recommendation enters every
		// atomic state the history recorded.
		var in [][]StateID
		if tr.history == histDeep && !dflt && m.states[*leaf].fork != nil {
			in = m.resumeEach(c, *leaf, int(m.states[tr.target].histPos), r)
		}
		err = m.enterMain(e, resume, in, r)
	}
	r.resume, r.nested, r.histRun = r.resume[:0], nil, r.histRun[:0]
	return err
}

// enterRegion enters the states of path inside a parallel state,
// outermost first: in fork branch e.br, or, in a parallel: true state, in
// the region each state is laid out in. A parallel state on the path
// starts its regions once its own entry actions ran.
func (m *Machine) enterRegion(e evalEnv, path []StateID, r *Result) error {
	c := e.c
	for _, s := range path {
		st := &m.states[s]
		re := e
		if st.par {
			re.br = st.off + 1
		}
		c.Branches[re.br-1].State = s
		if err := m.run(re, st.entry, r); err != nil {
			return err
		}
		if len(r.histRun) > 0 {
			if err := m.runHistDefaults(re, s, r); err != nil {
				return err
			}
		}
		if fi := st.fork; fi != nil {
			for _, rp := range fi.regions {
				pos := m.states[rp[0]].off
				if pos != st.off {
					c.Branches[pos] = Branch{State: NoID, Pending: NoID}
				}
				if p := r.nestedPath(rp[0]); p != nil {
					// A transition's target in the region.
					rp = p
				} else if int(pos) < len(r.resume) && r.resume[pos] != 0 && m.InState(r.resume[pos]-1, rp[0]) {
					// A deep history resumed: where the region was.
					rp = m.resumePath(r.resume[pos]-1, s)
				}
				if err := m.enterRegion(re, rp, r); err != nil {
					return err
				}
			}
		}
		// A final state raises its parent's done.state, a region's
		// included; a fork's branch ending raises nothing by itself (its
		// fork's event waits for every branch). In a parallel state
		// nested in another, the final state that completes every region
		// raises the nested state's done.state too, as SCXML's
		// enterStates does (the outermost one's is regionsEnded's).
		if p := st.parent; st.final && m.states[p].fork == nil {
			m.raiseDone(re, p, s, r)
			if q := m.states[p].parent; q != NoID && m.states[q].fork != nil && m.states[q].par && m.regionsFinal(c, q) {
				m.raiseDone(re, q, NoID, r)
			}
		}
	}
	return nil
}

// runHistDefaults runs the default content of the histories the
// transition resumes that recorded nothing and whose state s has just
// been entered, before the states below it.
func (m *Machine) runHistDefaults(e evalEnv, s StateID, r *Result) error {
	for _, rh := range r.histRun {
		if rh.x == s {
			if err := m.run(e, rh.acts, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// nestedPath returns the path the transition being taken gives region
// root ch of a parallel state nested in a region, or nil.
func (r *Result) nestedPath(ch StateID) []StateID {
	for i := range r.nested {
		if r.nested[i].ch == ch {
			return r.nested[i].path
		}
	}
	return nil
}

// regionsFinal reports whether every region of parallel state q is in a
// final state.
func (m *Machine) regionsFinal(c *Config, q StateID) bool {
	for _, ch := range m.states[q].children {
		leaf := c.Branches[m.states[ch].off].State
		if leaf == NoID || !m.states[leaf].final || m.states[leaf].parent != ch {
			return false
		}
	}
	return true
}

// recordPositions keeps, as parallel state p is exited and before its
// regions' exits clear the positions of parallel states nested in them,
// the atomic state at each region position in the deep histories that
// resume them: p's own, and those of its ancestors exited with it (up to
// domain, the first one that is not).
func (m *Machine) recordPositions(c *Config, p, domain StateID) {
	for a := p; a != domain && a != NoID; a = m.states[a].parent {
		if b := int(m.states[a].histPos); b >= 0 {
			for i := 0; i < int(m.states[a].histWidth); i++ {
				v := StateID(0) // none
				if i < int(c.NBranch) {
					v = c.Branches[i].State + 1 // NoID+1 is 0: none
				}
				c.SetHist(b+i, v)
			}
		}
	}
}

// recordRegions keeps, before any state below top in regions lo to hi-1
// is exited (and its region cleared), the atomic state at each position
// of the states whose deep history records their positions (a state in a
// region that is or holds a parallel state): as the recommendation
// records every history before the first onexit runs.
func (m *Machine) recordRegions(c *Config, top StateID, lo, hi uint8) {
	for i := int(lo); i < int(hi); i++ {
		for x := c.Branches[i].State; x != top && x != NoID; x = m.states[x].parent {
			s := &m.states[x]
			if int(s.off) != i {
				break
			}
			if s.histPos < 0 || !s.par {
				continue
			}
			for k := 0; k < int(s.histWidth); k++ {
				c.SetHist(int(s.histPos)+k, c.Branches[i+k].State+1)
			}
		}
	}
}

// record keeps, as state x is exited with leaf the atomic state active
// below it and child its child on the way, what x's histories resume: the
// child (shallow) and the leaf (deep). SCXML records them before any exit
// action runs; no exit action can change which states are active, so
// recording state by state is the same.
func (m *Machine) record(c *Config, x, child, leaf StateID) {
	s := &m.states[x]
	if s.histShallow >= 0 {
		c.SetHist(int(s.histShallow), child+1)
	}
	if s.histDeep >= 0 {
		c.SetHist(int(s.histDeep), leaf+1)
		if s.histPos >= 0 && !s.par && m.states[leaf].fork == nil {
			// Left from an atomic state: no region position to resume,
			// and none kept, so that the configuration is the same as
			// for a history that never held a parallel state.
			for i := 0; i < int(s.histWidth); i++ {
				c.SetHist(int(s.histPos)+i, 0)
			}
		}
	}
}

// resume returns the states transition tr enters when it resumes its
// target's history, in two parts (down to the target, then the recorded
// states and, for a shallow history, the initial children below them),
// and the leaf it ends in. A history with nothing recorded takes its
// default transition (dflt): to the target's initial states, or to
// histDef, whose actions the caller runs between the two parts.
func (m *Machine) resume(c *Config, tr *transition) (enter, rest []StateID, leaf StateID, dflt bool) {
	s := &m.states[tr.target]
	var rec StateID
	if tr.history == histShallow {
		rec = c.HistAt(int(s.histShallow))
	} else {
		rec = c.HistAt(int(s.histDeep))
	}
	if rec == 0 {
		switch {
		case tr.histDef != nil:
			return tr.enter[:tr.histCut], tr.histDef, tr.histDef[len(tr.histDef)-1], true
		case tr.histNested != nil:
			// The default is in the regions of the target, a parallel
			// state (Result.nested).
			return tr.enter[:tr.histCut], nil, tr.target, true
		}
		return tr.enter, nil, tr.leaf, false
	}
	leaf = rec - 1
	if tr.history == histShallow {
		leaf = m.states[leaf].initLeaf
	}
	if s.par {
		// In a region, a deep history resumes the parallel states below
		// the target from its recorded positions (Result.resume): the
		// path stops at the first, or is empty for a parallel target.
		if s.fork != nil {
			return tr.enter[:tr.histCut], nil, leaf, false
		}
		return tr.enter[:tr.histCut], m.resumePath(leaf, tr.target), leaf, false
	}
	return tr.enter[:tr.histCut], m.states[leaf].rootPath[s.depth+1:], leaf, false
}

// loadPositions puts the region positions state x's deep history
// recorded (x is in a region) into Result.resume, by position, for the
// parallel states entered below x.
func (m *Machine) loadPositions(c *Config, x StateID, r *Result) {
	s := &m.states[x]
	if s.histPos < 0 || !s.par {
		return
	}
	for len(r.resume) < int(s.off)+int(s.histWidth) {
		r.resume = append(r.resume, 0)
	}
	for k := 0; k < int(s.histWidth); k++ {
		r.resume[int(s.off)+k] = c.HistAt(int(s.histPos) + k)
	}
}

// resumeRegions is resume for the deep history of a parallel state:
// the states down to it, and, per region, the path down to the atomic
// state the region's root recorded. With nothing recorded, it takes the
// default transition, which enters the regions that histDef is not in
// by their initial states.
func (m *Machine) resumeRegions(c *Config, tr *transition, r *Result) (enter []StateID, into [][]StateID, leaf StateID, dflt bool) {
	p := &m.states[tr.target]
	enter = tr.enter[:tr.histCut]
	if c.HistAt(int(p.histDeep)) == 0 {
		r.into = r.into[:0]
		for _, ch := range p.children {
			var path []StateID
			if len(tr.histDef) > 0 && tr.histDef[0] == ch {
				path = tr.histDef
			}
			r.into = append(r.into, path)
		}
		return enter, r.into, tr.target, true
	}
	return enter, m.resumeEach(c, tr.target, int(p.histPos), r), tr.target, false
}

// resumeEach returns the path by which each region of parallel state p
// resumes the atomic state recorded at its position, in the Config.Hist
// entries from base on (nil: its initial states), and keeps every
// position's record in Result.resume for the parallel states nested in
// the regions.
func (m *Machine) resumeEach(c *Config, p StateID, base int, r *Result) [][]StateID {
	ps := &m.states[p]
	r.resume = r.resume[:0]
	for i := 0; i < int(ps.width); i++ {
		r.resume = append(r.resume, c.HistAt(base+i))
	}
	r.into = r.into[:0]
	for _, ch := range ps.children {
		var path []StateID
		if rec := r.resume[m.states[ch].off]; rec != 0 {
			path = m.resumePath(rec-1, p)
		}
		r.into = append(r.into, path)
	}
	return r.into
}

// resumePath is the path from below state above down to leaf, or to the
// first parallel state on the way, whose regions are entered from
// Result.resume in turn.
func (m *Machine) resumePath(leaf, above StateID) []StateID {
	rp := m.states[leaf].rootPath
	start := int(m.states[above].depth) + 1
	for j := start; j < len(rp); j++ {
		if m.states[rp[j]].fork != nil {
			return rp[start : j+1]
		}
	}
	return rp[start:]
}

// resumeInRegions returns the paths by which a transition into the
// regions of a parallel state of the main machine enters them when some
// of its targets resume a history: where it was recorded, or the compiled
// default. Those in the regions of nested parallel states are set in
// Result.nested, and a deep history's region positions in Result.resume.
func (m *Machine) resumeInRegions(c *Config, tr *transition, r *Result) [][]StateID {
	into := tr.regionPaths
	if into != nil {
		into = append(r.into[:0], tr.regionPaths...)
		r.into = into
	}
	r.nestBuf = append(r.nestBuf[:0], tr.nested...)
	r.nested = r.nestBuf
	for _, rh := range tr.regionHist {
		rec := c.HistAt(rh.slot)
		if rec == 0 {
			if rh.acts != nil {
				r.histRun = append(r.histRun, rh)
			}
			continue
		}
		leaf := rec - 1
		if rh.shallow {
			leaf = m.states[leaf].initLeaf
		} else {
			m.loadPositions(c, rh.x, r)
		}
		// What the history recorded replaces its default's paths in the
		// regions below it.
		n := 0
		for _, rp := range r.nested {
			if !m.descends(rp.ch, rh.x) {
				r.nested[n] = rp
				n++
			}
		}
		r.nested = r.nested[:n]
		if m.states[rh.x].fork != nil {
			// A parallel target's regions resume from Result.resume.
			continue
		}
		p := m.resumePath(leaf, rh.q)
		if rh.k >= 0 {
			into[rh.k] = p
			continue
		}
		for i := range r.nested {
			if r.nested[i].ch == rh.ch {
				r.nested[i].path = p
			}
		}
	}
	return into
}

// enterMain enters the states of path in the main machine, outermost
// first: a parallel state starts its regions once its own entry actions
// ran, and a final state raises its parent's done.state event.
func (m *Machine) enterMain(e *evalEnv, path []StateID, into [][]StateID, r *Result) error {
	c := e.c
	for _, s := range path {
		st := &m.states[s]
		c.State = s
		if err := m.run(*e, st.entry, r); err != nil {
			return err
		}
		if st.fork != nil {
			if err := m.startRegions(*e, s, into, r); err != nil {
				return err
			}
		}
		if st.final {
			m.raiseDone(*e, st.parent, s, r)
		}
	}
	return nil
}

// exitRegions runs, as parallel state p is left, the exit actions of the
// states its regions are in.
func (m *Machine) exitRegions(e evalEnv, p StateID, r *Result) error {
	return m.exitBelow(e, p, 0, e.c.NBranch, r)
}

// exitBelow exits the states below top that regions lo to hi-1 are in, in
// SCXML's exit order (reverse document order): the last region first,
// each from its leaf up to top. In a parallel: true state, a state that
// spans several regions (a nested parallel state, the states around it)
// is exited with the first of them, after the others; a region whose
// states are all exited so is no longer active.
func (m *Machine) exitBelow(e evalEnv, top StateID, lo, hi uint8, r *Result) error {
	c := e.c
	if m.regionDeep {
		m.recordRegions(c, top, lo, hi)
	}
	for i := int(hi) - 1; i >= int(lo); i-- {
		leaf := c.Branches[i].State
		if leaf == NoID {
			continue
		}
		re := e
		re.br = uint8(i + 1)
		prev := leaf
		x := leaf
		for ; x != top && x != NoID; x = m.states[x].parent {
			if m.states[x].par && int(m.states[x].off) != i {
				break
			}
			m.record(c, x, prev, leaf)
			if err := m.run(re, m.states[x].exit, r); err != nil {
				return err
			}
			prev = x
		}
		if x != top && x != NoID {
			c.Branches[i] = Branch{State: NoID, Pending: NoID}
		}
	}
	return nil
}

// startRegions starts the regions of parallel state s: one per child of a
// parallel: true state, or, for a fork, one per fixed count or per
// "|"-separated part of the inputs slot, each entering its initial path
// with its own context, in region order.
func (m *Machine) startRegions(e evalEnv, s StateID, into [][]StateID, r *Result) error {
	c, fi := e.c, m.states[s].fork
	c.clearFork()
	n := fi.fixed
	inputs := ""
	if fi.inputs != NoID {
		inputs = c.Slot(fi.inputs).Str
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
		return m.rtErr(c, m.states[fi.start[0]].pos, "fork %s: %d branches, more than %d", m.states[s].path, n, MaxBranches)
	}
	c.NBranch = uint8(n)
	if fi.parallel {
		c.NBranch = m.states[s].width
		for i := range c.NBranch {
			c.Branches[i] = Branch{State: NoID, Pending: NoID}
		}
	}
	for i := 0; i < n; i++ {
		p := i
		if fi.parallel {
			p = int(m.states[fi.regions[i][0]].off)
		}
		b := &c.Branches[p]
		*b = Branch{Status: BranchRunning, Pending: NoID}
		if fi.inputs != NoID {
			part := inputs
			if j := indexByte(inputs, '|'); j >= 0 {
				part, inputs = inputs[:j], inputs[j+1:]
			}
			c.SetBranchTexts(i, part, "")
		}
		path := fi.start
		if fi.parallel {
			path = fi.regions[i]
			if i < len(into) && into[i] != nil {
				path = into[i]
			} else if p := r.nestedPath(path[0]); p != nil {
				path = p
			}
		}
		re := e
		re.br = uint8(p + 1)
		if err := m.enterRegion(re, path, r); err != nil {
			return err
		}
	}
	if n == 0 {
		// A fork with no input has no region to wait for: it is done as
		// soon as it is entered.
		m.raiseDone(e, s, NoID, r)
		return nil
	}
	m.regionsEnded(e, r)
	return nil
}

// regionsEnded updates the regions' status after a microstep: a region
// whose leaf ends it is done (or failed) in the order regions finished,
// one that left its final state runs again, and once every region is
// final the parallel state's done.state event is raised.
func (m *Machine) regionsEnded(e evalEnv, r *Result) {
	c := e.c
	if c.NBranch == 0 {
		return
	}
	before := c.Finished
	for i := 0; i < int(c.NBranch); i++ {
		b := &c.Branches[i]
		if b.Status == 0 {
			// A position of a nested parallel state's region: only the
			// outermost state's regions finish.
			continue
		}
		end := m.states[b.State].endsRegion
		switch {
		case end && b.Status == BranchRunning:
			b.Status = BranchDone
			if m.states[b.State].failed {
				b.Status = BranchFailed
			}
			c.Finished++
			b.Order = c.Finished
		case !end && b.Status != BranchRunning:
			b.Status, b.Order = BranchRunning, 0
			c.Finished--
		}
	}
	if c.Finished == m.regionCount(c) && before != c.Finished {
		m.raiseDone(e, c.State, NoID, r)
	}
}

// start puts c into the machine's initial configuration at virtual time at:
// it enters the initial states, runs their entry actions, then follows
// eventless transitions. The entry is recorded as a trace step with
// Trans == NoID and From == NoID.
func (m *Machine) start(c *Config, at int64, r *Result) error {
	c.clear(at)
	r.reset()
	r.Handled = true
	e := evalEnv{m: m, c: c, ev: &noEvent, r: r}
	step := TraceStep{From: NoID, To: m.initial, Trans: NoID, Overrode: NoID, ActLo: uint32(len(r.Actions))}
	if err := m.run(e, m.startActs, r); err != nil {
		return err
	}
	if err := m.enterMain(&e, m.initPath, nil, r); err != nil {
		return err
	}
	c.State = m.initial
	c.Final = m.states[m.initial].final && m.states[m.initial].parent == NoID
	step.ActHi = uint32(len(r.Actions))
	r.Steps = append(r.Steps, step)
	return m.macrostep(e, r, 0)
}
