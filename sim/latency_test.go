package sim_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// transitionCost sums the latency attributed to the transitions of m from
// state from (a full path) with trigger.
func transitionCost(m *engine.Machine, l *eval.Latency, from, trigger string) (count, sum int64) {
	for id, h := range l.ByTransition {
		t := m.Transition(id)
		if m.StateName(t.Source) == from && t.Trigger == trigger {
			count += h.Count()
			sum += h.Sum()
		}
	}
	return count, sum
}

var _ = Describe("the latency model", func() {
	var s *spec.Suite

	BeforeEach(func() {
		s = load("testdata/latency")
	})

	play := func(name string, seed int64) (*sim.ScenarioResult, *eval.Latency) {
		l := eval.NewLatency()
		r := sim.RunScenario(s, scenario(s, name), sim.Options{Latency: l, Seed: seed})
		Expect(r.Failures).To(BeEmpty())
		Expect(r.Violations).To(BeEmpty())
		Expect(r.Status).To(Equal(sim.Pass))
		return r, l
	}

	It("moves the clock on by a turn's latency, firing a timer that falls due during a slow action before the next user turn", func() {
		stub := sim.NewStub(s.NLU, s.Machine)
		d := sim.NewDriver(s.Machine, stub, stub)
		d.Latency = s.Latency
		Expect(d.Start(0)).To(Succeed())
		Expect(d.User("go")).To(Succeed())
		// NLU 300 ms, then the lookup (an action: 5 s); the nudge timer,
		// started at 0 for 2 s, fired at its deadline during the lookup.
		Expect(d.Info.Latency).To(Equal(int64(5300)))
		Expect(d.Cfg.Now).To(Equal(int64(5300)))
		Expect(s.Machine.StateName(d.Cfg.State)).To(Equal("nudged"))
		Expect(string(d.Info.Said)).To(Equal("found\nstill there?"))
		Expect(d.User("hello")).To(Succeed())
		Expect(d.Cfg.Now).To(Equal(int64(5600)))

		// The scenario says the same, and breaks no invariant (timer_law
		// included: the timer fired exactly at its deadline).
		_, l := play("slow", 1)
		Expect(l.Turn.Summary()).To(Equal(eval.Summary{Count: 2, P50: 300, P90: 5300, P95: 5300, P99: 5300, Max: 5300, Mean: 2800}))
		nudged, _ := s.Machine.StateID("nudged")
		Expect(l.ByState[nudged].Max()).To(Equal(int64(5300)))
		Expect(l.ByTurnIndex).To(HaveLen(2))
		// The NLU call goes to the turn's first transition, and so does the
		// lookup that looking's entry invoked during it.
		n, sum := transitionCost(s.Machine, l, "idle", "go")
		Expect([]int64{n, sum}).To(Equal([]int64{1, 5300}))
		n, sum = transitionCost(s.Machine, l, "looking", "done:lookup")
		Expect([]int64{n, sum}).To(Equal([]int64{1, 0}))
		n, sum = transitionCost(s.Machine, l, "answered", "timer:nudge")
		Expect([]int64{n, sum}).To(Equal([]int64{1, 0}))
	})

	It("leaves the clock alone without a latency model", func() {
		plain := *s
		plain.Latency = nil
		l := eval.NewLatency()
		r := sim.RunScenario(&plain, scenario(&plain, "slow"), sim.Options{Latency: l})
		Expect(r.Status).To(Equal(sim.Fail), "the timer never falls due, so the expectations fail")
		Expect(r.Failures[0].What).To(Equal("state"))
		Expect(l.Turn.Count()).To(BeZero())

		stub := sim.NewStub(s.NLU, s.Machine)
		d := sim.NewDriver(s.Machine, stub, stub)
		Expect(d.Start(0)).To(Succeed())
		Expect(d.User("go")).To(Succeed())
		Expect(d.Cfg.Now).To(BeZero())
		Expect(d.Info.Latency).To(BeZero())
		Expect(s.Machine.StateName(d.Cfg.State)).To(Equal("answered"))
	})

	It("counts a fork's slowest branch plus the merge, not the sum of the branches, in any branch order", func() {
		sc := scenario(s, "fork")
		for _, order := range [][]int{nil, {0, 1, 2}, {2, 1, 0}, {1, 1, 0, 2, 2, 0}, {2, 0, 2, 1, 0, 1}} {
			sc.Turns[0].Schedule = order
			for seed := int64(1); seed <= 3; seed++ {
				_, l := play("fork", seed)
				// NLU 300 + the slowest branch + merge 50. Each branch starts
				// in pick, a validation step (40), then invokes fast (100),
				// slow (an llm: 300) or mid (a synthesis: 200): 340. The sum
				// of the branches would give 1070.
				Expect(l.Turn.Max()).To(Equal(int64(690)), "schedule %v, seed %d", order, seed)
				_, sum := transitionCost(s.Machine, l, "research", "join")
				Expect(sum).To(Equal(int64(50)), "the merge's action is the join's")
			}
		}
		sc.Turns[0].Schedule = nil
	})

	It("charges no NLU call to a turn that direct slot mapping answers, and counts what it saved", func() {
		r, l := play("direct", 1)
		Expect(r.NLUSkipped).To(Equal(1))
		asking, _ := s.Machine.StateID("asking")
		// "ask": the NLU call; "Ana": mapped directly, then the validation
		// step (40 ms) as checking is entered.
		Expect(l.ByTurnIndex[0].Max()).To(Equal(int64(300)))
		Expect(l.ByTurnIndex[1].Max()).To(Equal(int64(40)))
		Expect(l.ByState[asking].Count()).To(Equal(int64(2)))
		Expect(l.NLUSkipped).To(Equal(int64(1)))
		Expect(l.NLUSavedMS).To(Equal(int64(300)))
		n, sum := transitionCost(s.Machine, l, "asking", "inform")
		Expect([]int64{n, sum}).To(Equal([]int64{1, 40}), "the validation is the transition's that entered the state")
	})

	It("draws from the conversation's seeded source: the same seed gives the same latencies", func() {
		soni := load("../scenarios/soni")
		Expect(soni.Latency).NotTo(BeNil())
		run := func(seed int64) *eval.Latency {
			l := eval.NewLatency()
			for _, sc := range soni.Scenarios {
				sim.RunScenario(soni, sc, sim.Options{Latency: l, Seed: seed})
			}
			return l
		}
		a, b, c := run(5), run(5), run(6)
		Expect(a).To(Equal(b))
		Expect(a.Turn.Summary()).NotTo(Equal(c.Turn.Summary()))
		// Soni has no forks and no timers, and every turn takes a
		// transition: the turns' latency is what fell to the transitions.
		total := int64(0)
		for _, h := range a.ByTransition {
			total += h.Sum()
		}
		Expect(total).To(Equal(a.Turn.Sum()))
		Expect(a.NLUSkipped).To(BeNumerically(">", 0))
	})

	It("keeps the Soni scenarios' verdicts under its latency model", func() {
		soni := load("../scenarios/soni")
		plain := *soni
		plain.Latency = nil
		for _, sc := range soni.Scenarios {
			with := sim.RunScenario(soni, sc, sim.Options{Seed: 1})
			without := sim.RunScenario(&plain, sc, sim.Options{Seed: 1})
			Expect(with.Status).To(Equal(without.Status), sc.Name)
			Expect(with.Status).NotTo(Equal(sim.Fail), "%s: %s", sc.Name, strings.Join(failureLines(with), "; "))
		}
	})
})

func failureLines(r *sim.ScenarioResult) []string {
	var out []string
	for _, f := range r.Failures {
		out = append(out, f.String())
	}
	for _, v := range r.Violations {
		out = append(out, v.String())
	}
	return out
}
