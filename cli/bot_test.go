package cli_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/bot/bottest"
	"github.com/simctl/simctl/spec"
)

const formfill = "../scenarios/formfill"

// formfillBot serves formfill's variant completo (the first) as a live
// bot, twisted by twist.
func formfillBot(twist bottest.Twist) string {
	s, err := spec.Load(formfill)
	Expect(err).NotTo(HaveOccurred())
	srv := bottest.Server(s, s.Variants[0], twist)
	DeferCleanup(srv.Close)
	return srv.URL + "/webhooks/rest/webhook"
}

// sitioWeb is the model's question once nombre, email and telefono are
// filled: no conversation shorter than three turns gets to it.
const sitioWeb = "¿Cuál es la dirección de tu sitio web?"

// plantedDivergence words that one question differently.
func plantedDivergence(_ int, _ string, model []string) []string {
	if len(model) == 1 && model[0] == sitioWeb {
		return []string{"¿Y tu web?"}
	}
	return model
}

// repliesOnly is a bot.yaml for a bot of variant completo that offers no
// state, events or clock.
const repliesOnly = "variant: completo\n"

// faultyBot answers GET (the reachability check) and fails every POST in
// the way fail does.
func faultyBot(fail http.HandlerFunc) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		fail(w, r)
	}))
	DeferCleanup(srv.Close)
	return srv.URL
}

var _ = Describe("simctl run --bot", Label("race"), func() {
	var out string
	BeforeEach(func() { out = GinkgoT().TempDir() })

	It("passes a bot that says what the model says, with the same verdicts on 1 and 4 workers", func(ctx SpecContext) {
		url := formfillBot(nil)
		suite := formfillWith(repliesOnly)
		csv := map[int]string{}
		for _, w := range []int{1, 4} {
			dir := filepath.Join(out, "w", string(rune('0'+w)))
			// Depth 2 keeps the explored conversations few: formfill's own
			// exploration is complete, tens of thousands of paths.
			code, stdout, stderr := simctl("run", suite, "--bot", url, "--generate", "60", "--explore-depth", "2", "--out", dir, "-q", "--workers", string(rune('0'+w)))
			Expect(stderr).To(BeEmpty())
			Expect(code).To(Equal(0), stdout)
			Expect(stdout).To(ContainSubstring("generated     60 conversations:"))
			Expect(stdout).To(ContainSubstring(" 0 diverge"))
			Expect(stdout).To(MatchRegexp(`SKIP  escalation_timeout +turn 2 waits 540000ms: it needs the virtual clock`))
			Expect(stdout).To(MatchRegexp(`model transitions taken by conforming conversations: \d+ of 29`))
			data, err := os.ReadFile(filepath.Join(dir, "bot.csv"))
			Expect(err).NotTo(HaveOccurred())
			csv[w] = string(data)
			Expect(filepath.Join(dir, "latency.csv")).To(BeAnExistingFile())
		}
		Expect(csv[4]).To(Equal(csv[1]))
	}, SpecTimeout(hangLimit))

	It("finds a divergence three turns deep, shrinks it to three turns against the bot, and writes it replayable", func(ctx SpecContext) {
		url := formfillBot(plantedDivergence)
		code, stdout, _ := simctl("run", formfillWith(repliesOnly), "--bot", url, "--generate", "40", "--explore-depth", "2", "--out", out, "-q", "--workers", "2")
		Expect(code).To(Equal(1), stdout)
		Expect(stdout).To(ContainSubstring(`model: "` + sitioWeb + `"`))
		Expect(stdout).To(ContainSubstring(`bot:   "¿Y tu web?"`))
		files, err := filepath.Glob(filepath.Join(out, "failures", "bot-*.scenario.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(files).To(HaveLen(1), stdout) // one divergence, however many conversations met it
		data, err := os.ReadFile(files[0])
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Count(string(data), "- user:")).To(Equal(3), string(data))
		Expect(string(data)).To(ContainSubstring(`# the bot said: "¿Y tu web?"`))

		// Against the model alone it passes: its expectations are the model's replies.
		code, stdout, _ = simctl("replay", files[0])
		Expect(code).To(Equal(0), stdout)
		// Against the bot it diverges again, at the same turn.
		code, stdout, _ = simctl("run", files[0], "--bot", url, "--out", filepath.Join(out, "again"))
		Expect(code).To(Equal(1), stdout)
		Expect(stdout).To(MatchRegexp(`FAIL  bot-formfill-completo-\S+ +turn 3: the bot's message differs`))

		failures, err := os.ReadFile(filepath.Join(out, "failures.csv"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(failures)).To(ContainSubstring("¿Y tu web?"))
		Expect(string(failures)).To(ContainSubstring(sitioWeb))
		junit, err := os.ReadFile(filepath.Join(out, "junit.xml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(junit)).To(ContainSubstring("¿Y tu web?"))
	}, SpecTimeout(hangLimit))

	DescribeTable("counts bot faults apart, retried, never as conformance failures, and a run that could not judge is inconclusive",
		func(fail http.HandlerFunc, want string) {
			url := faultyBot(fail)
			code, stdout, stderr := simctl("run", formfillWith(repliesOnly)+"/escalation_keyword.scenario.yaml", "--bot", url,
				"--bot-timeout", "200ms", "--bot-retries", "1", "--out", out, "-q")
			Expect(stderr).To(BeEmpty())
			Expect(code).To(Equal(3), stdout)
			Expect(stdout).To(ContainSubstring("FAULT escalation_keyword"))
			Expect(stdout).To(ContainSubstring("bot faults (not conformance failures): 2 (" + want + " 2); 1 conversations still faulted after 1 retries"))
			Expect(stdout).To(ContainSubstring("0 passed, 0 failed"))
			Expect(stdout).To(ContainSubstring("bot faults: 1 of 1 conversations faulted on every attempt (at most 1% may), 0 not played; faults met: " + want + " 2\n"))
			Expect(stdout).To(HaveSuffix("inconclusive: 1 of 1 conversations faulted or were not played, more than the 1% --bot-max-faults allows\n"))
			var sum struct {
				Status string
				Bot    struct {
					Conversations, Faulted int
					Faults                 map[string]int
				}
			}
			data, err := os.ReadFile(filepath.Join(out, "summary.json"))
			Expect(err).NotTo(HaveOccurred())
			Expect(json.Unmarshal(data, &sum)).To(Succeed())
			Expect(sum.Status).To(Equal("inconclusive"))
			Expect(sum.Bot.Conversations).To(Equal(1))
			Expect(sum.Bot.Faulted).To(Equal(1))
			Expect(sum.Bot.Faults).To(Equal(map[string]int{want: 2}))
			html, err := os.ReadFile(filepath.Join(out, "report.html"))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(html)).To(ContainSubstring("<strong>Inconclusive:</strong>"))
			Expect(string(html)).To(ContainSubstring("faults met: " + want + " 2"))
		},
		Entry("a bot that times out on every turn", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			// Ten times the client's time-out, and less than the 5 s after
			// which httptest's Close complains of a handler still running.
			case <-time.After(2 * time.Second):
			}
		}, "timeout"),
		Entry("a bot that returns 500", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}, "status"),
		Entry("a bot that returns malformed JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"recipient_id": "x", "text": "not a list"`))
		}, "malformed"),
		Entry("a bot that closes the connection", func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}, "connection"),
	)

	It("ends inconclusive, without playing on, when the bot is killed mid-run", func(ctx SpecContext) {
		s, err := spec.Load(formfill)
		Expect(err).NotTo(HaveOccurred())
		model := bottest.ModelBot(s, s.Variants[0], nil)
		var srv *httptest.Server
		var posts atomic.Int64
		srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && posts.Add(1) == 100 {
				// Killed: nothing listens any more, and open connections drop.
				srv.Listener.Close()
				go srv.CloseClientConnections()
			}
			model.ServeHTTP(w, r)
		}))
		DeferCleanup(srv.Close)
		code, stdout, stderr := simctl("run", formfillWith(repliesOnly), "--bot", srv.URL, "--generate", "400", "--explore-depth", "0",
			"--bot-timeout", "1s", "--workers", "2", "--out", out, "-q")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(3), stdout)
		Expect(stdout).To(MatchRegexp(`bot faults: \d+ of \d+ conversations faulted on every attempt \(at most 1% may\), [1-9]\d* not played; faults met: connection \d+`))
		Expect(stdout).To(MatchRegexp(`inconclusive: \d+ of \d+ conversations faulted or were not played, more than the 1% --bot-max-faults allows; the bot stopped answering\n$`))
		data, err := os.ReadFile(filepath.Join(out, "summary.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring(`"status": "inconclusive"`))
		Expect(string(data)).To(ContainSubstring(`"stopped_answering": true`))
	}, SpecTimeout(hangLimit))

	It("stops with one line and exit status 2 when the bot is unreachable", func(ctx SpecContext) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := l.Addr().String()
		l.Close()
		code, stdout, stderr := simctl("run", formfill, "--bot", "http://"+addr+"/webhooks/rest/webhook", "--out", out)
		Expect(code).To(Equal(2))
		Expect(stdout).To(BeEmpty())
		Expect(stderr).To(HavePrefix("simctl: bot http://" + addr + "/webhooks/rest/webhook is unreachable: "))
		Expect(strings.Count(stderr, "\n")).To(Equal(1))
		Expect(filepath.Join(out, "report.html")).NotTo(BeAnExistingFile())
	}, SpecTimeout(10*time.Second))

	It("rejects a URL that is not http", func() {
		code, _, stderr := simctl("run", formfill, "--bot", "localhost:5005")
		Expect(code).To(Equal(2))
		Expect(stderr).To(ContainSubstring("--bot takes an http:// or https:// URL"))
	})
})
