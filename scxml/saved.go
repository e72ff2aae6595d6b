package scxml

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// The explorer steps a chart from stored configurations, so the ECMAScript
// data model must be put back as it was. A goja heap cannot be copied, but
// the variables of most charts hold plain data (numbers, strings, booleans,
// null, undefined, and arrays and objects of them), which Save copies out
// of the runtime and Restore copies back. Any other value (a function,
// NaN, a hole in an array, a getter, a class instance, and, through
// ecmaData, an object reached twice) makes Save report false, and the
// explorer replays that configuration's path instead.

// savedData is one Save: the declared variables and any global a script
// made, each with its JSON text ("" for undefined), and Math.random's
// state.
type savedData struct {
	names []string // the declared variables (nvars), then the others
	nvars int
	vals  []plainValue
	rand  uint64
	// hashes are the variables' fingerprints (ecmaData.hashVars), or nil.
	hashes []uint64
}

// plainValue is a copy of a plain value, outside any runtime.
type plainValue struct {
	kind  plainKind
	num   float64
	str   string
	keys  []string // an object's, in order
	items []plainValue
}

type plainKind uint8

const (
	plainUndefined plainKind = iota
	plainNull
	plainFalse
	plainTrue
	plainNumber
	plainString
	plainArray
	plainObject
)

// capture copies a value the plain check accepted.
func capture(v goja.Value) plainValue {
	switch {
	case v == nil || goja.IsUndefined(v):
		return plainValue{}
	case goja.IsNull(v):
		return plainValue{kind: plainNull}
	case goja.IsString(v):
		return plainValue{kind: plainString, str: v.String()}
	case goja.IsNumber(v):
		return plainValue{kind: plainNumber, num: v.ToFloat()}
	}
	o, ok := v.(*goja.Object)
	if !ok {
		if v.ToBoolean() {
			return plainValue{kind: plainTrue}
		}
		return plainValue{kind: plainFalse}
	}
	if o.ClassName() == "Array" {
		n := o.Get("length").ToInteger()
		p := plainValue{kind: plainArray, items: make([]plainValue, n)}
		for i := range p.items {
			p.items[i] = capture(o.Get(strconv.Itoa(i)))
		}
		return p
	}
	keys := o.GetOwnPropertyNames() // all enumerable, as the value is plain
	p := plainValue{kind: plainObject, keys: keys, items: make([]plainValue, len(keys))}
	for i, k := range keys {
		p.items[i] = capture(o.Get(k))
	}
	return p
}

// value makes a copy of p in rt.
func (p *plainValue) value(rt *goja.Runtime) goja.Value {
	switch p.kind {
	case plainNull:
		return goja.Null()
	case plainFalse:
		return rt.ToValue(false)
	case plainTrue:
		return rt.ToValue(true)
	case plainNumber:
		return rt.ToValue(p.num)
	case plainString:
		return rt.ToValue(p.str)
	case plainArray:
		items := make([]any, len(p.items))
		for i := range p.items {
			items[i] = p.items[i].value(rt)
		}
		return rt.NewArray(items...)
	case plainObject:
		o := rt.NewObject()
		for i, k := range p.keys {
			_ = o.Set(k, p.items[i].value(rt))
		}
		return o
	}
	return goja.Undefined()
}

// patch makes v equal to p in place, and reports true, when v has p's
// shape (an object with p's keys in p's order, an array of p's length)
// down to where they differ; otherwise it returns a copy of p to put in
// v's place. v must be plain data as restore makes it (see
// restoreChanged); keys holds its objects' keys, as far as known.
func (p *plainValue) patch(rt *goja.Runtime, v goja.Value, keys map[*goja.Object][]string) (goja.Value, bool) {
	if p.kind < plainArray {
		if samePrimitive(v, p) {
			return v, true
		}
		return p.value(rt), false
	}
	o, ok := v.(*goja.Object)
	if !ok || (o.ClassName() == "Array") != (p.kind == plainArray) {
		return p.value(rt), false
	}
	if p.kind == plainArray {
		// An array that grew or shrank is cut or extended to p's length
		// (a push, a pop, cleared), its items patched.
		if n := o.Get("length").ToInteger(); n > int64(len(p.items)) && o.Set("length", len(p.items)) != nil {
			return p.value(rt), false
		}
		for i := range p.items {
			k := strconv.Itoa(i)
			if nv, same := p.items[i].patch(rt, o.Get(k), keys); !same && o.Set(k, nv) != nil {
				return p.value(rt), false
			}
		}
		return o, true
	}
	ks, ok := keys[o]
	if !ok {
		ks = o.GetOwnPropertyNames() // its enumerable ones, in a tame heap
	}
	if !slices.Equal(ks, p.keys) {
		return p.value(rt), false
	}
	for i, k := range p.keys {
		if nv, same := p.items[i].patch(rt, o.Get(k), keys); !same && o.Set(k, nv) != nil {
			return p.value(rt), false
		}
	}
	return o, true
}

// render writes v canonically: JSON for plain data; a function, a class
// instance or any other object as its class and its String; a value past
// the bounds (MaxItems, MaxStringLen) as a marker, so that rendering never
// runs away.
func render(b *strings.Builder, v goja.Value) {
	budget := MaxStringLen
	seen := map[*goja.Object]bool{}
	var walk func(v goja.Value)
	walk = func(v goja.Value) {
		if budget < 0 {
			return
		}
		switch {
		case v == nil || goja.IsUndefined(v):
			b.WriteString("undefined")
			return
		case goja.IsNull(v):
			b.WriteString("null")
			return
		case goja.IsString(v):
			s := v.String()
			budget -= len(s)
			if budget < 0 {
				return
			}
			q, _ := json.Marshal(s)
			b.Write(q)
			return
		}
		o, ok := v.(*goja.Object)
		if !ok {
			b.WriteString(v.String())
			return
		}
		if seen[o] {
			b.WriteString("<cycle>")
			return
		}
		seen[o] = true
		defer delete(seen, o)
		switch o.ClassName() {
		case "Array":
			n := o.Get("length").ToInteger()
			if n > MaxItems {
				budget = -1
				return
			}
			b.WriteByte('[')
			for i := int64(0); i < n && budget >= 0; i++ {
				if i > 0 {
					b.WriteByte(',')
				}
				budget--
				walk(o.Get(strconv.FormatInt(i, 10)))
			}
			b.WriteByte(']')
		case "Object":
			b.WriteByte('{')
			for i, k := range o.Keys() {
				if i > 0 {
					b.WriteByte(',')
				}
				budget -= len(k) + 3
				q, _ := json.Marshal(k)
				b.Write(q)
				b.WriteByte(':')
				walk(o.Get(k))
				if budget < 0 {
					return
				}
			}
			b.WriteByte('}')
		default:
			s := o.String()
			budget -= len(s)
			if budget >= 0 {
				b.WriteString("<" + o.ClassName() + " " + s + ">")
			}
		}
	}
	start := b.Len()
	walk(v)
	if budget < 0 {
		s := b.String()[:start]
		b.Reset()
		b.WriteString(s)
		fmt.Fprintf(b, "<a value past %d items or %d characters>", MaxItems, MaxStringLen)
	}
}

// plainSource is the check that a value is plain data: JSON.parse of
// JSON.stringify gives it back, as a value of its own.
const plainSource = `(function () {
  'use strict';
  const OP = Object.prototype, AP = Array.prototype, proto = Object.getPrototypeOf, desc = Object.getOwnPropertyDescriptor,
    names = Object.getOwnPropertyNames, syms = Object.getOwnPropertySymbols, extensible = Object.isExtensible, isArray = Array.isArray;
  const plain = function (v, seen) {
    switch (typeof v) {
    case 'boolean': case 'string': case 'undefined': return true;
    case 'number': return isFinite(v) && !(v === 0 && 1 / v < 0);
    case 'object': {
      if (v === null) return true;
      if (seen.has(v)) return false;
      seen.add(v);
      const arr = isArray(v);
      if (!extensible(v) || syms(v).length > 0 || proto(v) !== (arr ? AP : OP)) return false;
      const ks = names(v);
      if (arr && ks.length !== v.length + 1) return false;
      for (let i = 0; i < ks.length; i++) {
        if (arr && ks[i] === 'length') continue;
        const d = desc(v, ks[i]);
        if (!('value' in d) || !d.writable || !d.enumerable || !d.configurable) return false;
        if (!plain(d.value, seen)) return false;
      }
      return true;
    }
    }
    return false;
  };
  return function (v) { return v === undefined || plain(v, new Set()); };
})()`

var plainProgram = goja.MustCompile("plain", plainSource, true)

// globals returns the names of the enumerable globals beyond those a fresh
// runtime has (the declared variables and what scripts made), declared
// ones first in document order.
func (d *ecma) globals() []string {
	out := append([]string(nil), d.vars...)
	declared := map[string]bool{}
	for _, v := range d.vars {
		declared[v] = true
	}
	for _, k := range d.rt.GlobalObject().Keys() {
		if !d.baseline[k] && !declared[k] {
			out = append(out, k)
		}
	}
	return out
}

func (d *ecma) Save() (any, bool) {
	if d.p.lexical {
		return nil, false
	}
	return d.save(d.globals(), true)
}

// save copies the globals names (d.globals). With check, each value is
// checked to be plain data (plainSource) first; without, the caller
// knows they are.
func (d *ecma) save(names []string, check bool) (*savedData, bool) {
	s := &savedData{names: names, nvars: len(d.vars), vals: make([]plainValue, len(names)), rand: d.rand}
	g := d.rt.GlobalObject()
	for i, n := range names {
		v := g.Get(n)
		if v == nil || goja.IsUndefined(v) {
			continue
		}
		if !check {
			s.vals[i] = capture(v)
			continue
		}
		if ok, err := d.plain(goja.Undefined(), v); err != nil || !ok.ToBoolean() {
			return nil, false
		}
		s.vals[i] = capture(v)
	}
	return s, true
}

func (d *ecma) Restore(x any) bool {
	s := x.(*savedData)
	g := d.rt.GlobalObject()
	// Every global beyond a fresh runtime's (the declared variables are
	// among them) that the saved session did not have goes. The globals
	// that stay keep their places and new ones come last, but the saved
	// order is part of the data (globals() lists it, and fingerprints hash
	// it, as a replay from the start makes it): those out of place go too,
	// to be made anew.
	j := 0 // how many of s's globals are in place; -1 once one is not
	for _, k := range g.Keys() {
		if d.baseline[k] {
			continue
		}
		if j >= 0 && j < len(s.names) && s.names[j] == k {
			j++
			continue
		}
		if contains(s.names, k) {
			j = -1 // k and every global of s's after it are out of place
		}
		if g.Delete(k) != nil || g.Get(k) != nil {
			return false
		}
	}
	for i, n := range s.names {
		p := &s.vals[i]
		if p.kind < plainArray && samePrimitive(g.Get(n), p) {
			continue // unchanged: most steps change one variable or none
		}
		if err := g.Set(n, p.value(d.rt)); err != nil {
			return false
		}
	}
	d.vars = append(d.vars[:0], s.names[:s.nvars]...)
	d.rand = s.rand
	return true
}

// restoreChanged is Restore for a heap that has s's globals and no
// others, whose variables' fingerprints are cur: it sets only those that
// differ from s's. With tame (the heap is plain data whose objects are as
// Restore makes them: extensible, with writable data properties, none
// shared), a variable's objects are patched where they have the saved
// shape rather than made anew; without, every object is made anew, as a
// fingerprint does not tell a frozen object from another. It reports
// false when a set fails.
func (d *ecma) restoreChanged(s *savedData, cur []uint64, tame bool, keys map[*goja.Object][]string) bool {
	g := d.rt.GlobalObject()
	for i, n := range s.names {
		p := &s.vals[i]
		if cur[i] == s.hashes[i] && (tame || p.kind < plainArray) {
			continue
		}
		if tame {
			if v, ok := p.patch(d.rt, g.Get(n), keys); ok {
				continue
			} else if err := g.Set(n, v); err != nil {
				return false
			}
			continue
		}
		if err := g.Set(n, p.value(d.rt)); err != nil {
			return false
		}
	}
	d.vars = append(d.vars[:0], s.names[:s.nvars]...)
	d.rand = s.rand
	return true
}

func contains(names []string, k string) bool {
	for _, n := range names {
		if n == k {
			return true
		}
	}
	return false
}

// samePrimitive reports whether v is the primitive p holds.
func samePrimitive(v goja.Value, p *plainValue) bool {
	if v == nil {
		return false
	}
	switch p.kind {
	case plainUndefined:
		return goja.IsUndefined(v)
	case plainNull:
		return goja.IsNull(v)
	case plainString:
		return goja.IsString(v) && v.String() == p.str
	case plainNumber:
		return goja.IsNumber(v) && v.ToFloat() == p.num && (p.num != 0 || 1/v.ToFloat() == 1/p.num)
	case plainTrue, plainFalse:
		_, isObj := v.(*goja.Object)
		return !isObj && v.ExportType() != nil && v.ExportType().Kind() == reflect.Bool && v.ToBoolean() == (p.kind == plainTrue)
	}
	return false
}
