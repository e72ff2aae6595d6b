package explore

import (
	"fmt"
	"math"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/spec"
)

// maxChoiceBits bounds the external actions whose failure is explored in
// one event; later ones in the same event only succeed.
const maxChoiceBits = 8

// A driver's limits on the actions one turn sets off (sim.Driver): more
// than maxInvokes in one step, or results nested past maxInvokeDepth
// levels, end the conversation with a runtime error.
const (
	maxInvokes     = 8
	maxInvokeDepth = 32
)

// explorer is one search in progress. Explore drives it level by level;
// expand computes the successors of one configuration and hands each to
// emit (explore.go), which keeps it as a node or as an edge.
type explorer struct {
	s     *spec.Suite
	m     *engine.Machine
	alpha []engine.Event
	// values says how the alphabet was reduced to value classes, and
	// which slots are not state.
	values string
	// hidden: slots the fingerprint leaves out (engine.Unobservable);
	// reduce: also those dead where the configuration rests
	// (engine.DeadSlots).
	hidden []bool
	// slotBuf holds the slots decode reads.
	slotBuf []engine.Value
	reduce  bool
	// groups are the ranges of alpha sharing one intent: when an event of
	// a group finds no transition to try, no other event of it does.
	groups  [][2]int
	checker *eval.Checker
	res     *Result
	r       engine.Result
	known   *eval.Known
	// pathFixed: no invariant keeps path state (no allowed-transition
	// table, no within bound), so every configuration shares the start's.
	pathFixed         bool
	nSlots, nCounters int
	// ctrTop: per counter, the value its larger values count as in a
	// fingerprint (saturation; math.MaxInt32 for an exact counter).
	ctrTop []int32

	// The search: configurations seen (by fingerprint), how many, the
	// cap, the queue of the next level, the edges for the livelock
	// analysis.
	visited   *fpSet
	distinct  int
	maxStates int
	stopped   bool
	next      *queue
	edges     graph

	// The node being expanded, its depth, its successors so far and the
	// nodes they lead to.
	ci      int32
	depth   int
	count   int
	targets []int32
	// esc: the event being applied is an escape (a cancel, a session
	// timeout); its successors are kept as escape targets. escIntent
	// marks the escape intents.
	esc       bool
	escIntent []bool
	// finals caches, per region root, whether a final state lies in it.
	finals map[engine.StateID]bool
	// startInv are the actions the start invoked (node 0 delivers them).
	startInv []pending

	// work is the configuration events are applied to in place: a user act
	// no transition takes leaves it as it was, so it is copied back from
	// the node's only when an event changed it (dirty).
	work  searchState
	dirty bool
	// The event being resolved: the configuration after each delivered
	// result (levels[k], k >= 1; work before that), the results still to
	// deliver at each level, and what the path broke or took first.
	levels   []*searchState
	pend     [][]pending
	findings []Finding
	taken    []engine.TransID
	inv      []pending // what the last step invoked
	nQuiet   int       // placeholders at the head of the checker's violations
	// fold is how many events of the alphabet, from the one being applied
	// on, differ from it only in payload (value, text, entities); weight
	// is how many of them the step stands for: all, when the step did not
	// read its payload (they would step alike), else 1.
	fold   int
	weight int
	// ev is the event being applied, result the action result being
	// delivered (kept here so that stepping them does not allocate).
	ev, result engine.Event

	// For the frontier's encoding (frontier.go): the search's interned
	// texts, this explorer's copy of those it has met, and the path state
	// a decoded configuration gets.
	texts    *texts
	strs     []string
	strID    map[string]uint32
	last     []engine.StateID
	due      []int
	via      []engine.StateID
	rootPath eval.PathState

	// The digest (digest.go): whether to compute it, the fingerprint of
	// the node being expanded, and what each result level showed.
	digest bool
	srcFP  uint64
	obs    []uint64
	curObs uint64

	// A worker of a parallel search (workers.go): the chunk its emit
	// records successors in (nil: emit takes them), and the
	// configuration being expanded.
	out *chunk
	cur searchState

	// For a machine whose data lives outside the Config (data.go): the
	// Data steps run on, whether it reports its changes, the stored data
	// it holds (nil: fresh data, or unknown), and the search whose paths
	// rebuild data Save could not copy.
	data  engine.Data
	track changer
	heap  *dataSnap
	paths *Result

	// A shard's search (part.go): whether the frontier was split, each
	// node's fingerprint, and per expanded node its successors and the
	// coverage its expansion added.
	split    bool
	parting  bool
	fps      []uint64
	expanded []expansion
	total    *eval.Coverage // the search's coverage while scratch takes a node's
	scratch  *eval.Coverage
}

func newExplorer(s *spec.Suite, m *engine.Machine, reduce bool) *explorer {
	alpha, note := alphabet(s, m, reduce)
	x := &explorer{s: s, m: m, alpha: alpha, values: note, hidden: make([]bool, len(m.Slots())), slotBuf: make([]engine.Value, len(m.Slots())), reduce: reduce, checker: eval.NewChecker(m), known: eval.NewKnown(m),
		pathFixed: true, nSlots: len(m.Slots()), nCounters: len(m.Counters()),
		texts: newTexts(), strs: []string{""}, strID: map[string]uint32{}}
	x.setData(m.NewData(sessionID))
	x.escIntent = escapeIntents(m)
	if reduce {
		for i := range x.hidden {
			x.hidden[i] = m.Unobservable(engine.SlotID(i))
		}
		x.values = stateNote(m, x.values)
	}
	x.ctrTop, x.values = counterTops(m, x.values)
	x.last = make([]engine.StateID, len(m.Invariants()))
	x.due = make([]int, len(m.Invariants()))
	x.via = make([]engine.StateID, len(m.Invariants()))
	for _, inv := range m.Invariants() {
		if inv.Kind == engine.InvAllowed || inv.Kind == engine.InvWithin {
			x.pathFixed = false
		}
	}
	for lo := 0; lo < len(x.alpha); {
		hi := lo + 1
		for hi < len(x.alpha) && x.alpha[hi].Intent == x.alpha[lo].Intent {
			hi++
		}
		x.groups = append(x.groups, [2]int{lo, hi})
		lo = hi
	}
	return x
}

// pending is an action invoked and waiting for its result; level is how
// deeply its result is nested (1: the result of an action the event set
// off).
type pending struct {
	ext    engine.ExtID
	branch uint8
	level  uint8
}

// expand computes every successor of cur, node ci at depth, and emits
// each: branch steps while a fork's branches can move, else every user act
// and the next timer. It returns how many there were.
func (x *explorer) expand(cur *searchState, ci int32, depth int) int {
	x.ci, x.depth, x.count, x.dirty = ci, depth, 0, true
	c := &cur.cfg
	if x.digest {
		x.srcFP = x.key(cur, depth)
		for len(x.res.nodeFP) <= int(ci) {
			x.res.nodeFP = append(x.res.nodeFP, 0)
		}
		x.res.nodeFP[ci] = x.srcFP
	}
	ev := &x.ev
	x.esc = false
	if ci == 0 && len(x.startInv) > 0 {
		return x.expandStart(cur)
	}
	if mask := c.Awaiting(); mask != 0 {
		// Regions await the results of their actions: the successors are
		// the deliveries, each region's result first, success then
		// failure, as a driver delivers them before the next turn.
		for i := 0; i < int(c.NBranch); i++ {
			if mask&(1<<i) == 0 {
				continue
			}
			p := c.Branches[i].Pending
			outcomes := 1
			if x.m.MayFail(p) {
				outcomes = 2
			}
			for o := 0; o < outcomes; o++ {
				x.m.InvokeIn(c, p, uint8(i+1), c.Now, ev)
				if o == 1 {
					*ev = engine.Event{Kind: engine.FailedEvent, Ext: p, At: c.Now, Branch: uint8(i + 1), Timer: engine.NoID}
				}
				x.applyFrom(cur, ev, edge{event: int32(edgeBranch - i), fails: uint32(o)}, 1)
			}
		}
		return x.count
	}
	for _, g := range x.groups {
		for ui := g[0]; ui < g[1]; ui += x.weight {
			*ev = x.alpha[ui]
			ev.At = c.Now
			x.esc = x.escIntent[ev.Intent]
			x.fold = g[1] - ui
			more := x.apply(cur, ev, int32(ui))
			x.fold = 0
			if !more {
				break
			}
		}
	}
	x.weight = 1
	if t, ok := x.m.NextTimer(c); ok {
		*ev = engine.Event{Kind: engine.TimerEvent, Timer: t.ID, At: t.Deadline, Ext: engine.NoID}
		x.esc = x.m.IsEscapeTimer(t.ID)
		x.apply(cur, ev, edgeTimer)
	}
	return x.count
}

// expandStart expands the start configuration of a machine whose start
// invoked external actions: its successors are their outcomes, each way,
// delivered as a driver delivers them, before any user turn.
func (x *explorer) expandStart(cur *searchState) int {
	st := &x.work
	x.copyState(st, cur)
	x.hold(cur)
	x.dirty = true
	x.weight = 1
	x.findings, x.taken = x.findings[:0], x.taken[:0]
	x.level(0)
	x.pend[0] = append(x.pend[0][:0], x.startInv...)
	x.resolve(0, st, edge{event: edgeStartResults}, 0, false)
	return x.count
}

// level returns the scratch state of result level k and makes room for
// the results pending at it. (Level 0 is the event's own step, on work.)
func (x *explorer) level(k int) *searchState {
	for len(x.levels) <= k {
		x.levels = append(x.levels, new(searchState))
		x.pend = append(x.pend, nil)
		x.obs = append(x.obs, 0)
	}
	return x.levels[k]
}

// apply steps ev from cur, then resolves the actions it invoked, each way.
// It reports whether the machine had any transition to try for ev.
func (x *explorer) apply(cur *searchState, ev *engine.Event, event int32) bool {
	return x.applyFrom(cur, ev, edge{event: event}, 0)
}

// applyFrom is apply on edge e whose first bit choice bits are taken (a
// region's result: its outcome is bit 0).
func (x *explorer) applyFrom(cur *searchState, ev *engine.Event, e edge, bits uint) bool {
	st := &x.work
	if x.dirty {
		x.copyState(st, cur)
	}
	x.hold(cur)
	x.findings, x.taken = x.findings[:0], x.taken[:0]
	inv, ok, stop := x.step(st, &cur.cfg, ev, 0)
	// A step that changed only the data (a condition with an effect)
	// leaves st to be copied again too.
	x.dirty = ok || stop || st.fresh
	if !ok && !stop {
		return len(x.r.Guards) > 0
	}
	x.level(0)
	if x.digest {
		x.obs[0] = x.stepObs(ev)
	}
	x.pend[0] = append(x.pend[0][:0], inv...)
	x.resolve(0, st, e, bits, stop)
	return true
}

// resolve delivers the results pending at level k one at a time (st is
// the configuration so far), branching on success and failure, and emits a
// successor when none is left (or the engine failed).
func (x *explorer) resolve(k int, st *searchState, e edge, bit uint, stop bool) {
	if stop || len(x.pend[k]) == 0 {
		if x.digest {
			x.curObs = x.obs[k]
		}
		x.emit(st, e, stop)
		return
	}
	p := x.pend[k][0]
	// The stub decides; failure is a second choice for every action that
	// may fail, handled or not: an unhandled failure that strands the
	// conversation is what the search is for.
	outcomes := 2
	if bit >= maxChoiceBits || !x.m.MayFail(p.ext) {
		outcomes = 1
	}
	nf, nt := len(x.findings), len(x.taken)
	if outcomes == 2 && x.data != nil {
		// The second outcome steps from st's data too: keep it.
		x.store(st, x.ci, e, k)
	}
	for o := 0; o < outcomes; o++ {
		next := x.level(k + 1)
		x.hold(st)
		x.copyState(next, st)
		// One event buffer serves every level: each is done with before
		// the next level is resolved.
		ev := &x.result
		x.m.InvokeIn(&next.cfg, p.ext, p.branch, next.cfg.Now, ev)
		e2 := e
		if o == 1 {
			*ev = engine.Event{Kind: engine.FailedEvent, Ext: p.ext, At: next.cfg.Now, Branch: p.branch, Timer: engine.NoID}
			e2.fails |= 1 << bit
		}
		more, _, stop2 := x.step(next, &st.cfg, ev, int(p.level))
		if x.digest {
			x.obs[k+1] = thenObs(x.obs[k], x.stepObs(ev))
		}
		// Results are delivered depth first, as a driver does: the actions
		// a result sets off before the ones invoked after it.
		x.pend[k+1] = append(append(x.pend[k+1][:0], more...), x.pend[k][1:]...)
		x.resolve(k+1, next, e2, bit+1, stop2)
		x.findings, x.taken = x.findings[:nf], x.taken[:nt]
	}
}

// step applies one event to st (which holds a copy of *before), checks
// every invariant on it, and returns the actions it invoked (in a buffer
// the next step reuses). ok is false when a user act or branch step
// changed nothing (no transition); stop is true when the engine failed (a
// runtime_error finding).
func (x *explorer) step(st *searchState, before *engine.Config, ev *engine.Event, level int) (inv []pending, ok, stop bool) {
	x.checker.Restore(st.path)
	x.quiet()
	fail := func(msg string) ([]pending, bool, bool) {
		if x.novel(eval.RuntimeError) {
			x.findings = append(x.findings, Finding{Kind: eval.RuntimeError, Violation: eval.Violation{Invariant: eval.RuntimeError,
				Turn: x.depth + 1, Msg: msg, Before: x.m.Describe(before), After: x.m.Describe(&st.cfg)}})
		}
		return nil, false, true
	}
	err := x.m.StepWith(&st.cfg, x.data, ev, &x.r)
	x.stepped(st)
	if level == 0 {
		// The rest of the event's group would step alike (to the same
		// configurations, with the same findings and coverage) unless the
		// step read the payload: this step stands for them all.
		x.weight = 1
		if x.fold > 1 && !x.r.ReadEvent && foldPayloads {
			x.weight = x.fold
		}
	}
	if err != nil {
		return fail(err.Error())
	}
	if !x.r.Handled && ev.Kind == engine.UserEvent {
		// Nothing changed (the engine leaves an ignored event's
		// configuration as it was): not a successor. Its guards were tried.
		for _, g := range x.r.Guards {
			x.res.Coverage.GuardFalse[g.Trans] += int64(x.weight)
		}
		return nil, false, false
	}
	// A timer that fell due, or an action's result that no transition
	// takes, still changes the configuration (the timer is no longer
	// pending, outputs land in slots, a branch stops waiting): the step
	// stands, as it does in a driver.
	n := invokes(&x.r)
	if n > maxInvokes {
		return fail(fmt.Sprintf("more than %d external actions invoked in one step", maxInvokes))
	}
	x.observe(x.depth+1, ev, before, &st.cfg, &x.r)
	for _, v := range x.checker.Violations[x.nQuiet:] {
		if x.novel(v.Key()) {
			x.findings = append(x.findings, x.finding(v))
		}
	}
	if !x.pathFixed {
		st.own = x.checker.SaveInto(st.own)
		st.path = st.own
	}
	for _, s := range x.r.Steps {
		if s.Trans != engine.NoID && x.res.firstTaken[s.Trans] < 0 {
			x.taken = append(x.taken, s.Trans)
		}
	}
	if n == 0 {
		return nil, true, false
	}
	if level >= maxInvokeDepth {
		return fail(fmt.Sprintf("external actions kept invoking each other past %d levels", maxInvokeDepth))
	}
	x.inv = x.inv[:0]
	for i := range x.r.Effects {
		// A region's action waits in the Config for its delivery (an
		// edge of its own); the main machine's are resolved now.
		if e := &x.r.Effects[i]; e.Kind == engine.EffInvoke && e.Branch == 0 {
			x.inv = append(x.inv, pending{ext: e.Ext, branch: e.Branch, level: uint8(level + 1)})
		}
	}
	return x.inv, true, false
}

// copyState sets *dst to *src, copying only what the machine uses: its
// slots (the rest stay empty) and the fork's branches (the rest stay zero).
// A whole Config is 1.7 KB, most of it slots holding texts, and the copy is
// made for nearly every event tried.
func (x *explorer) copyState(dst, src *searchState) {
	dst.cfg.CopyFrom(&src.cfg, x.nSlots)
	dst.path = src.path
	dst.data, dst.fresh, dst.dfpOK, dst.dfp = src.data, src.fresh, src.dfpOK, src.dfp
}

// setData makes d the Data the explorer's steps run on.
func (x *explorer) setData(d engine.Data) {
	x.data, x.heap = d, nil
	x.track, _ = d.(changer)
}

// invokes counts the actions a step invoked.
func invokes(r *engine.Result) int {
	n := 0
	for i := range r.Effects {
		if r.Effects[i].Kind == engine.EffInvoke {
			n++
		}
	}
	return n
}

// quiet tells the checker, before a step, which invariants need not be
// reported again: those found already and those found on the path being
// resolved. The checker describes only the first violation of each
// invariant it holds (describing configurations is the costly part of
// checking), so it is handed one placeholder for each; what it reports
// after them is new. With too many to hold, it reports everything.
func (x *explorer) quiet() {
	k := x.checker
	k.Violations = k.Violations[:0]
	if len(x.res.Findings)+len(x.findings) > maxQuiet {
		x.nQuiet = 0
		return
	}
	for i := range x.res.Findings {
		k.Violations = append(k.Violations, placeholder(&x.res.Findings[i].Violation))
	}
	for i := range x.findings {
		k.Violations = append(k.Violations, placeholder(&x.findings[i].Violation))
	}
	x.nQuiet = len(k.Violations)
}

// placeholder is what the checker compares of a violation found already:
// what identifies its finding.
func placeholder(v *eval.Violation) eval.Violation {
	return eval.Violation{Invariant: v.Invariant, Move: v.Move, From: v.From, To: v.To, Src: v.Src, Via: v.Via, State: v.State, Slot: v.Slot, Timer: v.Timer}
}

// foldPayloads lets one step stand for the events that differ from it
// only in a payload it did not read; tests turn it off to check that
// folding changes nothing but the time taken.
var foldPayloads = true

// maxQuiet stays below the number of violations a checker keeps (64), so
// that a new one always has room. Past it every violation is described
// again at every step: at 16, thea's 19 findings made its complete
// search spend four fifths of its time in Describe (12.7 s of CPU; 2.2 s
// at 48). A variable, so that a spec can turn the placeholders off.
var maxQuiet = 48

// finding is violation v as a finding, with the note that makes it known.
func (x *explorer) finding(v eval.Violation) Finding {
	f := Finding{Kind: v.Invariant, Violation: v}
	if n := x.known.Match(&v); n != nil {
		f.Known, f.Note = n.String(), n.Pos
	}
	return f
}

// novel reports whether the finding key (Violation.Key) is neither found
// nor on the path being resolved yet.
func (x *explorer) novel(key string) bool {
	if x.res.has(key) {
		return false
	}
	for i := range x.findings {
		if x.findings[i].Key() == key {
			return false
		}
	}
	return true
}

// novelPath reports whether the path just resolved broke an invariant
// not found yet or took a transition not taken yet.
func (x *explorer) novelPath() bool {
	for _, t := range x.taken {
		if x.res.firstTaken[t] < 0 {
			return true
		}
	}
	for i := range x.findings {
		if !x.res.has(x.findings[i].Key()) {
			return true
		}
	}
	return false
}

// keep records, for node n, the transitions first taken and the
// invariants first broken on the path just resolved.
func (x *explorer) keep(n int32) {
	for _, t := range x.taken {
		if x.res.firstTaken[t] < 0 {
			x.res.firstTaken[t] = n
		}
	}
	for _, f := range x.findings {
		f.Node = n
		x.res.add(f)
	}
}

func (x *explorer) isGood(c *engine.Config) bool { return x.m.IsIdle(c) }

func (x *explorer) observe(turn int, ev *engine.Event, before, after *engine.Config, r *engine.Result) {
	st := eval.Step{Turn: turn, Event: ev, Before: before, After: after, Result: r}
	x.checker.Observe(&st)
	x.res.Coverage.ObserveN(&st, int64(max(x.weight, 1)))
}

// counterTops returns, per counter, the value from which on the machine
// reads its values alike (engine.Machine.CounterAlikeFrom), so that the
// fingerprint counts larger ones as it: a machine that counts without
// bound then has finitely many configurations and can be explored
// completely. Two configurations that differ only in such values lead,
// event for event, to the same states, replies, guard outcomes and
// findings, so merging them loses nothing; the configuration kept is the
// one its shortest path reached, and every value a finding shows is its
// path's own. note gains the counters saturated.
func counterTops(m *engine.Machine, note string) ([]int32, string) {
	tops := make([]int32, len(m.Counters()))
	var sat []string
	for i, name := range m.Counters() {
		tops[i] = math.MaxInt32
		if v, ok := m.CounterAlikeFrom(engine.CounterID(i)); ok {
			tops[i] = v
			sat = append(sat, fmt.Sprintf("%s from %d", name, v))
		}
	}
	if len(sat) > 0 {
		note += "; counters saturated (larger values read alike): " + strings.Join(sat, ", ")
	}
	return tops, note
}

// stateNote adds to note the slots a reduced search leaves out of the
// state: those nothing reads, and those every next event overwrites first
// where the configuration rests.
func stateNote(m *engine.Machine, note string) string {
	var hidden, dead []string
	var deadAt uint64
	for st := 0; st < m.NumStates(); st++ {
		deadAt |= m.DeadSlots(engine.StateID(st))
	}
	for i := range m.Slots() {
		switch id := engine.SlotID(i); {
		case m.Unobservable(id):
			hidden = append(hidden, m.SlotName(id))
		case deadAt&(1<<i) != 0:
			dead = append(dead, m.SlotName(id))
		}
	}
	if len(hidden) > 0 {
		note += fmt.Sprintf("; not state (nothing reads them): %s", strings.Join(hidden, ", "))
	}
	if len(dead) > 0 {
		note += fmt.Sprintf("; not state where every next event overwrites them first: %s", strings.Join(dead, ", "))
	}
	return note
}
