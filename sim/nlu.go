package sim

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

// NLU turns an utterance, in the context of the current state, into a user
// event. Implementations: the rule-based Stub, cassette replay (Replay),
// recording from a live server (Recorder) and the noise model (Noisy) in
// front of either.
type NLU interface {
	// Parse fills ev with the parsed event. ev.Intent is engine.NoID when
	// nothing was understood.
	Parse(text string, state engine.StateID, ev *engine.Event) error
}

// Stub is the deterministic rule-based NLU of a suite's nlu.yaml.
type Stub struct {
	exact    map[string]int // lower-cased phrase -> rule
	rules    []stubRule
	entities []stubEntity
	markers  []string
	fallback engine.IntentID
	fbConf   float64
	// slotNorm maps a slot to the entity rules that normalise it.
	slotNorm map[engine.SlotID][]int
}

type stubRule struct {
	intent   engine.IntentID
	conf     float64
	keywords []string
	rule     *spec.IntentRule
}

type stubEntity struct {
	name     string
	id       engine.EntityID
	known    bool
	synonyms []synonym
	rule     *spec.EntityRule
}

type synonym struct {
	lower string
	value string
}

// NewStub compiles a suite's NLU rules. Without nlu.yaml (n == nil) an
// utterance that equals an intent's name is that intent, and anything else
// is not understood.
func NewStub(n *spec.NLU, m *engine.Machine) *Stub {
	s := &Stub{exact: map[string]int{}, fallback: engine.NoID, slotNorm: map[engine.SlotID][]int{}}
	if n == nil {
		for i, name := range m.Intents() {
			s.rules = append(s.rules, stubRule{intent: engine.IntentID(i), conf: 1})
			s.exact[strings.ToLower(name)] = i
		}
		return s
	}
	for i := range n.Intents {
		r := &n.Intents[i]
		id, _ := m.IntentID(r.Key)
		idx := len(s.rules)
		sr := stubRule{intent: id, conf: r.Value.Confidence, rule: &r.Value}
		for _, k := range r.Value.Keywords {
			sr.keywords = append(sr.keywords, strings.ToLower(k))
		}
		s.rules = append(s.rules, sr)
		for _, e := range r.Value.Exact {
			if _, dup := s.exact[strings.ToLower(e)]; !dup {
				s.exact[strings.ToLower(e)] = idx
			}
		}
	}
	for i := range n.Entities {
		e := &n.Entities[i]
		id, known := m.EntityID(e.Key)
		se := stubEntity{name: e.Key, id: id, known: known, rule: &e.Value}
		for _, v := range e.Value.Values {
			se.synonyms = append(se.synonyms, synonym{lower: strings.ToLower(v.Key), value: v.Key})
			for _, syn := range v.Value {
				se.synonyms = append(se.synonyms, synonym{lower: strings.ToLower(syn), value: v.Key})
			}
		}
		s.entities = append(s.entities, se)
		for _, sl := range e.Value.Slots {
			sid, _ := m.SlotID(sl.Value)
			s.slotNorm[sid] = append(s.slotNorm[sid], i)
		}
	}
	for _, mk := range n.Markers {
		s.markers = append(s.markers, strings.ToLower(mk))
	}
	if n.Fallback != nil {
		s.fallback, _ = m.IntentID(n.Fallback.Intent.Value)
		s.fbConf = n.Fallback.Confidence
	}
	return s
}

// Parse applies the rules in file order: exact phrases first, then each
// rule's keywords and patterns; then entities are extracted.
func (s *Stub) Parse(text string, _ engine.StateID, ev *engine.Event) error {
	*ev = engine.Event{Kind: engine.UserEvent, Intent: engine.NoID, Text: text}
	trimmed := strings.TrimSpace(text)
	lower := strings.ToLower(trimmed)
	rule := -1
	if i, ok := s.exact[lower]; ok {
		rule = i
	} else {
		for i := range s.rules {
			r := &s.rules[i]
			if containsAnyWord(lower, r.keywords) {
				rule = i
				break
			}
			if r.rule != nil && matchesAny(r.rule, trimmed) {
				rule = i
				break
			}
		}
	}
	s.extract(trimmed, lower, ev)
	switch {
	case rule >= 0:
		ev.Intent, ev.Confidence = s.rules[rule].intent, s.rules[rule].conf
	case s.fallback != engine.NoID:
		ev.Intent, ev.Confidence = s.fallback, s.fbConf
		if ev.Value == "" {
			ev.Value = trimmed
		}
	}
	return nil
}

func matchesAny(r *spec.IntentRule, text string) bool {
	for _, re := range r.Compiled {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

func (s *Stub) extract(text, lower string, ev *engine.Event) {
	for i := range s.entities {
		e := &s.entities[i]
		val, _, _, ok := s.findEntity(i, text, lower)
		if !ok {
			continue
		}
		if ev.Value == "" {
			ev.Value = val
		}
		if e.known {
			ev.AddEntity(e.id, engine.TextValue(val))
		}
	}
}

// findEntity applies entity rule i to the trimmed text (and its lower-cased
// form) and returns the value found and where it was found, in characters.
func (s *Stub) findEntity(i int, text, lower string) (val string, start, end int, ok bool) {
	e := &s.entities[i]
	runes := utf8.RuneCountInString
	if e.rule.Compiled != nil {
		m := e.rule.Compiled.FindStringSubmatchIndex(text)
		switch {
		case m == nil:
			return "", 0, 0, false
		case len(m) > 2 && m[2] < 0:
			// The group took no part in the match: an empty value.
			return "", runes(text[:m[0]]), runes(text[:m[0]]), true
		case len(m) > 2:
			return text[m[2]:m[3]], runes(text[:m[2]]), runes(text[:m[3]]), true
		}
		return text[m[0]:m[1]], runes(text[:m[0]]), runes(text[:m[1]]), true
	}
	for _, syn := range e.synonyms {
		if at := wordIndex(lower, syn.lower); at >= 0 {
			return syn.value, runes(lower[:at]), runes(lower[:at+len(syn.lower)]), true
		}
	}
	return "", 0, 0, false
}

// HasMarker reports whether text carries an intent marker ("cancel",
// "actually"), which stops direct slot mapping.
func (s *Stub) HasMarker(text string) bool {
	if len(s.markers) == 0 {
		return false
	}
	return containsAnyWord(strings.ToLower(text), s.markers)
}

// Normalize maps text given for a slot through the slot's entity synonyms
// ("Madrid" to "MAD"); text with no synonym is returned trimmed.
func (s *Stub) Normalize(slot engine.SlotID, text string) string {
	text = strings.TrimSpace(text)
	for _, i := range s.slotNorm[slot] {
		for _, syn := range s.entities[i].synonyms {
			if strings.EqualFold(syn.lower, text) {
				return syn.value
			}
		}
	}
	return text
}

func containsAnyWord(text string, words []string) bool {
	for _, w := range words {
		if containsWord(text, w) {
			return true
		}
	}
	return false
}

// containsWord reports whether w occurs in text at word boundaries: the
// characters around it are not letters, digits or underscores (so "¡odio"
// contains "odio").
func containsWord(text, w string) bool { return wordIndex(text, w) >= 0 }

// wordIndex returns the byte offset of the first occurrence of w in text at
// word boundaries, or -1.
func wordIndex(text, w string) int {
	for from := 0; ; {
		i := strings.Index(text[from:], w)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(w)
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (i == 0 || !isWordRune(before)) && (end == len(text) || !isWordRune(after)) {
			return i
		}
		from = i + 1
	}
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
