package engine

import (
	"fmt"
	"sort"
	"strings"
)

// DefaultMaxChain bounds the eventless transitions one Step may take before
// it reports a runaway chain.
const DefaultMaxChain = 100

// MaxChainLimit is the largest max_chain a machine may set: a runaway chain
// records every step it takes, so an unbounded max_chain would let a loop
// of always: transitions exhaust memory before it is reported.
const MaxChainLimit = 10_000

type state struct {
	name     string
	path     string
	pos      Pos
	parent   StateID
	depth    int
	initial  StateID
	children []StateID
	final    bool
	waits    bool
	direct   IntentID
	entry    []uint32
	exit     []uint32
	failed   bool
	fork     *forkInfo
	forkRoot StateID // the parallel state whose regions run this state, or NoID
	// region is, inside a parallel state declared with parallel: true, the
	// index of the region (child) this state is in; -1 elsewhere (a fork's
	// regions all run the same states).
	region int8
	// off is, inside a parallel: true state, the first of the Config's
	// regions (Config.Branches) the state's atomic states occupy, and
	// width how many (see builder.layout).
	off, width uint8
	// par: the state is inside a parallel: true state.
	par bool
	// endsRegion marks a final state whose entry ends its region: a child
	// of a fork, or of a region of a parallel state.
	endsRegion bool
	// heard: some transition takes done.state of this state, so entering
	// its final child (or finishing its regions) raises that event.
	heard bool
	// histShallow and histDeep are the Config.Hist entries recording this
	// state's shallow and deep history, or -1 when no transition resumes
	// it so.
	histShallow, histDeep int16
	// histPos, for a state whose deep history a transition resumes and
	// that is or holds a parallel state of the main machine, is the first
	// of histWidth Config.Hist entries recording the atomic state at each
	// region position of the parallel state exited with it (-1: none).
	// A compound state records apart from the parallel states below it:
	// those may be exited without it, after it recorded.
	histPos   int16
	histWidth uint8
	// rootPath lists the state's ancestors from the top, then the state.
	rootPath []StateID
	// initLeaf is where entering the state by its initial children stops:
	// an atomic state, or a parallel state.
	initLeaf StateID
	// doneData, on a final state, gives the value of the done.state event
	// its entry raises; nil: none.
	doneData func(evalEnv) Value
}

// forkInfo is a compiled parallel state: declared with parallel: true
// (regions holds each child's entry path), or a fork, sugar for a parallel
// state whose one region (its children) is replicated per input.
type forkInfo struct {
	parallel bool
	regions  [][]StateID // parallel: true: entry path below the state, by region
	fixed    int
	inputs   SlotID // NoID: fixed count
	into     SlotID // NoID: contracts are not merged into a slot
	byFinish bool
	start    []StateID // a fork's region's entry path below the fork state
	join     []TransID
}

type trigger struct {
	kind EventKind
	id   uint16
	// any: "*" (any user event), "timer:*", "done:*" or "failed:*"
	// (any event of the kind).
	any bool
	// ids, when not nil, are the intents event descriptors match (src,
	// as written): "a b", "error" for error.execution.
	ids []uint16
	src string
}

type transition struct {
	pos      Pos
	source   StateID
	always   bool
	trig     trigger
	guard    boolFn
	test     *test // the guard, when of a shape pick evaluates without closures
	guardSrc string
	reads    uint64 // the slots its guard reads (values.go's bits)
	override string // name of the override this transition stands for, or ""
	join     bool   // a fork's join transition, taken on its done.state event
	rootPath []StateID
	target   StateID // NoID: targetless (actions only, no exit or entry)
	domain   StateID // NoID: the root
	enter    []StateID
	leaf     StateID
	actions  []uint32
	// history is histShallow or histDeep for a transition resuming its
	// target (histNone otherwise); histCut is then the length of the
	// prefix of enter that ends with the target.
	history uint8
	histCut uint8
	// histDef and histActs are the history's default transition when it
	// is not the target's initial states: the states below the target it
	// enters while nothing is recorded, and its actions, run once the
	// target is entered (SCXML's default history content).
	histDef  []StateID
	histActs []uint32
	// histNested, when the default's target is inside a parallel state
	// below the history's state (histDef then ends at it, or is empty
	// when the state is that parallel state), are its regions' paths.
	histNested []regionPath
	// histPar marks the deep history of a parallel: true state, which
	// resumes each region where it was (the deep history of each region's
	// root, recorded as the region is exited).
	histPar bool
	// scope is the extent of its exit set (scopeNone, scopeRegion,
	// scopeAll; see micro.go); exLo and exHi the regions a scopeRegion
	// transition inside a parallel: true state exits.
	scope      uint8
	exLo, exHi uint8
	// regionPaths, for a transition into the regions of parallel state
	// target (several targets, or one in another region), are the states
	// each region enters (by child index; nil: its initial states).
	regionPaths [][]StateID
	// nested are the paths the regions of parallel states nested in
	// regions enter (a region of the parallel state target included when
	// target is itself in a region), by region root; a region not listed
	// enters its initial states.
	nested []regionPath
	// regionHist are the targets among those that resume a history.
	regionHist []regionHist
}

// regionPath is the path region root ch enters, from ch down to a target
// (and its initial children) or to a parallel state whose regions have
// paths of their own.
type regionPath struct {
	ch   StateID
	path []StateID
}

// regionHist is a target in region k of a parallel state that resumes its
// history (k < 0: in region ch of parallel state q nested in a region):
// state x's shallow or deep history (slot, in Config.Hist).
type regionHist struct {
	k       int
	q, ch   StateID
	x       StateID
	shallow bool
	slot    int
	// acts is the history's default content, run once x is entered
	// when nothing is recorded.
	acts []uint32
}

const (
	histNone uint8 = iota
	histShallow
	histDeep
)

// override is a compiled OverrideDef; trans is its own transition.
type override struct {
	from  []bool // by state; nil: any
	to    []bool // by state; nil: any
	guard boolFn
	trans TransID
}

type action struct {
	pos  Pos
	kind ActionKind
	all  bool
	// to is what an ask or a clear names when it is not a slot (toNext,
	// toNone, toWaiting), decided once so that a step compares no text.
	to      uint8
	slot    SlotID
	counter CounterID
	flow    FlowID
	timer   TimerID
	ext     ExtID
	x       compiled
	hasX    bool
	tmpl    *template
	text    string
	// Executable content: the raised event (raise); the send timers a
	// cancel_send cancels; an if's conditions (nil: else) and blocks; a
	// foreach's body; the value of log and of a send's delay (nil: none);
	// what assign and script do; how foreach iterates.
	intent IntentID
	timers []TimerID
	conds  []boolFn
	blocks [][]uint32
	body   []uint32
	val    func(evalEnv) Value
	hold   func(evalEnv, uint32)
	do     func(evalEnv)
	each   func(evalEnv, func() error) error
}

const (
	toSlot uint8 = iota
	toNext
	toNone
	toWaiting
)

type slot struct {
	name      string
	pos       Pos
	typ       SlotType
	validator *validator
	persist   bool
	prompt    string
}

type counter struct {
	name  string
	pos   Pos
	limit int
}

type timer struct {
	name    string
	pos     Pos
	afterMS int64
	// send marks the timer of a send action: when it falls due, the
	// machine takes event (an intent) from its external queue; sendID is
	// the send's id, which cancel_send names.
	send   bool
	event  IntentID
	sendID string
	// data: some send of the timer gives its event data (Data.Hold).
	data bool
}

type flow struct {
	name  string
	pos   Pos
	slots []SlotID
	far   bool // a slot of slots is past the inline ones (remaining)
}

type ext struct {
	name       string
	pos        Pos
	succeeds   boolFn
	outputs    []extOutput
	neverFails bool
}

type extOutput struct {
	entity EntityID
	x      compiled
	pos    Pos // of the expression, for a result that is not a number
	name   string
}

// Machine is a compiled, immutable dialogue machine. It is safe to share
// between goroutines; all per-conversation state lives in Config.
type Machine struct {
	name string
	pos  Pos
	// dm is the definition's data model; nil: the expression language,
	// whose data lives in the Config.
	dm DataModel

	states   []state
	stateIDs map[string]StateID // by path, and by short name where unique
	trans    []transition
	acts     []action

	slots      []slot
	slotIDs    map[string]SlotID
	counters   []counter
	counterIDs map[string]CounterID
	// alikeFrom: per counter, where its values start to read alike (-1:
	// never; saturate.go).
	alikeFrom  []int32
	timers     []timer
	timerIDs   map[string]TimerID
	flows      []flow
	flowIDs    map[string]FlowID
	intents    []string
	intentIDs  map[string]IntentID
	correction []bool // by intent
	exts       []ext
	extIDs     map[string]ExtID
	entities   []string
	entityIDs  map[string]EntityID
	entSlots   []SlotID // entity id -> slot of the same name, or NoID
	validators []*validator
	values     *valueClasses // what expressions test of user texts (values.go)

	// errExec is the intent error.execution, raised when a data model's
	// expression fails, or NoID when the machine does not declare it.
	errExec IntentID
	// sends: the machine has send actions.
	sends bool

	initial  StateID
	initPath []StateID
	// startActs run once, as the machine starts (Definition.StartActions).
	startActs []uint32
	// quietStart: starting only enters the initial leaf (start.go).
	quietStart bool
	directIn   []IntentID // by state (DirectIntent)
	maxChain   int
	// nHist is how many Config.Hist entries the machine's histories use.
	nHist int
	// regionDeep: a state inside a region has a deep history that records
	// its region positions (exitBelow records them first).
	regionDeep bool
	// transient has a bit per inline slot that a context reset empties
	// (not persistent), so that the reset needs no pass over every slot.
	transient uint32

	userTab   [][]TransID // [state*len(intents)+intent]
	timerTab  [][]TransID // [state*len(timers)+timer]
	doneTab   [][]TransID // [state*len(exts)+ext]
	failTab   [][]TransID
	alwaysTab [][]TransID // [state]
	plans     []plan      // [transition] (fast.go)
	// doneStateTab lists the done.state.* transitions of a state and its
	// ancestors, in priority order.
	doneStateTab [][]TransID // [state]

	invariants []Invariant
	// builtinNotes are the notes of built-in invariants, by name.
	builtinNotes []BuiltinNotes
	idle         []bool // by state
	failable     []bool // by external action: the machine handles its failure somewhere
	// escIntent and escTimer mark the escape events, by intent and timer.
	escIntent, escTimer []bool
	overrides           []override
	// rootTrans are the machine-level transitions, tried last in every
	// state of the main machine.
	rootTrans []TransID
	params    map[string]Value
	// general makes every step take the general algorithm, never fire:
	// set only by the specs that compare the two (export_test.go).
	general bool
}

// Param returns the value of a machine parameter in this build.
func (m *Machine) Param(name string) (Value, bool) {
	v, ok := m.params[name]
	return v, ok
}

// NumHistories returns how many entries of Config.Hist the machine uses
// (the first ones); the others stay 0.
func (m *Machine) NumHistories() int { return m.nHist }

// IsJoin reports whether transition t is a fork's join.
func (m *Machine) IsJoin(t TransID) bool { return m.trans[t].join }

// IsFork reports whether state s is a parallel state (a fork is one).
func (m *Machine) IsFork(s StateID) bool { return m.states[s].fork != nil }

// Regions returns how many distinct regions parallel state p has: one per
// child of a parallel: true state, one for a fork (its branches all run
// the same states), 0 when p is not a parallel state.
func (m *Machine) Regions(p StateID) int {
	switch fi := m.states[p].fork; {
	case fi == nil:
		return 0
	case fi.parallel:
		return len(fi.regions)
	}
	return 1
}

// RegionEntry returns the states region i of parallel state p enters when
// p is entered, outermost first (a fork's regions all enter the same), or
// nil when p is not a parallel state.
func (m *Machine) RegionEntry(p StateID, i int) []StateID {
	fi := m.states[p].fork
	switch {
	case fi == nil:
		return nil
	case fi.parallel:
		if i < len(fi.regions) {
			return fi.regions[i]
		}
		return nil
	}
	return fi.start
}

// IsOverride reports whether transition t is an override's.
func (m *Machine) IsOverride(t TransID) bool { return m.trans[t].override != "" }

// Name returns the machine's name.
func (m *Machine) Name() string { return m.name }

// IsIdle reports whether c rests with no task under way: in an idle state
// (or final), with no flow and no fork active.
func (m *Machine) IsIdle(c *Config) bool {
	return c.Final || (m.idle[c.State] && c.FlowDepth == 0 && c.NBranch == 0)
}

// HandlesFailure reports whether some transition takes failed:x.
func (m *Machine) HandlesFailure(x ExtID) bool { return m.failable[x] }

// IsEscapeIntent reports whether user intent i is an escape (see
// Definition.Escapes).
func (m *Machine) IsEscapeIntent(i IntentID) bool { return int(i) < len(m.escIntent) && m.escIntent[i] }

// IsEscapeTimer reports whether timer t is an escape.
func (m *Machine) IsEscapeTimer(t TimerID) bool { return int(t) < len(m.escTimer) && m.escTimer[t] }

// MayFail reports whether external action x may fail: every action may,
// unless its declaration says it never fails.
func (m *Machine) MayFail(x ExtID) bool { return !m.exts[x].neverFails }

// TakesResult reports whether state s (through itself, its ancestors or
// the machine-level transitions) has a transition for done:x, or for
// failed:x when failed is true, whatever its guard.
func (m *Machine) TakesResult(s StateID, x ExtID, failed bool) bool {
	tab := m.doneTab
	if failed {
		tab = m.failTab
	}
	if int(s) >= len(m.states) || int(x) >= len(m.exts) {
		return false
	}
	return len(tab[int(s)*len(m.exts)+int(x)]) > 0
}

// Initial returns the leaf state a conversation starts in.
func (m *Machine) Initial() StateID { return m.initial }

// NumStates returns the number of states; ids run from 0 to NumStates()-1.
func (m *Machine) NumStates() int { return len(m.states) }

// StateName returns the full dotted path of a state.
func (m *Machine) StateName(id StateID) string {
	if int(id) >= len(m.states) {
		return ""
	}
	return m.states[id].path
}

// StatePos returns where a state is declared.
func (m *Machine) StatePos(id StateID) Pos { return m.states[id].pos }

// StateID resolves a full path, or a short name that is unique.
func (m *Machine) StateID(name string) (StateID, bool) {
	id, ok := m.stateIDs[name]
	return id, ok
}

// IsFinal reports whether a state is final.
func (m *Machine) IsFinal(id StateID) bool { return m.states[id].final }

// Waits reports whether a state rests awaiting user input.
func (m *Machine) Waits(id StateID) bool { return m.states[id].waits }

// IsLeaf reports whether a state has no children.
func (m *Machine) IsLeaf(id StateID) bool { return len(m.states[id].children) == 0 }

// Parent returns the parent of a state, or NoID.
func (m *Machine) Parent(id StateID) StateID { return m.states[id].parent }

// InitialLeaf returns where entering state id by its initial children
// stops: an atomic state, or a parallel state.
func (m *Machine) InitialLeaf(id StateID) StateID { return m.states[id].initLeaf }

// regionOf returns the root of the region state s runs in: the nearest
// ancestor (or s) whose parent is a parallel: true state, or, inside a
// fork, the fork state (its branches run all its children); NoID outside
// parallel states.
func (m *Machine) regionOf(s StateID) StateID {
	for x := s; x != NoID; x = m.states[x].parent {
		p := m.states[x].parent
		if p != NoID && m.states[p].fork != nil {
			if m.states[p].fork.parallel {
				return x
			}
			return p
		}
	}
	return NoID
}

// regionCount is how many regions of the active parallel state can
// finish: a parallel: true state's children, a fork's branches.
func (m *Machine) regionCount(c *Config) uint8 {
	if fi := m.states[c.State].fork; fi != nil && fi.parallel {
		return uint8(len(fi.regions))
	}
	return c.NBranch
}

// InState reports whether the leaf state is s or a descendant of s.
func (m *Machine) InState(leaf, s StateID) bool {
	for x := leaf; x != NoID; x = m.states[x].parent {
		if x == s {
			return true
		}
	}
	return false
}

// DirectIntent returns the intent to emit when the driver maps the user's
// text straight into the waiting slot in leaf state s, or NoID.
func (m *Machine) DirectIntent(s StateID) IntentID {
	if int(s) < len(m.directIn) {
		return m.directIn[s]
	}
	return NoID
}

// prepareDirect fills directIn: by state, the direct slot mapping of the
// state or of its nearest ancestor that has one, which the driver asks
// for on every user turn.
func (m *Machine) prepareDirect() {
	m.directIn = make([]IntentID, len(m.states))
	for s := range m.states {
		m.directIn[s] = NoID
		for x := StateID(s); x != NoID; x = m.states[x].parent {
			if m.states[x].direct != NoID {
				m.directIn[s] = m.states[x].direct
				break
			}
		}
	}
}

// NumTransitions returns the number of transitions; ids run from 0.
func (m *Machine) NumTransitions() int { return len(m.trans) }

// TransitionInfo describes a transition for reports.
type TransitionInfo struct {
	ID       TransID
	Source   StateID
	Target   StateID // NoID when targetless
	Trigger  string  // intent, "*", "timer:x", "done:x", "failed:x" or "always"
	Guard    string
	Pos      Pos
	Internal bool
}

// Transition describes transition t.
func (m *Machine) Transition(t TransID) TransitionInfo {
	tr := &m.trans[t]
	return TransitionInfo{ID: t, Source: tr.source, Target: tr.target, Trigger: m.triggerName(tr),
		Guard: tr.guardSrc, Pos: tr.pos, Internal: tr.target == NoID}
}

func (m *Machine) triggerName(tr *transition) string {
	if tr.override != "" {
		return "override:" + tr.override
	}
	if tr.join {
		return "join"
	}
	if tr.trig.kind == doneStateKind {
		return "done.state." + m.states[tr.trig.id].path
	}
	if tr.always {
		return "always"
	}
	switch {
	case tr.trig.any && tr.trig.kind == TimerEvent:
		return "timer:*"
	case tr.trig.any && tr.trig.kind == DoneEvent:
		return "done:*"
	case tr.trig.any && tr.trig.kind == FailedEvent:
		return "failed:*"
	}
	switch tr.trig.kind {
	case TimerEvent:
		return "timer:" + m.timers[tr.trig.id].name
	case DoneEvent:
		return "done:" + m.exts[tr.trig.id].name
	case FailedEvent:
		return "failed:" + m.exts[tr.trig.id].name
	}
	if tr.trig.any {
		return "*"
	}
	if tr.trig.ids != nil {
		return tr.trig.src
	}
	return m.intents[tr.trig.id]
}

// Intents returns the declared intents in id order.
func (m *Machine) Intents() []string { return m.intents }

// IntentID resolves an intent name.
func (m *Machine) IntentID(name string) (IntentID, bool) {
	id, ok := m.intentIDs[name]
	return id, ok
}

// IsCorrection reports whether intent i is declared a correction intent.
func (m *Machine) IsCorrection(i IntentID) bool {
	return int(i) < len(m.correction) && m.correction[i]
}

// FlowHasSlot reports whether flow f collects slot s.
func (m *Machine) FlowHasSlot(f FlowID, s SlotID) bool {
	for _, x := range m.flows[f].slots {
		if x == s {
			return true
		}
	}
	return false
}

// ActionSlot returns the slot an action instance names (set, clear), or
// NoID; all reports whether it clears every slot (clear: all,
// reset_context).
func (m *Machine) ActionSlot(a uint32) (s SlotID, all bool) {
	ac := &m.acts[a]
	switch ac.kind {
	case ActSet, ActClear, ActAssign:
		return ac.slot, ac.all || (ac.kind == ActClear && ac.text == "waiting")
	case ActResetContext:
		return NoID, true
	}
	return NoID, false
}

// NumSlots and NumCounters count slots and counters (ids run from 0),
// without building the name lists Slots and Counters return.
func (m *Machine) NumSlots() int    { return len(m.slots) }
func (m *Machine) NumCounters() int { return len(m.counters) }

// CounterName returns a counter's name.
func (m *Machine) CounterName(id CounterID) string { return m.counters[id].name }

// Slots returns slot names in id order.
func (m *Machine) Slots() []string {
	out := make([]string, len(m.slots))
	for i := range m.slots {
		out[i] = m.slots[i].name
	}
	return out
}

// SlotID resolves a slot name.
func (m *Machine) SlotID(name string) (SlotID, bool) {
	id, ok := m.slotIDs[name]
	return id, ok
}

// SlotType returns a slot's declared type.
func (m *Machine) SlotType(id SlotID) SlotType { return m.slots[id].typ }

// SlotName returns a slot's name.
func (m *Machine) SlotName(id SlotID) string { return m.slots[id].name }

// Counters returns counter names in id order.
func (m *Machine) Counters() []string {
	out := make([]string, len(m.counters))
	for i := range m.counters {
		out[i] = m.counters[i].name
	}
	return out
}

// CounterID resolves a counter name.
func (m *Machine) CounterID(name string) (CounterID, bool) {
	id, ok := m.counterIDs[name]
	return id, ok
}

// CounterLimit returns a counter's limit (0: none).
func (m *Machine) CounterLimit(id CounterID) int { return m.counters[id].limit }

// TimerName returns a timer's name.
func (m *Machine) TimerName(id TimerID) string { return m.timers[id].name }

// IsSend reports whether timer t holds the pending events of a send
// action (see ActSend) rather than a declared timer or state timeout.
func (m *Machine) IsSend(t TimerID) bool { return int(t) < len(m.timers) && m.timers[t].send }

// SendEvent returns the event (intent) a send's timer delivers, or NoID
// for a timer that is not a send's.
func (m *Machine) SendEvent(t TimerID) IntentID {
	if !m.IsSend(t) {
		return NoID
	}
	return m.timers[t].event
}

// SendID returns the sendid of a send's timer ("" for none, or for a
// timer that is not a send's).
func (m *Machine) SendID(t TimerID) string {
	if !m.IsSend(t) {
		return ""
	}
	return m.timers[t].sendID
}

// HasSends reports whether the machine has send actions.
func (m *Machine) HasSends() bool { return m.sends }

// NumTimers returns the number of timers, state timeouts included; ids
// run from 0.
func (m *Machine) NumTimers() int { return len(m.timers) }

// TimerID resolves a timer name.
func (m *Machine) TimerID(name string) (TimerID, bool) {
	id, ok := m.timerIDs[name]
	return id, ok
}

// FlowName returns a flow's name.
func (m *Machine) FlowName(id FlowID) string { return m.flows[id].name }

// FlowID resolves a flow name.
func (m *Machine) FlowID(name string) (FlowID, bool) {
	id, ok := m.flowIDs[name]
	return id, ok
}

// ExtName returns an external action's name.
func (m *Machine) ExtName(id ExtID) string { return m.exts[id].name }

// NumExternals returns the number of external actions; ids run from 0.
func (m *Machine) NumExternals() int { return len(m.exts) }

// ExtID resolves an external action's name.
func (m *Machine) ExtID(name string) (ExtID, bool) {
	id, ok := m.extIDs[name]
	return id, ok
}

// EntityID resolves an entity name used by the machine's expressions or
// action outputs. Entities the machine never reads have no id.
func (m *Machine) EntityID(name string) (EntityID, bool) {
	id, ok := m.entityIDs[name]
	return id, ok
}

// entitySlot returns the slot an entity is named after, or NoID.
func (m *Machine) entitySlot(id EntityID) SlotID {
	if int(id) < len(m.entSlots) {
		return m.entSlots[id]
	}
	return NoID
}

// EntityName returns an entity's name.
func (m *Machine) EntityName(id EntityID) string { return m.entities[id] }

// entity interns an entity name at build time; it fails past MaxNames
// names.
func (m *Machine) entity(name string) (EntityID, bool) {
	if id, ok := m.entityIDs[name]; ok {
		return id, true
	}
	if len(m.entities) >= MaxNames {
		return NoID, false
	}
	id := EntityID(len(m.entities))
	m.entities = append(m.entities, name)
	m.entityIDs[name] = id
	s, ok := m.slotIDs[name]
	if !ok {
		s = NoID
	}
	m.entSlots = append(m.entSlots, s)
	return id, true
}

func (m *Machine) validator(name string) *validator {
	for _, v := range m.validators {
		if v.name == name {
			return v
		}
	}
	return nil
}

// NumActions returns the number of action instances (entry, exit and
// transition actions everywhere in the machine).
func (m *Machine) NumActions() int { return len(m.acts) }

// ActionInfo describes an action instance for traces and reports.
func (m *Machine) ActionInfo(a uint32) (ActionKind, string, Pos) {
	ac := &m.acts[a]
	name := ac.text
	switch ac.kind {
	case ActInvoke:
		name = m.exts[ac.ext].name
	case ActStart, ActCancel:
		name = m.timers[ac.timer].name
	case ActPush:
		name = m.flows[ac.flow].name
	case ActIncr, ActReset:
		if !ac.all && ac.counter != NoID {
			name = m.counters[ac.counter].name
		}
	case ActSet, ActClear:
		if !ac.all && ac.slot != NoID {
			name = m.slots[ac.slot].name
		}
	}
	return ac.kind, name, ac.pos
}

// nextEmpty returns the first empty slot of the current flow, or NoID.
func (m *Machine) nextEmpty(c *Config) SlotID {
	f := c.Flow()
	if f == NoID {
		return NoID
	}
	for _, s := range m.flows[f].slots {
		if c.Slot(s).Kind == Empty {
			return s
		}
	}
	return NoID
}

// SlotPrompt returns the prompt declared for a slot.
func (m *Machine) SlotPrompt(id SlotID) string { return m.slots[id].prompt }

// sortedKeys returns map keys in order, for deterministic error lists.
func sortedKeys[V any](mp map[string]V) []string {
	out := make([]string, 0, len(mp))
	for k := range mp {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Error is a build or runtime error with the position it concerns.
type Error struct {
	Pos     Pos
	Msg     string
	Warning bool
}

func (e *Error) Error() string {
	if e.Pos == (Pos{}) {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// Diagnostics is the list of problems Build found, sorted by position.
type Diagnostics []*Error

// Err returns the diagnostics that are errors (not warnings) as one error,
// or nil.
func (d Diagnostics) Err() error {
	var errs []string
	for _, e := range d {
		if !e.Warning {
			errs = append(errs, e.Error())
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &BuildError{Diags: d}
}

// BuildError wraps the diagnostics of a failed Build. Its message is the
// first error; Diags holds them all.
type BuildError struct{ Diags Diagnostics }

func (b *BuildError) Error() string {
	for _, e := range b.Diags {
		if !e.Warning {
			return e.Error()
		}
	}
	return "build failed"
}

// First returns the first error.
func (b *BuildError) First() *Error {
	for _, e := range b.Diags {
		if !e.Warning {
			return e
		}
	}
	return nil
}

func describe(names []string) string {
	if len(names) > 8 {
		names = append(names[:8:8], "…")
	}
	return strings.Join(names, ", ")
}

func errf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// DeadEnd reports whether c is a dead end: not final, yet no event could
// move it: no timer pending, no region awaiting an action's result, and no
// user intent with a transition whose guard holds (guards are
// tried with an event carrying just the intent, so a guard that needs
// entities may make this report a dead end that a fuller event would leave).
func (m *Machine) DeadEnd(c *Config) bool { return m.DeadEndWith(c, nil) }

// DeadEndWith is DeadEnd for a machine whose data lives outside the
// Config: the guards are evaluated on d, the conversation's data (without
// it an ECMAScript guard could only fail).
func (m *Machine) DeadEndWith(c *Config, d Data) bool {
	if c.Final {
		return false
	}
	if _, ok := m.NextTimer(c); ok {
		return false
	}
	if c.Awaiting() != 0 {
		return false
	}
	ni := len(m.intents)
	var r *Result
	if d != nil {
		// Scratch for the data model's guards: what they raise
		// (error.execution) goes nowhere.
		r = &Result{data: d}
	}
	var atoms [MaxBranches + 1]atom
	for _, a := range m.atoms(c, 0, &atoms) {
		for i := 0; i < ni; i++ {
			ev := Event{Kind: UserEvent, Intent: IntentID(i), Confidence: 1, Timer: NoID, Ext: NoID}
			e := evalEnv{m: m, c: c, ev: &ev, r: r}
			for _, t := range m.userTab[int(a.leaf)*ni+i] {
				e.br = m.context(t, a.br)
				if g := m.trans[t].guard; g == nil || g(e) {
					return false
				}
			}
		}
	}
	return true
}

// IsInternal reports whether transition t is targetless (runs actions
// without leaving its state).
func (m *Machine) IsInternal(t TransID) bool { return m.trans[t].target == NoID }

// Describe renders a configuration for people: state, waiting slot, filled
// slots, non-zero counters, flow stack and pending timers, in id order.
func (m *Machine) Describe(c *Config) string {
	var b strings.Builder
	b.WriteString("state=")
	b.WriteString(m.StateName(c.State))
	// A configuration before the start is all zeros; ids out of range are
	// left out rather than trusted.
	if c.Waiting != NoID && int(c.Waiting) < len(m.slots) {
		b.WriteString(" waiting=")
		b.WriteString(m.slots[c.Waiting].name)
	}
	first := true
	for i := range m.slots {
		v := c.Slot(SlotID(i))
		if v.Kind == Empty {
			continue
		}
		if first {
			b.WriteString(" slots{")
		} else {
			b.WriteByte(' ')
		}
		first = false
		fmt.Fprintf(&b, "%s=%q", m.slots[i].name, v.String())
	}
	if !first {
		b.WriteByte('}')
	}
	first = true
	for i := range m.counters {
		if c.Counters[i] == 0 {
			continue
		}
		if first {
			b.WriteString(" counters{")
		} else {
			b.WriteByte(' ')
		}
		first = false
		fmt.Fprintf(&b, "%s=%d", m.counters[i].name, c.Counters[i])
	}
	if !first {
		b.WriteByte('}')
	}
	if c.FlowDepth > 0 {
		b.WriteString(" flows[")
		for i := 0; i < int(c.FlowDepth); i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			if int(c.Flows[i]) < len(m.flows) {
				b.WriteString(m.flows[c.Flows[i]].name)
			}
		}
		b.WriteByte(']')
	}
	for i, n := 0, c.TimerSlots(); i < n; i++ {
		if t := c.TimerAt(i); t.Active && int(t.ID) < len(m.timers) {
			fmt.Fprintf(&b, " timer{%s@%dms}", m.timers[t.ID].name, t.Deadline)
		}
	}
	for i := 0; i < int(c.NBranch); i++ {
		br := &c.Branches[i]
		if br.State == NoID {
			continue
		}
		status := [...]string{"?", "running", "done", "failed"}[br.Status]
		fmt.Fprintf(&b, " branch%d{%s %s", i, m.StateName(br.State), status)
		if br.Pending != NoID {
			fmt.Fprintf(&b, " awaiting %s", m.exts[br.Pending].name)
		}
		if res := c.BranchResult(i); res != "" {
			fmt.Fprintf(&b, " contract=%q", res)
		}
		b.WriteByte('}')
	}
	return b.String()
}
