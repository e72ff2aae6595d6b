package cli_test

import (
	"bytes"
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(name string, got []byte) {
	path := filepath.Join("testdata", "golden", name)
	if *update {
		Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
		Expect(os.WriteFile(path, got, 0o644)).To(Succeed())
	}
	want, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred(), "missing golden file; run go test ./cli -update")
	Expect(string(got)).To(Equal(string(want)), "output differs from %s (go test ./cli -update rewrites it; read the diff)", path)
}

// run runs simctl in-process and returns its exit status and output, with
// the temporary output folder replaced by OUT so the output is stable.
func run(out string, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Main(args, &stdout, &stderr)
	return code, strings.ReplaceAll(stdout.String(), out, "OUT"), stderr.String()
}

var _ = Describe("simctl run", func() {
	var out string

	BeforeEach(func() {
		out = filepath.Join(GinkgoT().TempDir(), "out")
	})

	It("prints a line per scenario and a summary, and exits 0 on the bundled suites", func() {
		code, stdout, stderr := run(out, "run", "../scenarios/bench-soni", "../scenarios/soni", "--out", out)
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		golden("run-soni.txt", []byte(stdout))
		for _, f := range []string{"report.html", "scenarios.csv", "transitions.csv"} {
			Expect(filepath.Join(out, f)).To(BeAnExistingFile())
		}
	})

	It("writes one line per CSV record, whatever the bot said or the guards hold", func() {
		code, _, _ := run(out, "run", "../scenarios/thea", "../scenarios/soni", "--out", out, "--explore-depth", "0")
		Expect(code).To(Equal(cli.ExitOK))
		names, err := filepath.Glob(filepath.Join(out, "*.csv"))
		Expect(err).NotTo(HaveOccurred())
		Expect(len(names)).To(BeNumerically(">=", 6))
		for _, name := range names {
			data, err := os.ReadFile(name)
			Expect(err).NotTo(HaveOccurred())
			records, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
			Expect(err).NotTo(HaveOccurred())
			Expect(bytes.Count(data, []byte("\n"))).To(Equal(len(records)), "%s: a record spans several lines", filepath.Base(name))
		}
	})

	It("writes byte-identical reports for the same inputs and seed", func() {
		other := filepath.Join(GinkgoT().TempDir(), "out2")
		code1, _, _ := run(out, "run", "../scenarios/soni", "--out", out, "--seed", "7")
		code2, _, _ := run(other, "run", "../scenarios/soni", "--out", other, "--seed", "7")
		Expect(code1).To(Equal(code2))
		for _, f := range []string{"report.html", "scenarios.csv", "transitions.csv"} {
			a, err := os.ReadFile(filepath.Join(out, f))
			Expect(err).NotTo(HaveOccurred())
			b, err := os.ReadFile(filepath.Join(other, f))
			Expect(err).NotTo(HaveOccurred())
			Expect(a).To(Equal(b), f)
		}
	})

	It("runs only the scenarios carrying an --only tag", func() {
		code, stdout, _ := run(out, "run", "../scenarios/soni", "--only", "correction", "--out", out)
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("correction_mid_flow"))
		Expect(stdout).NotTo(ContainSubstring("no_intent"))
	})

	It("prints a turn-by-turn trace with -v", func() {
		code, stdout, _ := run(out, "replay", "../scenarios/bench-soni/happy.scenario.yaml")
		Expect(code).To(Equal(cli.ExitOK))
		golden("replay-happy.txt", []byte(stdout))
	})

	It("exits 1 and names the expectation's file:line when a scenario fails", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "machine.yaml"), []byte(validMachine), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "greet.scenario.yaml"), []byte(strings.Replace(validScenario, "bot: Hi", "bot: Hello", 1)), 0o644)).To(Succeed())
		code, stdout, _ := run(out, "run", dir, "--out", out)
		Expect(code).To(Equal(cli.ExitFailed))
		Expect(stdout).To(ContainSubstring(dir + `/greet.scenario.yaml:5:35: turn 1: bot said: got "Hi", want "Hello"`))
		Expect(stdout).To(ContainSubstring("replay: simctl replay " + dir + "/greet.scenario.yaml"))
	})
})

var _ = Describe("simctl lint", func() {
	It("lists the problem of every bad scenario file, not only the first", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "machine.yaml"), []byte(validMachine), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "a.scenario.yaml"), []byte(strings.Replace(validScenario, "state: talking", "state: nowhere", 1)), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "b.scenario.yaml"), []byte(validScenario), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "c.scenario.yaml"), []byte(strings.Replace(validScenario, "name: greet", "name: other\nturnz: []", 1)), 0o644)).To(Succeed())
		var stdout, stderr bytes.Buffer
		Expect(cli.Main([]string{"lint", dir}, &stdout, &stderr)).To(Equal(cli.ExitBadInput))
		lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(stdout.String(), dir, "SUITE")), "\n")
		Expect(lines).To(HaveLen(3), stdout.String())
		Expect(lines[0]).To(HavePrefix("SUITE/a.scenario.yaml:"))
		Expect(lines[1]).To(HavePrefix("SUITE/c.scenario.yaml:"))
		Expect(lines[2]).To(Equal("lint: 1 suite, 2 errors, 0 warnings"))
	})

	It("lists every problem of a machine with its position, warnings included", func() {
		dir := GinkgoT().TempDir()
		bad := strings.Replace(validMachine, "bye: done", "bye: gone", 1) + "  lonely:\n    waits: true\n"
		Expect(os.WriteFile(filepath.Join(dir, "machine.yaml"), []byte(bad), 0o644)).To(Succeed())
		var stdout, stderr bytes.Buffer
		code := cli.Main([]string{"lint", dir}, &stdout, &stderr)
		Expect(code).To(Equal(cli.ExitBadInput))
		Expect(strings.ReplaceAll(stdout.String(), dir, "SUITE")).To(Equal(
			`SUITE/machine.yaml:16:12: error: transition target: unknown state "gone" (states: done, idle, lonely, talking)` + "\n" +
				"lint: 1 suite, 1 error, 0 warnings\n"))
	})

	It("reports unreachable states as warnings with exit status 0", func() {
		var stdout, stderr bytes.Buffer
		code := cli.Main([]string{"lint", "../scenarios/soni"}, &stdout, &stderr)
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout.String()).To(MatchRegexp(`\.\./scenarios/soni/machine\.yaml:\d+:3: warning: state "collecting" is unreachable from the initial state\n`))
	})
})

var _ = Describe("simctl run --generate", func() {
	It("holds every invariant of the seed suites over 2000 generated conversations each, or reports the documents' contradictions as known", func() {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		code, stdout, stderr := run(out, "run", "../scenarios", "--generate", "2000", "--seed", "1", "--quiet", "--out", out)
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).NotTo(ContainSubstring("FAIL"))
		Expect(filepath.Join(out, "generated.csv")).To(BeAnExistingFile())
	})

	It("writes byte-identical CSV and JSON for the same seed, and other conversations for another seed", func() {
		dirs := []string{}
		for _, seed := range []string{"3", "3", "4"} {
			out := filepath.Join(GinkgoT().TempDir(), "out")
			code, _, _ := run(out, "run", "../scenarios/soni", "../scenarios/thea", "--generate", "300", "--explore-depth", "2", "--seed", seed, "--out", out)
			Expect(code).To(Equal(cli.ExitOK))
			dirs = append(dirs, out)
		}
		for _, f := range []string{"scenarios.csv", "transitions.csv", "generated.csv", "summary.json"} {
			a, err := os.ReadFile(filepath.Join(dirs[0], f))
			Expect(err).NotTo(HaveOccurred())
			b, err := os.ReadFile(filepath.Join(dirs[1], f))
			Expect(err).NotTo(HaveOccurred())
			Expect(a).To(Equal(b), f)
		}
		a, _ := os.ReadFile(filepath.Join(dirs[0], "generated.csv"))
		c, _ := os.ReadFile(filepath.Join(dirs[2], "generated.csv"))
		Expect(a).NotTo(Equal(c), "another seed should draw other conversations")
	})
})
