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

// SCXML suites (machine.scxml) through every command: each loads as a
// spec.Suite on the compiled engine machine and takes the one code path.
var _ = Describe("SCXML suites", func() {
	It("run plays their scenarios and explores them", func() {
		code, stdout, stderr := run(noOut, "run", "../docs/examples/research", "--out", "")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		golden("run-research-scxml.txt", []byte(stdout))
	})

	It("run on the booking example (parallel regions, a deep history over them, done.state) passes", func() {
		// help_resumes expects both regions of form back at their leaves
		// after back, through the deep history of open.
		code, stdout, stderr := run(noOut, "run", "../examples/booking-scxml", "--out", "", "--generate", "100", "--quiet")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK), stdout)
		golden("run-booking-scxml.txt", []byte(stdout))
	})

	It("counts a chart's handover (<simctl:escalate> in handed_over) as a generated user's escalation", func() {
		// A user who says no to the date twice is handed over: one of
		// these 200 (seed 1) does.
		code, stdout, stderr := run(noOut, "run", "../examples/booking-scxml", "--out", "", "--generate", "200", "--nlu-noise", "0.1", "--explore-depth", "0", "--quiet")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(ContainSubstring(", escalation 0.5%, "))
	})

	It("run --generate 200 --nlu-noise 0.1 plays the users of its users.yaml, the same for the same seed", func() {
		code, first, stderr := run(noOut, "run", "../docs/examples/research", "--out", "", "--generate", "200", "--nlu-noise", "0.1", "--seed", "3", "--quiet")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK), first)
		Expect(first).To(MatchRegexp(`generated +200 conversations: success \d+\.\d% \(users\.yaml success:; cooperative users`))
		Expect(first).To(ContainSubstring("0 violating"))
		_, again, _ := run(noOut, "run", "../docs/examples/research", "--out", "", "--generate", "200", "--nlu-noise", "0.1", "--seed", "3", "--quiet")
		Expect(again).To(Equal(first))
	})

	It("--generate without users.yaml derives users from the chart's events", func() {
		code, stdout, _ := run(noOut, "run", "testdata/charts/fixed", "--out", "", "--generate", "100", "--quiet")
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(MatchRegexp(`generated +100 conversations: success \d+\.\d% \(flow completed; cooperative users 100\.0% of \d+\)`))
	})

	It("--generate on a chart that names no goal claims no success rate and plays whole conversations", func() {
		// The player of package generate: buttons, no final state, no
		// flow, no nlu.yaml, no users.yaml.
		out := filepath.Join(GinkgoT().TempDir(), "out")
		code, stdout, _ := run(out, "run", "../generate/testdata/player", "--out", out, "--generate", "200")
		Expect(code).To(Equal(cli.ExitOK), stdout)
		golden("run-goalless-scxml.txt", []byte(stdout))
		reports := files(out)
		Expect(string(reports["generated.csv"])).To(HaveSuffix("\n1,player,default,200,0,,,50,0,0,0,0,0,0\n"))
		Expect(string(reports["summary.json"])).To(ContainSubstring(`"success_rate": null`))
		Expect(string(reports["report.html"])).To(ContainSubstring("no goal to reach"))
	})

	It("--nlu-noise-sweep on a chart that names no goal records no success rate and draws no success line", func() {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		code, stdout, _ := run(out, "run", "../generate/testdata/player", "--out", out, "--generate", "20", "--nlu-noise-sweep", "0,0.2", "--quiet")
		Expect(code).To(Equal(cli.ExitOK), stdout)
		reports := files(out)
		Expect(string(reports["noise.csv"])).To(ContainSubstring("\n1,player,default,0,20,0,,"))
		Expect(string(reports["noise.csv"])).To(ContainSubstring("\n1,player,default,0.2,20,0,,"))
		Expect(string(reports["summary.json"])).NotTo(ContainSubstring(`"success_rate": 0`))
		Expect(string(reports["report.html"])).NotTo(ContainSubstring("Task success against NLU noise"))
	})

	// testdata/charts/keypad's keys send key.0 to key.9; its descriptor
	// "key" takes every one by its dot-separated prefix, and its scripts
	// read the digit from _event.name.
	It("takes event names of dot-separated tokens by their descriptors' prefixes in scenarios, generated users and the explorer", func() {
		code, stdout, stderr := run(noOut, "lint", "testdata/charts/keypad")
		Expect(code).To(Equal(cli.ExitOK), stdout+stderr)
		code, stdout, _ = run(noOut, "run", "testdata/charts/keypad", "--out", "", "--generate", "200", "--quiet")
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(ContainSubstring("2 passed, 0 failed"))
		Expect(stdout).To(MatchRegexp(`generated +200 conversations: .*0 violating`))
		// The code 1234 comes from the open scenario's key.1 to key.4:
		// the explorer tells them apart, as the chart's scripts do.
		code, stdout, _ = run(noOut, "explore", "testdata/charts/keypad")
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(ContainSubstring("transitions covered: 7 of 7"))
		Expect(stdout).To(ContainSubstring("complete: every reachable configuration was explored"))
	})

	It("mutate scores an SCXML suite, each mutant at its place in machine.scxml", func() {
		// Capped searches: one mutant (findings never reset) has no
		// complete search, and a chart's heap is searched slowly. That
		// mutant runs away (past 10,000 configurations, where the
		// original's search has 60): killed, and reported as such.
		out := filepath.Join(GinkgoT().TempDir(), "out")
		caps := []string{"--max-states", "20000", "--equiv-states", "20000"}
		code, stdout, stderr := run(out, append([]string{"mutate", "../docs/examples/research", "--out", out}, caps...)...)
		Expect(stderr).To(BeEmpty())
		Expect(code).To(BeElementOf(cli.ExitOK, cli.ExitFailed))
		golden("mutate-research-scxml.txt", []byte(stdout))
		Expect(stdout).To(MatchRegexp(`research: mutation score \d+\.\d%`))
		// The retarget of the <transition> at 15:5, whatever its number.
		reports := files(out)
		Expect(string(reports["mutants.csv"])).To(MatchRegexp(`\n1,research,\d+,retarget,\.\./docs/examples/research/machine\.scxml,15,5,killed,scripted,,state idle: on ask -> research: target research changed to idle,scenario both_branches fails\n`))
		Expect(string(reports["mutants.csv"])).To(ContainSubstring(",17,7,runaway,explored,,state idle: on ask -> research: action assign findings = [] dropped,the exploration reaches more than 10000 distinct configurations; the original's finishes with 60\n"))
		Expect(string(reports["report.html"])).To(ContainSubstring("<h4>Runaway mutants (killed)</h4>"))
		// Shards merge into the same reports, the runaway row read back.
		var dirs []string
		for i := 0; i < 2; i++ {
			dir := filepath.Join(GinkgoT().TempDir(), fmt.Sprintf("shard-%d", i))
			run(dir, append([]string{"mutate", "../docs/examples/research", "--out", dir, "--shard", fmt.Sprintf("%d/2", i)}, caps...)...)
			dirs = append(dirs, dir)
		}
		merged := filepath.Join(GinkgoT().TempDir(), "merged")
		_, _, stderr = run(merged, append(append([]string{"report", "merge"}, dirs...), "--out", merged)...)
		Expect(stderr).To(BeEmpty())
		Expect(files(merged)).To(Equal(reports))
	})

	It("mutate on an SCXML suite prints the same bytes on 1, 2 or 4 workers", func() {
		// Each mutant compiles into a data model of its own, so a chart's
		// mutants are judged on workers as a YAML machine's are.
		caps := []string{"--max-states", "5000", "--equiv-states", "5000"}
		_, one, _ := run(noOut, append([]string{"mutate", "../docs/examples/research", "--out", ""}, caps...)...)
		for _, w := range []string{"2", "4"} {
			_, more, stderr := run(noOut, append([]string{"mutate", "../docs/examples/research", "--out", "", "--workers", w}, caps...)...)
			Expect(stderr).To(BeEmpty())
			Expect(more).To(Equal(one), "--workers %s", w)
		}
	})

	It("run writes the reports a YAML suite gets, byte-identical in two output folders", func() {
		base := GinkgoT().TempDir()
		var dirs []string
		for _, name := range []string{"a", "b"} {
			out := filepath.Join(base, name)
			code, stdout, stderr := run(out, "run", "testdata/charts/fixed", "../docs/examples/research", "--generate", "60", "--quiet", "--out", out)
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
		for _, section := range []string{`id="coverage-research"`, `id="explored-research"`, `id="graph-research"`, "research (parallel)"} {
			Expect(page).To(ContainSubstring(section))
		}
		// The research state's two regions are clusters of their own,
		// drawn dashed.
		for _, region := range []string{"research.web", "research.docs"} {
			Expect(page).To(MatchRegexp(`class="cluster compound region">\s*<title>cluster_%s</title>\s*<g[^>]*><a><title>[^<]*</title>\s*<path [^>]*stroke-dasharray`, strings.ReplaceAll(region, ".", `\.`)))
		}
		Expect(string(a["coverage.csv"])).To(ContainSubstring(",research,transition,2,research -> idle on research.timeout,"))
	})

	It("a failing SCXML suite's reports name each failure with the command that replays it", func() {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		code, stdout, _ := run(out, "run", "testdata/charts/halts", "testdata/charts/stuck", "--generate", "20", "--seed", "2", "--quiet", "--out", out)
		Expect(code).To(Equal(cli.ExitFailed))
		golden("run-failing-scxml.txt", []byte(stdout))
		failures := string(files(out)["failures.csv"])
		Expect(failures).To(ContainSubstring("2,halts,default,generated,gen-halts-default-runtime_error-0,failures/gen-halts-default-runtime_error-0.scenario.yaml,,1,invariant,,,runtime_error,"))
		Expect(failures).To(ContainSubstring(",simctl replay failures/gen-halts-default-runtime_error-0.scenario.yaml\n"))
		Expect(failures).To(ContainSubstring("2,stuck,default,explored,explore,testdata/charts/stuck,,2,invariant,,,stuck_region,"))
		Expect(failures).To(ContainSubstring("simctl explore testdata/charts/stuck --depth 4 --emit-scenarios explored"))

		// The generated failure replays, the engine stopping again at its
		// one event.
		code, stdout, stderr := run(out, "replay", filepath.Join(out, "failures", "gen-halts-default-runtime_error-0.scenario.yaml"))
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitFailed))
		Expect(stdout).To(ContainSubstring("invariant runtime_error broken at turn 1 (in b)"))
		Expect(stdout).To(ContainSubstring("eventless transitions did not settle after 10000 steps"))
	})

	It("explore reports a stuck region with its shortest path", func() {
		code, stdout, _ := run(noOut, "explore", "testdata/charts/stuck")
		Expect(code).To(Equal(cli.ExitFailed))
		golden("explore-stuck-scxml.txt", []byte(wallClock.ReplaceAllString(stdout, "")))
	})

	It("explore and run say when the state bound, not the depth, stopped a chart's search", func() {
		code, stdout, _ := run(noOut, "explore", "testdata/charts/stuck", "--max-states", "3")
		Expect(code).To(Equal(cli.ExitOK), "a bound never causes a finding")
		Expect(stdout).To(ContainSubstring("  stopped at 3 distinct configurations (--max-states); raise it or lower --depth\n"))
		code, stdout, _ = run(noOut, "run", "../docs/examples/research", "--max-states", "3", "--out", "")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("to depth 1: 3 distinct states, 1 transitions of 10\n         the search passed 3 configurations (--max-states, explore_max_states); kept to depth 1, the deepest level it completed"))
	})

	It("explore --emit-scenarios writes each finding as a scenario that replay plays", func() {
		dir := GinkgoT().TempDir()
		code, stdout, _ := run(noOut, "explore", "testdata/charts/stuck", "--emit-scenarios", dir)
		Expect(code).To(Equal(cli.ExitFailed))
		Expect(stdout).To(ContainSubstring("wrote 5 scenarios to"))
		code, stdout, stderr := run(noOut, "replay", dir+"/explore-stuck-default-stuck_region.scenario.yaml")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("branch 1: research.docs.docs_searching --docs.failed--> research.docs.docs_waiting_quota"))
	})

	It("replay --out writes the reports of the scenario it plays", func() {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		code, _, stderr := run(out, "replay", "../docs/examples/research/retry.scenario.yaml", "--out", out)
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		Expect(string(files(out)["scenarios.csv"])).To(ContainSubstring("1,research,default,retry,../docs/examples/research/retry.scenario.yaml,pass,"))
	})

	It("--only selects the scenarios of an SCXML suite by tag", func() {
		code, stdout, _ := run(noOut, "run", "../docs/examples/research", "--out", "", "--only", "timeout")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("1 scenario in 1 suite: 1 passed"))
	})

	It("explore and run pass the same machine without the flaw", func() {
		code, stdout, _ := run(noOut, "explore", "testdata/charts/fixed", "../docs/examples/research")
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(strings.Count(stdout, "no violations, dead ends or livelocks")).To(Equal(2), stdout)
		code, stdout, _ = run(noOut, "run", "testdata/charts/fixed", "--generate", "50", "--out", "")
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(ContainSubstring("explored                                       completely: 8 distinct states, 9 transitions of 9\n"))
	})

	It("lint passes the SCXML suites", func() {
		code, stdout, stderr := run(noOut, "lint", "../docs/examples/research", "../examples/booking-scxml", "testdata/charts/fixed")
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
		Expect(stdout).To(ContainSubstring("no violations, dead ends or livelocks"))
	})

	It("plain explore finds a region stuck behind escapes and a leaked delayed send in an SCXML suite", func() {
		dir := GinkgoT().TempDir()
		src, err := os.ReadFile("../explore/testdata/charts/pizza.scxml")
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dir, "machine.scxml"), src, 0o644)).To(Succeed())
		code, stdout, stderr := run(noOut, "explore", dir)
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitFailed), stdout)
		Expect(stdout).To(ContainSubstring("  FAIL  stuck: from active.preparing the task can end only through an escape (cancel, session.timeout, timer:send.session.timeout#session): its own completion cannot be reached\n         shortest path, 3 events:\n            1. add.cheese\n            2. checkout\n            3. stock.unknown\n"))
		Expect(stdout).To(ContainSubstring("  FAIL  leaked_timer: timer send.session.timeout#session fell due at 300000ms in confirmed, which does not handle it"))
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
		Expect(strings.ReplaceAll(stdout, dir, "SUITE")).To(Equal(`SUITE/a.scenario.yaml:3:30: error: unknown state "nowhere" (states: answered, idle, research, research.docs, research.docs.docs_done, research.docs.docs_searching, research.web, research.web.web_done, research.web.web_searching, synthesis)
SUITE/b.scenario.yaml:3:11: error: expected a duration such as 30s, 5m or 1500ms, got "soon"
SUITE/d.scenario.yaml:1:1: error: duplicate scenario name "same" (also in SUITE/c.scenario.yaml)
lint: 1 suite, 3 errors, 0 warnings
`))
		code, stdout, stderr := run(noOut, "run", dir, "--out", "")
		Expect(code).To(Equal(cli.ExitBadInput))
		Expect(stdout).To(BeEmpty())
		Expect(strings.ReplaceAll(stderr, dir, "SUITE")).To(HavePrefix("simctl: SUITE/a.scenario.yaml:3:30: unknown state \"nowhere\" (states: "))
	})

	It("graph draws a parallel state's regions as clusters (DOT) and subgraphs (Mermaid), dashed", func() {
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

	It("graph --coverage overlays an SCXML suite's counts from an earlier run", func() {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		code, _, _ := run(out, "run", "../docs/examples/research", "--only", "timeout", "--explore-depth", "0", "--out", out)
		Expect(code).To(Equal(cli.ExitOK))
		code, stdout, stderr := run(noOut, "graph", "../docs/examples/research", "--coverage", filepath.Join(out, "transitions.csv"))
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring(`"idle" -> "research" [label="ask ×1", lhead="cluster_research"];`))
		Expect(stdout).To(ContainSubstring(`"synthesis" -> "idle" [label="answer ×0", style=dashed, color=red, fontcolor=red];`))
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
			`SUITE/bad.scenario.yaml:3:45: unknown state "nowhere" (states: answered, idle, research, research.docs, research.docs.docs_done, research.docs.docs_searching, research.web, research.web.web_done, research.web.web_searching, synthesis)`),
		Entry("an event no transition handles", "turns:\n  - event: {name: asked}\n",
			`SUITE/bad.scenario.yaml:2:19: unknown event "asked": no transition's event descriptor matches it (the machine's events: answer, ask, docs.failed, docs.result, error.communication, error.execution, error.platform, research.timeout, web.failed, web.result)`),
		Entry("an event without a name", "turns:\n  - event: {data: {q: x}}\n",
			`SUITE/bad.scenario.yaml:2:12: missing required field "intent" (or "name", an SCXML event's)`),
		Entry("an event with an intent and a name", "turns:\n  - event: {name: ask, intent: ask}\n",
			`SUITE/bad.scenario.yaml:2:19: an event has an intent or a name, not both`),
		Entry("event and wait in one turn", "turns:\n  - event: {name: ask}\n    wait: 1s\n",
			"SUITE/bad.scenario.yaml:2:5: a turn needs exactly one of user, wait or event"),
		Entry("a bad duration", "turns:\n  - wait: soon\n",
			`SUITE/bad.scenario.yaml:2:11: expected a duration such as 30s, 5m or 1500ms, got "soon"`),
	)

	DescribeTable("what cannot apply to an SCXML suite says why in one line, exit 2",
		func(args []string, why string) {
			code, stdout, stderr := run(noOut, args...)
			Expect(code).To(Equal(cli.ExitBadInput))
			Expect(stdout).To(BeEmpty())
			Expect(strings.Count(stderr, "\n")).To(Equal(1), stderr)
			Expect(stderr).To(ContainSubstring(why))
		},
		Entry("record", []string{"record", "../docs/examples/research", "--nlu-url", "http://127.0.0.1:1/model/parse"}, "../docs/examples/research/machine.scxml: simctl record has nothing to record: it records a live NLU's parses of the user: turns"),
	)

	It("record writes nothing for an SCXML suite", func() {
		run(noOut, "record", "../docs/examples/research", "--nlu-url", "http://127.0.0.1:1/model/parse")
		Expect(filepath.Join("..", "docs", "examples", "research", "nlu.cassette.jsonl")).NotTo(BeAnExistingFile())
	})

	It("shards of SCXML and YAML suites merge into what one process writes, for 1, 2 and 3 shards", func() {
		base := GinkgoT().TempDir()
		args := func(extra ...string) []string {
			return append([]string{"run", "testdata/charts/fixed", "../docs/examples/research", "testdata/charts/stuck",
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
