package cli_test

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/gocarina/gocsv"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
	"github.com/simctl/simctl/reports"
)

var _ = Describe("simctl run's evaluation reports", func() {
	var out string

	BeforeEach(func() {
		out = filepath.Join(GinkgoT().TempDir(), "out")
	})

	It("keeps the trace of a failing scenario without -v, and only of failing ones", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "machine.yaml"), []byte(validMachine), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "greet.scenario.yaml"), []byte(strings.Replace(validScenario, "bot: Hi", "bot: Hello", 1)), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "ok.scenario.yaml"), []byte(strings.Replace(validScenario, "name: greet", "name: ok", 1)), 0o644)).To(Succeed())
		code, stdout, _ := run(out, "run", dir, "--out", out)
		Expect(code).To(Equal(cli.ExitFailed))
		Expect(stdout).NotTo(ContainSubstring("turn 1: idle --hello--> talking"), "the trace is for the reports, not stdout without -v")
		html, err := os.ReadFile(filepath.Join(out, reports.ReportHTML))
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Count(string(html), "<summary>Trace (")).To(Equal(1))
		Expect(string(html)).To(ContainSubstring("<td>idle → talking</td><td>hello</td>"))
		junit, err := os.ReadFile(filepath.Join(out, reports.JUnitXML))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(junit)).To(ContainSubstring("turn 1: idle --hello--&gt; talking"))
	})

	It("attributes coverage to scripted scenarios, generated conversations and the exploration", func() {
		code, _, stderr := run(out, "run", "../docs/examples/pizza", "--out", out, "--generate", "20", "--explore-depth", "2", "-q")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		data, err := os.ReadFile(filepath.Join(out, reports.CoverageCSV))
		Expect(err).NotTo(HaveOccurred())
		var rows []reports.CoverageRow
		Expect(gocsv.UnmarshalBytes(data, &rows)).To(Succeed())
		bySource := map[string]int{}
		for _, r := range rows {
			for _, s := range strings.Fields(r.Sources) {
				bySource[s]++
			}
			Expect(r.Count).To(Equal(r.Scripted+r.Generated), r.Item)
		}
		Expect(bySource).To(HaveKey("scripted"))
		Expect(bySource).To(HaveKey("generated"))
		Expect(bySource).To(HaveKey("explored"))
		for _, f := range []string{reports.TurnsCSV, reports.InvariantsCSV, reports.FailuresCSV, reports.JUnitXML} {
			Expect(filepath.Join(out, f)).To(BeAnExistingFile())
		}
	})
})
