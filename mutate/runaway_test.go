package mutate_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/mutate"
)

// The basket (testdata/basket): its whole search is three configurations;
// dropping either checkout's emptying of items lets items grow on every
// round, so the mutant's search never finishes.
const basket = "testdata/basket"

// Small caps: each configuration of a runaway basket holds a longer text.
var small = mutate.Options{Seed: 1, Generate: 20, ExploreDepth: -1, MaxStates: 500, EquivStates: 500}

func byDesc(rs []mutate.Result) map[string]mutate.Result {
	out := map[string]mutate.Result{}
	for _, r := range rs {
		out[r.Mutant.Desc] = r
	}
	return out
}

var _ = Describe("a runaway mutant", func() {
	const (
		dropOne = `state one: on checkout -> empty: action set items = "" dropped`
		dropTwo = `state two: on checkout -> empty: action set items = "" dropped`
	)

	It("is stopped past factor times the original's configurations and killed by the explored source, the other verdicts unchanged", func() {
		o := small
		o.RunawayFactor, o.RunawayFloor = 10, 0
		got := byDesc(judgeAll(load(basket), o))
		without := byDesc(judgeAll(load(basket), small))
		for _, d := range []string{dropOne, dropTwo} {
			Expect(got[d].Status).To(Equal(mutate.Runaway), d)
			Expect(got[d].Source).To(Equal(mutate.Explored))
			Expect(got[d].Detail).To(Equal("the exploration reaches more than 30 distinct configurations; the original's finishes with 3"))
			// Without the runaway cap the search runs to the cap and
			// proves nothing.
			Expect(without[d].Status).To(Equal(mutate.Survived), d)
			Expect(without[d].Detail).To(ContainSubstring("does not complete within 500 configurations"))
		}
		Expect(got).To(HaveLen(len(without)))
		for d, r := range without {
			if d != dropOne && d != dropTwo {
				Expect(got[d].Status).To(Equal(r.Status), d)
				Expect(got[d].Detail).To(Equal(r.Detail), d)
			}
		}
	})

	It("counts as killed by the explored source, as PIT counts a timed-out mutant detected", func() {
		o := small
		o.RunawayFactor, o.RunawayFloor = 10, 100
		sum := mutate.Summarize(judgeAll(load(basket), o))[0]
		Expect(sum.All.Runaway).To(Equal(2))
		Expect(sum.All.BySource[mutate.Explored]).To(Equal(2))
		Expect(sum.All.Killed).To(Equal(8))
		Expect(sum.All.Score()).To(BeNumerically("~", 0.8, 1e-9))
		Expect(sum.Runaways).To(HaveLen(2))
		Expect(sum.Runaways[0].Detail).To(HavePrefix("the exploration reaches more than 100 distinct configurations;"))
		for _, r := range sum.Survivors {
			Expect(r.Status).NotTo(Equal(mutate.Runaway))
		}
	})

	DescribeTable("is not claimed when its cap is the search's own or more",
		func(factor, floor int) {
			o := small
			o.RunawayFactor, o.RunawayFloor = factor, floor
			got := byDesc(judgeAll(load(basket), o))
			Expect(got[dropOne].Status).To(Equal(mutate.Survived))
			Expect(got[dropTwo].Status).To(Equal(mutate.Survived))
		},
		Entry("the floor at the cap", 10, 500),
		Entry("factor times the original's past the cap", 200, 0),
		Entry("no factor", 0, 100),
	)
})
