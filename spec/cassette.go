package spec

// NLU cassettes: a suite's recorded NLU replies, one JSON object per line
// (docs/cassette-format.md). A record holds what a live NLU answered, in
// the shape of Rasa's POST /model/parse reply, to one utterance said in one
// state, and how long it took. The loader is as strict as the YAML one:
// unknown or duplicate fields, missing fields, values of the wrong type,
// confidences outside [0,1], entity offsets out of order, intents and
// states the machine does not declare and two records for the same
// utterance in the same state are errors naming file:line:col.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/simctl/simctl/engine"
)

// Cassette file names.
const (
	// CassetteSuffix ends the name of a suite's cassette file.
	CassetteSuffix = ".cassette.jsonl"
	// CassetteFile is the name simctl record gives a new cassette.
	CassetteFile = "nlu" + CassetteSuffix
	// MaxCassetteSize bounds a cassette file.
	MaxCassetteSize = 64 << 20
)

// ParseReply is the reply of Rasa's HTTP API to POST /model/parse, as far
// as simctl reads it.
type ParseReply struct {
	Text          string        `json:"text"`
	Intent        ReplyIntent   `json:"intent"`
	Entities      []ReplyEntity `json:"entities"`
	IntentRanking []ReplyIntent `json:"intent_ranking,omitempty"`
}

// ReplyIntent is an intent with its confidence. An empty Name (null in
// JSON) means that nothing was understood.
type ReplyIntent struct {
	Name       string
	Confidence float64
}

// MarshalJSON writes an empty name as null, as Rasa does.
func (r ReplyIntent) MarshalJSON() ([]byte, error) {
	name := []byte("null")
	if r.Name != "" {
		var err error
		if name, err = marshalNoEscape(r.Name); err != nil {
			return nil, err
		}
	}
	conf := strconv.FormatFloat(r.Confidence, 'g', -1, 64)
	return []byte(`{"name":` + string(name) + `,"confidence":` + conf + `}`), nil
}

// ReplyEntity is one entity an NLU found: its name, its value (a JSON
// string, number or boolean, kept as written) and where it is in the text,
// in characters (Unicode code points, as Rasa counts them).
type ReplyEntity struct {
	Entity    string          `json:"entity"`
	Value     json.RawMessage `json:"value"`
	Start     int             `json:"start"`
	End       int             `json:"end"`
	Extractor string          `json:"extractor,omitempty"`
}

// Text returns the entity's value as text: a string as is, a number or a
// boolean as written.
func (e *ReplyEntity) Text() string {
	var s string
	if json.Unmarshal(e.Value, &s) == nil {
		return s
	}
	return string(e.Value)
}

// TextValue returns a JSON string value for an entity.
func TextValue(s string) json.RawMessage {
	b, _ := marshalNoEscape(s)
	return b
}

// CassetteRecord is one line of a cassette: the NLU's reply to Text said
// in State (the full path of the state the conversation was in), and the
// measured latency of the reply.
type CassetteRecord struct {
	State string `json:"state"`
	ParseReply
	LatencyMS int64 `json:"latency_ms"`
	// Line is where the record is in its file (0 for a new record).
	Line int `json:"-"`
}

// Cassette is a suite's loaded cassette.
type Cassette struct {
	File    string
	Records []CassetteRecord
}

// Latencies returns the recorded latency of every record, in milliseconds,
// in file order: the empirical latency distribution of the suite's NLU.
func (c *Cassette) Latencies() []int64 {
	if c == nil {
		return nil
	}
	out := make([]int64, len(c.Records))
	for i := range c.Records {
		out[i] = c.Records[i].LatencyMS
	}
	return out
}

// SortRecords orders records as simctl record writes them: by state, then
// text.
func SortRecords(recs []CassetteRecord) {
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].State != recs[j].State {
			return recs[i].State < recs[j].State
		}
		return recs[i].Text < recs[j].Text
	})
}

// EncodeCassette renders records as cassette lines, in the order given.
func EncodeCassette(recs []CassetteRecord) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		if r.Entities == nil {
			r.Entities = []ReplyEntity{}
		}
		if err := enc.Encode(r); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

func marshalNoEscape(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// FindCassette returns the cassette file of the suite in dir, or "" when
// it has none. More than one is an error.
func FindCassette(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*"+CassetteSuffix))
	if err != nil {
		return "", &Error{Pos: engine.Pos{File: dir}, Msg: err.Error()}
	}
	sort.Strings(files)
	switch len(files) {
	case 0:
		return "", nil
	case 1:
		return files[0], nil
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	return "", &Error{Pos: engine.Pos{File: files[1]}, Msg: fmt.Sprintf("a suite has at most one cassette, this one has %d: %s",
		len(files), strings.Join(names, ", "))}
}

// loadSuiteCassette loads the cassette of the suite in dir, if it has one.
func loadSuiteCassette(dir string, m *engine.Machine) (*Cassette, error) {
	file, err := FindCassette(dir)
	if err != nil || file == "" {
		return nil, err
	}
	data, err := ReadFile(file, "cassette file", MaxCassetteSize)
	if err != nil {
		return nil, err
	}
	return LoadCassette(file, data, m)
}

// LoadCassette parses a cassette and checks it against the machine: every
// intent a record gives and every state it names must be declared.
func LoadCassette(file string, data []byte, m *engine.Machine) (*Cassette, error) {
	if len(data) > MaxCassetteSize {
		return nil, &Error{Pos: engine.Pos{File: file, Line: 1, Col: 1}, Msg: fmt.Sprintf("file is %d bytes, more than the %d allowed", len(data), MaxCassetteSize)}
	}
	c := &Cassette{File: file}
	type key struct {
		text  string
		state engine.StateID
	}
	first := map[key]int{}
	for n, line := range bytes.Split(data, []byte("\n")) {
		lineNo := n + 1
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		at := func(off int, msg string) error {
			return &Error{Pos: engine.Pos{File: file, Line: lineNo, Col: column(line, off)}, Msg: msg}
		}
		if !utf8.Valid(line) {
			off := 0
			for off < len(line) {
				r, size := utf8.DecodeRune(line[off:])
				if r == utf8.RuneError && size <= 1 {
					break
				}
				off += size
			}
			return nil, at(off, "line is not valid UTF-8")
		}
		rec, err := decodeRecord(line)
		if err != nil {
			return nil, at(err.off, err.msg)
		}
		rec.Line = lineNo
		if err := checkReplyIntents(&rec.ParseReply, rec.intentOff, m); err != nil {
			return nil, at(err.off, err.msg)
		}
		sid, ok := m.StateID(rec.State)
		if !ok {
			return nil, at(rec.stateOff, fmt.Sprintf("state: unknown state %q (states: %s)", rec.State, joinNames(stateNames(m))))
		}
		k := key{rec.Text, sid}
		if prev, dup := first[k]; dup {
			return nil, at(0, fmt.Sprintf("duplicate record for text %q in state %s (first on line %d)", rec.Text, m.StateName(sid), prev))
		}
		first[k] = lineNo
		// A unique short name is read as the state's full path.
		rec.State = m.StateName(sid)
		c.Records = append(c.Records, rec.CassetteRecord)
	}
	return c, nil
}

func stateNames(m *engine.Machine) []string {
	out := make([]string, m.NumStates())
	for i := range out {
		out[i] = m.StateName(engine.StateID(i))
	}
	sort.Strings(out)
	return out
}

// column turns a byte offset in line into a 1-based column in characters.
func column(line []byte, off int) int {
	if off > len(line) {
		off = len(line)
	}
	if off < 0 {
		off = 0
	}
	return utf8.RuneCount(line[:off]) + 1
}

// CheckReply checks a reply against the machine: its intent must be one
// the machine declares (or none). The message names the field.
func CheckReply(r *ParseReply, m *engine.Machine) error {
	if err := checkReplyIntents(r, 0, m); err != nil {
		return fmt.Errorf("%s", err.msg)
	}
	return nil
}

func checkReplyIntents(r *ParseReply, off int, m *engine.Machine) *fieldError {
	if r.Intent.Name == "" {
		return nil
	}
	if _, ok := m.IntentID(r.Intent.Name); !ok {
		return &fieldError{off: off, msg: fmt.Sprintf("intent.name: unknown intent %q (the machine declares: %s)", r.Intent.Name, joinNames(m.Intents()))}
	}
	return nil
}

// DecodeReply reads the reply of a live NLU server. Fields simctl does not
// keep (Rasa's response_selector, an entity's confidence_entity, ...) are
// ignored; what it keeps must be well formed. The text may be missing; it
// is then text.
func DecodeReply(data []byte, text string) (ParseReply, error) {
	r, err := decodeReply(data, 0, "", false)
	if err != nil {
		return ParseReply{}, fmt.Errorf("%s", err.msg)
	}
	if !r.hasText {
		r.Text = text
	}
	return r.ParseReply, nil
}

// fieldError is a problem at a byte offset of a line.
type fieldError struct {
	off int
	msg string
}

type decodedRecord struct {
	CassetteRecord
	stateOff, intentOff int
}

type decodedReply struct {
	ParseReply
	hasText   bool
	intentOff int
}

var (
	recordFields = []string{"state", "text", "intent", "entities", "intent_ranking", "latency_ms"}
	replyFields  = []string{"text", "intent", "entities", "intent_ranking"}
	intentFields = []string{"name", "confidence"}
	entityFields = []string{"entity", "value", "start", "end", "extractor"}
)

func decodeRecord(line []byte) (decodedRecord, *fieldError) {
	var rec decodedRecord
	o, err := readObject(line, 0, "", true, recordFields)
	if err != nil {
		return rec, err
	}
	for _, name := range []string{"state", "text", "intent", "latency_ms"} {
		if _, ok := o.fields[name]; !ok {
			return rec, &fieldError{off: o.off, msg: fmt.Sprintf("missing required field %q", name)}
		}
	}
	if rec.State, err = o.str("state"); err != nil {
		return rec, err
	}
	rec.stateOff = o.fields["state"].off
	if rec.State == "" {
		return rec, &fieldError{off: rec.stateOff, msg: "state: expected a state's name, got \"\""}
	}
	lat, err := o.integer("latency_ms")
	if err != nil {
		return rec, err
	}
	if lat < 0 {
		return rec, &fieldError{off: o.fields["latency_ms"].off, msg: fmt.Sprintf("latency_ms: %d is negative", lat)}
	}
	rec.LatencyMS = lat
	reply, err := replyFromObject(o, true)
	if err != nil {
		return rec, err
	}
	rec.ParseReply, rec.intentOff = reply.ParseReply, reply.intentOff
	return rec, nil
}

func decodeReply(data []byte, base int, path string, strict bool) (decodedReply, *fieldError) {
	o, err := readObject(data, base, path, strict, replyFields)
	if err != nil {
		return decodedReply{}, err
	}
	if _, ok := o.fields["intent"]; !ok {
		return decodedReply{}, &fieldError{off: o.off, msg: `missing required field "intent"`}
	}
	return replyFromObject(o, strict)
}

// replyFromObject reads the reply fields of a record or a live reply.
func replyFromObject(o jsonObject, strict bool) (decodedReply, *fieldError) {
	var r decodedReply
	var err *fieldError
	if _, r.hasText = o.fields["text"]; r.hasText {
		if r.Text, err = o.str("text"); err != nil {
			return r, err
		}
	}
	f := o.fields["intent"]
	r.intentOff = f.off
	if r.Intent, err = readIntent(f, o.sub("intent"), strict, true); err != nil {
		return r, err
	}
	if f, ok := o.fields["entities"]; ok {
		items, err := readList(f, o.sub("entities"))
		if err != nil {
			return r, err
		}
		r.Entities = []ReplyEntity{}
		for i, it := range items {
			e, err := readEntity(it, fmt.Sprintf("%s[%d]", o.sub("entities"), i), strict, []rune(r.Text), r.hasText)
			if err != nil {
				return r, err
			}
			r.Entities = append(r.Entities, e)
		}
	}
	if f, ok := o.fields["intent_ranking"]; ok {
		items, err := readList(f, o.sub("intent_ranking"))
		if err != nil {
			return r, err
		}
		for i, it := range items {
			in, err := readIntent(it, fmt.Sprintf("%s[%d]", o.sub("intent_ranking"), i), strict, false)
			if err != nil {
				return r, err
			}
			r.IntentRanking = append(r.IntentRanking, in)
		}
	}
	return r, nil
}

func readIntent(f jsonField, path string, strict, top bool) (ReplyIntent, *fieldError) {
	var in ReplyIntent
	o, err := readObject(f.raw, f.off, path, strict, intentFields)
	if err != nil {
		return in, err
	}
	for _, name := range intentFields {
		if _, ok := o.fields[name]; !ok {
			return in, &fieldError{off: o.off, msg: fmt.Sprintf("%s: missing required field %q", path, name)}
		}
	}
	if nf := o.fields["name"]; string(nf.raw) != "null" {
		if in.Name, err = o.str("name"); err != nil {
			return in, err
		}
		if in.Name == "" && !top {
			return in, &fieldError{off: nf.off, msg: path + `.name: expected an intent's name, got ""`}
		}
	} else if !top {
		return in, &fieldError{off: nf.off, msg: path + ".name: expected an intent's name, got null"}
	}
	if in.Confidence, err = o.number("confidence"); err != nil {
		return in, err
	}
	if c := in.Confidence; c < 0 || c > 1 || math.IsNaN(c) {
		return in, &fieldError{off: o.fields["confidence"].off, msg: fmt.Sprintf("%s.confidence: %v is outside [0,1]", path, c)}
	}
	return in, nil
}

func readEntity(f jsonField, path string, strict bool, text []rune, checkEnd bool) (ReplyEntity, *fieldError) {
	var e ReplyEntity
	o, err := readObject(f.raw, f.off, path, strict, entityFields)
	if err != nil {
		return e, err
	}
	for _, name := range []string{"entity", "value", "start", "end"} {
		if _, ok := o.fields[name]; !ok {
			return e, &fieldError{off: o.off, msg: fmt.Sprintf("%s: missing required field %q", path, name)}
		}
	}
	if e.Entity, err = o.str("entity"); err != nil {
		return e, err
	}
	if e.Entity == "" {
		return e, &fieldError{off: o.fields["entity"].off, msg: path + `.entity: expected an entity's name, got ""`}
	}
	v := o.fields["value"]
	switch v.raw[0] {
	case '"', 't', 'f', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var buf bytes.Buffer
		if json.Compact(&buf, v.raw) != nil {
			return e, &fieldError{off: v.off, msg: path + ".value: invalid JSON"}
		}
		e.Value = buf.Bytes()
	default:
		return e, &fieldError{off: v.off, msg: fmt.Sprintf("%s.value: expected a string, number or boolean, got %s", path, describeJSON(v.raw))}
	}
	start, err := o.integer("start")
	if err != nil {
		return e, err
	}
	end, err := o.integer("end")
	if err != nil {
		return e, err
	}
	switch {
	case start < 0:
		return e, &fieldError{off: o.fields["start"].off, msg: fmt.Sprintf("%s.start: %d is negative", path, start)}
	case start > end:
		return e, &fieldError{off: o.fields["end"].off, msg: fmt.Sprintf("%s: start %d is after end %d", path, start, end)}
	case checkEnd && end > int64(len(text)):
		return e, &fieldError{off: o.fields["end"].off, msg: fmt.Sprintf("%s.end: %d is past the end of the text (%d characters)", path, end, len(text))}
	}
	e.Start, e.End = int(start), int(end)
	if _, ok := o.fields["extractor"]; ok {
		if e.Extractor, err = o.str("extractor"); err != nil {
			return e, err
		}
	}
	return e, nil
}

// jsonField is one field's value and the byte offset where it starts.
type jsonField struct {
	raw json.RawMessage
	off int
}

// jsonObject is a JSON object read field by field, so that unknown and
// duplicate fields are found and every value keeps its offset.
type jsonObject struct {
	path   string
	off    int
	fields map[string]jsonField
}

func (o jsonObject) sub(name string) string {
	if o.path == "" {
		return name
	}
	return o.path + "." + name
}

// readObject reads the JSON object in data, whose first byte is at offset
// base of the line. With strict, a field not in allowed is an error;
// otherwise it is skipped.
func readObject(data []byte, base int, path string, strict bool, allowed []string) (jsonObject, *fieldError) {
	o := jsonObject{path: path, off: base + skipSpace(data, 0), fields: map[string]jsonField{}}
	label := func(msg string) string {
		if path == "" {
			return msg
		}
		return path + ": " + msg
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return o, syntaxError(err, data, base)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return o, &fieldError{off: o.off, msg: label("expected a JSON object, got " + describeJSON(data[skipSpace(data, 0):]))}
	}
	for dec.More() {
		keyOff := skipSeparators(data, int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return o, syntaxError(err, data, base)
		}
		key, _ := tok.(string)
		valOff := skipSeparators(data, int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return o, syntaxError(err, data, base)
		}
		known := false
		for _, a := range allowed {
			known = known || a == key
		}
		if !known {
			if strict {
				return o, &fieldError{off: base + keyOff, msg: label(fmt.Sprintf("unknown field %q (expected one of: %s)", key, strings.Join(allowed, ", ")))}
			}
			continue
		}
		if _, dup := o.fields[key]; dup {
			return o, &fieldError{off: base + keyOff, msg: label(fmt.Sprintf("duplicate field %q", key))}
		}
		o.fields[key] = jsonField{raw: raw, off: base + valOff}
	}
	if _, err := dec.Token(); err != nil {
		return o, syntaxError(err, data, base)
	}
	if rest := int(dec.InputOffset()); skipSpace(data, rest) < len(data) {
		return o, &fieldError{off: base + skipSpace(data, rest), msg: "invalid JSON: more than one value on the line"}
	}
	return o, nil
}

// syntaxError locates a JSON syntax error in data (a whole line, whose
// first byte is at offset base). json.Decoder's offsets are relative to
// its buffer, so the line is parsed again with json.Unmarshal, whose
// offset counts the bytes read up to and including the bad one.
func syntaxError(err error, data []byte, base int) *fieldError {
	var v any
	if uerr := json.Unmarshal(data, &v); uerr != nil {
		err = uerr
	}
	off := len(data)
	msg := strings.TrimPrefix(err.Error(), "json: ")
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || msg == "unexpected end of JSON input":
		msg = "unexpected end of line"
	case errors.As(err, &se) && se.Offset > 0:
		off = int(se.Offset) - 1
	}
	return &fieldError{off: base + off, msg: "invalid JSON: " + msg}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

func skipSeparators(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n' || data[i] == ',' || data[i] == ':') {
		i++
	}
	return i
}

func readList(f jsonField, path string) ([]jsonField, *fieldError) {
	if len(f.raw) == 0 || f.raw[0] != '[' {
		return nil, &fieldError{off: f.off, msg: fmt.Sprintf("%s: expected a list, got %s", path, describeJSON(f.raw))}
	}
	dec := json.NewDecoder(bytes.NewReader(f.raw))
	if _, err := dec.Token(); err != nil {
		return nil, syntaxError(err, f.raw, f.off)
	}
	var out []jsonField
	for dec.More() {
		off := skipSeparators(f.raw, int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxError(err, f.raw, f.off)
		}
		out = append(out, jsonField{raw: raw, off: f.off + off})
	}
	return out, nil
}

func (o jsonObject) str(name string) (string, *fieldError) {
	f := o.fields[name]
	var s string
	if len(f.raw) == 0 || f.raw[0] != '"' || json.Unmarshal(f.raw, &s) != nil {
		return "", &fieldError{off: f.off, msg: fmt.Sprintf("%s: expected a string, got %s", o.sub(name), describeJSON(f.raw))}
	}
	return s, nil
}

func (o jsonObject) number(name string) (float64, *fieldError) {
	f := o.fields[name]
	var n json.Number
	if len(f.raw) == 0 || f.raw[0] == '"' || json.Unmarshal(f.raw, &n) != nil {
		return 0, &fieldError{off: f.off, msg: fmt.Sprintf("%s: expected a number, got %s", o.sub(name), describeJSON(f.raw))}
	}
	x, err := n.Float64()
	if err != nil {
		return 0, &fieldError{off: f.off, msg: fmt.Sprintf("%s: number %s is out of range", o.sub(name), n)}
	}
	return x, nil
}

func (o jsonObject) integer(name string) (int64, *fieldError) {
	f := o.fields[name]
	var n json.Number
	if len(f.raw) == 0 || f.raw[0] == '"' || json.Unmarshal(f.raw, &n) != nil {
		return 0, &fieldError{off: f.off, msg: fmt.Sprintf("%s: expected a whole number, got %s", o.sub(name), describeJSON(f.raw))}
	}
	i, err := n.Int64()
	if err != nil {
		return 0, &fieldError{off: f.off, msg: fmt.Sprintf("%s: expected a whole number, got %s", o.sub(name), n)}
	}
	return i, nil
}

// describeJSON names a JSON value's kind for error messages.
func describeJSON(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 'n':
		return "null"
	case 't', 'f':
		return string(raw)
	case '"':
		if len(raw) > 40 {
			return string(raw[:37]) + `..."`
		}
		return string(raw)
	}
	if len(raw) > 40 {
		return string(raw[:40]) + "..."
	}
	return string(raw)
}
