package scxml

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"
)

// ecmaCompiler compiles a chart's expressions with goja, once per chart;
// each session runs them on its own goja.Runtime.
type ecmaCompiler struct{}

type ecmaProgram struct {
	progs []*goja.Program
	// errs holds each expression's compile error, which the
	// recommendation makes an error.execution when the expression is
	// evaluated (W3C test312 and its kin), not a reason to reject the
	// document; warnings are the same errors with their positions.
	errs     []error
	warnings []*Error
	// lexical: a script may declare let, const or class globals, which
	// live outside the global object, so Save never copies a session.
	lexical bool
	// idents marks location expressions that are plain identifiers, which a
	// <foreach> may declare.
	idents []string
}

var identRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// lexicalRE finds a declaration a <script> may make outside the global
// object (let, const, class at its top level), which Save cannot copy; it
// errs on the safe side, matching nested ones too.
var lexicalRE = regexp.MustCompile(`\b(let|const|class)\b`)

// valueName is the global through which Assign passes a value.
const valueName = "__simctl_value"

// ScriptTimeout bounds one evaluation's wall time.
const ScriptTimeout = time.Second

// maxExprLen bounds one expression's source (goja's parser recurses).
const maxExprLen = 64 << 10

func (c ecmaCompiler) Compile(ch *Chart) (Program, error) {
	p := &ecmaProgram{}
	for _, e := range ch.Exprs {
		p.add(e)
	}
	return p, nil
}

// add compiles one expression and returns its index. One that does not
// compile keeps its error (and a warning) for when it is evaluated.
func (p *ecmaProgram) add(e ExprDef) Expr {
	i := len(p.progs)
	p.progs = append(p.progs, nil)
	p.errs = append(p.errs, nil)
	p.idents = append(p.idents, "")
	var src string
	switch e.Kind {
	case ValueExpr, CondExpr, LogExpr:
		// A trailing ";" (expr="new f();") is tolerated, as browsers'
		// SCXML engines do.
		src = "(" + strings.TrimSuffix(strings.TrimSpace(e.Src), ";") + "\n)"
	case LocationExpr:
		src = "\"use strict\";(" + e.Src + "\n) = " + valueName + ";"
		if s := strings.TrimSpace(e.Src); identRE.MatchString(s) {
			p.idents[i] = s
		}
	case ScriptExpr:
		src = e.Src
		if lexicalRE.MatchString(src) {
			p.lexical = true
		}
	}
	var err error
	if len(e.Src) > maxExprLen {
		err = fmt.Errorf("expression longer than %d bytes", maxExprLen)
	} else if strings.TrimSpace(e.Src) == "" && e.Kind != ScriptExpr {
		err = errors.New("empty expression")
	} else {
		p.progs[i], err = compileJS(src)
	}
	if err != nil {
		msg := fmt.Sprintf("expression %q does not compile: %s", clip(e.Src), firstLine(err.Error()))
		p.errs[i] = errors.New(msg)
		p.warnings = append(p.warnings, &Error{Pos: e.Pos, Msg: msg + " (it raises error.execution when evaluated)"})
	}
	return Expr(i)
}

// compileJS compiles a program, turning a parser panic into an error: a
// hostile expression must not crash the loader.
func compileJS(src string) (prog *goja.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			prog, err = nil, fmt.Errorf("%v", r)
		}
	}()
	return goja.Compile("", src, false)
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// gojaNoise is the part of goja's syntax errors that names positions in
// the wrapped source simctl compiles, not in the document.
var gojaNoise = regexp.MustCompile(`\(anonymous\): Line \d+:\d+ | \(and \d+ more errors?\)`)

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return gojaNoise.ReplaceAllString(s, "")
}

// ecma is one session's ECMAScript data model. Date reads the session's
// virtual clock and Math.random a fixed-seed generator, so that a run does
// not depend on when or where it happens.
type ecma struct {
	p     *ecmaProgram
	vars  []string // declared <data> ids, in document order
	rt    *goja.Runtime
	parse goja.Callable
	// stringify is JSON.stringify as goja has it, before the bounds
	// wrap it: Snapshot checks a value's size itself.
	stringify goja.Callable
	watch     *watchdog
	// plain reports whether a value is plain data (see Save).
	plain goja.Callable
	// baseline holds the enumerable globals of a fresh runtime.
	baseline map[string]bool
	// rand is Math.random's state.
	rand uint64
}

// newEcma makes a session's runtime: now is its virtual clock, id and name
// its _sessionid and _name, in its In().
func (p *ecmaProgram) newEcma(now func() int64, id, name string, in func(string) bool) *ecma {
	rt := goja.New()
	rt.SetTimeSource(func() time.Time { return time.UnixMilli(now()).UTC() })
	d := &ecma{p: p, rt: rt, watch: &watchdog{rt: rt}, rand: 0x9e3779b97f4a7c15}
	rt.SetRandSource(func() float64 {
		d.rand += 0x9e3779b97f4a7c15
		z := d.rand
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		return float64(z>>11) / (1 << 53)
	})
	json := rt.Get("JSON").ToObject(rt)
	parse, _ := goja.AssertFunction(json.Get("parse"))
	stringify, _ := goja.AssertFunction(json.Get("stringify"))
	bound(rt)
	d.parse, d.stringify = parse, stringify
	pv, err := rt.RunProgram(plainProgram)
	if err != nil {
		panic(err) // simctl's own code
	}
	d.plain, _ = goja.AssertFunction(pv)
	// The chart's globals live on an object of their own whose prototype
	// holds the built-ins, so that listing them (Save, Restore) walks a
	// handful of properties, not every built-in.
	g := rt.NewObject()
	_ = g.SetPrototype(rt.GlobalObject())
	_ = g.DefineDataProperty("globalThis", g, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	rt.SetGlobalObject(g)
	_ = g.Set("In", func(id string) bool { return in(id) })
	d.readonly("_sessionid", rt.ToValue(id))
	d.readonly("_name", rt.ToValue(name))
	io := rt.NewObject()
	loc := rt.NewObject()
	_ = loc.Set("location", "#_scxml_"+id)
	_ = io.Set(SCXMLProcessor, loc)
	_ = io.Set("scxml", loc)
	d.readonly("_ioprocessors", io)
	// _event exists, unbound, before the first event.
	d.readonly("_event", goja.Undefined())
	// An assign's value passes through a global of its own, there from
	// the start (not enumerable, so neither saved nor fingerprinted), so
	// that an assign neither makes nor deletes a global.
	_ = g.DefineDataProperty(valueName, goja.Undefined(), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	d.baseline = map[string]bool{valueName: true}
	for _, k := range g.Keys() {
		d.baseline[k] = true
	}
	return d
}

// readonly defines a system variable that scripts cannot assign to (an
// assignment in strict code throws, which becomes error.execution).
func (d *ecma) readonly(name string, v goja.Value) {
	_ = d.rt.GlobalObject().DefineDataProperty(name, v, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_TRUE)
}

func (d *ecma) run(e Expr) (v goja.Value, err error) {
	if err := d.p.errs[e]; err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("%v", r)
		}
	}()
	// A script that never ends (while(true){}) or grows the heap without
	// bound is interrupted (see watchdog); the session then halts.
	d.watch.arm()
	defer d.watch.disarm()
	v, err = d.rt.RunProgram(d.p.progs[e])
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if ie.Value() == interruptMemory {
			return nil, &HaltError{Msg: fmt.Sprintf("a script grew the heap by more than %d MB", MaxScriptHeap>>20)}
		}
		return nil, &HaltError{Msg: "a script ran longer than " + ScriptTimeout.String() + " (wall clock)"}
	}
	return v, err
}

func (d *ecma) Init(data []Data) error {
	var first error
	for _, x := range data {
		v := goja.Undefined()
		switch {
		case x.Expr != NoExpr:
			r, err := d.run(x.Expr)
			if err != nil {
				if first == nil {
					first = err
				}
			} else {
				v = r
			}
		case x.Text != nil:
			v = d.literal(*x.Text)
		}
		_ = d.rt.GlobalObject().Set(x.ID, v)
		d.vars = append(d.vars, x.ID)
	}
	return first
}

// Snapshot renders the declared variables in document order, as JSON
// where a value is plain data (see render).
func (d *ecma) Snapshot() string {
	var b strings.Builder
	g := d.rt.GlobalObject()
	for _, id := range d.vars {
		b.WriteString(id)
		b.WriteByte('=')
		render(&b, g.Get(id))
		b.WriteByte(';')
	}
	return b.String()
}

func (d *ecma) SetEvent(ev Event) {
	o := d.rt.NewObject()
	set := func(k, v string) {
		if v == "" {
			_ = o.Set(k, goja.Undefined())
		} else {
			_ = o.Set(k, v)
		}
	}
	_ = o.Set("name", ev.Name)
	_ = o.Set("type", ev.Type)
	set("sendid", ev.SendID)
	set("origin", ev.Origin)
	set("origintype", ev.OriginType)
	set("invokeid", ev.InvokeID)
	if ev.Data == nil {
		_ = o.Set("data", goja.Undefined())
	} else {
		_ = o.Set("data", ev.Data)
	}
	d.readonly("_event", o)
}

func (d *ecma) Cond(e Expr) (bool, error) {
	v, err := d.run(e)
	if err != nil {
		return false, err
	}
	return v.ToBoolean(), nil
}

func (d *ecma) Value(e Expr) (any, error) {
	v, err := d.run(e)
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (d *ecma) Text(e Expr) (string, error) {
	v, err := d.run(e)
	if err != nil {
		return "", err
	}
	return v.String(), nil
}

func (d *ecma) literal(s string) goja.Value {
	if t := strings.TrimSpace(s); t != "" {
		if v, err := d.parse(goja.Undefined(), d.rt.ToValue(t)); err == nil {
			return v
		}
		if _, err := strconv.ParseFloat(t, 64); err == nil {
			f, _ := strconv.ParseFloat(t, 64)
			return d.rt.ToValue(f)
		}
	}
	return d.rt.ToValue(strings.Join(strings.Fields(s), " "))
}

func (d *ecma) Literal(s string) any { return d.literal(s) }

func (d *ecma) value(v any) goja.Value {
	switch x := v.(type) {
	case nil:
		return goja.Undefined()
	case goja.Value:
		return x
	}
	return d.rt.ToValue(v)
}

func (d *ecma) Assign(loc Expr, v any, declare bool) (err error) {
	if declare && d.p.idents[loc] != "" {
		return d.rt.GlobalObject().Set(d.p.idents[loc], d.value(v))
	}
	g := d.rt.GlobalObject()
	_ = g.Set(valueName, d.value(v))
	defer func() { _ = g.Set(valueName, goja.Undefined()) }()
	_, err = d.run(loc)
	return err
}

func (d *ecma) Script(e Expr) error {
	_, err := d.run(e)
	return err
}

func (d *ecma) Iterate(e Expr) ([]any, error) {
	v, err := d.run(e)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*goja.Object)
	if !ok || o.ClassName() != "Array" {
		return nil, fmt.Errorf("foreach array is not an array")
	}
	n := o.Get("length").ToInteger()
	if n > MaxItems {
		return nil, fmt.Errorf("foreach array of %d items: simctl bounds it at %d", n, MaxItems)
	}
	out := make([]any, 0, n)
	for i := int64(0); i < n; i++ {
		out = append(out, o.Get(strconv.FormatInt(i, 10)))
	}
	return out, nil
}

func (d *ecma) Object(names []string, values []any) any {
	o := d.rt.NewObject()
	for i, n := range names {
		_ = o.Set(n, d.value(values[i]))
	}
	return o
}
