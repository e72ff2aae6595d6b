package rasa

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/yamltree"
)

// CALM understands messages with an LLM (the command generator), which
// the import cannot run. nlu.yaml's rules stand in for it: each e2e test
// utterance gets the command its test case implies (read from what the
// test expects after it), and each flow is started by its name.

var (
	cancelWords  = []string{"cancel", "stop", "never mind", "forget it"}
	handoffWords = []string{"human", "agent", "real person", "representative"}
	correctWords = []string{"actually", "i meant", "sorry i meant"}
)

type nluRules struct {
	order   []string
	exact   map[string][]string
	seen    map[string]bool
	markers []string
	mseen   map[string]bool
	// entity -> canonical value -> synonyms
	ents     map[string]*entityRule
	entOrder []string
}

type entityRule struct {
	slot   string
	order  []string
	values map[string][]string
	// answers counts the synonyms of each value said as an answer to
	// the slot's question, which come first.
	answers map[string]int
}

func (r *nluRules) intent(intent, text string) {
	key := intent + "\x00" + strings.ToLower(text)
	if r.seen[key] {
		return
	}
	r.seen[key] = true
	r.exact[intent] = append(r.exact[intent], text)
	r.marker(text)
}

func (r *nluRules) marker(text string) {
	if !letterRe.MatchString(text) {
		// A number ("1234", a PIN a test's stubs took for a
		// correction) is an answer wherever a question is asked.
		return
	}
	if k := strings.ToLower(text); !r.mseen[k] && strings.TrimSpace(k) != "" {
		r.mseen[k] = true
		r.markers = append(r.markers, text)
	}
}

// entity adds a value of an entity and a synonym of it (none if
// empty). Answers given at the slot's question come before the other
// synonyms: a simulated user answers with a value's first synonym.
func (r *nluRules) entity(name, slot, value, synonym string, answer bool) {
	e := r.ents[name]
	if e == nil {
		e = &entityRule{slot: slot, values: map[string][]string{}, answers: map[string]int{}}
		r.ents[name] = e
		r.entOrder = append(r.entOrder, name)
	}
	if _, ok := e.values[value]; !ok {
		e.order = append(e.order, value)
		e.values[value] = nil
	}
	if synonym == "" || strings.EqualFold(synonym, value) {
		return
	}
	syns := e.values[value]
	for i, s := range syns {
		if strings.EqualFold(s, synonym) {
			if answer && i >= e.answers[value] {
				// Said as an answer too: among the answers.
				syns = append(syns[:i], syns[i+1:]...)
				break
			}
			return
		}
	}
	if !answer {
		e.values[value] = append(syns, synonym)
		return
	}
	n := e.answers[value]
	e.values[value] = append(syns[:n], append([]string{synonym}, syns[n:]...)...)
	e.answers[value]++
}

// mentions tells whether text holds value as whole words.
func mentions(text, value string) bool {
	v := strings.Join(wordRe.FindAllString(strings.ToLower(value), -1), " ")
	return v != "" && hasPhrase(text, []string{v})
}

var (
	wordRe   = regexp.MustCompile(`[\p{L}\p{N}_]+`)
	letterRe = regexp.MustCompile(`\p{L}`)
)

func hasPhrase(text string, phrases []string) bool {
	low := " " + strings.Join(wordRe.FindAllString(strings.ToLower(text), -1), " ") + " "
	for _, p := range phrases {
		if strings.Contains(low, " "+p+" ") {
			return true
		}
	}
	return false
}

func overlaps(xs, ys []string) bool {
	for _, y := range ys {
		if contains(xs, y) {
			return true
		}
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x && x != "" {
			return true
		}
	}
	return false
}

// seed adds each test turn's command to the rules: its text as an exact
// phrase of the intent (answers excepted: they are mapped into the slot
// asked), and entities with the text as a synonym of their value.
func (t *translator) seed(r *nluRules) {
	// The values a test shows rejected (the turn that gives them says a
	// rejection of the slot, or a custom action refuses them) are no
	// values for a simulated user to give.
	type tested struct {
		turns []*turn
		cmds  []*command
	}
	var all []tested
	rejected := map[[2]string]bool{}
	for k := range t.refused {
		rejected[k] = true
	}
	for _, tc := range t.p.Tests {
		turns := t.turns(tc)
		cmds := t.infer(tc, turns)
		all = append(all, tested{turns, cmds})
		for i, c := range cmds {
			for _, e := range c.entities {
				if overlaps(turns[i].says, t.rejectionSays(e[0])) {
					rejected[[2]string{e[0], e[1]}] = true
				}
			}
			if c.slot != "" && c.hasValue && overlaps(turns[i].says, t.rejectionSays(c.slot)) {
				rejected[[2]string{c.slot, c.value}] = true
			}
		}
	}
	// A text some test says as another command (chitchat, a start) is
	// parsed as that command wherever it is said: no answer to give.
	said := map[string]bool{}
	for _, tt := range all {
		for i, c := range tt.cmds {
			if c.intent != "set_slot" && c.intent != "cannot_handle" {
				said[strings.ToLower(strings.TrimSpace(tt.turns[i].user.Text))] = true
			}
		}
	}
	for _, tt := range all {
		turns := tt.turns
		for i, c := range tt.cmds {
			text := turns[i].user.Text
			if c.intent != "set_slot" && c.intent != "cannot_handle" {
				r.intent(c.intent, text)
			}
			for _, e := range c.entities {
				if strings.TrimSpace(e[1]) == "" || strings.TrimSpace(text) == "" {
					continue
				}
				slot := e[0]
				if slot == "flow" || slot == "reset_slot" || slot == "next_flow" || slot == "error_type" {
					slot = ""
				}
				if slot != "" && (rejected[[2]string{slot, e[1]}] || !t.validValue(slot, e[1])) {
					// The test shows the value rejected: no value of
					// the slot for a simulated user to give.
					continue
				}
				syn := text
				if slot != "" && mentions(text, e[1]) {
					// The value is in the text, where the stub finds
					// it: a start or a correction is no answer to say
					// at the slot's question.
					syn = ""
				}
				r.entity(e[0], slot, e[1], syn, false)
			}
			if c.slot != "" && c.hasValue && c.value != "" && !strings.HasPrefix(text, "/") && !rejected[[2]string{c.slot, c.value}] &&
				t.validValue(c.slot, c.value) && !said[strings.ToLower(strings.TrimSpace(text))] {
				// An answer is a value of the slot asked, for simulated
				// users to give; one that is not the value itself is
				// normalised by the entity.
				r.entity(slotVar(c.slot), slotVar(c.slot), c.value, strings.TrimSpace(text), true)
			}
		}
	}
}

func (t *translator) nlu() []byte {
	r := &nluRules{exact: map[string][]string{}, seen: map[string]bool{}, mseen: map[string]bool{}, ents: map[string]*entityRule{}}
	for _, w := range append(append(append([]string{}, cancelWords...), handoffWords...), correctWords...) {
		r.marker(w)
	}
	t.collected = map[string]bool{}
	for _, f := range t.p.Flows {
		for _, s := range collectSlots(f) {
			t.collected[s] = true
		}
	}
	for _, f := range t.users {
		r.entity("flow", "", f.ID, strings.ReplaceAll(f.ID, "_", " "), false)
		r.entity("flow", "", f.ID, f.Name, false)
	}
	t.seed(r)
	root := yamltree.Map("confidence", "1")
	root.Content[1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "1"}
	yamltree.Add(root, "markers", yamltree.FlowSeq(r.markers...))
	yamltree.Add(root, "fallback", yamltree.Map("intent", "cannot_handle", "confidence", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: "0.3"}))
	if len(t.recorded) > 0 {
		// The recorded LLM replies cover the recorded tests' messages, not
		// what generated users say: those go to these rules (the stand-in
		// for the LLM), while the recorded scenarios replay strictly.
		yamltree.Add(root, "cassette_fallback", "generated")
	}
	intents := yamltree.Map()
	rule := func(intent string, keywords []string) {
		m := yamltree.Map()
		if len(r.exact[intent]) > 0 {
			yamltree.Add(m, "exact", yamltree.FlowSeq(r.exact[intent]...))
		}
		if len(keywords) > 0 {
			yamltree.Add(m, "keywords", yamltree.FlowSeq(keywords...))
		}
		if len(m.Content) > 0 {
			yamltree.Add(intents, intent, m)
		}
	}
	rule("cancel_flow", cancelWords)
	rule("human_handoff", handoffWords)
	var flowWords []string
	for _, f := range t.users {
		flowWords = append(flowWords, strings.ReplaceAll(f.ID, "_", " "))
		if n := f.Name; n != f.ID && !strings.EqualFold(n, strings.ReplaceAll(f.ID, "_", " ")) {
			flowWords = append(flowWords, n)
		}
	}
	rule("start_flow", flowWords)
	rule("correct_slot", correctWords)
	rule("chitchat", nil)
	rule("clarify", nil)
	yamltree.Add(root, "intents", intents)
	ents := yamltree.Map()
	for _, name := range r.entOrder {
		e := r.ents[name]
		m := yamltree.Map()
		if e.slot != "" {
			yamltree.Add(m, "slots", yamltree.FlowSeq(e.slot))
		}
		vals := yamltree.Map()
		for _, v := range e.order {
			yamltree.Add(vals, v, yamltree.FlowSeq(e.values[v]...))
		}
		yamltree.Add(m, "values", vals)
		yamltree.Add(ents, name, m)
	}
	if len(ents.Content) > 0 {
		yamltree.Add(root, "entities", ents)
	}
	body := yamltree.Encode("", root)
	head := "# A starting point for the stub NLU, seeded from the flows' names and the e2e tests'\n" +
		"# utterances. CALM understands messages with an LLM (the command generator); these\n" +
		"# rules stand in for it, one intent per Rasa command. You own this file: simctl\n" +
		"# import rasa keeps your edits when it imports again.\n" +
		NLUMarker + NLUHash(body) + "\n"
	return append([]byte(head), body...)
}

// validValue tells whether v is a value slot takes: one of a categorical
// slot's values, a number for a float slot (or a text slot the tests
// only set to numbers). A value a test gives that the slot's type rejects
// (Rasa's default rejections) is no value for a simulated user to give.
func (t *translator) validValue(slot, v string) bool {
	sl := t.p.Slot(slot)
	switch {
	case sl == nil:
		return true
	case sl.Type == "categorical" && len(sl.Values) > 0:
		return slices.ContainsFunc(sl.Values, func(x string) bool { return strings.EqualFold(x, v) })
	case sl.Type == "float" || sl.numeric:
		_, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err == nil
	}
	return true
}
