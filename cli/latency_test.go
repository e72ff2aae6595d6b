package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

// sloMachine is the valid machine with a latency model in which every NLU
// call takes 300 ms, and two objectives: one it misses, one it meets.
const sloMachine = validMachine + `latency:
  nlu: {fixed: 300ms}
slo:
  - p95 turn latency <= 100ms
  - max turn latency <= 1s
`

var _ = Describe("simctl run with a latency model", func() {
	var out string

	BeforeEach(func() {
		out = filepath.Join(GinkgoT().TempDir(), "out")
	})

	readSummary := func(dir string) map[string]any {
		data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		Expect(err).NotTo(HaveOccurred())
		var sum map[string]any
		Expect(json.Unmarshal(data, &sum)).To(Succeed())
		return sum
	}

	It("prints the suite's latency and each SLO, and fails the run when an SLO fails", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "machine.yaml"), []byte(sloMachine), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "greet.scenario.yaml"), []byte(validScenario), 0o644)).To(Succeed())
		code, stdout, _ := run(out, "run", dir, "--out", out, "--explore-depth", "0")
		Expect(code).To(Equal(cli.ExitFailed), stdout)
		Expect(stdout).To(ContainSubstring("\n  PASS  greet "))
		Expect(stdout).To(ContainSubstring("\n  latency p50 300ms p95 300ms p99 300ms max 300ms over 2 turns; direct mapping saved 0 NLU calls (0 ms)\n" +
			"  FAIL  slo p95 turn latency <= 100ms: got 300ms\n" +
			"  PASS  slo max turn latency <= 1s: got 300ms\n" +
			"tiny: 1 passed, 0 failed; 1 latency objective not met\n"))
		sum := readSummary(out)
		Expect(sum["status"]).To(Equal("fail"))
		suite := sum["suites"].([]any)[0].(map[string]any)
		Expect(suite["slo"]).To(HaveLen(2))
		Expect(suite["slo"].([]any)[0]).To(HaveKeyWithValue("status", "fail"))
		Expect(suite["slo"].([]any)[0]).To(HaveKeyWithValue("got_ms", 300.0))
		Expect(suite["latency"].([]any)[0]).To(HaveKeyWithValue("p95_ms", 300.0))
		csv, err := os.ReadFile(filepath.Join(out, "latency.csv"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(csv)).To(HavePrefix("seed,suite,variant,scope,key,count,p50_ms,p90_ms,p95_ms,p99_ms,max_ms,mean_ms\n" +
			"1,tiny,default,turn,all,2,300,300,300,300,300,300\n"))
	})

	It("passes when every SLO holds: Soni's, over its scripted and generated conversations", func() {
		code, stdout, _ := run(out, "run", "../scenarios/soni", "--out", out, "--generate", "300", "--explore-depth", "0", "-q")
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(MatchRegexp(`\n  latency p50 \d+ms p95 \d+ms p99 \d+ms max \d+ms over \d+ turns; direct mapping saved \d+ NLU calls \(\d+ ms\)\n`))
		Expect(strings.Count(stdout, "\n  PASS  slo ")).To(Equal(4))
		Expect(stdout).NotTo(ContainSubstring("FAIL"))
	})

	It("writes byte-identical latency.csv for the same seed, and another for another seed", func() {
		dirs := []string{}
		for _, seed := range []string{"7", "7", "8"} {
			o := filepath.Join(GinkgoT().TempDir(), "out")
			code, _, _ := run(o, "run", "../scenarios/soni", "--generate", "200", "--explore-depth", "0", "--seed", seed, "--out", o, "-q")
			Expect(code).To(Equal(cli.ExitOK))
			dirs = append(dirs, o)
		}
		read := func(dir string) []byte {
			data, err := os.ReadFile(filepath.Join(dir, "latency.csv"))
			Expect(err).NotTo(HaveOccurred())
			return data
		}
		Expect(read(dirs[0])).To(Equal(read(dirs[1])))
		Expect(read(dirs[0])).NotTo(Equal(read(dirs[2])), "another seed draws other latencies")
	})

	It("writes no latency.csv for suites without a latency model, and removes one left by an earlier run", func() {
		code, _, _ := run(out, "run", "../scenarios/soni", "--out", out, "--explore-depth", "0")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(filepath.Join(out, "latency.csv")).To(BeAnExistingFile())
		code, stdout, _ := run(out, "run", "../scenarios/bench-soni", "--out", out, "--explore-depth", "0")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).NotTo(ContainSubstring("latency"))
		Expect(filepath.Join(out, "latency.csv")).NotTo(BeAnExistingFile())
		Expect(readSummary(out)["suites"].([]any)[0]).NotTo(HaveKey("latency"))
	})

	It("measures the engine's wall-clock cost only with --measure-engine, and changes nothing else", func() {
		plain := filepath.Join(GinkgoT().TempDir(), "out")
		code, stdout, _ := run(plain, "run", "../scenarios/soni", "--out", plain, "--explore-depth", "0")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).NotTo(ContainSubstring("wall clock"))
		Expect(readSummary(plain)).NotTo(HaveKey("engine_wall_clock"))

		code, measured, _ := run(out, "run", "../scenarios/soni", "--out", out, "--explore-depth", "0", "--measure-engine")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(measured).To(MatchRegexp(`\n  engine wall clock \(measured on this host, not simulated\): \d+ engine steps, \d+ ns/step\n`))
		sum := readSummary(out)
		Expect(sum).To(HaveKey("engine_wall_clock"))
		wall := sum["suites"].([]any)[0].(map[string]any)["engine_wall_clock"].(map[string]any)
		Expect(wall["steps"]).To(BeNumerically(">", 0))
		Expect(wall["note"]).To(ContainSubstring("not simulated"))
		// Apart from that line, the same output and the same reports.
		var kept []string
		for _, l := range strings.SplitAfter(measured, "\n") {
			if !strings.Contains(l, "engine wall clock") {
				kept = append(kept, l)
			}
		}
		Expect(strings.Join(kept, "")).To(Equal(strings.ReplaceAll(stdout, plain, out)))
		for _, f := range []string{"scenarios.csv", "transitions.csv", "latency.csv"} {
			a, err := os.ReadFile(filepath.Join(plain, f))
			Expect(err).NotTo(HaveOccurred())
			b, err := os.ReadFile(filepath.Join(out, f))
			Expect(err).NotTo(HaveOccurred())
			Expect(b).To(Equal(a), f)
		}
	})
})
