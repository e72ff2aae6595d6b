package generate_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// suiteOf writes a suite's files into a fresh folder and loads it.
func suiteOf(files map[string]string) *spec.Suite {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	for name, text := range files {
		Expect(os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)).To(Succeed())
	}
	return load(dir)
}

// transfer is the shape of a Rasa CALM money transfer: a funds pre-check
// completes before the confirmation, and an amount above the balance is
// asked for again, for ever (the bug: no way out but to change the amount).
const transfer = `
machine: transfer
initial: idle
intents: [transfer, inform, affirm]
slots:
  recipient: {}
  amount: {}
  funds_ok: {type: bool}
flows:
  transfer: [recipient, amount]
actions:
  check_funds:
    never_fails: true
    outputs: {funds_ok: 'is_number(amount) and number(amount) <= 4200'}
  do_transfer: {never_fails: true}
states:
  idle:
    waits: true
    on:
      transfer: {target: asking, actions: [{push: transfer}, {ask: next}]}
  asking:
    waits: true
    direct: inform
    on:
      inform: {target: routing, actions: [{fill: event.value}]}
  routing:
    always:
      - guard: remaining() > 0
        target: asking
        actions: [{ask: next}]
      - target: checking
  checking:
    entry: [{invoke: check_funds}]
    on:
      done:check_funds:
        - guard: funds_ok
          target: confirming
        - target: asking
          actions: [{clear: amount}, {ask: amount}, {say: "Insufficient funds: another amount?"}]
  confirming:
    waits: true
    on:
      affirm: transferring
  transferring:
    entry: [{invoke: do_transfer}]
    on:
      done:do_transfer: {target: idle, actions: [pop, reset_context]}
`

func transferUsers(amount string) string {
	return `
goals:
  - intent: transfer
    slots:
      recipient: [Ann]
      amount: [` + amount + `]
phrases:
  affirm: affirm
`
}

var _ = Describe("the default success of a generated conversation", func() {
	It("is the goal's flow completed, not a pre-check done early", func() {
		s := suiteOf(map[string]string{spec.MachineFile: transfer, "users.yaml": transferUsers("5000")})
		met, _, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 100})
		Expect(err).NotTo(HaveOccurred())
		// Every user wants more than the balance: the check completes,
		// the transfer never does.
		Expect(met.Successes).To(BeZero())
		Expect(met.SuccessBy).To(Equal(generate.SuccessCompleted))
	})

	It("counts a transfer done and the conversation back at idle", func() {
		s := suiteOf(map[string]string{spec.MachineFile: transfer, "users.yaml": transferUsers("100")})
		met, fails, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 200})
		Expect(err).NotTo(HaveOccurred())
		Expect(fails).To(BeEmpty())
		Expect(met.Successes).To(BeNumerically(">", 100))
	})

	It("is the users.yaml condition where a goal gives one, and the output says so", func() {
		s := suiteOf(map[string]string{spec.MachineFile: transfer, "users.yaml": strings.Replace(transferUsers("100"), "  - intent: transfer\n", "  - intent: transfer\n    success: filled(amount)\n", 1)})
		met, _, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 50})
		Expect(err).NotTo(HaveOccurred())
		Expect(met.SuccessBy).To(Equal(generate.SuccessCondition))
	})
})

var _ = Describe("bounded liveness", func() {
	It("finds an endless retry loop at default settings, and shrinks it", func() {
		s := suiteOf(map[string]string{spec.MachineFile: transfer, "users.yaml": transferUsers("5000")})
		// Default max_turns (50) and default behaviour.
		_, fails, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 20})
		Expect(err).NotTo(HaveOccurred())
		var live *generate.Failure
		for i := range fails {
			if fails[i].Invariant == eval.Liveness {
				live = &fails[i]
			}
		}
		Expect(live).NotTo(BeNil(), "got %d failures", len(fails))
		By("naming the cycle it goes round, and replaying to it")
		Expect(live.Violation.Key()).To(Equal("liveness: in {asking}"), "the state it rests in after each turn of the loop")
		Expect(live.Replays).To(BeTrue())
		Expect(string(live.Scenario)).To(ContainSubstring("\nliveness: true\n"))
	})
})

var _ = Describe("a numbered menu", func() {
	const menu = `
machine: menu
initial: idle
intents: [start, answer]
states:
  idle:
    waits: true
    on: {start: menu}
  menu:
    waits: true
    on:
      answer:
        - guard: event.value == "1"
          target: balance
        - guard: event.value == "2"
          target: idle
        - target: menu
          actions: [{say: "Please answer 1 or 2"}]
  balance:
    waits: true
    on:
      answer:
        - guard: lower(event.text) contains "back"
          target: done
        - target: balance
  done: {final: true}
`
	It("is answered by derived users with the choices its guards test, so they succeed and cooperate to an end", func() {
		s := suiteOf(map[string]string{spec.MachineFile: menu})
		met, fails, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 200})
		Expect(err).NotTo(HaveOccurred())
		Expect(fails).To(BeEmpty())
		Expect(met.Successes).To(BeNumerically(">", 150))
	})
})

var _ = Describe("action failures in generated conversations", func() {
	It("are drawn with users.yaml's probability, and a failure nobody handles is found and replayed", func() {
		s := suiteOf(map[string]string{spec.MachineFile: `
machine: lookup
initial: idle
intents: [order, affirm]
actions:
  check_stock: {}
states:
  idle:
    waits: true
    on: {order: checking}
  checking:
    waits: true
    entry: [{invoke: check_stock}]
    on:
      done:check_stock: confirming
  confirming:
    waits: true
    on: {affirm: ordered}
  ordered: {final: true}
`, "users.yaml": "behaviour: {action_failure: 0.3}\n"})
		dir := GinkgoT().TempDir()
		_, fails, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 50, FailuresDir: dir})
		Expect(err).NotTo(HaveOccurred())
		var f *generate.Failure
		for i := range fails {
			if fails[i].Invariant == eval.UnhandledFailure {
				f = &fails[i]
			}
		}
		Expect(f).NotTo(BeNil())
		Expect(string(f.Scenario)).To(ContainSubstring("fail: [check_stock]"))
		file := filepath.Join(dir, f.Name+".scenario.yaml")
		Expect(os.WriteFile(file, f.Scenario, 0o644)).To(Succeed())
		rs, sc, err := spec.LoadScenarioFile(file)
		Expect(err).NotTo(HaveOccurred())
		r := sim.RunScenario(rs, sc, sim.Options{})
		Expect(r.Violations).To(ContainElement(HaveField("Invariant", eval.UnhandledFailure)))
	})
})
