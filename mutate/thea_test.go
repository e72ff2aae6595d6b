package mutate_test

import (
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/mutate"
)

// thea's mutants of awaiting_date_time's date-only branch (225, 228 and
// 229 when issue 27 was filed) were once called equivalent: no scenario or user said an agenda request
// with a date and no time, so no search reached the branch. The alphabet
// from the machine reaches it now.
var _ = Describe("thea's date-only branch", func() {
	It("has its mutants killed or unreached, never equivalent", func() {
		s := load(filepath.Join("..", "scenarios", "thea"))
		r := mutate.NewRunner(s, mutate.Options{Seed: 1, ExploreDepth: -1, MaxStates: 1_000_000, EquivStates: 1_000_000})
		// The mutants of the transition, found by what they change (their
		// numbers move whenever an operator makes more or fewer mutants
		// before them).
		branch := `state awaiting_date_time: always if event.entities.fecha != "" or event.e... -> awaiting_time: `
		judged := 0
		for _, m := range mutate.Enumerate(s.Def, 1) {
			if !strings.HasPrefix(m.Desc, branch) {
				continue
			}
			judged++
			res := r.Judge(m)
			Expect(res.Status).To(BeElementOf(mutate.Killed, mutate.Unreached), "mutant %d (%s): %s", m.ID, m.Desc, res.Detail)
		}
		// Its retarget, guard and two actions.
		Expect(judged).To(Equal(5))
	})
})
