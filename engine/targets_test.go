package engine_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
	"github.com/simctl/simctl/spec"
)

// regionsYAML has transitions into the regions of parallel state p: from
// outside it, with one target or two, and from one region to another.
const regionsYAML = `machine: regions
initial: idle
intents: [enter, go, both, hop]
states:
  idle:
    waits: true
    on:
      enter: p
      go: r1.b
      both: p.r1.b p.r2.y
  p:
    parallel: true
    entry: [{say: "p"}]
    exit: [{say: "-p"}]
    states:
      r1:
        initial: a
        states:
          a: {entry: [{say: "a"}], exit: [{say: "-a"}], on: {hop: p.r2.y}}
          b: {entry: [{say: "b"}]}
      r2:
        initial: x
        states:
          x: {entry: [{say: "x"}], exit: [{say: "-x"}]}
          y: {entry: [{say: "y"}]}
`

var _ = Describe("transitions into the regions of a parallel state", func() {
	var m *engine.Machine

	BeforeEach(func() {
		s, err := spec.LoadMachine("regions.yaml", []byte(regionsYAML))
		Expect(err).NotTo(HaveOccurred())
		m = s.Machine
	})

	// play steps the intents and returns what the last step said and the
	// active atomic states.
	play := func(intents ...string) (said, active []string) {
		var c engine.Config
		var r engine.Result
		Expect(m.Start(&c, 0, &r)).To(Succeed())
		for _, in := range intents {
			ev := user(m, in, 1)
			Expect(m.Step(&c, &ev, &r)).To(Succeed())
		}
		for i := 0; i < int(c.NBranch); i++ {
			if s := c.Branches[i].State; s != engine.NoID {
				active = append(active, m.StateName(s))
			}
		}
		return et.Says(&r), active
	}

	DescribeTable("enter the parallel state with each target in its region, the other regions at their initial states",
		func(intents string, wantSaid, wantActive []string) {
			said, active := play(strings.Fields(intents)...)
			Expect(said).To(Equal(wantSaid))
			Expect(active).To(Equal(wantActive))
		},
		Entry("one target, from outside", "go", []string{"p", "b", "x"}, []string{"p.r1.b", "p.r2.x"}),
		Entry("two targets, from outside", "both", []string{"p", "b", "y"}, []string{"p.r1.b", "p.r2.y"}),
		Entry("a target in another region: the parallel state is left and entered again",
			"enter hop", []string{"-x", "-a", "-p", "p", "a", "y"}, []string{"p.r1.a", "p.r2.y"}),
	)

	DescribeTable("reject targets that are not in distinct regions of one parallel state",
		func(from, to, want string) {
			_, err := spec.LoadMachine("regions.yaml", []byte(strings.Replace(regionsYAML, from, to, 1)))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("two targets in one region", "both: p.r1.b p.r2.y", "both: p.r1.b p.r1.a", `two targets in region "p.r1" of parallel state "p"`),
		Entry("a target outside the regions", "both: p.r1.b p.r2.y", "both: p.r1.b idle", `target "idle" is not inside a region of parallel state "p"`),
		Entry("an internal transition", "both: p.r1.b p.r2.y", "both: {target: p.r1.b p.r2.y, type: internal}", `an internal transition of state "idle" needs its targets inside it, not "p.r1.b p.r2.y"`),
	)
})
