package dfcx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
)

// Dialogflow's conditions, parameter references and $sys.func calls are
// translated into simctl's expressions. Every parameter is a text slot, so
// a comparison with a number converts (is_number and number), and null is
// an empty slot.

// scope is what a condition is translated against: the slots of the
// agent's parameters and, for $page.params.status, the current page.
type scope interface {
	slot(param string) string
	formDone() string // the expression for $page.params.status = "FINAL"
}

type typ uint8

const (
	tText typ = iota
	tNum
	tBool
	tNull
)

type operand struct {
	x    string
	t    typ
	slot string // a bare slot reference, for null comparisons and numbers
	gone bool   // a parameter left out: always null
}

// funcs are the $sys.func functions kept, with their arity and result.
var funcs = map[string]struct {
	args int
	t    typ
}{
	"LOWER": {1, tText}, "UPPER": {1, tText}, "ADD": {2, tNum}, "MINUS": {2, tNum},
	"TO_TEXT": {1, tText}, "LEN": {1, tNum},
}

func funcNames() string { return "ADD, LEN, LOWER, MINUS, TO_TEXT, UPPER" }

type condParser struct {
	src  string
	i    int
	base engine.Pos // where src starts in its file (the opening quote)
	sc   scope
}

func (p *condParser) errf(at int, format string, args ...any) error {
	pos := p.base
	pos.Col += 1 + at
	return fmt.Errorf("%s: %s", pos, fmt.Sprintf(format, args...))
}

func (p *condParser) ws() {
	for p.i < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.i]) >= 0 {
		p.i++
	}
}

func (p *condParser) word(w string) bool {
	p.ws()
	if len(p.src)-p.i >= len(w) && strings.EqualFold(p.src[p.i:p.i+len(w)], w) {
		end := p.i + len(w)
		if end == len(p.src) || !isIdent(p.src[end]) {
			p.i = end
			return true
		}
	}
	return false
}

func isIdent(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// translateCond translates a condition at pos.
func translateCond(src string, pos engine.Pos, sc scope) (string, error) {
	p := &condParser{src: src, base: pos, sc: sc}
	x, err := p.or()
	if err != nil {
		return "", err
	}
	p.ws()
	if p.i < len(p.src) {
		return "", p.errf(p.i, "condition %q: unexpected %q (expected AND, OR or the end)", clip(src), clip(p.src[p.i:]))
	}
	return x, nil
}

func (p *condParser) or() (string, error) {
	x, err := p.and()
	if err != nil {
		return "", err
	}
	for p.word("OR") {
		y, err := p.and()
		if err != nil {
			return "", err
		}
		x = "(" + x + " or " + y + ")"
	}
	return x, nil
}

func (p *condParser) and() (string, error) {
	x, err := p.not()
	if err != nil {
		return "", err
	}
	for p.word("AND") {
		y, err := p.not()
		if err != nil {
			return "", err
		}
		x = "(" + x + " and " + y + ")"
	}
	return x, nil
}

func (p *condParser) not() (string, error) {
	if p.word("NOT") {
		x, err := p.not()
		if err != nil {
			return "", err
		}
		return "not " + x, nil
	}
	return p.cmp()
}

var cmpOps = []string{"!=", ">=", "<=", "=", ">", "<", ":"}

func (p *condParser) cmp() (string, error) {
	p.ws()
	if p.i < len(p.src) && p.src[p.i] == '(' {
		p.i++
		x, err := p.or()
		if err != nil {
			return "", err
		}
		p.ws()
		if p.i >= len(p.src) || p.src[p.i] != ')' {
			return "", p.errf(p.i, "condition %q: expected )", clip(p.src))
		}
		p.i++
		return "(" + x + ")", nil
	}
	at := p.i
	// $page.params.status = "FINAL" and $page.params.X.status = "VALID".
	if st, ok := p.pageStatus(); ok {
		p.ws()
		op := p.op()
		if op != "=" && op != "!=" {
			return "", p.errf(p.i, "condition %q: expected = or != after the page status", clip(p.src))
		}
		v, err := p.operand()
		if err != nil {
			return "", err
		}
		want := strings.Trim(v.x, `"`)
		x := st
		if want != "FINAL" && want != "VALID" {
			x = "false"
		}
		if op == "!=" {
			return "not (" + x + ")", nil
		}
		return "(" + x + ")", nil
	}
	l, err := p.operand()
	if err != nil {
		return "", err
	}
	p.ws()
	op := p.op()
	if op == "" {
		switch l.t {
		case tBool:
			return l.x, nil
		case tNull:
			return "false", nil
		}
		if l.slot != "" {
			// A parameter alone: true when it holds "true".
			return "(" + l.x + ` == "true")`, nil
		}
		return "", p.errf(at, "condition %q: expected a comparison", clip(p.src))
	}
	r, err := p.operand()
	if err != nil {
		return "", err
	}
	return compare(l, op, r), nil
}

func (p *condParser) op() string {
	p.ws()
	for _, o := range cmpOps {
		if strings.HasPrefix(p.src[p.i:], o) {
			p.i += len(o)
			return o
		}
	}
	return ""
}

func compare(l operand, op string, r operand) string {
	if r.t == tNull || l.t == tNull {
		s := l
		if l.t == tNull {
			s = r
		}
		if s.gone || s.t == tNull {
			if op == "!=" {
				return "false"
			}
			return "true"
		}
		if s.slot == "" {
			return "false"
		}
		if op == "!=" {
			return "filled(" + s.slot + ")"
		}
		return "empty(" + s.slot + ")"
	}
	if op == ":" {
		return "(" + text(l) + " contains " + text(r) + ")"
	}
	eop := op
	if op == "=" {
		eop = "=="
	}
	if l.t == tNum || r.t == tNum || (op != "=" && op != "!=") {
		var guards []string
		for _, o := range []operand{l, r} {
			if o.t == tText {
				guards = append(guards, "is_number("+o.x+")")
			}
		}
		x := num(l) + " " + eop + " " + num(r)
		if len(guards) > 0 {
			return "(" + strings.Join(guards, " and ") + " and " + x + ")"
		}
		return "(" + x + ")"
	}
	return "(" + text(l) + " " + eop + " " + text(r) + ")"
}

func num(o operand) string {
	switch o.t {
	case tNum:
		return o.x
	case tBool:
		return "(" + o.x + " ? 1 : 0)"
	}
	return "number(" + o.x + ")"
}

func text(o operand) string {
	switch o.t {
	case tNum:
		if _, err := strconv.ParseFloat(o.x, 64); err == nil {
			return strconv.Quote(o.x)
		}
		return "(" + o.x + ` + "")`
	case tBool:
		return "(" + o.x + ` ? "true" : "false")`
	}
	return o.x
}

// pageStatus reads $page.params.status or $page.params.NAME.status.
func (p *condParser) pageStatus() (string, bool) {
	p.ws()
	rest := p.src[p.i:]
	if !strings.HasPrefix(rest, "$page.params.") {
		return "", false
	}
	j := len("$page.params.")
	for j < len(rest) && isIdent(rest[j]) {
		j++
	}
	path := rest[len("$page.params."):j]
	if path == "status" {
		p.i += j
		return p.sc.formDone(), true
	}
	if name, ok := strings.CutSuffix(path, ".status"); ok {
		p.i += j
		if s := p.sc.slot(name); s != "" {
			return "filled(" + s + ")", true
		}
		return "false", true
	}
	return "", false
}

// operand reads a reference, literal or function call.
func (p *condParser) operand() (operand, error) {
	p.ws()
	if p.i >= len(p.src) {
		return operand{}, p.errf(p.i, "condition %q: expected a value at the end", clip(p.src))
	}
	c := p.src[p.i]
	switch {
	case c == '"' || c == '\'':
		j := p.i + 1
		var b strings.Builder
		for j < len(p.src) && p.src[j] != c {
			if p.src[j] == '\\' && j+1 < len(p.src) {
				j++
			}
			b.WriteByte(p.src[j])
			j++
		}
		if j >= len(p.src) {
			return operand{}, p.errf(p.i, "condition %q: unterminated string", clip(p.src))
		}
		p.i = j + 1
		return operand{x: quote(b.String()), t: tText}, nil
	case c == '$':
		return p.ref()
	case c == '-' || c >= '0' && c <= '9':
		j := p.i + 1
		for j < len(p.src) && (p.src[j] == '.' || p.src[j] >= '0' && p.src[j] <= '9') {
			j++
		}
		lit := p.src[p.i:j]
		if _, err := strconv.ParseFloat(lit, 64); err != nil {
			return operand{}, p.errf(p.i, "condition %q: %q is not a number", clip(p.src), lit)
		}
		p.i = j
		return operand{x: lit, t: tNum}, nil
	}
	j := p.i
	for j < len(p.src) && isIdent(p.src[j]) {
		j++
	}
	w := p.src[p.i:j]
	if w == "" {
		return operand{}, p.errf(p.i, "condition %q: unexpected %q", clip(p.src), string(c))
	}
	p.i = j
	switch strings.ToLower(w) {
	case "true", "false":
		return operand{x: strings.ToLower(w), t: tBool}, nil
	case "null":
		return operand{t: tNull}, nil
	}
	// Dialogflow reads a bare word as a string.
	return operand{x: quote(w), t: tText}, nil
}

func (p *condParser) ref() (operand, error) {
	rest := p.src[p.i:]
	at := p.i
	if strings.HasPrefix(rest, "$sys.func.") {
		j := len("$sys.func.")
		for j < len(rest) && (rest[j] == '_' || rest[j] >= 'A' && rest[j] <= 'Z' || rest[j] >= 'a' && rest[j] <= 'z' || rest[j] >= '0' && rest[j] <= '9') {
			j++
		}
		name := rest[len("$sys.func."):j]
		f, ok := funcs[strings.ToUpper(name)]
		if !ok {
			return operand{}, p.errf(at, "$sys.func.%s is not supported (simctl translates %s)", name, funcNames())
		}
		p.i += j
		p.ws()
		if p.i >= len(p.src) || p.src[p.i] != '(' {
			return operand{}, p.errf(p.i, "$sys.func.%s: expected (", name)
		}
		p.i++
		var args []operand
		for {
			p.ws()
			if p.i < len(p.src) && p.src[p.i] == ')' && len(args) == 0 {
				break
			}
			a, err := p.operand()
			if err != nil {
				return operand{}, err
			}
			args = append(args, a)
			p.ws()
			if p.i < len(p.src) && p.src[p.i] == ',' {
				p.i++
				continue
			}
			break
		}
		if p.i >= len(p.src) || p.src[p.i] != ')' {
			return operand{}, p.errf(p.i, "$sys.func.%s: expected )", name)
		}
		p.i++
		if len(args) != f.args {
			return operand{}, p.errf(at, "$sys.func.%s takes %d arguments, got %d", name, f.args, len(args))
		}
		switch strings.ToUpper(name) {
		case "LOWER":
			return operand{x: "lower(" + text(args[0]) + ")", t: tText}, nil
		case "UPPER":
			return operand{x: "upper(" + text(args[0]) + ")", t: tText}, nil
		case "TO_TEXT":
			return operand{x: text(args[0]), t: tText}, nil
		case "LEN":
			return operand{x: "len(" + text(args[0]) + ")", t: tNum}, nil
		case "ADD":
			return operand{x: "(" + num(args[0]) + " + " + num(args[1]) + ")", t: tNum}, nil
		default: // MINUS
			return operand{x: "(" + num(args[0]) + " - " + num(args[1]) + ")", t: tNum}, nil
		}
	}
	for _, pre := range []string{"$session.params.", "$page.params.", "$intent.params.", "$flow."} {
		if strings.HasPrefix(rest, pre) {
			j := len(pre)
			for j < len(rest) && isIdent(rest[j]) {
				j++
			}
			// A full stop after a reference ends the sentence.
			for j > len(pre) && rest[j-1] == '.' {
				j--
			}
			name := rest[len(pre):j]
			for _, suf := range []string{".original", ".resolved"} {
				name = strings.TrimSuffix(name, suf)
			}
			if strings.Contains(name, ".") {
				// A field of a composite value ($session.params.date.year):
				// the whole value is the text slot.
				name, _, _ = strings.Cut(name, ".")
			}
			if name == "" {
				break
			}
			p.i += j
			s := p.sc.slot(name)
			if s == "" {
				// A parameter left out is always empty.
				return operand{x: `""`, t: tText, gone: true}, nil
			}
			return operand{x: s, t: tText, slot: s}, nil
		}
	}
	end := strings.IndexAny(rest, " ()=!<>:,")
	if end < 0 {
		end = len(rest)
	}
	return operand{}, p.errf(at, "%s is not supported (simctl reads $session.params, $page.params, $intent.params and $sys.func)", rest[:end])
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// quote writes s as an expression string literal.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// segment is a piece of a message or value: literal text, or an
// expression (a parameter or a function) whose value is text.
type segment struct {
	lit  string
	expr string
}

// segments splits a text with $-references into literal text and
// expressions. pos is the position of the JSON string holding it.
func segments(s string, pos engine.Pos, sc scope) ([]segment, error) {
	var out []segment
	lit := strings.Builder{}
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, segment{lit: lit.String()})
			lit.Reset()
		}
	}
	i := 0
	for i < len(s) {
		if s[i] != '$' || !isRefStart(s[i:]) {
			lit.WriteByte(s[i])
			i++
			continue
		}
		p := &condParser{src: s, i: i, base: pos, sc: sc}
		o, err := p.ref()
		if err != nil {
			return nil, err
		}
		// Dialogflow renders a reference to a parameter that is not set
		// as the reference itself.
		ref := s[i:p.i]
		i = p.i
		switch {
		case o.gone:
			lit.WriteString(ref)
		case o.slot != "":
			flush()
			out = append(out, segment{expr: "(filled(" + o.slot + ") ? " + o.slot + " : " + quote(ref) + ")"})
		default:
			flush()
			out = append(out, segment{expr: text(o)})
		}
	}
	flush()
	return out, nil
}

func isRefStart(s string) bool {
	for _, pre := range []string{"$session.params.", "$page.params.", "$intent.params.", "$flow.", "$sys.func."} {
		if strings.HasPrefix(s, pre) {
			return true
		}
	}
	return false
}

// template renders segments as a say template.
func template(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		if s.expr != "" {
			b.WriteString("{" + s.expr + "}")
			continue
		}
		b.WriteString(strings.NewReplacer("{", "{{", "}", "}}").Replace(s.lit))
	}
	return b.String()
}

// valueExpr renders segments as one text expression.
func valueExpr(segs []segment) string {
	if len(segs) == 0 {
		return `""`
	}
	var parts []string
	for _, s := range segs {
		if s.expr != "" {
			parts = append(parts, s.expr)
		} else {
			parts = append(parts, quote(s.lit))
		}
	}
	return strings.Join(parts, " + ")
}
