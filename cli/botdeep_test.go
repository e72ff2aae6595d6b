package cli_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/bot/bottest"
	"github.com/simctl/simctl/cli"
	"github.com/simctl/simctl/spec"
)

// deepBotYAML has the loopback bot (bottest) serve both variants, report
// its state, take events as Rasa's payloads and offer its clock.
const deepBotYAML = `variants:
  - name: completo
  - name: ejemplo
    metadata: {variant: ejemplo}
state:
  url: /state/{sender}
  slots:
    nombre: $.slots.nombre
    email: $.slots.email
    telefono: $.slots.telefono
    sitio_web: $.slots.sitio_web
    presupuesto: $.slots.presupuesto
    codigo_postal: $.slots.codigo_postal
    escalation_reason: $.slots.escalation_reason
    escalado: $.slots.escalado
    completado: $.slots.completado
  waiting: $.waiting
  flow: $.flow
events: {as: payload}
clock: {url: /clock}
`

// formfillWith copies formfill to a folder of its own with botYAML as its
// bot.yaml.
func formfillWith(botYAML string) string {
	dir := copySuiteDir(formfill)
	Expect(os.WriteFile(filepath.Join(dir, "bot.yaml"), []byte(botYAML), 0o644)).To(Succeed())
	return dir
}

// deepBot serves formfill as a live bot (variant completo unless the
// metadata names another) with its state, twisted by twist and st.
func deepBot(twist bottest.Twist, st bottest.StateTwist) string {
	s, err := spec.Load(formfill)
	Expect(err).NotTo(HaveOccurred())
	srv := httptest.NewServer(&bottest.Bot{Suite: s, Variant: s.Variants[0], Twist: twist, State: st})
	DeferCleanup(srv.Close)
	return srv.URL
}

const (
	escalation = "Entiendo. Te paso con una persona de nuestro equipo, que seguirá la conversación."
	thanks     = "¡Gracias, Juan! Ya tenemos todos los datos del formulario."
)

// plantedBug is a bug planted in the loopback bot, and what finds it.
type plantedBug struct {
	twist bottest.Twist
	state bottest.StateTwist
	// want matches the terminal's shrunk divergence; turns is the length
	// of the written failure.
	want  string
	turns int
}

// hangLimit ends a bot spec that hangs. It is no speed check: under -race,
// beside make test's other parts and other work on a loaded machine, the
// four runs of the shard spec once took over 90 s.
const hangLimit = 5 * time.Minute

// Only the first spec here runs under -race: the others drive the same
// in-process bot (its state, events and clock) through the same client
// on one goroutine, so the race detector has nothing more to watch in
// them; what they add, finding and shrinking bugs, shapes and shards,
// is sequential code, and -race made them five times slower.
var _ = Describe("simctl run --bot, deeper", func() {
	var out string
	BeforeEach(func() { out = GinkgoT().TempDir() })

	It("plays all 40 scripted scenarios of formfill, both variants, events and waits, and the clean bot passes, searching each variant once", Label("race"), func(ctx SpecContext) {
		suite := formfillWith(deepBotYAML)
		searches, restore := cli.CountSearches()
		defer restore()
		code, stdout, stderr := simctl("run", suite, "--bot", deepBot(nil, nil)+"/webhooks/rest/webhook", "--generate", "40", "--explore-depth", "2", "--out", out, "-q")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(0), stdout)
		Expect(stdout).NotTo(ContainSubstring("SKIP "))
		// Each scenario runs in every variant it is for, as without --bot.
		names := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)^  PASS  (\S+)`).FindAllStringSubmatch(stdout, -1) {
			names[m[1]] = true
		}
		Expect(names).To(HaveLen(40), stdout)
		Expect(stdout).To(ContainSubstring("variant ejemplo"))
		Expect(stdout).To(MatchRegexp(`PASS  escalation_timeout_silent_ejemplo`))
		Expect(stdout).To(MatchRegexp(`PASS  mutant-formfill-153-drop-cancel`))
		// The explored conversations of each variant come from one search.
		Expect(searches).To(Equal(map[string]int{"formfill/completo": 1, "formfill/ejemplo": 1}))
	}, SpecTimeout(hangLimit))

	DescribeTable("finds and shrinks a planted bug",
		func(b plantedBug) {
			suite := formfillWith(deepBotYAML)
			code, stdout, _ := simctl("run", suite, "--bot", deepBot(b.twist, b.state)+"/webhooks/rest/webhook", "--generate", "40", "--explore-depth", "0", "--out", out, "-q")
			Expect(code).To(Equal(1), stdout)
			Expect(stdout).To(MatchRegexp(b.want))
			files, err := filepath.Glob(filepath.Join(out, "failures", "bot-*.scenario.yaml"))
			Expect(err).NotTo(HaveOccurred())
			Expect(files).NotTo(BeEmpty())
			shortest := 1 << 30
			for _, f := range files {
				data, err := os.ReadFile(f)
				Expect(err).NotTo(HaveOccurred())
				shortest = min(shortest, strings.Count(string(data), "\n  - "))
			}
			Expect(shortest).To(Equal(b.turns), stdout)
		},
		Entry("a routing bug after completion: a correction is applied instead of escalating", plantedBug{
			twist: func(turn int, user string, model []string) []string {
				if strings.HasPrefix(user, "No, mi email es") && len(model) == 1 && model[0] == escalation {
					return []string{thanks}
				}
				return model
			},
			want: `DIVERGE scripted correction_after_complete, turn 3: the bot's message differs`, turns: 3}),
		Entry("a wrong stored slot behind an unchanged reply: the phone stored without its spaces", plantedBug{
			state: func(_ int, _ string, slots map[string]any) {
				if t, ok := slots["telefono"].(string); ok {
					slots["telefono"] = strings.ReplaceAll(t, " ", "")
				}
			},
			want: `state: slot telefono: the bot holds "[+0-9]+", the model "[+0-9 ]+"`, turns: 1}),
		Entry("an escalation priority inversion: sentiment before keyword, behind the same message", plantedBug{
			state: func(_ int, user string, slots map[string]any) {
				if slots["escalation_reason"] == "keyword" && strings.Contains(strings.ToLower(user), "odio") {
					slots["escalation_reason"] = "sentiment"
				}
			},
			want: `state: slot escalation_reason: the bot holds "sentiment", the model "keyword"`, turns: 1}),
		Entry("a validator accepting a bad value: a budget of 1.500,50", plantedBug{
			twist: func(turn int, user string, model []string) []string {
				if len(model) == 1 && strings.Contains(model[0], "no es un valor válido para presupuesto") {
					return []string{"¿Cuál es tu código postal?"}
				}
				return model
			},
			want: `model: ".*no es un valor válido para presupuesto`, turns: 5}),
	)
})

var _ = Describe("simctl run --bot, other JSON APIs", func() {
	var out string
	BeforeEach(func() { out = GinkgoT().TempDir() })

	// connectorBot serves formfill's model behind wrap, twisted by st.
	connectorBot := func(wrap func(*bottest.Bot) http.Handler, st bottest.StateTwist) string {
		s, err := spec.Load(formfill)
		Expect(err).NotTo(HaveOccurred())
		srv := httptest.NewServer(wrap(&bottest.Bot{Suite: s, Variant: s.Variants[0], State: st}))
		DeferCleanup(srv.Close)
		return srv.URL
	}
	const genericYAML = `variant: completo
connector:
  shape: simplerest
  SIMPLEREST_METHOD: POST
  SIMPLEREST_HEADERS_TEMPLATE: {X-Key: s3cret}
  SIMPLEREST_BODY_TEMPLATE: '{"user": {"id": "{{botium.conversationId}}"}, "say": "{{msg.messageText}}", "ctx": "{{msg.metadata}}"}'
  SIMPLEREST_BODY_JSONPATH: $.answer.lines[*]
  SIMPLEREST_RESPONSE_JSONPATH: $.t
state:
  url: /who/{sender}
  slots: {nombre: $.memory.nombre, telefono: $.memory.telefono}
`
	const langgraphYAML = `variant: completo
connector: {shape: langgraph, assistant_id: formfill}
state:
  slots: {nombre: "", email: "", telefono: "", escalation_reason: ""}
`
	phoneTwist := func(_ int, _ string, slots map[string]any) {
		if t, ok := slots["telefono"].(string); ok {
			slots["telefono"] = strings.ReplaceAll(t, " ", "")
		}
	}

	DescribeTable("drives a bot of another shape, and finds a wrong stored slot through its state",
		func(botYAML string, wrap func(*bottest.Bot) http.Handler) {
			suite := formfillWith(botYAML)
			url := connectorBot(wrap, nil)
			code, stdout, stderr := simctl("run", suite, "--bot", url, "--generate", "20", "--explore-depth", "0", "--out", out, "-q")
			Expect(stderr).To(BeEmpty())
			Expect(code).To(Equal(0), stdout)
			Expect(stdout).To(MatchRegexp(`generated     20 conversations: \d+ conform, 0 diverge, 0 bot faults`))
			Expect(stdout).To(MatchRegexp(`PASS  happy_path|PASS  correction_phone`))

			url = connectorBot(wrap, phoneTwist)
			code, stdout, _ = simctl("run", suite, "--bot", url, "--generate", "20", "--explore-depth", "0", "--out", filepath.Join(out, "twisted"), "-q")
			Expect(code).To(Equal(1), stdout)
			Expect(stdout).To(MatchRegexp(`state: slot telefono: the bot holds "[+0-9]+", the model "[+0-9 ]+"`))
		},
		Entry("a generic JSON API, configured with Botium's SIMPLEREST_* names", genericYAML,
			func(b *bottest.Bot) http.Handler { return bottest.SimpleRest(b, "s3cret") }),
		Entry("LangGraph's server API", langgraphYAML,
			func(b *bottest.Bot) http.Handler { return bottest.LangGraph(b, "formfill") }),
	)

	DescribeTable("refuses a bad bot.yaml with one line and exit status 2",
		func(botYAML, want string) {
			suite := formfillWith(botYAML)
			code, stdout, stderr := simctl("run", suite, "--bot", "http://127.0.0.1:1/", "--out", out)
			Expect(code).To(Equal(2))
			Expect(stdout).To(BeEmpty())
			Expect(stderr).To(Equal("simctl: " + filepath.Join(suite, "bot.yaml") + want + "\n"))
		},
		Entry("an unknown shape", "connector: {shape: soap}\n", ":1:20: shape: expected rest, simplerest or langgraph, got \"soap\""),
		Entry("a bad JSON path", "connector:\n  shape: simplerest\n  SIMPLEREST_RESPONSE_JSONPATH: text\n", ":3:33: a JSON path starts with $, got \"text\""),
		Entry("a body template that is not JSON", "connector:\n  shape: simplerest\n  SIMPLEREST_RESPONSE_JSONPATH: $.t\n  SIMPLEREST_BODY_TEMPLATE: '{\"a\": '\n",
			":4:29: SIMPLEREST_BODY_TEMPLATE: expected a JSON document: unexpected end of JSON input"),
		Entry("an unknown slot", "state:\n  url: /s/{sender}\n  slots: {nombres: $.n}\n", ":3:11: slots: unknown slot \"nombres\""),
		Entry("events sent some other way", "events: {as: smoke}\n", ":1:14: as: expected payload or metadata, got \"smoke\""),
		Entry("a variant listed twice", "variants:\n  - name: completo\n  - name: completo\n", ":3:11: variant \"completo\" is listed twice"),
		Entry("a clock without url", "clock: {}\n", ":1:8: missing required field \"url\""),
	)
})

var _ = Describe("simctl run --bot, shards and failure files", func() {
	var out string
	BeforeEach(func() { out = GinkgoT().TempDir() })

	It("splits the live conversations between shards as one process plays them", func(ctx SpecContext) {
		suite := formfillWith(deepBotYAML)
		url := deepBot(nil, nil) + "/webhooks/rest/webhook"
		rows := func(dir string) []string {
			data, err := os.ReadFile(filepath.Join(dir, "bot.csv"))
			Expect(err).NotTo(HaveOccurred())
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			return lines[1:]
		}
		code, stdout, _ := simctl("run", suite, "--bot", url, "--generate", "30", "--explore-depth", "2", "--out", filepath.Join(out, "all"), "-q")
		Expect(code).To(Equal(0), stdout)
		var shards []string
		for i := range 3 {
			dir := filepath.Join(out, "shard", string(rune('0'+i)))
			code, stdout, _ := simctl("run", suite, "--bot", url, "--generate", "30", "--explore-depth", "2", "--out", dir, "-q", "--shard", string(rune('0'+i))+"/3")
			Expect(code).To(Equal(0), stdout)
			mine := rows(dir)
			Expect(len(mine)).To(BeNumerically("<", len(rows(filepath.Join(out, "all")))))
			shards = append(shards, mine...)
		}
		Expect(shards).To(ConsistOf(rows(filepath.Join(out, "all"))))
	}, SpecTimeout(hangLimit))

	It("keeps a failure file's name when it is played again with --out, and finds its suite by an absolute path", func(ctx SpecContext) {
		suite := formfillWith(repliesOnly)
		url := formfillBot(plantedDivergence)
		code, stdout, _ := simctl("run", suite+"/invalid_number.scenario.yaml", "--bot", url, "--out", out, "-q")
		Expect(code).To(Equal(1), stdout)
		files, err := filepath.Glob(filepath.Join(out, "failures", "bot-*.scenario.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(files).To(HaveLen(1), stdout)
		// The suite by its absolute path, from a file elsewhere.
		data, err := os.ReadFile(files[0])
		Expect(err).NotTo(HaveOccurred())
		abs, err := filepath.Abs(suite)
		Expect(err).NotTo(HaveOccurred())
		moved := filepath.Join(GinkgoT().TempDir(), filepath.Base(files[0]))
		Expect(os.WriteFile(moved, regexp.MustCompile(`(?m)^suite: .*$`).ReplaceAll(data, []byte("suite: "+abs)), 0o644)).To(Succeed())
		again := filepath.Join(out, "again")
		code, stdout, _ = simctl("run", moved, "--bot", url, "--out", again, "-q")
		Expect(code).To(Equal(1), stdout)
		Expect(filepath.Join(again, "failures", filepath.Base(files[0]))).To(BeAnExistingFile())
	}, SpecTimeout(hangLimit))
})
