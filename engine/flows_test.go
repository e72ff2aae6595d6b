package engine_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// slotValue returns the value of a named slot in c.
func slotValue(m *engine.Machine, c *engine.Config, name string) engine.Value {
	id, ok := m.SlotID(name)
	ExpectWithOffset(1, ok).To(BeTrue(), "got no slot %q, want one", name)
	return c.Slot(id)
}

// waiting names the slot c waits for, or "".
func waiting(m *engine.Machine, c *engine.Config) string {
	if c.Waiting == engine.NoID {
		return ""
	}
	return m.SlotName(c.Waiting)
}

// flowStack names the flows on c's stack, bottom first.
func flowStack(m *engine.Machine, c *engine.Config) []string {
	out := []string{}
	for i := 0; i < int(c.FlowDepth); i++ {
		out = append(out, m.FlowName(c.Flows[i]))
	}
	return out
}

func signupMachine() *et.Builder {
	b := et.New("signup", "idle").
		Intents("start", "inform", "survey", "finish", "cancel").
		Slot("name", engine.TypeText).Slot("mail", engine.TypeText).Slot("age", engine.TypeNumber).
		PersistentSlot("last_outcome", engine.TypeText).
		Counter("tries", 3).
		Flow("signup", "name", "mail").Flow("survey", "age").
		State("idle", et.Waits(), et.On("start", "collect", et.Push("signup"))).
		State("collect", et.Waits(),
			et.Entry(et.Ask("next")),
			et.OnIf("inform", `waiting == "mail" and not valid(event.value)`, "", et.Incr("tries"), et.Say("bad mail")),
			et.On("inform", "", et.Fill("event.value"), et.Ask("next")),
			et.On("survey", "", et.Push("survey"), et.Ask("next")),
			et.OnIf("finish", `flow == "survey"`, "", et.Pop(), et.Ask("next")),
			et.On("cancel", "idle", et.Set("last_outcome", `"cancelled"`), et.ResetContext()),
			et.AlwaysIf(`flow == "signup" and all_filled()`, "done")).
		State("done", et.Waits(), et.Entry(et.Say("thanks {name} at {mail}")))
	b.Def().Slots[1].Validator = "email"
	return b
}

var _ = Describe("the flow stack", func() {
	var (
		m   *engine.Machine
		cfg engine.Config
		res engine.Result
	)

	BeforeEach(func() {
		var err error
		m, err = signupMachine().Build()
		Expect(err).NotTo(HaveOccurred())
		cfg, res = engine.Config{}, engine.Result{}
		Expect(stepAll(m, &cfg, &res, "start")).To(Succeed())
	})

	It("pushes a flow and asks for its first empty slot", func() {
		Expect(flowStack(m, &cfg)).To(Equal([]string{"signup"}))
		Expect(m.FlowName(cfg.Flow())).To(Equal("signup"))
		Expect(waiting(m, &cfg)).To(Equal("name"))
	})

	It("fills the waiting slot, asks for the next one and leaves when all are filled", func() {
		Expect(stepScript(m, &cfg, &res, "inform=Ada")).To(Succeed())
		Expect(slotValue(m, &cfg, "name")).To(Equal(engine.TextValue("Ada")))
		Expect(waiting(m, &cfg)).To(Equal("mail"))
		Expect(m.StateName(cfg.State)).To(Equal("collect"), "all_filled() is false with mail empty")

		Expect(stepScript(m, &cfg, &res, "inform=nope")).To(Succeed())
		Expect(et.Says(&res)).To(Equal([]string{"bad mail"}), "the slot's validator rejects it")
		Expect(slotValue(m, &cfg, "mail").IsEmpty()).To(BeTrue())

		Expect(stepScript(m, &cfg, &res, "inform=ada@b.co")).To(Succeed())
		Expect(m.StateName(cfg.State)).To(Equal("done"))
		Expect(waiting(m, &cfg)).To(Equal(""), "ask next with every slot filled stops waiting")
		Expect(et.Says(&res)).To(Equal([]string{"thanks Ada at ada@b.co"}))
	})

	It("interrupts with a second flow and resumes the first after pop", func() {
		Expect(stepScript(m, &cfg, &res, "inform=Ada", "survey")).To(Succeed())
		Expect(flowStack(m, &cfg)).To(Equal([]string{"signup", "survey"}))
		Expect(waiting(m, &cfg)).To(Equal("age"))

		Expect(stepScript(m, &cfg, &res, "inform=36")).To(Succeed())
		Expect(slotValue(m, &cfg, "age")).To(Equal(engine.NumberValue(36)), "fill converts text to the slot's type")
		Expect(m.StateName(cfg.State)).To(Equal("collect"), `the flow == "signup" guard keeps it collecting`)

		Expect(stepScript(m, &cfg, &res, "finish")).To(Succeed())
		Expect(flowStack(m, &cfg)).To(Equal([]string{"signup"}))
		Expect(waiting(m, &cfg)).To(Equal("mail"))
	})

	It("reads the current flow in guards", func() {
		Expect(stepScript(m, &cfg, &res, "finish")).To(Succeed())
		Expect(res.Handled).To(BeFalse(), `finish needs flow == "survey"`)
	})

	It("clears non-persistent slots, counters, the waiting slot and the flows on reset_context", func() {
		Expect(stepScript(m, &cfg, &res, "inform=Ada", "inform=nope", "survey")).To(Succeed())
		Expect(counter(m, &cfg, "tries")).To(Equal(int32(1)))

		Expect(stepScript(m, &cfg, &res, "cancel")).To(Succeed())
		Expect(m.StateName(cfg.State)).To(Equal("idle"))
		Expect(slotValue(m, &cfg, "name").IsEmpty()).To(BeTrue())
		Expect(slotValue(m, &cfg, "last_outcome")).To(Equal(engine.TextValue("cancelled")), "a Persist slot survives")
		Expect(counter(m, &cfg, "tries")).To(BeZero())
		Expect(cfg.Waiting).To(Equal(engine.SlotID(engine.NoID)))
		Expect(cfg.FlowDepth).To(BeZero())
		Expect(cfg.Flow()).To(Equal(engine.FlowID(engine.NoID)))
		for i, f := range cfg.Flows {
			Expect(f).To(Equal(engine.FlowID(engine.NoID)), "got Flows[%d] = %d, want NoID", i, f)
		}
	})

	DescribeTable("rejects a fill that does not convert to the slot's type",
		func(value string) {
			Expect(stepScript(m, &cfg, &res, "inform=Ada", "survey")).To(Succeed())
			err := stepScript(m, &cfg, &res, "inform="+value)
			var rt *engine.RuntimeError
			Expect(errors.As(err, &rt)).To(BeTrue(), "got %v, want a *engine.RuntimeError", err)
			Expect(rt.Msg).To(Equal(`fill: "` + value + `" is not a number for slot age`))
		},
		Entry("a word", "old"),
		// A NaN would make the Config unequal to itself.
		Entry("NaN", "nan"),
		Entry("infinity", "Inf"),
	)

	It("stops a push beyond MaxFlowDepth with a RuntimeError", func() {
		for i := 1; i < engine.MaxFlowDepth; i++ {
			Expect(stepScript(m, &cfg, &res, "survey")).To(Succeed())
		}
		Expect(cfg.FlowDepth).To(Equal(uint8(engine.MaxFlowDepth)))
		err := stepScript(m, &cfg, &res, "survey")
		Expect(err).To(MatchError(ContainSubstring("flow stack is full")))
	})
})
