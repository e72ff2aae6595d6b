package rasa

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
)

// Conditions in flows are pypred predicates over slots.NAME and
// context.NAME. translateCond turns one into a simctl expression, or
// returns an error at the condition's position naming what has no
// counterpart. Types follow the domain's slots: an empty slot is null in
// Rasa, so comparisons with null become empty()/filled(), and an ordering
// comparison on a number slot is false while the slot is empty (Rasa's
// None > 3 is false too) instead of comparing 0.

type condType int

const (
	tBool condType = iota
	tText
	tNumber
	tNull
)

type operand struct {
	expr string
	typ  condType
	slot string // the slot's expression name, when the operand is a slot
	lit  bool
}

type condParser struct {
	src  string
	toks []token
	i    int
	pos  engine.Pos
	vars func(name string) (operand, error) // slots.X / context.X
}

type token struct {
	kind string // ident, str, num, op, (, ), {, }, ",", end
	val  string
	off  int
}

func (c *condParser) errf(off int, format string, args ...any) error {
	p := c.pos
	if !strings.Contains(c.src, "\n") {
		p.Col += off
	}
	return &Error{Pos: p, Msg: fmt.Sprintf("condition %q: ", c.src) + fmt.Sprintf(format, args...)}
}

func (c *condParser) lex() error {
	s := c.src
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			i++
		case ch == '"' || ch == '\'':
			j := i + 1
			for j < len(s) && s[j] != ch {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return c.errf(i, "unterminated text")
			}
			val, err := strconv.Unquote(`"` + strings.ReplaceAll(s[i+1:j], `"`, `\"`) + `"`)
			if err != nil {
				val = s[i+1 : j]
			}
			c.toks = append(c.toks, token{"str", val, i})
			i = j + 1
		case ch >= '0' && ch <= '9' || ch == '-' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			if _, err := strconv.ParseFloat(s[i:j], 64); err != nil {
				return c.errf(i, "%q is not a number", s[i:j])
			}
			c.toks = append(c.toks, token{"num", s[i:j], i})
			i = j
		case ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z':
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '.' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			c.toks = append(c.toks, token{"ident", s[i:j], i})
			i = j
		case strings.ContainsRune("=!<>", rune(ch)):
			j := i + 1
			if j < len(s) && s[j] == '=' {
				j++
			}
			op := s[i:j]
			if op == "!" {
				return c.errf(i, "unexpected \"!\" (write not or !=)")
			}
			c.toks = append(c.toks, token{"op", op, i})
			i = j
		case strings.ContainsRune("(){},", rune(ch)):
			c.toks = append(c.toks, token{string(ch), string(ch), i})
			i++
		default:
			return c.errf(i, "unexpected %q", string(ch))
		}
	}
	c.toks = append(c.toks, token{"end", "", len(s)})
	return nil
}

func (c *condParser) peek() token { return c.toks[c.i] }
func (c *condParser) next() token { t := c.toks[c.i]; c.i++; return t }
func (c *condParser) word(w string) bool {
	t := c.peek()
	if t.kind == "ident" && strings.EqualFold(t.val, w) {
		c.i++
		return true
	}
	return false
}

// translateCond parses src and returns the simctl boolean expression.
func translateCond(src string, pos engine.Pos, vars func(string) (operand, error)) (string, error) {
	c := &condParser{src: src, pos: pos, vars: vars}
	if strings.TrimSpace(src) == "" {
		return "", c.errf(0, "empty condition")
	}
	if err := c.lex(); err != nil {
		return "", err
	}
	e, err := c.or()
	if err != nil {
		return "", err
	}
	if t := c.peek(); t.kind != "end" {
		return "", c.errf(t.off, "unexpected %q", t.val)
	}
	return e, nil
}

func (c *condParser) or() (string, error) {
	l, err := c.and()
	if err != nil {
		return "", err
	}
	for c.word("or") {
		r, err := c.and()
		if err != nil {
			return "", err
		}
		l = "(" + l + " or " + r + ")"
	}
	return l, nil
}

func (c *condParser) and() (string, error) {
	l, err := c.not()
	if err != nil {
		return "", err
	}
	for c.word("and") {
		r, err := c.not()
		if err != nil {
			return "", err
		}
		l = "(" + l + " and " + r + ")"
	}
	return l, nil
}

func (c *condParser) not() (string, error) {
	if c.word("not") {
		e, err := c.not()
		if err != nil {
			return "", err
		}
		return "not " + e, nil
	}
	return c.cmp()
}

func (c *condParser) cmp() (string, error) {
	t := c.peek()
	if t.kind == "(" {
		c.i++
		e, err := c.or()
		if err != nil {
			return "", err
		}
		if c.next().kind != ")" {
			return "", c.errf(t.off, "unbalanced parenthesis")
		}
		return e, nil
	}
	l, err := c.operand()
	if err != nil {
		return "", err
	}
	op := ""
	opTok := c.peek()
	switch {
	case opTok.kind == "op":
		c.i++
		op = opTok.val
	case c.word("is"):
		op = "=="
		if c.word("not") {
			op = "!="
		}
	case c.word("contains"):
		op = "contains"
	case c.word("matches"):
		op = "matches"
	default:
		return c.truth(l, t.off)
	}
	r, err := c.operand()
	if err != nil {
		return "", err
	}
	if op == "=" {
		op = "=="
	}
	return c.compare(l, op, r, opTok.off)
}

func (c *condParser) truth(o operand, off int) (string, error) {
	switch o.typ {
	case tBool:
		return o.expr, nil
	case tText:
		return "(" + o.expr + ` != "")`, nil
	case tNumber:
		if o.slot != "" {
			return "(filled(" + o.slot + ") and " + o.expr + " != 0)", nil
		}
		return "(" + o.expr + " != 0)", nil
	}
	return "false", nil
}

func (c *condParser) compare(l operand, op string, r operand, off int) (string, error) {
	if l.typ == tNull && r.typ != tNull {
		l, r = r, l
	}
	if r.typ == tNull {
		if op != "==" && op != "!=" {
			return "", c.errf(off, "only = and != compare with null")
		}
		var e string
		switch {
		case l.slot != "":
			e = "empty(" + l.slot + ")"
		case l.typ == tText:
			e = "(" + l.expr + ` == "")`
		default:
			e = "false"
		}
		if op == "!=" {
			e = "not " + e
		}
		return e, nil
	}
	switch op {
	case "contains", "matches":
		if l.typ != tText || r.typ != tText || (op == "matches" && !r.lit) {
			return "", c.errf(off, "%s takes a text slot and a text", op)
		}
		return "(" + l.expr + " " + op + " " + r.expr + ")", nil
	}
	// A bool slot compared with "true"/"false" text, as YAML authors write it.
	for _, pair := range [][2]*operand{{&l, &r}, {&r, &l}} {
		if pair[0].typ == tBool && pair[1].typ == tText && pair[1].lit {
			switch strings.ToLower(strings.Trim(pair[1].expr, `"`)) {
			case "true":
				*pair[1] = operand{expr: "true", typ: tBool, lit: true}
			case "false":
				*pair[1] = operand{expr: "false", typ: tBool, lit: true}
			}
		}
	}
	if l.typ != r.typ {
		return "", c.errf(off, "compares %s with %s", typeName(l.typ), typeName(r.typ))
	}
	if l.typ == tBool && op != "==" && op != "!=" {
		return "", c.errf(off, "%s does not order true and false", op)
	}
	e := "(" + l.expr + " " + op + " " + r.expr + ")"
	if l.typ == tNumber && op != "!=" {
		for _, o := range []operand{l, r} {
			if o.slot != "" {
				e = "(filled(" + o.slot + ") and " + e + ")"
			}
		}
	}
	return e, nil
}

func typeName(t condType) string {
	return [...]string{"true/false", "text", "a number", "null"}[t]
}

func (c *condParser) operand() (operand, error) {
	t := c.next()
	switch t.kind {
	case "str":
		return operand{expr: strconv.Quote(t.val), typ: tText, lit: true}, nil
	case "num":
		f, _ := strconv.ParseFloat(t.val, 64)
		return operand{expr: strconv.FormatFloat(f, 'f', -1, 64), typ: tNumber, lit: true}, nil
	case "{":
		return operand{}, c.errf(t.off, "sets ({...}) have no counterpart in simctl expressions")
	case "ident":
		switch strings.ToLower(t.val) {
		case "null", "none":
			return operand{typ: tNull, lit: true}, nil
		case "true", "false":
			return operand{expr: strings.ToLower(t.val), typ: tBool, lit: true}, nil
		}
		if strings.HasPrefix(t.val, "slots.") || strings.HasPrefix(t.val, "context.") {
			o, err := c.vars(t.val)
			if err != nil {
				return operand{}, c.errf(t.off, "%v", err)
			}
			return o, nil
		}
		return operand{}, c.errf(t.off, "unknown name %s (write slots.%s for a slot)", t.val, t.val)
	case "end":
		return operand{}, c.errf(t.off, "the condition ends where a value was expected")
	}
	return operand{}, c.errf(t.off, "unexpected %q", t.val)
}
