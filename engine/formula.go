package engine

import "math"

// A formula is arithmetic of more than one operator over slots and
// literals (an action's output such as `len(origin)*10000 +
// len(destination)*100 + len(date)`, the booking stub's on the WORKLOAD
// machine), evaluated by one loop over its terms: a closure per operator,
// each copying the six-word environment, was most of such an output's
// cost.
//
// It is a chain: its first term, then each further term applied to the
// value so far, left to right, as the tree `((t0 op1 t1) op2 t2) ...`
// says; a term is a literal or a slot (its length, for a text slot),
// alone or with a literal after an operator (or before + or *, which give
// the same either way). The first operator whose result is not a number
// is the one reported, at its position, as the closures (arith) report
// it; eval says how.
type formula struct {
	terms []formulaTerm
	src   string
}

// formulaTerm is `op (x kop k)`; kop 0: the term is x alone. op is 0
// for the first term.
type formulaTerm struct {
	op, kop byte // + - *, or 0
	x       uint8
	sid     SlotID
	k       float64 // kop's literal, or x's value when x is termConst
	pos     Pos     // op's position
	kpos    Pos     // kop's position
}

const (
	termConst uint8 = iota // k
	termLen                // len of text slot sid
	termNum                // number slot sid
)

// newFormula is the formula of l op r at pos, or nil when that is no chain
// of terms: a side that is neither a term nor a formula, or a right side
// that is a formula of more than one term.
func newFormula(op byte, pos Pos, src string, l, r compiled) *formula {
	if op == '%' || op == '/' {
		// math.Mod is a call (see operate), and a division can make a
		// step's infinite result finite again (see eval).
		return nil
	}
	var chain []formulaTerm
	if t, ok := asTerm(l); ok {
		chain = []formulaTerm{t}
	} else if l.f != nil {
		chain = l.f.terms
	} else {
		return nil
	}
	t, ok := asTerm(r)
	if !ok {
		return nil
	}
	t.op, t.pos = op, pos
	f := &formula{terms: make([]formulaTerm, 0, len(chain)+1), src: src}
	f.terms = append(append(f.terms, chain...), t)
	return f
}

// asTerm is x as a term, if it is one: a literal, a slot, or a formula of
// a slot and a literal.
func asTerm(x compiled) (formulaTerm, bool) {
	if x.f == nil {
		return termOf(x)
	}
	if len(x.f.terms) != 2 {
		return formulaTerm{}, false
	}
	a, b := x.f.terms[0], x.f.terms[1]
	switch {
	case a.kop != 0 || b.kop != 0:
	case a.x != termConst && b.x == termConst:
		// x kop k: the literal applied to the slot's value.
		a.kop, a.k, a.kpos = b.op, b.k, b.pos
		return a, true
	case a.x == termConst && b.x != termConst && b.op != '-':
		// k kop x, as x kop k: + and * give the same either way.
		b.kop, b.k, b.kpos = b.op, a.k, b.pos
		b.op, b.pos = 0, Pos{}
		return b, true
	}
	return formulaTerm{}, false
}

// termOf is x as a term without an operator, if it is one.
func termOf(x compiled) (formulaTerm, bool) {
	switch {
	case x.shape == shapeConst && x.kind == Number:
		return formulaTerm{x: termConst, k: x.cv.Num}, true
	case int(x.sid) >= InlineSlots:
		// Read in place only: a slot beyond them is a call, around
		// which the loop would keep nothing in registers.
		return formulaTerm{}, false
	case x.shape == shapeLen:
		return formulaTerm{x: termLen, sid: x.sid}, true
	case x.shape == shapeSlot && x.kind == Number:
		return formulaTerm{x: termNum, sid: x.sid}, true
	}
	return formulaTerm{}, false
}

// operators is the number of operators in f.
func (f *formula) operators() int {
	n := len(f.terms) - 1
	for i := range f.terms {
		if f.terms[i].kop != 0 {
			n++
		}
	}
	return n
}

// eval computes f's value as its operators' closures would. No result
// but the last is checked: with + - * only, a step whose result is not a
// number gives a last that is not one either. Only then are the steps
// taken again to report the first, at its operator's position.
func (f *formula) eval(e *evalEnv) float64 {
	c, terms := e.c, f.terms
	acc := terms[0].value(c)
	for i := 1; i < len(terms); i++ {
		acc = operate(terms[i].op, acc, terms[i].value(c))
	}
	if !finite(acc) {
		f.report(e)
	}
	return acc
}

// value is t's value, without its op.
func (t *formulaTerm) value(c *Config) float64 {
	y := t.k
	switch t.x {
	case termLen:
		y = float64(len(c.slots[t.sid].Str))
	case termNum:
		y = c.slots[t.sid].Num
	}
	if t.kop == 0 {
		return y
	}
	return operate(t.kop, y, t.k)
}

// report records the first of f's results that is not a number.
func (f *formula) report(e *evalEnv) {
	var acc float64
	for i := range f.terms {
		t := &f.terms[i]
		y := t.value(e.c)
		if t.kop != 0 && !finite(y) {
			e.nonFinite(t.kpos, f.src, y)
			return
		}
		if i == 0 {
			acc = y
			continue
		}
		if acc = operate(t.op, acc, y); !finite(acc) {
			e.nonFinite(t.pos, f.src, acc)
			return
		}
	}
}

// finite reports whether v is a number: neither NaN nor infinite, in one
// comparison.
func finite(v float64) bool { return math.Abs(v) <= math.MaxFloat64 }
