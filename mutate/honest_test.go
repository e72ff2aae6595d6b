package mutate_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/mutate"
)

var _ = Describe("honest scores", func() {
	var results []mutate.Result
	BeforeEach(func() {
		results = judgeAll(load("testdata/door"), mutate.Options{Seed: 1, ExploreDepth: -1, MaxStates: 10_000, EquivStates: 10_000})
	})

	It("calls a mutant of a transition the search never exercised unreached, never equivalent", func() {
		var unreached []string
		for _, r := range results {
			Expect(r.Status).NotTo(Equal(mutate.Equivalent), r.Mutant.Desc)
			if r.Status == mutate.Unreached {
				unreached = append(unreached, r.Mutant.Desc)
			}
		}
		// One mutant of the unreachable state's transition (which other
		// target the operator picks is its own business).
		Expect(unreached).To(HaveLen(1))
		Expect(unreached[0]).To(HavePrefix("state stuck: on open -> closed: target closed changed to "))
	})

	It("scores with and without the pinned scenarios, unreached counted against both", func() {
		t := mutate.Summarize(results)[0].All
		Expect(t.Unreached).To(Equal(1))
		Expect(t.Pinned).To(Equal(1))
		Expect(t.Judged()).To(Equal(t.Mutants - t.Invalid - t.Equivalent))
		Expect(t.ScoreWithoutPins()).To(BeNumerically("<", t.Score()))
		Expect(t.Score()).To(BeNumerically("==", float64(t.Killed)/float64(t.Judged())))
		Expect(t.ScoreWithoutPins()).To(BeNumerically("==", float64(t.Killed-1)/float64(t.Judged())))
	})
})
