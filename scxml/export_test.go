package scxml

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dop251/goja"

	"github.com/simctl/simctl/wordhash"
)

// What the external tests need of the package's internals.

// BareWrites is bareWrites: the globals an expression may assign, or
// false when it may make or delete others.
func BareWrites(src string) ([]string, bool) { return bareWrites(src) }

// FastCase is one expression to evaluate both ways (FastAgrees): Kind is
// "cond", "value", "script" or "assign" (Loc = Src); Vars and JSON are
// the heap's variables and their values as JSON ("" for undefined).
type FastCase struct {
	Kind, Loc, Src string
	Vars, JSON     []string
	// Event, when not nil, is bound to _event as a step binds it, its
	// Data (not Event.Data) the text of the engine's event (Event.Value),
	// which goja reads as a literal ("" for none).
	Event *Event
	Data  string
}

// FastAgrees evaluates c in the Go subset (fast.go) and in goja, on the
// same heap, where In('on') is true and In of any other state false. It
// reports whether the subset evaluated it (covered), and what differs
// ("" when they agree or the subset declined): the result, the error,
// the heap after, or its fingerprint.
func FastAgrees(c FastCase) (covered bool, diff string) {
	// One runtime serves every case (a fresh one costs milliseconds),
	// its globals cleared first.
	if fastRuntime == nil {
		fastRuntime = (&ecmaProgram{}).newEcma(func() int64 { return 0 }, "t", "t", func(s string) bool { return s == "on" })
	}
	d := fastRuntime
	p := &ecmaProgram{}
	d.p = p
	g := d.rt.GlobalObject()
	for _, k := range d.globals() {
		if err := g.Delete(k); err != nil {
			return false, "cannot clear " + k
		}
	}
	for i, n := range c.Vars {
		v := goja.Undefined()
		if c.JSON[i] != "" {
			v = d.literal(c.JSON[i])
		}
		_ = g.Set(n, v)
	}
	s, ok := d.save(d.globals(), true)
	if !ok {
		return false, "the heap is not plain data: " + strings.Join(c.JSON, " ")
	}
	// _event, bound as ecmaData.bind binds it and set in goja as
	// setEvent sets it.
	x := &ecmaData{d: d, dm: &ECMAScript{}, lits: map[string]litView{}}
	x.evGo = plainValue{kind: plainObject, keys: eventKeys, items: x.evItems[:]}
	d.readonly("_event", goja.Undefined())
	view := func() *plainValue { return nil }
	if c.Event != nil {
		x.pend, x.pendSE, x.pendLit, x.evState = true, *c.Event, c.Data, evUnseen
		ev := x.eventView()
		view = func() *plainValue { return ev }
		x.setEvent()
	}
	// The mirror's fingerprints are goja's.
	if diff := sameHashes(d, s.names, s.vals); diff != "" {
		return false, "before: " + diff
	}
	kinds := map[string]ExprKind{"cond": CondExpr, "value": ValueExpr, "script": ScriptExpr, "assign": ValueExpr}
	code := p.add(ExprDef{Src: c.Src, Kind: kinds[c.Kind]})
	if p.errs[code] != nil {
		return false, ""
	}
	fc := compileFast(kinds[c.Kind], c.Src)
	env := &fastEnv{names: s.names, vals: s.vals, in: func(n string) (bool, bool) { return n == "on", true }}
	env.event = view
	var loc Expr
	var fl fastCode
	if c.Kind == "assign" {
		loc = p.add(ExprDef{Src: c.Loc, Kind: LocationExpr})
		if p.errs[loc] != nil {
			return false, ""
		}
		fl = compileFast(LocationExpr, c.Loc)
	}
	switch c.Kind {
	case "cond":
		if !fc.ok {
			return false, ""
		}
		v, ok := env.eval(fc.expr)
		if !ok {
			return false, ""
		}
		b, err := d.Cond(code)
		if err != nil || b != truthy(&v.plainValue) {
			return true, fmt.Sprintf("Go %v, goja %v (%v)", truthy(&v.plainValue), b, err)
		}
		return true, ""
	case "value":
		if !fc.ok {
			return false, ""
		}
		v, ok := env.eval(fc.expr)
		if !ok {
			return false, ""
		}
		gv, err := d.run(code)
		if err != nil {
			return true, fmt.Sprintf("Go %#v, goja error %v", v.plainValue, err)
		}
		if got := capture(gv); !samePlain(&got, &v.plainValue) || goja.IsNumber(gv) && v.kind != plainNumber {
			return true, fmt.Sprintf("Go %#v, goja %#v", v.plainValue, got)
		}
		return true, ""
	case "script":
		if !fc.ok {
			return false, ""
		}
		for _, st := range fc.stmts {
			if !env.exec(st) {
				return false, ""
			}
		}
		if err := d.Script(code); err != nil {
			return true, fmt.Sprintf("goja error %v", err)
		}
	case "assign":
		if !fc.ok || !fl.ok {
			return false, ""
		}
		v, ok := env.eval(fc.expr)
		if !ok || !env.assign(fl.path, v) {
			return false, ""
		}
		gv, err := d.Value(code)
		if err == nil {
			err = d.Assign(loc, gv, false)
		}
		if err != nil {
			return true, fmt.Sprintf("goja error %v", err)
		}
	}
	after, ok := d.save(d.globals(), true)
	if !ok {
		return true, "goja's heap is no longer plain data"
	}
	if !slices.Equal(after.names, env.names) {
		return true, fmt.Sprintf("variables: Go %v, goja %v", env.names, after.names)
	}
	for i := range after.vals {
		if !samePlain(&after.vals[i], &env.vals[i]) {
			return true, fmt.Sprintf("%s: Go %#v, goja %#v", after.names[i], env.vals[i], after.vals[i])
		}
	}
	if diff := sameHashes(d, env.names, env.vals); diff != "" {
		return true, "after: " + diff
	}
	return true, ""
}

var fastRuntime *ecma

// sameHashes compares hashPlain of vals with hashWalk of goja's globals.
func sameHashes(d *ecma, names []string, vals []plainValue) string {
	w := &hashWalk{}
	rt := d.rt
	w.protos[0] = rt.Get("Object").ToObject(rt).Get("prototype").ToObject(rt)
	w.protos[1] = rt.Get("Array").ToObject(rt).Get("prototype").ToObject(rt)
	for i, n := range names {
		var h wordhash.Hash
		hashPlain(&h, &vals[i])
		w.h, w.plain = 0, true
		w.value(rt.GlobalObject().Get(n), 0)
		if uint64(w.h) != uint64(h) || !w.plain {
			return fmt.Sprintf("%s hashes %x in Go, %x in goja (plain %v)", n, uint64(h), uint64(w.h), w.plain)
		}
	}
	return ""
}

// samePlain reports whether two copies are the same value (-0 and 0
// apart).
func samePlain(a, b *plainValue) bool {
	if a.kind == plainNumber && b.kind == plainNumber && math.IsNaN(a.num) && math.IsNaN(b.num) {
		return true
	}
	if a.kind != b.kind || math.Float64bits(a.num) != math.Float64bits(b.num) || a.str != b.str ||
		!slices.Equal(a.keys, b.keys) || len(a.items) != len(b.items) {
		return false
	}
	for i := range a.items {
		if !samePlain(&a.items[i], &b.items[i]) {
			return false
		}
	}
	return true
}
