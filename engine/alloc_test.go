package engine_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

var _ = Describe("a steady-state Step", func() {
	var (
		m   *engine.Machine
		cfg *engine.Config
		res *engine.Result
		evs []engine.Event
	)

	BeforeEach(func() {
		// The events alternate between two states so that every step takes
		// a guarded transition with exit and entry actions, sets slots,
		// counts, restarts a timer and renders say-templates.
		var err error
		m, err = et.New("alloc", "ping").
			Intents("inform").
			Slot("name", engine.TypeText).Slot("age", engine.TypeNumber).Slot("vip", engine.TypeBool).
			Counter("turns", 0).
			Timer("idle", 60000).
			State("ping", et.Waits(),
				et.Exit(et.Incr("turns")),
				et.OnIf("inform", `event.value != name and len(event.value) > 0 and not (event.value in ["x", "y"])`, "pong",
					et.Set("name", "event.value"), et.Set("age", "age + 1"), et.Set("vip", "age > 3"))).
			State("pong", et.Waits(),
				et.Entry(et.Start("idle"), et.Say("hello {name}, you are {age} ({vip}), turn {turns}")),
				et.OnIf("inform", `event.value == "never"`, "ping"),
				et.OnIf("inform", `filled(name) and event.confidence >= 0.5`, "ping", et.Set("name", "event.value"), et.Say("bye"))).
			Build()
		Expect(err).NotTo(HaveOccurred())
		cfg, res = new(engine.Config), new(engine.Result)
		Expect(m.Start(cfg, 0, res)).To(Succeed())
		evs = []engine.Event{
			{Kind: engine.UserEvent, Intent: mustIntent(m, "inform"), Value: "Ada", Confidence: 1},
			{Kind: engine.UserEvent, Intent: mustIntent(m, "inform"), Value: "Bob", Confidence: 1},
		}
	})

	It("does not allocate", func() {
		// A round trip is two steps, ping → pong → ping: AllocsPerRun
		// rounds down, so one allocation every other step would pass
		// unseen if a run were a single step.
		roundTrip := func() {
			for i := range evs {
				evs[i].At = cfg.Now + 10
				if err := m.Step(cfg, &evs[i], res); err != nil || !res.Handled {
					Fail("got an unhandled step or an error, want every step handled")
				}
			}
		}
		for range 5 { // grow the Result's buffers
			roundTrip()
		}
		Expect(et.Says(res)).To(Equal([]string{"bye"}))
		Expect(m.StateName(cfg.State)).To(Equal("ping"))
		Expect(slotValue(m, cfg, "age")).To(Equal(engine.NumberValue(5)))

		allocs := testing.AllocsPerRun(1000, roundTrip)
		Expect(allocs).To(BeZero(), "got %v allocations per round trip, want 0", allocs)
	})
})

var _ = Describe("a Step resuming a deep history over a parallel state", func() {
	It("does not allocate", func() {
		m, c, r := startChart(wrappedParallelYAML)
		event := func(name string) engine.Event {
			ev, err := et.ParseEvent(m, c, name)
			Expect(err).NotTo(HaveOccurred())
			return ev
		}
		step := func(ev *engine.Event) {
			if err := m.Step(c, ev, r); err != nil || !r.Handled {
				Fail("got an unhandled step or an error, want every step handled")
			}
		}
		for _, name := range []string{"start", "go", "in"} {
			ev := event(name)
			step(&ev)
		}
		// leave, then deep: out of s and back by its deep history.
		evs := []engine.Event{event("leave"), event("deep")}
		roundTrip := func() {
			for i := range evs {
				step(&evs[i])
			}
		}
		for range 5 { // grow the Result's buffers
			roundTrip()
		}
		Expect(activeLeaves(m, c)).To(Equal([]string{"s.t.p.r1.a2.q1.x2", "s.t.p.r1.a2.q2.y1", "s.t.p.r2.b2"}))

		allocs := testing.AllocsPerRun(1000, roundTrip)
		Expect(allocs).To(BeZero(), "got %v allocations per round trip, want 0", allocs)
	})
})
