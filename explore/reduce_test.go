package explore_test

// The reductions (value classes, slots that are not state) against the
// unreduced search: on random machines and on every seed suite, both find
// the same kinds of findings with the same shortest path lengths, and cover
// the same transitions and guard outcomes. SIMCTL_REDUCE_CASES sets how
// many random machines are tried (make fuzz tries many).

import (
	"fmt"
	"strings"

	"github.com/leanovate/gopter"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/spec"
)

// SIMCTL_REDUCE_FORMFILL_DEPTH sets the depth formfill is compared to
// (make test: 2; make fuzz: 4, about a minute unreduced).
var reduceCases = int(envInt("SIMCTL_REDUCE_CASES", 50))

// searchOutcome is what the reductions must keep of a search. A livelock
// is compared only where both searches finished: a bounded search counts
// its frontier as able to go on, and a reduced one, whose configurations
// stand for several, reaches each class at its least depth and so may
// prove a livelock within the bound that the full one cannot (the reverse
// is checked: a livelock the full search proves, the reduced one proves
// too). withLivelock says whether it is included.
func searchOutcome(res *explore.Result, withLivelock bool) string {
	var b strings.Builder
	for _, k := range kinds(res) {
		if k == "livelock" && !withLivelock {
			continue
		}
		fmt.Fprintf(&b, "%s@%d ", k, res.PathLen(finding(res, k).Node))
	}
	cov := res.Coverage
	for _, xs := range [][]int64{cov.Trans, cov.GuardTrue, cov.GuardFalse, cov.States} {
		b.WriteString("\n")
		for _, x := range xs {
			if x > 0 {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
	}
	return b.String()
}

// sameReduced explores v of s to depth both ways and describes any
// difference.
func sameReduced(s *spec.Suite, v *spec.Variant, depth int) error {
	full, err := explore.Explore(s, v, explore.Options{Depth: depth, NoReduce: true})
	if err != nil {
		return nil
	}
	red, err := explore.Explore(s, v, explore.Options{Depth: depth})
	if err != nil {
		return fmt.Errorf("the reduced search fails, the full one does not: %v", err)
	}
	if red.Distinct > full.Distinct {
		return fmt.Errorf("the reduced search has more configurations (%d) than the full one (%d)", red.Distinct, full.Distinct)
	}
	both := red.Complete && full.Complete
	if full.Complete && !red.Complete {
		return fmt.Errorf("the full search finished, the reduced one did not")
	}
	if finding(full, "livelock") != nil && finding(red, "livelock") == nil {
		return fmt.Errorf("variant %s, depth %d: the full search proves a livelock, the reduced one does not", v.Name, depth)
	}
	if got, want := searchOutcome(red, both), searchOutcome(full, both); got != want {
		return fmt.Errorf("variant %s, depth %d (%s):\nreduced: %s\nfull:    %s", v.Name, depth, red.Values, got, want)
	}
	return nil
}

var _ = Describe("reductions", func() {
	DescribeTable("keep every finding, its shortest path and the coverage of a seed suite",
		func(dir string, depth int) {
			s := load(dir)
			for _, v := range s.Variants {
				Expect(sameReduced(s, v, depth)).To(Succeed())
			}
		},
		Entry("soni", seedSuite("soni"), 4),
		Entry("bench-soni", seedSuite("bench-soni"), 4),
		Entry("hfsm", seedSuite("hfsm"), 4),
		Entry("thea", seedSuite("thea"), 3),
		Entry("formfill", seedSuite("formfill"), int(envInt("SIMCTL_REDUCE_FORMFILL_DEPTH", 2))),
		Entry("planted", "testdata/planted", 10),
	)

	It("keep every finding, its shortest path and the coverage of random machines", func() {
		params := gopter.DefaultTestParametersWithSeed(refSeed)
		params.MinSuccessfulTests = reduceCases
		params.MaxShrinkCount = 0
		props := gopter.NewProperties(params)
		props.Property("reduced = full", forAllMachines(func(c machineCase) error {
			s, err := c.suite()
			if err != nil {
				return err
			}
			return sameReduced(s, s.Variants[0], c.Depth)
		}))
		var out strings.Builder
		if !props.Run(gopter.NewFormatedReporter(true, 1<<16, &out)) {
			Fail(fmt.Sprintf("the reduced and the full search disagree; gopter seed %d\n%s", refSeed, out.String()))
		}
	})

	It("say how the user acts were reduced, and which slots are not state", func() {
		res := search(load(seedSuite("formfill")), explore.Options{Depth: 1})
		Expect(res.Values).To(MatchRegexp(`^value classes: 162 user acts in \d+ classes, \d+ explored; not state \(nothing reads them\): user_message, .*response`))
		res = search(load(seedSuite("hfsm")), explore.Options{Depth: 1})
		Expect(res.Values).To(ContainSubstring("every text is told apart: "))
		res = search(load(seedSuite("hfsm")), explore.Options{Depth: 1, NoReduce: true})
		Expect(res.Values).To(HavePrefix("value classes: off (--no-reduce)"))
	})
})
