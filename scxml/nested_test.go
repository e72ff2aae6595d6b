package scxml_test

import (
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
	"github.com/simctl/simctl/scxml"
)

// testdata/nested/machine.scxml holds parallel state p whose region r2
// holds w, which starts in parallel state q; each state logs +id as it is
// entered and -id as it is exited. Each entry below gives the events sent
// from the start and what the last one logged, then the configuration
// reached: worked out by hand from the recommendation's Appendix D (the
// domain is the nearest compound ancestor of the source and the targets,
// a history's targets being what it recorded or its default, parallel
// states skipped; its active descendants exit in reverse document order,
// recording histories first; the targets' ancestors below it enter in
// document order, every region entered without a target at its initial
// states).
var _ = Describe("a chart with a parallel state nested in another's region", func() {
	var (
		m    *scxml.Machine
		mach *engine.Machine
	)

	BeforeEach(func() {
		src, err := os.ReadFile("testdata/nested/machine.scxml")
		Expect(err).NotTo(HaveOccurred())
		m, err = scxml.Load("machine.scxml", src, scxml.Options{})
		Expect(err).NotTo(HaveOccurred())
		def, _, err := m.Definition()
		Expect(err).NotTo(HaveOccurred())
		var diags engine.Diagnostics
		mach, diags = engine.Build(def)
		Expect(diags.Err()).NotTo(HaveOccurred())
	})

	DescribeTable("steps configuration by configuration as the recommendation says",
		func(events, wantLogs string, want []string) {
			d := mach.NewData("s1")
			var c engine.Config
			var r engine.Result
			Expect(mach.StartWith(&c, d, 0, &r)).To(Succeed())
			for _, name := range strings.Fields(events) {
				ev, err := m.Event(mach, name, 0)
				Expect(err).NotTo(HaveOccurred())
				Expect(mach.StepWith(&c, d, &ev, &r)).To(Succeed())
			}
			Expect(strings.Join(et.Logs(&r), " ")).To(Equal(wantLogs))
			Expect(m.Active(mach, &c)).To(Equal(want))
		},
		Entry("into q from outside p: every region at its initial state",
			"go", "-idle +p +r1 +x1 +r2 +w +q +s1 +a1 +s2 +b1", []string{"x1", "a1", "b1"}),
		Entry("to a state in q from outside p",
			"deep", "-idle +p +r1 +x1 +r2 +w +q +s1 +a2 +s2 +b1", []string{"x1", "a2", "b1"}),
		Entry("to two targets, one in p's region, one in q's",
			"two", "-idle +p +r1 +x2 +r2 +w +q +s1 +a1 +s2 +b2", []string{"x2", "a1", "b2"}),
		Entry("to a state in q from r2 outside it: the domain is r2",
			"enter zz", "-z +w +q +s1 +a2 +s2 +b1", []string{"x1", "a2", "b1"}),
		Entry("to a state in q from p's other region: the domain is the document",
			"enter jump", "-z -r2 -x1 -r1 -p +p +r1 +x1 +r2 +w +q +s1 +a1 +s2 +b2", []string{"x1", "a1", "b2"}),
		Entry("from one of q's regions to the other: the domain is w",
			"go cross", "-b1 -s2 -a1 -s1 -q +q +s1 +a1 +s2 +b2", []string{"x1", "a1", "b2"}),
		Entry("within one of q's regions",
			"go inner", "-a1 +a2", []string{"x1", "a2", "b1"}),
		Entry("w's deep history, nothing recorded: its default",
			"back", "-idle +p +r1 +x1 +r2 +w +q +s1 +a1 +s2 +b1", []string{"x1", "a1", "b1"}),
		Entry("w's deep history recorded as p was left, resumed from outside p",
			"two out back", "-idle +p +r1 +x1 +r2 +w +q +s1 +a1 +s2 +b2", []string{"x1", "a1", "b2"}),
		Entry("w's deep history recorded as w was left within r2, resumed from r2",
			"deep b leavew backw", "-z +w +q +s1 +a2 +s2 +b2", []string{"x1", "a2", "b2"}),
		Entry("w's deep history recorded and resumed by one transition from p's other region",
			"deep b rh", "-b2 -s2 -a2 -s1 -q -w -r2 -x1 -r1 -p +p +r1 +x1 +r2 +w +q +s1 +a2 +s2 +b2", []string{"x1", "a2", "b2"}),
		Entry("a deep history of w whose default is inside q, nothing recorded, from outside p",
			"back2", "-idle +p +r1 +x1 +r2 +w +q +s1 +a2 +s2 +b1", []string{"x1", "a2", "b1"}),
		Entry("the same from r2",
			"enter backw2", "-z +w +q +s1 +a2 +s2 +b1", []string{"x1", "a2", "b1"}),
		Entry("the same once recorded: what it recorded",
			"go b leavew backw2", "-z +w +q +s1 +a1 +s2 +b2", []string{"x1", "a1", "b2"}),
		Entry("q's own deep history, nothing recorded: its default in one region, the other's initial state",
			"enter zq", "-z +w +q +s1 +a1 +s2 +b2", []string{"x1", "a1", "b2"}),
		Entry("q's own deep history once recorded: every region where it was",
			"go inner leavew zq", "-z +w +q +s1 +a2 +s2 +b1", []string{"x1", "a2", "b1"}),
		Entry("an event descriptor of its own for key.0", "key.0", "-idle +zero", []string{"zero"}),
		Entry("key, a prefix of key.5 by dot-separated tokens", "key.5", "-idle +digit", []string{"digit"}),
	)
})
