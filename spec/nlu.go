package spec

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/simctl/simctl/engine"
)

// NLU is a suite's nlu.yaml: deterministic rules that the stub NLU in
// package sim applies to utterances. docs/nlu-format.md documents it.
type NLU struct {
	File       string
	Confidence float64             `yaml:"confidence"`
	Fallback   *Fallback           `yaml:"fallback"`
	Markers    []string            `yaml:"markers"`
	MarkersPos engine.Pos          `yaml:"-"`
	Intents    Entries[IntentRule] `yaml:"intents"`
	Entities   Entries[EntityRule] `yaml:"entities"`
	// Noise describes how this NLU goes wrong under --nlu-noise (noise.go).
	Noise *Noise `yaml:"noise"`
	// CassetteFallback "generated": utterances of generated conversations
	// that the suite's cassette has no record of go to these rules, while
	// scripted scenarios replay strictly. An importer sets it when its
	// cassette comes from recordings that cannot cover generated texts.
	CassetteFallback Str `yaml:"cassette_fallback"`
	Pos              engine.Pos
}

// Fallback is the intent given to text no rule matches; the event's value
// is the whole (trimmed) text.
type Fallback struct {
	Pos        engine.Pos
	Intent     Str     `yaml:"intent,required"`
	Confidence float64 `yaml:"confidence"`
}

// IntentRule maps utterances to an intent. Rules are tried in file order;
// within a rule, exact phrases, then whole-word keywords, then patterns.
// Matching ignores case.
type IntentRule struct {
	Pos         engine.Pos
	Exact       []string   `yaml:"exact"`
	Keywords    []string   `yaml:"keywords"`
	KeywordsPos engine.Pos `yaml:"-"`
	Patterns    []Str      `yaml:"patterns"`
	Confidence  float64    `yaml:"confidence"`
	// Compiled holds Patterns compiled, in order.
	Compiled []*regexp.Regexp `yaml:"-"`
}

// EntityRule extracts an entity: synonyms normalised to a canonical value
// (values: {MAD: [Madrid]}) or a regular expression whose first group (or
// whole match) is the value. Slots lists the slots whose direct mapping
// normalises through this entity.
type EntityRule struct {
	Pos      engine.Pos
	Values   Entries[[]string] `yaml:"values"`
	Pattern  Str               `yaml:"pattern"`
	Slots    StrList           `yaml:"slots"`
	Compiled *regexp.Regexp    `yaml:"-"`
}

// LoadNLU parses nlu.yaml and checks it against the machine's intents and
// slots.
func LoadNLU(file string, data []byte, m *engine.Machine) (*NLU, error) {
	n := &NLU{File: file}
	if err := decodeFile(file, data, n); err != nil {
		return nil, err
	}
	if n.Confidence == 0 {
		n.Confidence = 1
	}
	if err := checkConfidence(n.Pos, n.Confidence); err != nil {
		return nil, err
	}
	// Markers, keywords and synonyms are looked for as whole words; an
	// empty one would be found everywhere, and crashed the stub NLU.
	if blank(n.Markers) {
		return nil, &Error{Pos: n.MarkersPos, Msg: "markers: a marker must not be empty"}
	}
	for i := range n.Intents {
		r := &n.Intents[i]
		if _, ok := m.IntentID(r.Key); !ok {
			return nil, unknownIntent(Str{Value: r.Key, Pos: r.KeyPos}, m)
		}
		if len(r.Value.Exact)+len(r.Value.Keywords)+len(r.Value.Patterns) == 0 {
			return nil, &Error{Pos: r.KeyPos, Msg: fmt.Sprintf("intent %q needs exact, keywords or patterns", r.Key)}
		}
		if blank(r.Value.Keywords) {
			return nil, &Error{Pos: r.Value.KeywordsPos, Msg: fmt.Sprintf("intent %q: a keyword must not be empty", r.Key)}
		}
		if r.Value.Confidence == 0 {
			r.Value.Confidence = n.Confidence
		}
		if err := checkConfidence(r.Value.Pos, r.Value.Confidence); err != nil {
			return nil, err
		}
		for _, p := range r.Value.Patterns {
			re, err := regexp.Compile("(?i)" + p.Value)
			if err != nil {
				return nil, &Error{Pos: p.Pos, Msg: fmt.Sprintf("intent %q: bad pattern: %v", r.Key, err)}
			}
			r.Value.Compiled = append(r.Value.Compiled, re)
		}
	}
	if f := n.Fallback; f != nil {
		if _, ok := m.IntentID(f.Intent.Value); !ok {
			return nil, &Error{Pos: f.Intent.Pos, Msg: fmt.Sprintf("fallback: unknown intent %q (the machine declares: %s)", f.Intent.Value, joinNames(m.Intents()))}
		}
		if f.Confidence == 0 {
			f.Confidence = n.Confidence
		}
		if err := checkConfidence(f.Pos, f.Confidence); err != nil {
			return nil, err
		}
	}
	if v := n.CassetteFallback; v.Value != "" && v.Value != "generated" {
		return nil, &Error{Pos: v.Pos, Msg: fmt.Sprintf("cassette_fallback: unknown value %q (want generated)", v.Value)}
	}
	if err := checkNoise(n.Noise, m); err != nil {
		return nil, err
	}
	for i := range n.Entities {
		e := &n.Entities[i]
		if (len(e.Value.Values) > 0) == (e.Value.Pattern.Value != "") {
			return nil, &Error{Pos: e.KeyPos, Msg: fmt.Sprintf("entity %q needs exactly one of values or pattern", e.Key)}
		}
		for _, v := range e.Value.Values {
			if strings.TrimSpace(v.Key) == "" || blank(v.Value) {
				return nil, &Error{Pos: v.KeyPos, Msg: fmt.Sprintf("entity %q: a value or synonym must not be empty", e.Key)}
			}
		}
		if p := e.Value.Pattern; p.Value != "" {
			re, err := regexp.Compile("(?i)" + p.Value)
			if err != nil {
				return nil, &Error{Pos: p.Pos, Msg: fmt.Sprintf("entity %q: bad pattern: %v", e.Key, err)}
			}
			e.Value.Compiled = re
		}
		for _, s := range e.Value.Slots {
			if _, ok := m.SlotID(s.Value); !ok {
				return nil, &Error{Pos: s.Pos, Msg: fmt.Sprintf("entity %q: unknown slot %q", e.Key, s.Value)}
			}
		}
	}
	return n, nil
}

// blank reports whether any of words is empty or only white space.
func blank(words []string) bool {
	for _, w := range words {
		if strings.TrimSpace(w) == "" {
			return true
		}
	}
	return false
}

func checkConfidence(pos engine.Pos, c float64) error {
	if c < 0 || c > 1 {
		return &Error{Pos: pos, Msg: fmt.Sprintf("confidence %v is outside [0,1]", c)}
	}
	return nil
}

func joinNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		if i == 10 {
			return s + "…"
		}
		s += n
	}
	return s
}
