package engine

import (
	"math"

	"github.com/expr-lang/expr/ast"
)

// counterUse records, while a machine is built, how its expressions read
// each counter, so that the explorer may treat a counter's large values as
// one (saturation): a counter that is only ever compared with number
// constants (retries >= 3, exhausted(retries)) cannot tell apart the
// values at or above one more than the largest constant, and a machine
// that counts without bound still has finitely many distinguishable
// configurations. Any other read (arithmetic, a slot set to it, a reply
// template, before.NAME or changed() in an invariant, a comparison with
// another variable) keeps the counter exact.
type counterUse struct {
	from  map[CounterID]int32 // the least value from which on the compared reads agree
	exact map[CounterID]bool
	// alike are the identifiers compiled as one side of such a comparison:
	// their read is accounted for already.
	alike map[*ast.IdentifierNode]bool
}

func newCounterUse() *counterUse {
	return &counterUse{from: map[CounterID]int32{}, exact: map[CounterID]bool{}, alike: map[*ast.IdentifierNode]bool{}}
}

// alikeFrom notes that the counter's values at or above v read alike.
func (u *counterUse) alikeFrom(id CounterID, v int32) {
	u.from[id] = max(u.from[id], v)
}

// compared notes a comparison of a counter with a number constant, on
// either side: every integer above the constant's floor compares alike.
func (b *nodeCompiler) compared(n *ast.BinaryNode) {
	u := b.xc.use
	if u == nil {
		return
	}
	for _, s := range [2][2]ast.Node{{n.Left, n.Right}, {n.Right, n.Left}} {
		id, ok := s[0].(*ast.IdentifierNode)
		if !ok {
			continue
		}
		cid, ok := b.xc.m.counterIDs[id.Value]
		if !ok {
			continue
		}
		if k, ok := b.numberConst(s[1]); ok {
			// A constant beyond int32 leaves the counter exact: it counts
			// in an int32 and would never pass it.
			if k > -1 && k < math.MaxInt32-1 {
				u.ctr.alikeFrom(cid, int32(math.Floor(k))+1)
				u.ctr.alike[id] = true
			}
			return
		}
	}
}

// numberConst is the value of a number literal or number parameter.
func (b *nodeCompiler) numberConst(n ast.Node) (float64, bool) {
	switch n := n.(type) {
	case *ast.IntegerNode:
		return float64(n.Value), true
	case *ast.FloatNode:
		return n.Value, true
	case *ast.IdentifierNode:
		if _, slot := b.xc.m.slotIDs[n.Value]; slot {
			return 0, false
		}
		if v, ok := b.xc.m.params[n.Value]; ok && v.Kind == Number {
			return v.Num, true
		}
	}
	return 0, false
}

// readCounter notes a read of counter id by identifier n: exact unless n
// is one side of a comparison with a constant.
func (b *nodeCompiler) readCounter(n *ast.IdentifierNode, id CounterID) {
	if u := b.xc.use; u != nil && !u.ctr.alike[n] {
		u.ctr.exact[id] = true
	}
}

// finishCounters fixes each counter's saturation point. The built-in
// counter_limit invariant compares a counter with its limit (value >
// limit), exhausted() too (value >= limit).
func (b *builder) finishCounters(u *counterUse) {
	m := b.m
	m.alikeFrom = make([]int32, len(m.counters))
	for i := range m.counters {
		id := CounterID(i)
		if l := m.counters[i].limit; l > 0 {
			u.alikeFrom(id, int32(l)+1)
		}
		m.alikeFrom[i] = u.from[id]
		if u.exact[id] {
			m.alikeFrom[i] = -1
		}
	}
}

// CounterAlikeFrom returns the value from which on nothing the machine
// reads of counter id (guards, expressions, replies, slot copies,
// invariants, built-in checks) tells its values apart, and whether there
// is one: false when some expression reads the counter other than by
// comparing it with a constant, so that every value matters. A
// conversation in which the counter holds v >= from behaves, step for
// step, as one in which it holds from; the explorer uses it to merge such
// configurations (saturation). Conditions compiled after Build (a
// simulated user's success) are not accounted for.
func (m *Machine) CounterAlikeFrom(id CounterID) (int32, bool) {
	if int(id) >= len(m.alikeFrom) {
		return 0, false
	}
	v := m.alikeFrom[id]
	return v, v >= 0
}
