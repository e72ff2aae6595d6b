package scxml

import (
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/dop251/goja"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/statechart"
)

// ECMAScript is the recommendation's ECMAScript data model (goja) for
// machines that run on the engine (engine.Definition.DataModel): it
// compiles their expressions once, and NewData makes one conversation's
// heap, which lives beside its engine.Config. It is the same runtime as
// the statechart sessions' (bounded in time and memory, Date on the
// virtual clock, Math.random seeded), so a chart behaves alike on both
// while the loader moves onto the engine (issue #25).
type ECMAScript struct {
	p *ecmaProgram
	// tags names the element at each position of executable content,
	// for the data of the error.execution events it raises.
	tags map[engine.Pos]string
}

// NewECMAScript returns a data model with nothing compiled yet.
func NewECMAScript() *ECMAScript {
	return &ECMAScript{p: &ecmaProgram{}, tags: map[engine.Pos]string{}}
}

var codeKinds = [...]statechart.ExprKind{
	engine.CondCode:     statechart.CondExpr,
	engine.ValueCode:    statechart.ValueExpr,
	engine.LocationCode: statechart.LocationExpr,
	engine.ScriptCode:   statechart.ScriptExpr,
}

// Compile compiles x; an expression that does not compile is returned
// with its error, which the engine raises as error.execution when the
// expression is evaluated.
func (e *ECMAScript) Compile(kind engine.CodeKind, x engine.Expr) (engine.Code, error) {
	i := e.p.add(statechart.ExprDef{Src: x.Src, Pos: statechart.Pos(x.Pos), Kind: codeKinds[kind]})
	return engine.Code(i), e.p.errs[i]
}

// NewData returns a fresh heap for one conversation of m (built with this
// data model), its _sessionid id.
func (e *ECMAScript) NewData(m *engine.Machine, id string) engine.Data {
	x := &ecmaData{m: m, id: id, tags: e.tags}
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
	return x
}

// ecmaData is one conversation's heap. cur is the configuration the step
// being taken works on (for In() and Date); ev the event _event was last
// bound to.
type ecmaData struct {
	id    string
	tags  map[engine.Pos]string
	d     *ecma
	m     *engine.Machine
	cur   *engine.Config
	ev    engine.Event
	bound bool
	// payload is the data of the event being taken (Take), key its
	// Event.Payload.
	payload goja.Value
	key     uint32
}

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
	return o
}

func (x *ecmaData) Hold(code engine.Code, key uint32, c *engine.Config, ev *engine.Event) error {
	x.bind(c, ev)
	v, err := x.d.run(statechart.Expr(code))
	if err != nil {
		return err
	}
	return x.held(true).Set(strconv.FormatUint(uint64(key), 10), v)
}

// HoldError keeps the data of an error.execution event: the element
// (its tag, from the chart), where it is and the reason.
func (x *ecmaData) HoldError(key uint32, pos engine.Pos, err error) {
	o := x.d.rt.NewObject()
	_ = o.Set("tagname", x.tags[pos])
	_ = o.Set("line", pos.Line)
	_ = o.Set("column", pos.Col)
	_ = o.Set("reason", err.Error())
	_ = x.held(true).Set(strconv.FormatUint(uint64(key), 10), o)
}

func (x *ecmaData) Take(key uint32) {
	x.payload, x.key = goja.Undefined(), key
	if o := x.held(false); o != nil {
		k := strconv.FormatUint(uint64(key), 10)
		if v := o.Get(k); v != nil {
			x.payload = v
		}
		x.Drop(key)
	}
}

func (x *ecmaData) Drop(key uint32) {
	o := x.held(false)
	if o == nil {
		return
	}
	_ = o.Delete(strconv.FormatUint(uint64(key), 10))
	if len(o.Keys()) == 0 {
		// Nothing pending: the heap is as if nothing had been held.
		_ = x.d.rt.GlobalObject().Delete(heldName)
	}
}

// bind makes c the configuration In() reads and binds _event to ev, when
// it is another event than the one bound (events the engine makes for
// itself at the start carry no intent and leave _event as it is).
func (x *ecmaData) bind(c *engine.Config, ev *engine.Event) {
	x.cur = c
	done := ev != nil && ev.Source == engine.SourceInternal && ev.Intent == engine.NoID
	if ev == nil || (ev.Kind == engine.UserEvent && ev.Intent == engine.NoID && !done) || (x.bound && *ev == x.ev) {
		return
	}
	x.ev, x.bound = *ev, true
	se := statechart.Event{Type: "external"}
	switch ev.Source {
	case engine.SourceInternal:
		se.Type = "internal"
	case engine.SourcePlatform:
		se.Type = "platform"
	case engine.SourceSend:
		se.SendID = x.m.SendID(ev.Timer)
		se.Origin, se.OriginType = "#_scxml_"+x.id, statechart.SCXMLProcessor
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
	switch {
	case ev.Payload != 0 && ev.Payload == x.key:
		se.Data = x.payload
		if o, ok := x.payload.(*goja.Object); ok && se.Name == OtherEvent {
			// A sent event whose computed name the chart does not
			// know: its name is held with its data.
			if n := o.Get(otherName); n != nil {
				se.Name, se.Data = n.String(), o.Get("data")
			}
		}
	case ev.Value != "":
		se.Data = x.d.literal(ev.Value)
	}
	x.d.SetEvent(se)
}

func (x *ecmaData) Cond(code engine.Code, c *engine.Config, ev *engine.Event) (bool, error) {
	x.bind(c, ev)
	return x.d.Cond(statechart.Expr(code))
}

func (x *ecmaData) Value(code engine.Code, c *engine.Config, ev *engine.Event) (engine.Value, error) {
	x.bind(c, ev)
	v, err := x.d.run(statechart.Expr(code))
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
	v, err := x.d.Value(statechart.Expr(code))
	if err != nil {
		return err
	}
	return x.d.Assign(statechart.Expr(loc), v, false)
}

func (x *ecmaData) Script(code engine.Code, c *engine.Config, ev *engine.Event) error {
	x.bind(c, ev)
	return x.d.Script(statechart.Expr(code))
}

// Foreach iterates over a shallow copy of the array, as the
// recommendation says; item and index may be new variables.
func (x *ecmaData) Foreach(arr, item, index engine.Code, c *engine.Config, ev *engine.Event, body func() error) error {
	x.bind(c, ev)
	items, err := x.d.Iterate(statechart.Expr(arr))
	if err != nil {
		return err
	}
	for i, it := range items {
		if err := x.d.Assign(statechart.Expr(item), it, true); err != nil {
			return err
		}
		if index != engine.NoCode {
			if err := x.d.Assign(statechart.Expr(index), i, true); err != nil {
				return err
			}
		}
		if err := body(); err != nil {
			return err
		}
	}
	return nil
}

func (x *ecmaData) Save() (any, bool) { return x.d.Save() }

// Restore puts saved data back. _event is not saved data: it stays bound
// to the last event, and the next step binds its own before any
// expression reads it.
func (x *ecmaData) Restore(saved any) bool { return x.d.Restore(saved) }

// Fingerprint hashes every global the conversation's scripts made or
// changed, rendered canonically.
func (x *ecmaData) Fingerprint() uint64 {
	var b strings.Builder
	g := x.d.rt.GlobalObject()
	for _, n := range x.d.globals() {
		b.WriteString(n)
		b.WriteByte('=')
		render(&b, g.Get(n))
		b.WriteByte(';')
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(b.String()))
	return h.Sum64()
}
