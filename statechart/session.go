package statechart

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// SCXMLProcessor is the type URI of the SCXML event I/O processor, the only
// one a Session has.
const SCXMLProcessor = "http://www.w3.org/TR/scxml/#SCXMLEventProcessor"

// MaxMicrosteps bounds the microsteps of one macrostep: a chart whose
// eventless transitions or raised events never settle stops there (Halted
// reports why) instead of looping forever.
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
	internal   []Event
	external   []Event
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
}

// NewSession makes a session of a built chart with the compiled program's
// data model; Start runs it.
func NewSession(c *Chart, p Program) *Session {
	s := &Session{chart: c, history: make([]Bits, len(c.States)), Final: -1, id: "simctl0"}
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
	s.external = append(s.external, ev)
	s.mainEventLoop()
}

// NextDue returns the deadline of the earliest delayed event.
func (s *Session) NextDue() (int64, bool) {
	if len(s.delayed) == 0 {
		return 0, false
	}
	return s.delayed[0].due, true
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
			s.internal = append(s.internal, d.event)
		} else {
			s.external = append(s.external, d.event)
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
			enabled := s.selectEventlessTransitions()
			if len(enabled) == 0 {
				if len(s.internal) == 0 {
					macrostepDone = true
				} else {
					ev := s.internal[0]
					s.internal = s.internal[1:]
					s.dm.SetEvent(ev)
					enabled = s.selectTransitions(ev)
				}
			}
			if len(enabled) > 0 {
				s.microstep(enabled)
			}
			if s.micro > MaxMicrosteps {
				s.halted = fmt.Sprintf("a macrostep took more than %d microsteps", MaxMicrosteps)
				s.running = false
				return
			}
		}
		if !s.running {
			break
		}
		if len(s.internal) > 0 {
			continue
		}
		if len(s.external) == 0 {
			return
		}
		ev := s.external[0]
		s.external = s.external[1:]
		s.dm.SetEvent(ev)
		if enabled := s.selectTransitions(ev); len(enabled) > 0 {
			s.microstep(enabled)
		}
	}
	s.exitInterpreter()
}

// exitInterpreter runs the exit actions of every active state, deepest
// first. The configuration is kept as it was, so that callers can see
// where the session stopped.
func (s *Session) exitInterpreter() {
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
	var enabled []*Transition
	for _, a := range s.config.List() {
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

// NameMatch reports whether one of the descriptors matches the event name.
func NameMatch(descriptors []string, name string) bool { return nameMatch(descriptors, name) }

func (s *Session) conditionMatch(t *Transition) bool {
	if t.Cond == NoExpr {
		return true
	}
	ok, err := s.dm.Cond(t.Cond)
	if err != nil {
		s.raiseError("error.execution", err)
		return false
	}
	return ok
}

// removeConflictingTransitions keeps an optimal enabled transition set: of
// two transitions whose exit sets intersect, the one whose source is a
// descendant of the other's wins; otherwise the first in document order of
// the states that selected them.
func (s *Session) removeConflictingTransitions(enabled []*Transition) []*Transition {
	if len(enabled) < 2 {
		return enabled
	}
	var filtered []*Transition
	for _, t1 := range enabled {
		preempted := false
		var remove []*Transition
		exit1 := s.computeExitSet([]*Transition{t1})
		for _, t2 := range filtered {
			if exit1.Intersects(s.computeExitSet([]*Transition{t2})) {
				if s.chart.isDescendant(t1.Source, t2.Source) {
					remove = append(remove, t2)
				} else {
					preempted = true
					break
				}
			}
		}
		if !preempted {
			kept := filtered[:0:0]
			for _, t := range filtered {
				if !containsT(remove, t) {
					kept = append(kept, t)
				}
			}
			filtered = append(kept, t1)
		}
	}
	return filtered
}

func (s *Session) microstep(enabled []*Transition) {
	s.micro++
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
	list := toExit.List()
	for _, i := range list {
		for _, h := range c.States[i].History {
			var v Bits
			for _, a := range s.config.List() {
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
	for k := len(list) - 1; k >= 0; k-- {
		st := &c.States[list[k]]
		for _, block := range st.OnExit {
			s.executeContent(block)
		}
		s.config.Delete(list[k])
	}
}

// computeExitSet returns the active states that the transitions leave: the
// active descendants of each targeted transition's domain.
func (s *Session) computeExitSet(ts []*Transition) Bits {
	var out Bits
	for _, t := range ts {
		if len(t.Targets) == 0 {
			continue
		}
		domain := s.getTransitionDomain(t)
		for _, a := range s.config.List() {
			if s.chart.isDescendant(a, domain) {
				out.Add(a)
			}
		}
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
	defaultHistory := map[int][]Action{}
	s.computeEntrySet(enabled, &toEnter, &forDefault, defaultHistory)
	for _, i := range toEnter.List() {
		st := &c.States[i]
		s.config.Add(i)
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
		s.internal = append(s.internal, Event{Name: "done.state." + c.States[parent].ID, Type: "internal", Data: s.doneData(st)})
		if gp := c.States[parent].Parent; gp >= 0 && c.States[gp].Kind == Parallel {
			all := true
			for _, ch := range c.States[gp].Children {
				if !s.isHistory(ch) && !s.isInFinalState(ch) {
					all = false
					break
				}
			}
			if all {
				s.internal = append(s.internal, Event{Name: "done.state." + c.States[gp].ID, Type: "internal"})
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
		for _, tg := range s.getEffectiveTargetStates(t).List() {
			s.addAncestorStatesToEnter(tg, ancestor, toEnter, forDefault, defaultHistory)
		}
	}
}

func (s *Session) addDescendantStatesToEnter(st int, toEnter, forDefault *Bits, defaultHistory map[int][]Action) {
	c := s.chart
	state := &c.States[st]
	if c.isHistory(st) {
		if s.historySet.Has(st) {
			hv := s.history[st].List()
			for _, h := range hv {
				s.addDescendantStatesToEnter(h, toEnter, forDefault, defaultHistory)
			}
			for _, h := range hv {
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
	for _, x := range set.List() {
		if s.chart.isDescendant(x, anc) {
			return true
		}
	}
	return false
}

func (s *Session) addAncestorStatesToEnter(st, ancestor int, toEnter, forDefault *Bits, defaultHistory map[int][]Action) {
	c := s.chart
	for _, anc := range s.getProperAncestors(st, ancestor) {
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

// getProperAncestors returns st's ancestors up to, not including, stop
// (all of them when stop is -1), innermost first.
func (s *Session) getProperAncestors(st, stop int) []int {
	var out []int
	for p := s.chart.States[st].Parent; p >= 0 && p != stop; p = s.chart.States[p].Parent {
		out = append(out, p)
	}
	return out
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
// a compound source, otherwise the least common compound ancestor.
func (s *Session) getTransitionDomain(t *Transition) int {
	c := s.chart
	targets := s.getEffectiveTargetStates(t)
	if targets.IsEmpty() {
		return -1
	}
	if t.Type == Internal && (c.States[t.Source].Kind == Compound || t.Source == 0) {
		all := true
		for _, tg := range targets.List() {
			if !c.isDescendant(tg, t.Source) {
				all = false
				break
			}
		}
		if all {
			return t.Source
		}
	}
	return s.findLCCA(t.Source, targets.List())
}

// findLCCA returns the innermost compound ancestor (or the root) of the
// first state that contains all the others.
func (s *Session) findLCCA(head int, tail []int) int {
	c := s.chart
	for _, anc := range s.getProperAncestors(head, -1) {
		if anc != 0 && c.States[anc].Kind != Compound {
			continue
		}
		all := true
		for _, x := range tail {
			if !c.isDescendant(x, anc) {
				all = false
				break
			}
		}
		if all {
			return anc
		}
	}
	return 0
}

// getEffectiveTargetStates replaces history targets by their stored value
// or their default transition's targets.
func (s *Session) getEffectiveTargetStates(t *Transition) Bits {
	var out Bits
	for _, tg := range t.Targets {
		if s.chart.isHistory(tg) {
			if s.historySet.Has(tg) {
				for _, h := range s.history[tg].List() {
					out.Add(h)
				}
			} else {
				sub := s.getEffectiveTargetStates(s.chart.States[tg].Initial)
				for _, h := range sub.List() {
					out.Add(h)
				}
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
	data := s.dm.Object([]string{"tagname", "line", "column", "reason"}, []any{tag, pos.Line, pos.Col, err.Error()})
	s.internal = append(s.internal, Event{Name: name, Type: "platform", SendID: sendID, Data: data})
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
		s.internal = append(s.internal, Event{Name: a.Event, Type: "internal"})
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
			s.internal = append(s.internal, ev)
		} else {
			s.external = append(s.external, ev)
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
