package cli_test

// Hostile input and faults that need a real process: special files that
// would block or never end, signals, and two simctl processes at once.
// Every process is started with a deadline and killed when it passes it,
// so that a regression fails the test instead of hanging make test.

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/spec"
)

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binHead string // git's HEAD when the binary was built, for the --version spec
)

// simctlBinary builds cmd/simctl once for the suite's subprocess tests,
// with make build. make test builds it once for all its processes, the
// same way, and names it in $SIMCTL_BIN.
func simctlBinary() string {
	binOnce.Do(func() {
		// As a user builds it: make build, which passes the revision by
		// -ldflags (the spec of --version checks it with -buildvcs off).
		if head, err := exec.Command("git", "-C", "..", "rev-parse", "HEAD").Output(); err == nil {
			binHead = strings.TrimSpace(string(head))
		}
		if bin := os.Getenv("SIMCTL_BIN"); bin != "" {
			Expect(bin).To(BeAnExistingFile(), "$SIMCTL_BIN")
			binPath = bin
			return
		}
		var err error
		binDir, err = os.MkdirTemp("", "simctl-bin-")
		Expect(err).NotTo(HaveOccurred())
		binPath = filepath.Join(binDir, "simctl")
		build := exec.Command("make", "-s", "-C", "..", "build", "BIN="+binPath)
		build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
		build.Stdout, build.Stderr = GinkgoWriter, GinkgoWriter
		Expect(build.Run()).To(Succeed())
	})
	return binPath
}

var _ = AfterSuite(func() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
})

// proc is a simctl process started with a deadline.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	err            error
}

// start runs simctl with args; the process is killed after limit.
func start(limit time.Duration, args ...string) *proc {
	// The binary first: its build (once per process) is no part of the
	// limit, and with specs in two processes may come here.
	bin := simctlBinary()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	p := &proc{cmd: exec.CommandContext(ctx, bin, args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	Expect(p.cmd.Start()).To(Succeed())
	go func() {
		p.err = p.cmd.Wait()
		cancel()
		close(p.done)
	}()
	DeferCleanup(func() {
		cancel()
		<-p.done
	})
	return p
}

// wait waits for the process to end, at most within, and returns its
// exit status (-1: it had to be killed).
func (p *proc) wait(within time.Duration) int {
	select {
	case <-p.done:
	case <-time.After(within):
		p.cmd.Process.Kill()
		<-p.done
		Fail("simctl " + strings.Join(p.cmd.Args[1:], " ") + " did not end within " + within.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

// busy waits until the process has used cpu of processor time, so that
// a signal finds it at work past loading its suites however loaded the
// machine is (a fixed sleep of 3 s was both slow and, on a busy
// machine, no proof). Processor time is read from Linux's
// /proc/PID/stat; elsewhere busy sleeps 3 s.
func (p *proc) busy(cpu time.Duration) {
	stat := fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid)
	if _, err := os.Stat(stat); err != nil {
		time.Sleep(3 * time.Second)
		return
	}
	used := func() time.Duration {
		data, err := os.ReadFile(stat)
		if err != nil {
			return cpu // ended: what follows says how
		}
		// Fields 14 and 15, user and system time in clock ticks (100 a
		// second on Linux), counted after the command's name in
		// parentheses, which may hold spaces.
		f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
		var ticks time.Duration
		for _, v := range f[11:13] {
			n, err := strconv.Atoi(v)
			Expect(err).NotTo(HaveOccurred(), stat)
			ticks += time.Duration(n)
		}
		return ticks * 10 * time.Millisecond
	}
	Eventually(used, 60*time.Second, 20*time.Millisecond).Should(BeNumerically(">=", cpu), "processor time of simctl "+strings.Join(p.cmd.Args[1:], " "))
}

// runBin runs simctl to its end within limit.
func runBin(limit time.Duration, args ...string) (int, string, string) {
	p := start(limit, args...)
	code := p.wait(limit)
	return code, p.stdout.String(), p.stderr.String()
}

// writeSuite writes the valid tiny suite into a new folder.
func writeSuite() string {
	dir := filepath.Join(GinkgoT().TempDir(), "suite")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	for name, body := range suite(nil) {
		Expect(os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)).To(Succeed())
	}
	return dir
}

var _ = Describe("special files", func() {
	var dir, out string

	BeforeEach(func() {
		dir = writeSuite()
		out = filepath.Join(GinkgoT().TempDir(), "out")
	})

	type specialCase struct {
		file string // in the suite folder
		make func(path string)
		want string
	}

	sparse := func(size int64) func(string) {
		return func(path string) {
			f, err := os.Create(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(f.Truncate(size)).To(Succeed())
			Expect(f.Close()).To(Succeed())
		}
	}

	DescribeTable("are refused in one line within a second, before they are read (a subprocess, killed after 10 s)",
		func(c specialCase) {
			path := filepath.Join(dir, c.file)
			os.Remove(path)
			c.make(path)
			simctlBinary() // its build is no part of the second
			began := time.Now()
			code, stdout, stderr := runBin(10*time.Second, "run", dir, "--out", out)
			Expect(time.Since(began)).To(BeNumerically("<", 5*time.Second))
			Expect(code).To(Equal(cli.ExitBadInput), "stdout: %s", stdout)
			Expect(strings.ReplaceAll(stderr, dir, "SUITE")).To(Equal(c.want + "\n"))
			Expect(out).NotTo(BeAnExistingFile())
		},
		// It blocked in open for ever, deaf to SIGINT and SIGTERM.
		Entry("a named pipe as a scenario file", specialCase{file: "x.scenario.yaml",
			make: func(p string) { Expect(syscall.Mkfifo(p, 0o644)).To(Succeed()) },
			want: "simctl: SUITE/x.scenario.yaml: cannot read scenario file: it is a named pipe (FIFO), not a regular file"}),
		Entry("a named pipe as nlu.yaml", specialCase{file: "nlu.yaml",
			make: func(p string) { Expect(syscall.Mkfifo(p, 0o644)).To(Succeed()) },
			want: "simctl: SUITE/nlu.yaml: cannot read NLU file: it is a named pipe (FIFO), not a regular file"}),
		// It read until the runtime died: out of memory, 174 lines of stack.
		Entry("a scenario symlinked to /dev/zero", specialCase{file: "x.scenario.yaml",
			make: func(p string) { Expect(os.Symlink("/dev/zero", p)).To(Succeed()) },
			want: "simctl: SUITE/x.scenario.yaml: cannot read scenario file: it is a character device, not a regular file"}),
		Entry("a cassette symlinked to /dev/zero", specialCase{file: spec.CassetteFile,
			make: func(p string) { Expect(os.Symlink("/dev/zero", p)).To(Succeed()) },
			want: "simctl: SUITE/" + spec.CassetteFile + ": cannot read cassette file: it is a character device, not a regular file"}),
		Entry("a folder named like a scenario file", specialCase{file: "x.scenario.yaml",
			make: func(p string) { Expect(os.Mkdir(p, 0o755)).To(Succeed()) },
			want: "simctl: SUITE/x.scenario.yaml: cannot read scenario file: it is a folder, not a regular file"}),
		// It took 15 s and 3 GB to reach the size error.
		Entry("a 3 GB sparse scenario file", specialCase{file: "x.scenario.yaml", make: sparse(3 << 30),
			want: "simctl: SUITE/x.scenario.yaml:1:1: file is 3221225472 bytes, more than the 4194304 allowed"}),
		// It was read whole.
		Entry("a 600 MB machine file", specialCase{file: "machine.yaml", make: sparse(600 << 20),
			want: "simctl: SUITE/machine.yaml:1:1: file is 629145600 bytes, more than the 4194304 allowed"}),
		Entry("a 600 MB cassette", specialCase{file: spec.CassetteFile, make: sparse(600 << 20),
			want: "simctl: SUITE/" + spec.CassetteFile + ":1:1: file is 629145600 bytes, more than the 67108864 allowed"}),
		// They said "cannot read machine file" and no more.
		Entry("a machine file in a symlink loop", specialCase{file: "machine.yaml",
			make: func(p string) { Expect(os.Symlink(p, p)).To(Succeed()) },
			want: "simctl: SUITE/machine.yaml: cannot read machine file: too many levels of symbolic links"}),
		Entry("a scenario file in a symlink loop", specialCase{file: "x.scenario.yaml",
			make: func(p string) { Expect(os.Symlink(p, p)).To(Succeed()) },
			want: "simctl: SUITE/x.scenario.yaml: cannot read scenario file: too many levels of symbolic links"}),
	)

	It("refuses a named pipe given as the scenario file to replay", func() {
		path := filepath.Join(dir, "x.scenario.yaml")
		Expect(syscall.Mkfifo(path, 0o644)).To(Succeed())
		code, _, stderr := runBin(10*time.Second, "replay", path)
		Expect(code).To(Equal(cli.ExitBadInput))
		Expect(stderr).To(Equal("simctl: " + path + ": cannot read scenario file: it is a named pipe (FIFO), not a regular file\n"))
	})

	It("gives the OS reason for a file it may not read", func() {
		if os.Geteuid() == 0 {
			Skip("root reads any file")
		}
		path := filepath.Join(dir, "greet.scenario.yaml")
		Expect(os.Chmod(path, 0)).To(Succeed())
		code, _, stderr := simctl("run", dir, "--out", out)
		Expect(code).To(Equal(cli.ExitBadInput))
		Expect(stderr).To(Equal("simctl: " + path + ": cannot read scenario file: permission denied\n"))
	})
})

// simctl stops within a second of a signal on an idle machine (measured:
// about 0.1 s); the tests allow 5 s, so that a loaded CI machine does not
// fail them, which is still far below the 40 s to 104 s it took before.
var _ = Describe("signals", func() {
	// It ran 104 s to the 2,000,000-state cap, 1.9 GB, exit 1, unmarked.
	It("stop simctl explore within a second: what it found is printed, marked interrupted, exit 130", func() {
		p := start(60*time.Second, "explore", "../scenarios/formfill", "--depth", "12")
		p.busy(600 * time.Millisecond) // loading formfill takes about 0.1 s
		Expect(p.cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		sent := time.Now()
		code := p.wait(10 * time.Second)
		Expect(time.Since(sent)).To(BeNumerically("<", 5*time.Second), "stopping took too long")
		Expect(code).To(Equal(cli.ExitInterrupted), "stderr: %s", p.stderr.String())
		Expect(p.stdout.String()).To(ContainSubstring("explore formfill"))
		Expect(p.stdout.String()).To(ContainSubstring("  interrupted: the search stopped before its bound; what it found so far is incomplete\n"))
		Expect(p.stdout.String()).To(HaveSuffix("interrupted: the searches above are incomplete; no scenarios were written\n"))
	})

	It("leave no spilled queue behind: simctl explore --workers 2 --queue-mb 1, interrupted", func() {
		if _, err := os.Stat("/proc/self/fd"); err != nil {
			Skip("needs Linux's /proc to see the process's open files")
		}
		simctlBinary() // built before TMPDIR changes
		tmp := GinkgoT().TempDir()
		GinkgoT().Setenv("TMPDIR", tmp)
		p := start(60*time.Second, "explore", "../scenarios/formfill", "--depth", "12", "--workers", "2", "--queue-mb", "1")
		// Wait until the queue has spilled: the process holds its file
		// open, removed as soon as it was created.
		fds := fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid)
		Eventually(func() []string { return openFiles(fds, "simctl-queue-") }, 30*time.Second, 20*time.Millisecond).
			Should(ConsistOf(MatchRegexp(`^` + regexp.QuoteMeta(tmp) + `/simctl-queue-\d+ \(deleted\)$`)))
		Expect(filepath.Glob(filepath.Join(tmp, "simctl-queue-*"))).To(BeEmpty())
		Expect(p.cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		code := p.wait(10 * time.Second)
		Expect(code).To(Equal(cli.ExitInterrupted), "stderr: %s", p.stderr.String())
		Expect(p.stdout.String()).To(MatchRegexp(`queue: \d+ MB spilled to disk`))
		Expect(filepath.Glob(filepath.Join(tmp, "simctl-queue-*"))).To(BeEmpty())
	})

	// It took 40 s to honour SIGINT.
	It("stop the exploration inside simctl run within a second, with a report marked incomplete", func() {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		p := start(60*time.Second, "run", "../scenarios/formfill", "--explore-depth", "12", "--max-states", "2000000", "--out", out)
		p.busy(time.Second) // loading formfill and running its scenarios take about 0.2 s
		Expect(p.cmd.Process.Signal(syscall.SIGTERM)).To(Succeed())
		sent := time.Now()
		code := p.wait(10 * time.Second)
		Expect(time.Since(sent)).To(BeNumerically("<", 5*time.Second), "stopping took too long")
		Expect(code).To(Equal(cli.ExitInterrupted), "stderr: %s", p.stderr.String())
		Expect(p.stdout.String()).To(ContainSubstring("interrupted: the search stopped before its bound"))
		data, err := os.ReadFile(filepath.Join(out, reports.SummaryJSON))
		Expect(err).NotTo(HaveOccurred())
		var sum struct {
			Incomplete bool `json:"incomplete"`
		}
		Expect(json.Unmarshal(data, &sum)).To(Succeed())
		Expect(sum.Incomplete).To(BeTrue())
	})

	// It waited for the request under way to time out (18 s), then exit 2.
	It("stop simctl record within a second, leaving the cassette as it was, exit 130", func() {
		dir := copySuiteDir("../scenarios/bench-soni")
		cassette := filepath.Join(dir, spec.CassetteFile)
		Expect(os.WriteFile(cassette, nil, 0o644)).To(Succeed())
		server := stubServer(dir)
		server.Delay(time.Minute)
		p := start(60*time.Second, "record", dir, "--nlu-url", server.URL, "--timeout", "50s", "--overwrite")
		Eventually(server.Requests, 10*time.Second).ShouldNot(BeEmpty())
		Expect(p.cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		sent := time.Now()
		code := p.wait(10 * time.Second)
		Expect(time.Since(sent)).To(BeNumerically("<", 5*time.Second), "stopping took too long")
		Expect(code).To(Equal(cli.ExitInterrupted), "stderr: %s", p.stderr.String())
		Expect(p.stdout.String()).To(HaveSuffix("interrupted: nothing was written; every cassette is as it was\n"))
		data, err := os.ReadFile(cassette)
		Expect(err).NotTo(HaveOccurred())
		Expect(data).To(BeEmpty())
		Expect(tempFiles(dir)).To(BeEmpty())
	})

	DescribeTable("that come while suites load stop the command before it runs anything, exit 130",
		func(cmd ...string) {
			dir := writeSuite()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			args := append([]string{cmd[0], dir}, cmd[1:]...)
			var stdout, stderr bytes.Buffer
			Expect(cli.MainContext(ctx, args, &stdout, &stderr)).To(Equal(cli.ExitInterrupted))
			Expect(stderr.String()).To(Equal("simctl: interrupted before anything was run\n"))
			Expect(stdout.String()).To(BeEmpty())
		},
		Entry("run", "run", "--out", filepath.Join(os.TempDir(), "simctl-never-written")),
		Entry("explore", "explore"),
		Entry("record", "record", "--nlu-url", "http://127.0.0.1:9/model/parse"),
		Entry("graph", "graph"),
	)

	It("end a process at once when a second one comes", func() {
		p := start(60*time.Second, "explore", "../scenarios/formfill", "--depth", "12")
		p.busy(600 * time.Millisecond)
		Expect(p.cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		Expect(p.cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		p.wait(10 * time.Second)
	})
})

// seeds returns the seeds that the rows of every CSV report in out name.
func seeds(out string) map[string]bool {
	files, err := filepath.Glob(filepath.Join(out, "*.csv"))
	Expect(err).NotTo(HaveOccurred())
	Expect(files).NotTo(BeEmpty())
	got := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		Expect(err).NotTo(HaveOccurred())
		recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		Expect(err).NotTo(HaveOccurred())
		for _, r := range recs[1:] {
			got[r[0]] = true
		}
	}
	return got
}

var _ = Describe("two runs writing the same --out", func() {
	const lockLine = "another simctl is writing reports to this folder (it holds .simctl.lock); wait for it to finish or give another --out\n"

	It("refuse the second one at once, in one line, and leave the first one's reports whole", func() {
		dir := writeSuite()
		out := filepath.Join(GinkgoT().TempDir(), "out")
		first := start(60*time.Second, "run", dir, "--generate", "50000000", "--seed", "1", "--out", out)
		Eventually(filepath.Join(out, reports.LockFile), 10*time.Second).Should(BeAnExistingFile())
		code, _, stderr := runBin(10*time.Second, "run", dir, "--seed", "2", "--out", out)
		Expect(code).To(Equal(cli.ExitBadInput))
		Expect(stderr).To(Equal("simctl: " + out + ": " + lockLine))
		Expect(first.cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		Expect(first.wait(10 * time.Second)).To(Equal(cli.ExitInterrupted))
		Expect(seeds(out)).To(Equal(map[string]bool{"1": true}))
		Expect(filepath.Join(out, reports.LockFile)).NotTo(BeAnExistingFile())
	})

	// 5 to 9 of 80 trials mixed the two runs' reports, both exit 0.
	It("never leave a mixed set, whichever starts first (10 trials)", func() {
		dir := writeSuite()
		for trial := range 10 {
			out := filepath.Join(GinkgoT().TempDir(), "out")
			a := start(30*time.Second, "run", dir, "--generate", "2000", "--seed", "1", "--out", out)
			b := start(30*time.Second, "run", dir, "--generate", "2000", "--seed", "2", "--out", out)
			codes := []int{a.wait(30 * time.Second), b.wait(30 * time.Second)}
			for i, p := range []*proc{a, b} {
				if codes[i] == cli.ExitBadInput {
					Expect(p.stderr.String()).To(HaveSuffix(lockLine), "trial %d", trial)
				} else {
					Expect(codes[i]).To(Equal(cli.ExitOK), "trial %d: %s", trial, p.stderr.String())
				}
			}
			Expect(seeds(out)).To(HaveLen(1), "trial %d: the reports mix two runs", trial)
		}
	})
})

var _ = Describe("an error about a long value", func() {
	It("quotes at most 80 characters of it", func() {
		dir := writeSuite()
		// A plain scalar of 3 MB gave a 3,000,179-byte error line.
		Expect(os.WriteFile(filepath.Join(dir, "greet.scenario.yaml"), []byte("name: x\nturns: "+strings.Repeat("a", 3_000_000)+"\n"), 0o644)).To(Succeed())
		code, _, stderr := simctl("run", dir, "--out", filepath.Join(dir, "out"))
		Expect(code).To(Equal(cli.ExitBadInput))
		Expect(stderr).To(Equal("simctl: " + dir + `/greet.scenario.yaml:2:8: expected a list, got "` + strings.Repeat("a", 80) + "\"…\n"))
	})

	It("does not echo a whole file symlinked as a scenario", func() {
		dir := writeSuite()
		passwd := filepath.Join(GinkgoT().TempDir(), "passwd")
		var b strings.Builder
		for range 100 {
			b.WriteString("root:x:0:0:root:/root:/bin/bash\n")
		}
		Expect(os.WriteFile(passwd, []byte(b.String()), 0o644)).To(Succeed())
		Expect(os.Symlink(passwd, filepath.Join(dir, "p.scenario.yaml"))).To(Succeed())
		code, _, stderr := simctl("run", dir, "--out", filepath.Join(dir, "out"))
		Expect(code).To(Equal(cli.ExitBadInput))
		Expect(len(stderr)).To(BeNumerically("<", 400))
		Expect(stderr).To(HaveSuffix(`got "root:x:0:0:root:/root:/bin/bash root:x:0:0:root:/root:/bin/bash root:x:0:0:root:"…` + "\n"))
	})
})

var _ = Describe("a report opened in a spreadsheet", func() {
	It("does not run formulas a suite wrote into a CSV cell, and keeps numbers numeric", func() {
		dir := writeSuite()
		Expect(os.WriteFile(filepath.Join(dir, "greet.scenario.yaml"), []byte(`name: "=1+2"
turns:
  - user: "=cmd|' /C calc'!A0"
  - user: "+1+1"
  - user: "-2+3"
  - user: "@SUM(A1:A2)"
  - user: "\tTAB"
    expect: {state: talking}
`), 0o644)).To(Succeed())
		out := filepath.Join(dir, "out")
		code, _, stderr := simctl("run", dir, "--out", out)
		Expect(code).To(Equal(cli.ExitFailed), stderr)
		cells := map[string]bool{}
		for _, f := range []string{"turns.csv", "failures.csv", "scenarios.csv"} {
			data, err := os.ReadFile(filepath.Join(out, f))
			Expect(err).NotTo(HaveOccurred())
			recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
			Expect(err).NotTo(HaveOccurred())
			for _, r := range recs {
				for _, c := range r {
					cells[c] = true
					if c != "" && strings.ContainsAny(c[:1], "=+-@\t\r") {
						Expect(c).To(MatchRegexp(`^[+-]?[0-9.]+$`), "%s: a cell a spreadsheet would run: %q", f, c)
					}
				}
			}
		}
		for _, want := range []string{"'=1+2", `'=cmd|' /C calc'!A0`, "'+1+1", "'-2+3", "'@SUM(A1:A2)", "'\tTAB"} {
			Expect(cells).To(HaveKey(want))
		}
	})
})

var _ = Describe("flags shared by commands", func() {
	DescribeTable("are checked the same way everywhere, in one line",
		func(args []string, want string) {
			dir := writeSuite()
			for i, a := range args {
				args[i] = strings.ReplaceAll(a, "SUITE", dir)
			}
			out := filepath.Join(GinkgoT().TempDir(), "out")
			if args[0] == "run" {
				args = append(args, "--out", out)
			}
			code, _, stderr := simctl(args...)
			Expect(code).To(Equal(cli.ExitBadInput))
			Expect(stderr).To(Equal("simctl: " + want + "\n"))
			Expect(out).NotTo(BeAnExistingFile())
		},
		// run took 0 and -1 as the default.
		Entry("run --max-states 0", []string{"run", "SUITE", "--max-states", "0"}, "--max-states takes a number of configurations, 1 or more, got 0"),
		Entry("run --max-states -1", []string{"run", "SUITE", "--max-states", "-1"}, "--max-states takes a number of configurations, 1 or more, got -1"),
		Entry("explore --max-states 0", []string{"explore", "SUITE", "--max-states", "0"}, "--max-states takes a number of configurations, 1 or more, got 0"),
		// run took -5 as "each suite's explore_depth".
		Entry("run --explore-depth -5", []string{"run", "SUITE", "--explore-depth", "-5"}, "--explore-depth takes a depth, 0 or more, got -5"),
		Entry("run --explore-depth -1", []string{"run", "SUITE", "--explore-depth", "-1"}, "--explore-depth takes a depth, 0 or more, got -1"),
		Entry("explore --depth -5", []string{"explore", "SUITE", "--depth", "-5"}, "--depth takes a depth, 0 or more, got -5"),
		// It printed "about -2562047h47m16s left".
		Entry("run --generate 9223372036854775807", []string{"run", "SUITE", "--generate", "9223372036854775807"}, "--generate takes a number of conversations from 0 to 1000000000, got 9223372036854775807"),
		Entry("record --generate 9223372036854775807", []string{"record", "SUITE", "--nlu-url", "http://localhost:5005/model/parse", "--generate", "9223372036854775807"}, "--generate takes a number of conversations from 0 to 1000000000, got 9223372036854775807"),
		Entry("explore --workers 0", []string{"explore", "SUITE", "--workers", "0"}, "--workers takes a number of goroutines from 1 to 1024, got 0"),
		Entry("explore --queue-mb -1", []string{"explore", "SUITE", "--queue-mb", "-1"}, "--queue-mb takes a number of megabytes from 0 to 1048576, got -1"),
		Entry("run --queue-mb 2000000", []string{"run", "SUITE", "--queue-mb", "2000000"}, "--queue-mb takes a number of megabytes from 0 to 1048576, got 2000000"),
		Entry("run --workers 100000000", []string{"run", "SUITE", "--workers", "100000000"}, "--workers takes a number of goroutines from 1 to 1024, got 100000000"),
		// Accepted, or the sweep failed after its table with "json: unsupported value: NaN".
		Entry("run --nlu-noise NaN", []string{"run", "SUITE", "--generate", "5", "--nlu-noise", "NaN"}, "--nlu-noise takes an error rate from 0 to 1, got NaN"),
		Entry("run --nlu-noise +Inf", []string{"run", "SUITE", "--generate", "5", "--nlu-noise", "+Inf"}, "--nlu-noise takes an error rate from 0 to 1, got +Inf"),
		Entry("run --nlu-noise-sweep NaN,0", []string{"run", "SUITE", "--generate", "5", "--nlu-noise-sweep", "NaN,0"}, `--nlu-noise-sweep takes error rates from 0 to 1, got "NaN"`),
		Entry("run --nlu-noise-sweep 0,-Inf", []string{"run", "SUITE", "--generate", "5", "--nlu-noise-sweep", "0,-Inf"}, `--nlu-noise-sweep takes error rates from 0 to 1, got "-Inf"`),
	)
})

// openFiles lists the targets of the links in a /proc/PID/fd folder that
// contain name (none once the process has ended).
func openFiles(dir, name string) []string {
	ents, _ := os.ReadDir(dir)
	var files []string
	for _, e := range ents {
		if t, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.Contains(t, name) {
			files = append(files, t)
		}
	}
	return files
}
