package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

// transcript runs each command line in-process and writes, as a reviewer
// reads it: the line, the exit status, then stdout and stderr; tmp is
// replaced by TMP.
func transcript(tmp string, lines ...[]string) []byte {
	var b bytes.Buffer
	for _, args := range lines {
		var stdout, stderr bytes.Buffer
		code := cli.Main(args, &stdout, &stderr)
		b.WriteString("$ simctl " + strings.Join(args, " ") + "\n")
		b.WriteString("exit " + strconv.Itoa(code) + "\n")
		b.WriteString(stdout.String())
		if stderr.Len() > 0 {
			b.WriteString("stderr:\n" + stderr.String())
		}
		b.WriteString("\n")
	}
	if tmp == "" {
		return b.Bytes()
	}
	return []byte(strings.ReplaceAll(b.String(), tmp, "TMP"))
}

var _ = Describe("help", func() {
	It("lists every command, report merge included, and every flag of each, with exit status 0", func() {
		golden("help.txt", transcript("",
			[]string{"help"},
			[]string{"run", "--help"},
			[]string{"help", "lint"},
			[]string{"replay", "-h"},
			[]string{"explore", "--help"},
			[]string{"record", "--help"},
			[]string{"graph", "--help"},
			[]string{"help", "report", "merge"},
			[]string{"report", "--help"},
			[]string{"help", "import"},
		))
	})

	DescribeTable("gives every command's flags with exit status 0",
		func(args ...string) {
			var stdout, stderr bytes.Buffer
			Expect(cli.Main(args, &stdout, &stderr)).To(Equal(cli.ExitOK))
			Expect(stderr.String()).To(BeEmpty())
			Expect(stdout.String()).To(HavePrefix("Usage: simctl "))
			Expect(stdout.String()).To(ContainSubstring("-h, --help"))
		},
		Entry("run", "run", "--help"), Entry("lint", "lint", "-h"), Entry("replay", "help", "replay"),
		Entry("explore", "explore", "-h"), Entry("record", "record", "--help"), Entry("graph", "help", "graph"),
		Entry("report merge", "report", "merge", "--help"),
		Entry("import rasa", "import", "rasa", "--help"),
		Entry("import dfcx", "import", "dfcx", "--help"),
		Entry("help after other flags", "run", "scenarios/", "--seed", "3", "--help"),
	)

	It("prints the version and the revision", func() {
		var stdout, stderr bytes.Buffer
		Expect(cli.Main([]string{"--version"}, &stdout, &stderr)).To(Equal(cli.ExitOK))
		Expect(stdout.String()).To(MatchRegexp(`^simctl \d+\.\d+\.\d+ \(revision [^,]+, go[^)]+\)\n$`))
	})
})

var _ = Describe("misspellings", func() {
	It("suggest the nearest flag or command", func() {
		golden("suggestions.txt", transcript("",
			[]string{"run", "../scenarios/soni", "--seeed", "3"},
			[]string{"run", "../scenarios/soni", "--genrate=5"},
			[]string{"explore", "../scenarios/soni", "--dept", "3"},
			[]string{"rnu", "../scenarios/soni"},
			[]string{"exlpore"},
			[]string{"merge"},
			[]string{"run", "../scenarios/soni", "--zzzzzz"},
		))
	})
})

var _ = Describe("progress", Label("race"), func() {
	It("ends on the finished state, on stderr, for a run and for a shard", func() {
		tmp := GinkgoT().TempDir()
		golden("progress.txt", transcript(tmp,
			[]string{"run", "../scenarios/bench-soni", "--generate", "40", "--explore-depth", "0", "--out", filepath.Join(tmp, "a")},
			[]string{"run", "../scenarios/bench-soni", "--generate", "40", "--explore-depth", "0", "--shard", "1/4", "--out", filepath.Join(tmp, "b")},
		))
	})
})

var _ = Describe("report merge", func() {
	var tmp string
	shard := func(i string) string {
		dir := filepath.Join(tmp, "shard-"+strings.ReplaceAll(i, "/", "of"))
		var stdout, stderr bytes.Buffer
		Expect(cli.Main([]string{"run", "../scenarios/bench-soni", "--generate", "8", "--explore-depth", "0", "--quiet",
			"--shard", i, "--out", dir}, &stdout, &stderr)).To(Equal(cli.ExitOK), stderr.String())
		return dir
	}
	BeforeEach(func() { tmp = GinkgoT().TempDir() })

	It("names the shard given twice and the one missing, and does not replace a report it did not write", func() {
		s0, s1, s2, s3 := shard("0/4"), shard("1/4"), shard("2/4"), shard("3/4")
		again := filepath.Join(tmp, "again")
		Expect(os.CopyFS(again, os.DirFS(s0))).To(Succeed())
		merged := filepath.Join(tmp, "merged")
		got := transcript(tmp,
			[]string{"report", "merge", s0, again, s1, s2, "--out", merged},
			[]string{"report", "merge", s0, s2, s3, "--out", merged},
			[]string{"report", "merge", s0, s1, s2, s3, "--out", merged, "--quiet"},
		)
		// A report of a run sits in out/ under the working folder: a merge
		// without --out must leave it alone.
		wd, err := os.Getwd()
		Expect(err).NotTo(HaveOccurred())
		Expect(os.Chdir(tmp)).To(Succeed())
		DeferCleanup(os.Chdir, wd)
		Expect(os.MkdirAll("out", 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join("out", "summary.json"), []byte("{}\n"), 0o644)).To(Succeed())
		got = append(got, transcript(tmp, []string{"report", "merge", s0, s1, s2, s3})...)
		data, err := os.ReadFile(filepath.Join("out", "summary.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(Equal("{}\n"))
		Expect(os.Chdir(wd)).To(Succeed())
		golden("merge.txt", got)
	})
})

var _ = Describe("--only", func() {
	It("leaves objectives without samples not judged, and the terminal and summary.json agree", func() {
		tmp := GinkgoT().TempDir()
		out := filepath.Join(tmp, "out")
		golden("only.txt", transcript(tmp,
			[]string{"run", "../scenarios/soni", "--only", "timeout", "--explore-depth", "0", "--out", out},
		))
		data, err := os.ReadFile(filepath.Join(out, "summary.json"))
		Expect(err).NotTo(HaveOccurred())
		var sum struct {
			Status string         `json:"status"`
			Failed map[string]int `json:"failed"`
			Suites []struct {
				SLO []struct {
					Status string `json:"status"`
				} `json:"slo"`
			} `json:"suites"`
		}
		Expect(json.Unmarshal(data, &sum)).To(Succeed())
		Expect(sum.Status).To(Equal("pass"))
		Expect(sum.Failed).To(Equal(map[string]int{"scenarios": 0, "generated": 0, "explored": 0, "slo": 0}))
	})
})

var _ = Describe("--out", func() {
	It("is checked before anything runs", func() {
		var stdout, stderr bytes.Buffer
		file := filepath.Join(GinkgoT().TempDir(), "file")
		Expect(os.WriteFile(file, nil, 0o644)).To(Succeed())
		Expect(cli.Main([]string{"run", "../scenarios/soni", "--out", filepath.Join(file, "out")}, &stdout, &stderr)).To(Equal(cli.ExitBadInput))
		Expect(stdout.String()).To(BeEmpty())
		Expect(strings.ReplaceAll(stderr.String(), file, "FILE")).To(Equal("simctl: --out FILE/out: FILE is not a folder\n"))
	})
})

var _ = Describe("the progress estimate", func() {
	DescribeTable("is never negative, whatever the counts",
		func(left int64, rate float64, want string) {
			Expect(cli.Estimate(left, rate)).To(Equal(want))
		},
		Entry("done", int64(0), 10.0, "0s"),
		Entry("past the total", int64(-5), 10.0, "0s"),
		Entry("no rate yet", int64(10), 0.0, "?"),
		Entry("a minute", int64(600), 10.0, "1m0s"),
		Entry("an absurd count", int64(9223372036854775807), 1000.0, "more than 1000h0m0s"),
		Entry("a tiny rate", int64(10), 1e-300, "more than 1000h0m0s"),
	)
})

var _ = Describe("the progress line", func() {
	// What runs after the conversations (the explorer) must not be shown
	// as a rate that decays, "about 0s left", line after line.
	DescribeTable("prints one line per tick until every conversation is done, then one more and no other",
		func(done int64, lines int) {
			got := cli.ProgressLines(200, done, 4)
			Expect(got).To(HaveLen(lines))
			for _, l := range got {
				Expect(l).To(HavePrefix(fmt.Sprintf("progress: %d/200 conversations", done)))
			}
		},
		Entry("part of the way", int64(150), 4),
		Entry("every conversation done", int64(200), 1),
	)
})
