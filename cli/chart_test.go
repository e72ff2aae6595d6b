package cli_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

// noOut stands for the output folder of commands that write none.
const noOut = "\x00no output folder"

// SCXML suites (machine.scxml) through the commands that read them.
var _ = Describe("SCXML suites", func() {
	It("run plays their scenarios and explores them", func() {
		code, stdout, stderr := run(noOut, "run", "../docs/examples/research", "--out", "")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		golden("run-research-scxml.txt", []byte(stdout))
	})

	It("--generate draws runs from the event alphabet, the same for the same seed", func() {
		code, first, _ := run(noOut, "run", "../docs/examples/research", "--out", "", "--generate", "50", "--seed", "3")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(first).To(MatchRegexp(`generated 50 runs of at most 20 events: \d+ reached a final state`))
		_, again, _ := run(noOut, "run", "../docs/examples/research", "--out", "", "--generate", "50", "--seed", "3")
		Expect(again).To(Equal(first))
	})

	It("explore reports a stuck region with its shortest path", func() {
		code, stdout, _ := run(noOut, "explore", "testdata/charts/stuck")
		Expect(code).To(Equal(cli.ExitFailed))
		golden("explore-stuck-scxml.txt", []byte(stdout))
	})

	It("explore --emit-scenarios writes each finding as a scenario that replay plays", func() {
		dir := GinkgoT().TempDir()
		code, stdout, _ := run(noOut, "explore", "testdata/charts/stuck", "--emit-scenarios", dir)
		Expect(code).To(Equal(cli.ExitFailed))
		Expect(stdout).To(ContainSubstring("wrote 2 scenarios of SCXML findings to"))
		code, stdout, stderr := run(noOut, "replay", dir+"/stuck-stuck-region.scenario.yaml")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("docs_searching -> docs_waiting_quota on docs.failed"))
	})

	It("--only selects the scenarios of an SCXML suite by tag", func() {
		code, stdout, _ := run(noOut, "run", "../docs/examples/research", "--out", "", "--only", "timeout")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("1 scenario in 1 suite: 1 passed"))
	})

	It("explore passes the same machine without the flaw", func() {
		code, stdout, _ := run(noOut, "explore", "../docs/examples/research")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("no dead ends, stuck regions or livelocks"))
	})

	It("graph draws a parallel state's regions as clusters", func() {
		code, stdout, _ := run(noOut, "graph", "../docs/examples/research", "--format", "dot")
		Expect(code).To(Equal(cli.ExitOK))
		golden("graph-research-scxml.dot", []byte(stdout))
		code, stdout, _ = run(noOut, "graph", "../docs/examples/research", "--format", "mermaid")
		Expect(code).To(Equal(cli.ExitOK))
		golden("graph-research-scxml.mmd", []byte(stdout))
		code, stdout, _ = run(noOut, "graph", "../docs/examples/research", "--format", "svg")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("<svg"))
		Expect(stdout).To(ContainSubstring("cluster_research"))
	})

	DescribeTable("bad SCXML is one file:line:col line and exit 2",
		func(cmd, want string) {
			code, stdout, stderr := run(noOut, cmd, "testdata/charts/bad")
			Expect(code).To(Equal(cli.ExitBadInput))
			Expect(stdout + stderr).To(HavePrefix(want + "\n"))
		},
		Entry("run", "run", "simctl: testdata/charts/bad/machine.scxml:3:5: <invoke> is not supported"),
		Entry("explore", "explore", "simctl: testdata/charts/bad/machine.scxml:3:5: <invoke> is not supported"),
		Entry("lint", "lint", "testdata/charts/bad/machine.scxml:3:5: error: <invoke> is not supported"),
	)
})
