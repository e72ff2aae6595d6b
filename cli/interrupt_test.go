package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

var _ = Describe("an interrupted run", func() {
	// interruptGenerated starts simctl run --generate 50000000 on suite,
	// signals it once it is generating, and checks that it stops at once
	// with a report marked incomplete that counts the conversations
	// played (some, not all); it returns the output folder.
	interruptGenerated := func(suite string) string {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		p := start(120*time.Second, "run", suite, "--generate", "50000000", "--explore-depth", "0", "--out", out)
		// Generating: loading soni or research and playing its scenarios
		// take about 0.15 s of processor time. (The first progress line
		// off a terminal, which this waited for, comes after 5 s.)
		p.busy(time.Second)
		Expect(p.cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		sent := time.Now()
		code := p.wait(30 * time.Second)
		Expect(time.Since(sent)).To(BeNumerically("<", 5*time.Second), "stopping took too long")
		Expect(code).To(Equal(cli.ExitInterrupted), "stderr: %s", p.stderr.String())
		Expect(p.stderr.String()).To(MatchRegexp(`(?m)^progress: stopped, [1-9]\d*/50000000 conversations`))

		data, err := os.ReadFile(filepath.Join(out, "summary.json"))
		Expect(err).NotTo(HaveOccurred())
		var sum struct {
			Incomplete bool `json:"incomplete"`
			Suites     []struct {
				Generated []struct {
					Conversations int `json:"conversations"`
				} `json:"generated"`
			} `json:"suites"`
		}
		Expect(json.Unmarshal(data, &sum)).To(Succeed())
		Expect(sum.Incomplete).To(BeTrue())
		Expect(sum.Suites[0].Generated[0].Conversations).To(BeNumerically(">", 0))
		Expect(sum.Suites[0].Generated[0].Conversations).To(BeNumerically("<", 50000000))
		return out
	}

	It("stops within a second of SIGINT and writes a complete report marked incomplete", func() {
		out := interruptGenerated("../scenarios/soni")
		for _, f := range []string{"scenarios.csv", "transitions.csv", "generated.csv", "report.html"} {
			Expect(filepath.Join(out, f)).To(BeAnExistingFile())
		}
		entries, _ := os.ReadDir(out)
		for _, e := range entries {
			Expect(e.Name()).NotTo(HaveSuffix(".tmp"), "a temporary file was left behind")
		}
	})

	It("stops an SCXML suite's generated runs within a second of SIGINT, the report marked incomplete", func() {
		interruptGenerated("../docs/examples/research")
	})
})
