package engine_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// These specs come from two public bots translated into suites by hand
// (issue 20): each is a small machine of the shape that showed the gap.
var _ = Describe("number(x)", func() {
	// A money transfer whose funds check needs the amount as a number: the
	// balance goes down by what was sent.
	build := func() *engine.Machine {
		m, err := et.New("transfer", "open").
			Intents("amount").
			Slot("balance", engine.TypeNumber).
			State("open", et.Always("ask", et.Set("balance", "4200"))).
			State("ask", et.Waits(),
				et.OnIf("amount", `number(event.value) <= balance`, "ask", et.Set("balance", "balance - number(event.value)")),
				et.On("amount", "ask", et.Say("insufficient funds"))).
			Build()
		Expect(err).NotTo(HaveOccurred())
		return m
	}

	It("turns text into a number, so a balance can go down", func() {
		m := build()
		var (
			c engine.Config
			r engine.Result
		)
		Expect(m.Start(&c, 0, &r)).To(Succeed())
		Expect(stepScript(m, &c, &r, "amount=200")).To(Succeed())
		Expect(slotValue(m, &c, "balance")).To(Equal(engine.NumberValue(4000)))
		Expect(stepScript(m, &c, &r, "amount=4000.5")).To(Succeed())
		Expect(et.Says(&r)).To(Equal([]string{"insufficient funds"}))
		Expect(slotValue(m, &c, "balance")).To(Equal(engine.NumberValue(4000)))
	})

	It("is a runtime error on text that is not a number, naming the text", func() {
		m := build()
		var (
			c engine.Config
			r engine.Result
		)
		Expect(m.Start(&c, 0, &r)).To(Succeed())
		err := stepScript(m, &c, &r, "amount=lots")
		var rt *engine.RuntimeError
		Expect(errors.As(err, &rt)).To(BeTrue(), "got %v, want a *engine.RuntimeError", err)
		Expect(rt.Msg).To(ContainSubstring(`number("lots"): not a number`))
	})

	It("is NaN outside a step, so an invariant comparing it is false", func() {
		m, err := et.New("inv", "s").Slot("x", engine.TypeText).State("s", et.Waits()).Build()
		Expect(err).NotTo(HaveOccurred())
		ok, err := m.Condition(engine.Expr{Src: `number(x) >= 0 or number(x) < 0`})
		Expect(err).NotTo(HaveOccurred())
		var c engine.Config
		Expect(ok(&c)).To(BeFalse())
	})
})
