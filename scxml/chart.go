// This file holds the document model the loader builds: a Chart is plain
// data, its states listed in document order, its expressions kept as
// source with their positions. Build checks it; Definition compiles it
// onto the engine.

package scxml

import (
	"fmt"
	"strconv"
	"strings"
)

// Pos is a position in a source file.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is a build or load error with the position it concerns.
type Error struct {
	Pos Pos
	Msg string
	// Unsupported marks a feature of the recommendation simctl does not
	// implement, as opposed to a document that is wrong.
	Unsupported bool
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Kind is a state's kind.
type Kind uint8

const (
	Atomic Kind = iota
	Compound
	Parallel
	Final
	HistoryShallow
	HistoryDeep
)

// State is one state. Index 0 is the <scxml> root, a compound state; the
// others follow in document order, so a state's index is greater than its
// ancestors'.
type State struct {
	ID       string
	Pos      Pos
	Kind     Kind
	Parent   int // -1 for the root
	Children []int
	// Initial is the state's initial transition (compound states and the
	// root: from the initial attribute, the <initial> element, or the first
	// child in document order); a history state's default transition.
	Initial  *Transition
	OnEntry  [][]Action // one block per <onentry>
	OnExit   [][]Action
	Trans    []*Transition
	History  []int // history children
	DoneData *DoneData
	// DoneEvent is "done.state.ID", built once.
	DoneEvent string
}

// TransitionType is internal or external.
type TransitionType uint8

const (
	External TransitionType = iota
	Internal
)

// Transition is one <transition>.
type Transition struct {
	Pos     Pos
	Source  int
	Events  []string // descriptors, normalised (no trailing ".*" or ".")
	Cond    Expr     // NoExpr when absent
	Targets []int
	Type    TransitionType
	Actions []Action
	// ID is the transition's place in document order (Chart.Transitions),
	// set by Prepare: its id in coverage and reports.
	ID int
}

// Expr is a compiled expression's index in the chart's Exprs; NoExpr is none.
type Expr int

const NoExpr Expr = -1

// ExprKind says how an expression is used, for compilers that differ.
type ExprKind uint8

const (
	ValueExpr ExprKind = iota
	CondExpr
	LocationExpr
	ScriptExpr
	// LogExpr is a <log> expr; the null datamodel logs its source text.
	LogExpr
)

// ExprDef is an expression's source.
type ExprDef struct {
	Src  string
	Pos  Pos
	Kind ExprKind
}

// ActionKind names an executable content element.
type ActionKind uint8

const (
	ActRaise ActionKind = iota
	ActSend
	ActCancel
	ActAssign
	ActScript
	ActLog
	ActIf
	ActForeach
	// ActEscalate is simctl's <escalate reason="..."/> (SimctlNS): the
	// conversation is handed to a person, Label the reason.
	ActEscalate
)

// Param is a <param> (or a namelist name, whose Expr reads the location).
type Param struct {
	Name string
	Expr Expr
}

// Action is one executable content element.
type Action struct {
	Kind ActionKind
	Pos  Pos
	// raise, send: the event name (or EventExpr)
	Event     string
	EventExpr Expr
	// send
	Target     string
	TargetExpr Expr
	Type       string
	TypeExpr   Expr
	ID         string // send id, cancel sendid
	IDExpr     Expr   // cancel sendidexpr
	IDLocation Expr
	DelayMS    int64
	DelayExpr  Expr
	Params     []Param
	Content    Expr // <content expr> or its text as a value
	ContentStr *string
	// assign: Location, Expr; log: Label, Expr; script: Expr; escalate:
	// Label
	Location Expr
	Expr     Expr
	Label    string
	// if: Branches[i] runs when Conds[i] holds (NoExpr: else)
	Conds    []Expr
	Branches [][]Action
	// foreach: Expr is the array, Location the item, Index the index
	Index Expr
	Body  []Action
}

// DoneData is a final state's <donedata>.
type DoneData struct {
	Params     []Param
	Content    Expr
	ContentStr *string
}

// Data is one <data> element.
type Data struct {
	ID   string
	Pos  Pos
	Expr Expr    // NoExpr: from Text, or undefined
	Text *string // inline content
}

// Chart is a statechart before its expressions are compiled.
type Chart struct {
	Name      string
	Datamodel string // "null" or "ecmascript"
	Binding   string // "early" or "late"
	States    []State
	Exprs     []ExprDef
	Data      [][]Data // per state index: its <datamodel>'s elements
	Script    Expr     // the global <script>, or NoExpr
	index     map[string]int
	trans     []*Transition
}

// Transitions lists the chart's transitions in document order (state by
// state, then as written), each at its ID; Prepare fills it in.
func (c *Chart) Transitions() []*Transition { return c.trans }

// Lookup returns the index of the state with the given id.
func (c *Chart) Lookup(id string) (int, bool) {
	i, ok := c.index[id]
	return i, ok
}

// Build checks the chart's structure and indexes it.
func (c *Chart) Build() error {
	c.index = make(map[string]int, len(c.States))
	for i := range c.States {
		s := &c.States[i]
		s.DoneEvent = "done.state." + s.ID
		if s.ID == "" {
			continue
		}
		if j, dup := c.index[s.ID]; dup && i != 0 {
			return &Error{Pos: s.Pos, Msg: fmt.Sprintf("state id %q is already used at %s", s.ID, c.States[j].Pos)}
		}
		c.index[s.ID] = i
	}
	return nil
}

// Prepare numbers the transitions in document order (state by state,
// then as written). Loaders call it once the targets are resolved.
func (c *Chart) Prepare() {
	c.trans = c.trans[:0]
	for i := range c.States {
		for _, t := range c.States[i].Trans {
			t.ID = len(c.trans)
			c.trans = append(c.trans, t)
		}
	}
}

func (c *Chart) isHistory(s int) bool {
	k := c.States[s].Kind
	return k == HistoryShallow || k == HistoryDeep
}

// SCXMLProcessor is the type URI of the SCXML event I/O processor, the only
// one simctl has.
const SCXMLProcessor = "http://www.w3.org/TR/scxml/#SCXMLEventProcessor"

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
