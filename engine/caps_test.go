package engine_test

import (
	"fmt"
	"strings"
	"unsafe"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
	"github.com/simctl/simctl/spec"
)

// wideYAML is a machine with n slots: fill sets slot i to the value the
// user gives (slot i+1 gets the next one), every slot past the first is
// copied, upper-cased, into the one before, and a guard on the last slot
// decides where the machine goes.
func wideYAML(n int) string {
	var b strings.Builder
	b.WriteString("machine: wide\ninitial: idle\nintents: [put, check, wipe, reset]\nslots:\n")
	for i := range n {
		fmt.Fprintf(&b, "  s%d: {type: text%s}\n", i, map[bool]string{true: ", persist: true"}[i == n-2])
	}
	fmt.Fprintf(&b, `states:
  idle:
    waits: true
    on:
      put: {actions: [{set: {s%[1]d: event.value}}, {set: {s%[2]d: upper(event.value)}}, {set: {s40: 's%[1]d + "!"'}}]}
      wipe: {actions: [{clear: s%[1]d}]}
      reset: {actions: [reset_context]}
      check:
        - {guard: 's%[1]d == "far"', target: far}
        - {target: near}
  far: {final: true}
  near: {final: true}
`, n-1, n-2)
	return b.String()
}

var _ = Describe("Configurations of wide machines", func() {
	It("keeps a Config small whatever the caps", func() {
		size := int(unsafe.Sizeof(engine.Config{}))
		Expect(size).To(BeNumerically("<=", 1800), "got %d bytes", size)
	})

	It("builds and runs a machine with the most slots, reading and writing those past the inline ones", func() {
		s, err := spec.LoadMachine("wide.yaml", []byte(wideYAML(engine.MaxSlots)))
		Expect(err).NotTo(HaveOccurred())
		m := s.Machine
		Expect(m.NumSlots()).To(Equal(engine.MaxSlots))
		var c engine.Config
		var r engine.Result
		Expect(m.Start(&c, 0, &r)).To(Succeed())
		step := func(in string) {
			ev, err := et.ParseEvent(m, &c, in)
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Step(&c, &ev, &r)).To(Succeed())
		}
		last, prev := engine.SlotID(engine.MaxSlots-1), engine.SlotID(engine.MaxSlots-2)
		step("put=far")
		Expect(c.Slot(last)).To(Equal(engine.TextValue("far")))
		Expect(c.Slot(prev)).To(Equal(engine.TextValue("FAR")))
		Expect(c.Slot(40)).To(Equal(engine.TextValue("far!")))
		Expect(c.Slot(0).IsEmpty()).To(BeTrue())

		// The same values reached in another order make an equal
		// configuration, with an equal hash.
		var d engine.Config
		Expect(m.Start(&d, 0, &r)).To(Succeed())
		d.SetSlot(40, engine.TextValue("far!"))
		d.SetSlot(last, engine.TextValue("x"))
		d.SetSlot(prev, engine.TextValue("FAR"))
		d.SetSlot(last, engine.TextValue("far"))
		Expect(d == c).To(BeTrue())
		Expect(d.Hash()).To(Equal(c.Hash()))
		d.SetSlot(last, engine.Value{})
		Expect(d == c).To(BeFalse())
		Expect(d.Hash()).NotTo(Equal(c.Hash()))

		// A copy is a value: writing it leaves the original alone.
		e := c
		step("wipe")
		Expect(c.Slot(last).IsEmpty()).To(BeTrue())
		Expect(e.Slot(last)).To(Equal(engine.TextValue("far")))
		c = e
		step("reset")
		Expect(c.Slot(last).IsEmpty()).To(BeTrue())
		Expect(c.Slot(40).IsEmpty()).To(BeTrue())
		Expect(c.Slot(prev)).To(Equal(engine.TextValue("FAR")), "a persistent slot survives reset_context")
		c = e
		step("check")
		Expect(m.StateName(c.State)).To(Equal("far"))
	})

	It("loads every slot of a Config back with LoadSlots", func() {
		var c engine.Config
		vals := make([]engine.Value, engine.MaxSlots)
		for i := range vals {
			if i%7 == 0 {
				vals[i] = engine.NumberValue(float64(i))
			}
			if i%11 == 0 {
				vals[i] = engine.TextValue(fmt.Sprint("t", i))
			}
		}
		c.LoadSlots(vals)
		var d engine.Config
		for i := len(vals) - 1; i >= 0; i-- {
			d.SetSlot(engine.SlotID(i), vals[i])
		}
		Expect(c == d).To(BeTrue())
		for i, v := range vals {
			Expect(c.Slot(engine.SlotID(i))).To(Equal(v), "slot %d", i)
		}
	})

	// remaining() counts a flow's empty slots in place when they are all
	// inline, and through Slot otherwise: both ways on one machine.
	DescribeTable("counts remaining() over a flow's slots, inline or past them",
		func(flow []string, fill []string, want int) {
			b := et.New("probe", "probe").Intents("go")
			for i := range engine.InlineSlots + 8 {
				b.Slot(fmt.Sprint("s", i), engine.TypeText)
			}
			m, err := b.Flow("f", flow...).
				State("probe", et.Waits(), et.On("go", "check", et.Push("f"))).
				State("check", et.AlwaysIf(fmt.Sprintf("remaining() == %d", want), "yes"), et.Always("no")).
				State("yes").State("no").
				Build()
			Expect(err).NotTo(HaveOccurred())
			var c engine.Config
			var r engine.Result
			Expect(m.Start(&c, 0, &r)).To(Succeed())
			for _, name := range fill {
				id, ok := m.SlotID(name)
				Expect(ok).To(BeTrue())
				c.SetSlot(id, engine.TextValue("x"))
			}
			ev := engine.Event{Kind: engine.UserEvent, Intent: mustIntent(m, "go"), At: 1}
			Expect(m.Step(&c, &ev, &r)).To(Succeed())
			Expect(m.StateName(c.State)).To(Equal("yes"))
		},
		Entry("inline, none filled", []string{"s1", "s5", "s31"}, nil, 3),
		Entry("inline, some filled", []string{"s1", "s5", "s31"}, []string{"s5"}, 2),
		Entry("inline, a slot named twice", []string{"s1", "s1", "s2"}, []string{"s2"}, 2),
		Entry("past the inline ones", []string{"s1", "s35", "s39"}, []string{"s39"}, 2),
		Entry("past the inline ones, all filled", []string{"s33", "s2"}, []string{"s2", "s33"}, 0),
	)

	It("rejects a machine with more slots than a Config holds", func() {
		_, err := spec.LoadMachine("wide.yaml", []byte(wideYAML(engine.MaxSlots+1)))
		Expect(err).To(MatchError(ContainSubstring(fmt.Sprintf("too many slots: %d (at most %d)", engine.MaxSlots+1, engine.MaxSlots))))
	})
})
