package engine_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// reminderMachine mixes timers, counters and templates.
func reminderMachine() *et.Builder {
	return et.New("reminder", "idle").
		Intents("book", "confirm").
		Slot("when", engine.TypeText).
		Counter("nudges", 2).
		Timer("nudge", 1000).Timer("expire", 2000).
		State("idle", et.Waits(), et.On("book", "pending", et.Set("when", "event.value"))).
		State("pending", et.Waits(),
			et.Entry(et.Start("nudge"), et.Start("expire"), et.Say("book for {when}?")),
			et.OnIf("timer:nudge", "exhausted(nudges)", "", et.Say("last call")),
			et.On("timer:nudge", "", et.Incr("nudges"), et.Start("nudge"), et.Say("still there? ({nudges})")),
			et.On("timer:expire", "idle", et.Cancel("nudge"), et.Escalate("no answer about {when}")),
			et.On("confirm", "booked", et.Cancel("nudge"), et.Cancel("expire"))).
		State("booked", et.Final())
}

// traceCase is a machine and a script to run on it.
type traceCase struct {
	machine func() *et.Builder
	script  []string
}

var _ = Describe("determinism", func() {
	DescribeTable("gives byte-identical traces for the same definition and events across fresh runs",
		func(tc traceCase) {
			var runs [2]string
			for i := range runs {
				m, err := tc.machine().Build()
				Expect(err).NotTo(HaveOccurred())
				runs[i], err = et.Run(m, tc.script...)
				Expect(err).NotTo(HaveOccurred())
			}
			Expect(runs[1]).To(Equal(runs[0]))
			Expect(runs[0]).NotTo(ContainSubstring("error:"))
		},
		Entry("hierarchy", traceCase{hierarchyMachine, []string{"go", "next", "again", "reset", "dive", "home", "go", "stop"}}),
		Entry("flows", traceCase{signupMachine, []string{"start", "inform=Ada@5", "survey@6", "inform=36@7", "finish@8", "inform=nope@9", "inform=ada@b.co@10"}}),
		Entry("timers", traceCase{reminderMachine, []string{"book=noon@100", "timer:nudge", "timer:expire", "book=soon@2500", "timer:nudge", "confirm@4000"}}),
	)

	It("renders a trace as text a reviewer can read", func() {
		m, err := reminderMachine().Build()
		Expect(err).NotTo(HaveOccurred())
		got, err := et.Run(m, "book=noon@100", "timer:nudge", "timer:expire", "timer:nudge@2100", "book=late@50")
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(`* start @0
  -> idle
> book=noon @100
  idle -> pending (book)
    set when
    start nudge
    start expire
    say book for {when}?
  start_timer nudge @1100
  start_timer expire @2100
  say "book for noon?"
> timer:nudge @1100
  pending (timer:nudge, internal) [exhausted(nudges)]=false
    incr nudges
    start nudge
    say still there? ({nudges})
  start_timer nudge @2100
  say "still there? (1)"
> timer:expire @2100
  pending -> idle (timer:expire)
    cancel nudge
    escalate no answer about {when}
  cancel_timer nudge
  escalate "no answer about noon"
> timer:nudge @2100
  ignored
> book=late @50
  error: in state idle: event at 50ms is before the current time 2100ms
`))
	})

	Describe("configurations", func() {
		var (
			m      *engine.Machine
			c1, c2 engine.Config
			res    engine.Result
		)

		BeforeEach(func() {
			var err error
			m, err = signupMachine().Build()
			Expect(err).NotTo(HaveOccurred())
			c1, c2, res = engine.Config{}, engine.Config{}, engine.Result{}
			Expect(stepAll(m, &c1, &res, "start", "inform=Ada@5", "survey@6")).To(Succeed())
			Expect(stepAll(m, &c2, &res, "start", "inform=Ada@5", "survey@6")).To(Succeed())
		})

		It("are equal with == and hash equally after the same events", func() {
			Expect(c1 == c2).To(BeTrue(), "got c1 != c2, want them equal")
			Expect(c1.Hash()).To(Equal(c2.Hash()))
		})

		It("hash differently when a slot differs", func() {
			Expect(stepScript(m, &c1, &res, "inform=36@7")).To(Succeed())
			Expect(stepScript(m, &c2, &res, "inform=37@7")).To(Succeed())
			Expect(c1 == c2).To(BeFalse(), "got c1 == c2, want them different")
			Expect(c1.Hash()).NotTo(Equal(c2.Hash()))
		})

		It("hash differently when only the state differs", func() {
			done, ok := m.StateID("done")
			Expect(ok).To(BeTrue())
			Expect(c2.State).NotTo(Equal(done))
			c2.State = done
			Expect(c1 == c2).To(BeFalse())
			Expect(c1.Hash()).NotTo(Equal(c2.Hash()))
		})

		It("are values: stepping a copy leaves the original as it was", func() {
			kept := c1
			Expect(stepScript(m, &c1, &res, "inform=36@7", "finish@8")).To(Succeed())
			Expect(c1 == kept).To(BeFalse())
			Expect(kept == c2).To(BeTrue(), "got the kept copy changed, want it untouched")
		})

		It("serve as map keys, as in the explorer's visited set", func() {
			seen := map[engine.Config]int{c1: 1}
			seen[c2]++
			Expect(seen).To(HaveLen(1))
			Expect(seen[c1]).To(Equal(2))
		})
	})
})
