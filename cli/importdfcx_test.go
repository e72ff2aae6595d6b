package cli_test

import (
	"bytes"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

const dfcxFixture = "../dfcx/testdata/pizzeria"

func importDfcx(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Main(append([]string{"import", "dfcx"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

var _ = Describe("simctl import dfcx", func() {
	var out string
	BeforeEach(func() { out = filepath.Join(GinkgoT().TempDir(), "pizzeria") })

	It("imports the fixture agent into a suite whose test cases all pass on the one engine", func() {
		code, stdout, stderr := importDfcx(dfcxFixture, "--out", out)
		Expect(code).To(Equal(cli.ExitOK), stderr)
		Expect(stdout).To(MatchRegexp(`^imported \.\./dfcx/testdata/pizzeria into .*: 2 flows \(4 pages\), 3 scenarios from 3 test cases, 5 constructs not kept \(import\.md\) in `))
		Expect(stderr).To(ContainSubstring("playbooks/Upsell: not kept: playbooks (LLM-driven agents) are not kept: Upsell\n"))
		var runOut, runErr bytes.Buffer
		status := cli.Main([]string{"run", out, "--out", ""}, &runOut, &runErr)
		Expect(runOut.String()).To(ContainSubstring("3 passed, 0 failed"), runErr.String())
		Expect(status).To(Equal(cli.ExitOK), runOut.String()+runErr.String())
	})

	It("refuses malformed JSON in one line with exit 2 and writes nothing", func() {
		bad := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(bad, "agent.json"), []byte("{\"displayName\": \"x\",\n  \"startFlow\": }\n"), 0o644)).To(Succeed())
		code, stdout, stderr := importDfcx(bad, "--out", out)
		Expect(code).To(Equal(cli.ExitBadInput))
		Expect(stdout).To(BeEmpty())
		Expect(stderr).To(Equal("simctl: " + filepath.Join(bad, "agent.json") + ":2:16: malformed JSON: invalid character '}' looking for beginning of value\n"))
		_, err := os.Stat(out)
		Expect(os.IsNotExist(err)).To(BeTrue())
	})

	It("wants --out", func() {
		code, _, stderr := importDfcx(dfcxFixture)
		Expect(code).To(Equal(cli.ExitBadInput))
		Expect(stderr).To(ContainSubstring("import: --out SUITE_DIR is required"))
	})
})
