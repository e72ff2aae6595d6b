package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

// docs/first-suite.md walks a newcomer through a suite: its ```yaml
// blocks are, in order, the machine, the stub NLU, the scenario and the
// fix of the machine's inform transition. This spec plays the walkthrough
// as written, so the page cannot drift from what simctl does.
var _ = Describe("the first-suite walkthrough", func() {
	It("finds the exploration finding the page shows, and passes once fixed as the page says", func() {
		page, err := os.ReadFile("../docs/first-suite.md")
		Expect(err).NotTo(HaveOccurred())
		blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(page), -1)
		Expect(blocks).To(HaveLen(4))
		machine, nlu, scenario, fix := blocks[0][1], blocks[1][1], blocks[2][1], blocks[3][1]
		dir := filepath.Join(GinkgoT().TempDir(), "greeter")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "machine.yaml"), []byte(machine), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "nlu.yaml"), []byte(nlu), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "happy.scenario.yaml"), []byte(scenario), 0o644)).To(Succeed())
		out := filepath.Join(GinkgoT().TempDir(), "out")

		code, stdout, _ := run(out, "lint", dir)
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(Equal("lint: 1 suite, 0 errors, 0 warnings\n"))

		code, stdout, _ = run(out, "run", dir, "--out", out)
		Expect(code).To(Equal(cli.ExitFailed), stdout)
		Expect(stdout).To(ContainSubstring("  PASS  happy "))
		Expect(stdout).To(ContainSubstring("FAIL  explored finds greeted_has_a_name, shortest path 2 events"))

		code, stdout, _ = run(out, "explore", dir)
		Expect(code).To(Equal(cli.ExitFailed), stdout)
		Expect(stdout).To(ContainSubstring("  FAIL  greeted_has_a_name: never expression became true\n" +
			"         shortest path, 2 events:\n            1. hello\n            2. inform\n"))

		// The fix replaces the inform transition under asking.
		start := strings.Index(machine, "      inform:\n")
		end := strings.Index(machine, "  greeted:\n")
		Expect(start).To(BeNumerically(">", 0))
		Expect(end).To(BeNumerically(">", start))
		fixed := machine[:start] + fix + machine[end:]
		Expect(os.WriteFile(filepath.Join(dir, "machine.yaml"), []byte(fixed), 0o644)).To(Succeed())
		code, stdout, _ = run(out, "run", dir, "--out", out)
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(ContainSubstring("greeter: 1 passed, 0 failed\n"))
		code, stdout, _ = run(out, "run", dir, "--out", out, "--generate", "100", "--quiet")
		Expect(code).To(Equal(cli.ExitOK), stdout)
	})
})
