package explore_test

// A search on several goroutines, and one whose queue spills to disk,
// against the ordinary search: the same counts, coverage, findings and
// shortest paths, and the same graph, node for node.

import (
	"fmt"
	"os"
	"strings"

	"github.com/leanovate/gopter"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/spec"
)

// sameAs searches v of s with opts and with opts changed by vary, and
// describes any difference.
func sameAs(s *spec.Suite, v *spec.Variant, opts explore.Options, vary func(*explore.Options)) error {
	o := opts
	vary(&o)
	one, err := explore.Explore(s, v, opts)
	other, err2 := explore.Explore(s, v, o)
	if err != nil || err2 != nil {
		// A machine that fails at its start fails either way.
		if fmt.Sprint(err) != fmt.Sprint(err2) {
			return fmt.Errorf("%v, then %v", err, err2)
		}
		return nil
	}
	if err := sameSearch(one, other); err != nil {
		return err
	}
	return explore.SameGraph(one, other)
}

// workersCases is how many random machines the several-goroutines
// property tries: SIMCTL_WORKERS_CASES, 15 in make test, where it runs
// under the race detector (50 took a third of the package's time there);
// make fuzz and fuzz-short set it as they set SIMCTL_REDUCE_CASES.
var workersCases = int(envInt("SIMCTL_WORKERS_CASES", 15))

func workers(n int) func(*explore.Options) {
	return func(o *explore.Options) { o.Workers = n }
}

// sameOnWorkers searches every variant of the suite in dir to depth on
// one goroutine and on workers, every level on the workers in batches of
// batch, and expects the same search.
func sameOnWorkers(dir string, depth, workers, batch int) {
	defer explore.SetParallel(1, batch)()
	s := load(dir)
	for _, v := range s.Variants {
		Expect(sameAs(s, v, explore.Options{Depth: depth}, func(o *explore.Options) { o.Workers = workers })).
			To(Succeed(), "%s [%s] on %d goroutines", s.Name, v.Name, workers)
	}
}

// The race detector watches the workers' memory accesses whatever the
// machine's size, at about ten times the CPU: under it, soni, thea and
// formfill are searched a level less deep than in the table after it,
// which runs the deep searches without the detector (soni's complete
// search and thea's to depth 4 took 150 s of the race run, two thirds of
// it).
var _ = Describe("a search on several goroutines", Label("race"), func() {
	DescribeTable("finds what one finds, node for node", sameOnWorkers,
		Entry("planted faults (dead end, livelock, invariants)", "testdata/planted", 10, 2, 1),
		Entry("planted faults, 3 workers", "testdata/planted", 10, 3, 4),
		Entry("soni, bounded", seedSuite("soni"), 4, 2, 7),
		Entry("thea, bounded, 3", seedSuite("thea"), 3, 3, 16),
		Entry("formfill", seedSuite("formfill"), 2, 2, 64),
		Entry("hfsm, complete", seedSuite("hfsm"), 40, 2, 3),
		Entry("bench-soni, complete, adaptive batches", seedSuite("bench-soni"), 1000, 2, 0),
	)

	DescribeTable("stops at the state cap where one stops",
		func(maxStates, batch int) {
			defer explore.SetParallel(1, batch)()
			s := load(seedSuite("thea"))
			Expect(sameAs(s, s.Variants[0], explore.Options{Depth: 6, MaxStates: maxStates}, workers(2))).To(Succeed())
		},
		Entry("in a batch", 1500, 50),
		Entry("at a batch's first node", 1500, 1),
		Entry("in a big batch", 700, 0),
	)

	It("finds what one finds on random machines", func() {
		defer explore.SetParallel(1, 2)()
		params := gopter.DefaultTestParametersWithSeed(refSeed)
		params.MinSuccessfulTests = workersCases
		params.MaxShrinkCount = 0
		props := gopter.NewProperties(params)
		props.Property("workers = one", forAllMachines(func(c machineCase) error {
			s, err := c.suite()
			if err != nil {
				return err
			}
			n := 2 + int(c.Seed%3)
			return sameAs(s, s.Variants[0], explore.Options{Depth: c.Depth}, func(o *explore.Options) {
				o.Workers, o.QueueMemory = n, 1+c.Seed%512
			})
		}))
		var out strings.Builder
		if !props.Run(gopter.NewFormatedReporter(true, 1<<16, &out)) {
			Fail(fmt.Sprintf("one goroutine and several disagree; gopter seed %d\n%s", refSeed, out.String()))
		}
	})
})

var _ = Describe("a deep search on several goroutines", func() {
	DescribeTable("finds what one finds, node for node", sameOnWorkers,
		Entry("soni, complete", seedSuite("soni"), 40, 2, 7),
		Entry("thea, bounded, 3", seedSuite("thea"), 4, 3, 16),
		Entry("formfill", seedSuite("formfill"), 3, 2, 64),
	)
})

// Only the entries on several goroutines carry the race label: a spilled
// queue on one goroutine has nothing to race.
var _ = Describe("a search whose queue spills to disk", func() {
	DescribeTable("finds what one in memory finds, and leaves no file behind",
		func(dir string, depth, workers int) {
			tmp := GinkgoT().TempDir()
			var s *spec.Suite
			if dir == "" {
				s = suiteOf(gridYAML(5, 10))
			} else {
				s = load(dir)
			}
			res, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: depth, QueueMemory: 64, SpillDir: tmp, Workers: workers})
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Spilled).To(BeNumerically(">", 0))
			Expect(sameAs(s, s.Variants[0], explore.Options{Depth: depth}, func(o *explore.Options) {
				o.QueueMemory, o.SpillDir, o.Workers = 1, tmp, workers
			})).To(Succeed())
			Expect(os.ReadDir(tmp)).To(BeEmpty())
		},
		Entry("soni, complete", seedSuite("soni"), 40, 1),
		Entry("thea, bounded", seedSuite("thea"), 3, 1),
		// Under -race a level less deep; the deeper search on workers
		// without it.
		Entry("formfill, bounded, 2 workers", Label("race"), seedSuite("formfill"), 2, 2),
		Entry("formfill, bounded deeper, 2 workers", seedSuite("formfill"), 3, 2),
		Entry("a counter grid, 2 workers", Label("race"), "", 1000, 2),
	)

	It("leaves no file behind when interrupted", func() {
		tmp := GinkgoT().TempDir()
		s := load(seedSuite("soni"))
		n := 0
		res, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: 40, QueueMemory: 1, SpillDir: tmp, Stop: func() bool {
			n++
			return n > 100
		}})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Stopped).To(Equal(explore.Interrupted))
		Expect(res.Spilled).To(BeNumerically(">", 0))
		Expect(os.ReadDir(tmp)).To(BeEmpty())
	})

	It("says where it cannot spill", func() {
		s := load(seedSuite("soni"))
		_, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: 40, QueueMemory: 1, SpillDir: "/nonexistent/simctl"})
		Expect(err).To(MatchError(ContainSubstring("soni: the search's queue cannot spill to disk: open /nonexistent/simctl/simctl-queue-")))
	})
})
