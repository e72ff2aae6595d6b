package explore_test

// A machine with more timers pending than engine.Config holds inline
// (engine.InlineTimers): the engine keeps the others in a string of its
// own, which the explorer's queue, its fingerprints and its parts must
// carry as they carry the inline ones.

import (
	"fmt"
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/explore"
)

// manyTimersYAML starts n timers t1 to tn (t_k due after k seconds) on
// arm; in armed, drop cancels t9, the first beyond the inline timers
// (they take positions in the order they start), and nothing else, and
// tn's deadline leads to late.
func manyTimersYAML(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "machine: timers%d\ninitial: idle\nintents: [arm, drop]\ntimers:\n", n)
	for k := 1; k <= n; k++ {
		fmt.Fprintf(&b, "  t%d: %ds\n", k, k)
	}
	b.WriteString("states:\n  idle:\n    waits: true\n    on:\n      arm:\n        target: armed\n        actions:\n")
	for k := 1; k <= n; k++ {
		fmt.Fprintf(&b, "          - {start: t%d}\n", k)
	}
	b.WriteString("  armed:\n    waits: true\n    on:\n      drop: {actions: [{cancel: t9}]}\n")
	for k := 1; k < n; k++ {
		fmt.Fprintf(&b, "      timer:t%d: {actions: [{say: \"t%d\"}]}\n", k, k)
	}
	fmt.Fprintf(&b, "      timer:t%d: late\n  late:\n    final: true\n", n)
	return b.String()
}

var _ = Describe("a machine with more timers pending than a configuration holds inline", func() {
	const n = 12 // engine.InlineTimers and 4 more
	It("has them pending beyond the inline ones", func() {
		s := suiteOf(manyTimersYAML(n))
		var c engine.Config
		var r engine.Result
		Expect(s.Machine.Start(&c, 0, &r)).To(Succeed())
		arm, ok := s.Machine.IntentID("arm")
		Expect(ok).To(BeTrue())
		Expect(s.Machine.Step(&c, &engine.Event{Kind: engine.UserEvent, Intent: arm, At: 0, Ext: engine.NoID, Timer: engine.NoID}, &r)).To(Succeed())
		Expect(c.TimerSlots()).To(Equal(n))
		Expect(engine.InlineTimers).To(BeNumerically("<", 9))
	})

	It("finds as many configurations as the reference, which keys them by value, and reaches late through the last timer", func() {
		s := suiteOf(manyTimersYAML(n))
		for depth := 1; depth <= 6; depth++ {
			res := search(s, explore.Options{Depth: depth, NoReduce: true})
			ref, err := refSearch(s, s.Machine, depth)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Distinct).To(Equal(len(ref.nodes)), "depth %d", depth)
		}
		res := search(s, explore.Options{Depth: 100})
		Expect(res.Complete).To(BeTrue())
		late, ok := s.Machine.StateID("late")
		Expect(ok).To(BeTrue())
		Expect(res.Coverage.States[late]).To(BeNumerically(">", 0))
	})

	It("tells apart configurations that differ only in the ninth timer", func() {
		s := suiteOf(manyTimersYAML(n))
		// idle; armed with every timer; armed without t9 (drop); armed
		// once t1 has fired.
		Expect(search(s, explore.Options{Depth: 2}).Distinct).To(Equal(4))
	})

	It("finds the same with its queue in memory and spilled to disk, on one goroutine and on two", func() {
		s := suiteOf(manyTimersYAML(n))
		for _, w := range []int{1, 2} {
			tmp := GinkgoT().TempDir()
			res, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: 100, QueueMemory: 1, SpillDir: tmp, Workers: w})
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Spilled).To(BeNumerically(">", 0))
			late, _ := s.Machine.StateID("late")
			Expect(res.Coverage.States[late]).To(BeNumerically(">", 0), "late, through the last timer, on %d goroutine(s)", w)
			Expect(sameAs(s, s.Variants[0], explore.Options{Depth: 100}, func(o *explore.Options) {
				o.QueueMemory, o.SpillDir, o.Workers = 1, tmp, w
			})).To(Succeed())
			Expect(os.ReadDir(tmp)).To(BeEmpty())
		}
	})

	It("merges the parts of a sharded search into what one search finds", func() {
		defer explore.SetSplitWidth(explore.SetSplitWidth(1))
		s := suiteOf(manyTimersYAML(n))
		for _, depth := range []int{4, 100} {
			one := search(s, explore.Options{Depth: depth})
			for _, parts := range []int{2, 3} {
				merged, err := sharded(s, s.Variants[0], depth, parts, one)
				Expect(err).NotTo(HaveOccurred())
				Expect(sameSearch(one, merged)).To(Succeed(), "depth %d in %d parts", depth, parts)
			}
		}
	})
})
