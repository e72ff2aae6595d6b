package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

// plant is one fault planted in a copy of a seed suite: in its
// machine.yaml, the first line at or after the line starting with After
// that holds Old gets New instead; the run must fail naming Want.
type plant struct {
	Suite string
	After string
	Old   string
	New   string
	Want  string
	// Depth is the exploration's depth ("": 2, which finds most plants).
	Depth string
}

// plantIn copies the suite, plants p in its machine.yaml and returns the
// copy's folder and the planted line's number.
func plantIn(p plant) (string, int) {
	dir := copySuiteDir(filepath.Join("..", "scenarios", p.Suite))
	path := filepath.Join(dir, "machine.yaml")
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	lines := strings.Split(string(data), "\n")
	at := -1
	for i, l := range lines {
		if at < 0 && strings.HasPrefix(l, p.After) {
			at = i
		}
		if at >= 0 && strings.Contains(l, p.Old) {
			lines[i] = strings.Replace(l, p.Old, p.New, 1)
			Expect(os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)).To(Succeed())
			return dir, i + 1
		}
	}
	Fail(fmt.Sprintf("%s: no %q after %q", path, p.Old, p.After))
	return "", 0
}

var _ = Describe("verdicts on planted faults", func() {
	// A move a suite's table forbids fails the run even though the table
	// carries notes for other moves; so does a broken guard.
	DescribeTable("fail the run, naming the move",
		func(p plant) {
			dir, _ := plantIn(p)
			var stdout, stderr bytes.Buffer
			// A shallow search finds most planted moves; it keeps the test fast.
			depth := p.Depth
			if depth == "" {
				depth = "2"
			}
			code := cli.Main([]string{"run", "--quiet", "--explore-depth", depth, "--out", "", dir}, &stdout, &stderr)
			Expect(stderr.String()).To(BeEmpty())
			Expect(code).To(Equal(cli.ExitFailed), stdout.String())
			Expect(stdout.String()).To(ContainSubstring(p.Want))
		},
		Entry("soni: error --cancel--> completed", plant{Suite: "soni", After: "  error:", Old: "target: idle", New: "target: completed", Want: "error -> completed"}),
		Entry("soni: a broken guard (error recovery to the wrong step)", plant{Suite: "soni", After: "states:", Old: `recovery_state == "executing_action"`, New: `recovery_state != "executing_action"`, Want: "FAIL"}),
		Entry("thea: completed -> agent_delegated", plant{Suite: "thea", After: "  completed:", Old: "target: initial", New: "target: agent_delegated", Want: "completed -> agent_delegated"}),
		// A note names its states exactly: thea's note on AgendaAgent's
		// "no" -> cancelled does not excuse another agent's move there.
		Entry("thea: ReminderAgent -> cancelled (an agenda note does not excuse it)", plant{Suite: "thea", After: "      reminder_agent:", Old: "target: completed", New: "target: cancelled",
			Want: "agent_delegated.reminder_agent.awaiting_reminder_details -> cancelled"}),
		// The finding names the actual move into the state the table looks
		// through, not the table's completed -> completed.
		Entry("thea: completed -> reminder_agent", plant{Suite: "thea", After: "  completed:", Old: "target: initial", New: "target: reminder_agent.awaiting_reminder_details",
			Want: "completed -> agent_delegated.reminder_agent.awaiting_reminder_details -> completed", Depth: "6"}),
		// WORKLOAD.md forbids both: its table (validating_slot is transient,
		// so cancel never leaves it) and its deny trace (through completed).
		Entry("bench-soni: validating_slot -> idle, skipping error", plant{Suite: "bench-soni", After: "  validating_slot:", Old: "- target: error", New: "- target: idle",
			Want: "validating_slot -> idle"}),
		Entry("bench-soni: confirming deny -> idle", plant{Suite: "bench-soni", After: "  confirming:", Old: "deny: {target: completed", New: "deny: {target: idle",
			Want: "turn 5: path: got [idle], want [completed, idle]"}),
		Entry("hfsm: retry -> answer", plant{Suite: "hfsm", After: "  retry:", Old: "target: router", New: "target: answer", Want: "retry -> answer"}),
		Entry("formfill: prompt_next -> validate", plant{Suite: "formfill", After: "  prompt_next:", Old: "target: END", New: "target: validate", Want: "prompt_next -> validate"}),
	)

	// A contradiction is only what its seed says: a citation of a document
	// or a text the sources do not hold fails lint (exit 2) and the run.
	// On soni: lint runs the exploration run would, and thea's complete one
	// cost 13 s of CPU per lint; the citation check is the same for every
	// suite's notes.
	It("fails a fabricated citation in lint and run", func() {
		dir, line := plantIn(plant{Suite: "soni", After: "  - name: soni_003_transition_matrix", Old: "seed: 001_2dc4cc250bdceda9.txt:19", New: "seed: 999_does_not_exist.txt:4242"})
		var stdout, stderr bytes.Buffer
		code := cli.Main([]string{"lint", dir}, &stdout, &stderr)
		Expect(code).To(Equal(cli.ExitBadInput), stdout.String())
		want := fmt.Sprintf("machine.yaml:%d:9: error: seed 999_does_not_exist.txt:4242: no document 999_does_not_exist.txt in the suite's sources", line-1)
		Expect(stdout.String()).To(ContainSubstring(want))
		stdout.Reset()
		code = cli.Main([]string{"run", "--quiet", "--explore-depth", "2", "--out", "", dir}, &stdout, &stderr)
		Expect(code).To(Equal(cli.ExitFailed), stdout.String())
		Expect(stdout.String()).To(ContainSubstring("FAIL citation "))
		Expect(stdout.String()).To(ContainSubstring("1 citation not in the seed"))

		dir, _ = plantIn(plant{Suite: "soni", After: "  - name: soni_001_valid_transitions", Old: `quote: "#### Rule 3: WAITING_FOR_SLOT → VALIDATING_SLOT"`, New: "quote: made-up text"})
		stdout.Reset()
		code = cli.Main([]string{"lint", dir}, &stdout, &stderr)
		Expect(code).To(Equal(cli.ExitBadInput), stdout.String())
		Expect(stdout.String()).To(ContainSubstring(`seed 003_cf9da15b472e961e.txt:519: the quote is not in 003_cf9da15b472e961e.txt at lines 516-522 (whitespace aside): "made-up text"`))
	})

	// formfill's complete search (97,670 configurations, ten million
	// generated) takes minutes under -race: depth 3 reaches its findings.
	It("passes the clean suites", func() {
		var stdout, stderr bytes.Buffer
		code := cli.Main([]string{"run", "--quiet", "--out", "", "../scenarios/bench-soni", "../scenarios/hfsm"}, &stdout, &stderr)
		Expect(stderr.String()).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK), stdout.String())
		Expect(stdout.String()).NotTo(ContainSubstring("STALE"))
		stdout.Reset()
		code = cli.Main([]string{"run", "--quiet", "--explore-depth", "3", "--out", "", "../scenarios/formfill"}, &stdout, &stderr)
		Expect(stderr.String()).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK), stdout.String())
		Expect(stdout.String()).NotTo(ContainSubstring("STALE"))
	})

	// Explored completely, soni meets the explorer's stuck analysis (from
	// error only cancel ends the task: 003's recovery reruns the failing
	// action), which its machine notes as a modelling choice; thea's
	// completed is idle (000: "Tarea finalizada"), so it has none.
	It("passes soni and thea, soni's stuck finding known by its note", func() {
		var stdout, stderr bytes.Buffer
		code := cli.Main([]string{"run", "--quiet", "--out", "", "../scenarios/soni", "../scenarios/thea"}, &stdout, &stderr)
		Expect(stderr.String()).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK), stdout.String())
		Expect(stdout.String()).NotTo(ContainSubstring("FAIL "))
		Expect(stdout.String()).NotTo(ContainSubstring("STALE"))
	})

	It("warns of a note nothing reaches", func() {
		dir, line := plantIn(plant{Suite: "soni", After: "invariants:", Old: "move: waiting_for_slot -> validating_slot", New: "move: idle -> completed"})
		var stdout, stderr bytes.Buffer
		code := cli.Main([]string{"run", "--quiet", "--out", "", dir}, &stdout, &stderr)
		Expect(stderr.String()).To(BeEmpty())
		// The move the note excused now fails; the note is stale.
		Expect(code).To(Equal(cli.ExitFailed))
		Expect(stdout.String()).To(MatchRegexp(fmt.Sprintf(`STALE .*machine.yaml:%d:9: soni_001_valid_transitions: contradiction idle -> completed: nothing in this run reached it`, line)))

		stdout.Reset()
		Expect(cli.Main([]string{"lint", dir}, &stdout, &stderr)).To(Equal(cli.ExitOK))
		Expect(stdout.String()).To(MatchRegexp(fmt.Sprintf(`machine.yaml:%d:9: warning: stale note: soni_001_valid_transitions: contradiction idle -> completed: no scenario or exploration reaches it`, line)))
	})

	It("lint warns of a note for a move its table allows", func() {
		dir, line := plantIn(plant{Suite: "soni", After: "invariants:", Old: "move: confirming -> completed", New: "move: idle -> understanding"})
		var stdout, stderr bytes.Buffer
		Expect(cli.Main([]string{"lint", dir}, &stdout, &stderr)).To(Equal(cli.ExitOK))
		Expect(stdout.String()).To(ContainSubstring(fmt.Sprintf("machine.yaml:%d:9: warning: invariant soni_001_valid_transitions: the table allows idle -> understanding: the note excuses nothing", line)))
	})
})

var _ = Describe("a timer left behind", func() {
	// docs/examples/booking starts its session timer when a booking
	// begins and does not cancel it when the booking is confirmed.
	It("is the finding leaked_timer in simctl run, scripted and explored", func() {
		var stdout, stderr bytes.Buffer
		code := cli.Main([]string{"run", "--quiet", "--out", "", "../docs/examples/booking"}, &stdout, &stderr)
		Expect(stderr.String()).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitFailed))
		Expect(stdout.String()).To(ContainSubstring("invariant leaked_timer broken at turn 3 (timer session in idle)"))
		Expect(stdout.String()).To(ContainSubstring("FAIL  explored finds leaked_timer: timer session in idle, shortest path 3 events"))
	})

	It("is found by simctl explore, with its shortest path written as a scenario", func() {
		dir := GinkgoT().TempDir()
		var stdout, stderr bytes.Buffer
		code := cli.Main([]string{"explore", "../docs/examples/booking", "--depth", "5", "--emit-scenarios", dir}, &stdout, &stderr)
		Expect(stderr.String()).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitFailed))
		Expect(stdout.String()).To(ContainSubstring("leaked_timer"))
		data, err := os.ReadFile(filepath.Join(dir, "explore-booking-default-leaked_timer.scenario.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring("wait: 600000ms"))
	})
})

var _ = Describe("reports written into two folders", func() {
	// Replay commands name generated failures inside the report folder,
	// and suites as they were given, so the folder leaves no trace. Only
	// a generated failure's scenario file differs: it names its suite
	// relative to itself, so that it replays from anywhere.
	It("are byte-identical: CSV, JSON, JUnit and HTML", func() {
		base := GinkgoT().TempDir()
		a, b := filepath.Join(base, "a"), filepath.Join(base, "deeper", "b")
		for _, out := range []string{a, b} {
			var stdout, stderr bytes.Buffer
			code := cli.Main([]string{"run", "../scenarios/soni", "../scenarios/hfsm", "--generate", "40", "--seed", "7", "--explore-depth", "3", "--quiet", "--out", out}, &stdout, &stderr)
			Expect(stderr.String()).To(BeEmpty())
			Expect(code).To(BeElementOf(cli.ExitOK, cli.ExitFailed))
		}
		fa, fb := files(a), files(b)
		Expect(fa).To(HaveLen(len(fb)))
		Expect(fa).To(HaveKey("report.html"))
		Expect(fa).To(HaveKey("junit.xml"))
		Expect(fa).To(HaveKey("summary.json"))
		for name, data := range fa {
			if strings.HasPrefix(name, "failures"+string(filepath.Separator)) {
				continue
			}
			Expect(string(fb[name])).To(Equal(string(data)), "%s differs", name)
		}
	})
})

var _ = Describe("a scenario's own note", func() {
	It("is reported stale when nothing in the scenario reaches it", func() {
		dir := copySuiteDir(filepath.Join("..", "reports", "testdata", "suites", "greeter"))
		path := filepath.Join(dir, "bob.scenario.yaml")
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, []byte(strings.Replace(string(data), "state: idle", "state: asking", 1)), 0o644)).To(Succeed())
		var stdout, stderr bytes.Buffer
		Expect(cli.Main([]string{"run", "--quiet", "--explore-depth", "0", "--out", "", dir}, &stdout, &stderr)).To(Equal(cli.ExitFailed))
		Expect(stdout.String()).To(MatchRegexp(`STALE .*bob.scenario.yaml:7:9: no_bob: modelling_choice: nothing in this scenario reached it`))
		stdout.Reset()
		Expect(cli.Main([]string{"lint", dir}, &stdout, &stderr)).To(Equal(cli.ExitOK))
		Expect(stdout.String()).To(MatchRegexp(`bob.scenario.yaml:7:9: warning: stale note: no_bob: modelling_choice: nothing in this scenario reached it`))
	})
})

var _ = Describe("the see it: command run prints", func() {
	// Each FAIL of the exploration names a command; run, it must find the
	// same finding (livelock and stuck need the whole graph the run's
	// search saw, not only their shortest path).
	DescribeTable("reproduces the finding it names", func(dir string, want int) {
		var stdout, stderr bytes.Buffer
		code := cli.Main([]string{"run", "--quiet", "--out", "", dir}, &stdout, &stderr)
		Expect(code).To(Equal(cli.ExitFailed), stdout.String())
		lines := strings.Split(stdout.String(), "\n")
		seen := 0
		for i, l := range lines {
			cmd, ok := strings.CutPrefix(strings.TrimSpace(l), "see it: simctl ")
			if !ok {
				continue
			}
			// The FAIL line before names the finding: "finds KIND[: where], ...".
			_, rest, _ := strings.Cut(lines[i-1], " finds ")
			kind, _, _ := strings.Cut(rest, ",")
			kind, _, _ = strings.Cut(kind, ":")
			args := strings.Fields(strings.Replace(cmd, "--emit-scenarios DIR", "--emit-scenarios "+GinkgoT().TempDir(), 1))
			var out bytes.Buffer
			cli.Main(append(args, "--quiet"), &out, &stderr)
			Expect(out.String()).To(ContainSubstring("FAIL  "+kind+":"), "%s\n%s", cmd, out.String())
			seen++
		}
		Expect(seen).To(Equal(want), stdout.String())
	},
		Entry("planted faults", "../explore/testdata/planted", 4),
		Entry("a counter without bound and a fork branch stuck behind escapes", "../explore/testdata/counting", 1),
	)
})

var _ = Describe("explore of a machine that counts without bound", func() {
	It("with no flags, saturates the counter, completes and finds the fork branch stuck behind escapes", func() {
		var stdout, stderr bytes.Buffer
		code := cli.Main([]string{"explore", "../explore/testdata/counting"}, &stdout, &stderr)
		Expect(code).To(Equal(cli.ExitFailed), stdout.String()+stderr.String())
		Expect(stdout.String()).To(ContainSubstring("complete: every reachable configuration was explored"))
		Expect(stdout.String()).To(ContainSubstring("counters saturated (larger values read alike): hellos from 3"))
		Expect(stdout.String()).To(ContainSubstring("FAIL  stuck: from looking"))
	})
})
