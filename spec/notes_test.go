package spec_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

// seedsDir finds the seed design documents the bundled suites quote: the
// SIMCTL_SEEDS folder, or the shared folder beside a checkout.
func seedsDir() string {
	for _, d := range []string{os.Getenv("SIMCTL_SEEDS"), "../../shared/seeds", "../../../shared/seeds"} {
		if d == "" {
			continue
		}
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	return ""
}

var _ = Describe("the bundled suites' notes", func() {
	// A contradiction is only what the seed's text says: its quote must be
	// on the line it names. A modelling choice's seed line must exist.
	DescribeTable("quote the seed text at the line they name",
		func(suite string) {
			seeds := seedsDir()
			if seeds == "" {
				Skip("the seed documents are not here (set SIMCTL_SEEDS)")
			}
			s, err := spec.Load(filepath.Join("..", "scenarios", suite))
			Expect(err).NotTo(HaveOccurred())
			var notes []engine.Note
			for _, inv := range s.Machine.Invariants() {
				notes = append(notes, inv.Notes...)
			}
			for _, b := range s.Machine.BuiltinNotes() {
				notes = append(notes, b.Notes...)
			}
			Expect(notes).NotTo(BeEmpty())
			for _, n := range notes {
				if n.Seed == "" {
					Expect(n.Kind).To(Equal(engine.ModellingChoice), "%s: a contradiction names its seed", n.Pos)
					continue
				}
				doc, ref, _ := strings.Cut(n.Seed, ":")
				first, _, _ := strings.Cut(ref, "-")
				line, err := strconv.Atoi(first)
				Expect(err).NotTo(HaveOccurred())
				data, err := os.ReadFile(filepath.Join(seeds, doc))
				Expect(err).NotTo(HaveOccurred(), "%s: seed %s", n.Pos, n.Seed)
				lines := strings.Split(string(data), "\n")
				Expect(line).To(BeNumerically("<=", len(lines)), "%s: seed %s", n.Pos, n.Seed)
				if n.Kind == engine.Contradiction {
					Expect(strings.TrimSpace(lines[line-1])).To(ContainSubstring(n.Quote), "%s: seed %s", n.Pos, n.Seed)
				}
			}
		},
		Entry("soni", "soni"), Entry("thea", "thea"), Entry("hfsm", "hfsm"), Entry("formfill", "formfill"),
	)
})
