package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

const rasaFixture = "../rasa/testdata/moneybank"

// A small valid Rasa project that each bad-input case breaks in one place.
const rasaDomain = `slots:
  amount: {type: float}
  ok: {type: bool}
responses:
  utter_ask_amount:
    - text: "How much?"
  utter_ask_ok:
    - text: "Sure?"
  utter_done:
    - text: "Done."
`

const rasaFlows = `flows:
  pay:
    description: Pay a bill.
    steps:
      - collect: amount
        next:
          - if: slots.amount > 10
            then: confirm
          - else: END
      - id: confirm
        collect: ok
      - action: utter_done
`

type rasaCase struct {
	domain, flows, tests string
	want                 string
}

func importRasa(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Main(append([]string{"import", "rasa"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

var _ = Describe("simctl import rasa", func() {
	var dir, out string

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		out = filepath.Join(dir, "suite")
	})

	It("imports the fixture project into a suite that runs: 7 of its 8 e2e cases pass, the eighth fails for the reason import.md names", func() {
		code, stdout, stderr := importRasa(rasaFixture, "--out", out)
		Expect(code).To(Equal(cli.ExitOK), stderr)
		Expect(stdout).To(ContainSubstring("6 flows (21 steps), 9 default patterns, 8 scenarios from 8 e2e test cases"))
		Expect(stderr).To(Equal("../rasa/testdata/moneybank/config.yml:6:11: not kept: the SingleStepLLMCommandGenerator (an LLM turning messages into commands) is not simulated: nlu.yaml's stub rules stand in for it\n"))
		report, err := os.ReadFile(filepath.Join(out, "import.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(report)).To(ContainSubstring("a scenario checks slots at the end of the turn"))

		var runOut, runErr bytes.Buffer
		// A bounded search: explored completely (simctl run's default), the
		// imported suite passes a million configurations.
		status := cli.Main([]string{"run", out, "--out", "", "--generate", "50", "--explore-depth", "3"}, &runOut, &runErr)
		Expect(status).To(Equal(cli.ExitFailed), runErr.String())
		text := runOut.String()
		for _, name := range []string{"balance_interrupts_transfer", "chitchat_and_handoff", "transfer_cancelled", "transfer_correction",
			"transfer_happy_path", "transfer_insufficient_funds", "transfer_rejects_zero"} {
			Expect(text).To(MatchRegexp(`PASS  `+name+` `), text)
		}
		Expect(text).To(ContainSubstring("FAIL  lost_card_links_to_replacement"))
		Expect(text).To(ContainSubstring(`turn 3: slot address: got empty, want "12 Main Street"`))
		// Generated users also make a turn's actions fail (issue 20): when
		// check_balance fails, pattern_internal_error resumes the flow at
		// check_balance, which fails again in the same turn, for ever.
		Expect(text).To(ContainSubstring("FAIL  generated breaks runtime_error"))
		Expect(text).To(ContainSubstring("external actions kept invoking each other past 32 levels"))
		Expect(text).To(ContainSubstring("7 passed, 1 failed; 1 finding of generated conversations"))
		Expect(text).To(ContainSubstring("1 violating (breaking runtime_error)"))

		var exOut, exErr bytes.Buffer
		Expect(cli.Main([]string{"explore", out, "--depth", "4"}, &exOut, &exErr)).To(Equal(cli.ExitOK), exOut.String()+exErr.String())

		// The report lists the flow steps the project's own e2e tests
		// never reach, though exploration does.
		reportDir := filepath.Join(GinkgoT().TempDir(), "report")
		runOut.Reset()
		runErr.Reset()
		cli.Main([]string{"run", out, "--out", reportDir, "--explore-depth", "3", "--quiet"}, &runOut, &runErr)
		html, err := os.ReadFile(filepath.Join(reportDir, "report.html"))
		Expect(err).NotTo(HaveOccurred(), runErr.String())
		Expect(string(html)).To(MatchRegexp(`\d+ states of \d+ entered by generated or explored conversations but by no scripted scenario`))
		Expect(string(html)).To(ContainSubstring("session.verify_identity.fix_pin"))
	})

	It("gives the same bytes on a second import, and keeps an edited nlu.yaml", func() {
		code, _, _ := importRasa(rasaFixture, "--out", out)
		Expect(code).To(Equal(cli.ExitOK))
		first, _ := os.ReadFile(filepath.Join(out, "machine.yaml"))
		code, _, stderr := importRasa(rasaFixture, "--out", out)
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stderr).NotTo(ContainSubstring("nlu.yaml: kept:"))
		second, _ := os.ReadFile(filepath.Join(out, "machine.yaml"))
		Expect(second).To(Equal(first))

		nlu := filepath.Join(out, "nlu.yaml")
		data, _ := os.ReadFile(nlu)
		edited := strings.Replace(string(data), "tell me a joke", "tell me a story", 1)
		Expect(os.WriteFile(nlu, []byte(edited), 0o644)).To(Succeed())
		code, _, stderr = importRasa(rasaFixture, "--out", out)
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stderr).To(ContainSubstring("nlu.yaml: kept: you edited it since the last import"))
		kept, _ := os.ReadFile(nlu)
		Expect(string(kept)).To(Equal(edited))
		fresh, _ := os.ReadFile(filepath.Join(out, "nlu.generated.yaml"))
		Expect(fresh).To(Equal(data))

		code, _, _ = importRasa(rasaFixture, "--out", out, "--force")
		Expect(code).To(Equal(cli.ExitOK))
		forced, _ := os.ReadFile(nlu)
		Expect(forced).To(Equal(data))
	})

	It("imports the small project the bad-input cases break", func() {
		proj := filepath.Join(dir, "project")
		Expect(os.MkdirAll(filepath.Join(proj, "data"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(proj, "domain.yml"), []byte(rasaDomain), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(proj, "data", "flows.yml"), []byte(rasaFlows), 0o644)).To(Succeed())
		code, _, stderr := importRasa(proj, "--out", out)
		Expect(code).To(Equal(cli.ExitOK), stderr)
	})

	It("refuses a folder holding a machine.yaml it did not write, unless --force", func() {
		Expect(os.MkdirAll(out, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(out, "machine.yaml"), []byte("machine: mine\n"), 0o644)).To(Succeed())
		code, _, stderr := importRasa(rasaFixture, "--out", out)
		Expect(code).To(Equal(cli.ExitBadInput))
		Expect(stderr).To(ContainSubstring("holds a machine.yaml that simctl import rasa did not write"))
		code, _, _ = importRasa(rasaFixture, "--out", out, "--force")
		Expect(code).To(Equal(cli.ExitOK))
	})

	DescribeTable("bad Rasa input gives one line naming file:line:col, exit status 2, and writes nothing",
		func(c rasaCase) {
			proj := filepath.Join(dir, "project")
			Expect(os.MkdirAll(filepath.Join(proj, "data"), 0o755)).To(Succeed())
			domain, flows := rasaDomain, rasaFlows
			if c.domain != "" {
				domain = c.domain
			}
			if c.flows != "" {
				flows = c.flows
			}
			Expect(os.WriteFile(filepath.Join(proj, "domain.yml"), []byte(domain), 0o644)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(proj, "data", "flows.yml"), []byte(flows), 0o644)).To(Succeed())
			if c.tests != "" {
				Expect(os.MkdirAll(filepath.Join(proj, "e2e_tests"), 0o755)).To(Succeed())
				Expect(os.WriteFile(filepath.Join(proj, "e2e_tests", "t.yml"), []byte(c.tests), 0o644)).To(Succeed())
			}
			code, _, stderr := importRasa(proj, "--out", out)
			Expect(code).To(Equal(cli.ExitBadInput), stderr)
			Expect(strings.ReplaceAll(stderr, proj, "P")).To(Equal(c.want + "\n"))
			_, err := os.Stat(out)
			Expect(os.IsNotExist(err)).To(BeTrue(), "the suite folder must not be created")
		},
		Entry("broken YAML", rasaCase{flows: "flows:\n  pay: [\n",
			want: "simctl: P/data/flows.yml:3:1: invalid YAML: did not find expected node content"}),
		Entry("an unknown step kind", rasaCase{flows: strings.Replace(rasaFlows, "- action: utter_done", "- ask: utter_done", 1),
			want: `simctl: P/data/flows.yml:12:9: unknown step kind "ask" (expected one of: collect, action, set_slots, link, call, noop)`}),
		Entry("next to a missing id", rasaCase{flows: strings.Replace(rasaFlows, "then: confirm", "then: confirmation", 1),
			want: `simctl: P/data/flows.yml:8:19: next goes to step "confirmation", which flow pay does not have (its steps: 1_collect, 2_action, confirm)`}),
		Entry("a condition that cannot be translated", rasaCase{flows: strings.Replace(rasaFlows, "slots.amount > 10", `'{"a", "b"} contains slots.amount'`, 1),
			want: `simctl: P/data/flows.yml:7:18: condition "{\"a\", \"b\"} contains slots.amount": sets ({...}) have no counterpart in simctl expressions`}),
		Entry("a condition comparing a number slot with text", rasaCase{flows: strings.Replace(rasaFlows, "slots.amount > 10", `slots.amount = "ten"`, 1),
			want: `simctl: P/data/flows.yml:7:30: condition "slots.amount = \"ten\"": compares a number with text`}),
		Entry("a response that is missing", rasaCase{flows: strings.Replace(rasaFlows, "- action: utter_done", "- action: utter_finished", 1),
			want: `simctl: P/data/flows.yml:12:9: action utter_finished: response utter_finished is not in the domain`}),
		Entry("a collect step without its question", rasaCase{domain: strings.Replace(rasaDomain, "utter_ask_ok", "utter_ask_okay", 1),
			want: `simctl: P/data/flows.yml:10:9: collect ok: response utter_ask_ok is not in the domain (a collect step asks with utter_ask_<slot>, its utter, or action_ask_<slot>)`}),
		Entry("a test step that is not a mapping", rasaCase{tests: "test_cases:\n  - test_case: t\n    steps:\n      - [hi]\n",
			want: `simctl: P/e2e_tests/t.yml:4:9: expected a test step (a mapping), got a list`}),
	)
})
