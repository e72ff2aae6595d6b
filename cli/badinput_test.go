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

// validMachine is a small, correct suite that each bad-input case breaks in
// one place.
const validMachine = `machine: tiny
initial: idle
intents: [hello, bye]
slots:
  name: {prompt: "Who are you?"}
counters:
  retries: {limit: 2}
states:
  idle:
    waits: true
    on:
      hello: {target: talking, actions: [{say: "Hi"}]}
  talking:
    waits: true
    on:
      bye: done
  done:
    final: true
`

const validScenario = `name: greet
tags: [happy]
turns:
  - user: hello
    expect: {state: talking, bot: Hi}
  - user: bye
    expect: {state: done}
`

// goodCassette is a valid cassette line for validMachine.
const goodCassette = `{"state":"idle","text":"hello","intent":{"name":"hello","confidence":1},"entities":[],"latency_ms":12}` + "\n"

// badCase is one malformed input: the files of a suite folder (SUITE in
// args), the arguments, and the exact error line simctl must print.
type badCase struct {
	files map[string]string
	args  []string
	want  string
}

// suite returns the valid suite with some files replaced (an empty value
// removes the file).
func suite(over map[string]string) map[string]string {
	files := map[string]string{"machine.yaml": validMachine, "greet.scenario.yaml": validScenario}
	for k, v := range over {
		if v == "" {
			delete(files, k)
		} else {
			files[k] = v
		}
	}
	return files
}

func replaceIn(s, old, new string) string {
	if !strings.Contains(s, old) {
		Fail("fixture does not contain " + old)
	}
	return strings.Replace(s, old, new, 1)
}

// expectRejected writes c's suite under dir, runs simctl run on it (args
// default to the suite folder), and checks the one-line error, exit status
// 2, and that no output folder was created.
func expectRejected(dir, out string, c badCase) {
	suiteDir := filepath.Join(dir, "suite")
	Expect(os.MkdirAll(suiteDir, 0o755)).To(Succeed())
	for name, body := range c.files {
		Expect(os.WriteFile(filepath.Join(suiteDir, name), []byte(body), 0o644)).To(Succeed())
	}
	if c.args == nil {
		c.args = []string{"SUITE"}
	}
	args := []string{"run"}
	for _, a := range c.args {
		args = append(args, strings.ReplaceAll(a, "SUITE", suiteDir))
	}
	args = append(args, "--out", out)
	var stdout, stderr bytes.Buffer
	code := cli.Main(args, &stdout, &stderr)
	Expect(code).To(Equal(cli.ExitBadInput), "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
	got := strings.ReplaceAll(stderr.String(), suiteDir, "SUITE")
	if os.Getenv("SHOW") != "" {
		GinkgoWriter.Print(got)
	}
	Expect(got).To(Equal(c.want + "\n"))
	_, err := os.Stat(out)
	Expect(os.IsNotExist(err)).To(BeTrue(), "the output folder must not be created")
}

var _ = Describe("bad input", func() {
	var dir, out string

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		out = filepath.Join(dir, "out")
	})

	DescribeTable("gives one line naming file:line and exit status 2, and writes nothing",
		func(c badCase) { expectRejected(dir, out, c) },
		Entry("broken YAML", badCase{
			files: suite(map[string]string{"machine.yaml": "machine: tiny\nstates: [idle\n"}),
			args:  []string{"SUITE"},
			want:  "simctl: SUITE/machine.yaml:2:1: invalid YAML: did not find expected ',' or ']'",
		}),
		Entry("unknown field (a typo of target)", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "{target: talking", "{tagret: talking")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:12:15: unknown field "tagret" (expected one of: target, guard, actions, description, history, type)`,
		}),
		Entry("unknown target state", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "bye: done", "bye: gone")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:16:12: transition target: unknown state "gone" (states: done, idle, talking)`,
		}),
		Entry("duplicate state", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + "  talking:\n    final: true\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:19:3: duplicate key "talking"`,
		}),
		Entry("an escape that is no intent", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "intents: [hello, bye]", "intents: [hello, bye]\nescapes: [cancel]")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:4:11: escapes: unknown intent "cancel" (want an intent or timer:NAME)`,
		}),
		Entry("pending() of an unknown timer", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "bye: done", "bye: {target: done, guard: 'pending(\"t\")'}")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:16:35: in expression "pending(\"t\")": pending takes the name of a timer in quotes, got unknown timer "t"`,
		}),
		Entry("changed() outside an invariant", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "bye: done", "bye: {target: done, guard: 'changed(name)'}")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:16:35: in expression "changed(name)": unknown name changed`,
		}),
		Entry("an action that never fails with a condition of failure", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "intents: [hello, bye]", "intents: [hello, bye]\nactions:\n  lookup: {never_fails: true, succeeds: \"true\"}")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:5:42: action "lookup": never_fails and succeeds contradict each other (succeeds says when it fails)`,
		}),
		Entry("a machine-level transition to an unknown state", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + "\non:\n  bye: gone\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:21:8: transition target: unknown state "gone" (states: done, idle, talking)`,
		}),
		Entry("expression syntax error", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "bye: done", "bye: {target: done, guard: 'retries <'}")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:16:43: in expression "retries <": unexpected token EOF`,
		}),
		Entry("expression type error", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "bye: done", "bye: {target: done, guard: 'retries == \"x\"'}")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:16:43: in expression "retries == \"x\"": invalid operation: == (mismatched types int and string)`,
		}),
		Entry("unknown slot in an expression", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "bye: done", "bye: {target: done, guard: 'filled(nmae)'}")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:16:42: in expression "filled(nmae)": unknown name nmae`,
		}),
		Entry("compound state without an initial child", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "  talking:\n    waits: true\n", "  talking:\n    states:\n      small: {waits: true}\n")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:13:3: compound state "talking" needs an initial child state`,
		}),
		Entry("transition out of a final state", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "    final: true\n", "    final: true\n    on:\n      hello: idle\n")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:20:14: final state "done" cannot have outgoing transitions`,
		}),
		Entry("unknown intent in a transition", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "bye: done", "goodbye: done")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:16:7: unknown intent "goodbye" (intents: hello, bye)`,
		}),
		Entry("wrong value type", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "{limit: 2}", "{limit: two}")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:7:20: expected an integer, got "two"`,
		}),
		Entry("empty machine file", badCase{
			files: suite(map[string]string{"machine.yaml": "# nothing yet\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:1:1: file is empty`,
		}),
		Entry("non-UTF-8 machine file", badCase{
			files: suite(map[string]string{"machine.yaml": "machine: tiny\ninitial: \xff\xfeidle\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:2:10: file is not valid UTF-8`,
		}),
		Entry("empty folder", badCase{
			files: map[string]string{},
			args:  []string{"SUITE"},
			want:  `simctl: SUITE: no suite found (a suite is a folder holding machine.yaml or machine.scxml)`,
		}),
		Entry("missing path", badCase{
			files: suite(nil),
			args:  []string{"SUITE/nowhere"},
			want:  `simctl: SUITE/nowhere: no such file or folder`,
		}),
		Entry("scenario with an unknown tag", badCase{
			files: suite(map[string]string{"greet.scenario.yaml": replaceIn(validScenario, "[happy]", "[hapy]")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/greet.scenario.yaml:2:8: unknown tag "hapy" (known tags: cancel, confirmation, contradiction, correction, direct-mapping, disambiguation, error, escalation, explored, fork-merge, generated, happy, off-topic, retry, timeout, validation; a suite adds its own under tags: in machine.yaml)`,
		}),
		Entry("scenario expecting an unknown state", badCase{
			files: suite(map[string]string{"greet.scenario.yaml": replaceIn(validScenario, "state: talking", "state: talkin")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/greet.scenario.yaml:5:21: unknown state "talkin" (states: done, idle, talking)`,
		}),
		Entry("scenario turn with two kinds", badCase{
			files: suite(map[string]string{"greet.scenario.yaml": replaceIn(validScenario, "  - user: bye\n", "  - user: bye\n    wait: 5m\n")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/greet.scenario.yaml:6:5: a turn needs exactly one of user, wait or event`,
		}),
		Entry("scenario with a bad duration", badCase{
			files: suite(map[string]string{"greet.scenario.yaml": replaceIn(validScenario, "  - user: bye\n", "  - wait: 5 minutes\n")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/greet.scenario.yaml:6:11: expected a duration such as 30s, 5m or 1500ms, got "5 minutes"`,
		}),
		Entry("nlu.yaml naming an unknown intent", badCase{
			files: suite(map[string]string{"nlu.yaml": "intents:\n  helo: {exact: [hello]}\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/nlu.yaml:2:3: unknown intent "helo" (the machine declares: hello, bye)`,
		}),
		Entry("nlu.yaml confidence outside [0,1]", badCase{
			files: suite(map[string]string{"nlu.yaml": "intents:\n  hello: {exact: [hello], confidence: 1.5}\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/nlu.yaml:2:10: confidence 1.5 is outside [0,1]`,
		}),
		Entry("users.yaml naming an unknown intent", badCase{
			files: suite(map[string]string{"users.yaml": "goals:\n  - intent: helo\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/users.yaml:2:13: unknown intent "helo" (the machine declares: hello, bye)`,
		}),
		Entry("users.yaml probability outside [0,1]", badCase{
			files: suite(map[string]string{"users.yaml": "behaviour:\n  cancel: 1.5\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/users.yaml:2:11: probability 1.5 is outside [0,1]`,
		}),
		Entry("users.yaml naming an unknown slot", badCase{
			files: suite(map[string]string{"users.yaml": "goals:\n  - intent: hello\n    slots: {nmae: [Ana]}\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/users.yaml:3:13: unknown slot "nmae" (slots: name)`,
		}),
		Entry("users.yaml probabilities adding up past 1", badCase{
			files: suite(map[string]string{"users.yaml": "behaviour:\n  cancel: 0.6\n  invalid: 0.6\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/users.yaml:2:3: behaviour probabilities add up to 1.2, more than 1`,
		}),
		Entry("users.yaml naming an unknown persona", badCase{
			files: suite(map[string]string{"users.yaml": "personas:\n  cooperative: 0.5\n  grumpy: 0.5\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/users.yaml:3:3: unknown persona "grumpy" (expected one of: cooperative, correcting, silent, impatient, off_topic, noisy)`,
		}),
		Entry("users.yaml persona probabilities not adding up to 1", badCase{
			files: suite(map[string]string{"users.yaml": "personas:\n  cooperative: 0.5\n  silent: 0.2\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/users.yaml:2:3: persona probabilities add up to 0.7, not 1`,
		}),
		Entry("users.yaml after_completion out of range", badCase{
			files: suite(map[string]string{"users.yaml": "after_completion: -1\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/users.yaml:1:19: after_completion must be from 0 to 100`,
		}),
		Entry("latency: a negative duration", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + "latency:\n  nlu: {fixed: -200ms}\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:20:16: duration -200ms is negative`,
		}),
		Entry("latency: a uniform range whose minimum is above its maximum", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + "latency:\n  validation: {uniform: [500ms, 200ms]}\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:20:25: uniform: minimum 500ms is more than maximum 200ms`,
		}),
		Entry("latency: an unknown distribution", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + "latency:\n  nlu: {gamma: [1ms, 2ms]}\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:20:9: unknown distribution "gamma" (expected one of: fixed, uniform, normal, lognormal, empirical)`,
		}),
		Entry("latency: two distributions at once", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + "latency:\n  nlu: {fixed: 1ms, uniform: [1ms, 2ms]}\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:20:8: expected a distribution: a mapping with one of fixed, uniform, normal, lognormal, empirical, such as {uniform: [200ms, 500ms]}, got a mapping`,
		}),
		Entry("latency: an unknown state", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + "latency:\n  states:\n    talkin: {fixed: 10ms}\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:21:5: unknown state "talkin" (states: done, idle, talking)`,
		}),
		Entry("latency: an unknown action", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + "latency:\n  actions:\n    lookup: {fixed: 10ms}\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:21:5: latency actions: unknown action "lookup" (actions: none)`,
		}),
		Entry("an unknown action kind", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + "actions:\n  lookup: {kind: tool}\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:20:18: action "lookup": unknown kind "tool" (expected one of: action, llm, synthesis)`,
		}),
		Entry("an unknown state cost", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "  talking:\n    waits: true\n", "  talking:\n    waits: true\n    cost: validate\n")}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:15:11: state "talking": unknown cost "validate" (expected: validation)`,
		}),
		Entry("an SLO that does not parse", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + "latency:\n  nlu: {fixed: 200ms}\nslo: [\"p95 turn latncy <= 1s\"]\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:21:17: slo "p95 turn latncy <= 1s": expected "latency" or a turn number (1 or more) after turn, got "latncy"`,
		}),
		Entry("an SLO without a latency model", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + "slo: [max turn latency <= 1s]\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/machine.yaml:19:7: slo: needs a latency: section (without a latency model every turn takes no time)`,
		}),
		Entry("a negative --generate", badCase{
			files: suite(nil),
			args:  []string{"SUITE", "--generate", "-5"},
			want:  `simctl: --generate takes a number of conversations from 0 to 1000000000, got -5`,
		}),
		Entry("unknown flag", badCase{
			files: suite(nil),
			args:  []string{"SUITE", "--sed", "3"},
			want:  `simctl: run: unknown flag: --sed (did you mean --seed?); simctl help run lists its flags`,
		}),
		Entry("unknown --only tag", badCase{
			files: suite(nil),
			args:  []string{"SUITE", "--only", "nope"},
			want:  `simctl: --only: unknown tag "nope" (known tags: happy, disambiguation, correction, retry, fork-merge, timeout, cancel, confirmation, error, escalation, off-topic, validation, direct-mapping, contradiction, generated, explored)`,
		}),
		// NLU cassettes and noise (docs/cassette-format.md, docs/nlu-format.md).
		Entry("a cassette line that is not JSON", badCase{
			files: suite(map[string]string{"nlu.cassette.jsonl": goodCassette + `{"state":"idle","text":"hi",` + "\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/nlu.cassette.jsonl:2:29: invalid JSON: unexpected end of line`,
		}),
		Entry("a cassette line missing a field", badCase{
			files: suite(map[string]string{"nlu.cassette.jsonl": goodCassette + `{"state":"talking","text":"bye","intent":{"name":"bye","confidence":1},"entities":[]}` + "\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/nlu.cassette.jsonl:2:1: missing required field "latency_ms"`,
		}),
		Entry("a cassette confidence outside [0,1]", badCase{
			files: suite(map[string]string{"nlu.cassette.jsonl": goodCassette + `{"state":"talking","text":"bye","intent":{"name":"bye","confidence":1.2},"entities":[],"latency_ms":3}` + "\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/nlu.cassette.jsonl:2:69: intent.confidence: 1.2 is outside [0,1]`,
		}),
		Entry("a cassette intent the machine does not declare", badCase{
			files: suite(map[string]string{"nlu.cassette.jsonl": goodCassette + `{"state":"talking","text":"bye","intent":{"name":"goodbye","confidence":1},"entities":[],"latency_ms":3}` + "\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/nlu.cassette.jsonl:2:42: intent.name: unknown intent "goodbye" (the machine declares: hello, bye)`,
		}),
		Entry("two cassette records for the same utterance in the same state", badCase{
			files: suite(map[string]string{"nlu.cassette.jsonl": goodCassette + goodCassette}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/nlu.cassette.jsonl:2:1: duplicate record for text "hello" in state idle (first on line 1)`,
		}),
		Entry("nlu.yaml noise confusing an unknown intent", badCase{
			files: suite(map[string]string{"nlu.yaml": "noise:\n  confusion:\n    hello: {hi: 1}\n"}),
			args:  []string{"SUITE"},
			want:  `simctl: SUITE/nlu.yaml:3:13: noise: confusion: unknown intent "hi" (the machine declares: hello, bye)`,
		}),
		Entry("an --nlu-noise outside [0,1]", badCase{
			files: suite(nil),
			args:  []string{"SUITE", "--generate", "5", "--nlu-noise", "1.5"},
			want:  `simctl: --nlu-noise takes an error rate from 0 to 1, got 1.5`,
		}),
		Entry("an --nlu-noise-sweep rate that is not a number", badCase{
			files: suite(nil),
			args:  []string{"SUITE", "--generate", "5", "--nlu-noise-sweep", "0,lots"},
			want:  `simctl: --nlu-noise-sweep takes error rates from 0 to 1, got "lots"`,
		}),
		Entry("an --nlu-noise without --generate", badCase{
			files: suite(nil),
			args:  []string{"SUITE", "--nlu-noise", "0.1"},
			want:  `simctl: --nlu-noise applies to generated conversations: give their number with --generate N`,
		}),
		Entry("an --nlu-noise-sweep without --generate", badCase{
			files: suite(nil),
			args:  []string{"SUITE", "--nlu-noise-sweep", "0,0.1"},
			want:  `simctl: --nlu-noise-sweep plays generated conversations: give their number with --generate N`,
		}),
		Entry("an unknown --nlu-fallback", badCase{
			files: suite(nil),
			args:  []string{"SUITE", "--nlu-fallback", "rules"},
			want:  `simctl: --nlu-fallback: unknown fallback "rules" (want stub, or none for strict replay)`,
		}),
	)

	It("rejects an unknown command", func() {
		var stdout, stderr bytes.Buffer
		Expect(cli.Main([]string{"rnu"}, &stdout, &stderr)).To(Equal(cli.ExitBadInput))
		Expect(stderr.String()).To(Equal("simctl: unknown command \"rnu\" (did you mean run?); simctl help lists the commands\n"))
	})
})
