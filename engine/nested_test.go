package engine_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
	"github.com/simctl/simctl/spec"
)

// nestedYAML is parallel state p whose second region, r2, starts in
// parallel state q with regions s1 and s2. Every state says when it is
// entered and exited, so the trace shows SCXML's order; q's regions end
// in final states, which raises done.state.p.r2.q and moves r2 to its own
// final state; both of p's regions final raise done.state.p.
const nestedYAML = `machine: nest
initial: idle
intents: [start, a, b, c, fin, leave, redo, inner]
actions:
  look: {never_fails: true}
states:
  idle:
    waits: true
    on: {start: p}
  p:
    parallel: true
    entry: [{say: "enter p"}]
    exit: [{say: "exit p"}]
    on:
      leave: out
      done.state.p: {target: done, actions: [{say: "p done"}]}
    states:
      r1:
        initial: x1
        states:
          x1:
            entry: [{say: "enter x1"}]
            exit: [{say: "exit x1"}]
            on: {fin: r1.f1}
          f1: {final: true, entry: [{say: "enter f1"}]}
      r2:
        initial: q
        entry: [{say: "enter r2"}]
        exit: [{say: "exit r2"}]
        on:
          redo: {target: r2.q, actions: [{say: "redo"}]}
        states:
          q:
            parallel: true
            entry: [{say: "enter q"}]
            exit: [{say: "exit q"}]
            on:
              done.state.p.r2.q: {target: r2.f2, actions: [{say: "q done"}]}
              c: {actions: [{say: "q c"}]}
            states:
              s1:
                initial: a1
                states:
                  a1:
                    entry: [{say: "enter a1"}]
                    exit: [{say: "exit a1"}]
                    on:
                      a: s1.af
                      inner: {target: s1.a2, actions: [{invoke: look}]}
                  a2:
                    on:
                      done:look: {target: s1.af, actions: [{say: "looked"}]}
                  af: {final: true, entry: [{say: "enter af"}]}
              s2:
                initial: b1
                states:
                  b1:
                    entry: [{say: "enter b1"}]
                    exit: [{say: "exit b1"}]
                    on: {b: s2.bf}
                  bf: {final: true, entry: [{say: "enter bf"}]}
          f2: {final: true, entry: [{say: "enter f2"}]}
  done: {final: true}
  out: {final: true}
`

var _ = Describe("Nested parallel states", func() {
	var m *engine.Machine

	BeforeEach(func() {
		s, err := spec.LoadMachine("nest.yaml", []byte(nestedYAML))
		Expect(err).NotTo(HaveOccurred())
		m = s.Machine
	})

	// play runs the script and returns what the bot said, one step's
	// sayings per line, and the active atomic states at the end.
	play := func(script ...string) ([]string, []string) {
		var c engine.Config
		var r engine.Result
		Expect(m.Start(&c, 0, &r)).To(Succeed())
		var said []string
		for _, in := range script {
			ev, err := et.ParseEvent(m, &c, in)
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Step(&c, &ev, &r)).To(Succeed())
			said = append(said, in+": "+strings.Join(et.Says(&r), ", "))
			for _, e := range append([]engine.Effect(nil), r.Effects...) {
				if e.Kind == engine.EffInvoke {
					var done engine.Event
					m.InvokeIn(&c, e.Ext, e.Branch, c.Now, &done)
					Expect(m.Step(&c, &done, &r)).To(Succeed())
					said = append(said, "done:"+m.ExtName(e.Ext)+": "+strings.Join(et.Says(&r), ", "))
				}
			}
		}
		var active []string
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

	It("enters the inner parallel state's regions after its own entry, in document order", func() {
		said, active := play("start")
		Expect(said).To(Equal([]string{"start: enter p, enter x1, enter r2, enter q, enter a1, enter b1"}))
		Expect(active).To(Equal([]string{"p.r1.x1", "p.r2.q.s1.a1", "p.r2.q.s2.b1"}))
	})

	It("raises the inner state's done.state once all its regions are final, then the outer's", func() {
		said, active := play("start", "a", "fin", "b")
		Expect(said).To(Equal([]string{
			"start: enter p, enter x1, enter r2, enter q, enter a1, enter b1",
			"a: exit a1, enter af",
			"fin: exit x1, enter f1",
			"b: exit b1, enter bf, exit q, q done, enter f2, exit r2, exit p, p done",
		}))
		Expect(active).To(Equal([]string{"done"}))
	})

	It("takes a transition of the inner parallel state once, whichever of its regions select it", func() {
		said, _ := play("start", "c")
		Expect(said[1]).To(Equal("c: q c"))
	})

	// redo goes from region r2 to a state inside it: its domain is the
	// nearest compound (not parallel) ancestor of both, the root, as the
	// recommendation's findLCCA says, so p is left and entered again.
	It("exits every region of the inner state, last first, when a transition of the outer region leaves it", func() {
		said, active := play("start", "a", "redo")
		Expect(said[2]).To(Equal("redo: exit b1, exit q, exit r2, exit x1, exit p, redo, enter p, enter x1, enter r2, enter q, enter a1, enter b1"))
		Expect(active).To(Equal([]string{"p.r1.x1", "p.r2.q.s1.a1", "p.r2.q.s2.b1"}))
	})

	It("leaves every region of both, innermost and last first, on a transition of the outer state", func() {
		said, active := play("start", "leave")
		Expect(said[1]).To(Equal("leave: exit b1, exit a1, exit q, exit r2, exit x1, exit p"))
		Expect(active).To(Equal([]string{"out"}))
	})

	It("delivers an action's result to the inner region that invoked it", func() {
		said, active := play("start", "inner")
		Expect(said[1:]).To(Equal([]string{"inner: exit a1", "done:look: looked, enter af"}))
		Expect(active).To(Equal([]string{"p.r1.x1", "p.r2.q.s1.af", "p.r2.q.s2.b1"}))
	})

	It("keeps forks out of parallel states and parallel states out of forks", func() {
		bad := strings.Replace(nestedYAML, "          q:\n            parallel: true\n", "          q:\n            initial: s1\n            fork: {branches: 2, join: [{target: r2.f2}]}\n", 1)
		_, err := spec.LoadMachine("nest.yaml", []byte(bad))
		Expect(err).To(MatchError(ContainSubstring("only parallel: true states nest, forks do not")))
	})
})
