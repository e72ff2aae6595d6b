package explore_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/spec"
)

// wideMachineYAML writes a machine with the given numbers of slots and
// states: start enters parallel state work, whose region form is a chain
// of formLen states (next fills one slot each) and whose region side
// starts in parallel state q, two regions of two steps each (a and b);
// once both of q's regions are final side ends, once both of work's
// regions are, a chain of waiting states follows, each next filling slot
// i mod slots, up to end. Every configuration is determined by the state
// (and the regions' states), so there are about as many as states.
func wideMachineYAML(slots, states int) string {
	const formLen = 5
	fixed := 21 // the states besides the chain
	var b strings.Builder
	b.WriteString("machine: wide\ninitial: idle\nintents: [start, next, a, b]\nslots:\n")
	for i := range slots {
		fmt.Fprintf(&b, "  s%d: {type: text}\n", i)
	}
	b.WriteString(`states:
  idle:
    waits: true
    on: {start: work}
  work:
    parallel: true
    on:
      done.state.work: c0
    states:
      form:
        initial: f0
        states:
`)
	for i := range formLen {
		next := fmt.Sprintf("work.form.f%d", i+1)
		if i == formLen-1 {
			next = "work.form.filled"
		}
		fmt.Fprintf(&b, "          f%d: {waits: true, on: {next: {target: %s, actions: [{set: {s%d: '\"f%d\"'}}]}}}\n", i, next, i%slots, i)
	}
	b.WriteString(`          filled: {final: true}
      side:
        initial: q
        states:
          q:
            parallel: true
            on:
              done.state.work.side.q: work.side.ended
            states:
              qa:
                initial: a0
                states:
                  a0: {waits: true, on: {a: work.side.q.qa.a1}}
                  a1: {waits: true, on: {a: work.side.q.qa.aend}}
                  aend: {final: true}
              qb:
                initial: b0
                states:
                  b0: {waits: true, on: {b: work.side.q.qb.b1}}
                  b1: {waits: true, on: {b: work.side.q.qb.bend}}
                  bend: {final: true}
          ended: {final: true}
`)
	chain := states - fixed
	for i := range chain {
		next := fmt.Sprintf("c%d", i+1)
		if i == chain-1 {
			next = "end"
		}
		fmt.Fprintf(&b, "  c%d: {waits: true, on: {next: {target: %s, actions: [{set: {s%d: '\"c%d\"'}}]}}}\n", i, next, i%slots, i)
	}
	b.WriteString("  end: {final: true}\n")
	return b.String()
}

var _ = Describe("a machine past the old caps", func() {
	It("with 300 slots, 3,000 states and a parallel state nested in a region of another, loads, runs and explores completely", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, spec.MachineFile), []byte(wideMachineYAML(300, 3000)), 0o644)).To(Succeed())
		s, err := spec.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		m := s.Machine
		Expect(m.NumSlots()).To(Equal(300))
		Expect(m.NumStates()).To(Equal(3000))

		// Run: the happy path to the end, every slot filled on the way.
		var c engine.Config
		var r engine.Result
		Expect(m.Start(&c, 0, &r)).To(Succeed())
		step := func(in string) {
			ev, err := et.ParseEvent(m, &c, in)
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Step(&c, &ev, &r)).To(Succeed())
			Expect(r.Handled).To(BeTrue(), "%s in %s", in, m.Describe(&c))
		}
		step("start")
		Expect(c.NBranch).To(Equal(uint8(3)), "form, and q's two regions")
		for _, in := range []string{"next", "a", "next", "b", "next", "a", "next", "next", "b"} {
			step(in)
		}
		Expect(m.StateName(c.State)).To(Equal("c0"))
		for !c.Final {
			step("next")
		}
		Expect(m.StateName(c.State)).To(Equal("end"))
		for i := range engine.SlotID(300) {
			Expect(c.Slot(i).IsEmpty()).To(BeFalse(), "slot s%d", i)
		}
		Expect(c.Slot(2978%300)).To(Equal(engine.TextValue("c2978")), "the last of the chain")

		// Explore: completely, every atomic state reached (coverage counts
		// the states steps end in, not the compound ones around them).
		res, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: 10000})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Complete).To(BeTrue(), res.Stopped)
		// idle, 5 * 3 * 3 (form's chain and filled, by q's regions'
		// three states each) less the 4 whose join goes on, the chain
		// and end.
		Expect(res.Distinct).To(Equal(1 + 6*3*3 - 1 + 2979 + 1))
		for i, n := range res.Coverage.States {
			if m.IsLeaf(engine.StateID(i)) {
				Expect(n).To(BeNumerically(">", 0), "state %s never reached", m.StateName(engine.StateID(i)))
			}
		}
	})
})
