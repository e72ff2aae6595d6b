package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
	"github.com/simctl/simctl/reports"
)

// Rough edges a new user met (issue 29): flag values, paths, help, text
// that reaches the terminal, and signals to the long commands.

// badArgs is a command line and the one line simctl must answer it with.
type badArgs struct {
	args []string
	want string
}

var _ = Describe("simctl's own words", func() {
	DescribeTable("for a flag value of the wrong type, or a path it cannot use, one line and exit 2",
		func(c badArgs) {
			var stdout, stderr bytes.Buffer
			Expect(cli.Main(c.args, &stdout, &stderr)).To(Equal(cli.ExitBadInput))
			Expect(stderr.String()).To(Equal("simctl: " + c.want + "\n"))
			Expect(stderr.String()).NotTo(ContainSubstring("strconv"))
		},
		Entry("--seed abc", badArgs{[]string{"run", "../scenarios/soni", "--seed", "abc"}, `run: --seed: expected an integer, got "abc"`}),
		Entry("--generate=1x", badArgs{[]string{"run", "../scenarios/soni", "--generate=1x"}, `run: --generate: expected an integer, got "1x"`}),
		Entry("--nlu-noise abc", badArgs{[]string{"run", "../scenarios/soni", "--nlu-noise", "abc"}, `run: --nlu-noise: expected a number, got "abc"`}),
		Entry("--depth 1e99", badArgs{[]string{"explore", "../scenarios/soni", "--depth", "99999999999999999999"}, `explore: --depth: expected an integer in range, got "99999999999999999999"`}),
		Entry("--min-score x", badArgs{[]string{"mutate", "../scenarios/soni", "--min-score", "x"}, `mutate: --min-score: expected a number, got "x"`}),
		Entry("--out /proc", badArgs{[]string{"run", "../scenarios/soni", "--out", "/proc"}, `--out /proc: cannot write in /proc: the folder accepts no new files`}),
		Entry("explore without a path", badArgs{[]string{"explore"}, `no suite given (for example: simctl explore scenarios/soni)`}),
		Entry("run without a path", badArgs{[]string{"run"}, `no suite given (for example: simctl run scenarios/)`}),
		Entry("mutate without a path", badArgs{[]string{"mutate"}, `no suite given (for example: simctl mutate scenarios/)`}),
	)

	It("answers help help with the usage of help", func() {
		var stdout, stderr bytes.Buffer
		Expect(cli.Main([]string{"help", "help"}, &stdout, &stderr)).To(Equal(cli.ExitOK))
		Expect(stderr.String()).To(BeEmpty())
		Expect(stdout.String()).To(HavePrefix("Usage: simctl help [COMMAND] [flags]\n"))
	})
})

var _ = Describe("text from a suite on the terminal", func() {
	It("has its control characters escaped in replay's bot lines", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "echo")
		Expect(os.Mkdir(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "machine.yaml"), []byte(`machine: echo
initial: asking
intents: [inform]
slots:
  name: {prompt: "Name?"}
states:
  asking:
    waits: true
    on:
      inform:
        target: asking
        actions: [{set: {name: event.value}}, {say: "Hello, {name}."}]
`), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "nlu.yaml"), []byte("fallback: {intent: inform}\n"), 0o644)).To(Succeed())
		scenario := filepath.Join(dir, "esc.scenario.yaml")
		Expect(os.WriteFile(scenario, []byte(`name: esc
turns:
  - user: "\e[2J\e]0;owned\aAda\0"
`), 0o644)).To(Succeed())
		var stdout, stderr bytes.Buffer
		Expect(cli.Main([]string{"replay", scenario}, &stdout, &stderr)).To(Equal(cli.ExitOK), stderr.String())
		Expect(stdout.String()).To(ContainSubstring(`bot: Hello, \x1b[2J\x1b]0;owned\aAda\x00.`))
		for _, c := range stdout.String() {
			if c != '\n' {
				Expect(c).To(BeNumerically(">=", ' '), "a control character reached the terminal:\n%q", stdout.String())
				Expect(c).NotTo(BeNumerically("==", 0x7f))
			}
		}
	})
})

var _ = Describe("a signal to a long command", func() {
	// It took 16-28 s: the mutant under judgement finished its searches.
	It("stops simctl mutate within a second, with the report of the mutants judged", func() {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		p := start(120*time.Second, "mutate", "../scenarios/formfill", "--out", out)
		p.busy(time.Second) // loading formfill takes about 0.1 s; its judgement, minutes
		Expect(p.cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		sent := time.Now()
		code := p.wait(30 * time.Second)
		took := time.Since(sent)
		Expect(code).To(Equal(cli.ExitInterrupted), "stderr: %s", p.stderr.String())
		GinkgoWriter.Printf("simctl mutate stopped %v after SIGINT\n", took)
		Expect(took).To(BeNumerically("<", 2*time.Second), "stopping took too long")
		Expect(p.stdout.String()).To(ContainSubstring("interrupted: the report covers only the mutants judged before the signal"))
		Expect(filepath.Join(out, "mutants.csv")).To(BeAnExistingFile())
	})

	It("leaves no STALE advice for the notes an interrupted run --generate never reached", func() {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		p := start(120*time.Second, "run", "../scenarios/soni", "--generate", "50000000", "--out", out)
		p.busy(time.Second) // generating: soni's load and scenarios take about 0.15 s
		Expect(p.cmd.Process.Signal(syscall.SIGTERM)).To(Succeed())
		Expect(p.wait(30*time.Second)).To(Equal(cli.ExitInterrupted), "stderr: %s", p.stderr.String())
		Expect(p.stderr.String()).To(MatchRegexp(`(?m)^progress: stopped, [1-9]\d*/50000000 conversations`))
		Expect(p.stdout.String()).NotTo(ContainSubstring("STALE"))
		data, err := os.ReadFile(filepath.Join(out, reports.SummaryJSON))
		Expect(err).NotTo(HaveOccurred())
		var sum struct {
			Incomplete bool `json:"incomplete"`
			Suites     []struct {
				StaleNotes []string `json:"stale_notes"`
			} `json:"suites"`
		}
		Expect(json.Unmarshal(data, &sum)).To(Succeed())
		Expect(sum.Incomplete).To(BeTrue())
		Expect(sum.Suites).NotTo(BeEmpty())
		Expect(sum.Suites[0].StaleNotes).To(BeEmpty())
	})
})
