package dfcx_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/dfcx"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

const fixture = "testdata/pizzeria"

// load imports the fixture (or a copy changed by edit) into a temporary
// suite folder and loads it as simctl loads any suite.
func importAgent(dir string) (*dfcx.Suite, string) {
	a, err := dfcx.Read(dir)
	Expect(err).NotTo(HaveOccurred())
	s, err := dfcx.Translate(a, "pizzeria")
	Expect(err).NotTo(HaveOccurred())
	out := GinkgoT().TempDir()
	for n, data := range s.Files {
		Expect(os.WriteFile(filepath.Join(out, n), data, 0o644)).To(Succeed())
	}
	return s, out
}

// copyFixture copies the fixture to a temporary folder, applying edits
// (file -> new content, "" deletes).
func copyFixture(edits map[string]string) string {
	dst := GinkgoT().TempDir()
	Expect(filepath.Walk(fixture, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(fixture, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		Expect(os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755)).To(Succeed())
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})).To(Succeed())
	for rel, body := range edits {
		p := filepath.Join(dst, rel)
		Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
		if body == "" {
			Expect(os.Remove(p)).To(Succeed())
			continue
		}
		Expect(os.WriteFile(p, []byte(body), 0o644)).To(Succeed())
	}
	return dst
}

func machine(s *dfcx.Suite) string { return string(s.Files["machine.yaml"]) }

var _ = Describe("simctl import dfcx", func() {
	var s *dfcx.Suite
	var out string
	BeforeEach(func() { s, out = importAgent(fixture) })

	It("writes a suite that loads through the one loader, and plays every test case of the fixture", func() {
		suite, err := spec.Load(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(suite.Scenarios).To(HaveLen(3))
		for _, sc := range suite.Scenarios {
			res := sim.RunScenario(suite, sc, sim.Options{})
			Expect(res.Failures).To(BeEmpty(), "scenario %s", sc.Name)
			Expect(res.Violations).To(BeEmpty(), "scenario %s", sc.Name)
		}
	})

	DescribeTable("translates each construct",
		func(file, want string) {
			Expect(string(s.Files[file])).To(ContainSubstring(want))
		},
		Entry("flows and pages as compound states, the start flow's START_PAGE first", "machine.yaml", "initial: Default_Start_Flow.start.wait"),
		Entry("a flow-to-flow route records where to return", "machine.yaml", `ret_Order: '"Default_Start_Flow.start"'`),
		Entry("END_FLOW returns to the calling page's routes", "machine.yaml", "target: Default_Start_Flow.start.routes"),
		Entry("END_SESSION is the final state", "machine.yaml", "target: end_session"),
		Entry("PREVIOUS_PAGE goes through the remembered page", "machine.yaml", `guard: prev_page == "Order.Size"`),
		Entry("a flow route group's intent routes are in scope on the page", "machine.yaml", "description: intent help"),
		Entry("no input and injected parameters are escapes (no cooperative user says them), with the intents simctl takes as escapes by name", "machine.yaml", "escapes: [no_input, inject, ev_cancel_order]"),
		Entry("numbered no-match handlers with their counter", "machine.yaml", "no_match == 1"),
		Entry("the no-match and no-input counters stop at 6", "machine.yaml", "no_match < 6"),
		Entry("sys.no-match-default after the numbered ones", "machine.yaml", "I still did not get that."),
		Entry("a form parameter's reprompt handler", "machine.yaml", "We have small, medium and large."),
		Entry("a custom event handler", "machine.yaml", "ev_cancel_order:"),
		Entry("webhook.error handlers on failed webhooks", "machine.yaml", "failed:*"),
		Entry("a webhook as a stubbed external action per tag", "machine.yaml", "invoke: wh_kitchen_price"),
		Entry("form parameters asked in order, required only", "machine.yaml", "target: Order.Size.ask_count"),
		Entry("a form parameter is the slot waited for while it is asked", "machine.yaml", "waits: true\n            entry:\n              - ask: size\n            exit:\n              - ask: none\n"),
		Entry("$page.params.status = FINAL is the form filled", "machine.yaml", "guard: (filled(size) and filled(count))"),
		Entry("an intent's annotated parameter fills its slot", "machine.yaml", `event.entities.e_size != "" ? event.entities.e_size : size`),
		Entry("entry fulfillment messages with parameter references (unset: the reference itself, as Dialogflow renders it)", "machine.yaml", `{(filled(count) ? count : "$session.params.count")}`),
		Entry("conditional cases", "machine.yaml", `(is_number(count) and number(count) > 2) ? ("That is a party!")`),
		Entry("setParameterActions with null and $sys.func", "machine.yaml", "label: upper(size)"),
		Entry("AND, NOT and comparisons", "machine.yaml", `((is_number(count) and number(count) >= 10) and not (size == "small"))`),
		Entry("OR and the has operator", "machine.yaml", `(confirmed contains "y")`),
		Entry("training phrases as exact phrases", "nlu.yaml", "what can you do"),
		Entry("entity types with synonyms", "nlu.yaml", "large: [family]"),
		Entry("system entities as patterns", "nlu.yaml", "sys_number:"),
		Entry("system entities with a builtin validator declare it on their slot", "machine.yaml", "count:\n    validator: number"),
		Entry("text variants as accepted phrasings", "Happy_order.scenario.yaml", `bot_matches: (?s)^(?:Hello! Pizza time\?|Hi! Hungry\?)$`),
		Entry("the current page, intent and session parameters as expectations", "Happy_order.scenario.yaml", "state: Order.Confirm"),
		Entry("injected parameters as an inject event", "Repair.scenario.yaml", "intent: inject"),
		Entry("event input as a turn", "Cancel.scenario.yaml", "intent: ev_cancel_order"),
	)

	DescribeTable("lists what it drops in import.md, with the file",
		func(want string) { Expect(string(s.Files["import.md"])).To(ContainSubstring(want)) },
		Entry("playbooks", "playbooks/Upsell`: playbooks (LLM-driven agents) are not kept"),
		Entry("other languages", "trainingPhrases/de.json`: intent Default Welcome Intent: language de dropped"),
		Entry("DTMF-only turns", "testCases/repair.json:38:39`: test case \"Repair\": a DTMF-only turn"),
		Entry("redact", "redact on parameter \"size\""),
	)

	It("reads a .zip of the export as the folder", func() {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		Expect(filepath.Walk(fixture, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(fixture, p)
			w, err := zw.Create("pizzeria/" + filepath.ToSlash(rel))
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			_, err = w.Write(data)
			return err
		})).To(Succeed())
		Expect(zw.Close()).To(Succeed())
		z := filepath.Join(GinkgoT().TempDir(), "pizzeria.zip")
		Expect(os.WriteFile(z, buf.Bytes(), 0o644)).To(Succeed())
		zs, _ := importAgent(z)
		Expect(machine(zs)).To(Equal(strings.ReplaceAll(machine(s), fixture, z)))
	})

	It("returns from END_FLOW to a caller in a flow translated later (flows after the start flow go by name)", func() {
		dir := copyFixture(map[string]string{
			"flows/Aaa/Aaa.json":          `{"displayName": "Aaa", "transitionRoutes": [{"condition": "true", "targetPage": "END_FLOW"}]}`,
			"flows/Order/pages/Done.json": `{"displayName": "Done", "transitionRoutes": [{"condition": "true", "targetFlow": "Aaa"}]}`,
		})
		s, _ := importAgent(dir)
		Expect(machine(s)).To(ContainSubstring(`guard: ret_Aaa == "Order.Done"`))
	})

	It("matches an entity type that lists another one as one word-bounded group of literals, as each literal alone would", func() {
		dir := copyFixture(map[string]string{
			"entityTypes/place/place.json":         `{ "displayName": "place", "kind": "KIND_MAP" }`,
			"entityTypes/place/entities/en.json":   `{ "entities": [ { "value": "@size", "synonyms": [ "@size" ] }, { "value": "downtown", "synonyms": [ "downtown" ] }, { "value": "city centre", "synonyms": [ "city centre" ] } ] }`,
			"intents/order.pizza/order.pizza.json": `{ "displayName": "order.pizza", "parameters": [ { "id": "size", "entityType": "@size" }, { "id": "where", "entityType": "@place" } ] }`,
		})
		s, _ := importAgent(dir)
		var nlu struct {
			Entities map[string]struct{ Pattern string } `yaml:"entities"`
		}
		Expect(yaml.Unmarshal(s.Files["nlu.yaml"], &nlu)).To(Succeed())
		got := nlu.Entities["e_place"].Pattern
		Expect(got).To(Equal(`(\b(?:small|personal|medium|regular|large|family|downtown|city centre)\b)`))
		// Each literal word-bounded on its own, in the same order: what
		// the pattern must match, text by text.
		var alts []string
		for _, x := range []string{"small", "small", "personal", "medium", "medium", "regular", "large", "large", "family", "downtown", "city centre"} {
			alts = append(alts, `\b`+regexp.QuoteMeta(x)+`\b`)
		}
		each := regexp.MustCompile("(" + strings.Join(alts, "|") + ")")
		one := regexp.MustCompile(got)
		for _, text := range []string{"a family pizza", "smallish", "deliver downtown please", "the city centre", "city", "mediumlarge", "large, or small", "REGULAR", ""} {
			Expect(one.FindStringSubmatchIndex(text)).To(Equal(each.FindStringSubmatchIndex(text)), "text %q", text)
		}
	})

	It("leaves a custom event to its handlers on every page, the pages translated before the first that handles it included", func() {
		// Without the test case that raises it, the event is first met on
		// the Order flow, translated after the start flow.
		dir := copyFixture(map[string]string{"testCases/cancel.json": ""})
		s, _ := importAgent(dir)
		Expect(machine(s)).To(ContainSubstring(`guard: event.intent not in ["Default_Welcome_Intent", "order_pizza", "help", "no_input", "inject", "ev_cancel_order"] and no_match < 6`))
	})

	It("keeps every parameter of an agent with more than the 32 slots the engine once held", func() {
		// 40 parameters set on one page and each read by a route: none is
		// left out, and the suite loads (engine.MaxSlots is 1,024).
		var sets, routes []string
		for i := range 40 {
			sets = append(sets, fmt.Sprintf(`{ "parameter": "p%d", "value": "v" }`, i))
			routes = append(routes, fmt.Sprintf(`{ "condition": "$session.params.p%d = \"w\"", "targetPage": "END_FLOW" }`, i))
		}
		dir := copyFixture(map[string]string{
			"flows/Order/pages/Done.json": `{ "displayName": "Done", "entryFulfillment": { "setParameterActions": [ ` + strings.Join(sets, ", ") + ` ] }, "transitionRoutes": [ ` + strings.Join(routes, ", ") + ` ] }`,
		})
		s, out := importAgent(dir)
		Expect(string(s.Files["import.md"])).NotTo(ContainSubstring("slots of a simctl machine"))
		suite, err := spec.Load(out)
		Expect(err).NotTo(HaveOccurred())
		for i := range 40 {
			_, ok := suite.Machine.SlotID(fmt.Sprintf("p%d", i))
			Expect(ok).To(BeTrue(), "p%d", i)
		}
	})

	It("is deterministic", func() {
		again, _ := importAgent(fixture)
		Expect(again.Files).To(Equal(s.Files))
	})
})

var _ = DescribeTable("bad input is one line at file:line:col",
	func(edits map[string]string, want string) {
		dir := copyFixture(edits)
		a, err := dfcx.Read(dir)
		if err == nil {
			_, err = dfcx.Translate(a, "bad")
		}
		Expect(err).To(HaveOccurred())
		msg := strings.ReplaceAll(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""), dir+": ", "")
		Expect(msg).NotTo(ContainSubstring("\n"))
		Expect(msg).To(Equal(want))
	},
	Entry("malformed JSON", map[string]string{"flows/Order/pages/Done.json": "{\n  \"displayName\": \"Done\",\n  \"entryFulfillment\": {\n}"},
		"flows/Order/pages/Done.json:4:2: malformed JSON: unexpected end of file"),
	Entry("a dangling target page", map[string]string{"flows/Order/pages/Done.json": `{"displayName": "Done", "transitionRoutes": [{"condition": "true", "targetPage": "Nowhere"}]}`},
		`flows/Order/pages/Done.json:1:82: page "Nowhere" is not a page of flow "Order"`),
	Entry("a dangling intent", map[string]string{"flows/Order/pages/Done.json": `{"displayName": "Done", "transitionRoutes": [{"intent": "nope"}]}`},
		`flows/Order/pages/Done.json:1:57: intent "nope" is not an intent of the agent`),
	Entry("a dangling route group", map[string]string{"flows/Order/pages/Done.json": `{"displayName": "Done", "transitionRouteGroups": ["Gone"]}`},
		`flows/Order/pages/Done.json:1:51: route group "Gone" is neither a group of flow "Order" nor of the agent`),
	Entry("an unsupported $sys.func function", map[string]string{"flows/Order/pages/Done.json": `{"displayName": "Done", "transitionRoutes": [{"condition": "$sys.func.RAND() > 1", "targetPage": "END_FLOW"}]}`},
		`flows/Order/pages/Done.json:1:61: $sys.func.RAND is not supported (simctl translates ADD, LEN, LOWER, MINUS, TO_TEXT, UPPER)`),
	Entry("a condition that does not parse", map[string]string{"flows/Order/pages/Done.json": `{"displayName": "Done", "transitionRoutes": [{"condition": "$session.params.x = = 2", "targetPage": "END_FLOW"}]}`},
		`flows/Order/pages/Done.json:1:81: condition "$session.params.x = = 2": unexpected "="`),
	Entry("no agent.json", map[string]string{"agent.json": ""},
		"no agent.json: expected the folder of an agent exported in the JSON package format"),
)
