package explore_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/explore"
)

// A YAML parallel state whose payment region can take a path (decline)
// from which it never reaches its final state, while nothing leaves the
// parallel state: stuck_region, which a machine's note may name as it
// names stuck and livelock.
var _ = Describe("stuck_region on a machine.yaml parallel state", func() {
	const machine = `machine: checkout
initial: idle
intents: [go, pay, decline, pack]
states:
  idle:
    waits: true
    on: {go: work}
  work:
    parallel: true
    on:
      done.state.work: shipped
    states:
      payment:
        initial: due
        states:
          due: {waits: true, on: {pay: work.payment.paid, decline: work.payment.declined}}
          declined: {waits: true}
          paid: {final: true}
      packing:
        initial: open
        states:
          open: {waits: true, on: {pack: work.packing.packed}}
          packed: {final: true}
  shipped: {final: true}
`
	noted := func(state string) string {
		return strings.Replace(machine, "states:\n  idle:", `invariants:
  - name: stuck_region
    modelling_choice:
      - state: `+state+`
        why: planted, to test the notes
states:
  idle:`, 1)
	}

	DescribeTable("a note on stuck_region",
		func(yaml string, known string) {
			f := finding(search(suiteOf(yaml), explore.Options{Depth: 8}), explore.StuckRegion)
			Expect(f).NotTo(BeNil())
			Expect(f.Violation.State).To(Equal("work"))
			Expect(f.Violation.Msg).To(ContainSubstring("region work.payment cannot reach its final state"))
			Expect(f.Known).To(ContainSubstring(known))
		},
		Entry("without one, it fails", machine, ""),
		Entry("naming the parallel state makes it known", noted("work"), "modelling_choice"),
	)

	It("stays failing when the note names another state", func() {
		f := finding(search(suiteOf(noted("idle")), explore.Options{Depth: 8}), explore.StuckRegion)
		Expect(f).NotTo(BeNil())
		Expect(f.Known).To(BeEmpty())
	})
})
