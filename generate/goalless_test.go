package generate_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/sim"
)

// The player (testdata/player) is a chart with buttons and no end: no
// final state, no flow, no nlu.yaml, no users.yaml.
const player = "testdata/player"

var _ = Describe("derived users of a machine that names no goal", func() {
	It("claim no success, play every conversation for its turns, and press every button", func() {
		s := load(player)
		cov := eval.NewCoverage(s.Machine)
		met, fails, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 100, Observers: []sim.Observer{cov}})
		Expect(err).NotTo(HaveOccurred())
		Expect(met.SuccessBy).To(Equal(generate.SuccessNone))
		Expect(met.Successes).To(BeZero())
		// No task to end: no liveness asked of it, and every
		// conversation runs to the machine's max_turns (50).
		Expect(fails).To(BeEmpty())
		Expect(met.Turns).To(Equal(50 * met.Conversations))
		Expect(cov.Trans).To(HaveLen(7))
		Expect(cov.Trans).NotTo(ContainElement(BeZero()))
	})

	It("do not press the events the machine raises itself while there is a button to press", func() {
		// testdata/heater raises overheat itself, on a tick whose
		// condition never holds: a user who pressed overheat would
		// break the heater, which the heater never does on its own.
		s := load("testdata/heater")
		cov := eval.NewCoverage(s.Machine)
		_, _, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 100, Observers: []sim.Observer{cov}})
		Expect(err).NotTo(HaveOccurred())
		m := s.Machine
		broken, ok := m.StateID("broken")
		Expect(ok).To(BeTrue())
		taken := map[string]int64{}
		for t := 0; t < m.NumTransitions(); t++ {
			ti := m.Transition(engine.TransID(t))
			to := "-"
			if ti.Target == broken {
				to = "broken"
			}
			taken[ti.Trigger+"/"+to] += cov.Trans[t]
		}
		Expect(taken).To(HaveKeyWithValue("overheat/broken", int64(0)))
		Expect(taken["start/-"]).To(BeNumerically(">", 0))
		Expect(taken["stop/-"]).To(BeNumerically(">", 0))
	})

	DescribeTable("keep a goal where the suite names one",
		func(dir, by string) {
			s := load(dir)
			met, _, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 50})
			Expect(err).NotTo(HaveOccurred())
			Expect(met.SuccessBy).To(Equal(by))
		},
		Entry("requests asked in words (nlu.yaml), back at the initial state after the booking", "../docs/examples/booking", generate.SuccessCompleted),
		Entry("idle_states that say where a task ends", "testdata/anythingelse", generate.SuccessCompleted),
		Entry("a top-level final state", "../cli/testdata/charts/keypad", generate.SuccessCompleted),
		Entry("a users.yaml goal", "../docs/examples/research", generate.SuccessCondition),
	)
})
