package engine_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// counter returns the value of a named counter in c.
func counter(m *engine.Machine, c *engine.Config, name string) int32 {
	for i, n := range m.Counters() {
		if n == name {
			return c.Counters[i]
		}
	}
	Fail("got no counter " + name + ", want one")
	return 0
}

var _ = Describe("counters", func() {
	var (
		m   *engine.Machine
		cfg engine.Config
		res engine.Result
	)

	BeforeEach(func() {
		// A retry loop: each bad answer re-asks until the retries are
		// exhausted, then the machine gives up.
		var err error
		m, err = et.New("retry", "ask").
			Intents("bad", "good", "again").
			Counter("retries", 3).Counter("visits", 0).
			State("ask", et.Waits(),
				et.Entry(et.Incr("visits")),
				et.OnIf("bad", "exhausted(retries)", "gave_up", et.Say("giving up")),
				et.On("bad", "ask", et.Incr("retries"), et.Say("try again ({retries})")),
				et.On("good", "done", et.Reset("retries"))).
			State("done", et.Waits(),
				et.OnIf("again", "visits >= 2", "gave_up"),
				et.On("again", "ask", et.Reset("all"))).
			State("gave_up", et.Final()).
			Build()
		Expect(err).NotTo(HaveOccurred())
		cfg, res = engine.Config{}, engine.Result{}
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
	})

	It("counts up with incr and goes to the error state once exhausted", func() {
		var says []string
		for i := 0; i < 4; i++ {
			ev, err := et.ParseEvent(m, &cfg, "bad")
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			says = append(says, et.Says(&res)...)
		}
		Expect(says).To(Equal([]string{"try again (1)", "try again (2)", "try again (3)", "giving up"}))
		Expect(counter(m, &cfg, "retries")).To(Equal(int32(3)))
		Expect(counter(m, &cfg, "visits")).To(Equal(int32(4)), "ask entered at start and on each retry")
		Expect(m.StateName(cfg.State)).To(Equal("gave_up"))
		Expect(cfg.Final).To(BeTrue())
	})

	DescribeTable("evaluates exhausted against the limit: false below it, true at and above it",
		func(retries int32, want string) {
			for i, n := range m.Counters() {
				if n == "retries" {
					cfg.Counters[i] = retries
				}
			}
			Expect(stepScript(m, &cfg, &res, "bad")).To(Succeed())
			Expect(m.StateName(cfg.State)).To(Equal(want))
		},
		Entry("at 0", int32(0), "ask"),
		Entry("one below the limit", int32(2), "ask"),
		Entry("at the limit", int32(3), "gave_up"),
		Entry("above the limit", int32(7), "gave_up"),
	)

	It("resets one counter with reset, leaving the others", func() {
		Expect(stepScript(m, &cfg, &res, "bad", "bad", "good")).To(Succeed())
		Expect(counter(m, &cfg, "retries")).To(Equal(int32(0)))
		Expect(counter(m, &cfg, "visits")).To(Equal(int32(3)))

		Expect(stepScript(m, &cfg, &res, "again")).To(Succeed())
		Expect(m.StateName(cfg.State)).To(Equal("gave_up"), "visits >= 2 guards the way out")
	})

	It("resets every counter with reset all", func() {
		Expect(stepScript(m, &cfg, &res, "good")).To(Succeed())
		Expect(counter(m, &cfg, "visits")).To(Equal(int32(1)))
		Expect(stepScript(m, &cfg, &res, "again")).To(Succeed())
		Expect(m.StateName(cfg.State)).To(Equal("ask"))
		Expect(counter(m, &cfg, "visits")).To(Equal(int32(1)), "reset to 0, then ask's entry counted 1")
	})
})

// stepScript feeds scripted events to a started machine.
func stepScript(m *engine.Machine, c *engine.Config, r *engine.Result, events ...string) error {
	for _, s := range events {
		ev, err := et.ParseEvent(m, c, s)
		if err != nil {
			return err
		}
		if err := m.Step(c, &ev, r); err != nil {
			return err
		}
	}
	return nil
}
