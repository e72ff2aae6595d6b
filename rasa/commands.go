package rasa

import (
	"regexp"
	"slices"
	"strings"

	"github.com/simctl/simctl/spec"
	"github.com/simctl/simctl/yamltree"

	"go.yaml.in/yaml/v3"
)

// A Rasa e2e test says what the user typed and what the assistant did,
// not which commands CALM's command generator (an LLM) produced in
// between. The import reads each test turn in the context of the test so
// far (the flows started, the question last asked, the slots filled) and
// of what the test expects after it, and names the command Rasa's command
// generator must have given: the scenario plays it as an `event:` turn,
// so the same words mean different commands at different questions (a
// start phrase of flow A is not a start of A while B asks for an amount).

// command is one turn's command: an intent of machine.yaml with the text
// as said, an optional value and entities (expression names).
type command struct {
	intent   string
	value    string
	hasValue bool
	entities [][2]string
	slot     string      // the slot asked, for an answer
	sets     [][2]string // the slots the command carries, in order
	why      string      // how it was inferred, for the scenario's comment
	rec      *Recording  // the recorded LLM reply it comes from, if any
}

// reply is the command as the reply of an NLU to text: its intent, with
// confidence 1, and its entities, the one holding the command's value
// first (the value of an event made of a reply is its first entity's).
// An LLM command has no place in the text: entities span nothing.
func (c *command) reply(text string) spec.ParseReply {
	r := spec.ParseReply{Text: text, Intent: spec.ReplyIntent{Name: c.intent, Confidence: 1}, Entities: []spec.ReplyEntity{}}
	ents := append([][2]string{}, c.entities...)
	if c.hasValue {
		i := slices.IndexFunc(ents, func(e [2]string) bool { return e[1] == c.value })
		switch {
		case i > 0:
			ents = append(append([][2]string{ents[i]}, ents[:i]...), ents[i+1:]...)
		case i < 0 && c.value != "":
			ents = append([][2]string{{"value", c.value}}, ents...)
		}
	}
	for _, e := range ents {
		r.Entities = append(r.Entities, spec.ReplyEntity{Entity: e[0], Value: spec.TextValue(e[1]), Extractor: "llm_command_generator"})
	}
	return r
}

// fill carries slot's value as an entity and remembers it as set.
func (c *command) fill(slot, value string) {
	c.entity(slotVar(slot), value)
	c.sets = append(c.sets, [2]string{slot, value})
}

func (c *command) entity(name, value string) {
	for _, e := range c.entities {
		if e[0] == name {
			return
		}
	}
	c.entities = append(c.entities, [2]string{name, value})
}

// asker is the collect step a response asks for.
type asker struct {
	flow *Flow
	slot string
}

// askers maps each question response to the collect steps asking it.
func (t *translator) askers() map[string]asker {
	out := map[string]asker{}
	for _, f := range t.p.Flows {
		for _, s := range f.Steps {
			if s.Kind != "collect" {
				continue
			}
			u := s.Utter
			if u == "" {
				u = "utter_ask_" + s.Arg
			}
			if _, ok := out[u]; !ok {
				out[u] = asker{f, s.Arg}
			}
		}
	}
	return out
}

var (
	setSlotsRe = regexp.MustCompile(`^/SetSlots\((.*)\)\s*$`)
	intentRe   = regexp.MustCompile(`^/([A-Za-z_][A-Za-z0-9_]*)(\{.*\})?\s*$`)
	numberRe   = regexp.MustCompile(`-?\d+(?:[.,]\d+)?`)
	jsonPairRe = regexp.MustCompile(`"([^"]+)"\s*:\s*("(?:[^"\\]|\\.)*"|[^,}\s]+)`)
)

// parseSetSlots reads Rasa's /SetSlots(a=1, b=x) message (a button
// payload): the slots and values it sets, in order.
func parseSetSlots(text string) ([][2]string, bool) {
	m := setSlotsRe.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return nil, false
	}
	var out [][2]string
	for _, part := range strings.Split(m[1], ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		out = append(out, [2]string{strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"'`)})
	}
	return out, true
}

// guess is the value a slot takes from text when the test does not say
// it: the number in it for a float slot (or a text slot every test sets
// to a number: the demo's amounts are text slots), yes/no for a bool
// slot, else the text.
func guess(sl *Slot, text string) string {
	typ := sl.Type
	if sl.numeric && (typ == "text" || typ == "any" || typ == "") {
		typ = "float"
	}
	switch typ {
	case "float":
		if n := numberRe.FindString(text); n != "" {
			return strings.ReplaceAll(n, ",", ".")
		}
	case "bool":
		low := strings.ToLower(text)
		switch {
		case hasPhrase(low, []string{"no", "nope", "false", "don't", "do not", "not"}):
			return "false"
		case hasPhrase(low, []string{"yes", "yeah", "yep", "sure", "true", "ok", "okay", "correct", "please do"}):
			return "true"
		}
	case "categorical":
		low := strings.ToLower(text)
		for _, v := range sl.Values {
			if strings.Contains(low, strings.ToLower(v)) {
				return v
			}
		}
	default:
		// A name in a sentence ("send some money to John"): the last
		// capitalised word after the first, as a person's or place's
		// name usually is.
		words := strings.Fields(strings.Trim(text, ".!?"))
		for i := len(words) - 1; i > 0; i-- {
			w := strings.Trim(words[i], ".,!?")
			if w != "" && w != "I" && w[0] >= 'A' && w[0] <= 'Z' {
				return w
			}
		}
	}
	return strings.TrimSpace(text)
}

// testSlots are a turn's slot_was_set values, for slots the machine has.
func (t *translator) testSlots(tu *turn) ([]string, map[string]string) {
	var order []string
	vals := map[string]string{}
	for _, s := range tu.slots {
		sl := t.p.Slot(s.Slot)
		if sl == nil || routerSlots[s.Slot] || s.Value == nil {
			continue
		}
		v, ok := valueText(sl, s.Value)
		if !ok {
			continue
		}
		if _, seen := vals[s.Slot]; !seen {
			order = append(order, s.Slot)
		}
		vals[s.Slot] = v
	}
	return order, vals
}

// infer gives each turn of a test case its command.
func (t *translator) infer(tc *TestCase, turns []*turn) []*command {
	asks := t.askers()
	patternSays := func(id string) []string { return t.firstSays(t.pattern(id)) }
	var stack []*Flow
	asked := ""
	filled := map[string]string{}
	var users []string
	covered := false // the test's first message has a recorded reply
	out := make([]*command, len(turns))
	for i, tu := range turns {
		text := tu.user.Text
		order, vals := t.testSlots(tu)
		c := &command{}
		top := (*Flow)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		// A flow the running ones link to or call is reached without
		// a command: its question is no sign of a start.
		reach := t.reachable(stack)
		onStack := func(f *Flow) bool { return reach[f] }
		// The flow this turn starts: one a flow_started assertion names,
		// or the owner of the first question or first response said,
		// when that flow is not running.
		var started *Flow
		for _, id := range tu.starts {
			if f := t.p.Flow(id); f != nil && !f.Pattern && !onStack(f) {
				started = f
				break
			}
		}
		if started == nil {
			for _, say := range tu.says {
				if a, ok := asks[say]; ok && !a.flow.Pattern && !onStack(a.flow) && a.flow != top && !t.collectedBy(reach, a.slot) {
					// The flow whose first question it is (through its
					// calls), else the flow calling the asking one.
					for _, g := range t.users {
						if !onStack(g) && startable(g) && contains(t.firstSays(g), say) {
							started = g
							break
						}
					}
					if started == nil {
						started = t.caller(a.flow)
					}
					break
				}
				if _, ok := asks[say]; ok {
					break
				}
			}
		}
		if started == nil {
			// A text a stub of one of a flow's custom actions says.
			for _, m := range tu.matchs {
				if f := t.stubSayer(m); f != nil && !onStack(f) && startable(f) {
					started = f
					break
				}
			}
		}
		if a, ok := asks[firstOf(tu.says)]; started == nil && len(tu.says) > 0 && !(ok && (onStack(a.flow) || t.collectedBy(reach, a.slot))) {
			// (A question of a running flow, or one it calls, is no start.)
			for _, f := range t.users {
				if !onStack(f) && startable(f) && contains(t.firstSays(f), tu.says[0]) {
					started = f
					break
				}
			}
		}
		upfront := 0 // questions a start the test shows nothing of answered
		if started == nil && len(stack) == 0 && tu.silent() && !strings.HasPrefix(strings.TrimSpace(text), "/") {
			// A first message the test shows nothing of, before turns
			// that show a flow running: it started that flow.
			started, upfront = t.shownLater(turns[i+1:])
		}
		var next *Flow // a second flow the message starts, run after the first ends
		// While pattern_continue_interrupted asks, a turn that goes on with
		// the interrupted flow's next question answered its question.
		beneath := ""
		if ci := t.pattern("pattern_continue_interrupted"); ci != nil && contains(collectSlots(ci), asked) && len(tu.says) > 0 {
			if a, ok := asks[tu.says[0]]; ok && !a.flow.Pattern && slices.Contains(stack, a.flow) {
				// The flow waits at its first empty slot; a question past it
				// means the message answered it (asked again: a "yes").
				for _, s := range collectSlots(a.flow) {
					if _, ok := filled[s]; !ok {
						if s != a.slot {
							beneath = s
						}
						break
					}
				}
			}
		}
		corrected := map[string]string{}
		var corrOrder []string
		for _, s := range order {
			if old, ok := filled[s]; ok && old != vals[s] && s != asked {
				corrected[s] = vals[s]
				corrOrder = append(corrOrder, s)
			}
		}
		// The question of a slot filled before is asked again, not the
		// one asked: the message corrected that slot (Rasa resets the
		// flow there; with ask_before_filling, without confirming).
		if len(corrected) == 0 && started == nil && len(tu.says) > 0 && asked != "" && vals[asked] == "" {
			if a, ok := asks[tu.says[0]]; ok && a.slot != asked && filled[a.slot] != "" && !a.flow.Pattern && slices.Contains(stack, a.flow) {
				corrected[a.slot] = guess(t.p.Slot(a.slot), text)
				corrOrder = append(corrOrder, a.slot)
			}
		}
		correcting := contains(tu.starts, "pattern_correction") || contains(tu.says, "utter_corrected_previous_input") ||
			contains(tu.says, "utter_ask_confirm_slot_correction") || len(corrected) > 0
		users = append(users, text)
		rec := t.p.recorded(users)
		if _, ok := parseSetSlots(text); ok {
			rec = nil // a /SetSlots message never reaches the LLM
		}
		var recCmd *command
		if rec != nil {
			var why string
			if recCmd, why = t.fromRecording(rec, asked); recCmd == nil {
				t.note(rec.Pos, "recorded reply for %q %s; the command is inferred from the test", text, why)
			}
		} else if covered && !setSlotsRe.MatchString(strings.TrimSpace(text)) {
			t.note(tu.user.Pos, "test case %s: message %q has no recorded LLM reply though the test's first message has one; the command is inferred from the test", tc.Name, text)
		}
		if i == 0 && rec != nil {
			covered = true
		}
		if recCmd != nil {
			recCmd.rec = rec
			c = recCmd
			for _, e := range c.entities {
				switch e[0] {
				case "flow":
					started = t.p.Flow(e[1])
				case "next_flow":
					next = t.p.Flow(e[1])
				}
			}
			switch {
			case c.intent == "start_flow" && started != nil && onStack(started) && len(c.sets) > 0:
				// Rasa drops a start of a flow already on the stack;
				// the slots set beside it stay.
				c.intent, started = "set_slot", nil
				c.entities = c.entities[1:]
				if !c.hasValue {
					c.value, c.hasValue = c.sets[0][1], true
				}
			case c.intent == "set_slot" && len(stack) == 0 && len(c.sets) > 0:
				// A slot set with no flow running starts the flow that
				// collects it.
				if f := t.collector(c.sets[0][0]); f != nil {
					started = f
					c.intent = "start_flow"
					c.entities = append([][2]string{{"flow", f.ID}}, c.entities...)
				}
			}
		} else if n := len([]rune(text)); n > t.p.MaxChars || strings.TrimSpace(text) == "" {
			// The command generator refuses the message before the LLM
			// sees it (Rasa's user_input max_characters, an empty text).
			c.intent, c.why = "error", "a message the command generator refuses"
			kind := "rasa_internal_error_user_input_too_long"
			if n <= t.p.MaxChars {
				kind = "rasa_internal_error_user_input_empty"
			}
			c.entity("error_type", kind)
		} else if pairs, ok := parseSetSlots(text); ok {
			c.intent, c.why = "set_slot", "a /SetSlots message"
			for _, kv := range pairs {
				if sl := t.p.Slot(kv[0]); sl != nil {
					v := kv[1]
					if sl.Type == "bool" {
						v = strings.ToLower(v)
					}
					if kv[0] == asked || !c.hasValue {
						c.value, c.hasValue = v, true
					}
					c.fill(kv[0], v)
				}
			}
		} else if m := intentRe.FindStringSubmatch(strings.TrimSpace(text)); m != nil {
			var trig *Flow
			for _, f := range t.users {
				if contains(f.Triggers, m[1]) {
					trig = f
				}
			}
			if trig != nil {
				c.intent, c.why = "start_flow", "an nlu_trigger intent of "+trig.ID
				c.entity("flow", trig.ID)
				started = trig
			} else {
				c.intent, c.why = "cannot_handle", "intent /"+m[1]+" starts no flow (an intent of the pre-CALM NLU pipeline)"
				t.note(tu.user.Pos, "test case %s: message %q is intent %s of the NLU-based (pre-CALM) pipeline, which the import does not simulate; the turn is cannot_handle", tc.Name, text, m[1])
			}
			for _, kv := range jsonPairRe.FindAllStringSubmatch(m[0], -1) {
				if sl := t.p.Slot(kv[1]); sl != nil {
					c.fill(kv[1], strings.Trim(kv[2], `"`))
				}
			}
		} else {
			switch {
			case contains(tu.starts, "pattern_cancel_flow") || overlaps(tu.says, patternSays("pattern_cancel_flow")) || (len(stack) > 0 && hasPhrase(text, cancelWords) && started == nil):
				c.intent, c.why = "cancel_flow", "the test expects the cancellation"
				// A flow whose first response follows the cancellation was
				// started by the same message (Rasa's "cancel flow, start
				// flow X"): it runs once pattern_cancel_flow has ended.
				if g := t.firstSayer(tu.says, onStack, nil); g != nil {
					c.entity("next_flow", g.ID)
					next = g
				}
			case contains(tu.starts, "pattern_human_handoff") || overlaps(tu.says, patternSays("pattern_human_handoff")):
				c.intent, c.why = "human_handoff", "the test expects the handoff"
			case len(tu.starts) == 1 && tu.starts[0] == "pattern_cannot_handle":
				// Rasa drops a command it may not run (an LLM value for a
				// slot with NLU mappings only) and says it cannot handle it.
				c.intent, c.why = "cannot_handle", "the test expects pattern_cannot_handle"
			case correcting && started == nil:
				c.intent, c.why = "correct_slot", "the test expects a correction"
				if len(corrected) == 0 && top != nil {
					t.correction(c, text, top, filled, turns[i+1:], corrected, &corrOrder)
				}
				for _, s := range corrOrder {
					c.fill(s, corrected[s])
				}
			case started != nil:
				c.intent, c.why = "start_flow", "the test expects "+started.ID+" to start"
				// A flow whose first response comes before the started
				// flow's was started first by the same message: it runs on
				// top, the other waits beneath it (Rasa runs a message's
				// start commands so that the first one ends on top).
				if g := t.firstSayer(t.before(tu.says, started), onStack, started); g != nil {
					c.why = "the test expects " + g.ID + ", then " + started.ID + " to start"
					c.entity("flow", g.ID)
					c.entity("next_flow", started.ID)
					next, started = started, g
					break
				}
				c.entity("flow", started.ID)
				for _, s := range order {
					if contains(collectSlots(started), s) {
						c.fill(s, vals[s])
					}
				}
				// Questions skipped though the test names no value: the
				// message gave them (a question asked after a rejection is
				// no sign of a skip).
				rejected := false
				for _, s := range collectSlots(started) {
					rejected = rejected || overlaps(tu.says, t.rejectionSays(s))
				}
				for _, say := range tu.says {
					if rejected {
						break
					}
					before, ok := skippedBefore(started, say)
					if !ok {
						continue
					}
					for _, s := range before {
						if _, ok := vals[s]; !ok && t.p.Slot(s) != nil {
							c.fill(s, guess(t.p.Slot(s), text))
						}
					}
					break
				}
				for _, s := range collectSlots(started)[:min(upfront, len(collectSlots(started)))] {
					if _, ok := vals[s]; !ok && t.p.Slot(s) != nil {
						c.fill(s, guess(t.p.Slot(s), text))
					}
				}
			case overlaps(tu.says, patternSays("pattern_chitchat")) || contains(tu.says, "utter_free_chitchat_response"):
				c.intent, c.why = "chitchat", "the test expects chitchat"
			case contains(tu.says, "utter_skip_question_answer"):
				c.intent, c.why = "skip_question", "the test expects the question to be kept"
			case contains(tu.says, "utter_clarification_options_rasa") || contains(tu.says, "utter_clarification_no_options_rasa"):
				c.intent, c.why = "clarify", "the test expects a clarification"
			case asked != "" && vals[asked] == "" && len(order) == 0 && len(tu.says) > 0 && reasks(tu.says[:1], asked, asks):
				// The question is asked again and nothing is set: the
				// message was a question of its own (Rasa's knowledge
				// answer, pattern_search), after which the flow goes on.
				c.intent, c.why = "search", "the test asks "+asked+" again and sets nothing"
			case asked != "" && beneath != "":
				// Asked whether to continue the interrupted flow, the user
				// answered its question instead.
				c.intent, c.why = "set_slot", "an answer to "+beneath+", the question of the interrupted flow"
				v, ok := vals[beneath]
				if !ok {
					v = guess(t.p.Slot(beneath), text)
				}
				c.value, c.hasValue = v, true
				c.fill(beneath, v)
			case asked != "":
				c.intent, c.why, c.slot = "set_slot", "an answer to "+asked, asked
				if v, ok := vals[asked]; ok {
					c.value = v
				} else {
					c.value = guess(t.p.Slot(asked), text)
				}
				c.hasValue = true
				// Other slots the turn shows set are the message's too when
				// a collect step asks for them; an action sets the others.
				for _, s := range order {
					if s != asked && t.isCollected(s) {
						c.fill(s, vals[s])
					}
				}
			case len(order) > 0:
				c.intent, c.why = "set_slot", "the test sets "+order[0]
				c.value, c.hasValue = vals[order[0]], true
				for _, s := range order[1:] {
					c.fill(s, vals[s])
				}
			default:
				c.intent, c.why = "cannot_handle", "no command the test implies"
			}
		}
		if len(c.entities) > 4 {
			t.note(tu.user.Pos, "test case %s: the message carries %d slots; a simctl event carries at most 4, the others are dropped", tc.Name, len(c.entities))
			c.entities = c.entities[:4]
		}
		out[i] = c
		// What the turn leaves behind.
		switch c.intent {
		case "start_flow":
			if started != nil {
				stack = append(stack, started)
			}
		case "cancel_flow":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		if next != nil {
			stack = append(stack, next)
		}
		for _, kv := range c.sets {
			filled[kv[0]] = kv[1]
		}
		if c.slot != "" {
			filled[c.slot] = c.value
		}
		for _, s := range order {
			filled[s] = vals[s]
		}
		if contains(tu.says, "utter_can_do_something_else") || contains(tu.says, "utter_ask_continue_conversation") {
			stack = nil
		}
		// A slot the turn's rejection clears is asked again.
		for s := range filled {
			if overlaps(tu.says, t.rejectionSays(s)) {
				delete(filled, s)
			}
		}
		prev := asked
		asked = ""
		now := t.reachable(stack)
		for _, say := range tu.says {
			if a, ok := asks[say]; ok {
				asked = a.slot
				// (A question several flows ask is the running flow's.)
				if !a.flow.Pattern && !now[a.flow] && !t.collectedBy(now, a.slot) {
					stack = append(stack, a.flow)
				}
			}
		}
		if asked == "" && (c.intent == "chitchat" || c.intent == "search" || c.intent == "skip_question" || c.intent == "clarify") {
			// A digression leaves the question asked before it.
			asked = prev
		}
		if asked == "" && len(stack) > 0 && (c.intent == "start_flow" || c.intent == "set_slot" && prev != "") {
			// The test does not show the next question: the flow's
			// first collect step whose slot is still empty asks it.
			for _, s := range t.stackTopSlots(stack[len(stack)-1]) {
				if _, ok := filled[s]; !ok {
					asked = s
					break
				}
			}
		}
	}
	return out
}

// caller is the user flow that starts when flow f's question is asked:
// f itself, or a flow that calls it first.
func (t *translator) caller(f *Flow) *Flow {
	seen := map[*Flow]bool{f: true}
	for {
		var up *Flow
		for _, g := range t.users {
			for _, s := range g.Steps {
				if s.Kind == "call" && s.Arg == f.ID && !seen[g] {
					up = g
				}
			}
		}
		if up == nil {
			return f
		}
		seen[up] = true
		f = up
	}
}

// eventNode is the scenario turn of a command.
func (c *command) eventNode(text string) *yaml.Node {
	ev := yamltree.Map("intent", c.intent, "text", text)
	if c.hasValue {
		yamltree.Add(ev, "value", c.value)
	}
	if len(c.entities) > 0 {
		ents := yamltree.Map()
		for _, e := range c.entities {
			yamltree.Add(ents, e[0], e[1])
		}
		yamltree.Add(ev, "entities", ents)
	}
	return ev
}

// reasks tells whether the turn's responses ask for slot again.
func reasks(says []string, slot string, asks map[string]asker) bool {
	for _, say := range says {
		if a, ok := asks[say]; ok && a.slot == slot {
			return true
		}
	}
	return false
}

// stackTopSlots are the slots flow f collects, in step order.
func (t *translator) stackTopSlots(f *Flow) []string { return collectSlots(f) }

// collector is the user flow that starts when slot is set with no flow
// running: the caller of the first flow collecting it.
func (t *translator) collector(slot string) *Flow {
	for _, f := range t.users {
		if contains(collectSlots(f), slot) {
			return t.caller(f)
		}
	}
	return nil
}

// reachable are the flows on the stack and those they link to or call,
// transitively.
func (t *translator) reachable(stack []*Flow) map[*Flow]bool {
	out := map[*Flow]bool{}
	var walk func(f *Flow)
	walk = func(f *Flow) {
		if f == nil || out[f] {
			return
		}
		out[f] = true
		for _, s := range f.Steps {
			if s.Kind == "link" || s.Kind == "call" {
				walk(t.p.Flow(s.Arg))
			}
		}
	}
	for _, f := range stack {
		walk(f)
	}
	return out
}

// gives tells whether the command itself gives slot the value v.
func (c *command) gives(slot, v string) bool {
	if c.slot == slot && c.value == v {
		return true
	}
	for _, kv := range c.sets {
		if kv[0] == slot && kv[1] == v {
			return true
		}
	}
	return false
}

// correction reads a correction the test does not show the value of in
// its own turn. A slot of the running flow the message names by its value
// (with no other value beside it) or by its name's last word is taken
// back (entity reset_slot); else the slot a later turn sets again (within
// three turns) takes the message's new value, a number for a slot that
// held a number and a capitalised word otherwise.
func (t *translator) correction(c *command, text string, top *Flow, filled map[string]string, later []*turn, corrected map[string]string, order *[]string) {
	// A later turn that sets a filled slot again names the slot; the
	// value is this message's where a later turn shows it.
	for j, tu := range later {
		if j >= 3 {
			break
		}
		no, nv := t.testSlots(tu)
		for _, s := range no {
			old, ok := filled[s]
			if !ok || old == nv[s] {
				continue
			}
			v := nv[s]
			if j > 0 || contains(tu.starts, "pattern_correction") {
				if v, ok = newValue(old, text); !ok {
					continue
				}
			}
			corrected[s] = v
			*order = append(*order, s)
		}
		if len(*order) > 0 {
			return
		}
		// A slot the next turns show set without a value (to null) was
		// taken back.
		for _, st := range tu.slots {
			if st.Value == nil || st.Value.Tag == "!!null" {
				if old, ok := filled[st.Slot]; ok && old != "" && contains(t.takeSlots(top), st.Slot) {
					c.entity("reset_slot", st.Slot)
					c.why = "the test takes " + st.Slot + " back"
					return
				}
			}
		}
	}
	low := strings.ToLower(text)
	for _, s := range t.takeSlots(top) {
		old, ok := filled[s]
		if !ok || old == "" {
			continue
		}
		_, other := newValue(old, text)
		words := strings.Split(s, "_")
		if !other && (strings.Contains(low, strings.ToLower(old)) || strings.Contains(low, words[len(words)-1])) {
			c.entity("reset_slot", s)
			c.why = "the test takes " + s + " back"
			return
		}
	}
	for _, s := range t.takeSlots(top) {
		old, ok := filled[s]
		if !ok {
			continue
		}
		if v, ok := newValue(old, text); ok {
			corrected[s] = v
			*order = append(*order, s)
			return
		}
	}
}

// newValue is the value in text that replaces old: the last number other
// than old where old is a number, else the last capitalised word (not
// the first word, not "I") other than old.
func newValue(old, text string) (string, bool) {
	if numberRe.MatchString(old) && numberRe.FindString(old) == old {
		ns := numberRe.FindAllString(text, -1)
		for i := len(ns) - 1; i >= 0; i-- {
			if ns[i] != old {
				return ns[i], true
			}
		}
		return "", false
	}
	words := strings.Fields(text)
	for i := len(words) - 1; i > 0; i-- {
		w := strings.Trim(words[i], ".,!?;:'\"")
		if w != "" && w != "I" && w[0] >= 'A' && w[0] <= 'Z' && w != old {
			return w, true
		}
	}
	return "", false
}

// startable tells whether a command may start flow f: a flow whose guard
// is the constant false is only linked to or called.
func startable(f *Flow) bool {
	g := strings.ToLower(strings.TrimSpace(f.Guard))
	return g != "false" && g != "\"false\""
}

// stubSayer is the user flow one of whose custom actions a stub makes say
// the text matched by pattern (a test's text_matches), or nil.
func (t *translator) stubSayer(pattern string) *Flow {
	re, err := regexp.Compile("(?s)" + pattern)
	if err != nil {
		return nil
	}
	for _, st := range t.p.AllStubs {
		for _, r := range st.Responses {
			if !re.MatchString(r) {
				continue
			}
			for _, f := range t.users {
				for _, s := range f.Steps {
					if s.Kind == "action" && s.Arg == st.Action {
						return t.caller(f)
					}
				}
			}
		}
	}
	return nil
}

// isCollected tells whether some collect step asks for slot.
func (t *translator) isCollected(slot string) bool {
	for _, f := range t.p.Flows {
		if contains(collectSlots(f), slot) {
			return true
		}
	}
	return false
}

// firstSayer is the startable user flow, not running and not skip, whose
// first response is one of says (the earliest such response decides).
func (t *translator) firstSayer(says []string, running func(*Flow) bool, skip *Flow) *Flow {
	for _, say := range says {
		for _, g := range t.users {
			if g != skip && !running(g) && startable(g) && contains(t.firstSays(g), say) {
				return g
			}
		}
	}
	return nil
}

// before are the responses of says before the first one flow f says
// first.
func (t *translator) before(says []string, f *Flow) []string {
	first := t.firstSays(f)
	for i, say := range says {
		if contains(first, say) {
			return says[:i]
		}
	}
	return says
}

// firstOf is the first of xs, or "".
func firstOf(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[0]
}

// collectedBy tells whether one of flows collects slot (a question
// several flows ask is the running flow's).
func (t *translator) collectedBy(flows map[*Flow]bool, slot string) bool {
	for f := range flows {
		if contains(collectSlots(f), slot) {
			return true
		}
	}
	return false
}

// skippedBefore are the slots flow f collects before the first of its
// steps that says say (a collect step's question, or an action step's
// response: a flow that answers at once skipped its questions), and
// whether some step of f says it.
func skippedBefore(f *Flow, say string) ([]string, bool) {
	var before []string
	for _, s := range f.Steps {
		if u := stepSays(s); u != "" && u == say {
			return before, true
		}
		if s.Kind == "collect" && !contains(before, s.Arg) {
			before = append(before, s.Arg)
		}
	}
	return nil, false
}

// stepSays is what a step says: a collect step its question, an action
// step its response or action; "" for other steps.
func stepSays(s *Step) string {
	switch s.Kind {
	case "collect":
		if s.Utter != "" {
			return s.Utter
		}
		return "utter_ask_" + s.Arg
	case "action":
		return s.Arg
	}
	return ""
}

// silent tells whether the test shows nothing of the turn.
func (tu *turn) silent() bool {
	return len(tu.says) == 0 && len(tu.slots) == 0 && len(tu.starts) == 0 && len(tu.executed) == 0 && len(tu.matchs) == 0 && !tu.completes
}

// shownLater is the startable user flow the first of later turns that
// shows anything shows running (a question or response of one of its
// steps, or an action it runs; the caller, for a called flow's), nil if
// that turn shows none; and how many of its questions before that step
// the start answered: those the turns in between, each an answer, and
// the showing turn itself cannot have.
func (t *translator) shownLater(later []*turn) (*Flow, int) {
	for j, tu := range later {
		if tu.silent() {
			continue
		}
		for _, f := range t.users {
			var collects []string
			for _, s := range f.Steps {
				u := stepSays(s)
				if u == "" {
					continue
				}
				shown := contains(tu.says, u)
				for _, ex := range tu.executed {
					shown = shown || ex.Text == u
				}
				if g := t.caller(f); shown && g != nil && startable(g) {
					return g, max(len(collects)-(j+1), 0)
				}
				if s.Kind == "collect" && !contains(collects, s.Arg) {
					collects = append(collects, s.Arg)
				}
			}
		}
		return nil, 0
	}
	return nil, 0
}
