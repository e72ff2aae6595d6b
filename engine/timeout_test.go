package engine_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// fiveMinutes is the THEA reminder period, in virtual milliseconds.
const fiveMinutes = 5 * 60 * 1000

// theaMachine asks and, when the user stays silent, asks again every five
// minutes, at most three times, then gives up (THEA's "timeout 5 min, max 3
// retries"). The retry is a self-transition, which re-arms the timeout.
func theaMachine() *et.Builder {
	return et.New("thea", "idle").
		Intents("ask", "answer", "leave", "ping", "again", "fill", "next").
		Counter("retries", 3).
		State("idle", et.Waits(),
			et.On("ask", "asking"),
			et.On("fill", "form")).
		State("asking", et.Waits(),
			et.Entry(et.Say("what is it?")),
			et.Exit(et.Say("bye asking")),
			et.Timeout(fiveMinutes,
				et.ToIf("exhausted(retries)", "gave_up", et.Say("giving up")),
				et.To("asking", et.Incr("retries"), et.Say("still there? ({retries})"))),
			et.On("answer", "done"),
			et.On("leave", "elsewhere"),
			et.On("ping", "", et.Say("pong")),
			et.On("again", "asking")).
		State("form", et.Initial("a"),
			et.Timeout(1000, et.To("idle", et.Say("form expired")))).
		State("form.a", et.Waits(), et.On("next", "form.b")).
		State("form.b", et.Waits(),
			et.Timeout(400, et.To("", et.Say("hurry up"))),
			et.On("leave", "elsewhere")).
		State("elsewhere", et.Waits()).
		State("done", et.Final()).
		State("gave_up", et.Final())
}

var _ = Describe("state timeouts", func() {
	var (
		m   *engine.Machine
		cfg engine.Config
		res engine.Result
	)

	step := func(s string) {
		GinkgoHelper()
		ev, err := et.ParseEvent(m, &cfg, s)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
	}

	// fire fires the timeout of state at time at.
	fire := func(state string, at int64) error {
		ev := engine.Event{Kind: engine.TimerEvent, Timer: mustTimer(m, engine.TimeoutTimer(state)), At: at}
		return m.Step(&cfg, &ev, &res)
	}

	// pending returns the timer that fires next, as "name@deadline", or "".
	pending := func() string {
		t, ok := m.NextTimer(&cfg)
		if !ok {
			return ""
		}
		return m.TimerName(t.ID) + "@" + engine.NumberValue(float64(t.Deadline)).String()
	}

	BeforeEach(func() {
		var err error
		m, err = theaMachine().Build()
		Expect(err).NotTo(HaveOccurred())
		cfg, res = engine.Config{}, engine.Result{}
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
	})

	It("names the implicit timer after the state's path", func() {
		Expect(engine.TimeoutTimer("form.b")).To(Equal("timeout.form.b"))
		_, ok := m.TimerID("timeout.form.b")
		Expect(ok).To(BeTrue())
	})

	It("arms the timeout as the last entry action, with its deadline", func() {
		step("ask@1000")
		Expect(et.Format(m, &res)).To(Equal(`  idle -> asking (ask)
    say what is it?
    start timeout.asking
  say "what is it?"
  start_timer timeout.asking @301000
`))
		Expect(pending()).To(Equal("timeout.asking@301000"))
	})

	It("does not fire before its deadline, and fires exactly at it", func() {
		step("ask@1000")
		step("ping@300999")
		Expect(m.StateName(cfg.State)).To(Equal("asking"))
		Expect(pending()).To(Equal("timeout.asking@301000"))
		Expect(fire("asking", 300999)).To(MatchError(ContainSubstring("but its deadline is 301000ms")))

		ev, err := et.ParseEvent(m, &cfg, "ping@301001")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Step(&cfg, &ev, &res)).To(MatchError(ContainSubstring("skips timer timeout.asking due at 301000ms")))

		Expect(fire("asking", 301000)).To(Succeed())
		Expect(res.Handled).To(BeTrue())
		Expect(m.Transition(res.Steps[0].Trans).Trigger).To(Equal("timer:timeout.asking"))
		Expect(et.Says(&res)).To(Equal([]string{"bye asking", "still there? (1)", "what is it?"}))
	})

	It("is cancelled, as the first exit action, by a transition out of the state before the deadline", func() {
		step("ask@1000")
		step("leave@2000")
		Expect(et.Format(m, &res)).To(Equal(`  asking -> elsewhere (leave)
    cancel timeout.asking
    say bye asking
  cancel_timer timeout.asking
  say "bye asking"
`))
		Expect(pending()).To(BeEmpty())
		Expect(fire("asking", 301000)).To(Succeed())
		Expect(res.Handled).To(BeFalse())
		Expect(m.StateName(cfg.State)).To(Equal("elsewhere"))
	})

	It("never fires twice", func() {
		step("fill@0")
		step("next@100")
		Expect(pending()).To(Equal("timeout.form.b@500"))
		Expect(fire("form.b", 500)).To(Succeed())
		Expect(et.Says(&res)).To(Equal([]string{"hurry up"}))
		Expect(m.StateName(cfg.State)).To(Equal("form.b"))
		Expect(fire("form.b", 500)).To(Succeed())
		Expect(res.Handled).To(BeFalse())
		Expect(pending()).To(Equal("timeout.form@1000"))
	})

	It("is re-armed with a new deadline by a self-transition", func() {
		step("ask@1000")
		step("again@100000")
		Expect(et.Format(m, &res)).To(HaveSuffix(`
  cancel_timer timeout.asking
  say "bye asking"
  say "what is it?"
  start_timer timeout.asking @400000
`))
		Expect(pending()).To(Equal("timeout.asking@400000"))
		Expect(fire("asking", 301000)).To(MatchError(ContainSubstring("but its deadline is 400000ms")))
		Expect(fire("asking", 400000)).To(Succeed())
		Expect(res.Handled).To(BeTrue())
	})

	It("retries every five minutes at most three times, then gives up", func() {
		step("ask@0")
		var fired []int64
		var says [][]string
		for {
			t, ok := m.NextTimer(&cfg)
			if !ok {
				break
			}
			Expect(m.TimerName(t.ID)).To(Equal("timeout.asking"))
			Expect(fire("asking", t.Deadline)).To(Succeed())
			fired = append(fired, t.Deadline)
			says = append(says, et.Says(&res))
		}
		Expect(fired).To(Equal([]int64{fiveMinutes, 2 * fiveMinutes, 3 * fiveMinutes, 4 * fiveMinutes}))
		Expect(says).To(Equal([][]string{
			{"bye asking", "still there? (1)", "what is it?"},
			{"bye asking", "still there? (2)", "what is it?"},
			{"bye asking", "still there? (3)", "what is it?"},
			{"bye asking", "giving up"},
		}))
		Expect(m.StateName(cfg.State)).To(Equal("gave_up"))
		Expect(cfg.Final).To(BeTrue())
		Expect(counter(m, &cfg, "retries")).To(Equal(int32(3)))
	})

	It("on a compound state, keeps running while its children change and fires from any of them", func() {
		step("fill@0")
		Expect(pending()).To(Equal("timeout.form@1000"))
		step("next@300")
		Expect(et.Format(m, &res)).NotTo(ContainSubstring("cancel_timer timeout.form"))
		Expect(fire("form.b", 700)).To(Succeed())
		Expect(pending()).To(Equal("timeout.form@1000"))
		Expect(fire("form", 1000)).To(Succeed())
		Expect(m.StateName(cfg.State)).To(Equal("idle"))
		Expect(et.Says(&res)).To(Equal([]string{"form expired"}))
		Expect(pending()).To(BeEmpty())
	})

	It("on a compound state, is cancelled with the child's when a child's transition leaves it", func() {
		step("fill@0")
		step("next@300")
		step("leave@400")
		Expect(et.Format(m, &res)).To(ContainSubstring("  cancel_timer timeout.form.b\n  cancel_timer timeout.form\n"))
		Expect(pending()).To(BeEmpty())
	})

	Describe("on a fork state", func() {
		BeforeEach(func() {
			var err error
			m, err = et.New("slowfork", "work").
				External("lookup", "").
				State("work", et.Initial("ask"),
					et.Timeout(1000, et.To("slow", et.Say("{branches_done} of {branches} answered in time"))),
					et.Fork(et.Branches(2), et.Join(et.To("fast")))).
				State("work.ask", et.Entry(et.Invoke("lookup")), et.On("done:lookup", "work.ok")).
				State("work.ok", et.Final()).
				State("fast", et.Waits()).
				State("slow", et.Waits()).
				Build()
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		})

		It("abandons the branches when it fires before they join", func() {
			step("done:lookup/1@10")
			Expect(fire("work", 1000)).To(Succeed())
			Expect(m.StateName(cfg.State)).To(Equal("slow"))
			Expect(et.Says(&res)).To(Equal([]string{"1 of 2 answered in time"}))
			Expect(res.Joins).To(BeEmpty())
			Expect(cfg.NBranch).To(BeZero())
			step("done:lookup/0@1500")
			Expect(res.Handled).To(BeFalse())
		})

		It("is cancelled by the join", func() {
			step("done:lookup/1@10")
			step("done:lookup/0@20")
			Expect(m.StateName(cfg.State)).To(Equal("fast"))
			Expect(pending()).To(BeEmpty())
		})
	})
})

var _ = Describe("Build of state timeouts", func() {
	var def *engine.Definition

	BeforeEach(func() {
		def = theaMachine().Def()
		def.States[1].Pos = at(20, 3)
		def.States[1].Timeout.Pos = at(23, 5)
	})

	DescribeTable("reports a bad timeout with its position",
		func(tc buildCase) { expectDiagnostic(def, tc) },
		Entry("zero duration", buildCase{
			mutate: func(d *engine.Definition) { d.States[1].Timeout.AfterMS = 0 },
			msg:    `state "asking": timeout needs a positive duration`, pos: at(23, 5)}),
		Entry("negative duration", buildCase{
			mutate: func(d *engine.Definition) { d.States[1].Timeout.AfterMS = -fiveMinutes },
			msg:    `state "asking": timeout needs a positive duration`, pos: at(23, 5)}),
		Entry("no then transitions", buildCase{
			mutate: func(d *engine.Definition) { d.States[1].Timeout.Then = nil },
			msg:    `state "asking": timeout needs at least one transition under then`, pos: at(23, 5)}),
		Entry("a then transition to an unknown state", buildCase{
			mutate: func(d *engine.Definition) {
				d.States[1].Timeout.Then[1].Target, d.States[1].Timeout.Then[1].TargetPos = "nowhere", at(25, 15)
			},
			msg: `transition target: unknown state "nowhere"`, pos: at(25, 15)}),
	)
})
