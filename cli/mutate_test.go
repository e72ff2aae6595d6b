package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

// The lamp of package mutate: small enough to judge all its mutants in
// well under a second.
const lampSuite = "../mutate/testdata/lamp"

var _ = Describe("simctl mutate", func() {
	var out string
	BeforeEach(func() { out = filepath.Join(GinkgoT().TempDir(), "out") })

	It("prints each suite's tally per operator and its survivors, and writes mutants.csv and report.html", func() {
		code, stdout, stderr := run(out, "mutate", lampSuite, "--out", out)
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		golden("mutate-lamp.txt", []byte(stdout))
		csv, err := os.ReadFile(filepath.Join(out, "mutants.csv"))
		Expect(err).NotTo(HaveOccurred())
		golden("mutate-lamp.csv", csv)
		html, err := os.ReadFile(filepath.Join(out, "report.html"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(html)).To(ContainSubstring(`<section id="mutation-lamp">`))
		Expect(string(html)).To(ContainSubstring("machine.yaml:25:67"))
	})

	It("exits 1 when a suite scores below --min-score", func() {
		code, _, _ := run(out, "mutate", lampSuite, "--out", "", "--min-score", "70")
		Expect(code).To(Equal(cli.ExitFailed))
	})

	It("gives the same bytes with --workers 2", Label("race"), func() {
		code, _, _ := run(out, "mutate", lampSuite, "--out", out, "--seed", "3")
		Expect(code).To(Equal(cli.ExitOK))
		want := files(out)
		w2 := filepath.Join(GinkgoT().TempDir(), "w2")
		run(w2, "mutate", lampSuite, "--out", w2, "--seed", "3", "--workers", "2")
		Expect(files(w2)).To(Equal(want))
	})

	// Not labelled race: each shard judges on one goroutine, the code the
	// spec above runs on two under -race, and merging is sequential. Under
	// -race, as part of the spec above, its 14 runs and 4 merges took 11 s
	// of that spec's 17.5 s of CPU; without -race they take 1.5 s.
	It("writes shards that merge into one process's reports, for 1, 2, 3 and 7 shards", func() {
		code, _, _ := run(out, "mutate", lampSuite, "--out", out, "--seed", "3")
		Expect(code).To(Equal(cli.ExitOK))
		want := files(out)
		for _, n := range []int{1, 2, 3, 7} {
			var dirs []string
			for i := 0; i < n; i++ {
				dir := filepath.Join(GinkgoT().TempDir(), fmt.Sprintf("shard-%d", i))
				c, _, stderr := run(dir, "mutate", lampSuite, "--out", dir, "--seed", "3", "--shard", fmt.Sprintf("%d/%d", i, n))
				Expect(stderr).To(BeEmpty())
				Expect(c).To(Equal(cli.ExitOK))
				dirs = append(dirs, dir)
			}
			merged := filepath.Join(GinkgoT().TempDir(), "merged")
			c, _, stderr := run(merged, append(append([]string{"report", "merge"}, dirs...), "--out", merged)...)
			Expect(stderr).To(BeEmpty())
			Expect(c).To(Equal(cli.ExitOK))
			Expect(files(merged)).To(Equal(want), "%d shards", n)
		}
	})

	It("records in mutants.csv the kills only pins made, so that merged shards give both scores", func() {
		// The door: one mutant only its pin: true scenario kills.
		const door = "../mutate/testdata/door"
		code, stdout, _ := run(out, "mutate", door, "--out", out)
		Expect(code).To(Equal(cli.ExitOK))
		score := regexp.MustCompile(`(?m)^door: mutation score .*$`).FindString(stdout)
		Expect(score).To(ContainSubstring(", 1 only by pins;"))
		csv, err := os.ReadFile(filepath.Join(out, "mutants.csv"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(csv)).To(ContainSubstring(",killed,scripted,pin,"))
		var dirs []string
		for i := 0; i < 2; i++ {
			dir := filepath.Join(GinkgoT().TempDir(), fmt.Sprintf("shard-%d", i))
			run(dir, "mutate", door, "--out", dir, "--shard", fmt.Sprintf("%d/2", i))
			dirs = append(dirs, dir)
		}
		merged := filepath.Join(GinkgoT().TempDir(), "merged")
		_, mstdout, stderr := run(merged, append(append([]string{"report", "merge"}, dirs...), "--out", merged)...)
		Expect(stderr).To(BeEmpty())
		Expect(mstdout).To(ContainSubstring(score))
		Expect(files(merged)).To(Equal(files(out)))
	})

	It("writes scenarios that kill survivors with --emit-scenarios", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "kill")
		code, stdout, _ := run(out, "mutate", lampSuite, "--out", "", "--emit-scenarios", dir)
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("lamp: wrote 5 scenarios to"))
		// Replayed from where they were written, they pass on the lamp.
		files, _ := filepath.Glob(filepath.Join(dir, "lamp", "*.scenario.yaml"))
		Expect(files).To(HaveLen(5))
		c, _, stderr := run(out, append([]string{"run", "--out", ""}, files...)...)
		Expect(stderr).To(BeEmpty())
		Expect(c).To(Equal(cli.ExitOK))
	})

	DescribeTable("rejects bad flags with exit 2",
		func(args ...string) {
			code, _, stderr := run(out, append([]string{"mutate", lampSuite}, args...)...)
			Expect(code).To(Equal(cli.ExitBadInput))
			Expect(stderr).To(HavePrefix("simctl: "))
		},
		Entry("a bad shard", "--shard", "2/2"),
		Entry("no workers", "--workers", "0"),
		Entry("a score over 100", "--min-score", "101"),
		Entry("negative generate", "--generate", "-1"),
	)
})
