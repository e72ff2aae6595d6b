package engine_test

import (
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

var _ = Describe("eventless transitions", func() {
	var (
		cfg engine.Config
		res engine.Result
	)

	BeforeEach(func() {
		cfg, res = engine.Config{}, engine.Result{}
	})

	Describe("a chain of transient states", func() {
		var m *engine.Machine

		BeforeEach(func() {
			var err error
			m, err = et.New("chain", "idle").
				Intents("go").
				Slot("route", engine.TypeText).
				State("idle", et.Waits(), et.On("go", "check", et.Set("route", "event.value"))).
				State("check",
					et.AlwaysIf(`route == "b"`, "branch_b", et.Say("to b")),
					et.Always("branch_a", et.Say("to a"))).
				State("branch_a", et.Always("rest", et.Say("a to rest"))).
				State("branch_b", et.Always("rest", et.Say("b to rest"))).
				State("rest", et.Waits()).
				Build()
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		})

		It("runs through to a resting state in one Step, one trace step per transition", func() {
			ev, err := et.ParseEvent(m, &cfg, "go=b")
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			Expect(m.StateName(cfg.State)).To(Equal("rest"))
			Expect(et.Says(&res)).To(Equal([]string{"to b", "b to rest"}))

			var path []string
			for _, st := range res.Steps {
				path = append(path, m.StateName(st.From)+">"+m.StateName(st.To)+" "+m.Transition(st.Trans).Trigger)
			}
			Expect(path).To(Equal([]string{"idle>check go", "check>branch_b always", "branch_b>rest always"}))
		})

		It("evaluates eventless guards in order and takes the first that passes", func() {
			ev, err := et.ParseEvent(m, &cfg, "go=zzz")
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			Expect(m.StateName(cfg.State)).To(Equal("rest"))
			Expect(et.Says(&res)).To(Equal([]string{"to a", "a to rest"}))
			Expect(res.Guards).To(HaveLen(1))
			Expect(res.Guards[0].Pass).To(BeFalse())
			st := res.Steps[1]
			Expect([]uint32{st.GuardLo, st.GuardHi}).To(Equal([]uint32{0, 1}), "guard window of check>branch_a")
		})
	})

	// chainCase is a straight chain s0 → s1 → … of n eventless transitions
	// under a bound.
	type chainCase struct {
		n, bound int
		ok       bool
	}

	DescribeTable("bounds the eventless transitions taken in one step",
		func(tc chainCase) {
			b := et.New("bounded", "idle").Intents("go").MaxChain(tc.bound).
				State("idle", et.Waits(), et.On("go", "s0"))
			for i := 0; i < tc.n; i++ {
				b.State(fmt.Sprintf("s%d", i), et.Always(fmt.Sprintf("s%d", i+1)))
			}
			b.State(fmt.Sprintf("s%d", tc.n), et.Waits())
			m, err := b.Build()
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Start(&cfg, 0, &res)).To(Succeed())
			ev, err := et.ParseEvent(m, &cfg, "go")
			Expect(err).NotTo(HaveOccurred())
			err = m.Step(&cfg, &ev, &res)
			if tc.ok {
				Expect(err).NotTo(HaveOccurred())
				Expect(m.StateName(cfg.State)).To(Equal(fmt.Sprintf("s%d", tc.n)))
				return
			}
			var rt *engine.RuntimeError
			Expect(errors.As(err, &rt)).To(BeTrue(), "got %v, want a *engine.RuntimeError", err)
			bound := tc.bound
			if bound == 0 {
				bound = engine.DefaultMaxChain
			}
			Expect(rt.Msg).To(ContainSubstring(fmt.Sprintf("did not settle after %d steps", bound)))
		},
		Entry("a chain as long as the bound settles", chainCase{n: 5, bound: 5, ok: true}),
		Entry("a chain one longer than the bound is stopped", chainCase{n: 6, bound: 5, ok: false}),
		Entry("the default bound allows 100", chainCase{n: engine.DefaultMaxChain, bound: 0, ok: true}),
		Entry("the default bound stops 101", chainCase{n: engine.DefaultMaxChain + 1, bound: 0, ok: false}),
	)

	Describe("a loop of always transitions", func() {
		var b *et.Builder

		BeforeEach(func() {
			b = et.New("loop", "idle").Intents("go").MaxChain(10).
				State("idle", et.Waits(), et.On("go", "ping")).
				State("ping", et.Always("pong")).
				State("pong", et.Always("ping"))
		})

		It("is stopped at the bound with a RuntimeError naming the state, not a hang", func() {
			m, err := b.Build()
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Start(&cfg, 0, &res)).To(Succeed())
			ev, err := et.ParseEvent(m, &cfg, "go")
			Expect(err).NotTo(HaveOccurred())
			err = m.Step(&cfg, &ev, &res)
			var rt *engine.RuntimeError
			Expect(errors.As(err, &rt)).To(BeTrue(), "got %v, want a *engine.RuntimeError", err)
			Expect(rt.Error()).To(ContainSubstring("eventless transitions did not settle after 10 steps"))
			Expect(rt.State).To(SatisfyAny(Equal("ping"), Equal("pong")))
			Expect(res.Steps).To(HaveLen(11), "the triggering transition and 10 eventless ones")
		})

		It("is stopped at Start too, when the initial state loops", func() {
			b.Def().Initial = "ping"
			m, diags := engine.Build(b.Def())
			Expect(diags.Err()).NotTo(HaveOccurred())
			err := m.Start(&cfg, 0, &res)
			var rt *engine.RuntimeError
			Expect(errors.As(err, &rt)).To(BeTrue(), "got %v, want a *engine.RuntimeError", err)
		})
	})
})
