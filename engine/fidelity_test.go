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

var _ = Describe("catch-all triggers for timers and action results", func() {
	// A state waiting on a backend with a session timer above it: the
	// catch-alls take every timer and every result, in written order, the
	// leaf before its parent, like "*" among user events.
	build := func() *engine.Machine {
		m, err := et.New("catchall", "session").
			Intents("go").
			Timer("nudge", 1000).Timer("session", 5000).
			External("lookup", "").External("charge", "false").
			State("session", et.Initial("wait"), et.On("timer:session", "expired")).
			State("session.wait", et.Waits(), et.Entry(et.Start("nudge"), et.Start("session")),
				et.On("go", "", et.Invoke("lookup"), et.Invoke("charge")),
				et.On("timer:nudge", "", et.Say("still there?")),
				et.On("timer:*", "", et.Say("some timer")),
				et.On("done:*", "", et.Say("some result")),
				et.On("failed:charge", "", et.Say("charge failed")),
				et.On("failed:*", "", et.Say("some failure"))).
			State("expired", et.Final()).
			Build()
		Expect(err).NotTo(HaveOccurred())
		return m
	}

	It("takes a timer with no handler of its own, before the parent's handler", func() {
		out, err := et.Run(build(), "timer:nudge", "timer:session")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("still there?"))
		Expect(out).To(ContainSubstring("some timer"), "the leaf's timer:* comes before the parent's timer:session")
		Expect(out).NotTo(ContainSubstring("expired"))
	})

	It("takes any action's result, after a specific handler written before it", func() {
		out, err := et.Run(build(), "go", "done:lookup", "failed:charge")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("some result"))
		Expect(out).To(ContainSubstring("charge failed"))
		Expect(out).NotTo(ContainSubstring("some failure"))
	})

	It("names the catch-all in reports", func() {
		m := build()
		var names []string
		for i := range m.NumTransitions() {
			names = append(names, m.Transition(engine.TransID(i)).Trigger)
		}
		Expect(names).To(ContainElements("timer:*", "done:*", "failed:*"))
	})

	It("marks every action's failure as handled by failed:*", func() {
		m := build()
		for _, a := range []string{"lookup", "charge"} {
			id, ok := m.ExtID(a)
			Expect(ok).To(BeTrue())
			Expect(m.HandlesFailure(id)).To(BeTrue(), a)
		}
	})
})

var _ = Describe("machine-level transitions", func() {
	// Cancel from anywhere, written once: a state's own handler wins, the
	// machine's applies everywhere else, leaving nested states and forks.
	build := func() *engine.Machine {
		m, err := et.New("pizza", "idle").
			Intents("order", "cancel", "size").
			External("check", "").
			State("idle", et.Waits(), et.On("order", "order")).
			State("order", et.Initial("size"), et.Exit(et.Say("leaving the order"))).
			State("order.size", et.Waits(), et.On("size", "checks")).
			State("checks", et.Initial("run"), et.Fork(et.Branches(2), et.Join(et.To("confirm")))).
			State("checks.run", et.Entry(et.Invoke("check")), et.On("done:check", "checks.ok")).
			State("checks.ok", et.Final()).
			State("confirm", et.Waits(), et.On("cancel", "idle", et.Say("kept your cart"))).
			Anywhere("cancel", "", "cancelled", et.Say("cancelled")).
			State("cancelled", et.Final()).
			Build()
		Expect(err).NotTo(HaveOccurred())
		return m
	}

	It("applies in a nested state, running its exits", func() {
		out, err := et.Run(build(), "order", "cancel")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("leaving the order"))
		Expect(out).To(MatchRegexp(`order\.size -> cancelled`))
	})

	It("leaves a fork, abandoning its branches", func() {
		m := build()
		var (
			c engine.Config
			r engine.Result
		)
		Expect(m.Start(&c, 0, &r)).To(Succeed())
		Expect(stepScript(m, &c, &r, "order", "size", "cancel")).To(Succeed())
		Expect(m.StateName(c.State)).To(Equal("cancelled"))
		Expect(c.NBranch).To(BeZero())
	})

	It("comes after a state's own handler of the same event", func() {
		out, err := et.Run(build(), "order", "size", "done:check/0", "done:check/1", "cancel")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("kept your cart"))
		Expect(out).NotTo(ContainSubstring("cancelled"))
	})

	It("is drawn from any state", func() {
		m := build()
		Expect(m.Transition(engine.TransID(m.NumTransitions() - 1)).Source).To(Equal(engine.StateID(engine.NoID)))
	})
})

var _ = Describe("timers in expressions", func() {
	build := func(cancelAtDone bool) *engine.Machine {
		var doneActs []engine.ActionDef
		if cancelAtDone {
			doneActs = append(doneActs, et.Cancel("session"))
		}
		b := et.New("timers", "ask").
			Intents("answer").
			Timer("session", 30000).
			State("ask", et.Waits(), et.Entry(et.Start("session")),
				et.OnIf("answer", `pending("session") and deadline("session") - now > 1000`, "done", doneActs...),
				et.On("answer", "late")).
			State("late", et.Final()).
			State("done", et.Final())
		b.Def().Invariants = append(b.Def().Invariants, engine.InvariantDef{Name: "timer_cancelled_at_done", Kind: engine.InvNever,
			Expr: engine.Expr{Src: `state == "done" and pending("session")`}})
		m, err := b.Build()
		Expect(err).NotTo(HaveOccurred())
		return m
	}

	It("read whether a timer is pending and its deadline", func() {
		m := build(true)
		var (
			c engine.Config
			r engine.Result
		)
		Expect(m.Start(&c, 0, &r)).To(Succeed())
		Expect(stepScript(m, &c, &r, "answer@28999")).To(Succeed())
		Expect(m.StateName(c.State)).To(Equal("done"))
		Expect(m.Start(&c, 0, &r)).To(Succeed())
		Expect(stepScript(m, &c, &r, "answer@29500")).To(Succeed())
		Expect(m.StateName(c.State)).To(Equal("late"))
	})

	It("let an invariant say that a timer is cancelled at done", func() {
		for _, cancel := range []bool{true, false} {
			m := build(cancel)
			var (
				c engine.Config
				r engine.Result
			)
			Expect(m.Start(&c, 0, &r)).To(Succeed())
			Expect(stepScript(m, &c, &r, "answer@10")).To(Succeed())
			Expect(m.Holds(&m.Invariants()[0], &c, &c)).To(Equal(cancel), "cancel at done: %t", cancel)
		}
	})

	It("reject a name that is not a timer", func() {
		_, err := et.New("t", "s").Intents("go").State("s", et.Waits(), et.OnIf("go", `pending("nope")`, "s")).Build()
		Expect(err).To(MatchError(ContainSubstring(`pending takes the name of a timer in quotes, got unknown timer "nope"`)))
	})
})

var _ = Describe("invariants over a step", func() {
	// "Changing the size clears only the size": the buggy copy also drops
	// the toppings.
	build := func(buggy bool) *engine.Machine {
		acts := []engine.ActionDef{et.Set("size", "event.value")}
		if buggy {
			acts = append(acts, et.Clear("toppings"))
		}
		b := et.New("pizza", "cart").
			Intents("size", "toppings").
			Slot("size", engine.TypeText).Slot("toppings", engine.TypeText).
			State("cart", et.Waits(),
				et.On("size", "", acts...),
				et.On("toppings", "", et.Set("toppings", "event.value")))
		b.Def().Invariants = append(b.Def().Invariants, engine.InvariantDef{Name: "size_change_keeps_toppings", Kind: engine.InvAlways,
			Expr: engine.Expr{Src: `not changed(size) or before.toppings == toppings`}})
		m, err := b.Build()
		Expect(err).NotTo(HaveOccurred())
		return m
	}

	DescribeTable("read the configuration before the step",
		func(buggy bool) {
			m := build(buggy)
			var (
				c engine.Config
				r engine.Result
			)
			Expect(m.Start(&c, 0, &r)).To(Succeed())
			Expect(stepScript(m, &c, &r, "size=small", "toppings=olives")).To(Succeed())
			before := c
			Expect(stepScript(m, &c, &r, "size=large")).To(Succeed())
			Expect(m.Holds(&m.Invariants()[0], &before, &c)).To(Equal(!buggy))
			Expect(m.Holds(&m.Invariants()[0], &c, &c)).To(BeTrue(), "nothing changed between a configuration and itself")
		},
		Entry("a size change keeps the toppings", false),
		Entry("a size change that drops them is caught", true),
	)

	It("are the only expressions that may use before and changed", func() {
		_, err := et.New("t", "s").Intents("go").Slot("x", engine.TypeText).
			State("s", et.Waits(), et.OnIf("go", `changed(x)`, "s")).Build()
		Expect(err).To(HaveOccurred())
		_, err = et.New("t", "s").Intents("go").Slot("x", engine.TypeText).
			State("s", et.Waits(), et.OnIf("go", `before.x == ""`, "s")).Build()
		Expect(err).To(HaveOccurred())
	})
})
