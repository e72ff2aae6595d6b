package engine_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

var _ = Describe("actions and triggers", func() {
	var (
		m   *engine.Machine
		cfg engine.Config
		res engine.Result
	)

	BeforeEach(func() {
		b := et.New("acts", "top.s").
			Intents("help", "other", "inform", "forget", "wipe", "hush", "stray").
			Slot("name", engine.TypeText).Slot("ok", engine.TypeBool).PersistentSlot("kept", engine.TypeText).
			State("top", et.Initial("s"),
				et.On("*", "", et.Say("any {event.intent}"))).
			State("top.s", et.Waits(),
				et.Entry(et.Set("kept", `"k"`), et.Ask("ok")),
				et.On("help", "", et.Say("help")),
				et.On("inform", "", et.Fill("event.value")),
				et.On("forget", "", et.Clear("ok")),
				et.On("wipe", "", et.Clear("all")),
				et.On("hush", "", et.Ask("none")),
				et.On("stray", "", et.Ask("none"), et.Fill("event.value")))
		b.Def().States[1].Direct = "inform"
		var err error
		m, err = b.Build()
		Expect(err).NotTo(HaveOccurred())
		cfg, res = engine.Config{}, engine.Result{}
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
	})

	DescribeTable("a * trigger takes any user event that no earlier candidate takes",
		func(event string, says []string) {
			Expect(stepScript(m, &cfg, &res, event)).To(Succeed())
			Expect(et.Says(&res)).To(Equal(says))
		},
		Entry("the child's own transition first", "help", []string{"help"}),
		Entry("the parent's wildcard otherwise", "other", []string{"any other"}),
	)

	DescribeTable("fill converts text to a boolean slot",
		func(value string, want engine.Value) {
			Expect(stepScript(m, &cfg, &res, "inform="+value)).To(Succeed())
			Expect(slotValue(m, &cfg, "ok")).To(Equal(want))
		},
		Entry("yes", "yes", engine.BoolValue(true)),
		Entry("true", "true", engine.BoolValue(true)),
		Entry("no", "no", engine.BoolValue(false)),
		Entry("false", "false", engine.BoolValue(false)),
	)

	It("rejects a fill of a boolean slot with other text", func() {
		err := stepScript(m, &cfg, &res, "inform=maybe")
		Expect(err).To(MatchError(ContainSubstring(`fill: "maybe" is not a boolean for slot ok`)))
	})

	It("clears one slot, or every slot including persistent ones", func() {
		Expect(stepScript(m, &cfg, &res, "inform=yes", "forget")).To(Succeed())
		Expect(slotValue(m, &cfg, "ok").IsEmpty()).To(BeTrue())
		Expect(slotValue(m, &cfg, "kept")).To(Equal(engine.TextValue("k")))
		Expect(stepScript(m, &cfg, &res, "wipe")).To(Succeed())
		Expect(slotValue(m, &cfg, "kept").IsEmpty()).To(BeTrue())
	})

	It("stops waiting with ask none, after which fill is a runtime error", func() {
		Expect(waiting(m, &cfg)).To(Equal("ok"))
		Expect(stepScript(m, &cfg, &res, "hush")).To(Succeed())
		Expect(waiting(m, &cfg)).To(Equal(""))
		err := stepScript(m, &cfg, &res, "stray=x")
		var rt *engine.RuntimeError
		Expect(errors.As(err, &rt)).To(BeTrue(), "got %v, want a *engine.RuntimeError", err)
		Expect(rt.Msg).To(Equal("fill: no slot is being waited for"))
		// Found before the value is computed: the event is not read.
		Expect(res.ReadEvent).To(BeFalse())
	})

	It("reports the direct-mapping intent of a state, and none for its parent", func() {
		s, _ := m.StateID("top.s")
		top, _ := m.StateID("top")
		Expect(m.DirectIntent(s)).To(Equal(mustIntent(m, "inform")))
		Expect(m.DirectIntent(top)).To(Equal(engine.IntentID(engine.NoID)))
	})
})

var _ = Describe("set from a slot or a literal", func() {
	// The destination is set as reading the source gives it: an empty
	// number slot reads 0, an empty boolean false, an empty text (and the
	// literal "") empties the destination.
	DescribeTable("sets what the expression reads",
		func(dst, src string, want engine.Value) {
			m, err := et.New("set", "s").
				Intents("go").
				Slot("t", engine.TypeText).Slot("n", engine.TypeNumber).Slot("b", engine.TypeBool).
				Slot("name", engine.TypeText).Slot("t2", engine.TypeText).Slot("n2", engine.TypeNumber).Slot("b2", engine.TypeBool).
				State("s", et.Waits(), et.Entry(et.Set("name", `"Ada"`), et.Set("t2", `"x"`)), et.On("go", "", et.Set(dst, src))).
				Build()
			Expect(err).NotTo(HaveOccurred())
			var (
				cfg engine.Config
				res engine.Result
			)
			Expect(m.Start(&cfg, 0, &res)).To(Succeed())
			Expect(stepScript(m, &cfg, &res, "go")).To(Succeed())
			Expect(slotValue(m, &cfg, dst)).To(Equal(want))
		},
		Entry("a filled text slot", "t", "name", engine.TextValue("Ada")),
		Entry("an empty text slot", "t2", "t", engine.Value{}),
		Entry("an empty number slot", "n2", "n", engine.NumberValue(0)),
		Entry("an empty boolean slot", "b2", "b", engine.BoolValue(false)),
		Entry("a text literal", "t", `"booked"`, engine.TextValue("booked")),
		Entry("the empty text literal", "t2", `""`, engine.Value{}),
		Entry("a number literal", "n", "0", engine.NumberValue(0)),
		Entry("a boolean literal", "b", "true", engine.BoolValue(true)),
		Entry("an event without a value", "t2", "event.value", engine.Value{}),
	)
})

var _ = Describe("fill from a slot", func() {
	// A slot read in place is filled as the closure's text would be:
	// converted to the waited-for slot's type, or emptying it.
	DescribeTable("fills the waited-for slot",
		func(src string, want engine.Value) {
			m, err := et.New("fill", "s").
				Intents("go").
				Slot("src", engine.TypeText).Slot("age", engine.TypeNumber).
				State("s", et.Waits(), et.Entry(et.Set("src", src), et.Ask("age")), et.On("go", "", et.Fill("src"))).
				Build()
			Expect(err).NotTo(HaveOccurred())
			var (
				cfg engine.Config
				res engine.Result
			)
			Expect(m.Start(&cfg, 0, &res)).To(Succeed())
			Expect(stepScript(m, &cfg, &res, "go")).To(Succeed())
			Expect(slotValue(m, &cfg, "age")).To(Equal(want))
		},
		Entry("a number in text", `"42"`, engine.NumberValue(42)),
		Entry("an empty slot", `""`, engine.Value{}),
	)
})
