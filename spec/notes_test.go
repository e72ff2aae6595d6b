package spec_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/eval"
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

// scopeCase is a machine.yaml's note (indented as an entry of the table's
// contradiction: list) and the load error it gives ("": none).
type scopeCase struct {
	Note     string
	Variants string
	Want     string
}

const scopeMachine = `machine: scope
intents: [go, back]
parameters:
  strict: {type: bool, default: "false"}
initial: a
states:
  a:
    initial: a1
    states:
      a1:
        on:
          go: b
          back:
            guard: strict
            target: a2
      a2:
        on:
          go: b
  b:
    final: true
invariants:
  - name: table
    allowed_transitions:
      a: [a]
    modelling_choice:
`

var _ = Describe("a note's scope", func() {
	DescribeTable("is the states and variants it names",
		func(c scopeCase) {
			dir := GinkgoT().TempDir()
			m := scopeMachine + c.Note + c.Variants
			Expect(os.WriteFile(filepath.Join(dir, "machine.yaml"), []byte(m), 0o644)).To(Succeed())
			_, err := spec.Load(dir)
			if c.Want == "" {
				Expect(err).NotTo(HaveOccurred())
				return
			}
			Expect(err).To(MatchError(HaveSuffix(c.Want)))
		},
		Entry("no variants: every variant", scopeCase{Note: "      - {move: a.a2 -> b, why: w}\n"}),
		Entry("a state the variants change needs variants:", scopeCase{Note: "      - {move: a.a1 -> b, why: w}\n",
			Variants: "variants:\n  - name: lax\n  - name: strict\n    set: {strict: \"true\"}\n",
			Want:     "the variants differ at a.a1 (parameter strict): say which variants the note holds in (variants: [...])"}),
		Entry("its variants named", scopeCase{Note: "      - {move: a.a1 -> b, variants: [strict], why: w}\n",
			Variants: "variants:\n  - name: lax\n  - name: strict\n    set: {strict: \"true\"}\n"}),
		Entry("a state the variants do not change", scopeCase{Note: "      - {move: a.a2 -> b, why: w}\n",
			Variants: "variants:\n  - name: lax\n  - name: strict\n    set: {strict: \"true\"}\n"}),
		Entry("a parent with descendants reaches the changed child", scopeCase{Note: "      - {move: a -> b, descendants: true, why: w}\n",
			Variants: "variants:\n  - name: lax\n  - name: strict\n    set: {strict: \"true\"}\n",
			Want:     "the variants differ at a (parameter strict): say which variants the note holds in (variants: [...])"}),
		Entry("an unknown variant", scopeCase{Note: "      - {move: a.a1 -> b, variants: [nope], why: w}\n",
			Variants: "variants:\n  - name: lax\n  - name: strict\n    set: {strict: \"true\"}\n",
			Want:     `variants: unknown variant "nope" (the suite has: lax, strict)`}),
		Entry("variants: in a suite without variants", scopeCase{Note: "      - {move: a.a1 -> b, variants: [x], why: w}\n",
			Want: `variants: the suite declares no variants (unknown variant "x")`}),
	)

	It("excuses the states it names, their descendants only when it says so", func() {
		dir := GinkgoT().TempDir()
		m := scopeMachine + "      - {move: a -> b, why: w}\n      - {move: a.a2 -> b, descendants: true, why: w}\n"
		Expect(os.WriteFile(filepath.Join(dir, "machine.yaml"), []byte(m), 0o644)).To(Succeed())
		s, err := spec.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		k := eval.NewKnown(s.Machine)
		Expect(k.Match(&eval.Violation{Invariant: "table", Move: true, From: "a.a1", To: "b"})).To(BeNil())
		n := k.Match(&eval.Violation{Invariant: "table", Move: true, From: "a.a2", To: "b"})
		Expect(n).NotTo(BeNil())
		Expect(n.Descendants).To(BeTrue())
		Expect(k.Match(&eval.Violation{Invariant: "table", Move: true, From: "a", To: "b"})).NotTo(BeNil())
	})

	It("holds only in the variants it names", func() {
		dir := GinkgoT().TempDir()
		m := scopeMachine + "      - {move: a.a1 -> b, variants: [strict], why: w}\nvariants:\n  - name: lax\n  - name: strict\n    set: {strict: \"true\"}\n"
		Expect(os.WriteFile(filepath.Join(dir, "machine.yaml"), []byte(m), 0o644)).To(Succeed())
		s, err := spec.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		v := &eval.Violation{Invariant: "table", Move: true, From: "a.a1", To: "b"}
		Expect(eval.NewKnown(s.Variants[0].Machine).Match(v)).To(BeNil())
		Expect(eval.NewKnown(s.Variants[1].Machine).Match(v)).NotTo(BeNil())
	})
})
