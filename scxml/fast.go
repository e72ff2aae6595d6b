package scxml

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/simctl/simctl/wordhash"
)

// A chart's conditions and assignments are mostly small expressions over
// its variables: order.qty < 20, tries = tries + 1,
// order.toppings.push('ham'). Running each in goja costs a call into its
// machine (a fresh stack, a try frame) and then, for the explorer, a walk
// of the whole heap to fingerprint it; most of a search's time went there.
// So expressions of a small, exactly specified subset of ECMAScript are
// also compiled to a Go tree (fastExpr) that evaluates them on a Go copy
// of the heap (a savedData, the "mirror") while the heap is plain data:
//
//   - literals: numbers (digits, an optional fraction), strings in single
//     or double quotes without a backslash, true, false, null, and array
//     literals of these;
//   - a variable (a global the mirror holds), a property an object holds
//     (a.b), the length of an array or an ASCII string;
//   - _event: its name, type, sendid, origin, origintype and invokeid,
//     and its data (a property it has, as of a variable's object) while
//     goja has not run since the event was bound (ecmaData.bind), as
//     goja's copy of the data might have been written;
//   - ! and unary -, + and - (on numbers; + on strings, and on a string
//     with a boolean, null, undefined or an integer below 1e21), *, /
//     and % (on numbers), <, <=, >, >= (on numbers, or on ASCII
//     strings), ===, !==, == and != (on primitives of one type, or null
//     and undefined), && and ||, and c ? a : b;
//   - In('state'), indexOf of a primitive on an array or an ASCII
//     string, and concat on an array;
//   - as a script's statements (separated by ; or new lines) or an
//     <assign>: a path (a.b.c) = a primitive or a fresh array, and
//     path.push(...) and path.sort() on an array of ASCII strings.
//
// Anything else, or a value these do not cover (an object compared, a
// number turned into a string that is not an integer, a property an
// object does not have, a NaN to store), is not evaluated here: the
// mirror is copied into goja (materialize) and goja evaluates the
// expression, as it would have. fast_test.go runs every such expression
// both ways, on random values, and compares.

// fastOp is what a fastExpr node does.
type fastOp uint8

const (
	fNum fastOp = iota
	fStr
	fTrue
	fFalse
	fNull
	fArray // args
	fIdent // str
	fMember
	fIn      // In(args[0])
	fIndexOf // a.indexOf(args[0])
	fConcat  // a.concat(args...)
	fPush    // a.push(args...), a statement's
	fSort    // a.sort(), a statement's
	fNot
	fNeg
	fAdd
	fSub
	fLT
	fLE
	fGT
	fGE
	fSEq
	fSNe
	fEq
	fNe
	fAnd
	fOr
	fMul
	fDiv
	fMod
	fCond   // a ? args[0] : args[1]
	fEvent  // _event
	fAssign // a = b, a statement's
)

// fastExpr is an expression of the subset, or a script's statement.
type fastExpr struct {
	op   fastOp
	num  float64
	str  string // a literal's text, a variable's or a property's name
	a, b *fastExpr
	args []*fastExpr
	path []string // what push, sort and an assignment write (a's path)
}

// fastCode is one compiled expression's Go form: expr for a condition or
// a value, path for a location, stmts for a script. ok is false when the
// expression is not in the subset.
type fastCode struct {
	ok    bool
	expr  *fastExpr
	path  []string
	stmts []*fastExpr
}

// fastUnsafe are the words of an expression that may change what the
// subset takes as given: the built-in prototypes (Array.prototype.push),
// the global object, property attributes. A chart that has one anywhere
// gets no fast path.
var fastUnsafe = []string{"prototype", "Prototype", "__proto__", "constructor", "Object", "Reflect", "eval", "Function",
	"defineProperty", "__define", "Proxy", "Symbol", "freeze", "seal", "preventExtensions", "this", "globalThis", "with"}

func fastSafe(src string) bool {
	for _, w := range fastUnsafe {
		if strings.Contains(src, w) {
			return false
		}
	}
	return true
}

// compileFast compiles src, of kind k, to its Go form.
func compileFast(k ExprKind, src string) fastCode {
	toks, ok := fastLex(src)
	if !ok {
		return fastCode{}
	}
	p := &fastParser{toks: toks}
	switch k {
	case CondExpr, ValueExpr:
		if n := len(p.toks); n > 0 && p.toks[n-1].kind == ';' {
			p.toks = p.toks[:n-1] // a trailing ";", as add tolerates
		}
		e := p.expr()
		if e == nil || !p.at(0) {
			return fastCode{}
		}
		return fastCode{ok: true, expr: e}
	case LocationExpr:
		e := p.expr()
		if e == nil || !p.at(0) {
			return fastCode{}
		}
		path, ok := fastPath(e)
		return fastCode{ok: ok, path: path}
	case ScriptExpr:
		var stmts []*fastExpr
		for !p.at(0) {
			if p.at(';') {
				p.i++
				continue
			}
			if p.toks[p.i].nl && len(stmts) > 0 {
				// A statement that starts on a new line after one that
				// could go on with its first token would continue it.
				switch p.toks[p.i].kind {
				case '(', '[', '-':
					return fastCode{}
				}
			}
			s := p.stmt()
			if s == nil {
				return fastCode{}
			}
			stmts = append(stmts, s)
			if !p.at(0) && !p.at(';') && !p.toks[p.i].nl {
				return fastCode{}
			}
		}
		return fastCode{ok: true, stmts: stmts}
	}
	return fastCode{}
}

// fastPath returns the names of a variable or a chain of properties.
func fastPath(e *fastExpr) ([]string, bool) {
	switch e.op {
	case fIdent:
		return []string{e.str}, true
	case fMember:
		p, ok := fastPath(e.a)
		return append(p, e.str), ok
	}
	return nil, false
}

// fastTok is a token: kind is one of ( ) [ ] , . ; ! < > = + - for
// itself, 'i' an identifier, 'n' a number, 's' a string, or one of the
// two-character and three-character operators' codes (tokOps); nl: a new
// line comes before it.
type fastTok struct {
	kind byte
	text string
	num  float64
	nl   bool
}

const (
	tSEq = 'E' // ===
	tSNe = 'N' // !==
	tEq  = 'e' // ==
	tNe  = 'n' // !=
	tLE  = 'l' // <=
	tGE  = 'g' // >=
	tAnd = '&' // &&
	tOr  = '|' // ||
)

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// fastLex splits src into tokens, or reports false at anything the
// subset does not have (a comment, a template, a backslash in a string,
// an operator such as ++, +=, ?, *).
func fastLex(src string) ([]fastTok, bool) {
	var toks []fastTok
	nl := false
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '\n':
			nl = true
			i++
			continue
		case c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && isIdentByte(src[j]) {
				j++
			}
			toks = append(toks, fastTok{kind: 'i', text: src[i:j], nl: nl})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && src[j] >= '0' && src[j] <= '9' {
				j++
			}
			if j < len(src) && src[j] == '.' {
				j++
				k := j
				for j < len(src) && src[j] >= '0' && src[j] <= '9' {
					j++
				}
				if j == k {
					return nil, false
				}
			}
			if j < len(src) && (isIdentByte(src[j]) || src[j] == '.') || src[i] == '0' && j > i+1 && src[i+1] != '.' {
				return nil, false // 1e5, 0x1f, 1n, 012
			}
			f, err := strconv.ParseFloat(src[i:j], 64)
			if err != nil {
				return nil, false
			}
			toks = append(toks, fastTok{kind: 'n', num: f, nl: nl})
			i = j
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' || src[j] == '\n' || src[j] == '\r' {
					return nil, false
				}
				j++
			}
			if j >= len(src) {
				return nil, false
			}
			toks = append(toks, fastTok{kind: 's', text: src[i+1 : j], nl: nl})
			i = j + 1
		default:
			k, n := c, 1
			for _, p := range fastPuncts {
				if strings.HasPrefix(src[i:], p.text) {
					k, n = p.kind, len(p.text)
					break
				}
			}
			if k == 0 || n == 1 && strings.IndexByte("()[],.;!<>=+-*/%?:", c) < 0 {
				return nil, false
			}
			toks = append(toks, fastTok{kind: k, nl: nl})
			i += n
		}
		nl = false
	}
	return toks, true
}

// fastPuncts are the operators of more than one character, longest
// first; kind 0 marks those the subset does not have.
var fastPuncts = []struct {
	text string
	kind byte
}{
	{"===", tSEq}, {"!==", tSNe}, {"&&=", 0}, {"||=", 0}, {"==", tEq}, {"!=", tNe}, {"<=", tLE}, {">=", tGE},
	{"&&", tAnd}, {"||", tOr}, {"=>", 0}, {"++", 0}, {"--", 0}, {"<<", 0}, {">>", 0}, {"+=", 0}, {"-=", 0},
	{"**", 0}, {"*=", 0}, {"/=", 0}, {"%=", 0}, {"//", 0}, {"/*", 0}, {"??", 0}, {"?.", 0},
}

type fastParser struct {
	toks []fastTok
	i    int
}

// at reports whether the next token is of kind k (0: the end).
func (p *fastParser) at(k byte) bool {
	if p.i >= len(p.toks) {
		return k == 0
	}
	return p.toks[p.i].kind == k
}

// stmt parses a script's statement: an assignment to a path, or an
// expression (push and sort only here, where their value is not used).
func (p *fastParser) stmt() *fastExpr {
	if p.at('i') {
		// path.push(...) or path.sort()
		save := p.i
		if e := p.postfix(true); e != nil && (e.op == fPush || e.op == fSort) {
			return e
		}
		p.i = save
	}
	e := p.expr()
	if e == nil {
		return nil
	}
	if p.at('=') {
		if _, ok := fastPath(e); !ok {
			return nil
		}
		p.i++
		v := p.expr()
		if v == nil {
			return nil
		}
		path, _ := fastPath(e)
		return &fastExpr{op: fAssign, a: e, b: v, path: path}
	}
	return e
}

// expr parses an expression: a conditional, or a binary one.
func (p *fastParser) expr() *fastExpr {
	c := p.binary(0)
	if c == nil || !p.at('?') {
		return c
	}
	p.i++
	a := p.expr()
	if a == nil || !p.at(':') {
		return nil
	}
	p.i++
	b := p.expr()
	if b == nil {
		return nil
	}
	return &fastExpr{op: fCond, a: c, args: []*fastExpr{a, b}}
}

// binLevels are the binary operators by precedence, lowest first.
var binLevels = [][]struct {
	tok byte
	op  fastOp
}{
	{{tOr, fOr}},
	{{tAnd, fAnd}},
	{{tSEq, fSEq}, {tSNe, fSNe}, {tEq, fEq}, {tNe, fNe}},
	{{'<', fLT}, {tLE, fLE}, {'>', fGT}, {tGE, fGE}},
	{{'+', fAdd}, {'-', fSub}},
	{{'*', fMul}, {'/', fDiv}, {'%', fMod}},
}

func (p *fastParser) binary(level int) *fastExpr {
	if level == len(binLevels) {
		return p.unary()
	}
	a := p.binary(level + 1)
	for a != nil {
		matched := false
		for _, o := range binLevels[level] {
			if p.at(o.tok) {
				p.i++
				b := p.binary(level + 1)
				if b == nil {
					return nil
				}
				a, matched = &fastExpr{op: o.op, a: a, b: b}, true
				break
			}
		}
		if !matched {
			break
		}
	}
	return a
}

func (p *fastParser) unary() *fastExpr {
	switch {
	case p.at('!'):
		p.i++
		if a := p.unary(); a != nil {
			return &fastExpr{op: fNot, a: a}
		}
		return nil
	case p.at('-'):
		p.i++
		if a := p.unary(); a != nil {
			return &fastExpr{op: fNeg, a: a}
		}
		return nil
	}
	return p.postfix(false)
}

// postfix parses a primary expression and the properties and calls after
// it; stmt allows push and sort.
func (p *fastParser) postfix(stmt bool) *fastExpr {
	e := p.primary()
	for e != nil {
		switch {
		case p.at('.'):
			p.i++
			if !p.at('i') {
				return nil
			}
			name := p.toks[p.i].text
			p.i++
			if !p.at('(') {
				e = &fastExpr{op: fMember, a: e, str: name}
				continue
			}
			p.i++
			args, ok := p.args()
			if !ok {
				return nil
			}
			switch {
			case name == "indexOf" && len(args) == 1:
				e = &fastExpr{op: fIndexOf, a: e, args: args}
			case name == "concat":
				e = &fastExpr{op: fConcat, a: e, args: args}
			case name == "push" && stmt:
				path, ok := fastPath(e)
				if !ok {
					return nil
				}
				e = &fastExpr{op: fPush, a: e, args: args, path: path}
			case name == "sort" && stmt && len(args) == 0:
				path, ok := fastPath(e)
				if !ok {
					return nil
				}
				e = &fastExpr{op: fSort, a: e, path: path}
			default:
				return nil
			}
			stmt = false
		case p.at('(') || p.at('['):
			// A call of anything but In and the methods above, or an
			// index: not in the subset (and never the start of a
			// statement of its own).
			if e.op == fIdent && e.str == "In" && p.at('(') {
				p.i++
				args, ok := p.args()
				if !ok || len(args) != 1 {
					return nil
				}
				e = &fastExpr{op: fIn, args: args}
				continue
			}
			return nil
		default:
			return e
		}
	}
	return nil
}

// args parses a call's arguments after its "(".
func (p *fastParser) args() ([]*fastExpr, bool) {
	var args []*fastExpr
	for !p.at(')') {
		if len(args) > 0 {
			if !p.at(',') {
				return nil, false
			}
			p.i++
		}
		a := p.expr()
		if a == nil {
			return nil, false
		}
		args = append(args, a)
	}
	p.i++
	return args, true
}

func (p *fastParser) primary() *fastExpr {
	if p.i >= len(p.toks) {
		return nil
	}
	t := p.toks[p.i]
	p.i++
	switch t.kind {
	case 'n':
		return &fastExpr{op: fNum, num: t.num}
	case 's':
		return &fastExpr{op: fStr, str: t.text}
	case 'i':
		switch t.text {
		case "true":
			return &fastExpr{op: fTrue}
		case "false":
			return &fastExpr{op: fFalse}
		case "null":
			return &fastExpr{op: fNull}
		case "_event":
			return &fastExpr{op: fEvent}
		}
		return &fastExpr{op: fIdent, str: t.text}
	case '(':
		e := p.expr()
		if e == nil || !p.at(')') {
			return nil
		}
		p.i++
		return e
	case '[':
		var items []*fastExpr
		for !p.at(']') {
			if len(items) > 0 {
				if !p.at(',') {
					return nil
				}
				p.i++
				if p.at(']') {
					return nil // a trailing comma
				}
			}
			a := p.expr()
			if a == nil {
				return nil
			}
			items = append(items, a)
		}
		p.i++
		return &fastExpr{op: fArray, args: items}
	}
	return nil
}

// fastEnv evaluates the subset on a mirror: names and vals are its
// variables (vals copied on the first write, owned), in reports whether
// a state is active (false when In is not the chart's own), and
// touched lists the variables written.
type fastEnv struct {
	names []string
	vals  []plainValue
	owned bool
	in    func(string) (bool, bool)
	// event returns _event as goja has it, nil when the subset may not
	// read it (ecmaData.eventView).
	event   func() *plainValue
	touched []int
	// fresh holds the first item of each array of items this env made,
	// which it may write in place.
	fresh []*plainValue
}

// mine returns items to write: itself when env made it, else a copy
// with room for extra more.
func (env *fastEnv) mine(items []plainValue, extra int) []plainValue {
	if len(items) > 0 && slices.Contains(env.fresh, &items[0]) {
		return items
	}
	c := make([]plainValue, len(items), len(items)+extra)
	copy(c, items)
	if cap(c) > 0 {
		env.fresh = append(env.fresh, &c[:1][0])
	}
	return c
}

// fval is a value the subset computed: a plainValue, and whether it is
// an object of the mirror (ref) rather than one made fresh.
type fval struct {
	plainValue
	ref bool
}

func (env *fastEnv) lookup(name string) int {
	for i, n := range env.names {
		if n == name {
			return i
		}
	}
	return -1
}

func truthy(v *plainValue) bool {
	switch v.kind {
	case plainUndefined, plainNull, plainFalse:
		return false
	case plainNumber:
		return v.num != 0 && !math.IsNaN(v.num)
	case plainString:
		return v.str != ""
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func isPrimitive(v *plainValue) bool { return v.kind < plainArray }

func boolVal(b bool) fval {
	if b {
		return fval{plainValue: plainValue{kind: plainTrue}}
	}
	return fval{plainValue: plainValue{kind: plainFalse}}
}

func numVal(f float64) fval { return fval{plainValue: plainValue{kind: plainNumber, num: f}} }

// strictEq is ===; ok false for objects (their identity).
func strictEq(a, b *plainValue) (eq, ok bool) {
	if !isPrimitive(a) || !isPrimitive(b) {
		return false, false
	}
	if a.kind != b.kind {
		return false, true
	}
	switch a.kind {
	case plainNumber:
		return a.num == b.num, true
	case plainString:
		return a.str == b.str, true
	}
	return true, true
}

// looseEq is ==, for primitives of one type and null and undefined.
func looseEq(a, b *plainValue) (eq, ok bool) {
	nullish := func(v *plainValue) bool { return v.kind == plainUndefined || v.kind == plainNull }
	switch {
	case !isPrimitive(a) || !isPrimitive(b):
		return false, false
	case nullish(a) || nullish(b):
		return nullish(a) && nullish(b), true
	case a.kind == b.kind || (a.kind == plainTrue || a.kind == plainFalse) && (b.kind == plainTrue || b.kind == plainFalse):
		return strictEq(a, b)
	}
	return false, false // a number and a string, a boolean and another type
}

// toText is String(v) for the primitives the subset concatenates.
func toText(v *plainValue) (string, bool) {
	switch v.kind {
	case plainString:
		return v.str, true
	case plainUndefined:
		return "undefined", true
	case plainNull:
		return "null", true
	case plainTrue:
		return "true", true
	case plainFalse:
		return "false", true
	case plainNumber:
		f := v.num
		if f == 0 {
			return "0", true // -0 too
		}
		if f == math.Trunc(f) && math.Abs(f) < 1e21 {
			return strconv.FormatFloat(f, 'f', -1, 64), true
		}
	}
	return "", false
}

// eval evaluates e, or reports false when the subset does not cover it.
func (env *fastEnv) eval(e *fastExpr) (fval, bool) {
	switch e.op {
	case fNum:
		return numVal(e.num), true
	case fStr:
		return fval{plainValue: plainValue{kind: plainString, str: e.str}}, true
	case fTrue:
		return boolVal(true), true
	case fFalse:
		return boolVal(false), true
	case fNull:
		return fval{plainValue: plainValue{kind: plainNull}}, true
	case fArray:
		items := make([]plainValue, len(e.args))
		for i, a := range e.args {
			v, ok := env.eval(a)
			if !ok || v.ref || !storable(&v.plainValue) {
				return fval{}, false
			}
			items[i] = v.plainValue
		}
		return fval{plainValue: plainValue{kind: plainArray, items: items}}, true
	case fIdent:
		i := env.lookup(e.str)
		if i < 0 {
			return fval{}, false
		}
		v := env.vals[i]
		return fval{plainValue: v, ref: !isPrimitive(&v)}, true
	case fMember:
		o, ok := env.eval(e.a)
		if !ok {
			return fval{}, false
		}
		switch o.kind {
		case plainObject:
			if i := slices.Index(o.keys, e.str); i >= 0 {
				v := o.items[i]
				return fval{plainValue: v, ref: !isPrimitive(&v)}, true
			}
		case plainArray:
			if e.str == "length" {
				return numVal(float64(len(o.items))), true
			}
		case plainString:
			if e.str == "length" && isASCII(o.str) {
				return numVal(float64(len(o.str))), true
			}
		}
		return fval{}, false
	case fEvent:
		if env.lookup("_event") >= 0 {
			return fval{}, false // a <data id="_event"> is listed as a variable
		}
		ev := env.event()
		if ev == nil {
			return fval{}, false
		}
		return fval{plainValue: *ev, ref: true}, true
	case fCond:
		c, ok := env.eval(e.a)
		if !ok {
			return fval{}, false
		}
		if truthy(&c.plainValue) {
			return env.eval(e.args[0])
		}
		return env.eval(e.args[1])
	case fIn:
		v, ok := env.eval(e.args[0])
		if !ok || env.in == nil || v.kind != plainString {
			return fval{}, false
		}
		active, ok := env.in(v.str)
		return boolVal(active), ok
	case fIndexOf:
		o, ok := env.eval(e.a)
		if !ok {
			return fval{}, false
		}
		x, ok := env.eval(e.args[0])
		if !ok || !isPrimitive(&x.plainValue) {
			return fval{}, false
		}
		switch o.kind {
		case plainArray:
			if len(o.items) > MaxItems {
				return fval{}, false
			}
			for i := range o.items {
				if eq, _ := strictEq(&o.items[i], &x.plainValue); eq {
					return numVal(float64(i)), true
				}
			}
			return numVal(-1), true
		case plainString:
			if x.kind != plainString || !isASCII(o.str) || !isASCII(x.str) {
				return fval{}, false
			}
			return numVal(float64(strings.Index(o.str, x.str))), true
		}
		return fval{}, false
	case fConcat:
		// A fresh array of a's items and the arguments' (an array's
		// spread): one whose items are objects shares them with where
		// they came from (ref).
		o, ok := env.eval(e.a)
		if !ok || o.kind != plainArray || len(o.items) > MaxItems {
			return fval{}, false
		}
		items := slices.Clone(o.items)
		for _, a := range e.args {
			v, ok := env.eval(a)
			if !ok {
				return fval{}, false
			}
			if v.kind == plainArray {
				items = append(items, v.items...)
			} else {
				items = append(items, v.plainValue)
			}
			if len(items) > MaxItems {
				return fval{}, false
			}
		}
		ref := false
		for i := range items {
			if !storable(&items[i]) {
				return fval{}, false
			}
			ref = ref || !isPrimitive(&items[i])
		}
		return fval{plainValue: plainValue{kind: plainArray, items: items}, ref: ref}, true
	case fNot:
		v, ok := env.eval(e.a)
		if !ok {
			return fval{}, false
		}
		return boolVal(!truthy(&v.plainValue)), true
	case fNeg:
		v, ok := env.eval(e.a)
		if !ok || v.kind != plainNumber {
			return fval{}, false
		}
		return numVal(-v.num), true
	case fAnd, fOr:
		a, ok := env.eval(e.a)
		if !ok {
			return fval{}, false
		}
		if truthy(&a.plainValue) == (e.op == fOr) {
			return a, true
		}
		return env.eval(e.b)
	}
	a, ok := env.eval(e.a)
	if !ok {
		return fval{}, false
	}
	b, ok := env.eval(e.b)
	if !ok {
		return fval{}, false
	}
	pa, pb := &a.plainValue, &b.plainValue
	switch e.op {
	case fAdd:
		if pa.kind == plainNumber && pb.kind == plainNumber {
			return numVal(pa.num + pb.num), true
		}
		if pa.kind != plainString && pb.kind != plainString {
			return fval{}, false
		}
		sa, ok1 := toText(pa)
		sb, ok2 := toText(pb)
		if !ok1 || !ok2 {
			return fval{}, false
		}
		return fval{plainValue: plainValue{kind: plainString, str: sa + sb}}, true
	case fSub, fMul, fDiv, fMod:
		if pa.kind != plainNumber || pb.kind != plainNumber {
			return fval{}, false
		}
		switch e.op {
		case fSub:
			return numVal(pa.num - pb.num), true
		case fMul:
			// goja multiplies integers as integers: exactly (past 2^53,
			// where floats round), and 0 * -2 gives +0.
			r := pa.num * pb.num
			if r == 0 || math.Abs(r) >= 1<<53 && pa.num == math.Trunc(pa.num) && pb.num == math.Trunc(pb.num) {
				return fval{}, false
			}
			return numVal(r), true
		case fDiv:
			return numVal(pa.num / pb.num), true
		}
		return numVal(math.Mod(pa.num, pb.num)), true
	case fLT, fLE, fGT, fGE:
		var c int
		switch {
		case pa.kind == plainNumber && pb.kind == plainNumber:
			if math.IsNaN(pa.num) || math.IsNaN(pb.num) {
				return boolVal(false), true
			}
			switch {
			case pa.num < pb.num:
				c = -1
			case pa.num > pb.num:
				c = 1
			}
		case pa.kind == plainString && pb.kind == plainString && isASCII(pa.str) && isASCII(pb.str):
			c = strings.Compare(pa.str, pb.str)
		default:
			return fval{}, false
		}
		switch e.op {
		case fLT:
			return boolVal(c < 0), true
		case fLE:
			return boolVal(c <= 0), true
		case fGT:
			return boolVal(c > 0), true
		}
		return boolVal(c >= 0), true
	case fSEq, fSNe:
		eq, ok := strictEq(pa, pb)
		return boolVal(eq == (e.op == fSEq)), ok
	case fEq, fNe:
		eq, ok := looseEq(pa, pb)
		return boolVal(eq == (e.op == fEq)), ok
	}
	return fval{}, false
}

// storable reports whether v may be stored in the heap and leave it
// plain (hashWalk, plainSource): no NaN, infinity or -0.
func storable(v *plainValue) bool {
	if v.kind == plainNumber {
		f := v.num
		return !math.IsNaN(f) && !math.IsInf(f, 0) && !(f == 0 && math.Signbit(f))
	}
	return true
}

// own makes env's variables its own copy, so that writes leave the
// mirror it started from as it was.
func (env *fastEnv) own() {
	if !env.owned {
		env.vals = slices.Clone(env.vals)
		env.owned = true
	}
}

// at returns the value at path for writing: the variable's and each
// object's items on the way copied, so that what other mirrors share is
// not written. It returns nil when path does not lead to a value through
// plain objects.
func (env *fastEnv) at(path []string) *plainValue {
	i := env.lookup(path[0])
	if i < 0 {
		return nil
	}
	env.own()
	if !slices.Contains(env.touched, i) {
		env.touched = append(env.touched, i)
	}
	v := &env.vals[i]
	for _, k := range path[1:] {
		if v.kind != plainObject {
			return nil
		}
		j := slices.Index(v.keys, k)
		if j < 0 {
			return nil
		}
		v.items = env.mine(v.items, 0)
		v = &v.items[j]
	}
	return v
}

// exec runs a statement, reporting false when the subset does not cover
// it (env may then be half written: the caller drops it).
func (env *fastEnv) exec(s *fastExpr) bool {
	switch s.op {
	case fAssign:
		v, ok := env.eval(s.b)
		if !ok {
			return false
		}
		return env.assign(s.path, v)
	case fPush:
		vals := make([]plainValue, len(s.args))
		for i, a := range s.args {
			v, ok := env.eval(a)
			if !ok || v.ref || !storable(&v.plainValue) {
				return false
			}
			vals[i] = v.plainValue
		}
		arr := env.at(s.path)
		if arr == nil || arr.kind != plainArray || len(arr.items)+len(vals) > MaxItems {
			return false
		}
		arr.items = append(env.mine(arr.items, len(vals)), vals...)
		if len(arr.items) > 0 && !slices.Contains(env.fresh, &arr.items[0]) {
			env.fresh = append(env.fresh, &arr.items[0]) // grown by append
		}
		return true
	case fSort:
		arr := env.at(s.path)
		if arr == nil || arr.kind != plainArray || len(arr.items) > MaxItems {
			return false
		}
		for i := range arr.items {
			if arr.items[i].kind != plainString || !isASCII(arr.items[i].str) {
				return false
			}
		}
		arr.items = env.mine(arr.items, 0)
		slices.SortStableFunc(arr.items, func(a, b plainValue) int { return strings.Compare(a.str, b.str) })
		return true
	}
	_, ok := env.eval(s)
	return ok
}

// assign stores v at path: a variable, or a property of a plain object
// (made when it is not there, as the last of its keys).
func (env *fastEnv) assign(path []string, v fval) bool {
	if v.ref || !storable(&v.plainValue) {
		return false // an object two paths would share
	}
	if len(path) == 1 {
		dst := env.at(path)
		if dst == nil {
			return false
		}
		*dst = v.plainValue
		return true
	}
	o := env.at(path[:len(path)-1])
	k := path[len(path)-1]
	if o == nil || o.kind != plainObject || k == "__proto__" {
		return false
	}
	if j := slices.Index(o.keys, k); j >= 0 {
		o.items = env.mine(o.items, 0)
		o.items[j] = v.plainValue
		return true
	}
	o.keys = append(slices.Clone(o.keys), k)
	o.items = append(env.mine(o.items, 1), v.plainValue)
	return true
}

// hashPlain hashes p as hashWalk.value hashes the value it copies.
func hashPlain(h *wordhash.Hash, p *plainValue) {
	switch p.kind {
	case plainUndefined:
		h.Word(1)
	case plainNull:
		h.Word(2)
	case plainString:
		h.Word(3)
		h.Str(p.str)
	case plainNumber:
		h.Word(4)
		h.Word(math.Float64bits(p.num))
	case plainTrue:
		h.Word(5)
		h.Str("true")
	case plainFalse:
		h.Word(5)
		h.Str("false")
	case plainArray:
		h.Word(7)
		h.Word(uint64(len(p.items)))
		for i := range p.items[:min(len(p.items), MaxItems)] {
			hashPlain(h, &p.items[i])
		}
	case plainObject:
		h.Word(8)
		for i, k := range p.keys {
			h.Str(k)
			hashPlain(h, &p.items[i])
		}
	}
}
