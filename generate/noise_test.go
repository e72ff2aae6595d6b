package generate_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// passHatKBySubsets is pass^k by its definition: of the C(n,k) ways to
// choose k of a goal's n trials, the share in which all k succeeded,
// averaged over the goals with at least k trials. It enumerates the
// subsets, as a reference for PassHatK.
func passHatKBySubsets(goals []generate.GoalTally, k int) (float64, bool) {
	sum, n := 0.0, 0
	for _, g := range goals {
		if g.Trials < k {
			continue
		}
		n++
		all, good := 0, 0
		for mask := 0; mask < 1<<g.Trials; mask++ {
			if popcount(mask) != k {
				continue
			}
			all++
			// Trials 0..c-1 succeeded.
			if mask>>g.Successes == 0 {
				good++
			}
		}
		sum += float64(good) / float64(all)
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

func popcount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

type passCase struct {
	goals []generate.GoalTally
	k     int
	want  float64
	ok    bool
}

var _ = Describe("pass^k", func() {
	DescribeTable("is the mean over goals of C(c,k)/C(n,k)",
		func(c passCase) {
			got, ok := generate.PassHatK(c.goals, c.k)
			Expect(ok).To(Equal(c.ok))
			Expect(got).To(BeNumerically("~", c.want, 1e-12))
		},
		Entry("k=1 is the success rate", passCase{[]generate.GoalTally{{Trials: 4, Successes: 2}}, 1, 0.5, true}),
		Entry("k=2 of 2 successes in 4 trials: 1/6", passCase{[]generate.GoalTally{{Trials: 4, Successes: 2}}, 2, 1.0 / 6, true}),
		Entry("more than the successes: 0", passCase{[]generate.GoalTally{{Trials: 4, Successes: 2}}, 3, 0, true}),
		Entry("a goal that always succeeds: 1", passCase{[]generate.GoalTally{{Trials: 5, Successes: 5}}, 5, 1, true}),
		Entry("τ-bench style, three goals of 8 trials with 8, 6 and 4 successes, k=2: (28+15+6)/(3·28)",
			passCase{[]generate.GoalTally{{Trials: 8, Successes: 8}, {Trials: 8, Successes: 6}, {Trials: 8, Successes: 4}}, 2, 49.0 / 84, true}),
		Entry("the same at k=4: (70+15+1)/(3·70)",
			passCase{[]generate.GoalTally{{Trials: 8, Successes: 8}, {Trials: 8, Successes: 6}, {Trials: 8, Successes: 4}}, 4, 86.0 / 210, true}),
		Entry("goals with fewer than k trials are left out", passCase{[]generate.GoalTally{{Trials: 2, Successes: 2}, {Trials: 3, Successes: 0}}, 3, 0, true}),
		Entry("no goal has k trials: undefined", passCase{[]generate.GoalTally{{Trials: 2, Successes: 2}}, 3, 0, false}),
		Entry("k=0: undefined", passCase{[]generate.GoalTally{{Trials: 2, Successes: 2}}, 0, 0, false}),
	)

	It("agrees with counting the subsets of trials in which all succeed", func() {
		for n := 0; n <= 8; n++ {
			for c := 0; c <= n; c++ {
				goals := []generate.GoalTally{{Trials: n, Successes: c}, {Trials: 8, Successes: (c * 3) % 9}}
				for k := 1; k <= 8; k++ {
					want, wok := passHatKBySubsets(goals, k)
					got, ok := generate.PassHatK(goals, k)
					Expect(ok).To(Equal(wok))
					Expect(got).To(BeNumerically("~", want, 1e-12), "n=%d c=%d k=%d", n, c, k)
				}
			}
		}
	})
})

var _ = Describe("generated conversations under NLU noise", func() {
	It("measure the same as Run without noise, and tally every conversation under its goal", func() {
		s := load("../scenarios/soni")
		v := s.Variants[0]
		met, _, err := generate.Run(s, v, generate.Options{Seed: 5, From: 0, To: 300})
		Expect(err).NotTo(HaveOccurred())
		got, goals, err := generate.Measure(s, v, generate.Options{Seed: 5, From: 0, To: 300})
		Expect(err).NotTo(HaveOccurred())
		met.Latency = nil // Measure does not time turns
		Expect(got).To(Equal(met))
		trials, successes := 0, 0
		for _, g := range goals {
			trials += g.Trials
			successes += g.Successes
		}
		Expect(trials).To(Equal(300))
		Expect(successes).To(Equal(met.Successes))
		Expect(goals[0].Goal).To(Equal("book_flight_003"))
	})

	It("are deterministic for a seed", func() {
		s := load("../scenarios/bench-soni")
		opts := generate.Options{Seed: 2, From: 0, To: 200, NLU: sim.NLUOptions{Noise: 0.1}}
		a, ga, err := generate.Measure(s, s.Variants[0], opts)
		Expect(err).NotTo(HaveOccurred())
		b, gb, err := generate.Measure(s, s.Variants[0], opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(a).To(Equal(b))
		Expect(ga).To(Equal(gb))
	})

	DescribeTable("succeed less often as the NLU errs more, on the seed suites with goals",
		func(dir string) {
			s := load(dir)
			rate := map[float64]float64{}
			for _, r := range []float64{0, 0.05, 0.1, 0.2} {
				met, _, err := generate.Measure(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 500, NLU: sim.NLUOptions{Noise: r}})
				Expect(err).NotTo(HaveOccurred())
				rate[r] = float64(met.Successes) / float64(met.Conversations)
			}
			GinkgoWriter.Printf("%s: success %v\n", dir, rate)
			Expect(rate[0.2]).To(BeNumerically("<", rate[0]))
			Expect(rate[0.1]).To(BeNumerically("<", rate[0]))
			Expect(rate[0.2]).To(BeNumerically("<", rate[0.05]))
		},
		Entry("soni", "../scenarios/soni"),
		Entry("bench-soni", "../scenarios/bench-soni"),
	)

	It("write failures that replay without noise: the turns the noise changed become the events the machine got", func() {
		s := load("testdata/noisy")
		dir := GinkgoT().TempDir()
		_, fails, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 200, FailuresDir: dir})
		Expect(err).NotTo(HaveOccurred())
		Expect(fails).To(BeEmpty(), "the machine breaks only under noise")
		_, fails, err = generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 200, FailuresDir: dir,
			NLU: sim.NLUOptions{Noise: 0.3}})
		Expect(err).NotTo(HaveOccurred())
		Expect(fails).NotTo(BeEmpty())
		noisy := 0
		for _, f := range fails {
			file := filepath.Join(dir, f.Name+".scenario.yaml")
			Expect(os.WriteFile(file, f.Scenario, 0o644)).To(Succeed())
			rs, sc, err := spec.LoadScenarioFile(file)
			Expect(err).NotTo(HaveOccurred(), string(f.Scenario))
			r := sim.RunScenario(rs, sc, sim.Options{})
			Expect(r.Violations).NotTo(BeEmpty(), string(f.Scenario))
			Expect(r.Violations[0].Invariant).To(Equal(f.Invariant), string(f.Scenario))
			Expect(r.Violations[0].Msg).To(Equal(f.Violation.Msg), string(f.Scenario))
			for _, t := range sc.Turns {
				if t.Event != nil && t.Event.Text != "" {
					noisy++
				}
			}
		}
		Expect(noisy).To(BeNumerically(">", 0), "some failure should go through a noisy turn")
	})
})
