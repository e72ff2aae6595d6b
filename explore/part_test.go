package explore_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/leanovate/gopter"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/spec"
)

// sharded searches variant v of s in n parts, passes each part through
// JSON (as shard.json carries it) and merges them. Each part's own
// findings must be real ones, found by one search too (one; nil: no
// check): a configuration left to another part is no livelock.
func sharded(s *spec.Suite, v *spec.Variant, depth, n int, one *explore.Result) (*explore.Result, error) {
	var parts []*explore.Part
	for i := n - 1; i >= 0; i-- { // any order
		r, err := explore.Explore(s, v, explore.Options{Depth: depth, Part: i, Parts: n})
		if err != nil {
			return nil, err
		}
		for _, f := range r.Findings {
			if one != nil && !slices.Contains(kindsInOrder(one), f.Key()) {
				return nil, fmt.Errorf("part %d of %d finds %s, which one search does not: %s", i, n, f.Kind, f.Violation.Msg)
			}
		}
		data, err := json.Marshal(r.Part())
		if err != nil {
			return nil, err
		}
		var p explore.Part
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, err
		}
		parts = append(parts, &p)
	}
	return explore.Merge(s, v, parts)
}

// sameSearch says how merged differs from one search, or nil.
func sameSearch(one, merged *explore.Result) error {
	type stats struct {
		Distinct, Generated, Depth, Queue int
		Complete                          bool
		Stopped                           string
	}
	a := stats{one.Distinct, one.Generated, one.Depth, one.Queue, one.Complete, one.Stopped}
	b := stats{merged.Distinct, merged.Generated, merged.Depth, merged.Queue, merged.Complete, merged.Stopped}
	if a != b {
		return fmt.Errorf("one search %+v, merged %+v", a, b)
	}
	if !reflect.DeepEqual(one.Coverage, merged.Coverage) {
		a, b := one.Coverage, merged.Coverage
		for _, c := range []struct {
			name string
			a, b []int64
		}{{"transitions", a.Trans, b.Trans}, {"states", a.States, b.States}, {"guards true", a.GuardTrue, b.GuardTrue},
			{"guards false", a.GuardFalse, b.GuardFalse}, {"intents", a.Intents, b.Intents}, {"slots", a.Slots, b.Slots}} {
			if !slices.Equal(c.a, c.b) {
				return fmt.Errorf("coverage of %s differs: one search %v, merged %v", c.name, c.a, c.b)
			}
		}
		return fmt.Errorf("coverage differs")
	}
	if len(one.Findings) != len(merged.Findings) {
		return fmt.Errorf("findings: one search %v, merged %v", kindsInOrder(one), kindsInOrder(merged))
	}
	for i, f := range one.Findings {
		g := merged.Findings[i]
		if f.Kind != g.Kind || f.Known != g.Known || f.Violation != g.Violation {
			return fmt.Errorf("finding %d: one search %s %+v, merged %s %+v", i, f.Kind, f.Violation, g.Kind, g.Violation)
		}
		if p, q := explore.PathOf(one, f.Node), explore.PathOf(merged, g.Node); !reflect.DeepEqual(p, q) {
			return fmt.Errorf("finding %s: one search's path %v, merged %v", f.Kind, p, q)
		}
	}
	return nil
}

func kindsInOrder(r *explore.Result) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Key())
	}
	return out
}

var _ = Describe("a search split into parts", func() {
	DescribeTable("merges into what one search finds, whatever the number of parts and wherever it splits",
		func(dir string, depth, width int) {
			defer explore.SetSplitWidth(explore.SetSplitWidth(width))
			s := load(dir)
			for _, v := range s.Variants {
				one := search(s, explore.Options{Depth: depth})
				if v != s.Variants[0] {
					var err error
					one, err = explore.Explore(s, v, explore.Options{Depth: depth})
					Expect(err).NotTo(HaveOccurred())
				}
				for _, n := range []int{1, 2, 3, 7} {
					merged, err := sharded(s, v, depth, n, one)
					Expect(err).NotTo(HaveOccurred())
					Expect(sameSearch(one, merged)).To(Succeed(), "%s [%s] in %d parts", s.Name, v.Name, n)
				}
			}
		},
		Entry("planted faults (dead end, livelock, invariants), split early", "testdata/planted", 10, 1),
		Entry("soni", seedSuite("soni"), 4, 128),
		Entry("soni, split early", seedSuite("soni"), 4, 2),
		Entry("bench-soni, completely", seedSuite("bench-soni"), 1000, 128),
		Entry("thea", seedSuite("thea"), 3, 128),
		Entry("thea, split early", seedSuite("thea"), 3, 1),
		Entry("formfill", seedSuite("formfill"), 2, 128),
		Entry("hfsm, completely", seedSuite("hfsm"), 1000, 128),
		Entry("hfsm, completely, split early", seedSuite("hfsm"), 1000, 4),
	)

	// Parts search overlapping subtrees (they cannot tell each other what
	// they saw), so the split pays where the depth bound keeps subtrees
	// apart; a complete search of a strongly connected machine is nearly
	// whole in every part.
	It("splits the work of a bounded search: each part computes a share of the successors", func() {
		s := load(seedSuite("thea"))
		one := search(s, explore.Options{Depth: 4})
		for i := 0; i < 4; i++ {
			r, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: 4, Part: i, Parts: 4})
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Generated).To(BeNumerically("<", one.Generated*3/4), "part %d", i)
		}
	})

	It("merges random machines as one search finds them, split at the first level with one configuration per shard (gopter)", func() {
		defer explore.SetSplitWidth(explore.SetSplitWidth(1))
		params := gopter.DefaultTestParametersWithSeed(refSeed)
		params.MinSuccessfulTests = splitCases
		params.MaxShrinkCount = 0
		props := gopter.NewProperties(params)
		props.Property("merge(parts) = search", forAllMachines(splitAgrees))
		var out strings.Builder
		if !props.Run(gopter.NewFormatedReporter(true, 1<<16, &out)) {
			Fail(out.String())
		}
	})

	// make fuzz found it: the part that does not own a configuration's
	// least path may reach it (same fingerprint) by another path, with
	// other values in slots the fingerprint leaves out, and count other
	// slot changes when it expands it.
	It("merges slot coverage from the part that reached each configuration by one search's path (machine seed 987404789635)", func() {
		defer explore.SetSplitWidth(explore.SetSplitWidth(1))
		Expect(splitAgrees(machineCase{Seed: 987404789635, Depth: 3})).To(Succeed())
	})

	It("merges the parts of a search the state cap stopped as a best effort, saying it stopped", func() {
		s := load(seedSuite("thea"))
		for _, n := range []int{2, 3} {
			var parts []*explore.Part
			for i := 0; i < n; i++ {
				r, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: 6, MaxStates: 1500, Part: i, Parts: n})
				Expect(err).NotTo(HaveOccurred())
				parts = append(parts, r.Part())
			}
			merged, err := explore.Merge(s, s.Variants[0], parts)
			Expect(err).NotTo(HaveOccurred())
			Expect(merged.Stopped).To(ContainSubstring("stopped at 1500 distinct configurations"))
			Expect(merged.Complete).To(BeFalse())
			for _, f := range merged.Findings {
				Expect(f.Kind).NotTo(Equal("livelock"), "no livelock is concluded from a stopped search")
				Expect(merged.PathLen(f.Node)).To(BeNumerically(">", 0))
			}
		}
	})

	DescribeTable("rejects parts that do not fit together, with an error",
		func(damage func(parts []*explore.Part) []*explore.Part, want string) {
			s := load("testdata/planted")
			var parts []*explore.Part
			for i := 0; i < 2; i++ {
				r, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: 10, Part: i, Parts: 2})
				Expect(err).NotTo(HaveOccurred())
				parts = append(parts, r.Part())
			}
			_, err := explore.Merge(s, s.Variants[0], damage(parts))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("a part missing", func(p []*explore.Part) []*explore.Part { return p[:1] }, "1 parts given of a search in 2"),
		Entry("a part twice", func(p []*explore.Part) []*explore.Part { return []*explore.Part{p[0], p[0]} }, "missing or given twice"),
		Entry("another depth", func(p []*explore.Part) []*explore.Part { p[1].Depth = 3; return p }, "different depths"),
		Entry("another machine", func(p []*explore.Part) []*explore.Part { p[1].Transitions++; return p }, "another machine"),
		Entry("a parent after its child", func(p []*explore.Part) []*explore.Part { p[0].Nodes[1].Parent = 5; return p }, "has parent 5"),
		Entry("an event outside the alphabet", func(p []*explore.Part) []*explore.Part { p[0].Nodes[1].In.Event = 999; return p }, "not in the alphabet"),
		Entry("a coverage count out of range", func(p []*explore.Part) []*explore.Part {
			p[0].Start = append(p[0].Start, explore.CovCount{Of: 9})
			return p
		}, "coverage count"),
		Entry("a successor nowhere", func(p []*explore.Part) []*explore.Part {
			p[0].Nodes[0].To = append(p[0].Nodes[0].To, 12345)
			return p
		}, "in no part"),
		Entry("no parts", func(p []*explore.Part) []*explore.Part { return nil }, "no parts"),
		Entry("no configurations", func(p []*explore.Part) []*explore.Part {
			p[0].Nodes, p[1].Nodes = nil, nil
			return p
		}, "no start configuration"),
		Entry("two starts", func(p []*explore.Part) []*explore.Part { p[1].Nodes[0].FP++; return p }, "start from different configurations"),
	)
})

var _ = Describe("folding events that differ only in a payload the step did not read", func() {
	DescribeTable("changes nothing the search reports",
		func(dir string, depth int) {
			s := load(dir)
			for _, v := range s.Variants {
				folded, err := explore.Explore(s, v, explore.Options{Depth: depth})
				Expect(err).NotTo(HaveOccurred())
				old := explore.SetFolding(false)
				whole, err := explore.Explore(s, v, explore.Options{Depth: depth})
				explore.SetFolding(old)
				Expect(err).NotTo(HaveOccurred())
				Expect(sameSearch(whole, folded)).To(Succeed(), "%s [%s]", s.Name, v.Name)
			}
		},
		Entry("planted faults", "testdata/planted", 10),
		Entry("soni", seedSuite("soni"), 4),
		Entry("bench-soni", seedSuite("bench-soni"), 6),
		Entry("thea", seedSuite("thea"), 3),
		Entry("formfill", seedSuite("formfill"), 2),
		Entry("hfsm", seedSuite("hfsm"), 6),
	)
})

// splitAgrees checks one random machine: split into 2, 3 and 7 parts at
// the first level, the merged search is one search.
func splitAgrees(c machineCase) error {
	s, err := c.suite()
	if err != nil {
		return err
	}
	one, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: c.Depth + 2, MaxStates: 20000})
	if err != nil || one.Stopped != "" {
		return nil // fails at its start, or too big to compare
	}
	for _, n := range []int{2, 3, 7} {
		merged, err := sharded(s, s.Variants[0], c.Depth+2, n, one)
		if err != nil {
			return fmt.Errorf("%d parts: %v", n, err)
		}
		if err := sameSearch(one, merged); err != nil {
			return fmt.Errorf("%d parts: %v", n, err)
		}
	}
	return nil
}

// splitCases is how many random machines the split property tries:
// SIMCTL_SPLIT_CASES, 10 in make test (25 were the package's longest
// spec, 8 of its 73 s; the table above splits every seed suite early and
// late), as many as SIMCTL_REDUCE_CASES in make fuzz and fuzz-short.
var splitCases = int(envInt("SIMCTL_SPLIT_CASES", 10))

var _ = Describe("telling the checker the findings found already", func() {
	DescribeTable("changes nothing the search reports, only the describing it saves",
		func(dir string, depth int) {
			s := load(dir)
			for _, v := range s.Variants {
				quiet, err := explore.Explore(s, v, explore.Options{Depth: depth})
				Expect(err).NotTo(HaveOccurred())
				old := explore.SetMaxQuiet(0)
				loud, err := explore.Explore(s, v, explore.Options{Depth: depth})
				explore.SetMaxQuiet(old)
				Expect(err).NotTo(HaveOccurred())
				Expect(sameSearch(loud, quiet)).To(Succeed(), "%s [%s]", s.Name, v.Name)
			}
		},
		Entry("planted faults", "testdata/planted", 10),
		Entry("thea, more findings than the 16 once told", seedSuite("thea"), 3),
	)
})
