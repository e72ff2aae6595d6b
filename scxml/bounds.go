package scxml

import (
	"errors"
	"fmt"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// Scripts are bounded in memory as in time, so that no document makes
// simctl die with a Go out-of-memory error. goja runs its built-ins
// (Array.prototype.fill, String.prototype.repeat, ...) as Go loops that
// neither check the script's interrupt nor bound what they allocate: over
// an array of length 4294967295 (which costs nothing to make, as it is
// sparse) they run for minutes or ask the Go runtime for 16 GB at once.
// Three guards close that:
//   - every built-in whose work follows a length or a count argument rather
//     than the script's own steps checks it first (at most MaxItems items,
//     MaxStringLen characters) and throws a RangeError, which the
//     recommendation makes an error.execution;
//   - binary data (ArrayBuffer, DataView, typed arrays), whose size is
//     allocated at once, is not in the data model;
//   - while a script runs, a watchdog checks the heap every
//     watchEvery and interrupts a script that has grown it by more than
//     MaxScriptHeap (string concatenation in a loop), as it interrupts one
//     that runs longer than ScriptTimeout; the session then halts.
const (
	// MaxItems bounds an array a built-in works through or makes, and
	// the items of a <foreach>.
	MaxItems = 1 << 20
	// MaxStringLen bounds a string a built-in makes, and the text of a
	// value rendered with JSON.
	MaxStringLen = 1 << 24
	// MaxScriptHeap bounds how much one evaluation may grow the heap.
	MaxScriptHeap = 256 << 20
	watchEvery    = 10 * time.Millisecond
)

// errTooLarge is the error of a value past the bounds.
var errTooLarge = errors.New("value too large")

// guards is the script that puts the bounds on a fresh runtime's built-ins:
// it is called with the Go check of a value's rendered size.
const guards = `(function (maxItems, maxStr, jsonCheck) {
  'use strict';
  const apply = Reflect.apply, define = Object.defineProperty, names = Object.getOwnPropertyNames;
  const lengthOf = function (o) {
    if (o === null || o === undefined) return 0;
    const n = Number(o.length);
    return n > 0 ? n : 0;
  };
  const items = function (n, what) {
    if (n > maxItems) throw new RangeError(what + ' of ' + n + ' items: simctl bounds it at ' + maxItems);
  };
  const chars = function (n) {
    if (n > maxStr) throw new RangeError('a string of ' + n + ' characters: simctl bounds it at ' + maxStr);
  };
  const wrap = function (obj, key, check) {
    const f = obj[key];
    if (typeof f !== 'function' || key === 'constructor') return;
    const w = {[typeof key === 'symbol' ? 'iterator' : key]: function (...args) {
      check(this, args);
      return apply(f, this, args);
    }}[typeof key === 'symbol' ? 'iterator' : key];
    define(obj, key, {value: w, writable: true, configurable: true, enumerable: false});
  };
  const AP = Array.prototype, SP = String.prototype;
  // The other methods of Array.prototype are checked in Go (boundArray):
  // charts call them in their conditions, on every step.
  // join renders every item: its result is bounded as well as its length.
  const join = AP.join;
  const boundedJoin = function (sep) {
    const n = lengthOf(this);
    items(n, 'an array');
    const s = sep === undefined ? ',' : String(sep);
    const parts = [];
    let total = 0;
    for (let i = 0; i < n; i++) {
      const x = this[i];
      const p = x === null || x === undefined ? '' : String(x);
      total += p.length + (i > 0 ? s.length : 0);
      chars(total);
      parts.push(p);
    }
    return apply(join, parts, [s]);
  };
  define(AP, 'join', {value: boundedJoin, writable: true, configurable: true, enumerable: false});
  define(AP, 'toString', {value: function toString() { return apply(boundedJoin, this, []); }, writable: true, configurable: true, enumerable: false});
  define(AP, 'toLocaleString', {value: function toLocaleString() { return apply(boundedJoin, this, []); }, writable: true, configurable: true, enumerable: false});
  const stringThis = function (t) { items(lengthOf(String(t)), 'a string split'); };
  wrap(SP, 'split', stringThis);
  wrap(SP, Symbol.iterator, stringThis);
  wrap(SP, 'repeat', function (t, a) { chars(String(t).length * Number(a[0])); });
  wrap(SP, 'padStart', function (t, a) { chars(Number(a[0])); });
  wrap(SP, 'padEnd', function (t, a) { chars(Number(a[0])); });
  wrap(SP, 'concat', function (t, a) { let n = String(t).length; for (const x of a) n += String(x).length; chars(n); });
  wrap(Array, 'from', function (t, a) { items(lengthOf(a[0]), 'Array.from'); });
  const argList = function (a) { items(lengthOf(a), 'an argument list'); };
  wrap(Function.prototype, 'apply', function (t, a) { argList(a[1]); });
  wrap(Reflect, 'apply', function (t, a) { argList(a[2]); });
  wrap(Reflect, 'construct', function (t, a) { argList(a[1]); });
  for (const k of ['keys', 'values', 'entries', 'assign', 'getOwnPropertyNames', 'fromEntries']) {
    wrap(Object, k, function (t, a) { for (const x of a) if (typeof x === 'string') items(x.length, 'a string'); });
  }
  wrap(JSON, 'stringify', function (t, a) { jsonCheck(a[0]); });
  for (const k of ['ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray',
    'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array']) {
    delete globalThis[k];
  }
})`

var guardsProgram = goja.MustCompile("guards", guards, true)

// bound puts the guards on a fresh runtime.
func bound(rt *goja.Runtime) {
	v, err := rt.RunProgram(guardsProgram)
	if err != nil {
		panic(err) // the guards are simctl's own code
	}
	f, _ := goja.AssertFunction(v)
	check := func(x goja.Value) {
		if err := renderable(x); err != nil {
			panic(rt.NewTypeError(err.Error()))
		}
	}
	if _, err := f(goja.Undefined(), rt.ToValue(MaxItems), rt.ToValue(MaxStringLen), rt.ToValue(check)); err != nil {
		panic(err)
	}
	boundArray(rt)
}

// boundArray checks the length of this before each method of
// Array.prototype but join, toString and toLocaleString (which the guards
// replace), as the guards check the others. It is Go rather than script:
// a script wrapper (a rest parameter, the check, Reflect.apply) cost
// several times the method it wraps (indexOf in a condition).
func boundArray(rt *goja.Runtime) {
	ap := rt.Get("Array").ToObject(rt).Get("prototype").ToObject(rt)
	rangeError, _ := goja.AssertConstructor(rt.Get("RangeError"))
	wrap := func(f goja.Value) goja.Value {
		orig, _ := goja.AssertFunction(f)
		return rt.ToValue(func(call goja.FunctionCall) goja.Value {
			if n := lengthOf(rt, call.This); n > MaxItems {
				e, _ := rangeError(nil, rt.ToValue(fmt.Sprintf("an array of %v items: simctl bounds it at %d", n, MaxItems)))
				panic(e)
			}
			v, err := orig(call.This, call.Arguments...)
			if err != nil {
				panic(err) // rethrown as it was (an exception, an interrupt)
			}
			return v
		})
	}
	for _, k := range ap.GetOwnPropertyNames() {
		switch k {
		case "constructor", "length", "join", "toString", "toLocaleString":
			continue
		}
		if _, ok := goja.AssertFunction(ap.Get(k)); ok {
			_ = ap.DefineDataProperty(k, wrap(ap.Get(k)), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
	}
	it := goja.SymIterator
	_ = ap.DefineDataPropertySymbol(it, wrap(ap.GetSymbol(it)), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// lengthOf is Number(v.length), 0 for null, undefined or what is not a
// positive number, as the guards' lengthOf.
func lengthOf(rt *goja.Runtime, v goja.Value) float64 {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return 0
	}
	l := v.ToObject(rt).Get("length")
	if l == nil {
		return 0
	}
	if n := l.ToFloat(); n > 0 {
		return n
	}
	return 0
}

// renderable checks that JSON.stringify of v stays within the bounds
// (arrays of at most MaxItems items, at most MaxStringLen characters of
// strings and keys), before goja's own Go loop renders it.
func renderable(v goja.Value) error {
	budget := MaxStringLen
	seen := map[*goja.Object]bool{}
	var walk func(v goja.Value) error
	walk = func(v goja.Value) error {
		switch x := v.(type) {
		case nil:
			return nil
		case *goja.Object:
			if seen[x] {
				return nil // a cycle: stringify throws on it itself
			}
			seen[x] = true
			if x.ClassName() == "Array" {
				n := x.Get("length").ToInteger()
				if n > MaxItems {
					return fmt.Errorf("an array of %d items: simctl bounds it at %d", n, MaxItems)
				}
				budget -= int(n)
				for i := int64(0); i < n && budget >= 0; i++ {
					if err := walk(x.Get(strconv.FormatInt(i, 10))); err != nil {
						return err
					}
				}
			} else {
				for _, k := range x.Keys() {
					budget -= len(k) + 3
					if budget < 0 {
						break
					}
					if err := walk(x.Get(k)); err != nil {
						return err
					}
				}
			}
		default:
			if goja.IsString(v) {
				budget -= len(v.String())
			} else {
				budget -= 8
			}
		}
		if budget < 0 {
			return fmt.Errorf("a value that renders to more than %d characters", MaxStringLen)
		}
		return nil
	}
	return walk(v)
}

// watchdog interrupts rt's current evaluation when it runs longer than
// ScriptTimeout or grows the heap by more than MaxScriptHeap. It reads
// the wall clock and the heap only to stop a runaway script: its timer
// ticks every watchEvery while evaluations go on, and looks at one only
// when the same evaluation is still running at its next tick, so that
// arming it for each evaluation costs a counter, not a timer reset.
type watchdog struct {
	rt    *goja.Runtime
	mu    sync.Mutex
	timer *time.Timer
	// seq counts evaluations; running: one is under way; ticking: the
	// timer is set; seen is seq at the last tick; start and heap0: when
	// and at what heap a tick first found the running evaluation.
	seq, seen uint64
	running   bool
	ticking   bool
	start     time.Time
	heap0     uint64
}

// Interrupt values, telling why a script was stopped.
const (
	interruptTime   = "time"
	interruptMemory = "memory"
)

func (w *watchdog) arm() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	w.running = true
	if w.ticking {
		return
	}
	w.ticking = true
	if w.timer == nil {
		w.timer = time.AfterFunc(watchEvery, w.tick)
	} else {
		w.timer.Reset(watchEvery)
	}
}

func (w *watchdog) disarm() {
	w.mu.Lock()
	w.running = false
	w.mu.Unlock()
	w.rt.ClearInterrupt()
}

func (w *watchdog) tick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case !w.running && w.seq == w.seen:
		// Nothing evaluated since the last tick: stop until the next.
		w.ticking = false
		return
	case w.running && w.seq != w.seen:
		// An evaluation the last tick did not see: from now on, it is
		// timed and its heap watched.
		w.start, w.heap0 = time.Now(), heapBytes()
	case w.running:
		// The evaluation the last tick saw is still running.
		heap := heapBytes()
		if heap > w.heap0+MaxScriptHeap || time.Since(w.start) >= ScriptTimeout {
			why := interruptTime
			if heap > w.heap0+MaxScriptHeap {
				why = interruptMemory
			}
			w.rt.Interrupt(why)
			w.ticking = false // the next arm sets the timer again
			return
		}
	}
	w.seen = w.seq
	w.timer.Reset(watchEvery)
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
var heapMu sync.Mutex

func heapBytes() uint64 {
	heapMu.Lock()
	defer heapMu.Unlock()
	metrics.Read(heapSample)
	if heapSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return heapSample[0].Value.Uint64()
}
