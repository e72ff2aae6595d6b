package sim_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// reminderYAML raises, sends and cancels events (docs/machine-format.md,
// "raise, send and cancel_send").
const reminderYAML = `machine: reminder
initial: idle
intents: [order, stop, placed, nudge, nudged]
states:
  idle:
    waits: true
    on:
      order:
        target: placing
        actions:
          - raise: placed
          - send: {event: nudge, after: 30s, id: reminder}
  placing:
    on:
      placed: {target: waiting, actions: [{say: "order placed"}, {send: nudged}]}
  waiting:
    waits: true
    on:
      nudged: {target: waiting, actions: [{say: "nudged at once"}]}
      nudge: {target: idle, actions: [{say: "still there?"}]}
      stop: {target: idle, actions: [{cancel_send: reminder}, {say: "stopped"}]}
`

var _ = Describe("raise, send and cancel_send in machine.yaml", func() {
	var d *sim.Driver

	BeforeEach(func() {
		s, err := spec.LoadMachine("machine.yaml", []byte(reminderYAML))
		Expect(err).NotTo(HaveOccurred())
		d = sim.NewDriver(s.Machine, nil, nil)
		Expect(d.Start(0)).To(Succeed())
	})

	order := func() {
		id, _ := d.M.IntentID("order")
		Expect(d.Inject(engine.Event{Kind: engine.UserEvent, Intent: id, Confidence: 1, Timer: engine.NoID, Ext: engine.NoID})).To(Succeed())
	}

	It("takes a raised event and a send without delay in the same turn, the delayed send when the clock reaches it", func() {
		order()
		Expect(string(d.Info.Said)).To(Equal("order placed\nnudged at once"))
		Expect(d.M.StateName(d.Cfg.State)).To(Equal("waiting"))
		Expect(d.Wait(29_999)).To(Succeed())
		Expect(d.M.StateName(d.Cfg.State)).To(Equal("waiting"))
		Expect(d.Wait(1)).To(Succeed())
		Expect(string(d.Info.Said)).To(Equal("still there?"))
		Expect(d.M.StateName(d.Cfg.State)).To(Equal("idle"))
	})

	It("cancels the pending send by its id", func() {
		order()
		stop, _ := d.M.IntentID("stop")
		Expect(d.Inject(engine.Event{Kind: engine.UserEvent, Intent: stop, Confidence: 1, Timer: engine.NoID, Ext: engine.NoID})).To(Succeed())
		Expect(string(d.Info.Said)).To(Equal("stopped"))
		_, pending := d.M.NextTimer(&d.Cfg)
		Expect(pending).To(BeFalse())
	})

	DescribeTable("rejects a malformed send in one line",
		func(action, want string) {
			src := "machine: m\ninitial: a\nintents: [go]\nstates:\n  a:\n    waits: true\n    on:\n      go: {target: a, actions: [" + action + "]}\n"
			_, err := spec.LoadMachine("machine.yaml", []byte(src))
			Expect(err).To(MatchError(want))
		},
		Entry("an undeclared event", "{send: ghost}", `machine.yaml:8:40: send: unknown event "ghost" (declare it under intents:)`),
		Entry("a send without event", "{send: {after: 2s}}", `machine.yaml:8:40: missing required field "event"`),
		Entry("a cancel_send of no send", "{cancel_send: nope}", `machine.yaml:8:47: cancel_send: no send has id "nope"`),
	)
})
