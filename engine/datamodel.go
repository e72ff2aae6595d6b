package engine

import "fmt"

// This file holds the data model interface: the language of a machine's
// conditions, values and scripts, and where the data they read and write
// lives. The recommendation leaves the data model to the document (null,
// ECMAScript, ...); the engine's own is the expression language of
// machine.yaml, whose data (slots, counters, the waiting slot) lives in
// the Config. Another (ECMAScript, for SCXML charts) plugs in through
// DataModel and keeps its data outside the Config, in a Data the caller
// holds beside it.

// CodeKind says what a data model compiles an expression as.
type CodeKind uint8

const (
	// CondCode is a boolean condition (a guard, an if's cond).
	CondCode CodeKind = iota
	// ValueCode is a value (log, a send's delay, an assign's right side, a
	// foreach's array).
	ValueCode
	// LocationCode is a location assigned to (assign, a foreach's item and
	// index).
	LocationCode
	// ScriptCode is a script run for its effects.
	ScriptCode
)

// Code is an expression a data model compiled: a handle it gives out and
// reads back; the engine never looks inside.
type Code int32

// NoCode marks an absent optional expression (a foreach without index).
const NoCode Code = -1

// DataModel compiles a machine's expressions once, at Build. A compile
// error is not a build error: as the recommendation says, the expression
// raises error.execution when it is evaluated; Build reports it as a
// warning.
type DataModel interface {
	Compile(kind CodeKind, x Expr) (Code, error)
	// NewData returns a fresh Data for one conversation of m (a machine
	// built with this data model); session names it (_sessionid).
	NewData(m *Machine, session string) Data
}

// Data is one conversation's data when it lives outside the Config (an
// ECMAScript heap). The caller keeps it beside the Config and hands both
// to StartWith and StepWith; to keep a configuration (an explorer's
// frontier), it keeps Save's value with the Config and puts it back with
// Restore. Errors the methods return are the recommendation's
// error.execution: the engine raises that event when the machine listens
// for it (an intent named error.execution), and otherwise returns the
// error from the step.
type Data interface {
	Cond(x Code, c *Config, ev *Event) (bool, error)
	Value(x Code, c *Config, ev *Event) (Value, error)
	Assign(loc, x Code, c *Config, ev *Event) error
	Script(x Code, c *Config, ev *Event) error
	// Foreach binds item (and index, unless NoCode) to each item of the
	// array x in turn, calling body after each binding; it stops at the
	// first error body returns and returns it.
	Foreach(x, item, index Code, c *Config, ev *Event, body func() error) error
	// Hold evaluates x, the data of a raised or sent event, and keeps it
	// under key until Take or Drop: it is part of the saved data, as the
	// event is pending in the configuration.
	Hold(x Code, key uint32, c *Config, ev *Event) error
	// Take hands the data held under key to the event being taken
	// (Event.Payload, read as _event.data) and forgets it; Drop forgets it
	// (a cancelled send).
	Take(key uint32)
	Drop(key uint32)
	// Save returns the data as a value Restore takes back, or false when
	// it cannot be copied so (a value the data model cannot capture); the
	// caller then replays from the start. Restore reports false when it
	// cannot put the data back.
	Save() (any, bool)
	Restore(saved any) bool
	// Fingerprint hashes the data: equal data hash equally, so that a
	// Config's Hash and the Fingerprint together key a visited set.
	Fingerprint() uint64
}

// ErrorHolder is a Data that gives the error.execution events the
// engine raises their data (the recommendation leaves it to the
// platform): HoldError keeps it under key, which Take then hands to the
// event, as Hold does a raised event's.
type ErrorHolder interface {
	HoldError(key uint32, pos Pos, err error)
}

// ErrorExecution is the event the engine raises when a data model's
// expression fails, if the machine declares it as an intent.
const ErrorExecution = "error.execution"

// language compiles the conditions, values, assignments and scripts of
// executable content into the closures a step runs. The expression
// language (exprLanguage) compiles them natively; modelLanguage wraps a
// DataModel.
type language interface {
	cond(x Expr) (boolFn, *Error)
	value(x Expr, want ValueKind) (func(evalEnv) Value, *Error)
	assign(slot string, x Expr, pos Pos) (func(evalEnv), *Error)
	script(x Expr) (func(evalEnv), *Error)
	foreach(arr Expr, item, index string, pos Pos) (func(evalEnv, func() error) error, *Error)
	// hold compiles the data of a raised or sent event.
	hold(x Expr) (func(evalEnv, uint32), *Error)
}

// exprLanguage is the expression language of machine.yaml.
type exprLanguage struct{ b *builder }

func (l exprLanguage) cond(x Expr) (boolFn, *Error) {
	c, err := l.b.xc.compile(x, Bool)
	return c.b, err
}

func (l exprLanguage) value(x Expr, want ValueKind) (func(evalEnv) Value, *Error) {
	c, err := l.b.xc.compile(x, want)
	if err != nil {
		return nil, err
	}
	return c.value, nil
}

// assign is set: the location is a slot, and the value is converted to its
// type as set's is.
func (l exprLanguage) assign(slot string, x Expr, pos Pos) (func(evalEnv), *Error) {
	m := l.b.m
	id, ok := m.slotIDs[slot]
	if !ok {
		return nil, errf(pos, "assign: unknown slot %q", slot)
	}
	want := [...]ValueKind{TypeText: Text, TypeNumber: Number, TypeBool: Bool}[m.slots[id].typ]
	c, err := l.b.xc.compile(x, want)
	if err != nil {
		return nil, err
	}
	l.b.xc.use.assigns = append(l.b.xc.use.assigns, assign{dst: SlotMask(id), src: c.slots, cat: c.cat})
	return func(e evalEnv) { e.c.SetSlot(id, emptyText(c.value(e))) }, nil
}

func (l exprLanguage) script(x Expr) (func(evalEnv), *Error) {
	return nil, errf(x.Pos, "script: the expression language has no scripts (use set, or a data model that has them)")
}

func (l exprLanguage) hold(x Expr) (func(evalEnv, uint32), *Error) {
	return nil, errf(x.Pos, "event data needs a data model that holds values (the expression language has none)")
}

// foreach iterates over the "|"-separated parts of a text, as a fork's
// inputs are given: item and index are slots.
func (l exprLanguage) foreach(arr Expr, item, index string, pos Pos) (func(evalEnv, func() error) error, *Error) {
	m := l.b.m
	c, err := l.b.xc.compile(arr, Text)
	if err != nil {
		return nil, err
	}
	it, ok := m.slotIDs[item]
	if !ok {
		return nil, errf(pos, "foreach: unknown item slot %q", item)
	}
	ix := SlotID(NoID)
	if index != "" {
		if ix, ok = m.slotIDs[index]; !ok {
			return nil, errf(pos, "foreach: unknown index slot %q", index)
		}
	}
	l.b.xc.use.assigns = append(l.b.xc.use.assigns, assign{dst: SlotMask(it), src: c.slots, cat: c.cat})
	return func(e evalEnv, body func() error) error {
		s := c.s(e)
		for i := 0; s != ""; i++ {
			part := s
			if j := indexByte(s, '|'); j >= 0 {
				part, s = s[:j], s[j+1:]
			} else {
				s = ""
			}
			e.c.SetSlot(it, emptyText(TextValue(part)))
			if ix != NoID {
				e.c.SetSlot(ix, NumberValue(float64(i)))
			}
			if err := body(); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// modelLanguage compiles executable content through a DataModel; the
// closures call the conversation's Data (Result.data) as a step runs.
type modelLanguage struct {
	b  *builder
	dm DataModel
}

// code compiles x; an expression that does not compile is a warning, and
// evaluating it raises error.execution.
func (l modelLanguage) code(kind CodeKind, x Expr) (Code, error) {
	c, err := l.dm.Compile(kind, x)
	if err != nil {
		e := errf(x.Pos, "%v", err)
		e.Warning = true
		l.b.add(e)
		return NoCode, err
	}
	return c, nil
}

func (l modelLanguage) cond(x Expr) (boolFn, *Error) {
	c, cerr := l.code(CondCode, x)
	return func(e evalEnv) bool {
		d, ok := e.ready(x.Pos, cerr)
		if !ok {
			return false
		}
		v, err := d.Cond(c, e.c, e.ev)
		if err != nil {
			e.execError(x.Pos, err)
			return false
		}
		return v
	}, nil
}

func (l modelLanguage) value(x Expr, _ ValueKind) (func(evalEnv) Value, *Error) {
	c, cerr := l.code(ValueCode, x)
	return func(e evalEnv) Value {
		d, ok := e.ready(x.Pos, cerr)
		if !ok {
			return Value{}
		}
		v, err := d.Value(c, e.c, e.ev)
		if err != nil {
			e.execError(x.Pos, err)
		}
		return v
	}, nil
}

func (l modelLanguage) assign(loc string, x Expr, pos Pos) (func(evalEnv), *Error) {
	lc, lerr := l.code(LocationCode, Expr{Src: loc, Pos: pos})
	c, cerr := l.code(ValueCode, x)
	return func(e evalEnv) {
		if d, ok := e.ready(pos, lerr, cerr); ok {
			if err := d.Assign(lc, c, e.c, e.ev); err != nil {
				e.execError(pos, err)
			}
		}
	}, nil
}

func (l modelLanguage) script(x Expr) (func(evalEnv), *Error) {
	c, cerr := l.code(ScriptCode, x)
	return func(e evalEnv) {
		if d, ok := e.ready(x.Pos, cerr); ok {
			if err := d.Script(c, e.c, e.ev); err != nil {
				e.execError(x.Pos, err)
			}
		}
	}, nil
}

func (l modelLanguage) foreach(arr Expr, item, index string, pos Pos) (func(evalEnv, func() error) error, *Error) {
	ac, aerr := l.code(ValueCode, arr)
	ic, ierr := l.code(LocationCode, Expr{Src: item, Pos: pos})
	xc := NoCode
	var xerr error
	if index != "" {
		xc, xerr = l.code(LocationCode, Expr{Src: index, Pos: pos})
	}
	return func(e evalEnv, body func() error) error {
		d, ok := e.ready(pos, aerr, ierr, xerr)
		if !ok {
			return nil
		}
		var inner error
		err := d.Foreach(ac, ic, xc, e.c, e.ev, func() error {
			inner = body()
			return inner
		})
		if err != nil && err != inner {
			// The data model's own failure (an array that is not one);
			// the body's errors stop the step.
			e.execError(pos, err)
			return nil
		}
		return err
	}, nil
}

func (l modelLanguage) hold(x Expr) (func(evalEnv, uint32), *Error) {
	c, cerr := l.code(ValueCode, x)
	return func(e evalEnv, key uint32) {
		if d, ok := e.ready(x.Pos, cerr); ok {
			if err := d.Hold(c, key, e.c, e.ev); err != nil {
				e.execError(x.Pos, err)
			}
		}
	}, nil
}

// ready returns the conversation's Data for a data model expression about
// to run; when one of errs (its compile errors) is set, or there is no
// Data, it raises error.execution instead and returns false.
func (e evalEnv) ready(pos Pos, errs ...error) (Data, bool) {
	e.payload()
	for _, err := range errs {
		if err != nil {
			e.execError(pos, err)
			return nil, false
		}
	}
	d := e.data()
	if d == nil {
		e.execError(pos, errNoData)
		return nil, false
	}
	return d, true
}

var errNoData = fmt.Errorf("no data model data: the machine was started with Start, not StartWith")

// data returns the conversation's Data while a step runs, or nil.
func (e evalEnv) data() Data {
	if e.r == nil {
		return nil
	}
	return e.r.data
}

// execError reports a failed data model expression as the recommendation
// does: error.execution is put on the internal queue when the machine
// listens for it; otherwise the step fails with a runtime error (the
// first one counts).
func (e evalEnv) execError(pos Pos, err error) {
	if e.r == nil {
		return
	}
	e.r.abort = true
	if id := e.m.errExec; id != NoID {
		q := queued{kind: queuedError, id: uint16(id)}
		if h, ok := e.r.data.(ErrorHolder); ok {
			e.c.TimerSeq++
			q.key = e.c.TimerSeq
			h.HoldError(q.key, pos, err)
		}
		e.r.internal = append(e.r.internal, q)
		return
	}
	if e.r.exprErr == nil {
		e.r.exprErr = e.m.rtErr(e.c, pos, "%v", err)
	}
}

// IsActive reports whether state s is active in c: an ancestor of the main
// leaf or of a region's (In() of the recommendation).
func (m *Machine) IsActive(c *Config, s StateID) bool {
	if c.State == NoID || int(s) >= len(m.states) {
		return false
	}
	if m.InState(c.State, s) {
		return true
	}
	for i := 0; i < int(c.NBranch); i++ {
		if l := c.Branches[i].State; l != NoID && m.InState(l, s) {
			return true
		}
	}
	return false
}
