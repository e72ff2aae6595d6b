package generate_test

import (
	"os"
	"path/filepath"
	"reflect"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

func load(dir string) *spec.Suite {
	s, err := spec.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	return s
}

var _ = Describe("generated conversations", func() {
	var dir string

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
	})

	It("find the planted unbounded retry loop within 2000 conversations and shrink it to the 4 turns that show it", func() {
		s := load("testdata/planted")
		_, fails, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 2000, FailuresDir: dir})
		Expect(err).NotTo(HaveOccurred())
		Expect(fails).To(HaveLen(1))
		f := fails[0]
		Expect(f.Invariant).To(Equal(eval.CounterLimit))
		// The minimum: ask for a pizza, then three invalid sizes.
		Expect(f.ShrunkTurns).To(Equal(4))

		By("writing a scenario that reproduces the same violation when run")
		file := filepath.Join(dir, f.Name+".scenario.yaml")
		Expect(os.WriteFile(file, f.Scenario, 0o644)).To(Succeed())
		rs, sc, err := spec.LoadScenarioFile(file)
		Expect(err).NotTo(HaveOccurred())
		r := sim.RunScenario(rs, sc, sim.Options{})
		Expect(r.Status).To(Equal(sim.Fail))
		Expect(r.Violations).NotTo(BeEmpty())
		Expect(r.Violations[0].Invariant).To(Equal(eval.CounterLimit))
		Expect(r.Violations[0].Msg).To(Equal(f.Violation.Msg))
		Expect(r.Violations[0].Turn).To(Equal(f.Violation.Turn))
	})

	It("stop shrinking a finding as soon as the run is stopped (SIGINT, SIGTERM), keeping it unshrunk", func() {
		// On a big imported agent shrinking one finding plays thousands of
		// candidates for minutes; a stop must not wait for them. The stop
		// comes the moment the first violating conversation is counted,
		// before its shrinking starts.
		s := load("testdata/planted")
		stopped := false
		opts := generate.Options{Seed: 1, From: 0, To: 2000, FailuresDir: dir,
			Stop:     func() bool { return stopped },
			Progress: func(_, violating int) { stopped = stopped || violating > 0 }}
		met, fails, err := generate.Run(s, s.Variants[0], opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(fails).To(HaveLen(1))
		Expect(met.Conversations).To(BeNumerically("<", 2000))
		// Unstopped, the same finding shrinks to 4 turns (above).
		Expect(fails[0].ShrunkTurns).To(Equal(fails[0].Turns))
		Expect(fails[0].Turns).To(BeNumerically(">", 4))
		Expect(fails[0].Replays).To(BeTrue())
	})

	It("hold every invariant on the WORKLOAD machine", func() {
		s := load("../scenarios/bench-soni")
		met, fails, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 3, From: 0, To: 500})
		Expect(err).NotTo(HaveOccurred())
		Expect(fails).To(BeEmpty())
		Expect(met.Conversations).To(Equal(500))
		Expect(met.Successes).To(BeNumerically(">", 250))
	})

	It("are the same for the same seed and different for another", func() {
		s := load("testdata/planted")
		a, fa, _ := generate.Run(s, s.Variants[0], generate.Options{Seed: 7, From: 0, To: 300})
		b, fb, _ := generate.Run(s, s.Variants[0], generate.Options{Seed: 7, From: 0, To: 300})
		Expect(a).To(Equal(b))
		Expect(len(fa)).To(Equal(len(fb)))
		for i := range fa {
			Expect(fa[i].Scenario).To(Equal(fb[i].Scenario))
		}
		mo, err := generate.NewModel(s, s.Machine)
		Expect(err).NotTo(HaveOccurred())
		differ := 0
		for k := 0; k < 20; k++ {
			if !reflect.DeepEqual(mo.Sample(7, k), mo.Sample(8, k)) {
				differ++
			}
		}
		Expect(differ).To(BeNumerically(">", 15))
	})

	It("draw conversation k the same whatever range is played, so shards add up", func() {
		s := load("../scenarios/soni")
		v := s.Variants[0]
		whole, _, _ := generate.Run(s, v, generate.Options{Seed: 5, From: 0, To: 90})
		var sum generate.Metrics
		for _, r := range [][2]int{{0, 13}, {13, 50}, {50, 90}} {
			part, _, _ := generate.Run(s, v, generate.Options{Seed: 5, From: r[0], To: r[1]})
			sum.Add(part)
		}
		sum.Suite, sum.Variant = whole.Suite, whole.Variant
		Expect(sum).To(Equal(whole))
	})

	It("derive goals from the machine when the suite has no users.yaml", func() {
		s := load("../scenarios/bench-soni")
		Expect(s.Users).To(BeNil())
		met, _, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 50})
		Expect(err).NotTo(HaveOccurred())
		Expect(met.Successes).To(BeNumerically(">", 0))
	})
})

var _ = Describe("generated conversations on several workers", Label("race"), func() {
	It("give the same metrics, failures and coverage as one worker", func() {
		s := load("../scenarios/soni")
		v := s.Variants[0]
		one := eval.NewCoverage(v.Machine)
		m1, f1, err := generate.Run(s, v, generate.Options{Seed: 9, From: 0, To: 400, Observers: []sim.Observer{one}})
		Expect(err).NotTo(HaveOccurred())
		many := eval.NewCoverage(v.Machine)
		m3, f3, err := generate.Run(s, v, generate.Options{Seed: 9, From: 0, To: 400, Workers: 3,
			Fork: func() ([]sim.Observer, func()) {
				c := eval.NewCoverage(v.Machine)
				return []sim.Observer{c}, func() { many.Add(c) }
			}})
		Expect(err).NotTo(HaveOccurred())
		Expect(m3).To(Equal(m1))
		Expect(many).To(Equal(one))
		Expect(len(f3)).To(Equal(len(f1)))
		for i := range f1 {
			Expect(f3[i].Index).To(Equal(f1[i].Index))
			Expect(f3[i].Scenario).To(Equal(f1[i].Scenario))
		}
	})
})
