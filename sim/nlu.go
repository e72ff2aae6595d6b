package sim

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/shorttext"
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
	exact map[string]int // lower-cased phrase -> rule
	// short holds exact's ASCII phrases of 1 to shorttext.Max bytes, by
	// their words (exactRule); byLen the other ASCII phrases (empty, or
	// longer), by length in bytes.
	short    shorttext.Table
	byLen    [][]exactPhrase
	rules    []stubRule
	entities []stubEntity
	markers  []string
	fallback engine.IntentID
	fbConf   float64
	// slotNorm maps a slot to the entity rules that normalise it.
	slotNorm map[engine.SlotID][]int
	// scan lists the rules with keywords or patterns, in file order: the
	// only ones Parse tries when no exact phrase matches.
	scan []int
	// needLower says whether anything past the exact phrases reads the
	// lower-cased text (keywords, entity synonyms), so that Parse folds
	// the case of an utterance, which allocates, only then.
	needLower bool
	// scanning says whether there is anything past the exact phrases:
	// rules to scan or entities to extract (scanRules).
	scanning bool
}

type exactPhrase struct {
	lower string
	rule  int
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
		s.indexExact()
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
	for i := range s.rules {
		r := &s.rules[i]
		if len(r.keywords) > 0 || r.rule != nil && len(r.rule.Compiled) > 0 {
			s.scan = append(s.scan, i)
		}
		s.needLower = s.needLower || len(r.keywords) > 0
	}
	for i := range s.entities {
		s.needLower = s.needLower || s.entities[i].rule.Compiled == nil && len(s.entities[i].synonyms) > 0
	}
	s.scanning = len(s.scan) > 0 || len(s.entities) > 0
	s.indexExact()
	if n.Fallback != nil {
		s.fallback, _ = m.IntentID(n.Fallback.Intent.Value)
		s.fbConf = n.Fallback.Confidence
	}
	return s
}

// Parse applies the rules in file order: exact phrases first, then each
// rule's keywords and patterns; then entities are extracted.
func (s *Stub) Parse(text string, _ engine.StateID, ev *engine.Event) error {
	// strings.TrimSpace, without the call when text starts and ends with
	// ASCII that is not space, as most utterances do.
	trimmed := text
	if n := len(text); n == 0 || !graphicASCII(text[0]) || !graphicASCII(text[n-1]) {
		trimmed = strings.TrimSpace(text)
	}
	rule, ok := s.exactRule(trimmed)
	if !ok {
		rule = -1
	}
	newUserEvent(ev, text)
	if s.scanning {
		rule = s.scanRules(trimmed, rule, ev)
	}
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

// newUserEvent makes *ev the event of a user's text of which nothing is
// understood yet, as *ev = engine.Event{Kind: engine.UserEvent, Intent:
// engine.NoID, Text: text} does, field by field: the literal clears the
// whole 240-byte event, most of it the entities, which hold something only
// when NEnt says so (Event.AddEntity fills them in order, and whatever
// drops entities leaves the ones past NEnt zero).
func newUserEvent(ev *engine.Event, text string) {
	ev.Kind, ev.Intent, ev.Timer, ev.Ext, ev.Branch = engine.UserEvent, engine.NoID, 0, 0, 0
	ev.At, ev.Confidence, ev.Text, ev.Value = 0, 0, text, ""
	if ev.NEnt != 0 {
		ev.NEnt, ev.Entities = 0, [engine.MaxEntities]engine.Entity{}
	}
	ev.Payload, ev.Source, ev.Done = 0, 0, 0
}

// scanRules is the part of Parse past the exact phrases (rule, -1 when
// none matched), which a stub of exact phrases and a fallback does
// without: the first rule whose keywords or patterns match, then the
// entities.
func (s *Stub) scanRules(trimmed string, rule int, ev *engine.Event) int {
	var lower string
	if s.needLower {
		lower = strings.ToLower(trimmed)
	}
	if rule < 0 {
		for _, i := range s.scan {
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
	if len(s.entities) > 0 {
		s.extract(trimmed, lower, ev)
	}
	return rule
}

// graphicASCII reports whether c is ASCII and neither space nor a control
// character below it: c-'!' wraps around past 0x7f-'!' for those.
func graphicASCII(c byte) bool { return c-'!' < utf8.RuneSelf-'!' }

// exactRule looks trimmed text up among the exact phrases, lower-cased as
// strings.ToLower does, without allocating for ASCII text: its lower case
// is as long, and a match is ASCII (folding changes only A-Z). Text of 1
// to shorttext.Max bytes is read as two words, lower-cased, which with
// its length are the text, and looked up in the short table: one probe,
// most often, and no pass over a phrase. Longer ASCII text is compared
// with the phrases of its length, folded as it goes. Text outside ASCII is
// lower-cased and looked up.
func (s *Stub) exactRule(trimmed string) (int, bool) {
	if n := len(trimmed); uint(n-1) < shorttext.Max {
		if lo, hi := shorttext.Words(trimmed); (lo|hi)&shorttext.HighBits == 0 {
			return s.short.Find(shorttext.LowerASCII(lo), shorttext.LowerASCII(hi), n)
		}
	} else {
		if n < len(s.byLen) {
			for _, p := range s.byLen[n] {
				if equalLowerASCII(trimmed, p.lower) {
					return p.rule, true
				}
			}
		}
		if isASCII(trimmed) {
			return 0, false
		}
	}
	rule, ok := s.exact[strings.ToLower(trimmed)]
	return rule, ok
}

// indexExact fills short and byLen from exact. Keys are distinct
// lower-cased phrases, so at most one can match a text; sorting keeps the
// order of the comparisons and the table's layout the same from run to
// run.
func (s *Stub) indexExact() {
	var short []exactPhrase
	for p, rule := range s.exact {
		if !isASCII(p) {
			continue
		}
		if len(p) >= 1 && len(p) <= shorttext.Max {
			short = append(short, exactPhrase{lower: p, rule: rule})
			continue
		}
		for len(s.byLen) <= len(p) {
			s.byLen = append(s.byLen, nil)
		}
		s.byLen[len(p)] = append(s.byLen[len(p)], exactPhrase{lower: p, rule: rule})
	}
	for _, b := range s.byLen {
		slices.SortFunc(b, func(x, y exactPhrase) int { return strings.Compare(x.lower, y.lower) })
	}
	slices.SortFunc(short, func(x, y exactPhrase) int { return strings.Compare(x.lower, y.lower) })
	s.short = shorttext.NewTable(len(short))
	for _, p := range short {
		lo, hi := shorttext.Words(p.lower)
		s.short.Add(lo, hi, len(p.lower), p.rule)
	}
}

// equalLowerASCII reports whether text, lower-cased, equals lower, an
// ASCII string as long; text outside ASCII never does. It compares eight
// bytes at a time (the last eight overlapping the ones before), then the
// bytes of text shorter than eight.
func equalLowerASCII(text, lower string) bool {
	n := len(text)
	if n >= 8 {
		for i := 0; i < n; i += 8 {
			i = min(i, n-8)
			w := shorttext.Load8(text, i)
			if w&shorttext.HighBits != 0 || shorttext.LowerASCII(w) != shorttext.Load8(lower, i) {
				return false
			}
		}
		return true
	}
	for i := 0; i < n; i++ {
		c := text[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// isASCII reports whether s holds only ASCII, eight bytes at a time.
func isASCII(s string) bool {
	var or uint64
	n := len(s)
	if n >= 8 {
		for i := 0; i < n; i += 8 {
			or |= shorttext.Load8(s, min(i, n-8))
		}
		return or&shorttext.HighBits == 0
	}
	for i := 0; i < n; i++ {
		or |= uint64(s[i])
	}
	return or&shorttext.HighBits == 0
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
