package scxml

import (
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/wordhash"
)

// ECMAScript is the recommendation's ECMAScript data model (goja) for
// machines that run on the engine (engine.Definition.DataModel): it
// compiles their expressions once, and NewData makes one conversation's
// heap, which lives beside its engine.Config: bounded in time and
// memory, Date on the virtual clock, Math.random seeded.
type ECMAScript struct {
	p *ecmaProgram
	// tags names the element at each position of executable content,
	// for the data of the error.execution events it raises.
	tags map[engine.Pos]string
	// pure marks the conditions and values that cannot change the data
	// while it is plain (pureSource); event: some expression may read
	// _event, so that steps bind it.
	pure  []bool
	event bool
	// writes holds, for each expression, the globals it may assign
	// (bareWrites), or ok false when it may make or delete others.
	writes []globalWrites
	// fast holds each expression's Go form (fast.go); unsafe: some
	// expression may change what it takes as given (fastSafe), so none
	// runs in Go. declares names the variable of a script that only
	// declares one (var x;, as each <data> is declared); binds marks the
	// other scripts that may declare a global (var, function), which no
	// delete removes.
	fast     []fastCode
	unsafe   bool
	declares []string
	binds    []bool
}

type globalWrites struct {
	names []string
	ok    bool
	// wild: the expression may make an object that Restore would not
	// (an accessor, a frozen or sealed object: tameWords).
	wild bool
}

// NewECMAScript returns a data model with nothing compiled yet.
func NewECMAScript() *ECMAScript {
	return &ECMAScript{p: &ecmaProgram{}, tags: map[engine.Pos]string{}}
}

// Fresh returns a data model of the same chart with nothing compiled
// yet: another build of the chart (a mutant) compiles into it, so that
// it never writes what conversations of machines built before read, and
// each can run on a goroutine of its own.
func (e *ECMAScript) Fresh() engine.DataModel {
	return &ECMAScript{p: &ecmaProgram{}, tags: e.tags}
}

var codeKinds = [...]ExprKind{
	engine.CondCode:     CondExpr,
	engine.ValueCode:    ValueExpr,
	engine.LocationCode: LocationExpr,
	engine.ScriptCode:   ScriptExpr,
}

// Compile compiles x; an expression that does not compile is returned
// with its error, which the engine raises as error.execution when the
// expression is evaluated.
func (e *ECMAScript) Compile(kind engine.CodeKind, x engine.Expr) (engine.Code, error) {
	i := e.p.add(ExprDef{Src: x.Src, Pos: Pos(x.Pos), Kind: codeKinds[kind]})
	for len(e.pure) <= int(i) {
		e.pure = append(e.pure, false)
	}
	e.pure[i] = (kind == engine.CondCode || kind == engine.ValueCode) && pureSource(x.Src)
	for len(e.writes) <= int(i) {
		e.writes = append(e.writes, globalWrites{})
	}
	names, ok := bareWrites(x.Src)
	e.writes[i] = globalWrites{names: names, ok: ok, wild: wild(x.Src)}
	e.event = e.event || readsEvent(x.Src)
	for len(e.fast) <= int(i) {
		e.fast = append(e.fast, fastCode{})
		e.declares = append(e.declares, "")
		e.binds = append(e.binds, false)
	}
	if e.p.errs[i] == nil {
		e.fast[i] = compileFast(codeKinds[kind], x.Src)
	}
	e.unsafe = e.unsafe || !fastSafe(x.Src)
	if kind == engine.ScriptCode {
		if m := declareRE.FindStringSubmatch(x.Src); m != nil {
			e.declares[i] = m[1]
		} else {
			e.binds[i] = bindsRE.MatchString(x.Src)
		}
	}
	return engine.Code(i), e.p.errs[i]
}

// declareRE matches a script that only declares a variable.
var declareRE = regexp.MustCompile(`^\s*var\s+([A-Za-z_$][A-Za-z0-9_$]*)\s*;?\s*$`)

// bindsRE finds a declaration that may bind a global for good (nested
// ones too: it errs on the safe side).
var bindsRE = regexp.MustCompile(`\b(var|function)\b`)

// NewData returns a fresh heap for one conversation of m (built with this
// data model), its _sessionid id.
func (e *ECMAScript) NewData(m *engine.Machine, id string) engine.Data {
	x := &ecmaData{m: m, id: id, dm: e, tags: e.tags}
	now := func() int64 {
		if x.cur == nil {
			return 0
		}
		return x.cur.Now
	}
	in := func(name string) bool {
		s, ok := m.StateID(name)
		return ok && x.cur != nil && m.IsActive(x.cur, s)
	}
	x.d = e.p.newEcma(now, id, m.Name(), in)
	rt := x.d.rt
	x.clean = !e.p.lexical
	inFn, _ := rt.GlobalObject().Get("In").(*goja.Object)
	x.fe.in = func(name string) (bool, bool) {
		// The chart may have made In something else (a <data id="In">).
		if rt.GlobalObject().Get("In") != inFn {
			return false, false
		}
		return in(name), true
	}
	x.evGo = plainValue{kind: plainObject, keys: eventKeys, items: x.evItems[:]}
	x.lits = map[string]litView{}
	x.fe.event = x.eventView
	x.walk.protos[0] = rt.Get("Object").ToObject(rt).Get("prototype").ToObject(rt)
	x.walk.protos[1] = rt.Get("Array").ToObject(rt).Get("prototype").ToObject(rt)
	return x
}

// ecmaData is one conversation's heap. cur is the configuration the step
// being taken works on (for In() and Date); ev the event _event was last
// bound to.
type ecmaData struct {
	id    string
	tags  map[engine.Pos]string
	d     *ecma
	dm    *ECMAScript
	m     *engine.Machine
	cur   *engine.Config
	ev    engine.Event
	bound bool
	// payload is the data of the event being taken (Take), key its
	// Event.Payload.
	payload goja.Value
	key     uint32
	// changed: something may have changed the data since it was last
	// saved or restored (an explorer then restores it before its next
	// step); plain: the heap holds plain data (Save or Restore said so),
	// so a pure condition cannot run a script's code (a getter). gen
	// counts the changes.
	changed, plain bool
	gen            uint64
	// The per-variable fingerprints of the heap, names and hashes, as of
	// change gen hashGen (see hashVars).
	hashNames []string
	hashes    []uint64
	hashGen   uint64
	hashOK    bool
	walk      hashWalk
	// listed: hashNames lists the heap's globals (the last hashVars
	// listed them, and nothing since may have made or deleted one).
	// tame: the heap's objects are as Restore makes them (extensible,
	// with writable data properties): Save's check found them so, and
	// nothing since may have made them otherwise (see wild).
	listed, tame bool
	// The mirror (fast.go): while mirror is true, mir is the data, which
	// expressions of the subset read and write in Go, and goja's heap
	// holds it only when stale is false (else gojaIs, when not nil, is
	// what it holds). clean: no global goja could not delete was made
	// but the declared ones (fixed), so that the heap can always be put
	// back to a saved value that has fixed's.
	mir           *savedData
	mirror, stale bool
	gojaIs        *savedData
	clean         bool
	fixed         []string
	fe            fastEnv
	// _event: pend, goja's is not yet the event bound last, which
	// pendSE and the literal pendLit (its data, when not "") or its
	// payload describe (setEvent); evGo is that event for the subset
	// (its items evItems), made when the subset first reads it, when
	// evOK; lits holds the data of the literals seen, and whether
	// the subset may read it (sameText).
	pend        bool
	pendSE      Event
	pendLit     string
	pendPayload bool
	evState     uint8
	evGo        plainValue
	evItems     [7]plainValue
	evOK        bool
	lits        map[string]litView
}

// evState: whether the subset may read _event (eventView).
const (
	evNone   = iota // no: no event bound, or goja has run since
	evUnseen        // the view of the event bound is not made yet
	evSeen          // made: evOK says whether the subset may read it
)

type litView struct {
	p  plainValue
	ok bool
}

// change notes that the data may have changed.
func (x *ecmaData) change() {
	x.changed, x.plain = true, false
	x.gen++
	x.gojaIs = nil // goja's heap is no longer the value it was
}

// evaluated notes that code ran and changed the data: unless it keeps
// the globals there are, they must be listed again.
func (x *ecmaData) evaluated(codes ...engine.Code) {
	x.change()
	for _, c := range codes {
		if w := x.dm.writes[c]; !w.ok || w.wild {
			x.tame = false
		}
		if n := x.dm.declares[c]; n != "" && !slices.Contains(x.fixed, n) {
			x.fixed = append(x.fixed, n)
		}
		if x.dm.binds[c] {
			x.clean = false
		}
	}
	if !x.listed {
		return
	}
	// Only a heap of plain data is known to hold no function that a
	// script would call.
	if !x.walk.plain {
		x.listed = false
		return
	}
	for _, c := range codes {
		w := x.dm.writes[c]
		if !w.ok {
			x.listed = false
			return
		}
		for _, n := range w.names {
			if !slices.Contains(x.hashNames, n) && !x.d.baseline[n] {
				x.listed = false
				return
			}
		}
	}
}

// Changed reports whether the data may have changed since it was last
// saved or restored (an explorer's changer).
func (x *ecmaData) Changed() bool { return x.changed }

// heldName is the global that holds the data of pending events, so that
// it is saved and restored with the rest of the heap.
const heldName = "__simctl_held"

func (x *ecmaData) held(create bool) *goja.Object {
	g := x.d.rt.GlobalObject()
	if o, ok := g.Get(heldName).(*goja.Object); ok {
		return o
	}
	if !create {
		return nil
	}
	o := x.d.rt.NewObject()
	_ = g.DefineDataProperty(heldName, o, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	x.listed = false // a new global
	return o
}

func (x *ecmaData) Hold(code engine.Code, key uint32, c *engine.Config, ev *engine.Event) error {
	x.bind(c, ev)
	if err := x.toGoja(); err != nil {
		return err
	}
	x.evaluated(code)
	v, err := x.d.run(Expr(code))
	if err != nil {
		return err
	}
	return x.held(true).Set(strconv.FormatUint(uint64(key), 10), v)
}

// HoldError keeps the data of an error.execution event: the element
// (its tag, from the chart), where it is and the reason.
func (x *ecmaData) HoldError(key uint32, pos engine.Pos, err error) {
	_ = x.materialize() // clean: it cannot fail
	x.change()
	o := x.d.rt.NewObject()
	_ = o.Set("tagname", x.tags[pos])
	_ = o.Set("line", pos.Line)
	_ = o.Set("column", pos.Col)
	_ = o.Set("reason", err.Error())
	_ = x.held(true).Set(strconv.FormatUint(uint64(key), 10), o)
}

func (x *ecmaData) Take(key uint32) {
	x.payload, x.key = goja.Undefined(), key
	if x.mirror && !slices.Contains(x.mir.names, heldName) {
		return // nothing held
	}
	_ = x.materialize()
	if o := x.held(false); o != nil {
		x.change()
		k := strconv.FormatUint(uint64(key), 10)
		if v := o.Get(k); v != nil {
			x.payload = v
		}
		x.Drop(key)
	}
}

func (x *ecmaData) Drop(key uint32) {
	if x.mirror && !slices.Contains(x.mir.names, heldName) {
		return
	}
	_ = x.materialize()
	o := x.held(false)
	if o == nil {
		return
	}
	x.change()
	_ = o.Delete(strconv.FormatUint(uint64(key), 10))
	if len(o.Keys()) == 0 {
		// Nothing pending: the heap is as if nothing had been held.
		_ = x.d.rt.GlobalObject().Delete(heldName)
		x.listed = false
	}
}

// bind makes c the configuration In() reads and binds _event to ev, when
// it is another event than the one bound (events the engine makes for
// itself at the start carry no intent and leave _event as it is).
func (x *ecmaData) bind(c *engine.Config, ev *engine.Event) {
	x.cur = c
	if !x.dm.event {
		return // no expression reads _event
	}
	done := ev != nil && ev.Source == engine.SourceInternal && ev.Intent == engine.NoID
	if ev == nil || (ev.Kind == engine.UserEvent && ev.Intent == engine.NoID && !done) || (x.bound && *ev == x.ev) {
		return
	}
	x.ev, x.bound = *ev, true
	se := Event{Type: "external"}
	switch ev.Source {
	case engine.SourceInternal:
		se.Type = "internal"
	case engine.SourcePlatform:
		se.Type = "platform"
	case engine.SourceSend:
		se.SendID = x.m.SendID(ev.Timer)
		se.Origin, se.OriginType = "#_scxml_"+x.id, SCXMLProcessor
	}
	switch {
	case done:
		path := x.m.StateName(ev.Done)
		se.Name = "done.state." + path[strings.LastIndexByte(path, '.')+1:]
	case ev.Kind == engine.UserEvent:
		se.Name = x.m.Intents()[ev.Intent]
		if ev.Text != "" && (se.Name == OtherEvent || strings.HasPrefix(ev.Text, se.Name+".")) {
			// A name the chart does not know (Machine.Event).
			se.Name = ev.Text
		}
	case ev.Kind == engine.TimerEvent:
		se.Name = x.m.TimerName(ev.Timer)
	case ev.Kind == engine.DoneEvent || ev.Kind == engine.FailedEvent:
		se.Name = ev.Kind.String() + "." + x.m.ExtName(ev.Ext)
	}
	payload := ev.Payload != 0 && ev.Payload == x.key
	if payload {
		se.Data = x.payload
		if o, ok := x.payload.(*goja.Object); ok && se.Name == OtherEvent {
			// A sent event whose computed name the chart does not
			// know: its name is held with its data.
			if n := o.Get(otherName); n != nil {
				se.Name, se.Data = n.String(), o.Get("data")
			}
		}
	}
	lit := ""
	if !payload && ev.Value != "" {
		lit = ev.Value
	}
	x.pend, x.pendSE, x.pendLit, x.pendPayload = true, se, lit, payload
	x.evState = evUnseen
}

// eventView returns _event for the subset (fastEnv.event), or nil when
// the subset may not read it: no event is pending, goja has run since it
// was bound, or view declines it.
func (x *ecmaData) eventView() *plainValue {
	switch x.evState {
	case evUnseen:
		x.view(&x.pendSE, x.pendPayload, x.pendLit)
		x.evState = evNone
		if x.evOK {
			x.evState = evSeen
		}
		fallthrough
	case evSeen:
		if x.evOK {
			return &x.evGo
		}
	}
	return nil
}

// view makes x.evGo _event as SetEvent(se) would make it in goja, for
// the subset to read, with the data of literal lit (when not "") or, for
// a payload, undefined; evOK is false when it cannot: a payload that is
// not undefined, a text goja would not give back as it is.
func (x *ecmaData) view(se *Event, payload bool, lit string) {
	x.evOK = false
	if d, _ := se.Data.(goja.Value); x.dm.unsafe || payload && (d == nil || !goja.IsUndefined(d)) {
		return
	}
	it := &x.evItems
	it[0] = plainValue{kind: plainString, str: se.Name}
	it[1] = plainValue{kind: plainString, str: se.Type}
	for i, f := range [...]string{se.SendID, se.Origin, se.OriginType, se.InvokeID} {
		it[2+i] = plainValue{}
		if f != "" {
			it[2+i] = plainValue{kind: plainString, str: f}
		}
	}
	it[6] = plainValue{}
	if lit != "" {
		v, ok := x.lits[lit]
		if !ok {
			v.p = capture(x.d.literal(lit))
			v.ok = sameText(&v.p)
			if len(x.lits) >= maxLits {
				clear(x.lits)
			}
			x.lits[lit] = v
		}
		if !v.ok {
			return
		}
		it[6] = v.p
	}
	for i := range 6 {
		if !sameText(&it[i]) {
			return
		}
	}
	x.evOK = true
}

// maxLits bounds the events' data that ecmaData.lits keeps.
const maxLits = 1024

// eventKeys are the properties of _event, as SetEvent makes them.
var eventKeys = []string{"name", "type", "sendid", "origin", "origintype", "invokeid", "data"}

// sameText reports whether the texts of p are what goja holds: a Go
// string goja would not give back as it is (not UTF-8, or a lone
// surrogate it turned into U+FFFD) is not.
func sameText(p *plainValue) bool {
	if p.kind == plainString && (!utf8.ValidString(p.str) || strings.ContainsRune(p.str, utf8.RuneError)) {
		return false
	}
	for _, k := range p.keys {
		if !utf8.ValidString(k) || strings.ContainsRune(k, utf8.RuneError) {
			return false
		}
	}
	for i := range p.items {
		if !sameText(&p.items[i]) {
			return false
		}
	}
	return true
}

// setEvent binds _event in goja to the event bound last, before goja
// evaluates an expression: bind leaves it pending, as most steps
// evaluate nothing in goja. goja may then write its copy of the data,
// so the subset stops reading _event until the next event is bound.
func (x *ecmaData) setEvent() {
	x.evState = evNone
	if !x.pend {
		return
	}
	x.pend = false
	se := x.pendSE
	if x.pendLit != "" {
		se.Data = x.d.literal(x.pendLit)
	}
	x.d.SetEvent(se)
	x.pendSE = Event{}
}

// toGoja readies goja's heap and _event for goja to evaluate an
// expression.
func (x *ecmaData) toGoja() error {
	if err := x.materialize(); err != nil {
		return err
	}
	x.setEvent()
	return nil
}

// reads notes that expression code runs: unless it is pure and the heap
// plain or tame (no accessor whose code a read would run), it may change
// the data.
func (x *ecmaData) reads(code engine.Code) {
	if !x.dm.pure[code] || !x.plain && !x.tame {
		x.evaluated(code)
	}
}

func (x *ecmaData) Cond(code engine.Code, c *engine.Config, ev *engine.Event) (bool, error) {
	x.bind(c, ev)
	if x.mirror {
		if f := &x.dm.fast[code]; f.ok {
			if v, ok := x.env().eval(f.expr); ok {
				return truthy(&v.plainValue), nil
			}
		}
	}
	if err := x.toGoja(); err != nil {
		return false, err
	}
	x.reads(code)
	return x.d.Cond(Expr(code))
}

func (x *ecmaData) Value(code engine.Code, c *engine.Config, ev *engine.Event) (engine.Value, error) {
	x.bind(c, ev)
	if x.mirror {
		if f := &x.dm.fast[code]; f.ok {
			if v, ok := x.env().eval(f.expr); ok {
				switch v.kind {
				case plainUndefined, plainNull:
					return engine.Value{}, nil
				case plainNumber:
					return engine.NumberValue(v.num), nil
				case plainString:
					return engine.TextValue(v.str), nil
				case plainTrue, plainFalse:
					return engine.BoolValue(v.kind == plainTrue), nil
				}
			}
		}
	}
	if err := x.toGoja(); err != nil {
		return engine.Value{}, err
	}
	x.reads(code)
	v, err := x.d.run(Expr(code))
	if err != nil {
		return engine.Value{}, err
	}
	return engineValue(v), nil
}

// engineValue converts a script value: numbers, booleans and strings as
// themselves, anything else as its JSON text (or its string form).
func engineValue(v goja.Value) engine.Value {
	switch {
	case v == nil || goja.IsUndefined(v) || goja.IsNull(v):
		return engine.Value{}
	case goja.IsNumber(v):
		return engine.NumberValue(v.ToFloat())
	case goja.IsString(v):
		return engine.TextValue(v.String())
	}
	if _, obj := v.(*goja.Object); !obj {
		return engine.BoolValue(v.ToBoolean())
	}
	var b strings.Builder
	render(&b, v)
	return engine.TextValue(b.String())
}

func (x *ecmaData) Assign(loc, code engine.Code, c *engine.Config, ev *engine.Event) error {
	x.bind(c, ev)
	if x.mirror {
		if fl, fc := &x.dm.fast[loc], &x.dm.fast[code]; fl.ok && fc.ok {
			env := x.env()
			if v, ok := env.eval(fc.expr); ok && env.assign(fl.path, v) {
				x.commit(env)
				return nil
			}
		}
	}
	if err := x.toGoja(); err != nil {
		return err
	}
	x.evaluated(loc, code)
	v, err := x.d.Value(Expr(code))
	if err != nil {
		return err
	}
	return x.d.Assign(Expr(loc), v, false)
}

func (x *ecmaData) Script(code engine.Code, c *engine.Config, ev *engine.Event) error {
	x.bind(c, ev)
	if x.mirror {
		if f := &x.dm.fast[code]; f.ok {
			env := x.env()
			ok := true
			for _, st := range f.stmts {
				if ok = env.exec(st); !ok {
					break
				}
			}
			if ok {
				x.commit(env)
				return nil
			}
		}
	}
	if err := x.toGoja(); err != nil {
		return err
	}
	x.evaluated(code)
	return x.d.Script(Expr(code))
}

// Foreach iterates over a shallow copy of the array, as the
// recommendation says; item and index may be new variables.
func (x *ecmaData) Foreach(arr, item, index engine.Code, c *engine.Config, ev *engine.Event, body func() error) error {
	x.bind(c, ev)
	if err := x.toGoja(); err != nil {
		return err
	}
	x.change()
	x.listed, x.tame = false, false // item and index may be new globals
	items, err := x.d.Iterate(Expr(arr))
	if err != nil {
		return err
	}
	for i, it := range items {
		if err := x.d.Assign(Expr(item), it, true); err != nil {
			return err
		}
		if index != engine.NoCode {
			if err := x.d.Assign(Expr(index), i, true); err != nil {
				return err
			}
		}
		if err := body(); err != nil {
			return err
		}
	}
	return nil
}

// Save copies the data (ecma.Save) with each variable's fingerprint, so
// that a later Restore puts back only the variables that differ.
func (x *ecmaData) Save() (any, bool) {
	if x.mirror {
		x.changed = false
		return x.mir, true
	}
	if x.d.p.lexical {
		return nil, false
	}
	x.hashVars()
	if !x.walk.plain {
		// An object two variables share, which copies would part.
		return nil, false
	}
	// The fingerprints' walk found the heap plain; in a tame one, that
	// is all plainSource checks.
	s, ok := x.d.save(slices.Clone(x.hashNames), !x.tame)
	if !ok {
		return nil, false
	}
	s.hashes = slices.Clone(x.hashes)
	x.changed, x.plain, x.tame = false, true, true
	x.gojaIs = s
	if x.fastOn(s) {
		x.mir, x.mirror, x.stale = s, true, false
	}
	return s, true
}

// fastOn reports whether the data may be s, a saved value, as a mirror
// (fast.go): the chart lets its expressions run in Go, and goja's heap
// can be put back to s whenever one does not.
func (x *ecmaData) fastOn(s *savedData) bool {
	if x.dm.unsafe || !x.clean || s.hashes == nil {
		return false
	}
	for _, n := range x.fixed {
		if !slices.Contains(s.names, n) {
			return false
		}
	}
	return true
}

// env returns the evaluator of the subset on the mirror.
func (x *ecmaData) env() *fastEnv {
	e := &x.fe
	e.names, e.vals, e.owned, e.touched = x.mir.names, x.mir.vals, false, e.touched[:0]
	clear(e.fresh)
	e.fresh = e.fresh[:0]
	return e
}

// commit makes what env wrote the mirror: a new savedData, as saved
// values are kept by the explorer and never written.
func (x *ecmaData) commit(env *fastEnv) {
	x.changed = true
	if len(env.touched) == 0 {
		return
	}
	s := *x.mir
	s.vals = env.vals
	s.hashes = slices.Clone(s.hashes)
	for _, i := range env.touched {
		var h wordhash.Hash
		hashPlain(&h, &s.vals[i])
		s.hashes[i] = uint64(h)
	}
	x.mir, x.stale = &s, true
}

// materialize puts the mirror into goja's heap, before goja evaluates an
// expression (which may then change it: the mirror is no longer the
// data). It returns a HaltError in the case clean rules out, where goja
// cannot take the mirror back.
func (x *ecmaData) materialize() error {
	if !x.mirror {
		return nil
	}
	x.mirror = false
	if !x.stale && x.gojaIs == x.mir {
		x.gojaIs = nil
		return nil
	}
	changed := x.changed
	ok := x.restoreGoja(x.mir)
	x.changed = changed
	x.gojaIs = nil
	if !ok {
		return &HaltError{Msg: "the data could not be put back into the script engine"}
	}
	return nil
}

// Restore puts saved data back. _event is not saved data: it stays bound
// to the last event, and the next step binds its own before any
// expression reads it. When the heap has the saved variables, and no
// others, only those whose fingerprints differ are set.
func (x *ecmaData) Restore(saved any) bool {
	s := saved.(*savedData)
	if x.fastOn(s) {
		// Goja's heap is put back only when an expression outside the
		// subset needs it.
		x.mir, x.mirror, x.changed = s, true, false
		x.stale = x.gojaIs != s
		return true
	}
	x.mirror = false
	ok := x.restoreGoja(s)
	if ok {
		x.gojaIs = s
	}
	return ok
}

// restoreGoja puts saved data back into goja's heap.
func (x *ecmaData) restoreGoja(s *savedData) bool {
	if s.hashes != nil {
		x.hashVars()
		if x.walk.plain && slices.Equal(x.hashNames, s.names) && x.d.restoreChanged(s, x.hashes, x.tame, x.walk.keys) {
			x.changed, x.plain, x.tame = false, true, true
			x.hashNames, x.hashes, x.hashGen = append(x.hashNames[:0], s.names...), append(x.hashes[:0], s.hashes...), x.gen
			return true
		}
	}
	x.listed = false
	if !x.d.Restore(s) {
		x.change()
		return false
	}
	x.changed, x.plain, x.tame = false, true, true
	x.gen++
	x.hashOK = false
	return true
}

// hashVars fingerprints each variable of the heap, unless nothing changed
// since it last did.
func (x *ecmaData) hashVars() {
	if x.hashOK && x.hashGen == x.gen {
		return
	}
	if !x.listed {
		x.hashNames = append(x.hashNames[:0], x.d.globals()...)
		x.listed = true
	}
	x.hashes = x.hashes[:0]
	g := x.d.rt.GlobalObject()
	w := &x.walk
	w.plain, w.tame = true, x.tame
	clear(w.keys)
	w.seen = w.seen[:0]
	clear(w.seenMap)
	for _, n := range x.hashNames {
		w.h = 0
		w.value(g.Get(n), 0)
		x.hashes = append(x.hashes, uint64(w.h))
	}
	x.hashGen, x.hashOK = x.gen, true
}

// Fingerprint hashes every global the conversation's scripts made or
// changed, with its name.
func (x *ecmaData) Fingerprint() uint64 {
	if x.mirror {
		h := wordhash.Hash(x.mir.rand)
		for i, n := range x.mir.names {
			h.Str(n)
			h.Word(x.mir.hashes[i])
		}
		return uint64(h)
	}
	x.hashVars()
	h := wordhash.Hash(x.d.rand)
	for i, n := range x.hashNames {
		h.Str(n)
		h.Word(x.hashes[i])
	}
	return uint64(h)
}

// maxHashDepth bounds the nesting hashed (a cycle stops there).
const maxHashDepth = 64

// hashWalk hashes the values of a heap's variables (h), and finds out
// whether they look like plain data (plain): objects and arrays with the
// built-in prototypes, whose own properties are all enumerable, none
// reached twice (two variables sharing an object, which a plain copy
// does not). Restore sets only the variables whose hashes differ from the
// saved ones when they do.
type hashWalk struct {
	// h hashes script values: equal plain data hashes equally; any other
	// object counts as its class and its String (a function, its source),
	// as render shows it.
	h     wordhash.Hash
	plain bool
	// tame: the heap is tame (ecmaData.tame); keys then holds each
	// object's keys, which Restore's patch reads back.
	tame    bool
	keys    map[*goja.Object][]string
	protos  [2]*goja.Object // Object.prototype, Array.prototype
	seen    []*goja.Object
	seenMap map[*goja.Object]bool
}

// visit notes object o, and reports whether it was met before.
func (w *hashWalk) visit(o *goja.Object) bool {
	if w.seenMap != nil {
		if w.seenMap[o] {
			return true
		}
		w.seenMap[o] = true
		return false
	}
	if slices.Contains(w.seen, o) {
		return true
	}
	w.seen = append(w.seen, o)
	if len(w.seen) > 32 {
		w.seenMap = map[*goja.Object]bool{}
		for _, s := range w.seen {
			w.seenMap[s] = true
		}
	}
	return false
}

func (w *hashWalk) value(v goja.Value, depth int) {
	h := &w.h
	switch {
	case v == nil || goja.IsUndefined(v):
		h.Word(1)
		return
	case goja.IsNull(v):
		h.Word(2)
		return
	case goja.IsString(v):
		h.Word(3)
		h.Str(v.String())
		return
	case goja.IsNumber(v):
		f := v.ToFloat()
		h.Word(4)
		h.Word(math.Float64bits(f))
		if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 && math.Signbit(f) {
			w.plain = false // as plainSource: JSON would not give it back
		}
		return
	}
	o, ok := v.(*goja.Object)
	if !ok {
		h.Word(5)
		h.Str(v.String())
		if t := v.ExportType(); t == nil || t.Kind() != reflect.Bool {
			w.plain = false // a symbol, a big integer
		}
		return
	}
	if depth >= maxHashDepth || w.visit(o) {
		h.Word(6)
		w.plain = false
		return
	}
	switch o.ClassName() {
	case "Array":
		n := o.Get("length").ToInteger()
		h.Word(7)
		h.Word(uint64(n))
		if o.Prototype() != w.protos[1] || len(o.GetOwnPropertyNames()) != int(n)+1 {
			w.plain = false
		}
		for i := int64(0); i < min(n, MaxItems); i++ {
			w.value(o.Get(strconv.FormatInt(i, 10)), depth+1)
		}
	case "Object":
		h.Word(8)
		// A tame heap has no property that is not enumerable and none
		// keyed by a symbol (that takes Object.defineProperty or
		// Symbol): its objects' keys are their own properties, which goja
		// lists several times faster than its enumerable ones.
		var keys []string
		if w.tame {
			keys = o.GetOwnPropertyNames()
			if w.keys == nil {
				w.keys = map[*goja.Object][]string{}
			}
			w.keys[o] = keys
		} else if keys = o.Keys(); len(o.GetOwnPropertyNames()) != len(keys) || len(o.Symbols()) > 0 {
			w.plain = false
		}
		if o.Prototype() != w.protos[0] {
			w.plain = false
		}
		for _, k := range keys {
			h.Str(k)
			w.value(o.Get(k), depth+1)
		}
	default:
		w.plain = false
		h.Word(9)
		h.Str(o.ClassName())
		h.Str(o.String())
	}
}

// quoteEnd returns the index of the quote that closes the string literal
// opening at src[i] (backslash escapes skipped), or -1 when it is not
// closed.
func quoteEnd(src string, i int) int {
	j := i + 1
	for ; j < len(src) && src[j] != src[i]; j++ {
		if src[j] == '\\' {
			j++
		}
	}
	if j >= len(src) {
		return -1
	}
	return j
}

// pureSource reports whether an expression cannot change plain data: it
// assigns nothing (=, op=, ++, --, delete), makes no function or object
// with new, and calls only In() and functions and methods that read
// (indexOf, includes, toLowerCase, Math.max, ...). It errs on the side of
// "no": a template string, a comment, an unknown call.
func pureSource(src string) bool {
	prevIdent, prevDot := "", false
	var prev byte // the last character that is not a space
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '\'' || c == '"':
			j := quoteEnd(src, i)
			if j < 0 {
				return false
			}
			i, prev, prevIdent = j, c, ""
			continue
		case c == '`' || c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
			return false
		case c == '=':
			next := byte(0)
			if i+1 < len(src) {
				next = src[i+1]
			}
			switch {
			case next == '=': // == or ===
				i++
				if i+1 < len(src) && src[i+1] == '=' {
					i++
				}
			case next == '>': // an arrow function
				return false
			case i > 0 && src[i-1] == '!':
			case i > 0 && (src[i-1] == '<' || src[i-1] == '>') && (i < 2 || src[i-2] != src[i-1]):
			default:
				return false
			}
		case (c == '+' || c == '-') && i+1 < len(src) && src[i+1] == c:
			return false
		case c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] == '$' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			w := src[i:j]
			if impureWords[w] {
				return false
			}
			prevDot = prev == '.'
			i, prev, prevIdent = j-1, 'a', w
			continue
		case c >= '0' && c <= '9':
			for i+1 < len(src) && (src[i+1] == '.' || src[i+1] >= '0' && src[i+1] <= '9' || src[i+1] >= 'a' && src[i+1] <= 'z' || src[i+1] >= 'A' && src[i+1] <= 'Z') {
				i++
			}
			prev, prevIdent = '0', ""
			continue
		case c == '(':
			switch {
			case prev == ')' || prev == ']':
				return false // calls what an expression gave
			case prev == 'a' && prevDot && !readMethods[prevIdent]:
				return false
			case prev == 'a' && !prevDot && !readFuncs[prevIdent] && !operatorWords[prevIdent]:
				return false
			}
		}
		prev, prevIdent = c, ""
	}
	return true
}

// impureWords are the words after which an expression may change data.
var impureWords = map[string]bool{"delete": true, "new": true, "function": true, "class": true, "yield": true, "await": true,
	"import": true, "eval": true, "with": true, "var": true, "let": true, "const": true, "Function": true, "Reflect": true}

// operatorWords may stand before a parenthesis that groups.
var operatorWords = map[string]bool{"typeof": true, "void": true, "in": true, "instanceof": true, "return": true, "of": true, "case": true}

// readFuncs are the global functions that only read their arguments.
var readFuncs = map[string]bool{"In": true, "Number": true, "String": true, "Boolean": true, "isNaN": true, "isFinite": true,
	"parseInt": true, "parseFloat": true}

// readMethods are the built-in methods that only read (on plain data,
// whose objects have the built-in prototypes).
var readMethods = map[string]bool{"indexOf": true, "lastIndexOf": true, "includes": true, "startsWith": true, "endsWith": true,
	"charAt": true, "charCodeAt": true, "slice": true, "substring": true, "substr": true, "toLowerCase": true, "toUpperCase": true,
	"trim": true, "concat": true, "join": true, "toString": true, "toFixed": true, "keys": true, "isArray": true, "stringify": true,
	"hasOwnProperty": true, "abs": true, "floor": true, "ceil": true, "round": true, "max": true, "min": true, "pow": true, "sqrt": true}

// readsEvent reports whether an expression may read _event (or reach it
// through the global object, or eval).
func readsEvent(src string) bool {
	for _, w := range []string{"_event", "eval", "this", "globalThis", "Function", "Reflect", "arguments"} {
		if strings.Contains(src, w) {
			return true
		}
	}
	return false
}

// bareWrites finds the identifiers an expression may assign as globals
// (x = ..., x += ..., x++), so that one which assigns only globals that
// exist already is known to keep the set of globals as it is (hashVars
// need not list them again). It reports false when it cannot tell: a
// declaration (var, function), a way to the global object (this,
// globalThis, eval, Function, a constructor), delete, a loop, a
// destructuring or parenthesized assignment, _event but for its string
// fields (its data may hold a function), a template string or a comment.
func bareWrites(src string) ([]string, bool) {
	const (
		tokOther    = iota
		tokBare     // an identifier on its own
		tokMember   // an identifier after a dot, or a ] that indexes a value
		tokOperator // + - * / % & | ^ < > ? (which op= puts before =)
	)
	var names []string
	tok, target := tokOther, tokOther // the last token, the last before any operator
	ident := ""                       // the identifier when target is tokBare
	prev := byte(0)                   // the last character that is not a space
	incr := false                     // the last token is ++ or --
	var member []bool                 // for each open [: whether it indexes a value
	add := func(n string) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		next := byte(0)
		if i+1 < len(src) {
			next = src[i+1]
		}
		kind := tokOther
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '\'' || c == '"':
			j := quoteEnd(src, i)
			if j < 0 {
				return nil, false
			}
			i = j
		case c == '`' || c == '/' && (next == '/' || next == '*'):
			return nil, false
		case c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] == '$' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			w := src[i:j]
			if globalWords[w] && !(w == "_event" && eventField(src[j:])) {
				return nil, false
			}
			kind = tokMember
			if prev != '.' {
				kind, ident = tokBare, w
				if incr {
					add(w) // ++x, --x
				}
			}
			i = j - 1
			c = 'a'
		case c >= '0' && c <= '9':
			for i+1 < len(src) && (src[i+1] == '.' || src[i+1] >= '0' && src[i+1] <= '9' || src[i+1] >= 'a' && src[i+1] <= 'z' || src[i+1] >= 'A' && src[i+1] <= 'Z') {
				i++
			}
			c = '0'
		case c == '[':
			member = append(member, tok == tokMember || tok == tokBare && !keywords[ident] || prev == ')' || prev == ']')
		case c == ']':
			if len(member) > 0 && member[len(member)-1] {
				kind = tokMember
			}
			if len(member) > 0 {
				member = member[:len(member)-1]
			}
		case c == '=' && next == '>':
			return nil, false // an arrow function
		case c == '=' && next == '=':
			i++
			if i+1 < len(src) && src[i+1] == '=' {
				i++
			}
		case c == '=' && (prev == '!' || (prev == '<' || prev == '>') && src[i-1] == prev && (i < 2 || src[i-2] != prev)):
			// !=, <=, >=: a comparison
		case c == '=':
			// An assignment (=, op=) to the target before it.
			switch target {
			case tokBare:
				add(ident)
			case tokMember:
			default:
				return nil, false // (x) = ..., [a, b] = ..., {a} = ...
			}
		case (c == '+' || c == '-') && next == c:
			if tok == tokBare {
				add(ident) // x++, x--
			}
			i++
			tok, prev, incr = tokOperator, c, true
			continue
		case strings.IndexByte("+-*/%&|^<>?", c) >= 0:
			kind = tokOperator
		}
		tok, prev, incr = kind, c, false
		if kind != tokOperator {
			target = kind
		}
	}
	return names, true
}

// eventField reports whether rest (what follows _event) begins with a
// field of _event that is a string (.name, .type, ...): unlike its
// data, it leads to no object of the heap.
func eventField(rest string) bool {
	for _, f := range [...]string{".name", ".type", ".sendid", ".origintype", ".origin", ".invokeid"} {
		if strings.HasPrefix(rest, f) {
			after := rest[len(f):]
			return after == "" || !(after[0] == '_' || after[0] == '$' || after[0] >= 'a' && after[0] <= 'z' ||
				after[0] >= 'A' && after[0] <= 'Z' || after[0] >= '0' && after[0] <= '9')
		}
	}
	return false
}

// keywords may stand before a [ that makes an array.
var keywords = map[string]bool{"return": true, "typeof": true, "void": true, "case": true, "do": true, "else": true,
	"new": true, "throw": true, "instanceof": true}

// globalWords are the words after which an expression may declare or
// delete a global, or reach the global object.
var globalWords = map[string]bool{"var": true, "function": true, "class": true, "let": true, "const": true, "this": true,
	"globalThis": true, "eval": true, "Function": true, "Reflect": true, "with": true, "delete": true, "arguments": true,
	"constructor": true, "__proto__": true, "import": true, "for": true, "in": true, "of": true, "_event": true,
	"yield": true, "await": true, "async": true}

// tameWords are the words of an expression that may make an object
// Restore would not: an accessor (get x() {...}), a frozen, sealed or
// non-extensible object, a property defined with other attributes.
var tameWords = []string{"Object", "Reflect", "Proxy", "get", "set", "Symbol", "defineProperty", "__define", "freeze", "seal", "preventExtensions"}

// wild reports whether src holds one of tameWords (anywhere: it errs on
// the side of yes).
func wild(src string) bool {
	for _, w := range tameWords {
		if strings.Contains(src, w) {
			return true
		}
	}
	return false
}
