package machinevalues_test

import (
	"github.com/expr-lang/expr/parser"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/machinevalues"
	"github.com/simctl/simctl/spec"
)

type constantsCase struct {
	guard string
	want  []machinevalues.Constant
}

var _ = Describe("the values a machine compares user input with", func() {
	answer := machinevalues.Input{Answer: true}
	DescribeTable("Constants says what each constant is compared with, and whether the test is negated",
		func(c constantsCase) {
			tree, err := parser.Parse(c.guard)
			Expect(err).NotTo(HaveOccurred())
			Expect(machinevalues.Constants(map[string]bool{"plan": true}, tree.Node)).To(Equal(c.want))
		},
		Entry("an answer, whole", constantsCase{`event.value == "1"`, []machinevalues.Constant{{Text: "1", Input: answer}}}),
		Entry("a word of the text, case folded", constantsCase{`lower(event.text) contains "transfer"`,
			[]machinevalues.Constant{{Text: "transfer", Part: true, Fold: true, Input: answer}}}),
		Entry("a slot the user fills, in a list", constantsCase{`plan in ["premium", "basic"]`,
			[]machinevalues.Constant{{Text: "premium", Input: machinevalues.Input{Slot: "plan"}}, {Text: "basic", Input: machinevalues.Input{Slot: "plan"}}}}),
		Entry("an entity, negated by !=", constantsCase{`event.entities.city != "Atlantis"`,
			[]machinevalues.Constant{{Text: "Atlantis", Not: true, Input: machinevalues.Input{Entity: "city"}}}}),
		Entry("negated twice: not of a !=", constantsCase{`not (event.value != "yes")`, []machinevalues.Constant{{Text: "yes", Input: answer}}}),
		Entry("not in", constantsCase{`event.value not in ["a"]`, []machinevalues.Constant{{Text: "a", Not: true, Input: answer}}}),
		Entry("a slot the machine sets is no user data", constantsCase{`step == "x"`, nil}),
	)

	It("SlotConstants gives each user slot the answers the guards take for it", func() {
		s, err := spec.LoadMachine("machine.yaml", []byte(`machine: plans
initial: asking
intents: [inform]
slots:
  plan: {}
flows:
  subscribe: [plan]
states:
  asking:
    waits: true
    on:
      inform: {target: checking, actions: [{fill: event.value}]}
  checking:
    always:
      - guard: plan in ["premium", "basic"]
        target: done
      - guard: plan != "gold"
        target: asking
  done: {final: true}
`))
		Expect(err).NotTo(HaveOccurred())
		Expect(machinevalues.SlotConstants(s.Def)).To(Equal(map[string][]string{"plan": {"premium", "basic"}}))
	})

	DescribeTable("RegexExample makes a short text the pattern matches",
		func(pattern, want string) {
			got, ok := machinevalues.RegexExample(pattern)
			Expect(ok).To(BeTrue())
			Expect(got).To(Equal(want))
		},
		Entry("a postcode", `[0-9]{5}`, "00000"),
		Entry("an anchored alternation", `^(?:ES|FR)-[0-9]+$`, "ES-0"),
	)
})
