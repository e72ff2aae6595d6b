package spec_test

import (
	"os"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

const cassetteMachine = `machine: m
initial: idle
intents: [greet, inform]
states:
  idle:
    waits: true
    on:
      greet: {target: talking, actions: [{set: {who: event.entities.name}}]}
  talking:
    waits: true
    on:
      inform: idle
slots:
  who: {}
`

// goodRecord is a valid cassette line that each bad case breaks in one
// place.
const goodRecord = `{"state":"idle","text":"hi Ana","intent":{"name":"greet","confidence":0.9},"entities":[{"entity":"name","value":"Ana","start":3,"end":6,"extractor":"RegexEntityExtractor"}],"intent_ranking":[{"name":"greet","confidence":0.9},{"name":"inform","confidence":0.1}],"latency_ms":12}`

type cassetteCase struct {
	data string
	want string // the error, with the file named F
}

var _ = Describe("LoadCassette", func() {
	var m *engine.Machine

	BeforeEach(func() {
		s, err := spec.LoadMachine("machine.yaml", []byte(cassetteMachine))
		Expect(err).NotTo(HaveOccurred())
		m = s.Machine
	})

	It("reads the records of a valid cassette, with their latencies in file order", func() {
		data := goodRecord + "\n\n" + `{"state":"talking","text":"Ana","intent":{"name":null,"confidence":0},"entities":[],"latency_ms":40}` + "\r\n"
		c, err := spec.LoadCassette("F", []byte(data), m)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Records).To(HaveLen(2))
		r := c.Records[0]
		Expect(r.State).To(Equal("idle"))
		Expect(r.Intent).To(Equal(spec.ReplyIntent{Name: "greet", Confidence: 0.9}))
		Expect(r.Entities).To(HaveLen(1))
		Expect(r.Entities[0].Text()).To(Equal("Ana"))
		Expect(r.IntentRanking).To(HaveLen(2))
		Expect(r.Line).To(Equal(1))
		Expect(c.Records[1].Intent.Name).To(BeEmpty(), "a null intent name is not understood")
		Expect(c.Records[1].Line).To(Equal(3))
		Expect(c.Latencies()).To(Equal([]int64{12, 40}))
	})

	It("writes what it reads: encoding the records gives the lines back", func() {
		c, err := spec.LoadCassette("F", []byte(goodRecord+"\n"), m)
		Expect(err).NotTo(HaveOccurred())
		out, err := spec.EncodeCassette(c.Records)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(Equal(goodRecord + "\n"))
	})

	It("keeps numbers and booleans as entity values, read as text", func() {
		line := strings.Replace(goodRecord, `"value":"Ana"`, `"value":42.5`, 1)
		c, err := spec.LoadCassette("F", []byte(line), m)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Records[0].Entities[0].Text()).To(Equal("42.5"))
	})

	DescribeTable("rejects a malformed line with file:line:col and what was expected",
		func(c cassetteCase) {
			_, err := spec.LoadCassette("F", []byte(c.data), m)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(Equal(c.want))
		},
		Entry("bad JSON", cassetteCase{
			data: goodRecord + "\n" + `{"state": "idle", "text": "x", ` + "\n",
			want: `F:2:32: invalid JSON: unexpected end of line`,
		}),
		Entry("a syntax error inside the line", cassetteCase{
			data: `{"state": "idle" "text": "x"}`,
			want: `F:1:18: invalid JSON: invalid character '"' after object key:value pair`,
		}),
		Entry("a syntax error inside a value", cassetteCase{
			data: `{"state": "idle", "intent": {"name": tru}}`,
			want: `F:1:41: invalid JSON: invalid character '}' in literal true (expecting 'e')`,
		}),
		Entry("not an object", cassetteCase{
			data: `["idle", "hi"]`,
			want: `F:1:1: expected a JSON object, got a list`,
		}),
		Entry("two values on a line", cassetteCase{
			data: goodRecord + ` {}`,
			want: `F:1:` + col(goodRecord+" {}", len(goodRecord)+1) + `: invalid JSON: more than one value on the line`,
		}),
		Entry("an unknown field", cassetteCase{
			data: strings.Replace(goodRecord, `"latency_ms":12`, `"extra":1`, 1),
			want: `F:1:` + at(goodRecord, `"latency_ms"`) + `: unknown field "extra" (expected one of: state, text, intent, entities, intent_ranking, latency_ms)`,
		}),
		Entry("a missing required field", cassetteCase{
			data: strings.Replace(goodRecord, `,"latency_ms":12`, ``, 1),
			want: `F:1:1: missing required field "latency_ms"`,
		}),
		Entry("a missing intent confidence", cassetteCase{
			data: strings.Replace(goodRecord, `{"name":"greet","confidence":0.9},"entities"`, `{"name":"greet"},"entities"`, 1),
			want: `F:1:` + at(goodRecord, `{"name":"greet"`) + `: intent: missing required field "confidence"`,
		}),
		Entry("confidence outside [0,1]", cassetteCase{
			data: strings.Replace(goodRecord, `"confidence":0.9},"entities"`, `"confidence":1.5},"entities"`, 1),
			want: `F:1:` + at(goodRecord, `0.9},"entities"`) + `: intent.confidence: 1.5 is outside [0,1]`,
		}),
		Entry("a ranking confidence outside [0,1]", cassetteCase{
			data: strings.Replace(goodRecord, `"confidence":0.1}`, `"confidence":-0.1}`, 1),
			want: `F:1:` + at(goodRecord, `0.1}]`) + `: intent_ranking[1].confidence: -0.1 is outside [0,1]`,
		}),
		Entry("an entity starting after its end", cassetteCase{
			data: strings.Replace(goodRecord, `"start":3,"end":6`, `"start":5,"end":4`, 1),
			want: `F:1:` + at(goodRecord, `6,"extractor"`) + `: entities[0]: start 5 is after end 4`,
		}),
		Entry("an entity ending past the text", cassetteCase{
			data: strings.Replace(goodRecord, `"end":6`, `"end":9`, 1),
			want: `F:1:` + at(goodRecord, `6,"extractor"`) + `: entities[0].end: 9 is past the end of the text (6 characters)`,
		}),
		Entry("an entity value that is an object", cassetteCase{
			data: strings.Replace(goodRecord, `"value":"Ana"`, `"value":{"x":1}`, 1),
			want: `F:1:` + at(goodRecord, `"Ana"`) + `: entities[0].value: expected a string, number or boolean, got an object`,
		}),
		Entry("a latency that is not a whole number", cassetteCase{
			data: strings.Replace(goodRecord, `"latency_ms":12`, `"latency_ms":"12ms"`, 1),
			want: `F:1:` + at(goodRecord, `12}`) + `: latency_ms: expected a whole number, got "12ms"`,
		}),
		Entry("an unknown field in an entity", cassetteCase{
			data: strings.Replace(goodRecord, `"extractor"`, `"extractr"`, 1),
			want: `F:1:` + at(goodRecord, `"extractor"`) + `: entities[0]: unknown field "extractr" (expected one of: entity, value, start, end, extractor)`,
		}),
		Entry("a duplicate field", cassetteCase{
			data: strings.Replace(goodRecord, `"latency_ms":12`, `"latency_ms":12,"text":"again"`, 1),
			want: `F:1:` + col(goodRecord, len(goodRecord)) + `: duplicate field "text"`,
		}),
		Entry("an intent the machine does not declare", cassetteCase{
			data: strings.Replace(goodRecord, `{"name":"greet","confidence":0.9},"entities"`, `{"name":"greeting","confidence":0.9},"entities"`, 1),
			want: `F:1:` + at(goodRecord, `{"name":"greet"`) + `: intent.name: unknown intent "greeting" (the machine declares: greet, inform)`,
		}),
		Entry("a state the machine does not declare", cassetteCase{
			data: strings.Replace(goodRecord, `"state":"idle"`, `"state":"idel"`, 1),
			want: `F:1:10: state: unknown state "idel" (states: idle, talking)`,
		}),
		Entry("two records for the same text in the same state", cassetteCase{
			data: goodRecord + "\n" + strings.Replace(goodRecord, `"latency_ms":12`, `"latency_ms":13`, 1) + "\n",
			want: `F:2:1: duplicate record for text "hi Ana" in state idle (first on line 1)`,
		}),
		Entry("invalid UTF-8", cassetteCase{
			data: `{"state":"idle","text":"h` + "\xff" + `"}`,
			want: `F:1:26: line is not valid UTF-8`,
		}),
	)

	It("finds at most one cassette in a suite folder", func() {
		dir := GinkgoT().TempDir()
		Expect(spec.FindCassette(dir)).To(BeEmpty())
		for _, n := range []string{"a.cassette.jsonl", "b.cassette.jsonl"} {
			Expect(os.WriteFile(dir+"/"+n, nil, 0o644)).To(Succeed())
		}
		_, err := spec.FindCassette(dir)
		Expect(err).To(MatchError(dir + "/b.cassette.jsonl: a suite has at most one cassette, this one has 2: a.cassette.jsonl, b.cassette.jsonl"))
	})

	It("reads a live server's reply leniently: fields it does not keep are ignored, what it keeps is checked", func() {
		r, err := spec.DecodeReply([]byte(`{"intent":{"name":"greet","confidence":0.7,"id":123},"entities":[{"entity":"name","value":"Ana","start":0,"end":3,"confidence_entity":0.99,"processors":[]}],"response_selector":{},"text_tokens":[[0,3]]}`), "Ana")
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Text).To(Equal("Ana"))
		Expect(r.Intent.Name).To(Equal("greet"))
		Expect(r.Entities[0].Entity).To(Equal("name"))
		_, err = spec.DecodeReply([]byte(`{"text":"x","entities":[]}`), "x")
		Expect(err).To(MatchError(`missing required field "intent"`))
		_, err = spec.DecodeReply([]byte(`{"text":"x","intent":{"name":"a","confidence":7}}`), "x")
		Expect(err).To(MatchError(`intent.confidence: 7 is outside [0,1]`))
		_, err = spec.DecodeReply([]byte(`<html>`), "x")
		Expect(err).To(MatchError(`invalid JSON: invalid character '<' looking for beginning of value`))
	})
})

var jsonlBlock = regexp.MustCompile("(?s)```jsonl\n(.*?)```")

var _ = Describe("docs/cassette-format.md", func() {
	It("shows a cassette that loads against the example pizza machine", func() {
		page, err := os.ReadFile(docsDir + "/cassette-format.md")
		Expect(err).NotTo(HaveOccurred())
		blocks := jsonlBlock.FindAllSubmatch(page, -1)
		Expect(blocks).NotTo(BeEmpty())
		s, err := spec.Load(exampleDir)
		Expect(err).NotTo(HaveOccurred())
		for _, b := range blocks {
			c, err := spec.LoadCassette("example.cassette.jsonl", b[1], s.Machine)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Records).NotTo(BeEmpty())
		}
	})
})

// col returns the column (1-based, in characters) of byte offset off of s,
// as text.
func col(s string, off int) string {
	return itoa(len([]rune(s[:off])) + 1)
}

// at returns the column where sub starts in s.
func at(s, sub string) string {
	i := strings.Index(s, sub)
	if i < 0 {
		Fail("fixture does not contain " + sub)
	}
	return col(s, i)
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
