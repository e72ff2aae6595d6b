package spec_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/spec"
)

// exprLintCase is an invariant's expression and the problem lint must
// report for it ("": none).
type exprLintCase struct {
	Expr string
	Want string
}

const exprLintMachine = `machine: lint
intents: [go]
counters:
  n: {}
initial: flow
states:
  flow:
    initial: confirming
    states:
      confirming:
        on:
          go: done
  done:
    final: true
invariants:
  - name: x
    never: '`

var _ = Describe("lint reads expressions", func() {
	DescribeTable("state names and constant arithmetic",
		func(c exprLintCase) {
			data := []byte(exprLintMachine + c.Expr + "'\n")
			var msgs []string
			for _, d := range spec.Diagnostics("machine.yaml", data) {
				msgs = append(msgs, d.Error())
			}
			if c.Want == "" {
				Expect(msgs).To(BeEmpty())
				return
			}
			Expect(msgs).To(ConsistOf(c.Want))
		},
		Entry("a state's full path", exprLintCase{Expr: `state == "flow.confirming"`}),
		Entry("a misspelled state", exprLintCase{Expr: `state == "confirmin"`,
			Want: `machine.yaml:17:22: in expression "state == \"confirmin\"": no state "confirmin" (state is the active leaf's full path)`}),
		Entry("a short name, which state never equals", exprLintCase{Expr: `state != "confirming"`,
			Want: `machine.yaml:17:22: in expression "state != \"confirming\"": state is the active leaf's full path: "confirming" never equals it (write "flow.confirming")`}),
		Entry("a name on the left, in a list", exprLintCase{Expr: `state in ["done", "flow.confirmd"]`,
			Want: `machine.yaml:17:31: in expression "state in [\"done\", \"flow.confirmd\"]": no state "flow.confirmd" (state is the active leaf's full path)`}),
		Entry("division by zero", exprLintCase{Expr: `n / 0 > 1`,
			Want: `machine.yaml:17:17: in expression "n / 0 > 1": division by zero: the divisor is 0 whatever the conversation`}),
		Entry("1/0", exprLintCase{Expr: `1/0 > 1`,
			Want: `machine.yaml:17:15: in expression "1/0 > 1": division by zero: the divisor is 0 whatever the conversation`}),
		Entry("a divisor that folds to zero", exprLintCase{Expr: `n % (2 - 2) == 1`,
			Want: `machine.yaml:17:20: in expression "n % (2 - 2) == 1": division by zero: the divisor 2 - 2 is 0 whatever the conversation`}),
		Entry("a constant that is no number", exprLintCase{Expr: `number("abc") > 1`,
			Want: `machine.yaml:17:13: in expression "number(\"abc\") > 1": number("abc") is never a number`}),
	)
})
