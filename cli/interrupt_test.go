package cli_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("an interrupted run", func() {
	It("stops within a second of SIGINT and writes a complete report marked incomplete", func() {
		dir := GinkgoT().TempDir()
		bin := simctlBinary()

		out := filepath.Join(dir, "out")
		cmd := exec.Command(bin, "run", "../scenarios/soni", "--generate", "50000000", "--explore-depth", "0", "--out", out)
		stderr, err := cmd.StderrPipe()
		Expect(err).NotTo(HaveOccurred())
		cmd.Stdout = GinkgoWriter
		Expect(cmd.Start()).To(Succeed())

		// Off a terminal, progress comes as plain lines; the first one
		// means generation is under way.
		lines := bufio.NewScanner(stderr)
		Eventually(func() bool { return lines.Scan() && strings.HasPrefix(lines.Text(), "progress:") }, 30*time.Second).Should(BeTrue())
		go func() {
			for lines.Scan() {
			}
		}()
		Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		sent := time.Now()
		err = cmd.Wait()
		Expect(time.Since(sent)).To(BeNumerically("<", 5*time.Second), "stopping took too long")
		var exit *exec.ExitError
		Expect(err).To(BeAssignableToTypeOf(exit))
		Expect(err.(*exec.ExitError).ExitCode()).To(Equal(130))

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
		for _, f := range []string{"scenarios.csv", "transitions.csv", "generated.csv", "report.html"} {
			Expect(filepath.Join(out, f)).To(BeAnExistingFile())
		}
		entries, _ := os.ReadDir(out)
		for _, e := range entries {
			Expect(e.Name()).NotTo(HaveSuffix(".tmp"), "a temporary file was left behind")
		}
	})

	It("stops an SCXML suite's generated runs within a second of SIGINT, the report marked incomplete", func() {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		cmd := exec.Command(simctlBinary(), "run", "../docs/examples/research", "--generate", "50000000", "--explore-depth", "0", "--out", out)
		stderr, err := cmd.StderrPipe()
		Expect(err).NotTo(HaveOccurred())
		cmd.Stdout = GinkgoWriter
		Expect(cmd.Start()).To(Succeed())
		lines := bufio.NewScanner(stderr)
		Eventually(func() bool { return lines.Scan() && strings.HasPrefix(lines.Text(), "progress:") }, 30*time.Second).Should(BeTrue())
		go func() {
			for lines.Scan() {
			}
		}()
		Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		sent := time.Now()
		err = cmd.Wait()
		Expect(time.Since(sent)).To(BeNumerically("<", 5*time.Second), "stopping took too long")
		Expect(err).To(BeAssignableToTypeOf(&exec.ExitError{}))
		Expect(err.(*exec.ExitError).ExitCode()).To(Equal(130))
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
	})
})
