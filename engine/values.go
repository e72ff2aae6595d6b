package engine

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/expr-lang/expr/ast"
)

// Value classes. A user's text (an event's text, value or entity) matters
// to a machine only through the expressions that test it: comparisons with
// constants, patterns, validators, lengths, after lower/upper/trim. While
// its expressions compile, the machine records every such test; two texts
// on which every test agrees are in one class, and the explorer may offer
// one or two texts of each class instead of all of them (see
// Machine.ValueKey). Where a test could tell any two texts apart (two user
// texts compared with each other, a test of a text built with +, texts
// ordered), the machine says so (Machine.ValuesDistinct) and the explorer
// keeps every text.

// Sets of slots are 64-bit masks: slots 0 to trackedSlots-1 have a bit
// each, and one bit, moreBit, stands for all the others together. A set of
// slots that may be read (or kept) holds moreBit when any of those slots
// is in it; a set of slots surely written holds it only when all of them
// are (clear: all). Machines with more slots than that (imported bots)
// are analysed more coarsely, never wrongly.
const (
	trackedSlots = 60
	moreBit      = uint64(1) << trackedSlots
)

// branchBit stands for the fork branches' inputs and results among the
// slot bits of a compiled expression.
const branchBit = uint64(1) << (trackedSlots + 1)

// flowBit stands for every slot of every flow (all_filled, remaining,
// ask: next).
const flowBit = uint64(1) << (trackedSlots + 3)

// waitBit stands for the slot waited for (waiting_value, fill): any slot
// that an ask or a flow can make the one waited for.
const waitBit = uint64(1) << (trackedSlots + 2)

// SlotMask returns the bit of slot s in a set of slots that may be read
// (DeadSlots' sets among them): its own, or moreBit.
func SlotMask(s SlotID) uint64 {
	if s < trackedSlots {
		return 1 << s
	}
	return moreBit
}

// mustBit is the bit of slot s in a set of slots surely written: its own,
// or none (writing one of the others does not write them all).
func mustBit(s SlotID) uint64 {
	if s < trackedSlots {
		return 1 << s
	}
	return 0
}

// allSlots is the set of the first n slots.
func allSlots(n int) uint64 {
	if n > trackedSlots {
		return moreBit<<1 - 1
	}
	return uint64(1)<<n - 1
}

type substrTest struct {
	op, lit string
}

// assign is a slot (or branchBit) set from an expression that reads slots
// src, cat when it builds text with +.
type assign struct {
	dst, src uint64
	cat      bool
}

// valueUse is what the compiled expressions test of user texts.
type valueUse struct {
	lits       map[string]bool
	res        map[string]*regexp.Regexp
	substr     map[substrTest]bool
	transforms map[string]bool
	depth      int // the deepest nesting of lower/upper/trim
	length     bool
	// predSlots: slots whose texts some test reads; assigns: how texts
	// move between slots.
	predSlots uint64
	assigns   []assign
	// reads: the slots any expression but a reply template reads; cur,
	// those the expression being compiled reads; sink, if set, gets them
	// too (invReads while invariants compile, extReads while external
	// actions' stubs do).
	reads, cur         uint64
	numbers            bool // number(x) of a user's text
	sink               *uint64
	invReads, extReads uint64
	distinct           string
	// ctr: how counters are read (saturate.go).
	ctr *counterUse
}

func newValueUse() *valueUse {
	return &valueUse{ctr: newCounterUse(), lits: map[string]bool{"": true, "true": true, "false": true, "yes": true, "no": true},
		res: map[string]*regexp.Regexp{}, substr: map[substrTest]bool{}, transforms: map[string]bool{}}
}

func (u *valueUse) distinguish(x Expr, why string) {
	if u != nil && u.distinct == "" {
		src := x.Src
		if len(src) > 60 {
			src = src[:57] + "..."
		}
		u.distinct = fmt.Sprintf("%s (%s at %s)", why, src, x.Pos)
	}
}

// test notes that an expression tests text c.
func (b *nodeCompiler) test(c compiled) {
	u := b.xc.use
	if u == nil {
		return
	}
	if c.cat {
		u.distinguish(b.src, "a test of a text built with + from a user's text")
	}
	u.predSlots |= c.slots
}

func (b *nodeCompiler) literal(s string) {
	if u := b.xc.use; u != nil {
		u.lits[s] = true
	}
}

// valueClasses is the finished record the machine keeps.
type valueClasses struct {
	lits       []string
	res        []*regexp.Regexp
	substr     []substrTest
	transforms []func(string) string
	depth      int
	length     bool
	numbers    bool // a number slot can be filled from a text: numbers are told apart
	validators []func(string) bool
	distinct   string
	// hidden: slots nothing can observe (see Machine.Unobservable).
	hidden uint64
	// deadAt: by state, the slots every event there overwrites before
	// anything reads them (see Machine.DeadSlots).
	deadAt []uint64
}

// finishValues closes the record over the machine's names (a user's text
// equal to a state, slot or intent name can be compared with waiting,
// state or event.intent) and follows texts built with + through the slots
// they are set into.
func (b *builder) finishValues(u *valueUse) {
	m := b.m
	vc := &valueClasses{distinct: u.distinct, depth: u.depth, length: u.length, numbers: u.numbers}
	for _, s := range m.states {
		u.lits[s.path] = true
		u.lits[s.name] = true
	}
	for _, s := range m.slots {
		u.lits[s.name] = true
		u.lits[s.prompt] = true
	}
	for _, xs := range [][]string{m.intents, m.entities} {
		for _, x := range xs {
			u.lits[x] = true
		}
	}
	for _, f := range m.flows {
		u.lits[f.name] = true
	}
	for _, t := range m.timers {
		u.lits[t.name] = true
	}
	for _, x := range m.exts {
		u.lits[x.name] = true
	}
	for _, v := range m.params {
		u.lits[v.String()] = true
	}
	for k := UserEvent; k <= FailedEvent; k++ {
		u.lits[k.String()] = true
	}
	// The slots that can be waited for.
	var wait uint64
	for _, f := range m.flows {
		for _, s := range f.slots {
			wait |= SlotMask(s)
		}
	}
	for _, a := range m.acts {
		if a.kind == ActAsk && a.text != "next" && a.text != "none" {
			wait |= SlotMask(a.slot)
		}
	}
	var flows uint64
	for _, f := range m.flows {
		for _, s := range f.slots {
			flows |= SlotMask(s)
		}
	}
	resolve := func(x uint64) uint64 {
		if x&waitBit != 0 {
			x = x&^waitBit | wait
		}
		if x&flowBit != 0 {
			x = x&^flowBit | flows
		}
		return x
	}
	for i := range u.assigns {
		u.assigns[i].dst, u.assigns[i].src = resolve(u.assigns[i].dst), resolve(u.assigns[i].src)
	}
	u.predSlots = resolve(u.predSlots)
	// fixed: slots written other than by set and clear (a fill, an
	// entity, a fork) or read other than by an expression.
	fixed := wait
	for _, s := range m.entSlots {
		if s != NoID {
			fixed |= SlotMask(s)
		}
	}
	// A fork reads its inputs slot and writes the merged contracts into
	// its into slot, neither through an expression.
	for _, s := range m.states {
		if f := s.fork; f != nil {
			for _, x := range []SlotID{f.inputs, f.into} {
				if x != NoID {
					fixed |= SlotMask(x)
				}
			}
		}
	}
	vc.hidden = allSlots(len(m.slots)) &^ (fixed | resolve(u.reads))
	b.deadSlots(vc, fixed|resolve(u.invReads), resolve(u.extReads), resolve)
	var cat uint64
	for changed := true; changed; {
		changed = false
		for _, a := range u.assigns {
			if (a.cat || a.src&cat != 0) && cat&a.dst != a.dst {
				cat |= a.dst
				changed = true
			}
		}
	}
	if vc.distinct == "" && cat&u.predSlots != 0 {
		vc.distinct = "a slot that holds a text built with + from a user's text is tested"
	}
	for s := range u.lits {
		vc.lits = append(vc.lits, s)
	}
	sort.Strings(vc.lits)
	var pats []string
	for p := range u.res {
		pats = append(pats, p)
	}
	sort.Strings(pats)
	for _, p := range pats {
		vc.res = append(vc.res, u.res[p])
	}
	for t := range u.substr {
		vc.substr = append(vc.substr, t)
	}
	sort.Slice(vc.substr, func(i, j int) bool {
		if vc.substr[i].op != vc.substr[j].op {
			return vc.substr[i].op < vc.substr[j].op
		}
		return vc.substr[i].lit < vc.substr[j].lit
	})
	for _, name := range []string{"lower", "trim", "upper"} {
		if u.transforms[name] {
			vc.transforms = append(vc.transforms, map[string]func(string) string{"lower": strings.ToLower, "upper": strings.ToUpper, "trim": strings.TrimSpace}[name])
		}
	}
	for _, name := range []string{"email", "number", "phone", "text", "url"} {
		vc.validators = append(vc.validators, builtinValidatorFuncs[name])
	}
	for _, v := range m.validators {
		vc.validators = append(vc.validators, v.check)
	}
	// A text filled into a number slot becomes its number, which
	// arithmetic and ordering can tell from any other.
	for _, f := range m.flows {
		for _, s := range f.slots {
			if m.slots[s].typ == TypeNumber {
				vc.numbers = true
			}
		}
	}
	for _, a := range m.acts {
		if a.kind == ActAsk && a.text != "next" && a.text != "none" && m.slots[a.slot].typ == TypeNumber {
			vc.numbers = true
		}
	}
	for _, s := range m.entSlots {
		if s != NoID && m.slots[s].typ == TypeNumber {
			vc.numbers = true
		}
	}
	m.values = vc
}

// Unobservable reports whether nothing can tell slot s's values apart: no
// guard, action or invariant expression reads it (a reply template may:
// the reply is output, not state), it is never the slot waited for (which
// a fill writes and slot_overwrite then checks) and no entity fills it. It
// is only ever written by set and clear, and what it holds cannot change
// what happens next.
func (m *Machine) Unobservable(s SlotID) bool {
	return m.values != nil && m.values.hidden&SlotMask(s) != 0
}

// DeadSlots returns the slots (bit SlotMask(i): slot i) whose values cannot matter
// in a configuration resting in leaf state s with no fork running: every
// event that can arrive there (a user act, a timer, an action's result, or
// none, when the eventless transitions are tried again) either changes
// nothing or overwrites them with set, clear or reset_context before
// anything reads them, and no invariant reads them. LangGraph-style
// machines that reset their per-message fields at the start of each pass
// have many.
func (m *Machine) DeadSlots(s StateID) uint64 {
	if m.values == nil || m.values.deadAt == nil {
		return 0
	}
	return m.values.deadAt[s]
}

// ValuesDistinct returns why every user text must be told apart from every
// other (an expression that could), or "" when texts fall into classes.
func (m *Machine) ValuesDistinct() string {
	if m.values == nil {
		return "the machine was not built with value classes"
	}
	return m.values.distinct
}

// ValueKey appends to b the class of user text s: the outcome of every test
// the machine's expressions can make of it. Two texts with the same key
// lead every guard, action and invariant the same way, except where they
// are compared with each other (a slot refilled with another text of its
// class), which one text per class cannot show: the explorer offers two.
func (m *Machine) ValueKey(s string, b []byte) []byte {
	vc := m.values
	texts := []string{s}
	lo := 0
	for d := 0; d < vc.depth; d++ {
		hi := len(texts)
		for _, t := range texts[lo:hi] {
			for _, f := range vc.transforms {
				texts = append(texts, f(t))
			}
		}
		lo = hi
	}
	// One byte per test keeps the layout of every key the same up to the
	// first test two texts differ on.
	bit := func(ok bool) {
		if ok {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	for _, t := range texts {
		for _, l := range vc.lits {
			bit(t == l)
		}
		for _, re := range vc.res {
			bit(re.MatchString(t))
		}
		for _, st := range vc.substr {
			switch st.op {
			case "contains":
				bit(strings.Contains(t, st.lit))
			case "startsWith":
				bit(strings.HasPrefix(t, st.lit))
			case "endsWith":
				bit(strings.HasSuffix(t, st.lit))
			case "lcontains": // the literal on the left
				bit(strings.Contains(st.lit, t))
			case "lstartsWith":
				bit(strings.HasPrefix(st.lit, t))
			case "lendsWith":
				bit(strings.HasSuffix(st.lit, t))
			}
		}
		for _, v := range vc.validators {
			bit(v(t))
		}
		num, ok := parseNumber(t)
		bit(ok)
		if vc.numbers && ok {
			b = le64(b, math.Float64bits(num))
		}
		if vc.length {
			b = le64(b, uint64(len(t)))
		}
	}
	return b
}

func le64(b []byte, x uint64) []byte {
	return append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24), byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56))
}

// substr records a contains, startsWith or endsWith test.
func (b *nodeCompiler) substr(n *ast.BinaryNode, l, r compiled) {
	u := b.xc.use
	if u == nil {
		return
	}
	b.test(l)
	b.test(r)
	switch {
	case !l.val && !l.cat && !r.val && !r.cat:
	case isStr(n.Right):
		u.substr[substrTest{op: n.Operator, lit: n.Right.(*ast.StringNode).Value}] = true
	case isStr(n.Left):
		u.substr[substrTest{op: "l" + n.Operator, lit: n.Left.(*ast.StringNode).Value}] = true
	default:
		u.distinguish(b.src, "a user text searched for in another text")
	}
}

func isStr(n ast.Node) bool {
	_, ok := n.(*ast.StringNode)
	return ok
}

// read notes that an expression reads slots bits.
func (b *nodeCompiler) read(bits uint64) {
	if u := b.xc.use; u != nil && !b.xc.inTemplate {
		u.reads |= bits
		u.cur |= bits
		if u.sink != nil {
			*u.sink |= bits
		}
	}
}

// deadSlots fills vc.deadAt: for each state, the slots outside keep that
// every transition an event can take there writes (set, clear,
// reset_context) before its guard, its exits, its own actions or its
// entries read them. A machine with overrides (which may take any
// transition's place) or a path entering or leaving a fork gets none.
func (b *builder) deadSlots(vc *valueClasses, keep, extReads uint64, resolve func(uint64) uint64) {
	m := b.m
	if len(m.overrides) > 0 || b.failed() {
		return
	}
	all := allSlots(len(m.slots))
	cand := all &^ keep
	if cand == 0 {
		return
	}
	var persist uint64
	for i, s := range m.slots {
		if s.persist {
			persist |= SlotMask(SlotID(i))
		}
	}
	// act returns what action a reads and what it surely writes.
	act := func(ai uint32) (reads, writes uint64) {
		a := &m.acts[ai]
		if a.hasX {
			reads = resolve(a.x.reads)
		}
		switch a.kind {
		case ActSet:
			writes = mustBit(a.slot)
		case ActClear:
			switch {
			case a.all:
				writes = all
			case a.text == "waiting":
			default:
				writes = mustBit(a.slot)
			}
		case ActResetContext:
			writes = all &^ persist
		case ActAsk:
			if a.text == "next" {
				reads |= resolve(flowBit)
			}
		case ActInvoke:
			reads |= extReads
		case ActRaise, ActSend, ActIf, ActForeach, ActLog, ActAssign, ActScript, ActBlock:
			// Executable content reads through closures (and a raised
			// event's transitions run in the same step): every slot may
			// be read.
			reads = all
		}
		return reads, writes
	}
	// path returns the slots transition t, taken from leaf s, writes
	// before reading.
	path := func(s StateID, t *transition) uint64 {
		var read, written uint64
		run := func(acts []uint32) {
			for _, ai := range acts {
				r, w := act(ai)
				read |= r &^ written
				written |= w &^ read
			}
		}
		if t.target != NoID {
			for x := s; x != t.domain && x != NoID; x = m.states[x].parent {
				if m.states[x].fork != nil {
					return 0
				}
				run(m.states[x].exit)
			}
		}
		run(t.actions)
		if t.target != NoID {
			for _, e := range t.enter {
				if m.states[e].fork != nil {
					return 0
				}
				run(m.states[e].entry)
			}
		}
		return written
	}
	ni, nt, ne := len(m.intents), len(m.timers), len(m.exts)
	vc.deadAt = make([]uint64, len(m.states))
	for s := range m.states {
		st := StateID(s)
		if len(m.states[s].children) > 0 || m.states[s].forkRoot != NoID {
			continue
		}
		dead := cand
		lists := [][][]TransID{m.userTab[s*ni : (s+1)*ni], m.timerTab[s*nt : (s+1)*nt],
			m.doneTab[s*ne : (s+1)*ne], m.failTab[s*ne : (s+1)*ne], {m.alwaysTab[s]}}
		for _, ls := range lists {
			for _, l := range ls {
				for _, t := range l {
					tr := &m.trans[t]
					dead &^= resolve(tr.reads)
					dead &= path(st, tr)
				}
			}
		}
		vc.deadAt[s] = dead
	}
}
