package engine_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

var _ = Describe("timers", func() {
	var (
		m   *engine.Machine
		cfg engine.Config
		res engine.Result
	)

	// step feeds one scripted event and fails the spec on a runtime error.
	step := func(s string) {
		GinkgoHelper()
		ev, err := et.ParseEvent(m, &cfg, s)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
	}

	// next returns the name and deadline of the timer that fires first.
	next := func() (string, int64) {
		GinkgoHelper()
		t, ok := m.NextTimer(&cfg)
		Expect(ok).To(BeTrue(), "got no pending timer, want one")
		return m.TimerName(t.ID), t.Deadline
	}

	BeforeEach(func() {
		var err error
		m, err = et.New("timers", "idle").
			Intents("begin", "stop", "poke", "quick").
			Timer("long", 3000).Timer("a", 1000).Timer("b", 1000).Timer("nap", 500).
			State("idle", et.Waits(), et.On("begin", "waiting")).
			State("waiting", et.Waits(),
				et.Entry(et.Start("long"), et.Start("a"), et.Start("b")),
				et.On("timer:a", "", et.Say("a fired")),
				et.On("timer:b", "", et.Say("b fired")),
				et.On("timer:long", "timeout", et.Say("long fired")),
				et.On("stop", "", et.Cancel("a")),
				et.On("poke", "", et.Start("a")),
				et.On("quick", "", et.StartAfter("nap", "250"))).
			State("timeout", et.Waits()).
			Build()
		Expect(err).NotTo(HaveOccurred())
		cfg, res = engine.Config{}, engine.Result{}
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		_, ok := m.NextTimer(&cfg)
		Expect(ok).To(BeFalse(), "got a pending timer before any was started, want none")
		step("begin")
	})

	It("reports each start as an effect with its deadline", func() {
		out := et.Format(m, &res)
		Expect(out).To(ContainSubstring("start_timer long @3000\n  start_timer a @1000\n  start_timer b @1000\n"))
	})

	It("fires timers in (deadline, sequence) order: same deadline in start order", func() {
		var fired []string
		for {
			t, ok := m.NextTimer(&cfg)
			if !ok {
				break
			}
			fired = append(fired, m.TimerName(t.ID))
			step("timer:" + m.TimerName(t.ID))
		}
		Expect(fired).To(Equal([]string{"a", "b", "long"}))
		Expect(m.StateName(cfg.State)).To(Equal("timeout"))
		Expect(cfg.Now).To(Equal(int64(3000)))
	})

	It("does not fire a fired timer twice", func() {
		step("timer:a@1000")
		Expect(res.Handled).To(BeTrue())
		Expect(et.Says(&res)).To(Equal([]string{"a fired"}))
		step("timer:a@1000")
		Expect(res.Handled).To(BeFalse())
		name, _ := next()
		Expect(name).To(Equal("b"))
	})

	It("ignores the event of a cancelled timer", func() {
		step("stop@10")
		Expect(et.Format(m, &res)).To(ContainSubstring("cancel_timer a\n"))
		name, _ := next()
		Expect(name).To(Equal("b"))
		step("timer:a@1000")
		Expect(res.Handled).To(BeFalse())
		Expect(res.Effects).To(BeEmpty())
	})

	It("replaces the deadline of a restarted timer", func() {
		step("poke@500")
		name, at := next()
		Expect([]any{name, at}).To(Equal([]any{"b", int64(1000)}))
		step("timer:b")
		name, at = next()
		Expect([]any{name, at}).To(Equal([]any{"a", int64(1500)}))

		ev, err := et.ParseEvent(m, &cfg, "timer:a@1000")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Step(&cfg, &ev, &res)).To(MatchError(ContainSubstring("deadline is 1500ms")))
	})

	It("takes the duration from the start action's expression when it has one", func() {
		step("quick@100")
		Expect(et.Format(m, &res)).To(ContainSubstring("start_timer nap @350\n"))
		name, at := next()
		Expect([]any{name, at}).To(Equal([]any{"nap", int64(350)}))
	})

	It("consumes a timer that no transition of the current state handles", func() {
		step("quick@100")
		step("timer:nap@350")
		Expect(res.Handled).To(BeFalse())
		name, _ := next()
		Expect(name).To(Equal("a"))
	})

	DescribeTable("rejects a timer event off its deadline and leaves the config unchanged",
		func(at int64) {
			before := cfg
			ev := engine.Event{Kind: engine.TimerEvent, Timer: mustTimer(m, "a"), At: at}
			err := m.Step(&cfg, &ev, &res)
			var rt *engine.RuntimeError
			Expect(errors.As(err, &rt)).To(BeTrue(), "got %v, want a *engine.RuntimeError", err)
			Expect(rt.Msg).To(ContainSubstring("but its deadline is 1000ms"))
			Expect(cfg).To(Equal(before))
		},
		Entry("early", int64(999)),
		Entry("late", int64(1001)),
	)

	It("rejects an event whose time goes backwards", func() {
		step("poke@500")
		ev, err := et.ParseEvent(m, &cfg, "poke@499")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Step(&cfg, &ev, &res)).To(MatchError(ContainSubstring("before the current time 500ms")))
	})
})

// mustTimer resolves a timer name, failing the spec when it is unknown.
func mustTimer(m *engine.Machine, name string) engine.TimerID {
	id, ok := m.TimerID(name)
	ExpectWithOffset(1, ok).To(BeTrue(), "got no timer %q, want one", name)
	return id
}

var _ = Describe("timers after the conversation ended", func() {
	var (
		m   *engine.Machine
		cfg engine.Config
		res engine.Result
	)

	// A timer started on the way into a final state is still pending when
	// the conversation ends (found by the timer laws in laws_test.go).
	BeforeEach(func() {
		var err error
		m, err = et.New("ended", "idle").
			Intents("go").
			Timer("t0", 200).
			State("idle", et.Waits(), et.On("go", "done", et.Start("t0"))).
			State("done", et.Final()).
			Build()
		Expect(err).NotTo(HaveOccurred())
		cfg, res = engine.Config{}, engine.Result{}
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		ev, err := et.ParseEvent(m, &cfg, "go@100")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
		Expect(cfg.Final).To(BeTrue())
	})

	It("consumes a timer that falls due, without taking a transition, so it does not fire twice", func() {
		t, ok := m.NextTimer(&cfg)
		Expect(ok).To(BeTrue(), "got no pending timer, want t0")
		Expect(t.Deadline).To(Equal(int64(300)))
		ev := engine.Event{Kind: engine.TimerEvent, Timer: mustTimer(m, "t0"), At: 300}
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
		Expect(res.Handled).To(BeFalse())
		Expect(cfg.Now).To(Equal(int64(300)))
		t, ok = m.NextTimer(&cfg)
		Expect(ok).To(BeFalse(), "got timer %s@%d still pending after it fired, want none", m.TimerName(t.ID), t.Deadline)
	})

	It("lets a driver's loop over due timers end", func() {
		fired := 0
		for t, ok := m.NextTimer(&cfg); ok && fired < 10; t, ok = m.NextTimer(&cfg) {
			ev := engine.Event{Kind: engine.TimerEvent, Timer: t.ID, At: t.Deadline}
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			fired++
		}
		Expect(fired).To(Equal(1))
	})

	It("still ignores the timer's event off its deadline", func() {
		before := cfg
		ev := engine.Event{Kind: engine.TimerEvent, Timer: mustTimer(m, "t0"), At: 250}
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
		Expect(res.Handled).To(BeFalse())
		before.Now = 250
		Expect(cfg).To(Equal(before))
	})
})

var _ = Describe("timer durations from expressions", func() {
	var (
		m   *engine.Machine
		cfg engine.Config
		res engine.Result
	)

	// The duration is "100 - 150 * n": 100ms, then -50ms, which would put
	// the deadline before the clock (found by the timer laws in
	// laws_test.go).
	BeforeEach(func() {
		var err error
		m, err = et.New("computed", "idle").
			Intents("go").
			Counter("n", 0).
			Timer("t0", 1000).
			State("idle", et.Waits(),
				et.On("go", "", et.StartAfter("t0", "100 - 150 * n"), et.Incr("n"))).
			Build()
		Expect(err).NotTo(HaveOccurred())
		cfg, res = engine.Config{}, engine.Result{}
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
	})

	It("start a timer that falls due after the expression's milliseconds", func() {
		ev, err := et.ParseEvent(m, &cfg, "go@20")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
		t, ok := m.NextTimer(&cfg)
		Expect(ok).To(BeTrue())
		Expect(t.Deadline).To(Equal(int64(120)))
	})

	It("reject a negative duration instead of arming a timer that could never fire", func() {
		ev, err := et.ParseEvent(m, &cfg, "go@20")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
		ev, err = et.ParseEvent(m, &cfg, "go@50")
		Expect(err).NotTo(HaveOccurred())
		err = m.Step(&cfg, &ev, &res)
		var rt *engine.RuntimeError
		Expect(errors.As(err, &rt)).To(BeTrue(), "got %v, want a *engine.RuntimeError", err)
		Expect(rt.Msg).To(ContainSubstring("start t0: -50ms is not a duration"))
	})
})
