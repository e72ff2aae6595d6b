package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/sim/nlutest"
	"github.com/simctl/simctl/spec"
)

// copySuiteDir copies the files of suite folder src into a new folder. A
// bundled suite's sources: (the seeds, relative to the suite) become
// absolute, so that the copy's citations are still checked against them.
func copySuiteDir(src string) string {
	dst := filepath.Join(GinkgoT().TempDir(), filepath.Base(src))
	Expect(os.MkdirAll(dst, 0o755)).To(Succeed())
	entries, err := os.ReadDir(src)
	Expect(err).NotTo(HaveOccurred())
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		Expect(err).NotTo(HaveOccurred())
		if e.Name() == spec.MachineFile {
			seeds, err := filepath.Abs(filepath.Join(src, "../../../shared/seeds"))
			Expect(err).NotTo(HaveOccurred())
			data = bytes.Replace(data, []byte("sources: [../../../shared/seeds]"), []byte("sources: ["+seeds+"]"), 1)
		}
		Expect(os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644)).To(Succeed())
	}
	return dst
}

// stubServer starts a server that answers as the stub rules of the suite
// in dir.
func stubServer(dir string) *nlutest.Server {
	s, err := spec.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	server := nlutest.FromStub(sim.NewStub(s.NLU, s.Machine), s.Machine)
	DeferCleanup(server.Close)
	return server
}

// simctl runs simctl in-process and returns its exit status, stdout and
// stderr.
func simctl(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Main(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// cassetteLines reads a cassette as JSON objects, one per line.
func cassetteLines(file string) []map[string]any {
	f, err := os.Open(file)
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		Expect(json.Unmarshal(sc.Bytes(), &m)).To(Succeed())
		out = append(out, m)
	}
	return out
}

// tempFiles lists the temporary files left in dir.
func tempFiles(dir string) []string {
	matches, err := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	Expect(err).NotTo(HaveOccurred())
	return matches
}

var _ = Describe("simctl record", Label("race"), func() {
	var dir, cassette string
	var server *nlutest.Server

	BeforeEach(func() {
		dir = copySuiteDir("../scenarios/bench-soni")
		cassette = filepath.Join(dir, spec.CassetteFile)
		server = stubServer(dir)
	})

	record := func(extra ...string) (int, string, string) {
		return simctl(append([]string{"record", dir, "--nlu-url", server.URL, "--retry-backoff", "1ms"}, extra...)...)
	}

	It("records what the server answered in each state, sorted, with measured latencies", func() {
		server.Delay(5 * time.Millisecond)
		code, stdout, stderr := record()
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(ContainSubstring("recorded happy"))
		Expect(stdout).To(MatchRegexp(`cassette .*nlu\.cassette\.jsonl: \d+ records \(\d+ new, 0 kept\), \d+ requests, latency median \d+ms, max \d+ms`))
		lines := cassetteLines(cassette)
		Expect(lines).NotTo(BeEmpty())
		var keys []string
		for _, l := range lines {
			Expect(l).To(HaveKey("intent"))
			Expect(l["latency_ms"]).To(BeNumerically(">=", 5))
			Expect(l["latency_ms"]).To(BeNumerically("<", 5000))
			keys = append(keys, l["state"].(string)+"\x00"+l["text"].(string))
		}
		Expect(sort.StringsAreSorted(keys)).To(BeTrue(), "records are sorted by state, then text")
		Expect(keys).To(ContainElement("idle\x00book a flight"))
		Expect(keys).To(ContainElement("waiting_for_slot\x00Madrid"))
		Expect(tempFiles(dir)).To(BeEmpty())
	})

	It("replays the recorded cassette to the same results as the stub rules", func() {
		plain := copySuiteDir("../scenarios/bench-soni")
		code, _, _ := record()
		Expect(code).To(Equal(cli.ExitOK))
		out1, out2 := filepath.Join(GinkgoT().TempDir(), "o1"), filepath.Join(GinkgoT().TempDir(), "o2")
		code1, stdout1, _ := simctl("run", dir, "--out", out1, "-v")
		code2, stdout2, _ := simctl("run", plain, "--out", out2, "-v")
		Expect(code1).To(Equal(code2))
		norm := func(s, d, o string) string { return strings.ReplaceAll(strings.ReplaceAll(s, d, "SUITE"), o, "OUT") }
		Expect(norm(stdout1, dir, out1)).To(Equal(norm(stdout2, plain, out2)))
		for _, f := range []string{"scenarios.csv", "transitions.csv", "turns.csv"} {
			a, err := os.ReadFile(filepath.Join(out1, f))
			Expect(err).NotTo(HaveOccurred())
			b, err := os.ReadFile(filepath.Join(out2, f))
			Expect(err).NotTo(HaveOccurred())
			Expect(strings.ReplaceAll(string(a), dir, "SUITE")).To(Equal(strings.ReplaceAll(string(b), plain, "SUITE")), f)
		}
	})

	It("records generated conversations too, which simctl run --generate then replays strictly", func() {
		code, stdout, _ := record("--generate", "60", "--seed", "3")
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(ContainSubstring("recorded 60 generated conversations [default]"))
		plain := copySuiteDir("../scenarios/bench-soni")
		out1, out2 := filepath.Join(GinkgoT().TempDir(), "o1"), filepath.Join(GinkgoT().TempDir(), "o2")
		code1, stdout1, _ := simctl("run", dir, "--generate", "60", "--seed", "3", "--explore-depth", "0", "--out", out1)
		Expect(code1).To(Equal(cli.ExitOK), stdout1)
		Expect(stdout1).NotTo(ContainSubstring("no cassette record"))
		code2, _, _ := simctl("run", plain, "--generate", "60", "--seed", "3", "--explore-depth", "0", "--out", out2)
		Expect(code2).To(Equal(cli.ExitOK))
		a, _ := os.ReadFile(filepath.Join(out1, "generated.csv"))
		b, _ := os.ReadFile(filepath.Join(out2, "generated.csv"))
		Expect(string(a)).To(Equal(string(b)))
	})

	It("keeps the records already in the cassette without asking again, unless --overwrite", func() {
		extra := `{"state":"idle","text":"hola","intent":{"name":"book_flight","confidence":0.5},"entities":[],"latency_ms":7}` + "\n"
		Expect(os.WriteFile(cassette, []byte(extra), 0o644)).To(Succeed())
		code, _, _ := record()
		Expect(code).To(Equal(cli.ExitOK))
		first := len(server.Requests())
		Expect(first).To(BeNumerically(">", 0))
		lines := cassetteLines(cassette)
		Expect(lines).To(ContainElement(HaveKeyWithValue("text", "hola")))

		By("recording again: every utterance has its record, nothing is sent")
		before, err := os.ReadFile(cassette)
		Expect(err).NotTo(HaveOccurred())
		code, stdout, _ := record()
		Expect(code).To(Equal(cli.ExitOK))
		Expect(server.Requests()).To(HaveLen(first))
		Expect(stdout).To(ContainSubstring("(0 new, "))
		after, _ := os.ReadFile(cassette)
		Expect(after).To(Equal(before))

		By("--overwrite starts from nothing: the record nobody says is gone")
		code, _, _ = record("--overwrite")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(server.Requests()).To(HaveLen(2 * first))
		Expect(cassetteLines(cassette)).NotTo(ContainElement(HaveKeyWithValue("text", "hola")))
		Expect(cassetteLines(cassette)).To(HaveLen(len(lines) - 1))
	})

	type faultCase struct {
		fault nlutest.Fault
		args  []string
		want  string
	}

	DescribeTable("stops at a server failure with one line and exit status 2, leaving the old cassette as it was and no temporary file",
		func(c faultCase) {
			code, _, _ := record()
			Expect(code).To(Equal(cli.ExitOK))
			old, err := os.ReadFile(cassette)
			Expect(err).NotTo(HaveOccurred())
			server.Always(c.fault)
			code, _, stderr := record(append([]string{"--overwrite"}, c.args...)...)
			Expect(code).To(Equal(cli.ExitBadInput))
			Expect(strings.ReplaceAll(stderr, server.URL, "URL")).To(MatchRegexp(`^simctl: record: suite bench-soni: scenario \w+: turn 1: nlu server URL, utterance "book a flight": ` + c.want + "\n$"))
			now, err := os.ReadFile(cassette)
			Expect(err).NotTo(HaveOccurred())
			Expect(now).To(Equal(old))
			Expect(tempFiles(dir)).To(BeEmpty())
		},
		Entry("a timeout", faultCase{fault: nlutest.Fault{Delay: 2 * time.Second}, args: []string{"--timeout", "50ms", "--retries", "1"},
			want: `no reply within 50ms \(2 attempts\)`}),
		Entry("HTTP 500", faultCase{fault: nlutest.Fault{Status: 500},
			want: `answered HTTP 500 Internal Server Error \(4 attempts\)`}),
		Entry("malformed JSON", faultCase{fault: nlutest.Fault{Body: `{"intent": [`},
			want: `malformed reply: invalid JSON: unexpected end of line \(1 attempt\)`}),
		Entry("a reply without an intent", faultCase{fault: nlutest.Fault{Body: `{"text": "book a flight", "entities": []}`},
			want: `malformed reply: missing required field "intent" \(1 attempt\)`}),
		Entry("a confidence outside [0,1]", faultCase{fault: nlutest.Fault{Body: `{"intent": {"name": "book_flight", "confidence": 2}}`},
			want: `malformed reply: intent\.confidence: 2 is outside \[0,1\] \(1 attempt\)`}),
		Entry("a dropped connection", faultCase{fault: nlutest.Fault{Drop: true}, args: []string{"--retries", "2"},
			want: `closed the connection without a complete reply \(3 attempts\)`}),
		// It was reported as unreachable and asked for 4 times.
		Entry("a reply over the size limit, not retried", faultCase{fault: nlutest.Fault{Body: `{"text": "` + strings.Repeat("x", 2<<20) + `"}`},
			want: `its reply is larger than 1048576 bytes, the most simctl reads \(1 attempt\)`}),
	)

	It("warns, once, of replies whose content type is not JSON, and records them", func() {
		server.Always(nlutest.Fault{Body: `{"intent": {"name": "book_flight", "confidence": 0.9}, "entities": []}`, ContentType: "text/html; charset=utf-8"})
		code, _, stderr := record()
		Expect(code).To(Equal(cli.ExitOK))
		Expect(strings.ReplaceAll(stderr, server.URL, "URL")).To(Equal(`simctl: warning: nlu server URL answered with content type "text/html; charset=utf-8", not application/json; the reply was read as JSON all the same` + "\n"))
	})

	It("says so when nothing listens at the URL, and writes nothing", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		url := "http://" + l.Addr().String() + "/model/parse"
		Expect(l.Close()).To(Succeed())
		code, _, stderr := simctl("record", dir, "--nlu-url", url, "--retries", "1", "--retry-backoff", "1ms")
		Expect(code).To(Equal(cli.ExitBadInput))
		Expect(stderr).To(HaveSuffix(`utterance "book a flight": unreachable: connection refused (2 attempts)` + "\n"))
		Expect(cassette).NotTo(BeAnExistingFile())
		Expect(tempFiles(dir)).To(BeEmpty())
	})

	It("rejects a reply naming an intent the machine does not declare", func() {
		server.Always(nlutest.Fault{Body: `{"intent": {"name": "nlu_fallback", "confidence": 0.3}}`})
		code, _, stderr := record()
		Expect(code).To(Equal(cli.ExitBadInput))
		Expect(stderr).To(ContainSubstring(`reply does not fit the machine: intent.name: unknown intent "nlu_fallback"`))
		Expect(cassette).NotTo(BeAnExistingFile())
	})

	DescribeTable("rejects bad flags with one line",
		func(args []string, want string) {
			code, _, stderr := simctl(append([]string{"record", dir}, args...)...)
			Expect(code).To(Equal(cli.ExitBadInput))
			Expect(stderr).To(Equal("simctl: " + want + "\n"))
		},
		Entry("no URL", []string{}, "record needs the NLU server's parse endpoint: --nlu-url http://HOST:PORT/model/parse"),
		Entry("not an http URL", []string{"--nlu-url", "localhost:5005"}, `--nlu-url: expected an http or https URL, got "localhost:5005"`),
		Entry("negative retries", []string{"--nlu-url", "http://x/model/parse", "--retries", "-1"}, "--retries takes a number of retries from 0 to 10, got -1"),
	)
})

var _ = Describe("simctl run with a cassette", Label("race"), func() {
	var dir string

	BeforeEach(func() {
		dir = copySuiteDir("../scenarios/bench-soni")
		server := stubServer(dir)
		code, _, _ := simctl("record", dir, "--nlu-url", server.URL)
		Expect(code).To(Equal(cli.ExitOK))
	})

	It("fails a scenario whose utterance has no record, naming suite, scenario, turn and utterance, with exit status 1; --nlu-fallback stub passes it", func() {
		file := filepath.Join(dir, spec.CassetteFile)
		data, err := os.ReadFile(file)
		Expect(err).NotTo(HaveOccurred())
		var kept []string
		for _, l := range strings.SplitAfter(string(data), "\n") {
			if !strings.Contains(l, `"text":"tomorrow"`) {
				kept = append(kept, l)
			}
		}
		Expect(os.WriteFile(file, []byte(strings.Join(kept, "")), 0o644)).To(Succeed())
		out := filepath.Join(GinkgoT().TempDir(), "out")
		code, stdout, stderr := simctl("run", dir, "--out", out)
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitFailed))
		Expect(stdout).To(ContainSubstring(`suite bench-soni: scenario happy: turn 4: no cassette record for "tomorrow" in state waiting_for_slot (` + file + `; record it with simctl record, or run with --nlu-fallback stub)`))
		code, stdout, _ = simctl("run", dir, "--out", out, "--nlu-fallback", "stub")
		Expect(code).To(Equal(cli.ExitOK), stdout)
	})
})

var _ = Describe("simctl run --nlu-noise-sweep", Label("race"), func() {
	It("prints success, escalation, violations and pass^k at each rate, and writes noise.csv and summary.json", func() {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		code, stdout, stderr := simctl("run", "../scenarios/bench-soni", "--generate", "200", "--nlu-noise-sweep", "0.2,0", "--explore-depth", "0", "--out", out, "-q")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(ContainSubstring("noise sweep, 200 generated conversations per rate:"))
		Expect(stdout).To(MatchRegexp(`noise +success +escalation +violating +pass\^1 +pass\^2 .* pass\^8\n +0 +\d+\.\d% .*\n +0\.2 +\d+\.\d%`))
		csv, err := os.ReadFile(filepath.Join(out, "noise.csv"))
		Expect(err).NotTo(HaveOccurred())
		rows := strings.Split(strings.TrimSpace(string(csv)), "\n")
		Expect(rows).To(HaveLen(3))
		Expect(rows[0]).To(HavePrefix("seed,suite,variant,noise,conversations,successes,success_rate,"))
		Expect(rows[0]).To(HaveSuffix(",pass^1,pass^2,pass^3,pass^4,pass^5,pass^6,pass^7,pass^8"))
		Expect(rows[1]).To(HavePrefix("1,bench-soni,default,0,200,"))
		Expect(rows[2]).To(HavePrefix("1,bench-soni,default,0.2,200,"))

		var sum struct {
			Suites []struct {
				Noise []struct {
					Noise       float64    `json:"noise"`
					SuccessRate float64    `json:"success_rate"`
					PassHatK    []*float64 `json:"pass_hat_k"`
				} `json:"noise"`
			} `json:"suites"`
		}
		data, err := os.ReadFile(filepath.Join(out, "summary.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(data, &sum)).To(Succeed())
		n := sum.Suites[0].Noise
		Expect(n).To(HaveLen(2))
		Expect(n[1].SuccessRate).To(BeNumerically("<", n[0].SuccessRate))
		Expect(n[0].PassHatK).To(HaveLen(8))
		Expect(*n[0].PassHatK[0]).To(Equal(n[0].SuccessRate), "one goal: pass^1 is the success rate")

		By("a run without a sweep removes the old noise.csv")
		code, _, _ = simctl("run", "../scenarios/bench-soni", "--explore-depth", "0", "--out", out)
		Expect(code).To(Equal(cli.ExitOK))
		Expect(filepath.Join(out, "noise.csv")).NotTo(BeAnExistingFile())
	})

	It("plays generated conversations with --nlu-noise and keeps scripted ones exact", func() {
		out := filepath.Join(GinkgoT().TempDir(), "out")
		code, stdout, _ := simctl("run", "../scenarios/bench-soni", "--generate", "200", "--nlu-noise", "0.2", "--explore-depth", "0", "--out", out, "-q")
		Expect(code).To(Equal(cli.ExitOK), stdout)
		Expect(stdout).To(ContainSubstring("PASS  happy"))
		success := func(out string) float64 {
			m := regexp.MustCompile(`generated +200 conversations: success (\d+\.\d)%`).FindStringSubmatch(out)
			Expect(m).NotTo(BeNil(), out)
			f, err := strconv.ParseFloat(m[1], 64)
			Expect(err).NotTo(HaveOccurred())
			return f
		}
		code, clean, _ := simctl("run", "../scenarios/bench-soni", "--generate", "200", "--explore-depth", "0", "--out", out, "-q")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(success(stdout)).To(BeNumerically("<", success(clean)))
	})
})
