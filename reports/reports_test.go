package reports_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gocarina/gocsv"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/reports"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// reportFiles are the files every WriteAll writes, sorted.
var reportFiles = []string{reports.CoverageCSV, reports.FailuresCSV, reports.InvariantsCSV, reports.JUnitXML,
	reports.ReportHTML, reports.ScenariosCSV, reports.SummaryJSON, reports.TransitionsCSV, reports.TurnsCSV}

// readReports returns the contents of the reports in dir.
func readReports(dir string) map[string][]byte {
	out := map[string][]byte{}
	for _, name := range reportFiles {
		data, err := os.ReadFile(filepath.Join(dir, name))
		Expect(err).NotTo(HaveOccurred())
		out[name] = data
	}
	return out
}

// listDir returns the names in dir, sorted.
func listDir(dir string) []string {
	entries, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

var _ = Describe("WriteAll", func() {
	var (
		run *reports.Run
		dir string
	)

	BeforeEach(func() {
		run = fixtureRun()
		dir = filepath.Join(GinkgoT().TempDir(), "out")
	})

	It("writes the golden reports", func() {
		Expect(reports.WriteAll(dir, run)).To(Succeed())
		for name, got := range readReports(dir) {
			golden := filepath.Join("testdata", "golden", name)
			if *update {
				Expect(os.WriteFile(golden, got, 0o644)).To(Succeed())
			}
			want, err := os.ReadFile(golden)
			Expect(err).NotTo(HaveOccurred(), "run go test ./reports -update to create it")
			Expect(string(got)).To(Equal(string(want)), "%s differs from %s (rerun with -update and read the diff)", name, golden)
		}
	})

	It("creates missing folders", func() {
		nested := filepath.Join(dir, "a", "b")
		Expect(reports.WriteAll(nested, run)).To(Succeed())
		Expect(listDir(nested)).To(HaveLen(len(reportFiles)))
	})

	It("writes only the reports, with no temporary files left", func() {
		Expect(reports.WriteAll(dir, run)).To(Succeed())
		Expect(listDir(dir)).To(Equal(reportFiles))
	})

	It("writes byte-identical files when run twice on the same Run", func() {
		other := filepath.Join(GinkgoT().TempDir(), "again")
		Expect(reports.WriteAll(dir, run)).To(Succeed())
		first := readReports(dir)
		Expect(reports.WriteAll(other, run)).To(Succeed())
		Expect(readReports(other)).To(Equal(first))
		// Over its own output, too.
		Expect(reports.WriteAll(dir, run)).To(Succeed())
		Expect(readReports(dir)).To(Equal(first))
		Expect(listDir(dir)).To(HaveLen(len(reportFiles)))
	})

	It("orders suites by name whatever order the run lists them in", func() {
		Expect(reports.WriteAll(dir, run)).To(Succeed())
		sorted := readReports(dir)
		slices.Reverse(run.Suites)
		other := filepath.Join(GinkgoT().TempDir(), "reversed")
		Expect(reports.WriteAll(other, run)).To(Succeed())
		Expect(readReports(other)).To(Equal(sorted))
	})

	It("keeps the paths it was given relative", func() {
		wd, err := os.Getwd()
		Expect(err).NotTo(HaveOccurred())
		Expect(reports.WriteAll(dir, run)).To(Succeed())
		for name, data := range readReports(dir) {
			Expect(string(data)).NotTo(ContainSubstring(wd), name)
			Expect(string(data)).To(ContainSubstring("testdata/suites/greeter"), name)
		}
	})

	Describe("scenarios.csv", func() {
		It("decodes back into one row per scenario, by suite then file order", func() {
			Expect(reports.WriteAll(dir, run)).To(Succeed())
			var rows []reports.ScenarioRow
			Expect(gocsv.UnmarshalBytes(readReports(dir)[reports.ScenariosCSV], &rows)).To(Succeed())
			var got [][3]string
			for _, r := range rows {
				got = append(got, [3]string{r.Suite, r.Scenario, r.Status})
			}
			Expect(got).To(Equal([][3]string{
				{"alarm", "disarm", "pass"},
				{"alarm", "siren", "fail"},
				{"greeter", "bob", "known"},
				{"greeter", "happy", "pass"},
				{"greeter", "markup", "fail"},
			}))
			Expect(rows[2].KnownViolations).To(Equal("no_bob: in idle"))
			Expect(rows[2].FirstProblem).To(HavePrefix("invariant no_bob broken at turn 2"))
			Expect(rows[3].FirstProblem).To(BeEmpty())
			Expect(rows[4].Failures).To(Equal(3))
			Expect(rows[4].FirstProblem).To(Equal(run.Suites[1].Scenarios[2].Failures[0].String()))
		})
	})

	Describe("transitions.csv", func() {
		It("lists every transition with its counts and leaves the target of an internal one empty", func() {
			Expect(reports.WriteAll(dir, run)).To(Succeed())
			var rows []reports.TransitionRow
			Expect(gocsv.UnmarshalBytes(readReports(dir)[reports.TransitionsCSV], &rows)).To(Succeed())
			Expect(rows).To(HaveLen(run.Suites[0].Machine.NumTransitions() + run.Suites[1].Machine.NumTransitions()))
			help := rows[6] // greeter's second transition: idle on help, actions only
			Expect(help.Suite).To(Equal("greeter"))
			Expect(help.Transition).To(Equal(1))
			Expect(help.Trigger).To(Equal("help"))
			Expect(help.From).To(Equal("idle"))
			Expect(help.To).To(BeEmpty())
			Expect(help.Count).To(Equal(int64(1)))
			Expect(help.Spec).To(Equal("testdata/suites/greeter/machine.yaml:15:13"))
		})
	})

	Describe("report.html", func() {
		var html string

		BeforeEach(func() {
			Expect(reports.WriteAll(dir, run)).To(Succeed())
			html = string(readReports(dir)[reports.ReportHTML])
		})

		It("escapes markup from descriptions, utterances and bot text", func() {
			Expect(html).To(ContainSubstring("&lt;script&gt;alert(1)&lt;/script&gt;"))
			Expect(html).To(ContainSubstring("&#34;quotes&#34; &amp; &lt;b&gt;markup&lt;/b&gt;"))
			Expect(html).NotTo(ContainSubstring("<script>alert"))
			Expect(html).NotTo(ContainSubstring("<b>markup"))
		})

		It("is self-contained: its own small script, no external resources", func() {
			for _, s := range []string{"<link", "<img", "<iframe", "src=", "@import", "http://", "https://", "xlink:href"} {
				Expect(html).NotTo(ContainSubstring(s))
			}
			Expect(strings.Count(html, "<script")).To(Equal(1), "only the graphs' zoom and unfold script")
			Expect(html).To(ContainSubstring("function openTarget()"))
			Expect(html).NotTo(MatchRegexp(`url\(`))
		})

		It("gives its sections stable ids", func() {
			for _, id := range []string{"overview", "suite-alarm", "failures-alarm", "coverage-alarm",
				"suite-greeter", "failures-greeter", "coverage-greeter"} {
				Expect(html).To(ContainSubstring(`id="` + id + `"`))
			}
		})

		It("gives each failing scenario its replay command", func() {
			Expect(html).To(ContainSubstring("simctl replay testdata/suites/greeter/markup.scenario.yaml"))
			Expect(html).To(ContainSubstring("simctl replay testdata/suites/alarm/siren.scenario.yaml"))
			Expect(html).NotTo(ContainSubstring("simctl replay testdata/suites/greeter/happy.scenario.yaml"))
		})

		It("lists uncovered transitions with their place in the spec", func() {
			Expect(html).To(ContainSubstring(`<tr class="uncovered">`))
			Expect(html).To(ContainSubstring("<code>testdata/<wbr>suites/<wbr>greeter/<wbr>machine.yaml:23:12</code> #3 asking → done on bye"))
		})
	})

	Describe("when it cannot write", func() {
		It("returns an error and leaves nothing when the folder would sit under a regular file", func() {
			root := GinkgoT().TempDir()
			file := filepath.Join(root, "file")
			Expect(os.WriteFile(file, []byte("not a folder\n"), 0o644)).To(Succeed())
			Expect(reports.WriteAll(filepath.Join(file, "out"), run)).NotTo(Succeed())
			Expect(listDir(root)).To(Equal([]string{"file"}))
			Expect(os.ReadFile(file)).To(Equal([]byte("not a folder\n")))
		})

		It("removes the reports it already put in place when a later one fails", func() {
			// A non-empty folder named report.html cannot be replaced by
			// a file, so the last rename fails after the CSVs are in place.
			Expect(os.MkdirAll(filepath.Join(dir, reports.ReportHTML, "keep"), 0o755)).To(Succeed())
			Expect(reports.WriteAll(dir, run)).NotTo(Succeed())
			Expect(listDir(dir)).To(Equal([]string{reports.ReportHTML}))
			Expect(listDir(filepath.Join(dir, reports.ReportHTML))).To(Equal([]string{"keep"}))
		})
	})

	Describe("with an incomplete run", func() {
		type incomplete struct {
			breakRun func(*reports.Run) *reports.Run
			message  string
		}

		DescribeTable("returns an error before writing anything",
			func(c incomplete) {
				err := reports.WriteAll(dir, c.breakRun(run))
				Expect(err).To(MatchError(ContainSubstring(c.message)))
				_, statErr := os.Stat(dir)
				Expect(os.IsNotExist(statErr)).To(BeTrue(), "%s was created", dir)
			},
			Entry("no run", incomplete{
				breakRun: func(*reports.Run) *reports.Run { return nil },
				message:  "no run",
			}),
			Entry("a suite without a machine", incomplete{
				breakRun: func(r *reports.Run) *reports.Run { r.Suites[0].Machine = nil; return r },
				message:  `suite "alarm": no machine`,
			}),
			Entry("a suite without coverage", incomplete{
				breakRun: func(r *reports.Run) *reports.Run { r.Suites[1].Coverage = nil; return r },
				message:  `suite "greeter": no coverage`,
			}),
			Entry("coverage of another machine", incomplete{
				breakRun: func(r *reports.Run) *reports.Run {
					r.Suites[0].Coverage = eval.NewCoverage(r.Suites[1].Machine)
					r.Suites[0].Coverage.Trans = append(r.Suites[0].Coverage.Trans, 0)
					return r
				},
				message: "coverage does not match the machine",
			}),
			Entry("a nil suite", incomplete{
				breakRun: func(r *reports.Run) *reports.Run { r.Suites = append(r.Suites, nil); return r },
				message:  "suite 2: missing",
			}),
		)
	})

	It("reports an empty run as a header-only CSV and an empty page", func() {
		Expect(reports.WriteAll(dir, &reports.Run{Seed: 7})).To(Succeed())
		files := readReports(dir)
		Expect(string(files[reports.ScenariosCSV])).To(Equal(
			"seed,suite,variant,scenario,file,status,tags,turns,transitions,nlu_calls,nlu_skipped,final_state,failures,violations,known_violations,first_problem\n"))
		Expect(string(files[reports.TransitionsCSV])).To(Equal(
			"seed,suite,transition,from,to,trigger,guard,spec,count,guard_true,guard_false\n"))
		Expect(bytes.Contains(files[reports.ReportHTML], []byte("0 scenarios: 0 pass, 0 known, 0 fail"))).To(BeTrue())
	})
})
