package engine_test

import (
	"math/rand"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
	"github.com/simctl/simctl/spec"
)

// deepNestYAML is parallel state p whose region r2 holds compound state w,
// which starts in parallel state q (regions s1 and s2). Transitions reach
// into q from outside p, from p's other region and from r2 outside q, and
// p.r2.w's deep history resumes q's regions. Every state says "+name" as
// it is entered and "-name" as it is exited, so a step's sayings are the
// recommendation's exit and entry order.
const deepNestYAML = `machine: deepnest
initial: idle
intents: [enter, go, deep, two, jump, cross, zz, leave, leavew, backw, back, rh, b, inner, out]
states:
  idle:
    waits: true
    on:
      enter: p
      go: p.r2.w.q
      deep: p.r2.w.q.s1.a2
      two: p.r1.x2 p.r2.w.q.s2.b2
      back: {target: p.r2.w, history: deep}
  p:
    parallel: true
    entry: [{say: "+p"}]
    exit: [{say: "-p"}]
    on: {out: idle}
    states:
      r1:
        initial: x1
        entry: [{say: "+r1"}]
        exit: [{say: "-r1"}]
        states:
          x1:
            entry: [{say: "+x1"}]
            exit: [{say: "-x1"}]
            on:
              jump: p.r2.w.q.s2.b2
              rh: {target: p.r2.w, history: deep}
          x2: {entry: [{say: "+x2"}], exit: [{say: "-x2"}]}
      r2:
        initial: z
        entry: [{say: "+r2"}]
        exit: [{say: "-r2"}]
        states:
          z:
            entry: [{say: "+z"}]
            exit: [{say: "-z"}]
            on:
              zz: p.r2.w.q.s1.a2
              backw: {target: p.r2.w, history: deep}
          w:
            initial: q
            entry: [{say: "+w"}]
            exit: [{say: "-w"}]
            on: {leavew: p.r2.z}
            states:
              q:
                parallel: true
                entry: [{say: "+q"}]
                exit: [{say: "-q"}]
                states:
                  s1:
                    initial: a1
                    entry: [{say: "+s1"}]
                    exit: [{say: "-s1"}]
                    states:
                      a1:
                        entry: [{say: "+a1"}]
                        exit: [{say: "-a1"}]
                        on: {cross: p.r2.w.q.s2.b2, inner: p.r2.w.q.s1.a2}
                      a2: {entry: [{say: "+a2"}], exit: [{say: "-a2"}]}
                  s2:
                    initial: b1
                    entry: [{say: "+s2"}]
                    exit: [{say: "-s2"}]
                    states:
                      b1: {entry: [{say: "+b1"}], exit: [{say: "-b1"}], on: {b: p.r2.w.q.s2.b2}}
                      b2: {entry: [{say: "+b2"}], exit: [{say: "-b2"}]}
`

var _ = Describe("transitions into a parallel state nested in another's region, and deep histories over it", func() {
	var m *engine.Machine

	BeforeEach(func() {
		s, err := spec.LoadMachine("deepnest.yaml", []byte(deepNestYAML))
		Expect(err).NotTo(HaveOccurred())
		m = s.Machine
	})

	// play steps the intents and returns what each step said, one line a
	// step, and the active atomic states at the end, in document order.
	play := func(intents ...string) (said, active []string) {
		var c engine.Config
		var r engine.Result
		Expect(m.Start(&c, 0, &r)).To(Succeed())
		for _, in := range intents {
			ev := user(m, in, 1)
			Expect(m.Step(&c, &ev, &r)).To(Succeed())
			said = append(said, in+": "+strings.Join(et.Says(&r), " "))
		}
		if c.NBranch == 0 {
			active = append(active, m.StateName(c.State))
		}
		for i := 0; i < int(c.NBranch); i++ {
			if s := c.Branches[i].State; s != engine.NoID {
				active = append(active, m.StateName(s))
			}
		}
		return said, active
	}

	// Each entry is checked against the recommendation's enterStates:
	// the domain is the nearest compound ancestor of the source and the
	// targets (parallel states skipped); its active descendants are
	// exited in reverse document order; the targets' ancestors below it
	// are entered, and every region of a parallel state entered without a
	// target enters its initial states, all in document order.
	DescribeTable("enter the nested parallel state's regions as the recommendation's enterStates does",
		func(intents string, wantLast string, wantActive []string) {
			said, active := play(strings.Fields(intents)...)
			Expect(said[len(said)-1]).To(Equal(wantLast))
			Expect(active).To(Equal(wantActive))
		},
		Entry("the nested parallel state, from outside: every region at its initial state",
			"go", "go: +p +r1 +x1 +r2 +w +q +s1 +a1 +s2 +b1",
			[]string{"p.r1.x1", "p.r2.w.q.s1.a1", "p.r2.w.q.s2.b1"}),
		Entry("a state inside it, from outside: its other region at its initial state",
			"deep", "deep: +p +r1 +x1 +r2 +w +q +s1 +a2 +s2 +b1",
			[]string{"p.r1.x1", "p.r2.w.q.s1.a2", "p.r2.w.q.s2.b1"}),
		Entry("two targets, one in each parallel state",
			"two", "two: +p +r1 +x2 +r2 +w +q +s1 +a1 +s2 +b2",
			[]string{"p.r1.x2", "p.r2.w.q.s1.a1", "p.r2.w.q.s2.b2"}),
		Entry("a state inside it, from p's region r2 outside it: the domain is r2, r1 stays",
			"enter zz", "zz: -z +w +q +s1 +a2 +s2 +b1",
			[]string{"p.r1.x1", "p.r2.w.q.s1.a2", "p.r2.w.q.s2.b1"}),
		Entry("a state inside it, from p's other region: the domain is the root, p is left and entered again",
			"enter jump", "jump: -z -r2 -x1 -r1 -p +p +r1 +x1 +r2 +w +q +s1 +a1 +s2 +b2",
			[]string{"p.r1.x1", "p.r2.w.q.s1.a1", "p.r2.w.q.s2.b2"}),
		Entry("from one of its regions to another: the domain is w, q is left and entered again",
			"go cross", "cross: -b1 -s2 -a1 -s1 -q +q +s1 +a1 +s2 +b2",
			[]string{"p.r1.x1", "p.r2.w.q.s1.a1", "p.r2.w.q.s2.b2"}),
		Entry("inside one of its regions: that region alone",
			"go inner", "inner: -a1 +a2",
			[]string{"p.r1.x1", "p.r2.w.q.s1.a2", "p.r2.w.q.s2.b1"}),
	)

	// A deep history records every active atomic state below its state
	// as the state is exited (the recommendation's exitStates), and a
	// transition to it enters them all, q's regions included.
	DescribeTable("resume a deep history over the nested parallel state",
		func(intents string, wantLast string, wantActive []string) {
			said, active := play(strings.Fields(intents)...)
			Expect(said[len(said)-1]).To(Equal(wantLast))
			Expect(active).To(Equal(wantActive))
		},
		Entry("nothing recorded: w's initial states",
			"back", "back: +p +r1 +x1 +r2 +w +q +s1 +a1 +s2 +b1",
			[]string{"p.r1.x1", "p.r2.w.q.s1.a1", "p.r2.w.q.s2.b1"}),
		Entry("recorded as p was left, resumed from outside p",
			"two out back", "back: +p +r1 +x1 +r2 +w +q +s1 +a1 +s2 +b2",
			[]string{"p.r1.x1", "p.r2.w.q.s1.a1", "p.r2.w.q.s2.b2"}),
		Entry("recorded as w was left within r2, resumed from r2",
			"deep b leavew backw", "backw: -z +w +q +s1 +a2 +s2 +b2",
			[]string{"p.r1.x1", "p.r2.w.q.s1.a2", "p.r2.w.q.s2.b2"}),
		Entry("recorded and resumed by one transition from p's other region",
			"deep b rh", "rh: -b2 -s2 -a2 -s1 -q -w -r2 -x1 -r1 -p +p +r1 +x1 +r2 +w +q +s1 +a2 +s2 +b2",
			[]string{"p.r1.x1", "p.r2.w.q.s1.a2", "p.r2.w.q.s2.b2"}),
		Entry("recorded while r2 was outside w, then w entered afresh: the record is w's, kept",
			"deep b leavew out back", "back: +p +r1 +x1 +r2 +w +q +s1 +a2 +s2 +b2",
			[]string{"p.r1.x1", "p.r2.w.q.s1.a2", "p.r2.w.q.s2.b2"}),
	)

	// Whatever the events, every configuration is one the recommendation
	// allows: one active child of each active compound state, every child
	// of each active parallel state, and a leaf for every active atomic
	// state (its legal state configurations, section 3.11).
	It("reaches only legal configurations, whatever the events", func() {
		parallel := map[string]bool{"p": true, "p.r2.w.q": true}
		children := map[engine.StateID][]engine.StateID{}
		var top []engine.StateID
		for i := 0; i < m.NumStates(); i++ {
			s := engine.StateID(i)
			if p := m.Parent(s); p != engine.NoID {
				children[p] = append(children[p], s)
			} else {
				top = append(top, s)
			}
		}
		count := func(c *engine.Config, xs []engine.StateID) int {
			n := 0
			for _, x := range xs {
				if m.IsActive(c, x) {
					n++
				}
			}
			return n
		}
		intents := strings.Fields("enter go deep two jump cross zz leave leavew backw back rh b inner out")
		rng := rand.New(rand.NewSource(1))
		for walk := 0; walk < 300; walk++ {
			var c engine.Config
			var r engine.Result
			Expect(m.Start(&c, 0, &r)).To(Succeed())
			var path []string
			for step := 0; step < 12; step++ {
				in := intents[rng.Intn(len(intents))]
				path = append(path, in)
				ev := user(m, in, int64(step))
				Expect(m.Step(&c, &ev, &r)).To(Succeed())
				Expect(count(&c, top)).To(Equal(1), "after %v", path)
				for s, chs := range children {
					if !m.IsActive(&c, s) {
						continue
					}
					want := 1
					if parallel[m.StateName(s)] {
						want = len(chs)
					}
					Expect(count(&c, chs)).To(Equal(want), "%s after %v", m.StateName(s), path)
				}
			}
		}
	})
})
