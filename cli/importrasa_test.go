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

const (
	rasaFixture   = "../rasa/testdata/moneybank"
	calmFixture   = "../rasa/testdata/calmstack"
	repairFixture = "../rasa/testdata/calmrepair"
	questFixture  = "../rasa/testdata/calmquestion"
	tapeFixture   = "../rasa/testdata/calmcassette"
)

type calmCase struct {
	test  string
	notes []string
}

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

// importFixture imports a Rasa project into out; the import must succeed.
func importFixture(project, out string) {
	code, _, stderr := importRasa(project, "--out", out)
	ExpectWithOffset(1, code).To(Equal(cli.ExitOK), stderr)
}

// runImported runs the suite in out without a report, with args added;
// the run must pass. It returns what run printed.
func runImported(out string, args ...string) string {
	var stdout, stderr bytes.Buffer
	status := cli.Main(append([]string{"run", out, "--out", ""}, args...), &stdout, &stderr)
	ExpectWithOffset(1, status).To(Equal(cli.ExitOK), stdout.String()+stderr.String())
	return stdout.String()
}

// importAndRun imports a fixture project into out and runs its scenarios:
// it returns what run printed and the import's report (import.md).
func importAndRun(project, out string) (text, report string) {
	importFixture(project, out)
	data, err := os.ReadFile(filepath.Join(out, "import.md"))
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return runImported(out, "--explore-depth", "0"), string(data)
}

// expectImported checks that c's test case passed and the report names
// each of c's notes.
func expectImported(text, report string, c calmCase) {
	ExpectWithOffset(1, text).To(MatchRegexp(`PASS  `+c.test+` `), text)
	for _, n := range c.notes {
		ExpectWithOffset(1, report).To(ContainSubstring(n))
	}
}

// writeProject writes a Rasa project of a domain and a flows file.
func writeProject(proj, domain, flows string) {
	ExpectWithOffset(1, os.MkdirAll(filepath.Join(proj, "data"), 0o755)).To(Succeed())
	ExpectWithOffset(1, os.WriteFile(filepath.Join(proj, "domain.yml"), []byte(domain), 0o644)).To(Succeed())
	ExpectWithOffset(1, os.WriteFile(filepath.Join(proj, "data", "flows.yml"), []byte(flows), 0o644)).To(Succeed())
}

var _ = Describe("simctl import rasa", func() {
	var dir, out string

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		out = filepath.Join(dir, "suite")
	})

	It("imports the fixture project into a suite that runs: its 8 e2e cases pass, and a failing action ends its flow instead of looping", func() {
		code, stdout, stderr := importRasa(rasaFixture, "--out", out)
		Expect(code).To(Equal(cli.ExitOK), stderr)
		Expect(stdout).To(ContainSubstring("6 flows (21 steps), 11 default patterns, 8 scenarios from 8 e2e test cases"))
		Expect(stderr).To(HavePrefix("../rasa/testdata/moneybank/config.yml:6:11: not kept: the SingleStepLLMCommandGenerator (an LLM turning messages into commands) is not simulated"))
		Expect(stderr).To(ContainSubstring("interruptions.yml:39:13: not kept: test case lost_card_links_to_replacement: slot_was_set address is not checked: the turn's own message sets it, and its flow ends in the same turn and resets it"))
		report, err := os.ReadFile(filepath.Join(out, "import.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(report)).To(ContainSubstring("a scenario checks slots at the end of the turn"))

		var runOut, runErr bytes.Buffer
		status := cli.Main([]string{"run", out, "--out", "", "--generate", "50", "--explore-depth", "3"}, &runOut, &runErr)
		Expect(status).To(Equal(cli.ExitOK), runOut.String()+runErr.String())
		text := runOut.String()
		for _, name := range []string{"balance_interrupts_transfer", "chitchat_and_handoff", "lost_card_links_to_replacement", "transfer_cancelled",
			"transfer_correction", "transfer_happy_path", "transfer_insufficient_funds", "transfer_rejects_zero"} {
			Expect(text).To(MatchRegexp(`PASS  `+name+` `), text)
		}
		// Generated users make actions fail (issue 20): the failing
		// action's flow ends before pattern_internal_error, so nothing
		// runs it again in the same turn. Generated users pursue the
		// project's flows and all cooperative ones complete them (issue
		// 26: a finding must replay).
		Expect(text).NotTo(ContainSubstring("runtime_error"))
		Expect(text).To(MatchRegexp(`generated( \[[a-z_]+\])? +50 conversations: success [0-9.]+% \(flow completed; cooperative users 100.0% of [0-9]+\)`))
		Expect(text).To(ContainSubstring("8 passed, 0 failed"))
		Expect(text).To(ContainSubstring(", 0 violating\n"))

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
	})

	// calmstack is written for these specs: each test case exercises one
	// construct of a real CALM project (see its e2e_tests/pay.yml).
	Describe("the calmstack fixture", func() {
		var text, report string

		BeforeEach(func() { text, report = importAndRun(calmFixture, out) })

		DescribeTable("each construct imports and its test case passes",
			func(c calmCase) { expectImported(text, report, c) },
			Entry("the LLM router's slot is named and left out; step metadata such as assertion_order_enabled is listed", calmCase{test: "pay_happy",
				notes: []string{"slot_was_set route_session_to_calm is not checked: it is the slot of Rasa's router", "step key assertion_order_enabled is not imported"}}),
			Entry("an nlu_trigger intent (/pay_intent) starts its flow; a test_case::action stub is that test's (a machine variant)", calmCase{test: "pay_fails"}),
			Entry("pattern_correction overridden to ask confirm_slot_correction, with two flow_started in one step", calmCase{test: "pay_correction_confirmed",
				notes: []string{"flow_started is not checked"}}),
			Entry("an interruption resumes through pattern_continue_interrupted", calmCase{test: "pay_interrupted_by_balance"}),
			Entry("a cancellation, then pattern_completed", calmCase{test: "pay_cancelled"}),
			Entry("a knowledge question and chitchat (a default response) at a question", calmCase{test: "knowledge_and_chitchat_at_a_question"}),
			Entry("recorded LLM replies (llm_mock_server/collection.json) are the parse of the messages", calmCase{test: "recorded_replies"}),
			Entry("a custom action's unconditional Python code stands for it; initial_value holds from the start", calmCase{test: "balance_from_code"}),
			Entry("a slot's validation rejections run in a called flow's collect", calmCase{test: "note_rejected_in_called_flow"}),
			Entry("button payloads are named", calmCase{test: "pay_happy",
				notes: []string{"buttons is not imported"}}),
		)

		It("leaves the domain slots nothing uses out of the machine", func() {
			machine, err := os.ReadFile(filepath.Join(out, "machine.yaml"))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(machine)).NotTo(ContainSubstring("unused_note"))
			Expect(string(machine)).NotTo(ContainSubstring("route_session_to_calm"))
		})

		It("writes each test turn as the command its test implies, per question", func() {
			sc, err := os.ReadFile(filepath.Join(out, "pay_fails.scenario.yaml"))
			Expect(err).NotTo(HaveOccurred())
			// "5" answers the amount question though the test does not
			// show the question: the flow asks it next.
			Expect(string(sc)).To(ContainSubstring("intent: set_slot\n      text: \"5\"\n      value: \"5\""))
			Expect(string(sc)).To(ContainSubstring("rasa_stubs: stubs_pay_fails"))
		})
	})

	// calmrepair is written for these specs: each test case exercises one
	// part of Rasa's dialogue stack (see its e2e_tests/repair.yml).
	Describe("the calmrepair fixture", func() {
		var text, report string

		BeforeEach(func() { text, report = importAndRun(repairFixture, out) })

		DescribeTable("each part of the stack imports and its test case passes",
			func(c calmCase) { expectImported(text, report, c) },
			Entry("two flows started by one message: the first runs, then the second", calmCase{test: "two_starts_in_one_message"}),
			Entry("a cancellation and a start in one message: pattern_cancel_flow, the flow, pattern_completed", calmCase{test: "cancel_and_start_in_one_message"}),
			Entry("an answer to the interrupted flow's question while pattern_continue_interrupted asks", calmCase{test: "answer_while_asked_to_continue"}),
			Entry("a correction of an ask_before_filling slot only resets (context.is_reset_only)", calmCase{test: "reset_only_correction"}),
			Entry("a correction of two slots, confirmed", calmCase{test: "two_slots_corrected"}),
			Entry("a caller's slot corrected while the called flow asks", calmCase{test: "caller_slot_corrected_while_called_flow_asks"}),
			Entry("a called flow's slot taken back goes back to the call", calmCase{test: "called_slot_reset"}),
			Entry("a cancellation while a called flow asks cancels its caller", calmCase{test: "cancel_while_called_flow_asks"}),
			Entry("slots given up front are validated, the last first", calmCase{test: "upfront_values_validated_last_first"}),
			Entry("a validated slot an answer carries is validated at once", calmCase{test: "answer_carries_a_validated_slot"}),
			Entry("an e2e fixture sets its slot before the first turn; the router's slot is named", calmCase{test: "fixture_sets_a_slot",
				notes: []string{"fixture slot route_session_to_calm is not kept"}}),
			Entry("a message over the input limit starts pattern_internal_error", calmCase{test: "message_too_long"}),
			Entry("pattern_cannot_handle at a question asks it again", calmCase{test: "cannot_handle_at_a_question"}),
			Entry("a pre-CALM rule (an intent, then actions) answers its intent; a rule with a condition is named", calmCase{test: "pre_calm_rule_answers",
				notes: []string{"rule only in a form of the NLU-based (pre-CALM) pipeline is not imported: it has condition"}}),
		)

		It("pins a fixture's test to its variant and marks both commands of one message", func() {
			sc, err := os.ReadFile(filepath.Join(out, "fixture_sets_a_slot.scenario.yaml"))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(sc)).To(ContainSubstring("rasa_stubs: fixtures_fixture_sets_a_slot"))
			sc, err = os.ReadFile(filepath.Join(out, "two_starts_in_one_message.scenario.yaml"))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(sc)).To(ContainSubstring("flow: history\n        next_flow: pay"))
		})
	})

	Describe("the calmquestion fixture: each message read at the question asked", func() {
		var nlu string

		BeforeEach(func() {
			importFixture(questFixture, out)
			data, err := os.ReadFile(filepath.Join(out, "nlu.yaml"))
			Expect(err).NotTo(HaveOccurred())
			nlu = string(data)
		})

		It("passes its e2e cases: a start answers the questions it skips (a number for a text slot the tests set to numbers, a value before the flow's response), an answer after a rejection is the rejected slot's, a custom action refusing one value and accepting another is stubbed from the branches the test shows", func() {
			text := runImported(out, "--explore-depth", "0")
			Expect(text).To(ContainSubstring("7 passed, 0 failed"))
			Expect(text).To(MatchRegexp(`PASS  too_much_then_less \[stubs_too_much_then_less\]`))
			machine, err := os.ReadFile(filepath.Join(out, "machine.yaml"))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(machine)).To(ContainSubstring(`enough: 'rasa_stubs == "stubs_too_much_then_less" ? filled(sum) and number(sum) < 900 : (true)'`))
			sc, err := os.ReadFile(filepath.Join(out, "start_gives_payee_and_sum.scenario.yaml"))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(sc)).To(ContainSubstring(`sum: "40"`))
		})

		DescribeTable("reads what a test shows of a custom action or a start, where the test does not say it",
			func(test, note string) {
				Expect(runImported(out, "--explore-depth", "0")).To(MatchRegexp(`PASS  ` + test + ` `))
				report, err := os.ReadFile(filepath.Join(out, "import.md"))
				Expect(err).NotTo(HaveOccurred())
				Expect(string(report)).To(ContainSubstring(note))
			},
			Entry("an action no test stubs gets the result its branch shows, per test", "snack_when_closed",
				"check_open is stubbed for this test as open_now = false, from the branch its turns show it took"),
			Entry("a first message the test shows nothing of started the flow a later turn shows, and answered the questions the turns between cannot have", "silent_start",
				"a step with only next is read as noop: true"),
		)

		It("writes nlu.yaml with answers a simulated user can give: every value given, no start phrase as an answer, no value a test shows rejected", func() {
			// Ann from a start, Bo from an answer that is the value itself,
			// Cy from a start the test shows nothing of; not "me", which
			// the test shows rejected.
			Expect(nlu).To(ContainSubstring("  payee:\n    slots: [payee]\n    values:\n      Ann: []\n      Bo: []\n      Cy: []\n"))
			Expect(nlu).NotTo(ContainSubstring("me: []"))
			// "ham" is no topping: the test shows Rasa's rejection of it.
			Expect(nlu).To(ContainSubstring("  topping:\n    slots: [topping]\n    values:\n      olives: []\n      cheese: []\n"))
			Expect(nlu).To(ContainSubstring(`"40": []`))
		})

		It("takes a start of the flow asking, or a correction of the empty slot asked, as its answer; generated users finish every flow", func() {
			scenario := `name: per_question
turns:
  - user: pay a friend
    expect: {bot: "Who should get it?"}
  - user: pay 40 to Ann now
    expect: {bot: "How much should I send?", slots: {payee: Ann}}
  - user: actually 40
    expect: {bot: "Send 40 to Ann?", slots: {sum: "40"}}
  - user: "yes"
    expect: {bot: "Paid.\nIs there anything else I can help you with?"}
`
			Expect(os.WriteFile(filepath.Join(out, "per_question.scenario.yaml"), []byte(scenario), 0o644)).To(Succeed())
			text := runImported(out, "--generate", "200", "--explore-depth", "3")
			Expect(text).To(MatchRegexp(`PASS  per_question `), text)
			Expect(text).To(MatchRegexp(`generated \[default\] +200 conversations: success [0-9.]+% \(flow completed; cooperative users 100.0% of [0-9]+\)`), text)
			Expect(text).To(MatchRegexp(`generated \[stubs_snack_when_closed\] +200 conversations: success [0-9.]+% \(flow completed; cooperative users 100.0% of [0-9]+\)`), text)
			Expect(text).To(MatchRegexp(`generated \[stubs_too_much_then_less\] +200 conversations: success [0-9.]+% \(flow completed; cooperative users 100.0% of [0-9]+\)`), text)
			Expect(text).To(ContainSubstring(", 0 violating\n"))
		})
	})

	Describe("the calmcassette fixture: recorded LLM replies read as a cassette", func() {
		BeforeEach(func() {
			importFixture(tapeFixture, out)
		})

		It("says the recorded turns and keeps each reply, as the NLU's parse, for the state it was said in", func() {
			sc, err := os.ReadFile(filepath.Join(out, "recorded_drink.scenario.yaml"))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(sc)).To(ContainSubstring("  - user: a large coffee\n"))
			Expect(string(sc)).NotTo(ContainSubstring("event:"))
			tape, err := os.ReadFile(filepath.Join(out, "llm.cassette.jsonl"))
			Expect(err).NotTo(HaveOccurred())
			// "no" is mapped to the slot asked without the NLU, as in any
			// cassette replay: it needs no record.
			Expect(strings.Split(strings.TrimSpace(string(tape)), "\n")).To(Equal([]string{
				`{"state":"session.idle","text":"a large coffee","intent":{"name":"start_flow","confidence":1},"entities":[{"entity":"size","value":"large","start":0,"end":0,"extractor":"llm_command_generator"},{"entity":"flow","value":"order_drink","start":0,"end":0,"extractor":"llm_command_generator"}],"latency_ms":0}`,
				`{"state":"session.order_drink.step_2_collect_wait","text":"is it raining","intent":{"name":"chitchat","confidence":1},"entities":[],"latency_ms":0}`,
			}))
			Expect(runImported(out, "--explore-depth", "0")).To(MatchRegexp(`PASS  recorded_drink `))
		})

		It("replays it strictly: a reply taken out fails the scenario, unless --nlu-fallback stub", func() {
			file := filepath.Join(out, "llm.cassette.jsonl")
			tape, err := os.ReadFile(file)
			Expect(err).NotTo(HaveOccurred())
			first := strings.SplitAfter(string(tape), "\n")[0]
			Expect(os.WriteFile(file, []byte(first), 0o644)).To(Succeed())
			var runOut, runErr bytes.Buffer
			status := cli.Main([]string{"run", out, "--out", "", "--explore-depth", "0"}, &runOut, &runErr)
			Expect(status).To(Equal(cli.ExitFailed))
			Expect(runOut.String()).To(ContainSubstring(`no cassette record for "is it raining" in state session.order_drink.step_2_collect_wait`))
			runOut.Reset()
			status = cli.Main([]string{"run", out, "--out", "", "--explore-depth", "0", "--nlu-fallback", "stub"}, &runOut, &runErr)
			Expect(status).To(Equal(cli.ExitOK), runOut.String()+runErr.String())
		})

		It("sends what generated users say beyond the recordings to the stub rules (nlu.yaml's cassette_fallback), unless --nlu-fallback none", func() {
			nlu, err := os.ReadFile(filepath.Join(out, "nlu.yaml"))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(nlu)).To(ContainSubstring("\ncassette_fallback: generated\n"))
			var runOut, runErr bytes.Buffer
			args := []string{"run", out, "--out", "", "--explore-depth", "0", "--generate", "20", "--only", "generated"}
			status := cli.Main(args, &runOut, &runErr)
			Expect(status).To(Equal(cli.ExitOK), runOut.String()+runErr.String())
			Expect(runOut.String()).To(ContainSubstring(", 0 violating\n"))
			runOut.Reset()
			status = cli.Main(append(args, "--nlu-fallback", "none"), &runOut, &runErr)
			Expect(status).To(Equal(cli.ExitFailed))
			Expect(runOut.String()).To(ContainSubstring("no cassette record for"))
		})
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
		writeProject(proj, rasaDomain, rasaFlows)
		importFixture(proj, out)
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
			domain, flows := rasaDomain, rasaFlows
			if c.domain != "" {
				domain = c.domain
			}
			if c.flows != "" {
				flows = c.flows
			}
			writeProject(proj, domain, flows)
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
