package engine_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// saturation is how a machine reads counter n, and from which value on
// its values read alike (exact: they never do).
type saturation struct {
	build func(b *et.Builder)
	from  int32
	exact bool
}

var _ = Describe("counter saturation", func() {
	DescribeTable("a counter read only by comparisons with constants reads alike past the largest",
		func(s saturation) {
			b := et.New("count", "idle").Intents("hi").Counter("n", 0).Slot("copy", engine.TypeNumber)
			s.build(b)
			m, err := b.Build()
			Expect(err).NotTo(HaveOccurred())
			from, ok := m.CounterAlikeFrom(0)
			Expect(ok).To(Equal(!s.exact))
			if !s.exact {
				Expect(from).To(Equal(s.from))
			}
		},
		Entry("never read: every value alike", saturation{from: 0, build: func(b *et.Builder) {
			b.State("idle", et.Waits(), et.On("hi", "", et.Incr("n")))
		}}),
		Entry("n > 2 and n == 5: from 6", saturation{from: 6, build: func(b *et.Builder) {
			b.State("idle", et.Waits(), et.OnIf("hi", "n > 2", "", et.Incr("n")), et.OnIf("hi", "n == 5", "", et.Say("five")))
		}}),
		Entry("the constant on the left (3 <= n): from 4, where 3 < n starts to hold too", saturation{from: 4, build: func(b *et.Builder) {
			b.State("idle", et.Waits(), et.OnIf("hi", "3 <= n", "", et.Say("many")), et.On("hi", "", et.Incr("n")))
		}}),
		Entry("a number parameter is a constant", saturation{from: 8, build: func(b *et.Builder) {
			b.Param("most", engine.TypeNumber, "7").State("idle", et.Waits(), et.OnIf("hi", "n >= most", "", et.Say("many")), et.On("hi", "", et.Incr("n")))
		}}),
		Entry("a limit: exhausted (n >= 4) and the built-in counter_limit (n > 4) from 5", saturation{from: 5, build: func(b *et.Builder) {
			b.Def().Counters[0].Limit = 4
			b.State("idle", et.Waits(), et.OnIf("hi", "exhausted(n)", "", et.Say("enough")), et.On("hi", "", et.Incr("n")))
		}}),
		Entry("a declared invariant comparing it with a constant: from 10", saturation{from: 10, build: func(b *et.Builder) {
			b.Def().Invariants = append(b.Def().Invariants, engine.InvariantDef{Name: "small", Kind: engine.InvNever, Expr: engine.Expr{Src: "n > 9"}})
			b.State("idle", et.Waits(), et.On("hi", "", et.Incr("n")))
		}}),
		Entry("arithmetic: exact", saturation{exact: true, build: func(b *et.Builder) {
			b.State("idle", et.Waits(), et.OnIf("hi", "n + 1 > 2", "", et.Say("many")), et.On("hi", "", et.Incr("n")))
		}}),
		Entry("said in a reply: exact", saturation{exact: true, build: func(b *et.Builder) {
			b.State("idle", et.Waits(), et.On("hi", "", et.Incr("n"), et.Say("hello number {n}")))
		}}),
		Entry("copied into a slot: exact", saturation{exact: true, build: func(b *et.Builder) {
			b.State("idle", et.Waits(), et.On("hi", "", et.Incr("n"), et.Set("copy", "n")))
		}}),
		Entry("compared with a slot: exact", saturation{exact: true, build: func(b *et.Builder) {
			b.State("idle", et.Waits(), et.OnIf("hi", "n > copy", "", et.Say("many")), et.On("hi", "", et.Incr("n")))
		}}),
		Entry("compared with before.n in an invariant: exact", saturation{exact: true, build: func(b *et.Builder) {
			b.Def().Invariants = append(b.Def().Invariants, engine.InvariantDef{Name: "up", Kind: engine.InvAlways, Expr: engine.Expr{Src: "n >= before.n"}})
			b.State("idle", et.Waits(), et.On("hi", "", et.Incr("n")))
		}}),
		Entry("one exact read among comparisons: exact", saturation{exact: true, build: func(b *et.Builder) {
			b.State("idle", et.Waits(), et.OnIf("hi", "n > 2", "", et.Say("many ({n})")), et.On("hi", "", et.Incr("n")))
		}}),
	)

	It("keeps the engine's counting exact: saturation is the explorer's view", func() {
		m, err := et.New("count", "idle").Intents("hi").Counter("n", 0).
			State("idle", et.Waits(), et.OnIf("hi", "n > 1", "", et.Incr("n"), et.Say("again")), et.On("hi", "", et.Incr("n"), et.Say("hi"))).Build()
		Expect(err).NotTo(HaveOccurred())
		from, ok := m.CounterAlikeFrom(0)
		Expect(ok).To(BeTrue())
		Expect(from).To(Equal(int32(2)))
		var cfg engine.Config
		var res engine.Result
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		for range 5 {
			ev, err := et.ParseEvent(m, &cfg, "hi")
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
		}
		Expect(counter(m, &cfg, "n")).To(Equal(int32(5)))
	})
})
