package explore_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/explore"
)

var _ = Describe("a delayed send", func() {
	// The reminder is sent on order and cancelled when the order is
	// placed, but not when the user cancels: left pending, it falls due
	// in idle, which does not take it.
	const yaml = `
machine: reminder
initial: idle
intents: [order, place, cancel, nudge]
states:
  idle:
    waits: true
    on:
      order: {target: ordering, actions: [{send: {event: nudge, after: 30s, id: reminder}}]}
  ordering:
    waits: true
    on:
      nudge: {target: ordering, actions: [{say: "still there?"}]}
      place: {target: idle, actions: [{cancel_send: reminder}]}
      cancel: idle
`
	It("left pending when its states are exited is found as a leaked timer, with its shortest path", func() {
		res := search(suiteOf(yaml), explore.Options{Depth: 6})
		f := finding(res, eval.LeakedTimer)
		Expect(f).NotTo(BeNil(), "got %v", kinds(res))
		Expect(f.Violation.Msg).To(ContainSubstring("timer send.nudge#reminder fell due"))
		Expect(res.PathLen(f.Node)).To(Equal(3))
	})

	It("cancelled on every way out is not", func() {
		fixed := strings.Replace(yaml, "cancel: idle", "cancel: {target: idle, actions: [{cancel_send: reminder}]}", 1)
		res := search(suiteOf(fixed), explore.Options{Depth: 6})
		Expect(finding(res, eval.LeakedTimer)).To(BeNil(), "got %v", kinds(res))
	})

	It("pending twice, the later sent first, is fired instance by instance at each deadline", func() {
		res := search(suiteOf(`
machine: twice
initial: idle
intents: [go, nudge]
states:
  idle:
    waits: true
    on:
      go:
        target: waiting
        actions:
          - send: {event: nudge, after: 5s, id: n}
          - send: {event: nudge, after: 1s, id: n}
  waiting:
    waits: true
    on:
      nudge: {target: once}
  once:
    waits: true
    on:
      nudge: {target: idle}
`), explore.Options{Depth: 6})
		Expect(kinds(res)).NotTo(ContainElement(eval.TimerLaw))
	})
})
