package statechart

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// SCXMLProcessor is the type URI of the SCXML event I/O processor, the only
// one a Session has.
const SCXMLProcessor = "http://www.w3.org/TR/scxml/#SCXMLEventProcessor"

// MaxMicrosteps bounds the rounds of one macrostep (each a microstep, or an
// internal event taken from the queue): a chart whose eventless transitions
// or internal events never settle (a cycle of eventless transitions, a
// failing condition raising error.execution on every round) stops there
// (Halted reports why) instead of looping forever.
const MaxMicrosteps = 10000

// delayed is a <send> waiting on the virtual clock.
type delayed struct {
	due   int64
	seq   int
	id    string
	event Event
	inner bool // target #_internal
}

// Session is one running instance of a chart: the interpreter of the
// recommendation's Appendix D. It is not safe for concurrent use.
type Session struct {
	chart      *Chart
	dm         Datamodel
	config     Bits
	history    []Bits
	historySet Bits
	entered    Bits // states entered at least once (late binding)
	internal   queue
	external   queue
	delayed    []delayed
	now        int64
	seq        int
	sends      int
	running    bool
	micro      int
	halted     string
	id         string
	// Final is the top-level final state the session stopped in, or -1.
	Final int
	// DoneData is the data of that final state's <donedata>.
	DoneData any
	// Log collects <log> output, "label: value".
	Log []string
	// Trace, when set, is called with each microstep's transitions.
	Trace func(ts []*Transition)
	// Guard, when set, is called with each cond evaluated and its outcome
	// (an error counts as false, as the recommendation has it).
	Guard func(t *Transition, ok bool)
	// Entered, when set, is called with each state entered, in entry
	// order (coverage counts entries, transient states included).
	Entered func(state int)
	// Discarded, when set, is called with each event taken from a queue
	// that enabled no transition (the explorer's leaked_timer).
	Discarded func(ev Event)
	// Scratch space reused by every macrostep, so that a step in steady
	// state allocates nothing.
	enabledBuf, filteredBuf []*Transition
	defaultHistory          map[int][]Action
}

// queue is a FIFO of events that reuses its array.
type queue struct {
	evs  []Event
	head int
}

func (q *queue) push(e Event) { q.evs = append(q.evs, e) }
func (q *queue) empty() bool  { return q.head == len(q.evs) }
func (q *queue) pop() Event {
	e := q.evs[q.head]
	q.evs[q.head] = Event{}
	q.head++
	if q.head == len(q.evs) {
		q.evs, q.head = q.evs[:0], 0
	}
	return e
}

// NewSession makes a session of a built chart with the compiled program's
// data model; Start runs it.
func NewSession(c *Chart, p Program) *Session {
	s := &Session{chart: c, history: make([]Bits, len(c.States)), Final: -1, id: "simctl0", defaultHistory: map[int][]Action{}}
	s.dm = p.NewDatamodel(s, s.In)
	return s
}

// Chart returns the session's chart.
func (s *Session) Chart() *Chart { return s.chart }

// ID is the session id (_sessionid), fixed so that runs are reproducible.
func (s *Session) ID() string { return s.id }

// Configuration returns the active states.
func (s *Session) Configuration() Bits { return s.config }

// Running reports whether the session has not reached a top-level final
// state.
func (s *Session) Running() bool { return s.running }

// Halted says why the session stopped early (a macrostep that did not
// settle), or "".
func (s *Session) Halted() string { return s.halted }

// Key renders everything that decides the session's future, canonically:
// the configuration, history values, the delayed events (deadlines relative
// to now), whether it runs, and the data model's snapshot. Two sessions of
// one chart with equal keys react to the same events alike, so an explorer
// keeps one of them.
func (s *Session) Key() string {
	var b strings.Builder
	for _, w := range s.config {
		b.WriteString(strconv.FormatUint(w, 16))
		b.WriteByte(',')
	}
	for _, h := range s.historySet.List() {
		b.WriteString("|h" + strconv.Itoa(h) + ":")
		for _, w := range s.history[h] {
			b.WriteString(strconv.FormatUint(w, 16))
			b.WriteByte(',')
		}
	}
	for _, d := range s.delayed {
		b.WriteString("|d" + strconv.FormatInt(d.due-s.now, 10) + ":" + d.id + ":" + d.event.Name)
	}
	if !s.running {
		b.WriteString("|stopped")
	}
	b.WriteString("|" + s.dm.Snapshot())
	return b.String()
}

// Saved is a session between two macrosteps, kept by Save to be put back
// by Restore: the explorer steps from a stored configuration instead of
// replaying its path from the start.
type Saved struct {
	config, historySet, entered Bits
	history                     []Bits
	delayed                     []delayed
	now                         int64
	seq, sends                  int
	running                     bool
	halted                      string
	final                       int
	doneData                    any
	data                        any
}

// Save keeps the session's state, or reports false when its data model
// cannot copy its variables (see Datamodel.Save).
func (s *Session) Save() (*Saved, bool) {
	data, ok := s.dm.Save()
	if !ok {
		return nil, false
	}
	return &Saved{
		config: s.config, historySet: s.historySet, entered: s.entered,
		history: append([]Bits(nil), s.history...),
		delayed: append([]delayed(nil), s.delayed...),
		now:     s.now, seq: s.seq, sends: s.sends, running: s.running, halted: s.halted,
		final: s.Final, doneData: s.DoneData, data: data,
	}, true
}

// Restore puts back a state Save kept of a session of the same chart, so
// that the session goes on as the saved one would; false when the data
// model could not be put back (then the session is not to be used).
func (s *Session) Restore(v *Saved) bool {
	if !s.dm.Restore(v.data) {
		return false
	}
	s.config, s.historySet, s.entered = v.config, v.historySet, v.entered
	copy(s.history, v.history)
	s.delayed = append(s.delayed[:0], v.delayed...)
	s.now, s.seq, s.sends, s.running, s.halted = v.now, v.seq, v.sends, v.running, v.halted
	s.Final, s.DoneData = v.final, v.doneData
	s.internal.evs, s.internal.head = s.internal.evs[:0], 0
	s.external.evs, s.external.head = s.external.evs[:0], 0
	s.Log = s.Log[:0]
	return true
}

// Now is the virtual clock in milliseconds.
func (s *Session) Now() int64 { return s.now }

// In reports whether the state with the given id is active (SCXML's In()).
func (s *Session) In(id string) bool {
	i, ok := s.chart.index[id]
	return ok && s.config.Has(i)
}

// Active returns the ids of the active atomic and final states in document
// order.
func (s *Session) Active() []string {
	var out []string
	for _, i := range s.config.List() {
		st := &s.chart.States[i]
		if st.Kind == Atomic || st.Kind == Final {
			out = append(out, st.ID)
		}
	}
	return out
}

// Start initialises the data model and enters the initial configuration,
// running the first macrostep (interpret, in Appendix D).
func (s *Session) Start() {
	c := s.chart
	s.running = true
	if c.Binding == "late" {
		s.initData(0)
	} else {
		for i := range c.States {
			s.initData(i)
		}
	}
	if c.Script != NoExpr {
		if err := s.dm.Script(c.Script); err != nil {
			s.raiseError("error.execution", err)
		}
	}
	s.enterStates([]*Transition{c.States[0].Initial})
	s.mainEventLoop()
}

func (s *Session) initData(i int) {
	if s.entered.Has(i) && s.chart.Binding == "late" {
		return
	}
	s.entered.Add(i)
	if i < len(s.chart.Data) && len(s.chart.Data[i]) > 0 {
		if err := s.dm.Init(s.chart.Data[i]); err != nil {
			s.raiseError("error.execution", err)
		}
	}
}

// Send puts an external event in the queue and processes it, and every
// event already queued, to completion.
func (s *Session) Send(ev Event) {
	if ev.Type == "" {
		ev.Type = "external"
	}
	s.external.push(ev)
	s.mainEventLoop()
}

// NextDue returns the deadline of the earliest delayed event.
func (s *Session) NextDue() (int64, bool) {
	if len(s.delayed) == 0 {
		return 0, false
	}
	return s.delayed[0].due, true
}

// DueWithin returns the names of the delayed events that fall due within
// ms milliseconds, in delivery order.
func (s *Session) DueWithin(ms int64) []string {
	var out []string
	for _, d := range s.delayed {
		if d.due > s.now+ms {
			break
		}
		out = append(out, d.event.Name)
	}
	return out
}

// Advance moves the virtual clock forward by ms milliseconds, delivering
// each delayed event when its deadline comes, in deadline order (then send
// order), each processed to completion before the next.
func (s *Session) Advance(ms int64) {
	end := s.now + ms
	for s.running && len(s.delayed) > 0 && s.delayed[0].due <= end {
		d := s.delayed[0]
		s.delayed = s.delayed[1:]
		s.now = d.due
		if d.inner {
			s.internal.push(d.event)
		} else {
			s.external.push(d.event)
		}
		s.mainEventLoop()
	}
	if end > s.now {
		s.now = end
	}
}

// mainEventLoop runs macrosteps until the external queue is empty or the
// session stops. Where the recommendation blocks waiting for an external
// event, it returns.
func (s *Session) mainEventLoop() {
	for s.running {
		s.micro = 0
		macrostepDone := false
		for s.running && !macrostepDone {
			s.micro++
			enabled := s.selectEventlessTransitions()
			if len(enabled) == 0 {
				if s.internal.empty() {
					macrostepDone = true
				} else {
					ev := s.internal.pop()
					s.dm.SetEvent(ev)
					enabled = s.selectTransitions(ev)
					if len(enabled) == 0 && s.Discarded != nil {
						s.Discarded(ev)
					}
				}
			}
			if len(enabled) > 0 {
				s.microstep(enabled)
			}
			if s.micro > MaxMicrosteps {
				s.halted = fmt.Sprintf("a macrostep did not settle after %d microsteps and internal events", MaxMicrosteps)
				s.running = false
				return
			}
		}
		if !s.running {
			break
		}
		if !s.internal.empty() {
			continue
		}
		if s.external.empty() {
			return
		}
		ev := s.external.pop()
		s.dm.SetEvent(ev)
		if enabled := s.selectTransitions(ev); len(enabled) > 0 {
			s.microstep(enabled)
		} else if s.Discarded != nil {
			s.Discarded(ev)
		}
	}
	s.exitInterpreter()
}

// exitInterpreter runs the exit actions of every active state, deepest
// first. The configuration is kept as it was, so that callers can see
// where the session stopped.
func (s *Session) exitInterpreter() {
	if s.halted != "" {
		return
	}
	list := s.config.List()
	for k := len(list) - 1; k >= 0; k-- {
		st := &s.chart.States[list[k]]
		for _, block := range st.OnExit {
			s.executeContent(block)
		}
	}
	s.delayed = nil
}

// selectEventlessTransitions returns the enabled transitions without an
// event, one per atomic state at most, conflicts removed.
func (s *Session) selectEventlessTransitions() []*Transition {
	return s.selectFor(nil)
}

// selectTransitions returns the transitions enabled by ev.
func (s *Session) selectTransitions(ev Event) []*Transition {
	return s.selectFor(&ev)
}

func (s *Session) selectFor(ev *Event) []*Transition {
	c := s.chart
	enabled := s.enabledBuf[:0]
	defer func() { s.enabledBuf = enabled[:0] }()
	for a := s.config.Next(0); a >= 0; a = s.config.Next(a + 1) {
		if k := c.States[a].Kind; k != Atomic && k != Final {
			continue
		}
	loop:
		for st := a; st >= 0; st = c.States[st].Parent {
			for _, t := range c.States[st].Trans {
				if ev == nil && len(t.Events) > 0 || ev != nil && !nameMatch(t.Events, ev.Name) {
					continue
				}
				if s.conditionMatch(t) {
					if !containsT(enabled, t) {
						enabled = append(enabled, t)
					}
					break loop
				}
			}
		}
	}
	return s.removeConflictingTransitions(enabled)
}

func containsT(ts []*Transition, t *Transition) bool {
	for _, u := range ts {
		if u == t {
			return true
		}
	}
	return false
}

// nameMatch implements event descriptor matching: a descriptor matches a
// name equal to it or extending it by "." tokens; "*" matches any name.
func nameMatch(descriptors []string, name string) bool {
	for _, d := range descriptors {
		if d == "*" || d == name || strings.HasPrefix(name, d) && len(name) > len(d) && name[len(d)] == '.' {
			return true
		}
	}
	return false
}

func (s *Session) conditionMatch(t *Transition) bool {
	if t.Cond == NoExpr {
		return true
	}
	ok, err := s.dm.Cond(t.Cond)
	if err != nil {
		s.raiseError("error.execution", err)
		ok = false
	}
	if s.Guard != nil {
		s.Guard(t, ok)
	}
	return ok
}

// removeConflictingTransitions keeps an optimal enabled transition set: of
// two transitions whose exit sets intersect, the one whose source is a
// descendant of the other's wins; otherwise the first in document order of
// the states that selected them.
func (s *Session) removeConflictingTransitions(enabled []*Transition) []*Transition {
	filtered := s.filteredBuf[:0]
	for _, t1 := range enabled {
		preempted := false
		exit1 := s.computeExitSetOne(t1)
		// Drop the transitions t1 preempts, unless t1 is itself preempted,
		// in which case filtered must stay as it was: so first look.
		for _, t2 := range filtered {
			if exit1.Intersects(s.computeExitSetOne(t2)) && !s.chart.isDescendant(t1.Source, t2.Source) {
				preempted = true
				break
			}
		}
		if preempted {
			continue
		}
		kept := filtered[:0]
		for _, t2 := range filtered {
			if !exit1.Intersects(s.computeExitSetOne(t2)) {
				kept = append(kept, t2)
			}
		}
		filtered = append(kept, t1)
	}
	s.filteredBuf = filtered[:0]
	return filtered
}

func (s *Session) microstep(enabled []*Transition) {
	if s.Trace != nil {
		s.Trace(enabled)
	}
	s.exitStates(enabled)
	s.executeTransitionContent(enabled)
	s.enterStates(enabled)
}

// exitStates records history, then runs exit actions deepest (last in
// document order) first.
func (s *Session) exitStates(enabled []*Transition) {
	c := s.chart
	toExit := s.computeExitSet(enabled)
	for i := toExit.Next(0); i >= 0; i = toExit.Next(i + 1) {
		for _, h := range c.States[i].History {
			var v Bits
			for a := s.config.Next(0); a >= 0; a = s.config.Next(a + 1) {
				if c.States[h].Kind == HistoryDeep {
					if k := c.States[a].Kind; (k == Atomic || k == Final) && c.isDescendant(a, i) {
						v.Add(a)
					}
				} else if c.States[a].Parent == i {
					v.Add(a)
				}
			}
			s.history[h] = v
			s.historySet.Add(h)
		}
	}
	for i := toExit.Prev(MaxStates - 1); i >= 0; i = toExit.Prev(i - 1) {
		for _, block := range c.States[i].OnExit {
			s.executeContent(block)
		}
		s.config.Delete(i)
	}
}

// computeExitSet returns the active states that the transitions leave: the
// active descendants of each targeted transition's domain.
func (s *Session) computeExitSet(ts []*Transition) Bits {
	var out Bits
	for _, t := range ts {
		x := s.computeExitSetOne(t)
		for w := range out {
			out[w] |= x[w]
		}
	}
	return out
}

// computeExitSetOne is computeExitSet of one transition.
func (s *Session) computeExitSetOne(t *Transition) Bits {
	var out Bits
	if len(t.Targets) == 0 {
		return out
	}
	domain := s.getTransitionDomain(t)
	if domain < 0 {
		return out
	}
	d := &s.chart.desc[domain]
	for w := range out {
		out[w] = s.config[w] & d[w]
	}
	return out
}

func (s *Session) executeTransitionContent(enabled []*Transition) {
	for _, t := range enabled {
		s.executeContent(t.Actions)
	}
}

// enterStates enters the transitions' entry set outermost (first in
// document order) first, running entry actions, default initial and
// history content, and queueing done.state events.
func (s *Session) enterStates(enabled []*Transition) {
	c := s.chart
	var toEnter, forDefault Bits
	defaultHistory := s.defaultHistory
	clear(defaultHistory)
	s.computeEntrySet(enabled, &toEnter, &forDefault, defaultHistory)
	for i := toEnter.Next(0); i >= 0; i = toEnter.Next(i + 1) {
		st := &c.States[i]
		s.config.Add(i)
		if s.Entered != nil {
			s.Entered(i)
		}
		if c.Binding == "late" {
			s.initData(i)
		}
		for _, block := range st.OnEntry {
			s.executeContent(block)
		}
		if forDefault.Has(i) && st.Initial != nil {
			s.executeContent(st.Initial.Actions)
		}
		if acts, ok := defaultHistory[i]; ok {
			s.executeContent(acts)
		}
		if st.Kind != Final {
			continue
		}
		if st.Parent == 0 {
			s.running = false
			s.Final = i
			s.DoneData = s.doneData(st)
			continue
		}
		parent := st.Parent
		s.internal.push(Event{Name: c.States[parent].DoneEvent, Type: "internal", Data: s.doneData(st)})
		if gp := c.States[parent].Parent; gp >= 0 && c.States[gp].Kind == Parallel {
			all := true
			for _, ch := range c.States[gp].Children {
				if !s.isHistory(ch) && !s.isInFinalState(ch) {
					all = false
					break
				}
			}
			if all {
				s.internal.push(Event{Name: c.States[gp].DoneEvent, Type: "internal"})
			}
		}
	}
}

func (s *Session) doneData(st *State) any {
	d := st.DoneData
	if d == nil {
		return nil
	}
	v, err := s.evalData(d.Params, d.Content, d.ContentStr)
	if err != nil {
		s.raiseError("error.execution", err)
		return nil
	}
	return v
}

func (s *Session) computeEntrySet(ts []*Transition, toEnter, forDefault *Bits, defaultHistory map[int][]Action) {
	for _, t := range ts {
		for _, tg := range t.Targets {
			s.addDescendantStatesToEnter(tg, toEnter, forDefault, defaultHistory)
		}
		ancestor := s.getTransitionDomain(t)
		eff := s.getEffectiveTargetStates(t)
		for tg := eff.Next(0); tg >= 0; tg = eff.Next(tg + 1) {
			s.addAncestorStatesToEnter(tg, ancestor, toEnter, forDefault, defaultHistory)
		}
	}
}

func (s *Session) addDescendantStatesToEnter(st int, toEnter, forDefault *Bits, defaultHistory map[int][]Action) {
	c := s.chart
	state := &c.States[st]
	if c.isHistory(st) {
		if s.historySet.Has(st) {
			hv := s.history[st]
			for h := hv.Next(0); h >= 0; h = hv.Next(h + 1) {
				s.addDescendantStatesToEnter(h, toEnter, forDefault, defaultHistory)
			}
			for h := hv.Next(0); h >= 0; h = hv.Next(h + 1) {
				s.addAncestorStatesToEnter(h, state.Parent, toEnter, forDefault, defaultHistory)
			}
			return
		}
		defaultHistory[state.Parent] = state.Initial.Actions
		for _, tg := range state.Initial.Targets {
			s.addDescendantStatesToEnter(tg, toEnter, forDefault, defaultHistory)
		}
		for _, tg := range state.Initial.Targets {
			s.addAncestorStatesToEnter(tg, state.Parent, toEnter, forDefault, defaultHistory)
		}
		return
	}
	toEnter.Add(st)
	switch state.Kind {
	case Compound:
		forDefault.Add(st)
		for _, tg := range state.Initial.Targets {
			s.addDescendantStatesToEnter(tg, toEnter, forDefault, defaultHistory)
		}
		for _, tg := range state.Initial.Targets {
			s.addAncestorStatesToEnter(tg, st, toEnter, forDefault, defaultHistory)
		}
	case Parallel:
		for _, ch := range state.Children {
			if !s.isHistory(ch) && !s.someDescendant(*toEnter, ch) {
				s.addDescendantStatesToEnter(ch, toEnter, forDefault, defaultHistory)
			}
		}
	}
}

func (s *Session) someDescendant(set Bits, anc int) bool {
	return set.Intersects(s.chart.desc[anc])
}

// addAncestorStatesToEnter adds st's proper ancestors below ancestor (the
// recommendation's getProperAncestors, walked in place).
func (s *Session) addAncestorStatesToEnter(st, ancestor int, toEnter, forDefault *Bits, defaultHistory map[int][]Action) {
	c := s.chart
	for anc := c.States[st].Parent; anc >= 0 && anc != ancestor; anc = c.States[anc].Parent {
		toEnter.Add(anc)
		if c.States[anc].Kind == Parallel {
			for _, ch := range c.States[anc].Children {
				if !s.isHistory(ch) && !s.someDescendant(*toEnter, ch) {
					s.addDescendantStatesToEnter(ch, toEnter, forDefault, defaultHistory)
				}
			}
		}
	}
}

func (s *Session) isInFinalState(st int) bool {
	c := s.chart
	switch c.States[st].Kind {
	case Compound:
		for _, ch := range c.States[st].Children {
			if c.States[ch].Kind == Final && s.config.Has(ch) {
				return true
			}
		}
	case Parallel:
		for _, ch := range c.States[st].Children {
			if !s.isHistory(ch) && !s.isInFinalState(ch) {
				return false
			}
		}
		return true
	}
	return false
}

func (s *Session) isHistory(st int) bool { return s.chart.isHistory(st) }

// getTransitionDomain returns the state whose descendants the transition
// exits and enters: its source for an internal transition staying inside
// a compound source, otherwise the least common compound ancestor
// (findLCCA). Without history targets it is computed once, by Prepare.
func (s *Session) getTransitionDomain(t *Transition) int {
	if t.static {
		return t.domain
	}
	targets := s.getEffectiveTargetStates(t)
	if targets.IsEmpty() {
		return -1
	}
	return s.chart.domain(t, targets)
}

// getEffectiveTargetStates replaces history targets by their stored value
// or their default transition's targets.
func (s *Session) getEffectiveTargetStates(t *Transition) Bits {
	var out Bits
	for _, tg := range t.Targets {
		if s.chart.isHistory(tg) {
			add := s.history[tg]
			if !s.historySet.Has(tg) {
				add = s.getEffectiveTargetStates(s.chart.States[tg].Initial)
			}
			for w := range out {
				out[w] |= add[w]
			}
		} else {
			out.Add(tg)
		}
	}
	return out
}

// raiseError queues a platform error event (error.execution,
// error.communication) whose data says what failed.
func (s *Session) raiseError(name string, err error) {
	s.raiseErrorAt(name, err, "", Pos{}, "")
}

func (s *Session) raiseErrorAt(name string, err error, tag string, pos Pos, sendID string) {
	var h *HaltError
	if errors.As(err, &h) {
		s.halted, s.running = h.Msg, false
		return
	}
	data := s.dm.Object([]string{"tagname", "line", "column", "reason"}, []any{tag, pos.Line, pos.Col, err.Error()})
	s.internal.push(Event{Name: name, Type: "platform", SendID: sendID, Data: data})
}

// tagNames names action kinds as their elements, for error data.
var tagNames = [...]string{ActRaise: "raise", ActSend: "send", ActCancel: "cancel", ActAssign: "assign",
	ActScript: "script", ActLog: "log", ActIf: "if", ActForeach: "foreach"}

// executeContent runs a block; the first element that fails raises
// error.execution (error.communication for a send that cannot reach its
// target) and ends the block.
func (s *Session) executeContent(block []Action) {
	for i := range block {
		if err := s.execute(&block[i]); err != nil {
			s.actionError(&block[i], err)
			return
		}
	}
}

func (s *Session) actionError(a *Action, err error) {
	name, id := "error.execution", ""
	if se, ok := err.(sendError); ok {
		id, err = se.id, se.error
		if se.comm {
			name = "error.communication"
		}
	}
	s.raiseErrorAt(name, err, tagNames[a.Kind], a.Pos, id)
}

// HaltError is returned by a data model to stop the session rather than
// raise error.execution (a script that ran past its time bound: another
// round would run it again).
type HaltError struct{ Msg string }

func (e *HaltError) Error() string { return e.Msg }

// sendError is a <send> that failed after its id was chosen.
type sendError struct {
	error
	id   string
	comm bool
}

func (s *Session) text(lit string, e Expr) (string, error) {
	if e == NoExpr {
		return lit, nil
	}
	return s.dm.Text(e)
}

func (s *Session) execute(a *Action) error {
	switch a.Kind {
	case ActRaise:
		s.internal.push(Event{Name: a.Event, Type: "internal"})
	case ActLog:
		v := ""
		if a.Expr != NoExpr {
			var err error
			if v, err = s.dm.Text(a.Expr); err != nil {
				return err
			}
		}
		s.Log = append(s.Log, a.Label+": "+v)
	case ActAssign:
		var v any
		var err error
		if a.Expr != NoExpr {
			v, err = s.dm.Value(a.Expr)
		} else if a.ContentStr != nil {
			v = s.dm.Literal(*a.ContentStr)
		}
		if err != nil {
			return err
		}
		return s.dm.Assign(a.Location, v, false)
	case ActScript:
		return s.dm.Script(a.Expr)
	case ActIf:
		for i, cond := range a.Conds {
			ok := true
			if cond != NoExpr {
				var err error
				if ok, err = s.dm.Cond(cond); err != nil {
					// A condition that cannot be evaluated is false.
					s.actionError(a, err)
					ok = false
				}
			}
			if ok {
				s.executeContent(a.Branches[i])
				return nil
			}
		}
	case ActForeach:
		items, err := s.dm.Iterate(a.Expr)
		if err != nil {
			return err
		}
		for i, it := range items {
			if err := s.dm.Assign(a.Location, it, true); err != nil {
				return err
			}
			if a.Index != NoExpr {
				if err := s.dm.Assign(a.Index, float64(i), true); err != nil {
					return err
				}
			}
			for j := range a.Body {
				if err := s.execute(&a.Body[j]); err != nil {
					return err
				}
			}
		}
	case ActCancel:
		id, err := s.text(a.ID, a.IDExpr)
		if err != nil {
			return err
		}
		kept := s.delayed[:0]
		for _, d := range s.delayed {
			if d.id != id {
				kept = append(kept, d)
			}
		}
		s.delayed = kept
	case ActSend:
		return s.send(a)
	}
	return nil
}

func (s *Session) send(a *Action) error {
	name, err := s.text(a.Event, a.EventExpr)
	if err != nil {
		return err
	}
	target, err := s.text(a.Target, a.TargetExpr)
	if err != nil {
		return err
	}
	typ, err := s.text(a.Type, a.TypeExpr)
	if err != nil {
		return err
	}
	id, named := a.ID, a.ID != ""
	if id == "" {
		s.sends++
		id = "send." + strconv.Itoa(s.sends)
		if a.IDLocation != NoExpr {
			named = true
			if err := s.dm.Assign(a.IDLocation, id, false); err != nil {
				return err
			}
		}
	}
	if typ != "" && typ != SCXMLProcessor && typ != "scxml" {
		return sendError{fmt.Errorf("send type %q is not supported", typ), id, false}
	}
	delay := a.DelayMS
	if a.DelayExpr != NoExpr {
		d, err := s.dm.Text(a.DelayExpr)
		if err != nil {
			return err
		}
		if delay, err = ParseDelay(d); err != nil {
			return err
		}
	}
	data, err := s.evalData(a.Params, a.Content, a.ContentStr)
	if err != nil {
		return err
	}
	ev := Event{Name: name, Type: "external", Origin: "#_scxml_" + s.id, OriginType: SCXMLProcessor, Data: data}
	if named {
		ev.SendID = id
	}
	inner := false
	switch {
	case target == "":
	case target == "#_internal":
		inner = true
		ev.Type = "internal"
	case target == "#_scxml_"+s.id:
	case strings.HasPrefix(target, "#_"):
		return sendError{fmt.Errorf("send target %q cannot be reached", target), id, true}
	default:
		return sendError{fmt.Errorf("send target %q is not supported", target), id, false}
	}
	if delay == 0 {
		if inner {
			s.internal.push(ev)
		} else {
			s.external.push(ev)
		}
		return nil
	}
	s.seq++
	d := delayed{due: s.now + delay, seq: s.seq, id: id, event: ev, inner: inner}
	k := sort.Search(len(s.delayed), func(i int) bool {
		x := s.delayed[i]
		return x.due > d.due || x.due == d.due && x.seq > d.seq
	})
	s.delayed = append(s.delayed, delayed{})
	copy(s.delayed[k+1:], s.delayed[k:])
	s.delayed[k] = d
	return nil
}

func (s *Session) evalData(params []Param, content Expr, contentStr *string) (any, error) {
	if content != NoExpr {
		return s.dm.Value(content)
	}
	if contentStr != nil {
		return s.dm.Literal(*contentStr), nil
	}
	if len(params) == 0 {
		return nil, nil
	}
	names := make([]string, len(params))
	values := make([]any, len(params))
	for i, p := range params {
		v, err := s.dm.Value(p.Expr)
		if err != nil {
			return nil, err
		}
		names[i], values[i] = p.Name, v
	}
	return s.dm.Object(names, values), nil
}

// ParseDelay reads a CSS2 time ("500ms", "2s", ".5s") as milliseconds.
func ParseDelay(d string) (int64, error) {
	d = strings.TrimSpace(d)
	unit := 1.0
	switch {
	case strings.HasSuffix(d, "ms"):
		d = d[:len(d)-2]
	case strings.HasSuffix(d, "s"):
		d, unit = d[:len(d)-1], 1000
	case strings.HasSuffix(d, "min"):
		d, unit = d[:len(d)-3], 60000
	case strings.HasSuffix(d, "h"):
		d, unit = d[:len(d)-1], 3600000
	}
	f, err := strconv.ParseFloat(d, 64)
	if err != nil || f < 0 || f > 1e12 {
		return 0, fmt.Errorf("delay %q is not a time such as 500ms or 2s", d)
	}
	return int64(f * unit), nil
}
