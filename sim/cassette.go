package sim

import (
	"errors"
	"fmt"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

// NLUOptions choose what a conversation's utterances are parsed by: the
// suite's cassette when it has one, else its stub rules; and the noise
// model in front of it.
type NLUOptions struct {
	// Fallback sends utterances the cassette has no record of to the stub
	// rules (--nlu-fallback stub) instead of failing the conversation.
	Fallback bool
	// Strict keeps replay strict whatever nlu.yaml's cassette_fallback
	// says (--nlu-fallback none).
	Strict bool
	// Generated marks the options of generated conversations, which
	// nlu.yaml's cassette_fallback: generated sends to the stub on a miss.
	Generated bool
	// Noise is the NLU error rate (--nlu-noise), 0 to 1; 0: no noise.
	Noise float64
	// Custom, when set, replaces the cassette and the stub (simctl record
	// talks to a live server this way).
	Custom func(m *engine.Machine, stub *Stub) NLU
}

// For returns the NLU a conversation of suite s in machine m talks to.
// stub is the suite's stub, which also does direct slot mapping. seed
// seeds the noise model (generated conversations reseed it per
// conversation through Noisy.Reset).
func (o NLUOptions) For(s *spec.Suite, m *engine.Machine, stub *Stub, seed uint64) NLU {
	var nlu NLU = stub
	switch {
	case o.Custom != nil:
		nlu = o.Custom(m, stub)
	case s.Cassette != nil:
		r := NewReplay(s.Cassette, s.NLU, m)
		if o.Fallback || (o.Generated && !o.Strict && s.NLU != nil && s.NLU.CassetteFallback.Value == "generated") {
			r.Fallback = stub
		}
		nlu = r
	}
	if o.Noise > 0 {
		nz := NewNoisy(nlu, stub, s.NLU, m, o.Noise)
		nz.Reset(seed)
		nlu = nz
	}
	return nlu
}

// Replay is the NLU of a recorded cassette: an utterance said in a state
// gets the reply recorded for that utterance in that state. Strict by
// default: an utterance the cassette has no record of is an error
// (*MissError), unless Fallback is set.
type Replay struct {
	file    string
	m       *engine.Machine
	index   map[replayKey]int32
	events  []engine.Event
	latency []int64
	// Fallback parses what the cassette has no record of; nil: strict.
	Fallback NLU
	// Misses counts the utterances Fallback parsed.
	Misses int
}

type replayKey struct {
	text  string
	state engine.StateID
}

// NewReplay compiles cassette c for machine m. n is the suite's nlu.yaml
// (nil if none): its fallback intent tells which replies carry the whole
// text as their value.
func NewReplay(c *spec.Cassette, n *spec.NLU, m *engine.Machine) *Replay {
	r := &Replay{file: c.File, m: m, index: make(map[replayKey]int32, len(c.Records))}
	fb := FallbackIntent(n, m)
	for i := range c.Records {
		rec := &c.Records[i]
		sid, ok := m.StateID(rec.State)
		if !ok {
			continue
		}
		var ev engine.Event
		EventFromReply(m, &rec.ParseReply, rec.Text, fb, &ev)
		r.index[replayKey{rec.Text, sid}] = int32(len(r.events))
		r.events = append(r.events, ev)
		r.latency = append(r.latency, rec.LatencyMS)
	}
	return r
}

// Parse implements NLU.
func (r *Replay) Parse(text string, state engine.StateID, ev *engine.Event) error {
	if i, ok := r.index[replayKey{text, state}]; ok {
		*ev = r.events[i]
		return nil
	}
	if r.Fallback != nil {
		r.Misses++
		return r.Fallback.Parse(text, state, ev)
	}
	return &MissError{File: r.file, Text: text, State: r.m.StateName(state)}
}

// Latency returns the recorded latency of the reply to text in state, in
// milliseconds.
func (r *Replay) Latency(text string, state engine.StateID) (int64, bool) {
	if i, ok := r.index[replayKey{text, state}]; ok {
		return r.latency[i], true
	}
	return 0, false
}

// MissError is an utterance a strict cassette has no record of.
type MissError struct {
	File  string
	Text  string
	State string
}

func (e *MissError) Error() string {
	return fmt.Sprintf("no cassette record for %q in state %s (%s; record it with simctl record, or run with --nlu-fallback stub)",
		e.Text, e.State, e.File)
}

// scenarioError names the suite, scenario and turn of a cassette miss, so
// that the one line a user sees says where to look.
func scenarioError(err error, suite, scenario string, turn int) error {
	var miss *MissError
	if errors.As(err, &miss) {
		return fmt.Errorf("suite %s: scenario %s: turn %d: %w", suite, scenario, turn, err)
	}
	return err
}

// FallbackIntent returns nlu.yaml's fallback intent, or engine.NoID.
func FallbackIntent(n *spec.NLU, m *engine.Machine) engine.IntentID {
	if n == nil || n.Fallback == nil {
		return engine.NoID
	}
	id, ok := m.IntentID(n.Fallback.Intent.Value)
	if !ok {
		return engine.NoID
	}
	return id
}

// EventFromReply turns an NLU reply to text into the user event the
// machine sees, the way the stub builds its events: the intent and its
// confidence; the entities the machine reads, in reply order (at most
// engine.MaxEntities); as event.value the first non-empty entity value, or,
// when there is none and the intent is nlu.yaml's fallback intent, the
// whole trimmed text. A reply without an intent name was not understood.
func EventFromReply(m *engine.Machine, r *spec.ParseReply, text string, fallback engine.IntentID, ev *engine.Event) {
	newUserEvent(ev, text)
	if r.Intent.Name != "" {
		if id, ok := m.IntentID(r.Intent.Name); ok {
			ev.Intent, ev.Confidence = id, r.Intent.Confidence
		}
	}
	for i := range r.Entities {
		e := &r.Entities[i]
		val := e.Text()
		if ev.Value == "" {
			ev.Value = val
		}
		if id, ok := m.EntityID(e.Entity); ok {
			ev.AddEntity(id, engine.TextValue(val))
		}
	}
	if ev.Value == "" && ev.Intent != engine.NoID && ev.Intent == fallback {
		ev.Value = strings.TrimSpace(text)
	}
}

// Reply is what the stub rules answer to text, in the shape of Rasa's
// /model/parse reply: the intent and its confidence (a null intent when
// nothing is understood), and every entity found, in nlu.yaml order, with
// its position in the trimmed text. EventFromReply of the reply gives the
// event Parse gives, so a server answering with Reply records a cassette
// that replays like the stub.
func (s *Stub) Reply(m *engine.Machine, text string) spec.ParseReply {
	var ev engine.Event
	_ = s.Parse(text, 0, &ev)
	out := spec.ParseReply{Text: text, Entities: []spec.ReplyEntity{}}
	if ev.Intent != engine.NoID {
		out.Intent = spec.ReplyIntent{Name: m.Intents()[ev.Intent], Confidence: ev.Confidence}
		out.IntentRanking = []spec.ReplyIntent{out.Intent}
	}
	trimmed := strings.TrimSpace(text)
	lower := strings.ToLower(trimmed)
	// Offsets count from the start of text, as a server sees it.
	lead := len([]rune(text[:strings.Index(text, trimmed)]))
	for i := range s.entities {
		val, start, end, ok := s.findEntity(i, trimmed, lower)
		if !ok {
			continue
		}
		out.Entities = append(out.Entities, spec.ReplyEntity{Entity: s.entities[i].name, Value: spec.TextValue(val),
			Start: lead + start, End: lead + end, Extractor: "stub"})
	}
	return out
}
