package engine_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// signupVariants collects an email address. Three parameters make its
// variants: tone (text, formal or casual) picks the greeting, confirm (bool)
// adds a confirmation, max_tries (number) bounds the bad answers. The slot
// is named email like the builtin validator, which stays callable as
// is_email.
func signupVariants() *et.Builder {
	return et.New("signup", "idle").
		Intents("hello", "inform").
		Slot("email", engine.TypeText).
		Counter("attempts", 0).
		Param("tone", engine.TypeText, "formal", "formal", "casual").
		Param("confirm", engine.TypeBool, "false").
		Param("max_tries", engine.TypeNumber, "2").
		State("idle", et.Waits(),
			et.OnIf("hello", `tone == "casual"`, "asking", et.Say("hey! mail?")),
			et.On("hello", "asking", et.Say("Good day. Your email address, please ({max_tries} tries)."))).
		State("asking", et.Waits(), et.On("inform", "check", et.Set("email", "event.value"))).
		State("check",
			et.AlwaysIf(`is_email(email) && confirm`, "confirming", et.Say("is {email} right?")),
			et.AlwaysIf(`is_email(email)`, "done"),
			et.AlwaysIf(`attempts + 1 >= max_tries`, "gave_up", et.Say("giving up")),
			et.Always("asking", et.Say("{email} is not an email"), et.Incr("attempts"), et.Clear("email"))).
		State("confirming", et.Waits()).
		State("done", et.Final()).
		State("gave_up", et.Final())
}

// variantCase is an assignment of parameters, a script and where it ends.
type variantCase struct {
	assign map[string]string
	script []string
	state  string
	says   []string
}

var _ = Describe("parameters", func() {
	var (
		cfg engine.Config
		res engine.Result
	)

	BeforeEach(func() {
		cfg, res = engine.Config{}, engine.Result{}
	})

	It("take their defaults when the build assigns nothing", func() {
		m, err := signupVariants().Build()
		Expect(err).NotTo(HaveOccurred())
		for name, want := range map[string]engine.Value{
			"tone":      engine.TextValue("formal"),
			"confirm":   engine.BoolValue(false),
			"max_tries": engine.NumberValue(2),
		} {
			got, ok := m.Param(name)
			Expect(ok).To(BeTrue(), "got no parameter %q, want one", name)
			Expect(got).To(Equal(want), "parameter %q", name)
		}
		_, ok := m.Param("email")
		Expect(ok).To(BeFalse(), "a slot is not a parameter")
	})

	DescribeTable("select a variant whose guards take another path",
		func(tc variantCase) {
			b := signupVariants()
			for k, v := range tc.assign {
				b.Assign(k, v)
			}
			m, err := b.Build()
			Expect(err).NotTo(HaveOccurred())
			var says []string
			Expect(m.Start(&cfg, 0, &res)).To(Succeed())
			for _, s := range tc.script {
				ev, err := et.ParseEvent(m, &cfg, s)
				Expect(err).NotTo(HaveOccurred())
				Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
				says = append(says, et.Says(&res)...)
			}
			Expect(m.StateName(cfg.State)).To(Equal(tc.state))
			Expect(says).To(Equal(tc.says))
		},
		Entry("defaults", variantCase{
			script: []string{"hello", "inform=ada@b.co"},
			state:  "done",
			says:   []string{"Good day. Your email address, please (2 tries)."}}),
		Entry("casual tone", variantCase{
			assign: map[string]string{"tone": "casual"},
			script: []string{"hello", "inform=ada@b.co"},
			state:  "done",
			says:   []string{"hey! mail?"}}),
		Entry("with confirmation", variantCase{
			assign: map[string]string{"confirm": "true"},
			script: []string{"hello", "inform=ada@b.co"},
			state:  "confirming",
			says:   []string{"Good day. Your email address, please (2 tries).", "is ada@b.co right?"}}),
		Entry("two tries by default", variantCase{
			script: []string{"hello", "inform=ada", "inform=bob"},
			state:  "gave_up",
			says:   []string{"Good day. Your email address, please (2 tries).", "ada is not an email", "giving up"}}),
		Entry("three tries", variantCase{
			assign: map[string]string{"max_tries": "3"},
			script: []string{"hello", "inform=ada", "inform=bob"},
			state:  "asking",
			says: []string{"Good day. Your email address, please (3 tries).",
				"ada is not an email", "bob is not an email"}}),
	)

	It("let a slot take a builtin validator's name, which stays callable as is_NAME", func() {
		m, diags := engine.Build(signupVariants().Def())
		Expect(diags).To(BeEmpty())
		_, isSlot := m.SlotID("email")
		Expect(isSlot).To(BeTrue())
		Expect(stepAll(m, &cfg, &res, "hello", "inform=not-an-address")).To(Succeed())
		Expect(m.StateName(cfg.State)).To(Equal("asking"), "is_email rejected the slot's value")
		Expect(stepScript(m, &cfg, &res, "inform=ada@b.co")).To(Succeed())
		Expect(m.StateName(cfg.State)).To(Equal("done"))
		Expect(slotValue(m, &cfg, "email")).To(Equal(engine.TextValue("ada@b.co")))
	})
})

var _ = Describe("Build of parameters", func() {
	var def *engine.Definition

	BeforeEach(func() {
		def = signupVariants().Def()
		def.Pos = at(1, 1)
		def.Slots[0].Pos = at(5, 3)
		def.Params[0].Pos = at(40, 3)
		def.Params[1].Pos = at(41, 3)
		def.Params[2].Pos = at(42, 3)
	})

	assign := func(name, value string) func(*engine.Definition) {
		return func(d *engine.Definition) { d.Assign = map[string]string{name: value} }
	}

	DescribeTable("reports a bad parameter or assignment with its position",
		func(tc buildCase) { expectDiagnostic(def, tc) },
		Entry("unknown assigned parameter", buildCase{
			mutate: assign("colour", "red"),
			msg:    `variant assigns unknown parameter "colour"`, pos: at(1, 1)}),
		Entry("assigned value outside the declared values", buildCase{
			mutate: assign("tone", "rude"),
			msg:    `parameter "tone": value "rude" is not one of formal, casual`, pos: at(40, 3)}),
		Entry("default outside the declared values", buildCase{
			mutate: func(d *engine.Definition) { d.Params[0].Default = "" },
			msg:    `parameter "tone": value "" is not one of formal, casual`, pos: at(40, 3)}),
		Entry("boolean that is not true or false", buildCase{
			mutate: assign("confirm", "yes"),
			msg:    `parameter "confirm": "yes" is not true or false`, pos: at(41, 3)}),
		Entry("number that is not a number", buildCase{
			mutate: assign("max_tries", "many"),
			msg:    `parameter "max_tries": "many" is not a number`, pos: at(42, 3)}),
		Entry("number that is not finite", buildCase{
			mutate: assign("max_tries", "Inf"),
			msg:    `parameter "max_tries": "Inf" is not a number`, pos: at(42, 3)}),
		Entry("name shared with a slot", buildCase{
			mutate: func(d *engine.Definition) {
				d.Params = append(d.Params, engine.ParamDef{Name: "email", Default: "x", Pos: at(43, 3)})
			},
			msg: `duplicate name "email" (first declared at machine.yaml:5:3)`, pos: at(43, 3)}),
		Entry("reserved name", buildCase{
			mutate: func(d *engine.Definition) {
				d.Params = append(d.Params, engine.ParamDef{Name: "state", Pos: at(43, 3)})
			},
			msg: `parameter name "state" is reserved`, pos: at(43, 3)}),
		Entry("parameter of the wrong type in a guard", buildCase{
			mutate: func(d *engine.Definition) {
				d.States[0].On[0].Guard = engine.Expr{Src: `confirm == "yes"`, Pos: at(12, 20)}
			},
			msg: `in expression "confirm == \"yes\"": invalid operation: == (mismatched types bool and string)`, pos: at(12, 28)}),
	)
})
