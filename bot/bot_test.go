package bot_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/bot"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

const rules = `
replies:
  - prompt: "¿Cuál es tu email?"
    matches: '¿Cuál es tu (email|correo)\?'
  - prompt: "¿Cuál es tu nombre?"
    accept: ["¿Cuál es tu nombre?", "¿Cómo te llamas?"]
  - prompt_matches: '¡Gracias, .*! Ya tenemos todos los datos del formulario\.'
    matches: '(¡Gracias|Gracias), .*'
`

type matchCase struct {
	model, bot []string
	want       string // "" conforms
}

var _ = Describe("Matcher", func() {
	var m *bot.Matcher
	BeforeEach(func() {
		b, err := spec.LoadBot("bot.yaml", []byte(rules), nil)
		Expect(err).NotTo(HaveOccurred())
		m = bot.NewMatcher(b)
	})

	DescribeTable("judges a turn's messages",
		func(c matchCase) { Expect(m.Turn(c.model, c.bot)).To(Equal(c.want)) },
		Entry("exact by default", matchCase{[]string{"Hola."}, []string{"Hola."}, ""}),
		Entry("exact by default, one character off", matchCase{[]string{"Hola."}, []string{"Hola"}, "the bot's message differs from the model's"}),
		Entry("a message too many", matchCase{[]string{"Hola."}, []string{"Hola.", "¿Qué tal?"}, "the model says 1 message(s), the bot 2"}),
		Entry("no message", matchCase{[]string{"Hola."}, nil, "the model says 1 message(s), the bot 0"}),
		Entry("the second of two differs", matchCase{[]string{"a", "b"}, []string{"a", "c"}, "message 2 of 2 differs"}),
		Entry("a prompt's regex", matchCase{[]string{"¿Cuál es tu email?"}, []string{"¿Cuál es tu correo?"}, ""}),
		Entry("a prompt's regex matches whole messages only", matchCase{[]string{"¿Cuál es tu email?"}, []string{"¿Cuál es tu correo? Gracias"}, "the bot's message differs from the model's"}),
		Entry("an accepted phrasing", matchCase{[]string{"¿Cuál es tu nombre?"}, []string{"¿Cómo te llamas?"}, ""}),
		Entry("a phrasing not in the list", matchCase{[]string{"¿Cuál es tu nombre?"}, []string{"¿Tu nombre?"}, "the bot's message differs from the model's"}),
		Entry("a rendered prompt found by prompt_matches", matchCase{[]string{"¡Gracias, Juan! Ya tenemos todos los datos del formulario."}, []string{"Gracias, Juan."}, ""}),
	)
})

var _ = Describe("Client", func() {
	It("reads the texts of a Rasa REST reply in order, skipping messages without text", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`[{"recipient_id":"u","text":"uno"},{"recipient_id":"u","image":"x.png"},{"recipient_id":"u","text":"dos","buttons":[]}]`))
		}))
		defer srv.Close()
		texts, _, err := bot.NewClient(srv.URL, time.Second).Send(context.Background(), &bot.Session{Sender: "u"}, "hola", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(texts).To(Equal([]string{"uno", "dos"}))
	})

	DescribeTable("tells faults by kind",
		func(body string, status int, want bot.FaultKind) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(status)
				w.Write([]byte(body))
			}))
			defer srv.Close()
			_, _, err := bot.NewClient(srv.URL, time.Second).Send(context.Background(), &bot.Session{Sender: "u"}, "hola", nil)
			var f *bot.Fault
			Expect(err).To(BeAssignableToTypeOf(f))
			Expect(err.(*bot.Fault).Kind).To(Equal(want))
		},
		Entry("503", `[]`, 503, bot.Status),
		Entry("an object instead of a list", `{"text":"hola"}`, 200, bot.Malformed),
		Entry("a text that is not text", `[{"text":3}]`, 200, bot.Malformed),
		Entry("HTML", `<html>`, 200, bot.Malformed),
	)
})

var _ = Describe("EventMessage", func() {
	DescribeTable("sends an event without text as bot.yaml says",
		func(src string, st bot.Step, text string, meta map[string]any) {
			b, err := spec.LoadBot("bot.yaml", []byte(src), nil)
			Expect(err).NotTo(HaveOccurred())
			gotText, gotMeta := bot.EventMessage(b.Events, &st, map[string]any{"variant": "x"})
			Expect(gotText).To(Equal(text))
			Expect(gotMeta).To(Equal(meta))
		},
		Entry("Rasa's payload", "events: {as: payload}\n", bot.Step{Kind: bot.Event, Intent: "corregir", Entities: [][2]string{{"campo", "email"}}},
			`/corregir{"campo":"email"}`, map[string]any{"variant": "x"}),
		Entry("Rasa's payload without entities", "events: {as: payload}\n", bot.Step{Kind: bot.Event, Intent: "silencio"}, "/silencio", map[string]any{"variant": "x"}),
		Entry("a metadata field", "events: {as: metadata, field: ev}\n", bot.Step{Kind: bot.Event, Intent: "silencio"}, "",
			map[string]any{"variant": "x", "ev": map[string]any{"intent": "silencio", "entities": map[string]any{}}}),
		Entry("a button's payload", "events: {messages: {silencio: \"<silence>\"}}\n", bot.Step{Kind: bot.Event, Intent: "silencio"}, "<silence>", map[string]any{"variant": "x"}),
	)
})

var _ = Describe("bot.yaml", func() {
	DescribeTable("is refused with its position",
		func(src, want string) {
			_, err := spec.LoadBot("bot.yaml", []byte(src), nil)
			Expect(err).To(MatchError(want))
		},
		Entry("both prompt and prompt_matches", "replies:\n  - prompt: a\n    prompt_matches: b\n    accept: [a]\n", "bot.yaml:2:5: a reply rule needs exactly one of prompt or prompt_matches"),
		Entry("neither matches nor accept", "replies:\n  - prompt: a\n", "bot.yaml:2:5: a reply rule needs exactly one of matches or accept"),
		Entry("a bad regex", "replies:\n  - prompt: a\n    matches: '(('\n", "bot.yaml:3:14: bad regular expression: error parsing regexp: missing closing ): `^(?:(()$`"),
		Entry("an unknown variant", "variant: grande\n", "bot.yaml:1:10: variant: unknown variant \"grande\" (the suite has: none)"),
		Entry("an unknown key", "replys: []\n", "bot.yaml:1:1: unknown field \"replys\" (expected one of: variant, variants, replies, connector, state, events, clock)"),
	)
})

var _ = Describe("CompareState", func() {
	// After "Mi nombre es Juan" formfill's model holds nombre Juan, waits
	// for email, and runs flow completo.
	var (
		s *spec.Suite
		d *sim.Driver
	)
	BeforeEach(func() {
		var err error
		s, err = spec.Load("../scenarios/formfill")
		Expect(err).NotTo(HaveOccurred())
		m := s.Variants[0].Machine
		stub := sim.NewStub(s.NLU, m)
		d = sim.NewDriver(m, stub, stub)
		Expect(d.Start(0)).To(Succeed())
		Expect(d.User("Mi nombre es Juan")).To(Succeed())
	})

	DescribeTable("reads Rasa's tracker by the slots' names and names what differs",
		func(tracker, want string) {
			b, err := spec.LoadBot("bot.yaml", []byte("state:\n  url: /conversations/{sender}/tracker\n  slots: {nombre: \"\", email: \"\"}\n  waiting: $.requested_slot\n  flow: $.stack[-1].flow_id\n"), s.Variants)
			Expect(err).NotTo(HaveOccurred())
			var v any
			Expect(json.Unmarshal([]byte(tracker), &v)).To(Succeed())
			Expect(bot.CompareState(b.State, d.M, &d.Cfg, v)).To(Equal(want))
		},
		Entry("the same", `{"slots": {"nombre": "Juan", "email": null}, "requested_slot": "email", "stack": [{"flow_id": "completo"}]}`, ""),
		Entry("a slot stored wrongly", `{"slots": {"nombre": "juan", "email": null}, "requested_slot": "email", "stack": [{"flow_id": "completo"}]}`,
			`slot nombre: the bot holds "juan", the model "Juan"`),
		Entry("a slot the bot lacks", `{"slots": {}, "requested_slot": "email", "stack": [{"flow_id": "completo"}]}`,
			`slot nombre: the bot holds nothing, the model "Juan"`),
		Entry("another slot asked for", `{"slots": {"nombre": "Juan"}, "requested_slot": "telefono", "stack": [{"flow_id": "completo"}]}`,
			`waiting for slot: the bot "telefono", the model "email"`),
		Entry("another flow", `{"slots": {"nombre": "Juan"}, "requested_slot": "email", "stack": [{"flow_id": "ejemplo"}]}`,
			`active flow: the bot's is "ejemplo", the model's "completo"`),
	)
})
