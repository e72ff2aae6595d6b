package generate_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/generate"
)

var _ = Describe("latency of generated conversations", Label("race"), func() {
	It("is aggregated per suite and variant under the suite's latency model, the same on several workers", func() {
		s := load("../scenarios/soni")
		v := s.Variants[0]
		one, _, err := generate.Run(s, v, generate.Options{Seed: 4, From: 0, To: 300})
		Expect(err).NotTo(HaveOccurred())
		Expect(one.Latency).NotTo(BeNil())
		// Soni has no timers, so every turn a user took is a response time.
		Expect(one.Latency.Turn.Count()).To(Equal(int64(one.Turns)))
		Expect(one.Latency.NLUSkipped).To(BeNumerically(">", 0))
		many, _, err := generate.Run(s, v, generate.Options{Seed: 4, From: 0, To: 300, Workers: 4})
		Expect(err).NotTo(HaveOccurred())
		Expect(many.Latency).To(Equal(one.Latency))
	})

	It("leaves out the replays of shrinking", func() {
		s := load("../scenarios/soni")
		v := s.Variants[0]
		short, fs, err := generate.Run(s, v, generate.Options{Seed: 4, From: 0, To: 300, MaxShrinks: 1})
		Expect(err).NotTo(HaveOccurred())
		Expect(fs).NotTo(BeEmpty(), "soni's contradictions give failures to shrink")
		long, _, err := generate.Run(s, v, generate.Options{Seed: 4, From: 0, To: 300, MaxShrinks: 5000})
		Expect(err).NotTo(HaveOccurred())
		Expect(long.Latency).To(Equal(short.Latency))
	})

	It("is absent for a suite without a latency model", func() {
		s := load("../scenarios/bench-soni")
		met, _, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 20})
		Expect(err).NotTo(HaveOccurred())
		Expect(met.Latency).To(BeNil())
	})
})
