// Package enginetest helps tests of package engine and of its users: a small
// fluent builder of engine.Definitions, and Run, which drives a machine
// through a script of events and renders the trace as deterministic text.
// For property tests it draws random valid machines (RandomMachine) and
// random conversations (RandomMoves, played by Play), pairs them as a Case
// with a gopter generator (GenCase), and renders a definition back as
// builder code (GoSource) so that a failing case becomes a plain spec.
package enginetest

import (
	"strings"

	"github.com/simctl/simctl/engine"
)

// Builder assembles an engine.Definition. Its methods append in call order,
// so the definition lists states, slots and transitions as the test wrote
// them. Positions are left zero; tests that check positions set them on the
// definition returned by Def.
type Builder struct{ d engine.Definition }

// New starts a definition named name whose initial state is initial.
func New(name, initial string) *Builder {
	return &Builder{d: engine.Definition{Name: name, Initial: initial}}
}

// Intents declares intents.
func (b *Builder) Intents(names ...string) *Builder {
	for _, n := range names {
		b.d.Intents = append(b.d.Intents, engine.NameDef{Name: n})
	}
	return b
}

// Slot declares a slot.
func (b *Builder) Slot(name string, typ engine.SlotType) *Builder {
	b.d.Slots = append(b.d.Slots, engine.SlotDef{Name: name, Type: typ})
	return b
}

// PersistentSlot declares a slot that survives reset_context.
func (b *Builder) PersistentSlot(name string, typ engine.SlotType) *Builder {
	b.d.Slots = append(b.d.Slots, engine.SlotDef{Name: name, Type: typ, Persist: true})
	return b
}

// Counter declares a counter with a limit (0: none).
func (b *Builder) Counter(name string, limit int) *Builder {
	b.d.Counters = append(b.d.Counters, engine.CounterDef{Name: name, Limit: limit})
	return b
}

// Timer declares a timer with its default duration.
func (b *Builder) Timer(name string, afterMS int64) *Builder {
	b.d.Timers = append(b.d.Timers, engine.TimerDef{Name: name, AfterMS: afterMS})
	return b
}

// Flow declares a flow collecting slots in order.
func (b *Builder) Flow(name string, slots ...string) *Builder {
	b.d.Flows = append(b.d.Flows, engine.FlowDef{Name: name, Slots: slots})
	return b
}

// External declares an external action; succeeds is its stub's success
// condition ("" for always).
func (b *Builder) External(name, succeeds string) *Builder {
	b.d.Actions = append(b.d.Actions, engine.ExternalDef{Name: name, Succeeds: engine.Expr{Src: succeeds}})
	return b
}

// Output adds an output to the declared external action named action: on
// success its stub reports the value of expr as entity name, which lands in
// the slot of that name.
func (b *Builder) Output(action, name, expr string) *Builder {
	for i := range b.d.Actions {
		if b.d.Actions[i].Name == action {
			b.d.Actions[i].Outputs = append(b.d.Actions[i].Outputs, engine.OutputDef{Name: name, Expr: engine.Expr{Src: expr}})
		}
	}
	return b
}

// MaxChain sets the bound on eventless transitions per step.
func (b *Builder) MaxChain(n int) *Builder {
	b.d.MaxChain = n
	return b
}

// State declares a state by its full dotted path: "form.name" is state
// "name" whose parent is "form".
func (b *Builder) State(path string, parts ...Part) *Builder {
	sd := engine.StateDef{Name: path}
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		sd.Parent, sd.Name = path[:i], path[i+1:]
	}
	for _, p := range parts {
		p(&sd)
	}
	b.d.States = append(b.d.States, sd)
	return b
}

// Def returns the definition built so far. It is the builder's own, so a
// test may change it before building.
func (b *Builder) Def() *engine.Definition { return &b.d }

// Build compiles the definition and returns its errors (not its warnings)
// as one error.
func (b *Builder) Build() (*engine.Machine, error) {
	m, diags := engine.Build(&b.d)
	return m, diags.Err()
}

// Part sets something on a state.
type Part func(*engine.StateDef)

// Initial names the initial child of a compound state.
func Initial(child string) Part { return func(s *engine.StateDef) { s.Initial = child } }

// Final marks a final state.
func Final() Part { return func(s *engine.StateDef) { s.Final = true } }

// Waits marks a state that rests awaiting user input.
func Waits() Part { return func(s *engine.StateDef) { s.Waits = true } }

// Entry appends entry actions.
func Entry(acts ...engine.ActionDef) Part {
	return func(s *engine.StateDef) { s.Entry = append(s.Entry, acts...) }
}

// Exit appends exit actions.
func Exit(acts ...engine.ActionDef) Part {
	return func(s *engine.StateDef) { s.Exit = append(s.Exit, acts...) }
}

// On adds an unguarded transition; an empty target makes it targetless.
func On(trigger, target string, acts ...engine.ActionDef) Part {
	return OnIf(trigger, "", target, acts...)
}

// OnIf adds a guarded transition.
func OnIf(trigger, guard, target string, acts ...engine.ActionDef) Part {
	return func(s *engine.StateDef) {
		s.On = append(s.On, engine.TransitionDef{On: trigger, Guard: engine.Expr{Src: guard}, Target: target, Actions: acts})
	}
}

// Always adds an unguarded eventless transition.
func Always(target string, acts ...engine.ActionDef) Part { return AlwaysIf("", target, acts...) }

// AlwaysIf adds a guarded eventless transition.
func AlwaysIf(guard, target string, acts ...engine.ActionDef) Part {
	return func(s *engine.StateDef) {
		s.Always = append(s.Always, engine.TransitionDef{Guard: engine.Expr{Src: guard}, Target: target, Actions: acts})
	}
}

// act builds an action; the helpers below name its fields.
func act(kind engine.ActionKind, name string) engine.ActionDef {
	return engine.ActionDef{Kind: kind, Name: name}
}

// Say says a template: literal text with {expression} placeholders.
func Say(template string) engine.ActionDef { return act(engine.ActSay, template) }

// Escalate hands over to a human, the reason being a template.
func Escalate(reason string) engine.ActionDef { return act(engine.ActEscalate, reason) }

// Set sets a slot to the value of an expression.
func Set(slot, expr string) engine.ActionDef {
	return engine.ActionDef{Kind: engine.ActSet, Slot: slot, Expr: engine.Expr{Src: expr}}
}

// Clear empties a slot, or every slot for "all".
func Clear(slot string) engine.ActionDef { return act(engine.ActClear, slot) }

// Fill sets the waiting slot to the value of an expression.
func Fill(expr string) engine.ActionDef {
	return engine.ActionDef{Kind: engine.ActFill, Expr: engine.Expr{Src: expr}}
}

// Ask waits for a slot; "next" is the current flow's first empty slot and
// "none" stops waiting.
func Ask(slot string) engine.ActionDef { return act(engine.ActAsk, slot) }

// Incr adds one to a counter.
func Incr(counter string) engine.ActionDef { return act(engine.ActIncr, counter) }

// Reset zeroes a counter, or every counter for "all".
func Reset(counter string) engine.ActionDef { return act(engine.ActReset, counter) }

// Push pushes a flow.
func Push(flow string) engine.ActionDef { return act(engine.ActPush, flow) }

// Pop pops the current flow.
func Pop() engine.ActionDef { return act(engine.ActPop, "") }

// Invoke invokes an external action.
func Invoke(ext string) engine.ActionDef { return act(engine.ActInvoke, ext) }

// Start starts or restarts a timer for its declared duration.
func Start(timer string) engine.ActionDef { return act(engine.ActStart, timer) }

// StartAfter starts or restarts a timer for the milliseconds an expression
// gives.
func StartAfter(timer, ms string) engine.ActionDef {
	return engine.ActionDef{Kind: engine.ActStart, Name: timer, Expr: engine.Expr{Src: ms}}
}

// Cancel cancels a timer.
func Cancel(timer string) engine.ActionDef { return act(engine.ActCancel, timer) }

// ResetContext clears non-persistent slots, counters, the waiting slot and
// the flow stack.
func ResetContext() engine.ActionDef { return act(engine.ActResetContext, "") }

// Contract sets the calling fork branch's result to the value of a text
// expression.
func Contract(expr string) engine.ActionDef {
	return engine.ActionDef{Kind: engine.ActContract, Expr: engine.Expr{Src: expr}}
}

// Failed marks a final state inside a fork as a failed branch ending.
func Failed() Part { return func(s *engine.StateDef) { s.Failed = true } }

// To is an unguarded transition for a timeout's then list or a fork's join.
func To(target string, acts ...engine.ActionDef) engine.TransitionDef {
	return ToIf("", target, acts...)
}

// ToIf is a guarded transition for a timeout's then list or a fork's join.
func ToIf(guard, target string, acts ...engine.ActionDef) engine.TransitionDef {
	return engine.TransitionDef{Guard: engine.Expr{Src: guard}, Target: target, Actions: acts}
}

// Timeout arms a timeout of afterMS on the state; the first of then whose
// guard holds is taken when it fires.
func Timeout(afterMS int64, then ...engine.TransitionDef) Part {
	return func(s *engine.StateDef) { s.Timeout = &engine.TimeoutDef{AfterMS: afterMS, Then: then} }
}

// ForkOpt sets something on a fork.
type ForkOpt func(*engine.ForkDef)

// Fork makes a compound state a fork.
func Fork(opts ...ForkOpt) Part {
	return func(s *engine.StateDef) {
		f := &engine.ForkDef{}
		for _, o := range opts {
			o(f)
		}
		s.Fork = f
	}
}

// Branches gives a fork a fixed number of branches.
func Branches(n int) ForkOpt { return func(f *engine.ForkDef) { f.Branches = n } }

// InputsFrom starts one branch per "|"-separated part of a text slot.
func InputsFrom(slot string) ForkOpt { return func(f *engine.ForkDef) { f.InputsFrom = slot } }

// Into merges the branches' contracts into a text slot.
func Into(slot string) ForkOpt { return func(f *engine.ForkDef) { f.Into = slot } }

// MergeBy sets the merge order: "index" or "finish".
func MergeBy(order string) ForkOpt { return func(f *engine.ForkDef) { f.Merge = order } }

// Join appends join transitions, tried in order once every branch finished.
func Join(ts ...engine.TransitionDef) ForkOpt {
	return func(f *engine.ForkDef) { f.Join = append(f.Join, ts...) }
}

// Anywhere adds a machine-level transition (machine.yaml's top-level on:),
// tried in every state after the state's own; guard may be empty.
func (b *Builder) Anywhere(trigger, guard, target string, acts ...engine.ActionDef) *Builder {
	b.d.On = append(b.d.On, engine.TransitionDef{On: trigger, Guard: engine.Expr{Src: guard}, Target: target, Actions: acts})
	return b
}

// OverrideOpt sets something on an override.
type OverrideOpt func(*engine.OverrideDef)

// Override declares a global transition override redirecting to target.
// Without options it applies to every transition.
func (b *Builder) Override(name, target string, opts ...OverrideOpt) *Builder {
	o := engine.OverrideDef{Name: name, Target: target}
	for _, opt := range opts {
		opt(&o)
	}
	b.d.Overrides = append(b.d.Overrides, o)
	return b
}

// When guards an override.
func When(guard string) OverrideOpt {
	return func(o *engine.OverrideDef) { o.Guard = engine.Expr{Src: guard} }
}

// From limits an override to the machine being in one of states.
func From(states ...string) OverrideOpt {
	return func(o *engine.OverrideDef) {
		for _, s := range states {
			o.From = append(o.From, engine.NameDef{Name: s})
		}
	}
}

// Toward limits an override to transitions targeting one of states.
func Toward(states ...string) OverrideOpt {
	return func(o *engine.OverrideDef) {
		for _, s := range states {
			o.To = append(o.To, engine.NameDef{Name: s})
		}
	}
}

// Do gives an override actions of its own.
func Do(acts ...engine.ActionDef) OverrideOpt {
	return func(o *engine.OverrideDef) { o.Actions = append(o.Actions, acts...) }
}

// Param declares a machine parameter with its default; values, when given,
// list what it may be.
func (b *Builder) Param(name string, typ engine.SlotType, def string, values ...string) *Builder {
	b.d.Params = append(b.d.Params, engine.ParamDef{Name: name, Type: typ, Default: def, Values: values})
	return b
}

// Assign gives a parameter its value for this build (a variant).
func (b *Builder) Assign(name, value string) *Builder {
	if b.d.Assign == nil {
		b.d.Assign = map[string]string{}
	}
	b.d.Assign[name] = value
	return b
}

// DataModel sets the machine's data model (nil: the expression language).
func (b *Builder) DataModel(dm engine.DataModel) *Builder {
	b.d.DataModel = dm
	return b
}

// Raise puts an event on the internal queue.
func Raise(event string) engine.ActionDef { return act(engine.ActRaise, event) }

// Send sends an event to the machine's external queue after the delay
// (milliseconds) an expression gives ("": none), with a sendid ("": none).
func Send(event, id, delay string) engine.ActionDef {
	return engine.ActionDef{Kind: engine.ActSend, Name: event, ID: id, Expr: engine.Expr{Src: delay}}
}

// CancelSend cancels the pending sends with a sendid.
func CancelSend(id string) engine.ActionDef { return act(engine.ActCancelSend, id) }

// If runs the first block whose condition holds; Then and Else make them.
func If(blocks ...engine.CondDef) engine.ActionDef {
	return engine.ActionDef{Kind: engine.ActIf, Branches: blocks}
}

// Then is an if (or elseif) block.
func Then(cond string, acts ...engine.ActionDef) engine.CondDef {
	return engine.CondDef{Cond: engine.Expr{Src: cond}, Actions: acts}
}

// Else is an if's last block.
func Else(acts ...engine.ActionDef) engine.CondDef { return engine.CondDef{Actions: acts} }

// Foreach runs body once per item of an array, item and index bound.
func Foreach(array, item, index string, body ...engine.ActionDef) engine.ActionDef {
	return engine.ActionDef{Kind: engine.ActForeach, Expr: engine.Expr{Src: array}, Item: item, Index: index, Body: body}
}

// Log logs a value under a label.
func Log(label, expr string) engine.ActionDef {
	return engine.ActionDef{Kind: engine.ActLog, Name: label, Expr: engine.Expr{Src: expr}}
}

// Assign assigns a value to a location.
func Assign(location, expr string) engine.ActionDef {
	return engine.ActionDef{Kind: engine.ActAssign, Slot: location, Expr: engine.Expr{Src: expr}}
}

// Script runs a script in the data model.
func Script(src string) engine.ActionDef {
	return engine.ActionDef{Kind: engine.ActScript, Expr: engine.Expr{Src: src}}
}

// DoneData gives a final state's done.state event a value.
func DoneData(expr string) Part {
	return func(s *engine.StateDef) { s.DoneData = engine.Expr{Src: expr} }
}

// WithData gives a raise or send the data its event carries.
func WithData(a engine.ActionDef, expr string) engine.ActionDef {
	a.Data = engine.Expr{Src: expr}
	return a
}
