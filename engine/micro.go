package engine

// This file holds SCXML's event processing (the W3C recommendation's
// Appendix D: selectTransitions, removeConflictingTransitions, microstep,
// exitStates, enterStates), specialised to the configurations a Config
// holds: the main machine's one active leaf, or, while a parallel state is
// active, one leaf per region (parallel states do not nest).

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
		if only > 0 && i != only-1 {
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
// main machine's when it is declared on the parallel state or above.
func (m *Machine) context(t TransID, br uint8) uint8 {
	if src := m.trans[t].source; src != NoID && m.states[src].forkRoot != NoID {
		return br
	}
	return 0
}

// chosen is one transition of a microstep's set.
type chosen struct {
	t TransID
	// br is the region whose atomic state selected it (i+1; 0: main); ctx
	// the context it runs in (see context).
	br, ctx uint8
	// scope is the extent of its exit set: scopeNone (targetless),
	// scopeRegion (inside region br) or scopeAll (the whole configuration
	// below its domain, every region included).
	scope  uint8
	lo, hi uint32 // its guards in Result.Guards
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

// selectTrans fills sel with the transitions the event enables, as SCXML's
// selectTransitions does: for each active atomic state in document order,
// the first transition (its own, then its ancestors', then the
// machine-level ones) whose trigger matches and whose guard holds; then
// conflicts are removed. tab[leaf*stride+col] lists a state's candidates;
// want, when not NoID, keeps only done.state.want transitions.
func (m *Machine) selectTrans(e evalEnv, tab [][]TransID, stride, col int, want StateID, only int, sel *selection, r *Result) {
	c := e.c
	sel.n = 0
	if c.NBranch == 0 {
		lo := uint32(len(r.Guards))
		var t TransID
		if want == NoID {
			t = m.pick(e, tab[int(c.State)*stride+col], r)
		} else {
			t = m.pickDone(e, tab[int(c.State)*stride+col], want, r)
		}
		if t != NoID {
			sel.s[0] = chosen{t: t, scope: m.scope(t), lo: lo, hi: uint32(len(r.Guards))}
			sel.n = 1
		}
		return
	}
	var buf [MaxBranches + 1]atom
	for _, a := range m.atoms(c, only, &buf) {
		lo := uint32(len(r.Guards))
		for _, t := range tab[int(a.leaf)*stride+col] {
			tr := &m.trans[t]
			if want != NoID && StateID(tr.trig.id) != want {
				continue
			}
			ce := e
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
				sel.s[sel.n] = chosen{t: t, br: a.br, ctx: ce.br, scope: m.scope(t), lo: lo, hi: uint32(len(r.Guards))}
				sel.n++
			}
			break
		}
	}
	if sel.n > 1 {
		m.removeConflicts(sel)
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
// something, and one exits every region or both exit in the same one.
func conflict(a, b *chosen) bool {
	if a.scope == scopeNone || b.scope == scopeNone {
		return false
	}
	return a.scope == scopeAll || b.scope == scopeAll || a.br == b.br
}

// removeConflicts is SCXML's removeConflictingTransitions: of two
// transitions whose exit sets intersect, the one whose source is a
// descendant of the other's preempts it; otherwise the one first in
// document order wins.
func (m *Machine) removeConflicts(sel *selection) {
	var out selection
	for i := 0; i < sel.n; i++ {
		t1 := &sel.s[i]
		preempted := false
		var drop [MaxBranches + 1]bool
		for j := 0; j < out.n; j++ {
			t2 := &out.s[j]
			if !conflict(t1, t2) {
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
		for j := 0; j < out.n; j++ {
			if !drop[j] {
				out.s[k] = out.s[j]
				k++
			}
		}
		out.n = k
		out.s[out.n] = *t1
		out.n++
	}
	*sel = out
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

// settle runs the rest of SCXML's macrostep: eventless transitions until
// none is enabled, then the internal events (done.state) one at a time,
// each followed by eventless transitions again; it reports a runaway chain
// once the machine's bound is passed.
func (m *Machine) settle(e evalEnv, r *Result) error {
	c := e.c
	sel := &r.sel
	for n := 0; ; n++ {
		if c.Final {
			return nil
		}
		m.selectTrans(e, m.alwaysTab, 1, 0, NoID, 0, sel, r)
		if sel.n == 0 {
			if r.nextInternal >= len(r.internal) {
				return nil
			}
			x := r.internal[r.nextInternal]
			r.nextInternal++
			if err := m.selectDone(e, x, sel, r); err != nil {
				return err
			}
			if sel.n == 0 {
				continue
			}
		}
		if n >= m.maxChain {
			return m.rtErr(c, m.trans[sel.s[0].t].pos, "eventless transitions did not settle after %d steps (a loop of always: transitions?)", m.maxChain)
		}
		if err := m.microstep(e, sel, r); err != nil {
			return err
		}
	}
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
	m.selectTrans(e, m.doneStateTab, 1, 0, x, 0, sel, r)
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

// raise queues the internal event done.state.x when a transition listens
// for it.
func (m *Machine) raise(x StateID, r *Result) {
	if x != NoID && m.states[x].heard {
		r.internal = append(r.internal, x)
	}
}

// microstep takes the transitions of sel together, as SCXML does: every
// state they exit (deepest first, in reverse document order), then their
// actions in document order, then every state they enter (outermost
// first, in document order). Each transition is one trace step; the
// exits are part of the first step's actions and the entries of the
// last's.
func (m *Machine) microstep(e evalEnv, sel *selection, r *Result) error {
	c := e.c
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
				if o := m.intercept(e, &m.trans[ch.t], r); o != NoID {
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
	steps := r.Steps[base:]
	exitLo := uint32(len(r.Actions))
	// Exits.
	var domain StateID
	var enter []StateID
	leftRegions := false
	if global >= 0 {
		tr := &m.trans[steps[global].Trans]
		domain, enter = tr.domain, tr.enter
		if tr.override != "" {
			domain = m.domainOf(c.State, tr.target)
			enter = tr.rootPath
			if domain != NoID {
				enter = enter[m.states[domain].depth+1:]
			}
		}
		prev := c.State
		for x := c.State; x != domain && x != NoID; x = m.states[x].parent {
			if m.states[x].fork != nil {
				leftRegions = true
				if err := m.exitRegions(e, x, r); err != nil {
					return err
				}
			}
			m.record(c, x, prev, c.State)
			if err := m.run(e, m.states[x].exit, r); err != nil {
				return err
			}
			prev = x
		}
	} else {
		for k := sel.n - 1; k >= 0; k-- {
			ch := &sel.s[k]
			if ch.scope != scopeRegion {
				continue
			}
			re := e
			re.br = ch.br
			tr := &m.trans[ch.t]
			leaf := c.Branches[ch.br-1].State
			prev := leaf
			for x := leaf; x != tr.domain && x != NoID; x = m.states[x].parent {
				m.record(c, x, prev, leaf)
				if err := m.run(re, m.states[x].exit, r); err != nil {
					return err
				}
				prev = x
			}
		}
	}
	// Transition actions.
	act := uint32(len(r.Actions))
	for k := 0; k < sel.n; k++ {
		te := e
		te.br = sel.s[k].ctx
		steps[k].ActLo = act
		if err := m.run(te, m.trans[steps[k].Trans].actions, r); err != nil {
			return err
		}
		act = uint32(len(r.Actions))
		steps[k].ActHi = act
	}
	steps[0].ActLo = exitLo
	// Entries.
	if global >= 0 {
		if leftRegions {
			// Leaving a parallel state abandons its regions: they are
			// dropped only now, so that its exit actions and the
			// transition's own (a join saying how many failed) still read
			// their outcome.
			c.clearFork()
		}
		tr := &m.trans[steps[global].Trans]
		leaf := tr.leaf
		var resume []StateID
		if tr.history != histNone {
			enter, resume, leaf = m.resume(c, tr)
		}
		if err := m.enterMain(e, enter, r); err != nil {
			return err
		}
		if err := m.enterMain(e, resume, r); err != nil {
			return err
		}
		c.State = leaf
		c.Final = m.states[leaf].final && m.states[leaf].parent == NoID
		steps[global].To = leaf
	} else {
		for k := 0; k < sel.n; k++ {
			ch := &sel.s[k]
			if ch.scope != scopeRegion {
				continue
			}
			re := e
			re.br = ch.br
			tr := &m.trans[ch.t]
			b := &c.Branches[ch.br-1]
			enter, resume, leaf := tr.enter, []StateID(nil), tr.leaf
			if tr.history != histNone {
				enter, resume, leaf = m.resume(c, tr)
			}
			if err := m.enterRegion(re, b, enter, r); err != nil {
				return err
			}
			if err := m.enterRegion(re, b, resume, r); err != nil {
				return err
			}
			b.State = leaf
			steps[k].To = leaf
		}
	}
	steps[sel.n-1].ActHi = uint32(len(r.Actions))
	m.regionsEnded(c, r)
	return nil
}

// enterRegion enters the states of path in region b, outermost first.
func (m *Machine) enterRegion(e evalEnv, b *Branch, path []StateID, r *Result) error {
	for _, s := range path {
		b.State = s
		if err := m.run(e, m.states[s].entry, r); err != nil {
			return err
		}
		// A final state raises its parent's done.state, a region's
		// included; a fork's branch ending raises nothing by itself (its
		// fork's event waits for every branch).
		if p := m.states[s].parent; m.states[s].final && m.states[p].fork == nil {
			m.raise(p, r)
		}
	}
	return nil
}

// record keeps, as state x is exited with leaf the atomic state active
// below it and child its child on the way, what x's histories resume: the
// child (shallow) and the leaf (deep). SCXML records them before any exit
// action runs; no exit action can change which states are active, so
// recording state by state is the same.
func (m *Machine) record(c *Config, x, child, leaf StateID) {
	s := &m.states[x]
	if s.histShallow >= 0 {
		c.Hist[s.histShallow] = child + 1
	}
	if s.histDeep >= 0 {
		c.Hist[s.histDeep] = leaf + 1
	}
}

// resume returns the states transition tr enters when it resumes its
// target's history, in two parts (down to the target, then the recorded
// states and, for a shallow history, the initial children below them),
// and the leaf it ends in. A history with nothing recorded enters the
// target's initial states, as SCXML's default history transition to the
// initial child would.
func (m *Machine) resume(c *Config, tr *transition) (enter, rest []StateID, leaf StateID) {
	s := &m.states[tr.target]
	var rec StateID
	if tr.history == histShallow {
		rec = c.Hist[s.histShallow]
	} else {
		rec = c.Hist[s.histDeep]
	}
	if rec == 0 {
		return tr.enter, nil, tr.leaf
	}
	leaf = rec - 1
	if tr.history == histShallow {
		leaf = m.states[leaf].initLeaf
	}
	return tr.enter[:tr.histCut], m.states[leaf].rootPath[s.depth+1:], leaf
}

// enterMain enters the states of path in the main machine, outermost
// first: a parallel state starts its regions once its own entry actions
// ran, and a final state raises its parent's done.state event.
func (m *Machine) enterMain(e evalEnv, path []StateID, r *Result) error {
	c := e.c
	for _, s := range path {
		c.State = s
		if err := m.run(e, m.states[s].entry, r); err != nil {
			return err
		}
		if m.states[s].fork != nil {
			if err := m.startRegions(e, s, r); err != nil {
				return err
			}
		}
		if m.states[s].final {
			m.raise(m.states[s].parent, r)
		}
	}
	return nil
}

// exitRegions runs, as parallel state p is left, the exit actions of the
// states its regions are in, in SCXML's exit order (reverse document
// order): the last region first, each from its leaf up to p.
func (m *Machine) exitRegions(e evalEnv, p StateID, r *Result) error {
	c := e.c
	for i := int(c.NBranch) - 1; i >= 0; i-- {
		re := e
		re.br = uint8(i + 1)
		leaf := c.Branches[i].State
		prev := leaf
		for x := leaf; x != p && x != NoID; x = m.states[x].parent {
			m.record(c, x, prev, leaf)
			if err := m.run(re, m.states[x].exit, r); err != nil {
				return err
			}
			prev = x
		}
	}
	return nil
}

// startRegions starts the regions of parallel state s: one per child of a
// parallel: true state, or, for a fork, one per fixed count or per
// "|"-separated part of the inputs slot, each entering its initial path
// with its own context, in region order.
func (m *Machine) startRegions(e evalEnv, s StateID, r *Result) error {
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
	for i := 0; i < n; i++ {
		b := &c.Branches[i]
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
		}
		re := e
		re.br = uint8(i + 1)
		if err := m.enterRegion(re, b, path, r); err != nil {
			return err
		}
	}
	if n == 0 {
		// A fork with no input has no region to wait for: it is done as
		// soon as it is entered.
		m.raise(s, r)
		return nil
	}
	m.regionsEnded(c, r)
	return nil
}

// regionsEnded updates the regions' status after a microstep: a region
// whose leaf ends it is done (or failed) in the order regions finished,
// one that left its final state runs again, and once every region is
// final the parallel state's done.state event is raised.
func (m *Machine) regionsEnded(c *Config, r *Result) {
	if c.NBranch == 0 {
		return
	}
	before := c.Finished
	for i := 0; i < int(c.NBranch); i++ {
		b := &c.Branches[i]
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
	if c.Finished == c.NBranch && before != c.Finished {
		m.raise(c.State, r)
	}
}

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
	if err := m.enterMain(e, m.initPath, r); err != nil {
		return err
	}
	c.State = m.initial
	c.Final = m.states[m.initial].final && m.states[m.initial].parent == NoID
	step.ActHi = uint32(len(r.Actions))
	r.Steps = append(r.Steps, step)
	return m.settle(e, r)
}
