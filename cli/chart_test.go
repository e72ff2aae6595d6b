package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

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

	It("run on the booking example (parallel regions, deep history, done.state) passes", func() {
		code, stdout, stderr := run(noOut, "run", "../examples/booking-scxml", "--out", "", "--generate", "100", "--quiet")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK), stdout)
		golden("run-booking-scxml.txt", []byte(stdout))
	})

	It("--generate draws runs from the event alphabet, the same for the same seed", func() {
		code, first, _ := run(noOut, "run", "../docs/examples/research", "--out", "", "--generate", "50", "--seed", "3", "--quiet")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(first).To(MatchRegexp(`generated +50 runs of at most 20 events: final state reached \d+\.\d%`))
		_, again, _ := run(noOut, "run", "../docs/examples/research", "--out", "", "--generate", "50", "--seed", "3", "--quiet")
		Expect(again).To(Equal(first))
	})

	It("run writes the reports a YAML suite gets, byte-identical in two output folders", func() {
		base := GinkgoT().TempDir()
		var dirs []string
		for _, name := range []string{"a", "b"} {
			out := filepath.Join(base, name)
			code, stdout, stderr := run(out, "run", "../examples/booking-scxml", "../docs/examples/research", "--generate", "60", "--quiet", "--out", out)
			Expect(stderr).To(BeEmpty())
			Expect(code).To(Equal(cli.ExitOK), stdout)
			dirs = append(dirs, out)
		}
		a, b := files(dirs[0]), files(dirs[1])
		for _, f := range []string{"summary.json", "scenarios.csv", "transitions.csv", "coverage.csv", "turns.csv",
			"invariants.csv", "failures.csv", "generated.csv", "junit.xml", "report.html"} {
			Expect(a).To(HaveKey(f))
		}
		Expect(a).To(HaveLen(len(b)))
		for name, data := range a {
			Expect(string(b[name])).To(Equal(string(data)), name)
		}
		page := string(a["report.html"])
		for _, section := range []string{`id="coverage-booking"`, `id="explored-booking"`, `id="graph-booking"`, `id="failures-booking"`, "form (parallel)", "H*"} {
			Expect(page).To(ContainSubstring(section))
		}
		// The form's two regions are clusters of their own, drawn dashed.
		for _, region := range []string{"city_slot", "date_slot"} {
			Expect(page).To(MatchRegexp(`class="cluster compound region">\s*<title>cluster_%s</title>\s*<g[^>]*><a><title>[^<]*</title>\s*<path [^>]*stroke-dasharray`, region))
		}
		Expect(string(a["coverage.csv"])).To(ContainSubstring("1,booking,transition,9,help -> resume on back help.timeout,"))
	})

	It("a failing SCXML suite's reports name each failure with the command that replays it", func() {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		code, stdout, _ := run(out, "run", "testdata/charts/halts", "testdata/charts/stuck", "--generate", "20", "--seed", "2", "--quiet", "--out", out)
		Expect(code).To(Equal(cli.ExitFailed))
		golden("run-failing-scxml.txt", []byte(stdout))
		failures := string(files(out)["failures.csv"])
		Expect(failures).To(ContainSubstring("2,halts,,generated,gen-halts-halted-0,failures/gen-halts-halted-0.scenario.yaml,,1,invariant,,,halted,"))
		Expect(failures).To(ContainSubstring(",simctl replay failures/gen-halts-halted-0.scenario.yaml\n"))
		Expect(failures).To(ContainSubstring("2,stuck,,explored,explore,testdata/charts/stuck,,2,invariant,,,stuck_region,"))
		Expect(failures).To(ContainSubstring("simctl explore testdata/charts/stuck --depth 4 --emit-scenarios explored"))

		// The generated failure replays, halting again at its one event.
		code, stdout, stderr := run(out, "replay", filepath.Join(out, "failures", "gen-halts-halted-0.scenario.yaml"))
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitFailed))
		Expect(stdout).To(ContainSubstring("turn 1: a macrostep did not settle after 10000 microsteps and internal events"))
		Expect(stdout).To(ContainSubstring("… --…--> (9902 more transitions in this turn)"))
	})

	It("explore reports a stuck region with its shortest path", func() {
		code, stdout, _ := run(noOut, "explore", "testdata/charts/stuck")
		Expect(code).To(Equal(cli.ExitFailed))
		golden("explore-stuck-scxml.txt", []byte(stdout))
	})

	It("explore prints what docs/scxml.md shows for the stuck chart", func() {
		page, err := os.ReadFile("../docs/scxml.md")
		Expect(err).NotTo(HaveOccurred())
		_, shown, ok := strings.Cut(string(page), "$ simctl explore cli/testdata/charts/stuck\n")
		Expect(ok).To(BeTrue())
		shown, _, _ = strings.Cut(shown, "```")
		_, stdout, _ := run(noOut, "explore", "testdata/charts/stuck")
		Expect(stdout).To(Equal(shown))
	})

	It("explore and run say when the state bound, not the depth, stopped a chart's search", func() {
		code, stdout, _ := run(noOut, "explore", "testdata/charts/stuck", "--max-states", "3")
		Expect(code).To(Equal(cli.ExitOK), "a bound never causes a finding")
		Expect(stdout).To(ContainSubstring("  stopped: the search reached 3 configurations (--max-states); depth 2 is only partly explored\n"))
		code, stdout, _ = run(noOut, "run", "../docs/examples/research", "--max-states", "3", "--out", "")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("to depth 2: 6 distinct states, 6 transitions of 10\n         stopped: the search reached 3 configurations"))
	})

	It("explore --emit-scenarios writes each finding as a scenario that replay plays", func() {
		dir := GinkgoT().TempDir()
		code, stdout, _ := run(noOut, "explore", "testdata/charts/stuck", "--emit-scenarios", dir)
		Expect(code).To(Equal(cli.ExitFailed))
		Expect(stdout).To(ContainSubstring("wrote 2 scenarios of SCXML findings to"))
		code, stdout, stderr := run(noOut, "replay", dir+"/stuck-stuck-region.scenario.yaml")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("docs_searching --docs.failed--> docs_waiting_quota"))
	})

	It("replay --out writes the reports of the scenario it plays", func() {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		code, _, stderr := run(out, "replay", "../examples/booking-scxml/help_resumes.scenario.yaml", "--out", out)
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		Expect(string(files(out)["scenarios.csv"])).To(ContainSubstring("1,booking,,help_resumes,../examples/booking-scxml/help_resumes.scenario.yaml,pass,"))
	})

	It("--only selects the scenarios of an SCXML suite by tag", func() {
		code, stdout, _ := run(noOut, "run", "../docs/examples/research", "--out", "", "--only", "timeout")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("1 scenario in 1 suite: 1 passed"))
	})

	It("explore and run pass the same machine without the flaw", func() {
		code, stdout, _ := run(noOut, "explore", "testdata/charts/fixed", "../docs/examples/research")
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(strings.Count(stdout, "no dead ends, stuck regions or livelocks")).To(Equal(2), stdout)
		code, stdout, _ = run(noOut, "run", "testdata/charts/fixed", "--generate", "50", "--out", "")
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(ContainSubstring("explored                                       completely: 8 distinct states, 9 transitions of 9\n"))
	})

	It("lint passes the SCXML suites", func() {
		code, stdout, stderr := run(noOut, "lint", "../examples/booking-scxml", "../docs/examples/research", "testdata/charts/fixed")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(Equal("lint: 3 suites, 0 errors, 0 warnings\n"))
	})

	It("lint warns of an expression that does not compile (W3C test312), which run loads and raises error.execution for", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "machine.scxml"), []byte(`<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0">
<state id="a"><onentry>
  <assign location="x" expr="return"/></onentry>
  <transition event="error.execution" target="done"/></state>
<final id="done"/></scxml>
`), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "raised.scenario.yaml"), []byte("turns:\n  - wait: 1s\n    expect: {done: true}\n"), 0o644)).To(Succeed())
		code, stdout, _ := run(noOut, "lint", dir)
		Expect(code).To(Equal(cli.ExitOK))
		Expect(strings.ReplaceAll(stdout, dir, "SUITE")).To(Equal(`SUITE/machine.scxml:3:3: warning: expression "return" does not compile: SyntaxError: Unexpected token return (it raises error.execution when evaluated)
lint: 1 suite, 0 errors, 1 warning
`))
		code, stdout, _ = run(noOut, "run", dir, "--explore-depth", "0", "--out", "")
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(ContainSubstring("1 scenario in 1 suite: 1 passed"))
	})

	It("run and explore survive a foreach over new Array(4294967295) (error.execution, no Go fatal)", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "machine.scxml"), []byte(`<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0">
<state id="a"><transition event="go" target="b"/></state>
<state id="b"><onentry><foreach array="new Array(4294967295)" item="i"/></onentry>
  <transition event="error.execution" target="done"/></state>
<final id="done"/></scxml>
`), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "go.scenario.yaml"), []byte("turns:\n  - event: {name: go}\n    expect: {done: true}\n"), 0o644)).To(Succeed())
		code, stdout, stderr := run(noOut, "run", dir, "--out", "")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK), stdout)
		code, stdout, stderr = run(noOut, "explore", dir)
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(ContainSubstring("no dead ends, stuck regions or livelocks"))
	})

	It("plain explore finds a region stuck behind escapes and a leaked delayed send in an SCXML suite", func() {
		dir := GinkgoT().TempDir()
		src, err := os.ReadFile("../explore/testdata/charts/pizza.scxml")
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dir, "machine.scxml"), src, 0o644)).To(Succeed())
		code, stdout, stderr := run(noOut, "explore", dir)
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitFailed), stdout)
		Expect(stdout).To(ContainSubstring("  FAIL  stuck: shortest path 3 events: a top-level final state can be reached from here only through an escape (cancel, session.timeout, the delayed session.timeout)"))
		Expect(stdout).To(ContainSubstring("  FAIL  leaked_timer: shortest path 5 events: delayed event session.timeout fell due in confirmed"))
	})

	It("lint lists every bad scenario file of an SCXML suite, one line each", func() {
		dir := GinkgoT().TempDir()
		src, err := os.ReadFile("../docs/examples/research/machine.scxml")
		Expect(err).NotTo(HaveOccurred())
		for name, content := range map[string]string{
			"machine.scxml":      string(src),
			"a.scenario.yaml":    "turns:\n  - event: {name: ask}\n    expect: {configuration: [nowhere]}\n",
			"b.scenario.yaml":    "name: same\nturns:\n  - wait: soon\n",
			"c.scenario.yaml":    "name: same\nturns:\n  - event: {name: ask}\n",
			"d.scenario.yaml":    "name: same\nturns:\n  - event: {name: ask}\n",
			"good.scenario.yaml": "turns:\n  - event: {name: ask}\n    expect: {active: [research]}\n",
		} {
			Expect(os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)).To(Succeed())
		}
		code, stdout, _ := run(noOut, "lint", dir)
		Expect(code).To(Equal(cli.ExitBadInput))
		Expect(strings.ReplaceAll(stdout, dir, "SUITE")).To(Equal(`SUITE/a.scenario.yaml:3:30: error: unknown state "nowhere"
SUITE/b.scenario.yaml:3:11: error: expected a duration such as 30s, 5m or 1500ms, got "soon"
SUITE/d.scenario.yaml:1:1: error: duplicate scenario name "same" (also in SUITE/c.scenario.yaml)
lint: 1 suite, 3 errors, 0 warnings
`))
		code, stdout, stderr := run(noOut, "run", dir, "--out", "")
		Expect(code).To(Equal(cli.ExitBadInput))
		Expect(stdout).To(BeEmpty())
		Expect(strings.ReplaceAll(stderr, dir, "SUITE")).To(Equal("simctl: SUITE/a.scenario.yaml:3:30: unknown state \"nowhere\"\n"))
	})

	It("graph draws a parallel state's regions as clusters (DOT) and subgraphs (Mermaid), dashed", func() {
		code, stdout, _ := run(noOut, "graph", "../examples/booking-scxml", "--format", "dot")
		Expect(code).To(Equal(cli.ExitOK))
		golden("graph-booking-scxml.dot", []byte(stdout))
		code, stdout, _ = run(noOut, "graph", "../examples/booking-scxml", "--format", "mermaid")
		Expect(code).To(Equal(cli.ExitOK))
		golden("graph-booking-scxml.mmd", []byte(stdout))
		code, stdout, _ = run(noOut, "graph", "../docs/examples/research", "--format", "svg")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("<svg"))
		Expect(stdout).To(ContainSubstring("cluster_research"))
	})

	It("graph --coverage overlays an SCXML suite's counts from an earlier run", func() {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		code, _, _ := run(out, "run", "../docs/examples/research", "--only", "timeout", "--explore-depth", "0", "--out", out)
		Expect(code).To(Equal(cli.ExitOK))
		code, stdout, stderr := run(noOut, "graph", "../docs/examples/research", "--coverage", filepath.Join(out, "transitions.csv"))
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring(`"idle" -> "research" [label="ask ×1", lhead="cluster_research"];`))
		Expect(stdout).To(ContainSubstring(`[label="answer ×0", style=dashed, color=red, fontcolor=red]`))
	})

	DescribeTable("bad SCXML is one file:line:col line and exit 2",
		func(cmd, want string) {
			code, stdout, stderr := run(noOut, cmd, "testdata/charts/bad")
			Expect(code).To(Equal(cli.ExitBadInput))
			Expect(stdout + stderr).To(HavePrefix(want + "\n"))
		},
		Entry("run", "run", "simctl: testdata/charts/bad/machine.scxml:3:5: <invoke> is not supported"),
		Entry("explore", "explore", "simctl: testdata/charts/bad/machine.scxml:3:5: <invoke> is not supported"),
		Entry("graph", "graph", "simctl: testdata/charts/bad/machine.scxml:3:5: <invoke> is not supported"),
		Entry("lint", "lint", "testdata/charts/bad/machine.scxml:3:5: error: <invoke> is not supported"),
	)

	DescribeTable("a bad scenario of an SCXML suite is one file:line:col line and exit 2",
		func(scenario, want string) {
			dir := GinkgoT().TempDir()
			src, err := os.ReadFile("../docs/examples/research/machine.scxml")
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(filepath.Join(dir, "machine.scxml"), src, 0o644)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, "bad.scenario.yaml"), []byte(scenario), 0o644)).To(Succeed())
			code, stdout, stderr := run(noOut, "run", dir, "--out", "")
			Expect(code).To(Equal(cli.ExitBadInput))
			Expect(stdout).To(BeEmpty())
			Expect(strings.ReplaceAll(stderr, dir, "SUITE")).To(Equal("simctl: " + want + "\n"))
		},
		Entry("an unknown state", "turns:\n  - event: {name: ask}\n    expect: {configuration: [web_searching, nowhere]}\n",
			`SUITE/bad.scenario.yaml:3:45: unknown state "nowhere"`),
		Entry("an event no transition handles", "turns:\n  - event: {name: asked}\n",
			`SUITE/bad.scenario.yaml:2:19: unknown event "asked": no transition's event descriptor matches it (the chart's events: answer, ask, docs.failed, docs.result, research.timeout, web.failed, web.result)`),
		Entry("an event without a name", "turns:\n  - event: {data: {q: x}}\n",
			`SUITE/bad.scenario.yaml:2:12: missing required field "name"`),
		Entry("event and wait in one turn", "turns:\n  - event: {name: ask}\n    wait: 1s\n",
			"SUITE/bad.scenario.yaml:2:5: a turn of a chart scenario is exactly one of event or wait"),
		Entry("a bad duration", "turns:\n  - wait: soon\n",
			`SUITE/bad.scenario.yaml:2:11: expected a duration such as 30s, 5m or 1500ms, got "soon"`),
	)

	DescribeTable("the commands that do not read SCXML suites say why in one line, exit 2",
		func(args []string, why string) {
			code, stdout, stderr := run(noOut, args...)
			Expect(code).To(Equal(cli.ExitBadInput))
			Expect(stdout).To(BeEmpty())
			Expect(strings.Count(stderr, "\n")).To(Equal(1), stderr)
			Expect(stderr).To(ContainSubstring(why))
		},
		Entry("mutate", []string{"mutate", "../docs/examples/research", "--out", ""}, "simctl mutate does not read SCXML suites (its mutation operators rewrite machine.yaml's"),
		Entry("record", []string{"record", "../docs/examples/research", "--nlu-url", "http://127.0.0.1:1/model/parse"}, "simctl record does not read SCXML suites (it records a live NLU's parses"),
		Entry("run --nlu-noise", []string{"run", "../docs/examples/research", "--nlu-noise", "0.1", "--generate", "5", "--out", ""}, "an SCXML suite has no NLU to add noise to (--nlu-noise)"),
		Entry("run --nlu-noise-sweep", []string{"run", "../docs/examples/research", "--nlu-noise-sweep", "0,0.1", "--generate", "5", "--out", ""}, "an SCXML suite has no NLU to add noise to (--nlu-noise-sweep)"),
		Entry("explore --variant", []string{"explore", "../docs/examples/research", "--variant", "completo"}, "--variant: suite research is an SCXML suite, which has no variants"),
		Entry("run --bot", []string{"run", "../docs/examples/research", "--bot", "http://127.0.0.1:1/webhooks/rest/webhook", "--out", ""}, "--bot checks a bot's replies against a YAML machine's"),
	)

	It("shards of SCXML and YAML suites merge into what one process writes, for 1, 2 and 3 shards", func() {
		base := GinkgoT().TempDir()
		args := func(extra ...string) []string {
			return append([]string{"run", "../examples/booking-scxml", "../docs/examples/research", "testdata/charts/stuck",
				"../docs/examples/pizza", "--generate", "90", "--seed", "4", "--quiet"}, extra...)
		}
		out := filepath.Join(base, "out")
		var stdout, stderr bytes.Buffer
		code := cli.Main(args("--out", out), &stdout, &stderr)
		Expect(stderr.String()).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitFailed), "the stuck chart fails the run")
		want := files(out)
		Expect(os.RemoveAll(out)).To(Succeed())
		for _, n := range []int{1, 2, 3} {
			var dirs []string
			for i := range n {
				dir := filepath.Join(base, fmt.Sprintf("shard-%d-%d", n, i))
				stderr.Reset()
				Expect(cli.Main(args("--shard", fmt.Sprintf("%d/%d", i, n), "--out", dir), &stdout, &stderr)).To(BeElementOf(cli.ExitOK, cli.ExitFailed))
				Expect(stderr.String()).To(BeEmpty())
				dirs = append(dirs, dir)
			}
			sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
			stderr.Reset()
			c := cli.Main(append(append([]string{"report", "merge"}, dirs...), "--out", out), &stdout, &stderr)
			Expect(stderr.String()).To(BeEmpty())
			Expect(c).To(Equal(code), "the merged verdict must be the run's")
			got := files(out)
			Expect(got).To(HaveLen(len(want)), "shards=%d", n)
			for name, w := range want {
				Expect(string(got[name])).To(Equal(string(w)), "shards=%d: %s differs", n, name)
			}
			Expect(os.RemoveAll(out)).To(Succeed())
		}
	})
})
