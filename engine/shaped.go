package engine

import "math"

// A guard is evaluated on almost every step, and most guards are of a few
// shapes: valid(slot), remaining() == 1, a counter or a number slot
// compared with a literal, a text slot compared with a literal, and an
// `and` or `or` of two of those. A compiled expression of such a shape
// carries a test, which pick evaluates with direct calls instead of a
// closure per node (each passing a six-word environment): the
// expression's own closure calls the same code (holds, and holds1 for
// each leaf), so both give the same answer.

// test is a guard of one of the shapes above, or a number of one of the
// shapes such a guard compares (op testNum).
type test struct {
	op   testOp
	cmp  cmpOp   // testNum compared with k
	leaf numLeaf // testNum: what number
	neg  bool    // testText: != rather than ==
	sid  SlotID
	cid  CounterID
	k    float64
	add  float64 // leafRemaining, leafCounter: added to the count
	s    string
	l, r *test // testAnd, testOr: two leaves
}

type testOp uint8

const (
	testValid testOp = iota + 1 // valid(slot sid)
	testNum                     // leaf cmp k
	testText                    // slot sid == s (!= when neg)
	testAnd                     // l and r
	testOr                      // l or r
	testLeaf                    // a number, not a guard: leaf
)

type numLeaf uint8

const (
	leafRemaining numLeaf = iota + 1 // remaining()
	leafCounter                      // counter cid
	leafSlot                         // number slot sid
)

type cmpOp uint8

const (
	cmpEq cmpOp = iota
	cmpNe
	cmpLt
	cmpLe
	cmpGt
	cmpGe
)

var cmpOps = map[string]cmpOp{"==": cmpEq, "!=": cmpNe, "<": cmpLt, "<=": cmpLe, ">": cmpGt, ">=": cmpGe}

// holds evaluates t, a guard. (pick has its own copy of these lines,
// which saves a call per guard.)
func (m *Machine) holds(t *test, c *Config) bool {
	switch t.op {
	case testAnd:
		return m.holds1(t.l, c) && m.holds1(t.r, c)
	case testOr:
		return m.holds1(t.l, c) || m.holds1(t.r, c)
	}
	return m.holds1(t, c)
}

// holds1 evaluates t, a guard that is not an and or an or.
func (m *Machine) holds1(t *test, c *Config) bool {
	switch t.op {
	case testValid:
		return validWaiting(m, c, c.Slot(t.sid).Str)
	case testText:
		return (c.Slot(t.sid).Str == t.s) != t.neg
	}
	var v float64
	switch t.leaf {
	case leafRemaining:
		v = float64(m.remaining(c)) + t.add
	case leafCounter:
		v = float64(c.Counters[t.cid]) + t.add
	default:
		v = c.Slot(t.sid).Num
	}
	switch t.cmp {
	case cmpEq:
		return v == t.k
	case cmpNe:
		return v != t.k
	case cmpLt:
		return v < t.k
	case cmpLe:
		return v <= t.k
	case cmpGt:
		return v > t.k
	}
	return v >= t.k
}

// remaining is remaining(): how many slots of the current flow are empty
// (0 without a flow).
func (m *Machine) remaining(c *Config) int {
	d := c.FlowDepth
	if d == 0 {
		return 0
	}
	fl := &m.flows[c.Flows[(d-1)%MaxFlowDepth]]
	n := 0
	if !fl.far {
		// Every slot is inline: no look beyond them.
		for _, s := range fl.slots {
			if c.slots[s%InlineSlots].Kind == Empty {
				n++
			}
		}
		return n
	}
	for _, s := range fl.slots {
		if c.Slot(s).Kind == Empty {
			n++
		}
	}
	return n
}

// testCompiled is the compiled guard of test t.
func testCompiled(t *test) compiled {
	return compiled{kind: Bool, b: func(e evalEnv) bool { return e.m.holds(t, e.c) }, t: t}
}

// leafOf is the test of a number expression, when it is one a guard
// compares (nil otherwise).
func leafOf(x compiled) *test {
	if x.kind != Number {
		return nil
	}
	if x.t != nil && x.t.op == testLeaf {
		return x.t
	}
	if x.shape == shapeSlot {
		return &test{op: testLeaf, leaf: leafSlot, sid: x.sid}
	}
	return nil
}

// offsetLeaf is the test of l + r or l - r (op), when l is a count (a
// counter, remaining()) and r a literal (nil otherwise):
// `retries + 1 < 3` is then a test too. holds1 adds the literal (its
// negation for -) as arith's closure does, so both give the same; a
// count plus a literal below 2^53 is never too big to be a number, so
// the closure's check for one is not needed.
func offsetLeaf(op byte, l, r compiled) *test {
	if (op != '+' && op != '-') || l.t == nil || l.t.op != testLeaf || l.t.leaf == leafSlot || l.t.add != 0 ||
		r.shape != shapeConst || r.kind != Number || !(math.Abs(r.cv.Num) < 1<<53) {
		return nil
	}
	t := *l.t
	t.add = r.cv.Num
	if op == '-' {
		t.add = -t.add
	}
	return &t
}

// compareTest is the test of l OP r, when l is a number leaf and r a
// literal, or the other way round (nil otherwise).
func compareTest(op string, l, r compiled) *test {
	if l.shape == shapeConst && r.shape != shapeConst {
		l, r = r, l
		switch op {
		case "<":
			op = ">"
		case "<=":
			op = ">="
		case ">":
			op = "<"
		case ">=":
			op = "<="
		}
	}
	lt := leafOf(l)
	if lt == nil || r.shape != shapeConst || r.kind != Number {
		return nil
	}
	t := *lt
	t.op, t.cmp, t.k = testNum, cmpOps[op], r.cv.Num
	return &t
}

// pairTest is the test of l and r (or, when or), when both are leaves.
func pairTest(op testOp, l, r compiled) *test {
	if l.t == nil || r.t == nil || l.t.op >= testAnd || r.t.op >= testAnd {
		return nil
	}
	return &test{op: op, l: l.t, r: r.t}
}

// equalityTest is the test of l == r or l != r, when one side is a
// literal and the other a number leaf or a text slot (nil otherwise).
func equalityTest(op string, l, r compiled) *test {
	if l.kind == Number {
		return compareTest(op, l, r)
	}
	if l.shape == shapeConst && r.shape != shapeConst {
		l, r = r, l
	}
	if l.kind != Text || l.shape != shapeSlot || r.shape != shapeConst {
		return nil
	}
	return &test{op: testText, sid: l.sid, s: r.cv.Str, neg: op == "!="}
}
