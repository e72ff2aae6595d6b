package mutate_test

import (
	"path/filepath"
	"reflect"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/mutate"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// The lamp (testdata/lamp) has one mutant or more of every operator, one
// scenario that kills about half of them, and a counter no guard reads.
const lamp = "testdata/lamp"

func load(dir string) *spec.Suite {
	s, err := spec.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	return s
}

func descs(ms []*mutate.Mutant) []string {
	var out []string
	for _, m := range ms {
		out = append(out, string(m.Op)+" "+m.Pos.String()+" "+m.Desc)
	}
	return out
}

func judgeAll(s *spec.Suite, o mutate.Options) []mutate.Result {
	r := mutate.NewRunner(s, o)
	var out []mutate.Result
	for _, m := range mutate.Enumerate(s.Def, o.Seed) {
		out = append(out, r.Judge(m))
	}
	return out
}

var opts = mutate.Options{Seed: 1, Generate: 20, ExploreDepth: -1, MaxStates: 10_000, EquivStates: 10_000}

var _ = Describe("Enumerate", func() {
	var s *spec.Suite
	BeforeEach(func() { s = load(lamp) })

	It("makes mutants of every operator, each at its spec position", func() {
		ms := mutate.Enumerate(s.Def, 1)
		count := map[mutate.Operator]int{}
		for i, m := range ms {
			Expect(m.ID).To(Equal(i))
			Expect(m.Pos.File).To(Equal(filepath.Join(lamp, "machine.yaml")))
			Expect(m.Pos.Line).To(BeNumerically(">", 0))
			count[m.Op]++
		}
		Expect(count).To(Equal(map[mutate.Operator]int{mutate.Retarget: 5, mutate.DropGuard: 1, mutate.NegateGuard: 1,
			mutate.DropAction: 10, mutate.Swap: 1, mutate.DropCancel: 2, mutate.RaiseLimit: 2}))
		Expect(descs(ms)).To(ContainElements(
			"negate_guard testdata/lamp/machine.yaml:20:18 state on: on dim if not exhausted(dims) -> on: guard negated",
			"swap testdata/lamp/machine.yaml:20:11 state on: on dim if not exhausted(dims) -> on swapped with the next, on dim -> off (line 23)",
			`drop_action testdata/lamp/machine.yaml:24:28 state on: on dim -> off: action say "Too dim, off." dropped`,
			"raise_limit testdata/lamp/machine.yaml:7:3 counter dims: limit 2 raised to 3",
		))
	})

	It("is the same for the same seed, and leaves the definition alone", func() {
		before := descs(mutate.Enumerate(s.Def, 7))
		for _, m := range mutate.Enumerate(s.Def, 7) {
			d := m.Apply(s.Def)
			Expect(reflect.DeepEqual(d, s.Def)).To(BeFalse(), "mutant %d changes nothing", m.ID)
		}
		Expect(descs(mutate.Enumerate(s.Def, 7))).To(Equal(before))
		fresh := load(lamp)
		Expect(reflect.DeepEqual(fresh.Def, s.Def)).To(BeTrue())
	})

	It("is the same whatever path names the suite", func() {
		// Only the descriptions: the positions carry the path as given.
		// thea: its retargets choose among many siblings.
		rel := filepath.Join("..", "scenarios", "thea")
		abs, err := filepath.Abs(rel)
		Expect(err).NotTo(HaveOccurred())
		suite := load(rel)
		for _, seed := range []int64{1, 2, 3, 7} {
			var here, there []string
			for _, m := range mutate.Enumerate(suite.Def, seed) {
				here = append(here, m.Desc)
			}
			for _, m := range mutate.Enumerate(load(abs).Def, seed) {
				there = append(there, m.Desc)
			}
			Expect(there).To(Equal(here), "seed %d", seed)
		}
	})
})

var _ = Describe("swap", func() {
	It("swaps only transitions one event can take and whose guards can both hold", func() {
		var swaps []string
		for _, m := range mutate.Enumerate(load("testdata/switchboard").Def, 1) {
			if m.Op == mutate.Swap {
				swaps = append(swaps, m.Desc)
			}
		}
		// line == "a" and line == "b" cannot both hold; "*" takes no timer.
		Expect(swaps).To(Equal([]string{
			`state idle: on call if line == "b" -> busy swapped with the next, on call if line != "" -> idle (line 19)`,
			`state idle: on call if line != "" -> idle swapped with the next, on * -> busy (line 20)`,
		}))
	})
})

var _ = Describe("Runner", func() {
	It("kills, lets survive, proves equivalent, and says which source killed", func() {
		s := load(lamp)
		rs := judgeAll(s, opts)
		sum := mutate.Summarize(rs)
		Expect(sum).To(HaveLen(1))
		all := sum[0].All
		Expect(all.Mutants).To(Equal(22))
		Expect(all.Killed).To(Equal(13))
		Expect(all.BySource[mutate.Scripted]).To(Equal(11))
		// Dropping either cancel of auto_off leaves the timer running
		// after the lamp is off. Generated users, silent once the lamp is
		// off, let it fall due (leaked_timer) after switching it off; the
		// third dim that turns it off is no move a cooperative user makes
		// (it heads for states not yet visited), so the explorer finds
		// that one.
		Expect(all.BySource[mutate.Generated]).To(Equal(1))
		Expect(all.BySource[mutate.Explored]).To(Equal(1))
		Expect(all.Equivalent).To(Equal(1))
		Expect(all.Survived).To(Equal(8))
		Expect(all.Score()).To(BeNumerically("~", 13.0/21, 1e-9))
		for _, r := range rs {
			if r.Status == mutate.Equivalent {
				Expect(r.Mutant.Desc).To(Equal("counter unused: limit 5 raised to 6"))
			}
			if r.Status == mutate.Killed && r.Source == mutate.Scripted {
				Expect(r.Detail).To(Equal("scenario dim fails"))
			}
			if r.Status == mutate.Killed && r.Source != mutate.Scripted {
				Expect(r.Mutant.Op).To(Equal(mutate.DropCancel))
			}
			if r.Status == mutate.Killed && r.Source == mutate.Generated {
				Expect(r.Detail).To(Equal("a generated conversation breaks leaked_timer"))
			}
		}
	})

	It("proves equivalence from the exploration's own complete searches, whatever the equivalence cap", func() {
		o := opts
		o.EquivStates = 2
		all := mutate.Summarize(judgeAll(load(lamp), o))[0].All
		Expect(all.Equivalent).To(Equal(1))
		Expect(all.Killed).To(Equal(13))
	})

	It("runs the original no sooner than a mutant needs it", func() {
		// Stop is asked between scenarios and inside generated runs and
		// searches: a runner that has judged nothing has asked nothing.
		asked := 0
		o := opts
		o.Stop = func() bool { asked++; return false }
		r := mutate.NewRunner(load(lamp), o)
		Expect(asked).To(BeZero())
		Expect(r.Judge(mutate.Enumerate(load(lamp).Def, 1)[0]).Status).NotTo(BeEmpty())
		Expect(asked).NotTo(BeZero())
	})

	It("counts a mutant that does not build as invalid, with the build error", func() {
		s := load(lamp)
		r := mutate.NewRunner(s, opts)
		res := r.Judge(mutate.NewMutant(0, mutate.Retarget, "to nowhere", func(d *engine.Definition) { d.States[0].On[0].Target = "nowhere" }))
		Expect(res.Status).To(Equal(mutate.Invalid))
		Expect(res.Detail).To(ContainSubstring(`unknown state "nowhere"`))
	})

	It("gives the same verdicts whatever order the mutants are judged in", func() {
		s := load(lamp)
		want := judgeAll(s, opts)
		r := mutate.NewRunner(s, opts)
		ms := mutate.Enumerate(s.Def, 1)
		for i := len(ms) - 1; i >= 0; i-- {
			got := r.Judge(ms[i])
			Expect(got.Status).To(Equal(want[i].Status))
			Expect(got.Detail).To(Equal(want[i].Detail))
		}
	})
})

var _ = Describe("the digest of a complete search", func() {
	It("is the same for the same machine and differs for a mutant the scenario kills", func() {
		s := load(lamp)
		// A mutant whose search does not complete (the dimmer that counts
		// for ever) proves nothing either way.
		dig := func(s *spec.Suite) (uint64, bool) {
			res, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: 1 << 30, MaxStates: 10_000, Digest: true})
			Expect(err).NotTo(HaveOccurred())
			return res.Digest, res.Complete
		}
		orig, ok := dig(s)
		Expect(ok).To(BeTrue())
		again, _ := dig(load(lamp))
		Expect(again).To(Equal(orig))
		complete := 0
		for _, m := range mutate.Enumerate(s.Def, 1) {
			ms, err := mutate.Build(s, m.Apply(s.Def))
			Expect(err).NotTo(HaveOccurred())
			d, ok := dig(ms)
			if !ok {
				continue
			}
			complete++
			if m.Desc == "counter unused: limit 5 raised to 6" {
				Expect(d).To(Equal(orig))
				continue
			}
			Expect(d).NotTo(Equal(orig), "mutant %d: %s", m.ID, m.Desc)
		}
		Expect(complete).To(BeNumerically(">", 15))
	})
})

var _ = Describe("Killers", func() {
	It("writes scenarios that pass on the original and fail on the survivors they kill", func() {
		s := load(lamp)
		var surv []*mutate.Mutant
		for _, r := range judgeAll(s, opts) {
			if r.Status == mutate.Survived {
				surv = append(surv, r.Mutant)
			}
		}
		ks := mutate.Killers(s, surv, mutate.KillerOptions{Seed: 1, Generate: 50, MaxStates: 10_000})
		Expect(ks).NotTo(BeEmpty())
		byID := map[int]*mutate.Mutant{}
		for _, m := range surv {
			byID[m.ID] = m
		}
		for _, k := range ks {
			sc, err := spec.LoadScenario(filepath.Join(lamp, k.Name+spec.ScenarioSuffix), k.Data, s.Machine, s.Tags, map[string]bool{})
			Expect(err).NotTo(HaveOccurred(), string(k.Data))
			Expect(sim.RunScenario(s, sc, sim.Options{Seed: 1}).Status).To(Equal(sim.Pass))
			Expect(k.Kills).NotTo(BeEmpty())
			for _, id := range k.Kills {
				ms, err := mutate.Build(s, byID[id].Apply(s.Def))
				Expect(err).NotTo(HaveOccurred())
				Expect(sim.RunScenario(ms, sc, sim.Options{Seed: 1}).Status).To(Equal(sim.Fail), "%s on mutant %d", k.Name, id)
			}
		}
	})
})
