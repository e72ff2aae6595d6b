package engine

// EffectKind says what the caller should do for an effect.
type EffectKind uint8

const (
	// EffSay: the bot says Text.
	EffSay EffectKind = iota
	// EffInvoke: perform external action Ext and feed back done:/failed:.
	EffInvoke
	// EffStartTimer: timer Timer was (re)started with Deadline.
	EffStartTimer
	// EffCancelTimer: timer Timer was cancelled.
	EffCancelTimer
	// EffEscalate: hand over to a human; Text holds the reason.
	EffEscalate
	// EffLog: a log action's output, in Text ("label: value").
	EffLog
)

var effectKindNames = [...]string{"say", "invoke", "start_timer", "cancel_timer", "escalate", "log"}

func (k EffectKind) String() string { return effectKindNames[k] }

// Effect is something the caller should perform, produced by an action.
// Text is a window into Result.Text; read it with Result.EffectText.
type Effect struct {
	Kind     EffectKind
	Branch   uint8 // 0: main machine; i+1: region i of the parallel state (route the result back to it)
	Ext      ExtID
	Timer    TimerID
	Template uint16
	Action   uint32 // the action instance that produced it
	Deadline int64
	TextLo   uint32
	TextHi   uint32
}

// GuardOutcome records that a transition's guard was evaluated.
type GuardOutcome struct {
	Trans TransID
	Pass  bool
}

// TraceStep is one transition taken. Guards and Actions are windows into the
// Result's shared buffers: Guards[GuardLo:GuardHi] were evaluated to choose
// this transition, Actions[ActLo:ActHi] ran (exit, transition, entry order).
type TraceStep struct {
	From, To StateID
	Trans    TransID
	// Overrode is the transition an override replaced, or NoID.
	Overrode TransID
	// Branch is 0 for the main machine, i+1 for a transition inside region
	// i of the active parallel state (From and To are then the region's
	// states).
	Branch           uint8
	GuardLo, GuardHi uint32
	ActLo, ActHi     uint32
}

// Join records a fork's join (its done.state event): how many branches it
// had, how many had finished, and how many contracts were merged.
type Join struct {
	Fork      StateID
	Trans     TransID
	Branches  int
	Finished  int
	Failed    int
	Delivered int
}

// Result is what one Step produced. It is reused across steps: Step resets
// it, and its slices keep their capacity, so a steady-state loop does not
// allocate.
type Result struct {
	// Handled is false when no transition matched the event (it is ignored).
	Handled bool
	Steps   []TraceStep
	Guards  []GuardOutcome
	Actions []uint32
	Effects []Effect
	Joins   []Join
	Text    []byte
	// ReadEvent is true when the step read its event's value, text,
	// entities or confidence (in a guard, an action, a template). When it
	// is false, the same event with any other payload steps alike: an
	// explorer need not try the others.
	ReadEvent bool
	// internal is the internal event queue of the step (done.state
	// events, raised events, error.execution), in order; nextInternal is
	// the next to process.
	internal     []queued
	nextInternal int
	// iev is the internal event being processed, as expressions see it.
	iev Event
	// data is the conversation's data model data (StepWith), or nil.
	data Data
	// abort: a data model error stops the rest of the block being run.
	abort bool
	// sel is the transition set of the microstep being taken: scratch
	// space kept here so that a step does not clear a new one each time.
	sel selection
	// atoms is selectTransitions' list of active atomic states, kept
	// here so that no call zeroes a fresh one.
	atoms [MaxBranches + 1]atom
	// resume, while a parallel state's deep history is resumed, holds
	// the atomic state recorded at each region position, plus one.
	resume []StateID
	// into, while a parallel state's regions resume a deep history, holds
	// the path each region enters (by child index; nil: initial states).
	into [][]StateID
	// nested, while a transition enters parallel states nested in
	// regions, holds the paths their regions enter (transition.nested,
	// or nestBuf when histories it resumes changed some).
	nested, nestBuf []regionPath
	// histRun, while a transition enters regions, lists the histories
	// it resumes that recorded nothing and have default content, run
	// once their state is entered (enterRegion).
	histRun []regionHist
	// general is set by the general algorithm, which may leave Joins,
	// resume, into, nested and histRun to clear before the next step.
	general bool
	// exprErr is the first runtime error an expression met (number() of
	// text that is not a number); Step and Start return it.
	exprErr *RuntimeError
}

// queued is one event of the internal queue: done.state of state id
// (with the value of its final state's donedata), or the raised event
// (intent) id.
type queued struct {
	kind uint8
	id   uint16
	val  Value
	// key names the data a raise gave the event (0: none; Data.Take).
	key uint32
}

const (
	queuedDone uint8 = iota
	queuedRaise
	// queuedError is error.execution, raised by the engine.
	queuedError
)

func (r *Result) reset() {
	r.clear()
	r.clearRare()
}

// clear empties what every step fills; it is small enough to be inlined
// into step, which calls clearRare only when there is something to clear.
func (r *Result) clear() {
	r.Handled, r.ReadEvent = false, false
	r.Steps, r.Guards, r.Actions = r.Steps[:0], r.Guards[:0], r.Actions[:0]
	r.Effects, r.Text = r.Effects[:0], r.Text[:0]
	r.internal, r.nextInternal = r.internal[:0], 0
}

// rare reports whether the Result may hold something only the general
// algorithm (macrostep, microstep) or a failing expression puts there.
func (r *Result) rare() bool { return r.general || r.exprErr != nil }

func (r *Result) clearRare() {
	r.general, r.exprErr, r.nested = false, nil, nil
	r.Joins, r.resume, r.into, r.histRun = r.Joins[:0], r.resume[:0], r.into[:0], r.histRun[:0]
}

// EffectText returns the text of a say or escalate effect.
func (r *Result) EffectText(e *Effect) []byte { return r.Text[e.TextLo:e.TextHi] }
