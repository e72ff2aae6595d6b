package engine_test

import (
	"errors"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// at is a position in the imaginary machine.yaml the definitions of these
// specs come from.
func at(line, col int) engine.Pos { return engine.Pos{File: "machine.yaml", Line: line, Col: col} }

// guard sets the guard of the first transition of the first state.
func guard(src string) func(*engine.Definition) {
	return func(d *engine.Definition) { d.States[0].On[0].Guard = engine.Expr{Src: src, Pos: at(12, 20)} }
}

// buildCase is a change that breaks a valid definition and the diagnostic
// Build must report for it.
type buildCase struct {
	mutate  func(d *engine.Definition)
	msg     string // a substring of the diagnostic's message
	pos     engine.Pos
	warning bool
}

// expectDiagnostic applies tc's change to def, builds it and checks that
// Build reports the diagnostic tc describes, at its position, and (for an
// error) no other error.
func expectDiagnostic(def *engine.Definition, tc buildCase) {
	GinkgoHelper()
	tc.mutate(def)
	m, diags := engine.Build(def)

	var found *engine.Error
	var errs []string
	for _, d := range diags {
		if !d.Warning {
			errs = append(errs, d.Error())
		}
		if found == nil && strings.Contains(d.Msg, tc.msg) {
			found = d
		}
	}
	Expect(found).NotTo(BeNil(), "got diagnostics %v, want one containing %q", diags, tc.msg)
	Expect(found.Pos).To(Equal(tc.pos), "got position %s, want %s", found.Pos, tc.pos)
	Expect(found.Warning).To(Equal(tc.warning))
	if tc.warning {
		Expect(m).NotTo(BeNil(), "a warning alone must not fail the build")
		Expect(diags.Err()).NotTo(HaveOccurred())
		return
	}
	Expect(m).To(BeNil())
	Expect(errs).To(HaveLen(1), "got errors %q, want only the one the change causes", errs)
	var be *engine.BuildError
	Expect(errors.As(diags.Err(), &be)).To(BeTrue())
	Expect(be.First()).To(Equal(found))
	Expect(be.Error()).To(Equal(fmt.Sprintf("%s: %s", tc.pos, found.Msg)))
}

var _ = Describe("Build", func() {
	var def *engine.Definition

	BeforeEach(func() {
		def = et.New("base", "idle").
			Intents("go", "stop").
			Slot("name", engine.TypeText).
			Counter("retries", 3).Counter("visits", 0).
			Timer("idle_timeout", 1000).
			State("idle", et.Waits(), et.On("go", "busy")).
			State("busy", et.Waits(), et.On("stop", "idle")).
			Def()
		def.Pos = at(1, 1)
		def.States[0].Pos, def.States[1].Pos = at(10, 3), at(20, 3)
		def.States[0].On[0].Pos, def.States[0].On[0].OnPos, def.States[0].On[0].TargetPos = at(12, 5), at(12, 9), at(12, 40)
	})

	It("accepts the base definition without any diagnostic", func() {
		m, diags := engine.Build(def)
		Expect(diags).To(BeEmpty())
		Expect(m).NotTo(BeNil())
	})

	DescribeTable("reports a bad definition with its position",
		func(tc buildCase) { expectDiagnostic(def, tc) },
		Entry("duplicate state", buildCase{
			mutate: func(d *engine.Definition) { d.States = append(d.States, engine.StateDef{Name: "busy", Pos: at(30, 3)}) },
			msg:    `duplicate state "busy" (first declared at machine.yaml:20:3)`, pos: at(30, 3)}),
		Entry("unknown transition target", buildCase{
			mutate: func(d *engine.Definition) { d.States[0].On[0].Target = "nowhere" },
			msg:    `transition target: unknown state "nowhere" (states: busy, idle)`, pos: at(12, 40)}),
		Entry("unknown parent", buildCase{
			mutate: func(d *engine.Definition) {
				d.States = append(d.States, engine.StateDef{Name: "kid", Parent: "ghost", Pos: at(30, 3)})
			},
			msg: `state "ghost.kid": unknown parent "ghost"`, pos: at(30, 3)}),
		Entry("compound state without an initial child", buildCase{
			mutate: func(d *engine.Definition) {
				d.States = append(d.States,
					engine.StateDef{Name: "box", Pos: at(30, 3)},
					engine.StateDef{Name: "inner", Parent: "box", Pos: at(31, 5)})
				d.States[1].On[0].Target = "box"
			},
			msg: `compound state "box" needs an initial child state`, pos: at(30, 3)}),
		Entry("initial child that is not a child", buildCase{
			mutate: func(d *engine.Definition) {
				d.States = append(d.States,
					engine.StateDef{Name: "box", Pos: at(30, 3), Initial: "inner2", InitialPos: at(30, 12)},
					engine.StateDef{Name: "inner", Parent: "box", Pos: at(31, 5)})
			},
			msg: `compound state "box": initial state "inner2" is not one of its children`, pos: at(30, 12)}),
		Entry("transition out of a final state", buildCase{
			mutate: func(d *engine.Definition) {
				d.States = append(d.States, engine.StateDef{Name: "end", Final: true, Pos: at(30, 3),
					On: []engine.TransitionDef{{On: "go", Target: "idle", Pos: at(31, 5)}}})
				d.States[1].On[0].Target = "end"
			},
			msg: `final state "end" cannot have outgoing transitions`, pos: at(31, 5)}),
		Entry("unknown slot in an expression", buildCase{
			mutate: guard(`nme == "x"`),
			msg:    `in expression "nme == \"x\"": unknown name nme`, pos: at(12, 20)}),
		Entry("expression syntax error, located inside the expression", buildCase{
			mutate: guard(`name == == "x"`),
			msg:    `in expression "name == == \"x\"": unexpected token Operator("==")`, pos: at(12, 28)}),
		Entry("expression type error, located at the operator", buildCase{
			mutate: guard(`retries == "x"`),
			msg:    `in expression "retries == \"x\"": invalid operation: == (mismatched types int and string)`, pos: at(12, 28)}),
		Entry("guard that is not a boolean", buildCase{
			mutate: guard(`retries + 1`),
			msg:    `expression "retries + 1" is a number, want a boolean`, pos: at(12, 20)}),
		Entry("exhausted on a counter without a limit", buildCase{
			mutate: guard(`exhausted(visits)`),
			msg:    `counter "visits" has no limit`, pos: at(12, 20)}),
		Entry("unknown intent", buildCase{
			mutate: func(d *engine.Definition) { d.States[0].On[0].On = "bye" },
			msg:    `unknown intent "bye" (intents: go, stop)`, pos: at(12, 9)}),
		Entry("unknown timer in a trigger", buildCase{
			mutate: func(d *engine.Definition) { d.States[0].On[0].On = "timer:nope" },
			msg:    `unknown timer "nope"`, pos: at(12, 9)}),
		Entry("unknown timer in an action", buildCase{
			mutate: func(d *engine.Definition) {
				d.States[0].Entry = []engine.ActionDef{{Kind: engine.ActStart, Name: "nope", Pos: at(11, 9)}}
			},
			msg: `start: unknown timer "nope"`, pos: at(11, 9)}),
		Entry("unknown slot in a set action", buildCase{
			mutate: func(d *engine.Definition) {
				d.States[0].Entry = []engine.ActionDef{{Kind: engine.ActSet, Slot: "zip", Expr: engine.Expr{Src: `"1"`}, Pos: at(11, 9)}}
			},
			msg: `set: unknown slot "zip"`, pos: at(11, 9)}),
		Entry("set expression of the wrong type", buildCase{
			mutate: func(d *engine.Definition) {
				d.States[0].Entry = []engine.ActionDef{{Kind: engine.ActSet, Slot: "name", Expr: engine.Expr{Src: `1 + 2`, Pos: at(11, 20)}, Pos: at(11, 9)}}
			},
			msg: `expression "1 + 2" is a number, want text`, pos: at(11, 20)}),
		Entry("machine without an initial state", buildCase{
			mutate: func(d *engine.Definition) { d.Initial = "" },
			msg:    `machine "base" needs an initial state`, pos: at(1, 1)}),
		Entry("unknown initial state", buildCase{
			mutate: func(d *engine.Definition) { d.Initial, d.InitialPos = "nope", at(2, 10) },
			msg:    `initial: unknown state "nope"`, pos: at(2, 10)}),
		Entry("unreachable state is a warning", buildCase{
			mutate: func(d *engine.Definition) {
				d.States = append(d.States, engine.StateDef{Name: "orphan", Pos: at(30, 3)})
			},
			msg: `state "orphan" is unreachable from the initial state`, pos: at(30, 3), warning: true}),
		Entry("too many slots", buildCase{
			mutate: func(d *engine.Definition) {
				for i := len(d.Slots); i <= engine.MaxSlots; i++ {
					d.Slots = append(d.Slots, engine.SlotDef{Name: fmt.Sprintf("s%d", i), Pos: at(100+i, 3)})
				}
			},
			msg: fmt.Sprintf("too many slots: %d (at most %d)", engine.MaxSlots+1, engine.MaxSlots), pos: at(100+engine.MaxSlots, 3)}),
		Entry("reserved name", buildCase{
			mutate: func(d *engine.Definition) {
				d.Slots = append(d.Slots, engine.SlotDef{Name: "state", Pos: at(40, 3)})
			},
			msg: `slot name "state" is reserved`, pos: at(40, 3)}),
		Entry("name shared by a slot and a counter", buildCase{
			mutate: func(d *engine.Definition) {
				d.Slots[0].Pos = at(40, 3)
				d.Counters = append(d.Counters, engine.CounterDef{Name: "name", Pos: at(45, 3)})
			},
			msg: `duplicate name "name" (first declared at machine.yaml:40:3)`, pos: at(45, 3)}),
		Entry("validator with a bad regular expression", buildCase{
			mutate: func(d *engine.Definition) {
				d.Validators = append(d.Validators, engine.ValidatorDef{Name: "zip", Regex: "[0-9", Pos: at(50, 3)})
			},
			msg: `validator "zip": bad regular expression`, pos: at(50, 3)}),
	)

	// refCase is a state reference and what it resolves to: a full path,
	// or the error it causes.
	type refCase struct {
		ref  string
		path string
		err  string
	}

	DescribeTable("resolves state references by full path, unique short name or unique tail",
		func(tc refCase) {
			d := et.New("refs", "idle").Intents("go").
				State("idle", et.Waits(), et.On("go", tc.ref)).
				State("a", et.Initial("x")).State("a.x").State("a.y").
				State("b", et.Initial("x")).State("b.x").
				State("c", et.Initial("d")).State("c.d", et.Initial("e")).State("c.d.e").
				Def()
			m, diags := engine.Build(d)
			if tc.err != "" {
				Expect(diags.Err()).To(MatchError(tc.err))
				return
			}
			Expect(m).NotTo(BeNil(), "got %v, want no error", diags.Err())
			Expect(m.StateName(m.Transition(0).Target)).To(Equal(tc.path))
		},
		Entry("full path", refCase{ref: "a.y", path: "a.y"}),
		Entry("unique short name", refCase{ref: "y", path: "a.y"}),
		Entry("top-level name", refCase{ref: "b", path: "b"}),
		Entry("unique tail of a path", refCase{ref: "d.e", path: "c.d.e"}),
		Entry("ambiguous short name", refCase{ref: "x",
			err: `transition target: state name "x" is ambiguous (a.x, b.x); use the full path`}),
		Entry("unknown name", refCase{ref: "z",
			err: `transition target: unknown state "z" (states: a, a.x, a.y, b, b.x, c, c.d, c.d.e, …)`}),
	)

	It("sorts diagnostics by position and reports the first error", func() {
		def.States[1].On[0].On = "late"
		def.States[1].On[0].OnPos = at(22, 9)
		def.States[0].On[0].On = "early"
		_, diags := engine.Build(def)
		Expect(diags).To(HaveLen(2))
		Expect(diags[0].Pos).To(Equal(at(12, 9)))
		Expect(diags[1].Pos).To(Equal(at(22, 9)))
		Expect(diags.Err()).To(MatchError(`machine.yaml:12:9: unknown intent "early" (intents: go, stop)`))
	})

	It("reports every error after a rejected state, not only the first", func() {
		def.States = append(def.States,
			engine.StateDef{Name: "busy", Pos: at(30, 3)},
			engine.StateDef{Name: "later", Pos: at(40, 3),
				On: []engine.TransitionDef{{On: "nope", OnPos: at(41, 9), Target: "idle"}}})
		def.States[1].On = append(def.States[1].On, engine.TransitionDef{On: "go", Target: "later"})
		_, diags := engine.Build(def)
		var got []string
		for _, d := range diags {
			got = append(got, d.Error())
		}
		Expect(got).To(ConsistOf(
			`machine.yaml:30:3: duplicate state "busy" (first declared at machine.yaml:20:3)`,
			`machine.yaml:41:9: unknown intent "nope" (intents: go, stop)`,
		))
	})
})
