package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

// plant is one fault planted in a copy of a seed suite: line Line of its
// machine.yaml, which holds Old, gets New; the run must fail naming Want.
type plant struct {
	Suite string
	Line  int
	Old   string
	New   string
	Want  string
}

// plantIn copies the suite and plants p in its machine.yaml.
func plantIn(p plant) string {
	dir := copySuiteDir(filepath.Join("..", "scenarios", p.Suite))
	path := filepath.Join(dir, "machine.yaml")
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	lines := strings.Split(string(data), "\n")
	Expect(lines[p.Line-1]).To(ContainSubstring(p.Old), "the line to plant in moved")
	lines[p.Line-1] = strings.Replace(lines[p.Line-1], p.Old, p.New, 1)
	Expect(os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)).To(Succeed())
	return dir
}

var _ = Describe("verdicts on planted faults", func() {
	// A move a suite's table forbids fails the run even though the table
	// carries notes for other moves; so does a broken guard.
	DescribeTable("fail the run, naming the move",
		func(p plant) {
			dir := plantIn(p)
			var stdout, stderr bytes.Buffer
			// A shallow search finds each planted move; it keeps the test fast.
			code := cli.Main([]string{"run", "--quiet", "--explore-depth", "2", "--out", "", dir}, &stdout, &stderr)
			Expect(stderr.String()).To(BeEmpty())
			Expect(code).To(Equal(cli.ExitFailed), stdout.String())
			Expect(stdout.String()).To(ContainSubstring(p.Want))
		},
		Entry("soni: error --cancel--> completed", plant{Suite: "soni", Line: 345, Old: "target: idle", New: "target: completed", Want: "error -> completed"}),
		Entry("soni: a broken guard (error recovery to the wrong step)", plant{Suite: "soni", Line: 171, Old: `recovery_state == "executing_action"`, New: `recovery_state != "executing_action"`, Want: "FAIL"}),
		Entry("thea: completed -> agent_delegated", plant{Suite: "thea", Line: 722, Old: "target: initial", New: "target: agent_delegated", Want: "completed -> agent_delegated"}),
		Entry("hfsm: retry -> answer", plant{Suite: "hfsm", Line: 479, Old: "target: router", New: "target: answer", Want: "retry -> answer"}),
		Entry("formfill: prompt_next -> validate", plant{Suite: "formfill", Line: 412, Old: "target: END", New: "target: validate", Want: "prompt_next -> validate"}),
	)

	It("passes the clean suites", func() {
		var stdout, stderr bytes.Buffer
		code := cli.Main([]string{"run", "--quiet", "--out", "", "../scenarios"}, &stdout, &stderr)
		Expect(stderr.String()).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK), stdout.String())
		Expect(stdout.String()).NotTo(ContainSubstring("STALE"))
	})

	It("warns of a note nothing reaches", func() {
		dir := plantIn(plant{Suite: "soni", Line: 118, Old: "move: waiting_for_slot -> validating_slot", New: "move: idle -> completed"})
		var stdout, stderr bytes.Buffer
		code := cli.Main([]string{"run", "--quiet", "--out", "", dir}, &stdout, &stderr)
		Expect(stderr.String()).To(BeEmpty())
		// The move the note excused now fails; the note is stale.
		Expect(code).To(Equal(cli.ExitFailed))
		Expect(stdout.String()).To(MatchRegexp(`STALE .*machine.yaml:118:9: soni_001_valid_transitions: contradiction idle -> completed: nothing in this run reached it`))

		stdout.Reset()
		Expect(cli.Main([]string{"lint", dir}, &stdout, &stderr)).To(Equal(cli.ExitOK))
		Expect(stdout.String()).To(MatchRegexp(`machine.yaml:118:9: warning: stale note: soni_001_valid_transitions: contradiction idle -> completed: no scenario or exploration reaches it`))
	})

	It("lint warns of a note for a move its table allows", func() {
		dir := plantIn(plant{Suite: "soni", Line: 121, Old: "move: confirming -> completed", New: "move: idle -> understanding"})
		var stdout, stderr bytes.Buffer
		Expect(cli.Main([]string{"lint", dir}, &stdout, &stderr)).To(Equal(cli.ExitOK))
		Expect(stdout.String()).To(ContainSubstring("machine.yaml:121:9: warning: invariant soni_001_valid_transitions: the table allows idle -> understanding: the note excuses nothing"))
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
			code := cli.Main([]string{"run", "../scenarios/soni", "../scenarios/hfsm", "--generate", "40", "--seed", "7", "--quiet", "--out", out}, &stdout, &stderr)
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
