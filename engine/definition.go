// Package engine is simctl's pure, deterministic runtime for hierarchical
// dialogue state machines.
//
// A Definition (plain data, usually produced by package spec from a
// machine.yaml) is compiled once by Build into a Machine: names become small
// integers, guards become compiled closures, and every transition's entry path
// is precomputed. Machine.Step then advances a Config (a small comparable
// value) by one Event and reports, as data, the trace of transitions taken and
// the effects the caller should perform. The engine does no I/O, starts no
// goroutines, never reads the wall clock and uses no random source: time
// enters only as Event.At, owned by the caller.
package engine

import "fmt"

// Pos is a position in a source file. The engine never opens files; loaders
// fill positions in so that build errors and coverage can point at the spec.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string {
	switch {
	case p.File == "":
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	case p.Line == 0:
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Definition describes a machine before it is compiled. States are listed in
// declaration order; a state's Parent names its enclosing compound state.
type Definition struct {
	Name       string
	Pos        Pos
	Initial    string
	InitialPos Pos
	States     []StateDef
	Slots      []SlotDef
	Counters   []CounterDef
	Timers     []TimerDef
	Flows      []FlowDef
	Intents    []NameDef
	// IdleStates are where a conversation rests when no task is under way
	// (default: the initial state); liveness checks count reaching one, with
	// no flow and no fork active, as the task ending.
	IdleStates []NameDef
	// Escapes are the events that end a task without completing it: intents
	// (cancel) and "timer:NAME" (a session timeout). A configuration from
	// which the task completes only through them is stuck. Empty means
	// the defaults (DefaultEscape).
	Escapes []NameDef
	// CorrectionIntents are the intents by which a user corrects a slot
	// already filled; the slot_overwrite invariant allows them to change it.
	CorrectionIntents []NameDef
	Actions           []ExternalDef
	Validators        []ValidatorDef
	Invariants        []InvariantDef
	// BuiltinNotes are the known findings of built-in invariants.
	BuiltinNotes []BuiltinNotesDef
	Overrides    []OverrideDef
	// On holds machine-level transitions: every state of the main machine
	// tries them after its own and its ancestors' (lowest precedence), and
	// they leave the whole configuration, as SCXML's root transitions do.
	On     []TransitionDef
	Params []ParamDef
	// Assign gives parameter values for this build (a variant); a parameter
	// it leaves out takes its default.
	Assign map[string]string
	// MaxChain bounds the eventless transitions taken in one Step; zero
	// means DefaultMaxChain.
	MaxChain int
	// StartActions run once as the machine starts, before it enters its
	// initial states: SCXML's document <datamodel> and <script>, which a
	// later entry of the initial state must not run again.
	StartActions []ActionDef
	// DataModel compiles the conditions, values and scripts of the
	// executable content (if, foreach, log, assign, script, transition
	// guards); nil means the expression language, whose data (slots,
	// counters) lives in the Config.
	DataModel DataModel
}

// NameDef is a declared name with its position.
type NameDef struct {
	Name string
	Pos  Pos
}

// StateDef is one state. A state with children is compound and needs
// Initial; a Final state has no outgoing transitions.
type StateDef struct {
	Name       string
	Pos        Pos
	Parent     string
	Initial    string
	InitialPos Pos
	Final      bool
	// Waits marks a state that rests awaiting user input (idle, asking for a
	// slot, confirming). Transient states are the others.
	Waits bool
	// Direct names the intent the driver emits when it maps the user's text
	// straight into the waiting slot in this state, skipping the NLU call
	// (Soni's direct slot mapping). Empty means the NLU is always called.
	Direct    string
	DirectPos Pos
	Entry     []ActionDef
	Exit      []ActionDef
	On        []TransitionDef
	Always    []TransitionDef
	// Timeout, when set, arms a timer on entry and cancels it on exit; its
	// transitions fire when the state is still active at the deadline.
	Timeout *TimeoutDef
	// Failed marks a final state inside a fork as a failed branch ending.
	Failed bool
	// Fork makes a compound state a parallel state whose one region (its
	// children) is replicated per branch.
	Fork *ForkDef
	// Parallel makes the state an SCXML <parallel>: each child is a region,
	// and all of them are active at once. It has no Initial.
	Parallel bool
	// DoneData, on a final state, is the value of the done.state event its
	// entry raises (event.value to the transitions it triggers).
	DoneData Expr
}

// ForkDef makes a compound state a fork: sugar for a parallel state whose
// regions are copies of one region, the state's children from its initial
// child, one per branch, each with its own local context (branch_index,
// branch_input, its contract). Its regions react to events as any parallel
// state's do; the caller's only choice is the order in which the results
// of their actions arrive. When every branch has reached a final state the
// fork's done.state event is raised: the contracts are merged into the
// Into slot and the first Join transition (a transition on that event)
// whose guard holds is taken from the fork state.
type ForkDef struct {
	Pos Pos
	// Branches is a fixed branch count; InputsFrom instead names a text slot
	// whose "|"-separated parts are the branches' inputs, one branch each.
	Branches   int
	InputsFrom string
	InputsPos  Pos
	// Into is the text slot receiving the merged contracts; Merge is
	// "index" (branch order, the default) or "finish" (finish order).
	Into     string
	IntoPos  Pos
	Merge    string
	MergePos Pos
	Join     []TransitionDef
}

// TimeoutDef is a state's timeout: after AfterMS of virtual time in the
// state, the first of Then whose guard holds is taken. Re-entering the state
// (a self-transition) re-arms it.
type TimeoutDef struct {
	Pos     Pos
	AfterMS int64
	Then    []TransitionDef
}

// TimeoutTimer is the name of the implicit timer of a state's timeout.
func TimeoutTimer(statePath string) string { return "timeout." + statePath }

// TransitionDef is one transition. On is the trigger: an intent name, "*"
// for any user event, "timer:NAME", "done:ACTION" or "failed:ACTION", where
// NAME or ACTION may be "*" for any timer or any action. It is empty for
// eventless transitions, which live in StateDef.Always.
type TransitionDef struct {
	Pos       Pos
	On        string
	OnPos     Pos
	Guard     Expr
	Target    string
	TargetPos Pos
	Actions   []ActionDef
	// History, "shallow" or "deep", makes the transition resume Target
	// where it was last left, as a transition to an SCXML <history> child
	// of Target whose default is Target's initial state: "shallow"
	// re-enters the child of Target that was active, "deep" the atomic
	// state that was. "" enters Target afresh.
	History    string
	HistoryPos Pos
	// HistoryDefault and HistoryActions are the history's default
	// transition (SCXML's <history><transition>) when it is not Target's
	// initial state: the state inside Target entered while nothing is
	// recorded, and the actions run, once Target is entered, before it.
	HistoryDefault string
	HistoryActions []ActionDef
	// Histories, for several targets (in the regions of one parallel
	// state), is the history each resumes: "", "shallow" or "deep", by
	// the target's position in Target; HistoryDefaults the state inside
	// it that each enters while nothing is recorded ("": its initial
	// state).
	Histories       []string
	HistoryDefaults []string
	// Type is "external" (the default: the source state is exited and
	// re-entered when Target is inside it) or "internal", which keeps the
	// source state active and exits and enters only its descendants
	// (SCXML's type="internal"); Target must then be inside the source.
	Type    string
	TypePos Pos
}

// Expr is an expression in the guard language (expr-lang syntax) with the
// position of its first character, so errors inside it can be located.
type Expr struct {
	Src string
	Pos Pos
}

// ActionKind says what an action does.
type ActionKind uint8

const (
	ActSet          ActionKind = iota // Slot = Expr
	ActClear                          // clear Slot, or every slot when Name is "all"
	ActFill                           // the waiting slot = Expr
	ActAsk                            // wait for slot Name ("next": first empty slot of the current flow; "none": stop waiting)
	ActIncr                           // counter Name += 1
	ActReset                          // counter Name = 0, or every counter when Name is "all"
	ActPush                           // push flow Name
	ActPop                            // pop the current flow
	ActSay                            // say the template in Name
	ActInvoke                         // invoke external action Name; its result comes back as done:/failed:
	ActStart                          // start (or restart) timer Name, after Expr if given
	ActCancel                         // cancel timer Name
	ActEscalate                       // escalate to a human, reason in Name
	ActResetContext                   // clear non-persistent slots, counters, waiting slot and flow stack
	ActContract                       // in a fork branch: the branch\'s result (its contract) = Expr
	// The executable content of the SCXML recommendation (its chapter 4
	// and 6.2 to 6.3). Conditions, values and scripts are the data
	// model's (Definition.DataModel; the expression language when nil).
	ActRaise      // raise: put event Name on the internal queue
	ActSend       // send event Name to this machine's external queue, after the delay Expr gives (ms, default 0); ID is its sendid
	ActCancelSend // cancel the pending sends whose sendid is Name
	ActIf         // if/elseif/else: the first of Branches whose Cond holds (an empty Cond: else) runs
	ActForeach    // foreach: for each item of the array Expr, bind Item (and Index) and run Body
	ActLog        // log: Name is the label, Expr the value
	ActAssign     // assign: location Slot = Expr
	ActScript     // script: run Expr in the data model
	ActBlock      // a block of its own (one <onentry> of several): an error stops Body only
)

var actionKindNames = [...]string{"set", "clear", "fill", "ask", "incr", "reset", "push", "pop",
	"say", "invoke", "start", "cancel", "escalate", "reset_context", "contract",
	"raise", "send", "cancel_send", "if", "foreach", "log", "assign", "script", "block"}

func (k ActionKind) String() string {
	if int(k) < len(actionKindNames) {
		return actionKindNames[k]
	}
	return fmt.Sprintf("action(%d)", k)
}

// ActionDef is one action in an entry, exit or transition list.
type ActionDef struct {
	Pos  Pos
	Kind ActionKind
	Name string
	Slot string
	Expr Expr
	// ID is a send's sendid, by which cancel_send names it.
	ID string
	// Data is the value a raise or send gives its event (_event.data): a
	// data model's value expression, held in its Data until the event is
	// taken. The expression language has none.
	Data Expr
	// Branches are an if's blocks in order: if, elseif..., else (the one
	// with an empty Cond, last).
	Branches []CondDef
	// Item and Index are the locations a foreach binds (Index optional);
	// Body is what it runs for each item.
	Item, Index string
	Body        []ActionDef
}

// CondDef is one block of an if: its condition (empty: else) and actions.
type CondDef struct {
	Pos     Pos
	Cond    Expr
	Actions []ActionDef
}

// SlotType is the declared type of a slot.
type SlotType uint8

const (
	TypeText SlotType = iota
	TypeNumber
	TypeBool
)

var slotTypeNames = [...]string{"text", "number", "bool"}

func (t SlotType) String() string { return slotTypeNames[t] }

// SlotDef declares a slot.
type SlotDef struct {
	Name      string
	Pos       Pos
	Type      SlotType
	Validator string
	ValPos    Pos
	Prompt    string
	// Persist keeps the slot across reset_context (Soni's lastOutcome).
	Persist bool
}

// CounterDef declares a counter with its limit (0: no limit).
type CounterDef struct {
	Name  string
	Pos   Pos
	Limit int
}

// TimerDef declares a named timer and its default duration in milliseconds.
type TimerDef struct {
	Name    string
	Pos     Pos
	AfterMS int64
}

// FlowDef declares a flow and the slots it collects, in order.
type FlowDef struct {
	Name     string
	Pos      Pos
	Slots    []string
	SlotsPos []Pos
}

// ExternalDef declares an external action and how the simulator stubs it:
// it succeeds when Succeeds holds (always, if empty) and, on success,
// reports Outputs as entities of the done: event. Explorers also try its
// failure, unless NeverFails.
type ExternalDef struct {
	Name     string
	Pos      Pos
	Succeeds Expr
	Outputs  []OutputDef
	// NeverFails says the action cannot fail (a local computation, not a
	// backend): explorers and generated users do not try its failure.
	NeverFails bool
}

// OutputDef is one named output of a stubbed external action.
type OutputDef struct {
	Name string
	Expr Expr
}

// ValidatorDef declares a named validator, usable in guards as NAME(x) and
// attachable to slots. Exactly one of OneOf, Regex or Builtin is set.
type ValidatorDef struct {
	Name    string
	Pos     Pos
	OneOf   []string
	Regex   string
	Builtin string
}

// InvariantKind says how an invariant is checked.
type InvariantKind uint8

const (
	// InvAllowed checks each transition against an allowed-transition table.
	InvAllowed InvariantKind = iota
	// InvAlways requires Expr to hold after every step.
	InvAlways
	// InvNever requires Expr never to hold after a step.
	InvNever
	// InvWithin requires Then to hold within Turns turns after Expr held.
	InvWithin
)

// InvariantDef declares an invariant. For InvAllowed, Allowed maps a state
// name (or "*") to the states it may move to, and Transparent lists states
// that the table does not see: a path a → t → b through transparent t is
// checked as a → b.
type InvariantDef struct {
	Name string
	Pos  Pos
	Kind InvariantKind
	Expr Expr
	// Then and Turns belong to InvWithin: after Expr holds, Then must hold
	// within Turns turns.
	Then        Expr
	Turns       int
	Allowed     []AllowedDef
	Transparent []NameDef
	Description string
	// Notes list the findings of this invariant that are known, each with
	// what it rests on: a contradiction in the seed documents or a
	// modelling choice of the suite.
	Notes []NoteDef
}

// BuiltinNotesDef gives the notes of a built-in invariant (which the
// checker knows by name; the machine only declares what of it is known).
type BuiltinNotesDef struct {
	Name  string
	Pos   Pos
	Notes []NoteDef
}

// NoteKind says what a known finding rests on.
type NoteKind uint8

const (
	// Contradiction: the machine's source documents contradict the
	// invariant; the note quotes the text, with its document and line.
	Contradiction NoteKind = iota + 1
	// ModellingChoice: the documents are silent, and the suite chose.
	ModellingChoice
)

func (k NoteKind) String() string {
	if k == ModellingChoice {
		return "modelling_choice"
	}
	return "contradiction"
}

// NoteDef is one known finding of an invariant. An allowed-transition
// table's finding is the move From -> To the table does not allow; any
// other invariant's is the State it broke in and, for the findings about a
// slot, the Slot. A state names itself only; with Descendants, its
// descendants too (a note is a claim about the seed's text, and a wider
// scope would excuse moves the text never spoke of).
type NoteDef struct {
	Kind        NoteKind
	Pos         Pos
	From        NameDef
	To          NameDef
	State       NameDef
	Slot        NameDef
	Descendants bool
	// Variants names the variants the note holds in (none: every variant);
	// the loader keeps a variant's notes when it builds its machine.
	Variants []NameDef
	// Seed is "document:line" (a contradiction's quote, or where a
	// modelling choice fills a gap); Quote is the seed's text there.
	Seed  string
	Quote string
	// Why explains a modelling choice (or adds to a contradiction).
	Why string
}

// AllowedDef is one row of an allowed-transition table.
type AllowedDef struct {
	From    NameDef
	To      []NameDef
	FromAny bool
}

// OverrideDef is a global transition override (a hook): whenever a
// transition is about to fire while the machine is in one of From (any state
// when empty) towards one of To (any target when empty) and Guard holds, the
// override's transition to Target fires instead. Overrides are tried in
// declared order; an override never applies to another override.
type OverrideDef struct {
	Name        string
	Pos         Pos
	Description string
	From        []NameDef
	To          []NameDef
	Guard       Expr
	Target      string
	TargetPos   Pos
	Actions     []ActionDef
}

// ParamDef declares a machine parameter: a constant in expressions whose
// value is chosen per variant. Values, when given, lists what it may be.
type ParamDef struct {
	Name    string
	Pos     Pos
	Type    SlotType
	Values  []string
	Default string
}
