package spec_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/spec"
)

var _ = Describe("the bundled suites' notes", func() {
	// A contradiction is only what the seed's text says: its quote must be
	// at the line it names, in the documents the suite's sources: list
	// (../shared/seeds beside the checkout). A modelling choice's seed line
	// must exist.
	DescribeTable("quote the seed text at the line they name",
		func(suite string) {
			s, err := spec.Load(filepath.Join("..", "scenarios", suite))
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Sources).To(Equal([]string{"../../../shared/seeds"}))
			Expect(s.Citations()).To(BeEmpty())
		},
		Entry("soni", "soni"), Entry("thea", "thea"), Entry("hfsm", "hfsm"), Entry("formfill", "formfill"),
	)
})

// citeCase is a contradiction note and the seed document it cites; Want is
// the citation error ("": the citation holds).
type citeCase struct {
	Seed, Quote string
	Sources     string
	Want        string
}

// seedDoc is the document the citation specs cite, written here.
const seedDoc = "line one\nline two\n  the bot  must\n  confirm before it books\nline five\nline six\nline seven\nline eight\nline nine\n"

var _ = Describe("citations", func() {
	var dir string
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(dir, "seeds"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "seeds", "design.txt"), []byte(seedDoc), 0o644)).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(dir, "suite"), 0o755)).To(Succeed())
	})

	DescribeTable("are checked against the suite's sources",
		func(c citeCase) {
			m := "machine: cite\nintents: [go]\n" + c.Sources + "initial: a\nstates:\n  a:\n    on:\n      go: b\n  b:\n    final: true\n" +
				"invariants:\n  - name: table\n    allowed_transitions:\n      a: [a]\n    contradiction:\n      - move: a -> b\n" +
				"        seed: " + c.Seed + "\n        quote: " + c.Quote + "\n"
			Expect(os.WriteFile(filepath.Join(dir, "suite", "machine.yaml"), []byte(m), 0o644)).To(Succeed())
			s, err := spec.Load(filepath.Join(dir, "suite"))
			Expect(err).NotTo(HaveOccurred())
			errs := s.Citations()
			if c.Want == "" {
				Expect(errs).To(BeEmpty())
				return
			}
			Expect(errs).To(HaveLen(1))
			Expect(errs[0].Error()).To(HaveSuffix(c.Want))
			Expect(errs[0].Pos.String()).To(MatchRegexp(`suite/machine\.yaml:1[56]:9$`), "the note's position")
		},
		Entry("the quote on its line", citeCase{Seed: "design.txt:3", Quote: "the bot must", Sources: "sources: [../seeds]\n"}),
		Entry("across lines, white space normalised", citeCase{Seed: "design.txt:3-4", Quote: "'the bot must confirm before'", Sources: "sources: [../seeds]\n"}),
		Entry("a line or three away", citeCase{Seed: "design.txt:6", Quote: "confirm before it books", Sources: "sources: [../seeds]\n"}),
		Entry("a source that is the file itself", citeCase{Seed: "design.txt:4", Quote: "confirm", Sources: "sources: [../seeds/design.txt]\n"}),
		Entry("a fabricated document", citeCase{Seed: "999_does_not_exist.txt:4242", Quote: "made-up text", Sources: "sources: [../seeds]\n",
			Want: `seed 999_does_not_exist.txt:4242: no document 999_does_not_exist.txt in the suite's sources (../seeds)`}),
		Entry("a fabricated quote", citeCase{Seed: "design.txt:3", Quote: "made-up text", Sources: "sources: [../seeds]\n",
			Want: `seed design.txt:3: the quote is not in design.txt at lines 1-6 (whitespace aside): "made-up text"`}),
		Entry("a quote too far from its line", citeCase{Seed: "design.txt:8", Quote: "the bot must", Sources: "sources: [../seeds]\n",
			Want: `seed design.txt:8: the quote is not in design.txt at lines 5-10 (whitespace aside): "the bot must"`}),
		Entry("a line past the end", citeCase{Seed: "design.txt:40", Quote: "the bot must", Sources: "sources: [../seeds]\n",
			Want: `seed design.txt:40: design.txt has 10 lines`}),
		Entry("no sources", citeCase{Seed: "design.txt:3", Quote: "the bot must",
			Want: `seed design.txt:3: a contradiction's quote is checked against the seed documents, and machine.yaml names none (sources: the folders or files holding them, relative to the suite folder)`}),
	)

	It("fail the note of a scenario's own known_violations", func() {
		m := "machine: cite\nintents: [go]\nsources: [../seeds]\ninitial: a\nstates:\n  a:\n    on:\n      go: b\n  b:\n    final: true\n" +
			"invariants:\n  - name: table\n    allowed_transitions:\n      a: [a]\n"
		sc := "name: s\nturns:\n  - user: go\nknown_violations:\n  - invariant: table\n    contradiction:\n      - move: a -> b\n        seed: design.txt:1\n        quote: not there\n"
		Expect(os.WriteFile(filepath.Join(dir, "suite", "machine.yaml"), []byte(m), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "suite", "s.scenario.yaml"), []byte(sc), 0o644)).To(Succeed())
		s, err := spec.Load(filepath.Join(dir, "suite"))
		Expect(err).NotTo(HaveOccurred())
		errs := s.Citations()
		Expect(errs).To(HaveLen(1))
		Expect(errs[0].Pos.File).To(HaveSuffix("s.scenario.yaml"))
		Expect(strings.Contains(errs[0].Msg, `"not there"`)).To(BeTrue())
	})
})
