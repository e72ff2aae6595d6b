package reports_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gocarina/gocsv"
	junit "github.com/joshdk/go-junit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/reports"
)

// goldenDir compares every file under dir with testdata/golden/<name>/, or
// rewrites them with -update.
func goldenDir(name, dir string) {
	golden := filepath.Join("testdata", "golden", name)
	got := map[string][]byte{}
	Expect(filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		Expect(err).NotTo(HaveOccurred())
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			got[rel], err = os.ReadFile(p)
		}
		return err
	})).To(Succeed())
	if *update {
		Expect(os.RemoveAll(golden)).To(Succeed())
		for rel, data := range got {
			Expect(os.MkdirAll(filepath.Dir(filepath.Join(golden, rel)), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(golden, rel), data, 0o644)).To(Succeed())
		}
	}
	var want []string
	Expect(filepath.WalkDir(golden, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(golden, p)
			want = append(want, rel)
		}
		return err
	})).To(Succeed(), "run go test ./reports -update to create %s", golden)
	Expect(got).To(HaveLen(len(want)), "files in %s: %v", golden, want)
	for _, rel := range want {
		data, err := os.ReadFile(filepath.Join(golden, rel))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got[rel])).To(Equal(string(data)), "%s differs from %s (rerun with -update and read the diff)", rel, golden)
	}
}

var _ = Describe("evaluation reports", func() {
	var (
		run *reports.Run
		dir string
	)

	// read renders one report of the run in memory, as WriteAll would
	// write it (without the disk, which the golden test covers).
	read := func(name string) []byte {
		writers := map[string]func(io.Writer, *reports.Run) error{
			reports.CoverageCSV: reports.WriteCoverageCSV, reports.TurnsCSV: reports.WriteTurnsCSV,
			reports.InvariantsCSV: reports.WriteInvariantsCSV, reports.FailuresCSV: reports.WriteFailuresCSV,
			reports.JUnitXML: reports.WriteJUnitXML, reports.ReportHTML: reports.WriteHTML,
			reports.TransitionsCSV: reports.WriteTransitionsCSV,
		}
		var b bytes.Buffer
		Expect(writers).To(HaveKey(name))
		Expect(writers[name](&b, run)).To(Succeed())
		return b.Bytes()
	}

	BeforeEach(func() {
		run = fullFixtureRun()
		dir = filepath.Join(GinkgoT().TempDir(), "out")
	})

	It("writes the golden reports of a run with generated conversations, an exploration and latency", func() {
		Expect(reports.WriteAll(dir, run)).To(Succeed())
		goldenDir("full", dir)
	})

	It("writes the same bytes every time", func() {
		Expect(reports.WriteAll(dir, run)).To(Succeed())
		again := filepath.Join(GinkgoT().TempDir(), "again")
		Expect(reports.WriteAll(again, fullFixtureRun())).To(Succeed())
		for _, name := range append(reportFiles, reports.GeneratedCSV, reports.LatencyCSV) {
			a, b := must(os.ReadFile(filepath.Join(dir, name))), must(os.ReadFile(filepath.Join(again, name)))
			Expect(a).To(Equal(b), name)
		}
	})

	Describe("coverage.csv", func() {
		var rows []reports.CoverageRow

		BeforeEach(func() {
			Expect(gocsv.UnmarshalBytes(read(reports.CoverageCSV), &rows)).To(Succeed())
		})

		row := func(suite, kind, item string) reports.CoverageRow {
			for _, r := range rows {
				if r.Suite == suite && r.Kind == kind && r.Item == item {
					return r
				}
			}
			Fail("no coverage row " + suite + " " + kind + " " + item)
			return reports.CoverageRow{}
		}

		It("lists the kinds of a suite in order: states, transitions, intents, slots, guards, tags", func() {
			var kinds []string
			for _, r := range rows {
				if r.Suite == "greeter" && (len(kinds) == 0 || kinds[len(kinds)-1] != r.Kind) {
					kinds = append(kinds, r.Kind)
				}
			}
			Expect(kinds).To(Equal([]string{"state", "transition", "intent", "slot", "guard_true", "guard_false", "tag"}))
		})

		It("tells the sources apart: played counts sum scripted and generated, the exploration counts apart", func() {
			hello := row("greeter", "transition", "idle -> asking on hello")
			Expect([]int64{hello.Scripted, hello.Generated, hello.Explored, hello.Count}).To(Equal([]int64{3, 3, 1, 6}))
			Expect(hello.Sources).To(Equal("scripted generated explored"))
			help := row("greeter", "transition", "idle -> (internal) on help")
			Expect(help.Sources).To(Equal("scripted generated"))
			bye := row("greeter", "transition", "asking -> done on bye")
			Expect(bye.Covered).To(BeFalse())
			Expect(bye.Sources).To(BeEmpty())
			Expect(bye.Spec).To(Equal("testdata/suites/greeter/machine.yaml:23:12"))
		})

		It("names where intents and slots are declared, and counts tags over scripted scenarios", func() {
			Expect(row("greeter", "intent", "bye").Spec).To(Equal("testdata/suites/greeter/machine.yaml:7:26"))
			Expect(row("greeter", "intent", "bye").Covered).To(BeFalse())
			Expect(row("greeter", "slot", "name").Spec).To(Equal("testdata/suites/greeter/machine.yaml:9:3"))
			Expect(row("greeter", "tag", "contradiction").Count).To(Equal(int64(1)))
			Expect(row("greeter", "tag", "timeout").Covered).To(BeFalse())
		})

		It("keeps transitions.csv counting the conversations played", func() {
			var trans []reports.TransitionRow
			Expect(gocsv.UnmarshalBytes(read(reports.TransitionsCSV), &trans)).To(Succeed())
			for _, t := range trans {
				if t.Suite == "greeter" && t.Transition == 0 {
					Expect(t.Count).To(Equal(int64(6)))
				}
			}
		})
	})

	Describe("turns.csv", func() {
		It("has a row per turn, with what the NLU made of it and what the bot said", func() {
			var rows []reports.TurnRow
			Expect(gocsv.UnmarshalBytes(read(reports.TurnsCSV), &rows)).To(Succeed())
			Expect(rows).To(HaveLen(12))
			last := rows[len(rows)-1]
			Expect(last).To(Equal(reports.TurnRow{Suite: "greeter", Variant: "default", Scenario: "markup",
				File: "testdata/suites/greeter/markup.scenario.yaml", Turn: 2, Kind: "user", Input: "<script>alert(1)</script>",
				Intent: "inform", State: "idle", BotSaid: "Hello <script>alert(1)</script>!", NLU: "called", Transitions: 2}))
			Expect(rows[3].Kind).To(Equal("wait"))
			Expect(rows[3].Input).To(Equal("6000ms"))
		})
	})

	Describe("invariants.csv", func() {
		It("says for every invariant of every variant what broke it and whether that is known", func() {
			var rows []reports.InvariantRow
			Expect(gocsv.UnmarshalBytes(read(reports.InvariantsCSV), &rows)).To(Succeed())
			byName := map[string]reports.InvariantRow{}
			for _, r := range rows {
				byName[r.Suite+"/"+r.Invariant] = r
			}
			Expect(byName["alarm/runtime_error"].Status).To(Equal(reports.InvBroken))
			Expect(byName["alarm/timer_law"].Status).To(Equal(reports.InvHolds))
			bob := byName["greeter/no_bob"]
			Expect(bob.Kind).To(Equal(reports.InvNever))
			Expect(bob.DeclaredAt).To(Equal("testdata/suites/greeter/machine.yaml:31:11"))
			// Known in the bob scenario, unknown in the generated failure
			// and the exploration.
			Expect([]int{bob.Scenarios, bob.Generated, bob.Explored, bob.Violations}).To(Equal([]int{1, 1, 1, 3}))
			Expect(bob.Status).To(Equal(reports.InvBroken))
			Expect(byName["greeter/dead_end"].Status).To(Equal(reports.InvKnown))
		})
	})

	Describe("failures.csv", func() {
		It("lists scripted, generated and explored problems with the command that replays each", func() {
			var rows []reports.FailureRow
			Expect(gocsv.UnmarshalBytes(read(reports.FailuresCSV), &rows)).To(Succeed())
			sources := map[string]int{}
			for _, r := range rows {
				sources[r.Source]++
				Expect(r.Replay).To(HavePrefix("simctl "))
			}
			Expect(sources).To(Equal(map[string]int{"scripted": 5, "generated": 2, "explored": 1}))
			gen := rows[5]
			Expect(gen.File).To(Equal("failures/gen-greeter-default-no_bob-1.scenario.yaml"))
			Expect(gen.Replay).To(Equal("simctl replay failures/gen-greeter-default-no_bob-1.scenario.yaml"))
			Expect(rows[6].Known).To(Equal("the <i>document</i> says so"))
			Expect(rows[7].Replay).To(Equal("simctl explore testdata/suites/greeter --depth 3 --emit-scenarios explored"))
		})
	})

	Describe("junit.xml", func() {
		var data []byte

		BeforeEach(func() {
			data = read(reports.JUnitXML)
		})

		It("decodes back into its schema, with consistent counts and the seed as a property", func() {
			var doc reports.JUnitTestSuites
			Expect(xml.Unmarshal(data, &doc)).To(Succeed())
			want, err := reports.NewJUnitReport(fullFixtureRun())
			Expect(err).NotTo(HaveOccurred())
			want.XMLName = doc.XMLName
			Expect(doc).To(Equal(*want))
			Expect(doc.TestSuites).To(HaveLen(2))
			total, failures := 0, 0
			for _, ts := range doc.TestSuites {
				Expect(ts.Tests).To(Equal(len(ts.TestCases)))
				n := 0
				for _, c := range ts.TestCases {
					if c.Failure != nil {
						n++
					}
				}
				Expect(ts.Failures).To(Equal(n))
				Expect(ts.Properties.Properties).To(ContainElement(reports.JUnitProperty{Name: "seed", Value: "42"}))
				total, failures = total+ts.Tests, failures+ts.Failures
				seconds := 0.0
				for _, c := range ts.TestCases {
					seconds += c.Time
				}
				Expect(ts.Time).To(BeNumerically("~", seconds, 1e-9))
			}
			Expect([]int{doc.Tests, doc.Failures}).To(Equal([]int{total, failures}))
			// Times are simulated (the virtual clock), never stamps of the wall clock.
			Expect(string(data)).NotTo(ContainSubstring("timestamp"))
			Expect(string(data)).To(MatchRegexp(`<testcase [^>]*time="[1-9]`))
		})

		It("reads as CI viewers read it (go-junit): failures failed, known contradictions passed with a note", func() {
			suites, err := junit.Ingest(data)
			Expect(err).NotTo(HaveOccurred())
			Expect(suites).To(HaveLen(2))
			status := map[string]junit.Status{}
			out := map[string]string{}
			for _, s := range suites {
				for _, t := range s.Tests {
					status[s.Name+"/"+t.Name] = t.Status
					out[s.Name+"/"+t.Name] = t.SystemOut
				}
				Expect(s.Properties).To(HaveKeyWithValue("seed", "42"))
			}
			Expect(status).To(HaveKeyWithValue("alarm/siren", junit.StatusFailed))
			Expect(status).To(HaveKeyWithValue("alarm/disarm", junit.StatusPassed))
			Expect(status).To(HaveKeyWithValue("greeter/markup", junit.StatusFailed))
			Expect(status).To(HaveKeyWithValue("greeter/bob", junit.StatusPassed))
			Expect(out["greeter/bob"]).To(ContainSubstring("known: breaks no_bob: in idle: modelling_choice"))
			Expect(status).To(HaveKeyWithValue("greeter/invariant no_bob", junit.StatusFailed))
			Expect(status).To(HaveKeyWithValue("greeter/invariant dead_end", junit.StatusPassed))
			Expect(status).To(HaveKeyWithValue("greeter/generated gen-greeter-default-no_bob-1", junit.StatusFailed))
			Expect(status).To(HaveKeyWithValue("greeter/generated gen-greeter-default-dead_end-2", junit.StatusPassed))
			Expect(status).To(HaveKeyWithValue("greeter/explored no_bob", junit.StatusFailed))
			Expect(status).To(HaveKeyWithValue("greeter/generated conversations", junit.StatusPassed))
			for _, s := range suites {
				if s.Name == "greeter" {
					Expect(s.Totals.Tests).To(Equal(len(s.Tests)))
					// markup, and no_bob three times: its check, the
					// generated failure and the exploration's finding.
					Expect(s.Totals.Failed).To(Equal(4))
				}
			}
		})

		It("keeps the markup of user text escaped and the failure's trace and replay command in its body", func() {
			Expect(string(data)).NotTo(ContainSubstring("<script>"))
			var doc reports.JUnitTestSuites
			Expect(xml.Unmarshal(data, &doc)).To(Succeed())
			for _, c := range doc.TestSuites[1].TestCases {
				if c.Name == "markup" {
					Expect(c.Failure.Description).To(ContainSubstring(`bot said: got "Hello <script>alert(1)</script>!"`))
					Expect(c.Failure.Description).To(ContainSubstring("replay: simctl replay testdata/suites/greeter/markup.scenario.yaml"))
					Expect(c.Failure.Description).To(ContainSubstring("turn 2: asking --inform--> greeting"))
				}
			}
		})
	})

	Describe("report.html", func() {
		var html string

		BeforeEach(func() {
			html = string(read(reports.ReportHTML))
		})

		It("has every documented section of every suite", func() {
			for _, suite := range []string{"alarm", "greeter"} {
				for _, id := range []string{"suite-", "failures-", "graph-", "coverage-", "invariants-", "generated-", "explored-", "latency-"} {
					Expect(html).To(ContainSubstring(`id="` + id + suite + `"`))
				}
			}
			Expect(html).To(ContainSubstring(`id="overview"`))
		})

		It("escapes user text everywhere, the state graph and the charts included", func() {
			Expect(strings.Count(html, "<script>")).To(Equal(1), "only the report's own script")
			Expect(html).NotTo(ContainSubstring("<script>alert"))
			Expect(html).NotTo(ContainSubstring("<b>"))
			Expect(html).NotTo(ContainSubstring("<i>document"))
			Expect(html).To(ContainSubstring("the &lt;i&gt;document&lt;/i&gt; says so"))
			Expect(html).To(ContainSubstring("Hello &lt;script&gt;alert(1)&lt;/script&gt;!"))
		})

		It("draws the state graph inline with covered, explored-only and uncovered edges apart", func() {
			graph := section(html, "graph-greeter")
			Expect(graph).To(ContainSubstring("<svg "))
			Expect(graph).To(ContainSubstring(`class="edge covered"`))
			Expect(graph).To(ContainSubstring(`class="edge uncovered"`))
			Expect(graph).To(ContainSubstring(">bye ×0</text>"))
			Expect(graph).To(ContainSubstring(">hello ×6</text>"))
		})

		It("embeds the gonum latency charts as inline SVG without namespaces or fetches", func() {
			lat := section(html, "latency-greeter")
			Expect(strings.Count(lat, "<svg")).To(Equal(2))
			Expect(lat).To(ContainSubstring("Turn latency (200 turns)"))
			Expect(lat).NotTo(ContainSubstring("xmlns"))
			Expect(section(html, "latency-alarm")).To(ContainSubstring("No latency measured"))
		})

		It("shows a failing scenario turn by turn, got against want, with its trace and replay command", func() {
			f := section(html, "failures-greeter")
			Expect(f).To(ContainSubstring(`<tr class="failed"><td class="n">2</td><td>user</td><td>&lt;script&gt;alert(1)&lt;/script&gt;</td>`))
			Expect(f).To(ContainSubstring(`✗ bot said: got <code class="got">&#34;Hello &lt;script&gt;alert(1)&lt;/script&gt;!&#34;</code>`))
			Expect(f).To(ContainSubstring("✗ after the last turn: final state"))
			Expect(f).To(ContainSubstring("Trace (4 transitions)"))
			Expect(f).To(ContainSubstring(`<pre class="replay">simctl replay testdata/suites/greeter/markup.scenario.yaml</pre>`))
		})

		It("links each generated failure's scenario file and gives its replay command", func() {
			f := section(html, "failures-greeter")
			Expect(f).To(ContainSubstring(`<a href="failures/gen-greeter-default-no_bob-1.scenario.yaml">`))
			Expect(f).To(ContainSubstring("simctl replay failures/gen-greeter-default-no_bob-1.scenario.yaml"))
			Expect(f).To(ContainSubstring("simctl explore testdata/suites/greeter --depth 3 --emit-scenarios explored"))
		})

		It("fails the overview of a suite whose generated conversations broke an invariant", func() {
			Expect(section(html, "overview")).To(MatchRegexp(`greeter</a></td><td class="id"></td><td><span class="badge fail">`))
		})
	})
})

// section returns the element with the given id and what it holds, up to
// the next element of the same kind (enough for these tests).
func section(html, id string) string {
	start := strings.Index(html, `id="`+id+`"`)
	Expect(start).To(BeNumerically(">=", 0), "no element with id %s", id)
	rest := html[start:]
	next := regexp.MustCompile(`<section id=|<header id=`).FindStringIndex(rest[1:])
	if next == nil {
		return rest
	}
	return rest[:next[0]+1]
}

func must[T any](v T, err error) T {
	Expect(err).NotTo(HaveOccurred())
	return v
}
