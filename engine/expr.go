package engine

// Guards, set-expressions, template placeholders and invariants are written in
// expr-lang syntax. expr-lang parses and type-checks them against an
// environment built from the machine (slots, counters, the event, validator
// functions), which gives positioned syntax and type errors at Build time.
// The checked tree is then compiled here into typed Go closures over
// (*Machine, *Config, *Event): evaluating one does no map lookups, no
// reflection and no allocation, which expr-lang's own VM cannot promise.

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
)

// evalEnv is what a compiled expression reads.
type evalEnv struct {
	m  *Machine
	c  *Config
	ev *Event
	// before is the configuration before the step an invariant judges
	// (before.NAME, changed(NAME)); nil outside invariants.
	before *Config
	br     uint8 // 0: the main machine; i+1: fork branch i
	// r, while a step runs, learns whether the event's payload was read
	// (Result.ReadEvent).
	r *Result
}

// payload notes that an expression read the event's value, text, entities
// or confidence.
func (e evalEnv) payload() {
	if e.r != nil {
		e.r.ReadEvent = true
	}
}

type (
	boolFn func(evalEnv) bool
	numFn  func(evalEnv) float64
	strFn  func(evalEnv) string
)

// compiled is a compiled expression of one of three result kinds.
type compiled struct {
	kind ValueKind // Text, Number or Bool
	// For value classes (values.go), of a text: val, it may be a user's
	// text; cat, built with + from one; slots, the slots (and branchBit)
	// it reads texts from; tdepth, how deeply lower/upper/trim nest in it.
	val    bool
	cat    bool
	slots  uint64
	tdepth int
	// reads: every slot the expression reads (values.go's bits).
	reads uint64
	b     boolFn
	n     numFn
	s     strFn
	// shape names the few expressions that operators, validators and
	// actions read without calling a closure (a literal, a slot): most
	// of a conversation's guards and actions are of these shapes, and a
	// closure call costs an indirect branch.
	shape shape
	cv    Value  // shapeConst: the value
	sid   SlotID // shapeSlot, shapeLen: the slot
	// t: a guard, or a number a guard compares, of a shape pick
	// evaluates without closures (shaped.go).
	t *test
	// f: arithmetic, as a formula (formula.go).
	f *formula
}

// shape is what a compiled expression is, when it is simple.
type shape uint8

const (
	shapeClosure    shape = iota // anything: call the closure
	shapeConst                   // a constant: cv
	shapeSlot                    // a slot's value (of its declared type): sid
	shapeEventValue              // event.value (text)
	shapeLen                     // len(slot): sid, a text slot
	shapeFormula                 // arithmetic of several operators: f
)

// value takes c by pointer: a compiled is nine words, copied on every
// action that sets a slot otherwise.
func (c *compiled) value(e evalEnv) Value {
	switch c.shape {
	case shapeConst:
		return c.cv
	case shapeSlot:
		return slotAs(c.kind, e.c.Slot(c.sid))
	case shapeFormula:
		return NumberValue(c.f.eval(&e))
	}
	switch c.kind {
	case Text:
		return TextValue(c.s(e))
	case Number:
		return NumberValue(c.n(e))
	}
	return BoolValue(c.b(e))
}

// slotAs is the value a slot read of the given kind gives for v: the
// closures' result (ident), without the call.
func slotAs(kind ValueKind, v Value) Value {
	switch kind {
	case Text:
		return TextValue(v.Str)
	case Number:
		return NumberValue(v.Num)
	}
	return BoolValue(v.Num != 0)
}

// appendTo renders the expression's value into b.
func (c *compiled) appendTo(e evalEnv, b []byte) []byte {
	if c.kind == Text {
		return append(b, c.s(e)...)
	}
	return c.value(e).AppendTo(b)
}

// eventEnv describes `event` to the type checker.
type eventEnv struct {
	Kind       string            `expr:"kind"`
	Intent     string            `expr:"intent"`
	Text       string            `expr:"text"`
	Value      string            `expr:"value"`
	Confidence float64           `expr:"confidence"`
	Timer      string            `expr:"timer"`
	Action     string            `expr:"action"`
	Entities   map[string]string `expr:"entities"`
}

// reserved names cannot be used for slots, counters or validators.
var reserved = map[string]bool{
	"event": true, "waiting": true, "branch_index": true, "branch_input": true, "branch_result": true,
	"branches": true, "branches_done": true, "branches_failed": true, "all": true, "next": true, "none": true, "waiting_value": true, "prompt": true, "state": true, "flow": true, "now": true,
	"filled": true, "empty": true, "before": true, "changed": true, "number": true, "pending": true, "deadline": true, "all_filled": true, "remaining": true, "exhausted": true, "valid": true,
	"true": true, "false": true, "nil": true, "len": true, "lower": true, "upper": true, "trim": true,
}

// builtinValidators are available in every machine.
var builtinValidators = []string{"email", "phone", "url", "number", "text"}

// exprCompiler holds the symbol tables expressions are checked against.
// An invariant's compiler also knows `before` and `changed`, which read the
// configuration before the step.
type exprCompiler struct {
	m         *Machine
	conf      *conf.Config
	invariant bool
	use       *valueUse // nil: not recorded (a condition compiled after Build)
	// inTemplate: compiling a say or escalate template, whose reads reach
	// only the reply text.
	inTemplate bool
}

// newInvariantCompiler returns a compiler for invariants.
func newInvariantCompiler(m *Machine) *exprCompiler { return newCompiler(m, true) }

func newExprCompiler(m *Machine) *exprCompiler { return newCompiler(m, false) }

func newCompiler(m *Machine, invariant bool) *exprCompiler {
	env := map[string]any{
		"event":           eventEnv{},
		"waiting":         "",
		"branch_index":    0,
		"branch_input":    "",
		"branch_result":   "",
		"branches":        0,
		"branches_done":   0,
		"branches_failed": 0,
		"waiting_value":   "",
		"prompt":          "",
		"state":           "",
		"flow":            "",
		"now":             0,
	}
	for i := range m.slots {
		s := &m.slots[i]
		switch s.typ {
		case TypeNumber:
			env[s.name] = 0.0
		case TypeBool:
			env[s.name] = false
		default:
			env[s.name] = ""
		}
	}
	for _, c := range m.counters {
		env[c.name] = 0
	}
	for name, v := range m.params {
		switch v.Kind {
		case Bool:
			env[name] = false
		case Number:
			env[name] = 0.0
		default:
			env[name] = ""
		}
	}
	if invariant {
		// before.NAME reads NAME in the configuration before the step.
		before := map[string]any{}
		for k, v := range env {
			if k != "event" {
				before[k] = v
			}
		}
		env["before"] = before
	}
	cfg := conf.CreateNew()
	expr.Env(env)(cfg)
	noop := func(...any) (any, error) { return nil, nil }
	if invariant {
		expr.Function("changed", noop, new(func(any) bool))(cfg)
	}
	expr.Function("pending", noop, new(func(string) bool))(cfg)
	expr.Function("deadline", noop, new(func(string) float64))(cfg)
	expr.Function("filled", noop, new(func(any) bool))(cfg)
	expr.Function("empty", noop, new(func(any) bool))(cfg)
	expr.Function("all_filled", noop, new(func() bool))(cfg)
	expr.Function("remaining", noop, new(func() int))(cfg)
	expr.Function("exhausted", noop, new(func(int) bool))(cfg)
	expr.Function("valid", noop, new(func(string) bool))(cfg)
	// number(x) converts text to a number; the builtin validator of that
	// name is called as is_number(x).
	expr.Function("number", noop, new(func(any) float64))(cfg)
	for _, v := range m.validators {
		if _, shadowed := env[v.name]; !shadowed && v.name != "number" {
			expr.Function(v.name, noop, new(func(string) bool))(cfg)
		}
		expr.Function("is_"+v.name, noop, new(func(string) bool))(cfg)
	}
	return &exprCompiler{m: m, conf: cfg, invariant: invariant}
}

// exprError converts an expr-lang error into a positioned build error. The
// expression's own line and column are added to the position of its source.
func exprError(x Expr, err error) *Error {
	pos := x.Pos
	msg := err.Error()
	if fe, ok := err.(*file.Error); ok {
		msg = fe.Message
		if fe.Line <= 1 {
			pos.Col += fe.Column
		} else {
			pos.Line += fe.Line - 1
			pos.Col = fe.Column + 1
		}
	}
	return &Error{Pos: pos, Msg: fmt.Sprintf("in expression %q: %s", x.Src, msg)}
}

// MaxExprLen bounds the length of one expression; the longest in the seed
// suites is under 700 bytes.
const MaxExprLen = 4096

// compile parses, checks and compiles x. want is the required result kind,
// or Empty for any of text, number or bool.
func (xc *exprCompiler) compile(x Expr, want ValueKind) (compiled, *Error) {
	if strings.TrimSpace(x.Src) == "" {
		return compiled{}, &Error{Pos: x.Pos, Msg: "empty expression"}
	}
	if len(x.Src) > MaxExprLen {
		return compiled{}, &Error{Pos: x.Pos, Msg: fmt.Sprintf("expression is %d bytes long, more than the %d allowed", len(x.Src), MaxExprLen)}
	}
	tree, err := checker.ParseCheck(x.Src, xc.conf)
	if err != nil {
		return compiled{}, exprError(x, err)
	}
	if xc.use != nil {
		xc.use.cur = 0
	}
	b := &nodeCompiler{xc: xc, src: x}
	c := b.node(tree.Node)
	if xc.use != nil {
		c.reads = xc.use.cur
	}
	if b.err != nil {
		return compiled{}, b.err
	}
	if want != Empty && c.kind != want {
		return compiled{}, &Error{Pos: x.Pos, Msg: fmt.Sprintf("expression %q is %s, want %s", x.Src, kindName(c.kind), kindName(want))}
	}
	return c, nil
}

func kindName(k ValueKind) string {
	switch k {
	case Text:
		return "text"
	case Number:
		return "a number"
	case Bool:
		return "a boolean"
	}
	return "empty"
}

type nodeCompiler struct {
	xc  *exprCompiler
	src Expr
	err *Error
}

func (b *nodeCompiler) fail(n ast.Node, format string, args ...any) compiled {
	if b.err == nil {
		loc := n.Location()
		pos := b.src.Pos
		pos.Col += loc.From
		b.err = &Error{Pos: pos, Msg: fmt.Sprintf("in expression %q: %s", b.src.Src, fmt.Sprintf(format, args...))}
	}
	return compiled{kind: Bool, b: func(evalEnv) bool { return false }, n: func(evalEnv) float64 { return 0 }, s: func(evalEnv) string { return "" }}
}

func constStr(s string) compiled {
	return compiled{kind: Text, s: func(evalEnv) string { return s }, shape: shapeConst, cv: TextValue(s)}
}

func constNum(f float64) compiled {
	return compiled{kind: Number, n: func(evalEnv) float64 { return f }, shape: shapeConst, cv: NumberValue(f)}
}

func constBool(v bool) compiled {
	return compiled{kind: Bool, b: func(evalEnv) bool { return v }, shape: shapeConst, cv: BoolValue(v)}
}

func (b *nodeCompiler) node(n ast.Node) compiled {
	switch n := n.(type) {
	case *ast.StringNode:
		b.literal(n.Value)
		return constStr(n.Value)
	case *ast.IntegerNode:
		return constNum(float64(n.Value))
	case *ast.FloatNode:
		return constNum(n.Value)
	case *ast.BoolNode:
		return constBool(n.Value)
	case *ast.IdentifierNode:
		return b.ident(n)
	case *ast.MemberNode:
		return b.member(n)
	case *ast.UnaryNode:
		return b.unary(n)
	case *ast.BinaryNode:
		return b.binary(n)
	case *ast.ConditionalNode:
		return b.conditional(n)
	case *ast.CallNode:
		return b.call(n)
	case *ast.BuiltinNode:
		return b.builtin(n)
	case *ast.ChainNode:
		return b.node(n.Node)
	}
	return b.fail(n, "%s is not supported in simctl expressions", nodeName(n))
}

func nodeName(n ast.Node) string {
	s := reflect.TypeOf(n).Elem().Name()
	return strings.ToLower(strings.TrimSuffix(s, "Node")) + " expression"
}

func (b *nodeCompiler) ident(n *ast.IdentifierNode) compiled {
	m := b.xc.m
	switch n.Value {
	case "waiting":
		return compiled{kind: Text, s: func(e evalEnv) string {
			if e.c.Waiting == NoID {
				return ""
			}
			return e.m.slots[e.c.Waiting].name
		}}
	case "waiting_value":
		b.read(waitBit)
		return compiled{kind: Text, s: func(e evalEnv) string {
			if e.c.Waiting == NoID {
				return ""
			}
			if v := e.c.Slot(e.c.Waiting); v.Kind != Text {
				// Rare (a number or boolean slot): rendering allocates.
				return v.String()
			}
			return e.c.Slot(e.c.Waiting).Str
		}, val: true, slots: waitBit}
	case "prompt":
		return compiled{kind: Text, s: func(e evalEnv) string {
			if e.c.Waiting == NoID {
				return ""
			}
			return e.m.slots[e.c.Waiting].prompt
		}}
	case "state":
		return compiled{kind: Text, s: func(e evalEnv) string { return e.m.states[e.c.State].path }}
	case "flow":
		return compiled{kind: Text, s: func(e evalEnv) string {
			if f := e.c.Flow(); f != NoID {
				return e.m.flows[f].name
			}
			return ""
		}}
	case "branch_index":
		return compiled{kind: Number, n: func(e evalEnv) float64 { return float64(e.br) - 1 }}
	case "branch_input", "branch_result":
		input := n.Value == "branch_input"
		return compiled{kind: Text, s: func(e evalEnv) string {
			if e.br == 0 {
				return ""
			}
			if input {
				return e.c.BranchInput(int(e.br) - 1)
			}
			return e.c.BranchResult(int(e.br) - 1)
		}, val: true, slots: branchBit}
	case "branches", "branches_done", "branches_failed":
		want := map[string]BranchStatus{"branches": 0, "branches_done": BranchDone, "branches_failed": BranchFailed}[n.Value]
		return compiled{kind: Number, n: func(e evalEnv) float64 {
			k := 0
			for i := 0; i < int(e.c.NBranch); i++ {
				if st := e.c.Branches[i].Status; (want == 0 && st != 0) || st == want {
					k++
				}
			}
			return float64(k)
		}}
	case "now":
		return compiled{kind: Number, n: func(e evalEnv) float64 { return float64(e.c.Now) }}
	}
	if id, ok := m.slotIDs[n.Value]; ok {
		b.read(SlotMask(id))
		switch m.slots[id].typ {
		case TypeNumber:
			return compiled{kind: Number, n: func(e evalEnv) float64 { return e.c.Slot(id).Num }, shape: shapeSlot, sid: id}
		case TypeBool:
			return compiled{kind: Bool, b: func(e evalEnv) bool { return e.c.Slot(id).Num != 0 }, shape: shapeSlot, sid: id}
		}
		return compiled{kind: Text, s: func(e evalEnv) string { return e.c.Slot(id).Str }, val: true, slots: SlotMask(id), shape: shapeSlot, sid: id}
	}
	if v, ok := m.params[n.Value]; ok {
		// Parameters are constants of this build (variant).
		switch v.Kind {
		case Bool:
			return constBool(v.Num != 0)
		case Number:
			return constNum(v.Num)
		}
		return constStr(v.Str)
	}
	if id, ok := m.counterIDs[n.Value]; ok {
		b.readCounter(n, id)
		return compiled{kind: Number, n: func(e evalEnv) float64 { return float64(e.c.Counters[id]) }, t: &test{op: testLeaf, leaf: leafCounter, cid: id}}
	}
	return b.fail(n, "unknown name %q", n.Value)
}

func (b *nodeCompiler) member(n *ast.MemberNode) compiled {
	prop, ok := n.Property.(*ast.StringNode)
	if !ok {
		return b.fail(n, "only event.NAME and event.entities.NAME member access is supported")
	}
	if id, ok := n.Node.(*ast.IdentifierNode); ok && id.Value == "before" && b.xc.invariant {
		if prop.Value == "event" || prop.Value == "before" {
			return b.fail(n, "before.%s is not supported", prop.Value)
		}
		return b.before(b.ident(&ast.IdentifierNode{Value: prop.Value}))
	}
	if id, ok := n.Node.(*ast.IdentifierNode); ok && id.Value == "event" {
		switch prop.Value {
		case "kind":
			return compiled{kind: Text, s: func(e evalEnv) string { return e.ev.Kind.String() }}
		case "intent":
			return compiled{kind: Text, s: func(e evalEnv) string {
				if e.ev.Kind != UserEvent || int(e.ev.Intent) >= len(e.m.intents) {
					return ""
				}
				return e.m.intents[e.ev.Intent]
			}}
		case "text":
			return compiled{kind: Text, s: func(e evalEnv) string { e.payload(); return e.ev.Text }, val: true}
		case "value":
			return compiled{kind: Text, s: func(e evalEnv) string { e.payload(); return e.ev.Value }, val: true, shape: shapeEventValue}
		case "confidence":
			return compiled{kind: Number, n: func(e evalEnv) float64 { e.payload(); return e.ev.Confidence }}
		case "timer":
			return compiled{kind: Text, s: func(e evalEnv) string {
				if e.ev.Kind != TimerEvent || int(e.ev.Timer) >= len(e.m.timers) {
					return ""
				}
				return e.m.timers[e.ev.Timer].name
			}}
		case "action":
			return compiled{kind: Text, s: func(e evalEnv) string {
				if (e.ev.Kind != DoneEvent && e.ev.Kind != FailedEvent) || int(e.ev.Ext) >= len(e.m.exts) {
					return ""
				}
				return e.m.exts[e.ev.Ext].name
			}}
		}
	}
	if inner, ok := n.Node.(*ast.MemberNode); ok {
		if id, ok := inner.Node.(*ast.IdentifierNode); ok && id.Value == "event" {
			if p, ok := inner.Property.(*ast.StringNode); ok && p.Value == "entities" {
				eid, ok := b.xc.m.entity(prop.Value)
				if !ok {
					return b.fail(n, "too many entity names (at most %d)", MaxNames)
				}
				return compiled{kind: Text, s: func(e evalEnv) string {
					e.payload()
					v, _ := e.ev.Entity(eid)
					return v.Str
				}, val: true}
			}
		}
	}
	return b.fail(n, "only event.NAME and event.entities.NAME member access is supported")
}

func (b *nodeCompiler) unary(n *ast.UnaryNode) compiled {
	x := b.node(n.Node)
	switch n.Operator {
	case "!", "not":
		if x.kind != Bool {
			return b.fail(n, "%s needs a boolean", n.Operator)
		}
		f := x.b
		return compiled{kind: Bool, b: func(e evalEnv) bool { return !f(e) }}
	case "-":
		f := x.n
		return compiled{kind: Number, n: func(e evalEnv) float64 { return -f(e) }}
	case "+":
		return x
	}
	return b.fail(n, "operator %q is not supported", n.Operator)
}

func (b *nodeCompiler) conditional(n *ast.ConditionalNode) compiled {
	c := b.node(n.Cond)
	x, y := b.node(n.Exp1), b.node(n.Exp2)
	if c.kind != Bool || x.kind != y.kind {
		return b.fail(n, "conditional needs a boolean condition and branches of one type")
	}
	cond := c.b
	switch x.kind {
	case Text:
		return compiled{kind: Text, s: func(e evalEnv) string {
			if cond(e) {
				return x.s(e)
			}
			return y.s(e)
		}, val: x.val || y.val, cat: x.cat || y.cat, slots: x.slots | y.slots, tdepth: max(x.tdepth, y.tdepth)}
	case Number:
		return compiled{kind: Number, n: func(e evalEnv) float64 {
			if cond(e) {
				return x.n(e)
			}
			return y.n(e)
		}}
	}
	return compiled{kind: Bool, b: func(e evalEnv) bool {
		if cond(e) {
			return x.b(e)
		}
		return y.b(e)
	}}
}

func (b *nodeCompiler) binary(n *ast.BinaryNode) compiled {
	switch n.Operator {
	case "in", "not in":
		return b.in(n)
	case "matches":
		return b.matches(n)
	case "==", "!=", "<", "<=", ">", ">=":
		b.compared(n)
	}
	l, r := b.node(n.Left), b.node(n.Right)
	if b.err != nil {
		return l
	}
	switch n.Operator {
	case "and", "&&":
		if t := pairTest(testAnd, l, r); t != nil {
			return testCompiled(t)
		}
		lf, rf := l.b, r.b
		return compiled{kind: Bool, b: func(e evalEnv) bool { return lf(e) && rf(e) }}
	case "or", "||":
		if t := pairTest(testOr, l, r); t != nil {
			return testCompiled(t)
		}
		lf, rf := l.b, r.b
		return compiled{kind: Bool, b: func(e evalEnv) bool { return lf(e) || rf(e) }}
	case "==", "!=":
		if l.kind != r.kind {
			return b.fail(n, "cannot compare %s with %s", kindName(l.kind), kindName(r.kind))
		}
		if l.kind == Text {
			b.test(l)
			b.test(r)
			if l.val && r.val {
				b.xc.use.distinguish(b.src, "two user texts compared with each other")
			}
		}
		if t := equalityTest(n.Operator, l, r); t != nil {
			return testCompiled(t)
		}
		eq := equality(l, r)
		if n.Operator == "!=" {
			return compiled{kind: Bool, b: func(e evalEnv) bool { return !eq(e) }}
		}
		return compiled{kind: Bool, b: eq}
	case "<", "<=", ">", ">=":
		return b.ordering(n, l, r)
	case "+":
		if l.kind == Text && r.kind == Text {
			lf, rf := l.s, r.s
			return compiled{kind: Text, s: func(e evalEnv) string { return lf(e) + rf(e) },
				val: l.val || r.val, cat: l.val || r.val || l.cat || r.cat, slots: l.slots | r.slots}
		}
		return b.arith(n, l, r, func(x, y float64) float64 { return x + y })
	case "-":
		return b.arith(n, l, r, func(x, y float64) float64 { return x - y })
	case "*":
		return b.arith(n, l, r, func(x, y float64) float64 { return x * y })
	case "/":
		return b.arith(n, l, r, func(x, y float64) float64 { return x / y })
	case "%":
		return b.arith(n, l, r, math.Mod)
	case "contains", "startsWith", "endsWith":
		if l.kind != Text || r.kind != Text {
			return b.fail(n, "%s needs text on both sides", n.Operator)
		}
		var f func(string, string) bool
		switch n.Operator {
		case "contains":
			f = strings.Contains
		case "startsWith":
			f = strings.HasPrefix
		default:
			f = strings.HasSuffix
		}
		b.substr(n, l, r)
		lf, rf := l.s, r.s
		return compiled{kind: Bool, b: func(e evalEnv) bool { return f(lf(e), rf(e)) }}
	}
	return b.fail(n, "operator %q is not supported", n.Operator)
}

func equality(l, r compiled) boolFn {
	if l.shape == shapeConst && r.shape != shapeConst {
		l, r = r, l
	}
	switch l.kind {
	case Text:
		lf, rf := l.s, r.s
		if r.shape == shapeConst {
			k := r.cv.Str
			if l.shape == shapeSlot {
				id := l.sid
				return func(e evalEnv) bool { return e.c.Slot(id).Str == k }
			}
			return func(e evalEnv) bool { return lf(e) == k }
		}
		return func(e evalEnv) bool { return lf(e) == rf(e) }
	case Number:
		lf, rf := l.n, r.n
		if r.shape == shapeConst {
			k := r.cv.Num
			return func(e evalEnv) bool { return lf(e) == k }
		}
		return func(e evalEnv) bool { return lf(e) == rf(e) }
	}
	lf, rf := l.b, r.b
	return func(e evalEnv) bool { return lf(e) == rf(e) }
}

func (b *nodeCompiler) ordering(n *ast.BinaryNode, l, r compiled) compiled {
	if l.kind != r.kind || l.kind == Bool {
		return b.fail(n, "cannot order %s and %s", kindName(l.kind), kindName(r.kind))
	}
	op := n.Operator
	if l.kind == Text && (l.val || r.val || l.cat || r.cat) {
		b.xc.use.distinguish(b.src, "user texts ordered")
	}
	if l.kind == Text {
		lf, rf := l.s, r.s
		return compiled{kind: Bool, b: func(e evalEnv) bool { return cmpOrder(strings.Compare(lf(e), rf(e)), op) }}
	}
	if t := compareTest(op, l, r); t != nil {
		return testCompiled(t)
	}
	lf, rf := l.n, r.n
	if r.shape == shapeConst {
		// The common guard compares with a literal (retries < 3).
		k := r.cv.Num
		switch op {
		case "<":
			return compiled{kind: Bool, b: func(e evalEnv) bool { return lf(e) < k }}
		case "<=":
			return compiled{kind: Bool, b: func(e evalEnv) bool { return lf(e) <= k }}
		case ">":
			return compiled{kind: Bool, b: func(e evalEnv) bool { return lf(e) > k }}
		}
		return compiled{kind: Bool, b: func(e evalEnv) bool { return lf(e) >= k }}
	}
	switch op {
	case "<":
		return compiled{kind: Bool, b: func(e evalEnv) bool { return lf(e) < rf(e) }}
	case "<=":
		return compiled{kind: Bool, b: func(e evalEnv) bool { return lf(e) <= rf(e) }}
	case ">":
		return compiled{kind: Bool, b: func(e evalEnv) bool { return lf(e) > rf(e) }}
	}
	return compiled{kind: Bool, b: func(e evalEnv) bool { return lf(e) >= rf(e) }}
}

func cmpOrder(c int, op string) bool {
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// arith applies f to two numbers. A result that is NaN or infinite (0/0,
// 1/0, an overflow) is a runtime error at the operator's position: stored
// in a slot it would make a configuration unequal to itself (NaN != NaN),
// and the explorer would see a slot change where nothing changed.
//
// An operation on another's result is a formula (formula.go), evaluated
// without a closure per operator; one operator keeps its closure, which
// costs less, and its formula, for the operation it is an operand of.
func (b *nodeCompiler) arith(n *ast.BinaryNode, l, r compiled, f func(x, y float64) float64) compiled {
	pos := b.src.Pos
	pos.Col += n.Location().From
	fm := newFormula(n.Operator[0], pos, b.src.Src, l, r)
	if fm != nil && fm.operators() > 1 {
		return compiled{kind: Number, n: func(e evalEnv) float64 { return fm.eval(&e) }, shape: shapeFormula, f: fm}
	}
	c := b.arith1(n, l, r, f, pos)
	c.f = fm
	return c
}

// arith1 is arith's closure for one operator.
func (b *nodeCompiler) arith1(n *ast.BinaryNode, l, r compiled, f func(x, y float64) float64, pos Pos) compiled {
	lf, rf := l.n, r.n
	src := b.src.Src
	// The four operators are applied in the closure, not through f: an
	// indirect call each is most of a formula's cost (the booking
	// stub's output on the WORKLOAD machine).
	op := n.Operator[0]
	if l.shape == shapeLen && r.shape == shapeConst {
		// len(slot) * 100, a formula's term: no call at all.
		id, k := l.sid, r.cv.Num
		return compiled{kind: Number, n: func(e evalEnv) float64 {
			v := apply(op, float64(len(e.c.Slot(id).Str)), k, f)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				e.nonFinite(pos, src, v)
			}
			return v
		}}
	}
	if r.shape == shapeLen {
		// ... + len(slot), its last term: one call.
		id := r.sid
		return compiled{kind: Number, n: func(e evalEnv) float64 {
			v := apply(op, lf(e), float64(len(e.c.Slot(id).Str)), f)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				e.nonFinite(pos, src, v)
			}
			return v
		}}
	}
	if r.shape == shapeConst {
		// x + 1, the common shape: the literal is read without a call.
		k := r.cv.Num
		return compiled{kind: Number, n: func(e evalEnv) float64 {
			v := apply(op, lf(e), k, f)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				e.nonFinite(pos, src, v)
			}
			return v
		}, t: offsetLeaf(op, l, r)}
	}
	return compiled{kind: Number, n: func(e evalEnv) float64 {
		x := lf(e)
		v := apply(op, x, rf(e), f)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			e.nonFinite(pos, src, v)
		}
		return v
	}}
}

// apply is x op y, op one of + - * /, or f(x, y) (%). Small enough
// to be inlined into arith's closures.
func apply(op byte, x, y float64, f func(x, y float64) float64) float64 {
	if op == '%' {
		return f(x, y)
	}
	return operate(op, x, y)
}

// operate is x op y, op one of + - * /: no call, so that a loop
// applying it keeps its values in registers (formula.eval).
func operate(op byte, x, y float64) float64 {
	switch op {
	case '+':
		return x + y
	case '-':
		return x - y
	case '*':
		return x * y
	}
	return x / y
}

// nonFinite records, for the step being taken, that an expression's
// arithmetic gave v, which is not a number: the step then fails with a
// runtime error at pos (the first such error counts).
func (e evalEnv) nonFinite(pos Pos, src string, v float64) {
	if e.r != nil && e.r.exprErr == nil {
		e.r.exprErr = e.m.rtErr(e.c, pos, "in expression %q: the result is %v, not a number", src, v)
	}
}

// in supports `x in [constants]`: the list is fixed at Build time.
func (b *nodeCompiler) in(n *ast.BinaryNode) compiled {
	arr, ok := n.Right.(*ast.ArrayNode)
	if !ok {
		return b.fail(n, "the right side of %q must be a list of constants", n.Operator)
	}
	l := b.node(n.Left)
	var strs []string
	var nums []float64
	for _, el := range arr.Nodes {
		c := b.node(el)
		if c.kind != l.kind {
			return b.fail(el, "list element is %s, want %s", kindName(c.kind), kindName(l.kind))
		}
		switch el.(type) {
		case *ast.StringNode, *ast.IntegerNode, *ast.FloatNode:
		default:
			return b.fail(el, "list elements must be constants")
		}
		if c.kind == Text {
			strs = append(strs, c.s(evalEnv{}))
		} else {
			nums = append(nums, c.n(evalEnv{}))
		}
	}
	neg := n.Operator == "not in"
	if l.kind == Text {
		b.test(l)
	}
	if l.kind == Text {
		f := l.s
		return compiled{kind: Bool, b: func(e evalEnv) bool {
			v := f(e)
			for _, s := range strs {
				if s == v {
					return !neg
				}
			}
			return neg
		}}
	}
	f := l.n
	return compiled{kind: Bool, b: func(e evalEnv) bool {
		v := f(e)
		for _, x := range nums {
			if x == v {
				return !neg
			}
		}
		return neg
	}}
}

func (b *nodeCompiler) matches(n *ast.BinaryNode) compiled {
	pat, ok := n.Right.(*ast.StringNode)
	if !ok {
		return b.fail(n, "the pattern of matches must be a string constant")
	}
	compiledRe, err := regexp.Compile(pat.Value)
	if err != nil {
		return b.fail(n.Right, "bad regular expression: %v", err)
	}
	re := newMatchMemo(compiledRe)
	l := b.node(n.Left)
	b.test(l)
	if u := b.xc.use; u != nil {
		u.res[pat.Value] = compiledRe
	}
	f := l.s
	return compiled{kind: Bool, b: func(e evalEnv) bool { return re.MatchString(f(e)) }}
}

func (b *nodeCompiler) call(n *ast.CallNode) compiled {
	callee, ok := n.Callee.(*ast.IdentifierNode)
	if !ok {
		return b.fail(n, "method calls are not supported")
	}
	m := b.xc.m
	switch callee.Value {
	case "filled", "empty":
		id, ok := b.slotArg(n)
		if !ok {
			return b.fail(n, "%s takes a slot name", callee.Value)
		}
		b.read(SlotMask(id))
		want := callee.Value == "filled"
		return compiled{kind: Bool, b: func(e evalEnv) bool { return (e.c.Slot(id).Kind != Empty) == want }}
	case "all_filled":
		b.read(flowBit)
		return compiled{kind: Bool, b: func(e evalEnv) bool { return e.m.nextEmpty(e.c) == NoID && e.c.Flow() != NoID }}
	case "remaining":
		b.read(flowBit)
		return compiled{kind: Number, n: func(e evalEnv) float64 { return float64(e.m.remaining(e.c)) },
			t: &test{op: testLeaf, leaf: leafRemaining}}
	case "exhausted":
		arg, ok := n.Arguments[0].(*ast.IdentifierNode)
		cid, ok2 := CounterID(0), false
		if ok {
			cid, ok2 = m.counterIDs[arg.Value]
		}
		if !ok2 {
			return b.fail(n, "exhausted takes a counter name")
		}
		limit := m.counters[cid].limit
		if limit <= 0 {
			return b.fail(n, "counter %q has no limit", arg.Value)
		}
		return compiled{kind: Bool, b: func(e evalEnv) bool { return int(e.c.Counters[cid]) >= limit }}
	case "number":
		return b.number(n)
	case "changed":
		if !b.xc.invariant || len(n.Arguments) != 1 {
			return b.fail(n, "changed(x) is for invariants, with one argument")
		}
		now := b.node(n.Arguments[0])
		if now.kind == Text {
			b.test(now)
		}
		eq := equality(now, b.before(now))
		return compiled{kind: Bool, b: func(e evalEnv) bool { return !eq(e) }}
	case "pending", "deadline":
		return b.timer(n, callee.Value)
	case "valid":
		x := b.node(n.Arguments[0])
		b.test(x)
		if x.shape == shapeSlot {
			// valid(candidate): the slot is read in place.
			return testCompiled(&test{op: testValid, sid: x.sid})
		}
		f := x.s
		return compiled{kind: Bool, b: func(e evalEnv) bool { return validWaiting(e.m, e.c, f(e)) }}
	}
	v := m.validator(callee.Value)
	if callee.Value == "number" {
		v = nil
	}
	if v == nil {
		v = m.validator(strings.TrimPrefix(callee.Value, "is_"))
	}
	if v != nil && len(n.Arguments) == 1 {
		x := b.node(n.Arguments[0])
		b.test(x)
		if x.shape == shapeSlot {
			id := x.sid
			return compiled{kind: Bool, b: func(e evalEnv) bool { return v.check(e.c.Slot(id).Str) }}
		}
		f := x.s
		return compiled{kind: Bool, b: func(e evalEnv) bool { return v.check(f(e)) }}
	}
	return b.fail(n, "unknown function %q", callee.Value)
}

// validWaiting is valid(s): whether s passes the validator of the slot
// being waited for (false when none is).
func validWaiting(m *Machine, c *Config, s string) bool {
	// Small enough to be inlined into valid's closure.
	return c.Waiting != NoID && m.slots[c.Waiting].validator.check(s)
}

// before evaluates x on the configuration before the step an invariant
// judges.
func (b *nodeCompiler) before(x compiled) compiled {
	at := func(e evalEnv) evalEnv {
		if e.before != nil {
			e.c = e.before
		}
		return e
	}
	switch x.kind {
	case Text:
		f := x.s
		return compiled{kind: Text, s: func(e evalEnv) string { return f(at(e)) }}
	case Number:
		f := x.n
		return compiled{kind: Number, n: func(e evalEnv) float64 { return f(at(e)) }}
	}
	f := x.b
	return compiled{kind: Bool, b: func(e evalEnv) bool { return f(at(e)) }}
}

// timer compiles pending("t") (whether timer t is pending) and
// deadline("t") (its deadline in virtual milliseconds, -1 when it is not
// pending). A state's timeout is the timer "timeout.STATE".
func (b *nodeCompiler) timer(n *ast.CallNode, fn string) compiled {
	var name string
	if len(n.Arguments) == 1 {
		if sn, ok := n.Arguments[0].(*ast.StringNode); ok {
			name = sn.Value
		}
	}
	id, ok := b.xc.m.timerIDs[name]
	if !ok {
		return b.fail(n, "%s takes the name of a timer in quotes, got %s", fn, describeTimerArg(n, name))
	}
	if fn == "pending" {
		return compiled{kind: Bool, b: func(e evalEnv) bool { return e.c.timerIndex(id) >= 0 }}
	}
	return compiled{kind: Number, n: func(e evalEnv) float64 {
		if i := e.c.timerIndex(id); i >= 0 {
			return float64(e.c.TimerAt(i).Deadline)
		}
		return -1
	}}
}

func describeTimerArg(n *ast.CallNode, name string) string {
	if len(n.Arguments) != 1 {
		return fmt.Sprintf("%d arguments", len(n.Arguments))
	}
	if _, ok := n.Arguments[0].(*ast.StringNode); !ok {
		return "an expression"
	}
	return fmt.Sprintf("unknown timer %q", name)
}

// number converts its argument to a number. Text that is not a number (a
// NaN or infinity included, which would make a Config unequal to itself)
// is a runtime error of the step evaluating it; where no step runs (an
// invariant, a success condition) it is NaN, so every comparison with it
// is false.
func (b *nodeCompiler) number(n *ast.CallNode) compiled {
	if len(n.Arguments) != 1 {
		return b.fail(n, "number takes one argument")
	}
	x := b.node(n.Arguments[0])
	if x.kind == Text {
		// A user's text made a number is told apart from any other.
		b.test(x)
		if u := b.xc.use; u != nil && (x.val || x.cat) {
			u.numbers = true
		}
	}
	switch x.kind {
	case Number:
		return x
	case Bool:
		f := x.b
		return compiled{kind: Number, n: func(e evalEnv) float64 {
			if f(e) {
				return 1
			}
			return 0
		}}
	}
	f, pos, src := x.s, b.src.Pos, b.src.Src
	pos.Col += n.Location().From
	return compiled{kind: Number, n: func(e evalEnv) float64 {
		s := f(e)
		v, ok := parseNumber(s)
		if ok {
			return v
		}
		if e.r != nil && e.r.exprErr == nil {
			e.r.exprErr = e.m.rtErr(e.c, pos, "in expression %q: number(%q): not a number", src, s)
		}
		return math.NaN()
	}}
}

func (b *nodeCompiler) slotArg(n *ast.CallNode) (SlotID, bool) {
	if len(n.Arguments) != 1 {
		return 0, false
	}
	id, ok := n.Arguments[0].(*ast.IdentifierNode)
	if !ok {
		return 0, false
	}
	s, ok := b.xc.m.slotIDs[id.Value]
	return s, ok
}

func (b *nodeCompiler) builtin(n *ast.BuiltinNode) compiled {
	if len(n.Arguments) != 1 {
		return b.fail(n, "builtin %s is not supported", n.Name)
	}
	x := b.node(n.Arguments[0])
	switch n.Name {
	case "len":
		if x.kind != Text {
			return b.fail(n, "len takes text")
		}
		b.test(x)
		if u := b.xc.use; u != nil {
			u.length = true
		}
		if x.shape == shapeSlot {
			// len(slot): the slot is read in place.
			id := x.sid
			return compiled{kind: Number, n: func(e evalEnv) float64 { return float64(len(e.c.Slot(id).Str)) }, shape: shapeLen, sid: id}
		}
		f := x.s
		return compiled{kind: Number, n: func(e evalEnv) float64 { return float64(len(f(e))) }}
	case "lower", "upper", "trim":
		if x.kind != Text {
			return b.fail(n, "%s takes text", n.Name)
		}
		g := map[string]func(string) string{"lower": strings.ToLower, "upper": strings.ToUpper, "trim": strings.TrimSpace}[n.Name]
		if u := b.xc.use; u != nil {
			u.transforms[n.Name] = true
			u.depth = max(u.depth, x.tdepth+1)
		}
		f := x.s
		return compiled{kind: Text, s: func(e evalEnv) string { return g(f(e)) }, val: x.val, cat: x.cat, slots: x.slots, tdepth: x.tdepth + 1}
	case "abs":
		f := x.n
		return compiled{kind: Number, n: func(e evalEnv) float64 { return math.Abs(f(e)) }}
	}
	return b.fail(n, "builtin %s is not supported", n.Name)
}
