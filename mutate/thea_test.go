package mutate_test

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/mutate"
)

// thea's mutants 225, 228 and 229 (awaiting_date_time's date-only branch)
// were once called equivalent: no scenario or user said an agenda request
// with a date and no time, so no search reached the branch. The alphabet
// from the machine reaches it now.
var _ = Describe("thea's date-only branch", func() {
	It("has its mutants killed or unreached, never equivalent", func() {
		s := load(filepath.Join("..", "scenarios", "thea"))
		r := mutate.NewRunner(s, mutate.Options{Seed: 1, ExploreDepth: -1, MaxStates: 1_000_000, EquivStates: 1_000_000})
		ms := mutate.Enumerate(s.Def, 1)
		for _, id := range []int{225, 228, 229} {
			res := r.Judge(ms[id])
			Expect(res.Status).To(BeElementOf(mutate.Killed, mutate.Unreached), "mutant %d (%s): %s", id, ms[id].Desc, res.Detail)
		}
	})
})
