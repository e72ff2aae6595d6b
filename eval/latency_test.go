package eval_test

import (
	"math/rand/v2"
	"slices"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// referencePercentile is the definition the histogram must meet, computed
// the slow way: sort every sample and take the nearest rank. The
// percentile is k/10 (k from 1 to 1000) so that the rank, ceil(k·n/1000),
// is exact integer arithmetic, with no floating point to agree with.
func referencePercentile(samples []int64, k int64) int64 {
	if len(samples) == 0 {
		return 0
	}
	sorted := slices.Sorted(slices.Values(samples))
	n := int64(len(sorted))
	rank := max((k*n+999)/1000, 1)
	return sorted[rank-1]
}

func histOf(samples ...int64) *eval.Hist {
	var h eval.Hist
	for _, s := range samples {
		h.Add(s)
	}
	return &h
}

func upTo(n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i) + 1
	}
	return out
}

type percentileCase struct {
	samples []int64
	p       float64
	want    int64
}

var _ = Describe("Hist", func() {
	It("gives the percentile sorting every sample gives, for random samples and percentiles (gopter, seed 1)", func() {
		params := gopter.DefaultTestParametersWithSeed(1)
		params.MinSuccessfulTests = 2000
		props := gopter.NewProperties(params)
		props.Property("Percentile(k/10) is the sorted sample of rank ceil(k·n/1000)", prop.ForAll(
			func(samples []int64, k int64) bool {
				h := histOf(samples...)
				p := float64(k) / 10
				want := referencePercentile(samples, k)
				return h.Percentile(p) == want && h.Percentiles(p)[0] == want
			},
			// Few distinct values make ties, many make a spread-out tail.
			gen.OneGenOf(gen.SliceOf(gen.Int64Range(0, 20)), gen.SliceOf(gen.Int64Range(0, 1_000_000))),
			gen.Int64Range(1, 1000),
		))
		Expect(props.Run(gopter.NewFormatedReporter(false, 100, GinkgoWriter))).To(BeTrue())
	})

	It("agrees with the reference on large seeded samples, at the percentiles reports print", func() {
		r := rand.New(rand.NewPCG(7, 7))
		for round := 0; round < 50; round++ {
			n := 1 + r.IntN(5000)
			samples := make([]int64, n)
			for i := range samples {
				samples[i] = int64(r.ExpFloat64() * 400)
			}
			h := histOf(samples...)
			got := h.Percentiles(50, 90, 95, 99, 100)
			want := []int64{referencePercentile(samples, 500), referencePercentile(samples, 900),
				referencePercentile(samples, 950), referencePercentile(samples, 990), slices.Max(samples)}
			Expect(got).To(Equal(want), "round %d, %d samples", round, n)
			Expect(h.Max()).To(Equal(slices.Max(samples)))
			Expect(h.Count()).To(Equal(int64(n)))
		}
	})

	DescribeTable("edge cases",
		func(c percentileCase) {
			Expect(histOf(c.samples...).Percentile(c.p)).To(Equal(c.want))
		},
		Entry("no samples", percentileCase{nil, 50, 0}),
		Entry("one sample, low percentile", percentileCase{[]int64{42}, 1, 42}),
		Entry("one sample, p100", percentileCase{[]int64{42}, 100, 42}),
		Entry("p99 of 1..100 is 99", percentileCase{upTo(100), 99, 99}),
		Entry("p95 of 1..20 is 19", percentileCase{upTo(20), 95, 19}),
		Entry("p50 of two is the lower", percentileCase{[]int64{20, 10}, 50, 10}),
		Entry("p50 of 1..4 is 2", percentileCase{upTo(4), 50, 2}),
		Entry("p99.9 of 1..1000 is 999, although 99.9/100·1000 computes just above 999", percentileCase{upTo(1000), 99.9, 999}),
		Entry("p0.1 of 1..1000 is 1", percentileCase{upTo(1000), 0.1, 1}),
		Entry("ties: p75 of 5,5,5,7 is 5", percentileCase{[]int64{5, 7, 5, 5}, 75, 5}),
		Entry("ties: p76 of 5,5,5,7 is 7", percentileCase{[]int64{5, 7, 5, 5}, 76, 7}),
		Entry("zero latencies", percentileCase{[]int64{0, 0, 0}, 95, 0}),
		Entry("a percentile above 100 is the maximum", percentileCase{upTo(10), 150, 10}),
	)

	It("summarises count, percentiles, maximum and mean", func() {
		s := histOf(upTo(100)...).Summary()
		Expect(s).To(Equal(eval.Summary{Count: 100, P50: 50, P90: 90, P95: 95, P99: 99, Max: 100, Mean: 50.5}))
		Expect((&eval.Hist{}).Summary()).To(Equal(eval.Summary{}))
	})
})

var _ = Describe("Latency", func() {
	It("merges slices of a run into exactly the aggregate of the whole", func() {
		r := rand.New(rand.NewPCG(3, 3))
		whole, parts := eval.NewLatency(), []*eval.Latency{eval.NewLatency(), eval.NewLatency(), eval.NewLatency()}
		for i := 0; i < 3000; i++ {
			part := parts[r.IntN(len(parts))]
			ms, state, turn := int64(r.IntN(900)), engine.StateID(r.IntN(5)), 1+r.IntN(8)
			trans := engine.TransID(r.IntN(12))
			for _, l := range []*eval.Latency{whole, part} {
				l.AddTurn(ms, state, turn)
				l.AddTransition(trans, ms/2)
				if ms%3 == 0 {
					l.AddSkippedNLU(ms)
				}
			}
		}
		merged := eval.NewLatency()
		for _, p := range parts {
			merged.Merge(p)
		}
		Expect(merged.Turn.Summary()).To(Equal(whole.Turn.Summary()))
		Expect(merged.NLUSkipped).To(Equal(whole.NLUSkipped))
		Expect(merged.NLUSavedMS).To(Equal(whole.NLUSavedMS))
		Expect(merged.ByState).To(HaveLen(len(whole.ByState)))
		for k, h := range whole.ByState {
			Expect(merged.ByState[k].Summary()).To(Equal(h.Summary()), "state %d", k)
		}
		for k, h := range whole.ByTransition {
			Expect(merged.ByTransition[k].Summary()).To(Equal(h.Summary()), "transition %d", k)
		}
		Expect(merged.ByTurnIndex).To(HaveLen(len(whole.ByTurnIndex)))
		for i, h := range whole.ByTurnIndex {
			Expect(merged.ByTurnIndex[i].Summary()).To(Equal(h.Summary()), "turn %d", i+1)
		}
	})
})
