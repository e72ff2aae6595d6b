package cli_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

// YAML machines with a parallel: true state, whose regions the explorer
// interleaves by the order of their actions' results.
var _ = Describe("YAML parallel states", func() {
	It("explore reports a region that can never reach its final state as a dead end, with its shortest path", func() {
		code, stdout, stderr := simctl("explore", "testdata/parallel/stuck")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitFailed))
		Expect(stdout).To(ContainSubstring("complete: every reachable configuration was explored"))
		Expect(stdout).To(ContainSubstring(`  FAIL  dead_end: research is not final, and no intent, timer or branch can move the conversation on
         shortest path, 3 events:
            1. ask
            2. branch 0
            3. branch 1 [docs fails]
`))
		Expect(stdout).NotTo(ContainSubstring("states never entered"))
	})

	It("explore passes the same machine once the region ends on failure too", func() {
		code, stdout, stderr := simctl("explore", "testdata/parallel/fixed")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("transitions covered: 6 of 6"))
		Expect(stdout).To(ContainSubstring("no violations, dead ends or livelocks"))
	})

	It("run passes the worked example of docs/machine-format.md, scenarios and exploration", func() {
		code, stdout, stderr := simctl("run", "../docs/examples/checkout", "--out", "")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(ContainSubstring("checkout: 2 passed, 0 failed"))
		Expect(stdout).To(ContainSubstring("explored                                       completely"))
	})
})
