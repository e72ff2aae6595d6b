package rasa

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
	"github.com/simctl/simctl/yamltree"
)

// The intents standing for Rasa's commands (the command generator's
// output): StartFlow, SetSlot, CorrectSlots, CancelFlow, Clarify, ChitChat,
// HumanHandoff and CannotHandle.
var commandIntents = []string{"start_flow", "set_slot", "correct_slot", "cancel_flow", "clarify", "chitchat", "human_handoff", "cannot_handle", "search", "skip_question", "error"}

// Which pattern each command starts.
var commandPatterns = map[string]string{"chitchat": "pattern_chitchat", "human_handoff": "pattern_human_handoff",
	"clarify": "pattern_clarification", "cannot_handle": "pattern_cannot_handle",
	"search": "pattern_search", "skip_question": "pattern_skip_question", "error": "pattern_internal_error"}

// Context variables of patterns and the slots that hold them. The
// importer sets them where Rasa's default actions would.
var contextSlots = map[string]string{
	"canceled_name":                         "ctx_canceled_name",
	"interrupted_flow_options":              "ctx_interrupted",
	"previous_flow_name":                    "ctx_interrupted",
	"corrected_slots":                       "ctx_corrected_slots",
	"corrected_slots.keys()|join(', ')":     "ctx_corrected_slots",
	"new_slot_values":                       "ctx_corrected_values",
	"new_slot_values | join(', ')":          "ctx_corrected_values",
	"corrected_slots.values()|join(', ')":   "ctx_corrected_values",
	"names":                                 "ctx_names",
	"clarification_options":                 "ctx_clarification_options",
	"reason":                                "ctx_reason",
	"error_type":                            "ctx_reason",
	"canceled_flow":                         "ctx_canceled_name",
	"interrupted_flow_options|join(', ')":   "ctx_interrupted",
	"clarification_options|join(', ')":      "ctx_clarification_options",
	"names|join(', ')":                      "ctx_names",
	"corrected_slots.keys() | join(', ')":   "ctx_corrected_slots",
	"corrected_slots.values() | join(', ')": "ctx_corrected_values",
}

// Context flags that are false in every situation the import models
// (one interrupted flow at a time; a correction always has new values).
var contextFalse = map[string]bool{"multiple_flows_interrupted": true}

// Default actions of patterns and what they become. Those marked "" do
// their work when the command arrives (cancel, correct) or when the
// pattern ends (continue), so the step itself does nothing.
var defaultActions = map[string]string{
	"action_cancel_flow":               "",
	"action_correct_flow_slot":         "",
	"action_continue_interrupted_flow": "",
	"action_cancel_interrupted_flows":  "cancel_interrupted",
	"action_clarify_flows":             "clarify",
	"action_handoff_metric":            "",
	"action_listen":                    "",
	"action_reset_routing":             "",
}

// Default actions that the import cannot model; they do nothing and are named.
var unsupportedActions = map[string]string{
	"action_trigger_search":          "searches a knowledge base with an LLM (Enterprise Search)",
	"action_trigger_chitchat":        "generates a free-form answer with an LLM",
	"action_repeat_bot_messages":     "repeats the bot's last messages",
	"action_restart":                 "restarts the conversation",
	"action_session_start":           "starts a session",
	"action_clean_stack":             "cleans the dialogue stack after a code change",
	"action_hangup":                  "ends a voice call",
	"action_run_slot_rejections":     "runs slot rejections (the import runs them in each collect step)",
	"action_extract_slots":           "extracts slots with mappings",
	"action_default_fallback":        "is a pre-CALM fallback",
	"action_two_stage_fallback":      "is a pre-CALM fallback",
	"action_deactivate_loop":         "deactivates a form",
	"action_back":                    "undoes the last user message",
	"action_unlikely_intent":         "is a pre-CALM policy's action",
	"action_default_ask_affirmation": "is a pre-CALM fallback",
}

var reservedNames = map[string]bool{}

func init() {
	for _, n := range strings.Fields("event waiting waiting_value prompt state flow now all next none filled empty all_filled remaining exhausted valid true false nil len lower upper trim branch_index branch_input branch_result branches branches_done branches_failed email phone url number text abs") {
		reservedNames[n] = true
	}
}

type translator struct {
	p       *Project
	used    map[string]bool // context slots used
	resume  map[string]bool // user flows with a return point slot
	rets    map[string][]string
	names   map[*Flow]map[string]string // step id -> state name
	users   []*Flow
	invoked map[string]bool // custom actions
	notes   []Note
	noted   map[string]bool
	// collected are the slots some collect step asks for.
	collected map[string]bool
	// slotUse are the domain slots a flow, condition, stub, test or
	// response said uses: only they become slots of the machine.
	slotUse map[string]bool
	// variants are the machine's variants of per-test stubs, the
	// variant of each test and the stubs each variant chooses.
	variants     []string
	variantOf    map[*TestCase]string
	variantStubs map[string]map[string]*Stub
	// variantFixtures are the slots each variant's fixtures set.
	variantFixtures map[string][]SlotValue
	respOrder       []string // response names, sorted
	// resets are the slots some user flow resets when it ends; rejects
	// the slots some rejection (of a step or the slot's own) clears.
	resets, rejects map[string]bool
	// extra are states an action step adds beside its own.
	extra [][2]any
	// refused are the (slot, value) pairs a test shows a custom action
	// refuse (deriveThresholds): no value for a simulated user to give.
	refused map[[2]string]bool
	// recorded are the scenario turns whose parse is a recorded reply.
	recorded []RecordedTurn
}

// routerSlots are the slots of Rasa's routers (LLMBasedRouter,
// IntentBasedRouter), which decide between CALM and the pre-CALM NLU
// pipeline. The import simulates CALM only, so the router is not
// simulated and its slot is left out (named in import.md where a test
// checks it).
var routerSlots = map[string]bool{"route_session_to_calm": true}

// use marks a domain slot as used and returns its name in expressions.
func (t *translator) use(name string) string {
	t.slotUse[name] = true
	return slotVar(name)
}

func (t *translator) note(pos engine.Pos, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	key := pos.String() + msg
	if t.noted[key] {
		return
	}
	t.noted[key] = true
	t.notes = append(t.notes, Note{Pos: pos, What: msg})
}

// slotVar is a slot's name in expressions: a Rasa slot named like a simctl
// reserved word is renamed.
func slotVar(name string) string {
	if reservedNames[name] || strings.HasPrefix(name, "ctx_") || strings.HasPrefix(name, "at_") || !isName(name) {
		return "slot_" + regexp.MustCompile(`[^A-Za-z0-9_]`).ReplaceAllString(name, "_")
	}
	return name
}

func atSlot(f *Flow) string { return "at_" + f.ID }

func (t *translator) ctx(name string) string { t.used[name] = true; return name }

func (t *translator) path(f *Flow, state string) string { return "session." + f.ID + "." + state }

func (t *translator) stepState(f *Flow, id string) string {
	if id == "END" {
		return t.path(f, "end")
	}
	return t.path(f, t.names[f][id])
}

// vars resolves slots.X and context.X in conditions.
func (t *translator) vars(name string) (operand, error) {
	if s, ok := strings.CutPrefix(name, "slots."); ok {
		sl := t.p.Slot(s)
		if sl == nil {
			return operand{}, fmt.Errorf("slot %s is not in the domain", s)
		}
		v := t.use(sl.Name)
		typ := tText
		switch sl.Type {
		case "float":
			typ = tNumber
		case "bool":
			typ = tBool
		}
		return operand{expr: v, typ: typ, slot: v}, nil
	}
	c := strings.TrimPrefix(name, "context.")
	if contextFalse[c] {
		return operand{expr: "false", typ: tBool, lit: true}, nil
	}
	if s, ok := contextSlots[c]; ok {
		return operand{expr: t.ctx(s), typ: tText}, nil
	}
	if c == "is_reset_only" {
		return operand{expr: t.ctx("ctx_is_reset_only"), typ: tBool}, nil
	}
	return operand{}, fmt.Errorf("context.%s has no counterpart in the imported machine", c)
}

func (t *translator) cond(src string, pos engine.Pos) (string, error) {
	return translateCond(src, pos, t.vars)
}

var jinjaRe = regexp.MustCompile(`\{\{\s*(.*?)\s*\}\}`)
var plainRe = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// template turns a response's text into a say template: {slot} (Rasa's
// slot filling) and {{ context.X }}, {{ slots.X }}, {{ value }} (jinja)
// become placeholders; other braces are kept as text.
func (t *translator) template(r *Response) string {
	var b strings.Builder
	src := r.Text
	type piece struct {
		start, end int
		repl       string
	}
	var pieces []piece
	if r.Jinja {
		for _, m := range jinjaRe.FindAllStringSubmatchIndex(src, -1) {
			inner := src[m[2]:m[3]]
			repl := ""
			switch {
			case inner == "value":
				repl = "event.value"
			case strings.HasPrefix(inner, "slots.") && t.p.Slot(strings.TrimPrefix(inner, "slots.")) != nil:
				repl = t.use(strings.TrimPrefix(inner, "slots."))
			case strings.HasPrefix(inner, "context."):
				if s, ok := contextSlots[strings.TrimPrefix(inner, "context.")]; ok {
					repl = t.ctx(s)
				}
			}
			if repl == "" {
				t.note(r.Pos, "response %s: jinja expression {{ %s }} has no counterpart; it is said as written", r.Name, inner)
				continue
			}
			pieces = append(pieces, piece{m[0], m[1], "{" + repl + "}"})
		}
	} else {
		for _, m := range plainRe.FindAllStringSubmatchIndex(src, -1) {
			name := src[m[2]:m[3]]
			if t.p.Slot(name) == nil {
				t.note(r.Pos, "response %s: {%s} is not a slot; it is said as written", r.Name, name)
				continue
			}
			pieces = append(pieces, piece{m[0], m[1], "{" + t.use(name) + "}"})
		}
	}
	last := 0
	esc := func(s string) string { return strings.NewReplacer("{", "{{", "}", "}}").Replace(s) }
	for _, pc := range pieces {
		b.WriteString(esc(src[last:pc.start]))
		b.WriteString(pc.repl)
		last = pc.end
	}
	b.WriteString(esc(src[last:]))
	return b.String()
}

func (t *translator) say(name string) *yaml.Node {
	return yamltree.Map("say", t.template(t.p.Responses[name]))
}

// collectSlots lists the slots a flow collects, in step order, once each.
func collectSlots(f *Flow) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range f.Steps {
		if s.Kind == "collect" && !seen[s.Arg] {
			seen[s.Arg] = true
			out = append(out, s.Arg)
		}
	}
	return out
}

// resetSlots are the slots cleared when the flow ends or is cancelled.
func (t *translator) resetSlots(f *Flow) []string {
	// A called flow's slots stay when it returns (its caller reads
	// them); they are reset with the flow that called it.
	if t.callee(f) {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	visited := map[*Flow]bool{}
	var walk func(g *Flow)
	walk = func(g *Flow) {
		if g == nil || visited[g] {
			return
		}
		visited[g] = true
		for _, s := range g.Steps {
			switch {
			case s.Kind == "collect" && s.Reset && !g.Persisted[s.Arg] && !f.Persisted[s.Arg] && !seen[s.Arg]:
				seen[s.Arg] = true
				out = append(out, slotVar(s.Arg))
			case s.Kind == "call":
				walk(t.p.Flow(s.Arg))
			}
		}
	}
	walk(f)
	return out
}

// validateState adds validate_<slot> (the domain rejections of a slot a
// start carried; a rejection says its response, clears the slot and asks
// it) and validate_<slot>_wait (the answer, validated again).
func (t *translator) validateState(f *Flow, slot, name, next string, states *yaml.Node) error {
	sl := t.p.Slot(slot)
	v := t.use(slot)
	utter := "utter_ask_" + slot
	for _, s := range f.Steps {
		if s.Kind == "collect" && s.Arg == slot && s.Utter != "" {
			utter = s.Utter
		}
	}
	var ask []*yaml.Node
	if t.p.Responses[utter] != nil {
		ask = actions(t.say(utter))
	}
	var always []*yaml.Node
	for _, r := range sl.Rejections {
		g, err := t.cond(r.Cond, r.CondPos)
		if err != nil {
			return err
		}
		always = append(always, trans("filled("+v+") and ("+g+")", t.path(f, name+"_wait"),
			append(actions(t.say(r.Utter), yamltree.Map("clear", v), yamltree.Map("ask", v)), ask...)))
	}
	always = append(always, trans("", next, nil))
	yamltree.Add(states, name, yamltree.Map("description", "validation of "+slot+", given when the flow started", "always", yamltree.Seq(always...)))
	on := yamltree.Map()
	var set []*yaml.Node
	if c, rej := t.valueCheck(sl, "event.value"); c != "" {
		set = append(set, trans("not ("+c+")", t.path(f, name+"_wait"), append(actions(t.say(rej)), ask...)))
	}
	fill := yamltree.Map("fill", "event.value")
	if sl.Type == "bool" {
		fill = setExpr(v, typed(sl, "event.value"))
	}
	set = append(set, trans("", t.path(f, name), actions(fill, yamltree.Map("ask", "none"))))
	yamltree.Add(on, "set_slot", yamltree.Seq(set...))
	yamltree.Add(states, name+"_wait", yamltree.Map("description", "waiting for "+slot+" again", "waits", true, "direct", "set_slot", "on", on))
	return nil
}

// callerCorrections are the correct_slot transitions of a called flow f
// for the slots its callers collect before calling it: as Rasa resets the
// top user flow that is not called to the corrected question, the called
// flows between end and the caller runs its correction.
func (t *translator) callerCorrections(f *Flow) []*yaml.Node {
	var out []*yaml.Node
	type up struct {
		x     *Flow
		chain []*Flow // the flows to end, f first
	}
	seen := map[*Flow]bool{f: true}
	queue := []up{{f, []*Flow{f}}}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, x := range t.users {
			for i, st := range x.Steps {
				if st.Kind != "call" || st.Arg != cur.x.ID || seen[x] {
					continue
				}
				seen[x] = true
				if t.resume[x.ID] && len(t.takeSlots(x)) > 0 && t.pattern("pattern_correction") != nil {
					done := map[string]bool{}
					for _, e := range x.Steps[:i] {
						if e.Kind != "collect" || done[e.Arg] {
							continue
						}
						done[e.Arg] = true
						v := slotVar(e.Arg)
						var acts []*yaml.Node
						for _, c := range cur.chain {
							acts = append(acts, t.endActions(c)...)
						}
						acts = append(acts, setExpr(atSlot(x), strconv.Quote(t.names[x][e.ID])),
							setExpr(t.ctx("ctx_corrected_slots"), `""`), setExpr(t.ctx("ctx_corrected_values"), `""`))
						out = append(out, trans(carried(`event.entities.`+v)+` and `+atSlot(x)+` != ""`,
							t.path(x, "fix_"+slotVar(t.takeSlots(x)[0])), acts))
					}
				}
				queue = append(queue, up{x, append(append([]*Flow{}, cur.chain...), x)})
			}
		}
	}
	return out
}

// callChains are the chains of user flows calling one another, the
// called flow first and its outermost caller last, longest first (for
// each called flow, each way up through callers that have return
// points).
func (t *translator) callChains() [][]*Flow {
	var out [][]*Flow
	var up func(ch []*Flow)
	up = func(ch []*Flow) {
		last := ch[len(ch)-1]
		for _, y := range t.users {
			if !t.resume[y.ID] || slices.Contains(ch, y) || t.retOf(y, last) == "" {
				continue
			}
			next := append(append([]*Flow{}, ch...), y)
			up(next)
			out = append(out, next)
		}
	}
	for _, x := range t.users {
		up([]*Flow{x})
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// retOf is the return point y records when it calls f ("" when it does
// not call f).
func (t *translator) retOf(y, f *Flow) string {
	for _, s := range y.Steps {
		if s.Kind == "call" && s.Arg == f.ID {
			return t.names[y][s.ID] + "_ret"
		}
	}
	return ""
}

// callee tells whether some flow calls f.
func (t *translator) callee(f *Flow) bool {
	for _, g := range t.p.Flows {
		for _, s := range g.Steps {
			if s.Kind == "call" && s.Arg == f.ID && g != f {
				return true
			}
		}
	}
	return false
}

func clearAction(slots []string) *yaml.Node {
	if len(slots) == 0 {
		return nil
	}
	return yamltree.Map("clear", yamltree.FlowSeq(slots...))
}

func actions(items ...*yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	for _, n := range items {
		if n != nil {
			out = append(out, n)
		}
	}
	return out
}

func setExpr(slot, expr string) *yaml.Node { return yamltree.Map("set", yamltree.Map(slot, expr)) }

func trans(guard, target string, acts []*yaml.Node) *yaml.Node {
	m := yamltree.Map()
	if guard != "" {
		yamltree.Add(m, "guard", guard)
	}
	yamltree.Add(m, "target", target)
	yamltree.Add(m, "actions", acts)
	return m
}

// valueCheck is the guard under which text x is a valid value for the
// slot, with the response Rasa says when it is not ("" when any text is).
func (t *translator) valueCheck(sl *Slot, x string) (string, string) {
	switch sl.Type {
	case "float":
		return "is_number(" + x + ")", "utter_float_slot_rejection"
	case "bool":
		return "lower(trim(" + x + `)) in ["true", "yes", "false", "no"]`, "utter_boolean_slot_rejection"
	case "categorical":
		var q []string
		for _, v := range sl.Values {
			q = append(q, strconv.Quote(v))
		}
		return x + " in [" + strings.Join(q, ", ") + "]", "utter_categorical_slot_rejection"
	}
	return "", ""
}

func (t *translator) nameSteps(f *Flow) {
	names := map[string]string{}
	taken := map[string]bool{"resume": true, "end": true}
	for _, s := range f.Steps {
		n := regexp.MustCompile(`[^A-Za-z0-9_]`).ReplaceAllString(s.ID, "_")
		if n == "" || n[0] >= '0' && n[0] <= '9' || strings.HasPrefix(n, "take_") || strings.HasPrefix(n, "fix_") {
			n = "step_" + n
		}
		for taken[n] || taken[n+"_wait"] || taken[n+"_check"] || taken[n+"_ret"] {
			n += "_"
		}
		taken[n], taken[n+"_wait"], taken[n+"_check"], taken[n+"_ret"] = true, true, true, true
		names[s.ID] = n
	}
	t.names[f] = names
}

// branches are the transitions of a step's next: its conditions in order,
// then the end of the flow when none holds.
func (t *translator) branches(f *Flow, s *Step, pre []*yaml.Node) ([]*yaml.Node, error) {
	var out []*yaml.Node
	uncond := false
	for _, b := range s.Next {
		g := ""
		if b.Cond != "" {
			var err error
			if g, err = t.cond(b.Cond, b.CondPos); err != nil {
				return nil, err
			}
		} else {
			uncond = true
		}
		out = append(out, trans(g, t.stepState(f, b.Target), pre))
		if uncond {
			break
		}
	}
	if !uncond {
		out = append(out, trans("", t.path(f, "end"), pre))
	}
	return out, nil
}

// translate builds machine.yaml.
func (t *translator) machine(name string) (*yaml.Node, error) {
	p := t.p
	t.resets, t.rejects = map[string]bool{}, map[string]bool{}
	for _, sl := range p.Slots {
		t.rejects[sl.Name] = len(sl.Rejections) > 0
	}
	for _, f := range p.Flows {
		for _, s := range f.Steps {
			if s.Kind == "collect" && len(s.Rejections) > 0 {
				t.rejects[s.Arg] = true
			}
		}
	}
	for _, f := range p.Flows {
		if !f.Pattern {
			for _, s := range f.Steps {
				if s.Kind == "collect" && s.Reset && !f.Persisted[s.Arg] {
					t.resets[s.Arg] = true
				}
			}
		}
	}
	for _, tc := range p.Tests {
		for _, s := range tc.Steps {
			switch {
			case (s.Kind == "slot_was_set" || s.Kind == "slot_was_not_set") && !routerSlots[s.Slot] && p.Slot(s.Slot) != nil:
				t.use(s.Slot)
			case (s.Kind == "utter" || s.Kind == "utter_contains") && p.Responses[s.Text] != nil:
				t.template(p.Responses[s.Text])
			}
		}
	}
	for _, f := range p.Flows {
		t.nameSteps(f)
		if !f.Pattern {
			t.users = append(t.users, f)
		}
		for _, s := range f.Steps {
			if s.Kind == "call" {
				t.rets[f.ID] = append(t.rets[f.ID], t.names[f][s.ID]+"_ret")
			}
			if !f.Pattern && (s.Kind == "collect" || s.Kind == "call") {
				t.resume[f.ID] = true
			}
		}
	}
	flowStates := yamltree.Map()
	for _, f := range p.Flows {
		st, err := t.flowState(f)
		if err != nil {
			return nil, err
		}
		yamltree.Add(flowStates, f.ID, st)
	}

	session := yamltree.Map("description", "the conversation: no flow (idle), a flow or a pattern", "initial", "idle")
	// Slots with an initial_value hold it from the start.
	var initial []*yaml.Node
	for _, sl := range p.Slots {
		if sl.Initial == nil || !t.slotUse[sl.Name] {
			continue
		}
		a, err := t.setSlot(SlotValue{Slot: sl.Name, Value: sl.Initial, Pos: sl.InitialPos})
		if err != nil {
			return nil, err
		}
		initial = append(initial, a)
	}
	yamltree.Add(session, "entry", initial)
	on, err := t.commands()
	if err != nil {
		return nil, err
	}
	yamltree.Add(session, "on", on)
	states := yamltree.Map("idle", yamltree.Map("description", "no flow is active", "waits", true, "entry", yamltree.Seq(yamltree.Map("ask", "none"))))
	yamltree.Add(states, "start_next", t.startNext())
	states.Content = append(states.Content, flowStates.Content...)
	yamltree.Add(session, "states", states)

	acts := yamltree.Map()
	var names []string
	for a := range t.invoked {
		names = append(names, a)
	}
	sort.Strings(names)
	t.deriveStubs()
	t.stubVariants(names)
	fix, err := t.fixtureSets()
	if err != nil {
		return nil, err
	}
	if len(fix) > 0 {
		yamltree.Add(session, "always", yamltree.Seq(fix...))
	}
	for _, a := range names {
		m := yamltree.Map()
		outs, err := t.stubOutputs(a)
		if err != nil {
			return nil, err
		}
		if p.Stubs[a] == nil && len(outs.Content) == 0 {
			t.note(engine.Pos{File: p.Dir}, "custom action %s has no stub in the e2e tests: it succeeds and sets nothing (edit actions: in machine.yaml)", a)
		}
		if len(outs.Content) > 0 {
			yamltree.Add(m, "outputs", outs)
		}
		yamltree.Add(acts, a, m)
	}

	// Slots, once every context slot used is known.
	slots := yamltree.Map()
	validators := yamltree.Map()
	for _, sl := range p.Slots {
		if !t.slotUse[sl.Name] {
			continue
		}
		m := yamltree.Map()
		switch sl.Type {
		case "float":
			yamltree.Add(m, "type", "number")
		case "bool":
			yamltree.Add(m, "type", "bool")
		case "categorical":
			yamltree.Add(m, "validator", slotVar(sl.Name)+"_values")
			yamltree.Add(validators, slotVar(sl.Name)+"_values", yamltree.Map("one_of", yamltree.FlowSeq(sl.Values...)))
		}
		yamltree.Add(slots, slotVar(sl.Name), m)
	}
	for _, f := range t.users {
		if t.resume[f.ID] {
			yamltree.Add(slots, atSlot(f), yamltree.Map())
		}
	}
	var ctxs []string
	for c := range t.used {
		ctxs = append(ctxs, c)
	}
	sort.Strings(ctxs)
	for _, c := range ctxs {
		m := yamltree.Map()
		if c == "ctx_cancel_interrupted" || c == "ctx_is_reset_only" || c == "ctx_fixtures_set" {
			yamltree.Add(m, "type", "bool")
		}
		yamltree.Add(slots, c, m)
	}
	if n := len(slots.Content) / 2; n > engine.MaxSlots {
		return nil, fmt.Errorf("%s: the import needs %d slots (the domain slots that flows, conditions, stubs, tests and responses use, a return point per flow that collects, and the patterns' context); simctl machines hold at most %d", p.Dir, n, engine.MaxSlots)
	}
	flows := yamltree.Map()
	for _, f := range p.Flows {
		var vs []string
		for _, s := range collectSlots(f) {
			vs = append(vs, slotVar(s))
		}
		yamltree.Add(flows, f.ID, yamltree.FlowSeq(vs...))
	}
	root := yamltree.Map(
		"machine", name,
		"description", "imported from the Rasa project "+p.Dir+" by simctl import rasa",
		"initial", "session",
		"intents", yamltree.FlowSeq(commandIntents...),
		"correction_intents", yamltree.FlowSeq("correct_slot"),
	)
	if len(t.variants) > 0 {
		vals := []string{"default"}
		vs := []*yaml.Node{yamltree.Map("name", "default")}
		for _, v := range t.variants {
			vals = append(vals, v)
			vs = append(vs, yamltree.Map("name", v, "set", yamltree.Map(stubParam, v)))
		}
		yamltree.Add(root, "parameters", yamltree.Map(stubParam, yamltree.Map("values", yamltree.FlowSeq(vals...), "default", "default",
			"description", "the stubs of the custom actions: a test's own (test_case::action), its file's, or else the first file's")))
		yamltree.Add(root, "variants", yamltree.Seq(vs...))
	}
	yamltree.Add(root, "slots", slots)
	yamltree.Add(root, "flows", flows)
	if len(validators.Content) > 0 {
		yamltree.Add(root, "validators", validators)
	}
	if len(acts.Content) > 0 {
		yamltree.Add(root, "actions", acts)
	}
	yamltree.Add(root, "states", yamltree.Map("session", session))
	return root, nil
}

// literal is a YAML value (set_slots, a stub) as an expression of the slot's type.
func (t *translator) literal(sl *Slot, v *yaml.Node, pos engine.Pos) (string, error) {
	v = deref(v)
	if v.Kind != yaml.ScalarNode {
		return "", &Error{Pos: pos, Msg: fmt.Sprintf("slot %s: expected a value, got %s", sl.Name, spec.DescribeNode(v))}
	}
	if v.Tag == "!!null" {
		return "", nil
	}
	switch sl.Type {
	case "float":
		f, err := strconv.ParseFloat(v.Value, 64)
		if err != nil {
			return "", &Error{Pos: pos, Msg: fmt.Sprintf("slot %s is a float slot; %q is not a number", sl.Name, v.Value)}
		}
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	case "bool":
		switch strings.ToLower(v.Value) {
		case "true", "yes":
			return "true", nil
		case "false", "no":
			return "false", nil
		}
		return "", &Error{Pos: pos, Msg: fmt.Sprintf("slot %s is a bool slot; %q is not true or false", sl.Name, v.Value)}
	}
	return strconv.Quote(v.Value), nil
}

// setSlot is the action setting a slot to a literal (nil value: clearing it).
func (t *translator) setSlot(sv SlotValue) (*yaml.Node, error) {
	sl := t.p.Slot(sv.Slot)
	e, err := t.literal(sl, sv.Value, sv.Pos)
	if err != nil {
		return nil, err
	}
	if e == "" {
		return yamltree.Map("clear", t.use(sl.Name)), nil
	}
	return setExpr(t.use(sl.Name), e), nil
}

// startFlow is what starting flow g does on top of the current stack.
func (t *translator) startFlow(g *Flow) string {
	if !g.Pattern && len(t.takeSlots(g)) > 0 {
		return t.path(g, "take_"+slotVar(t.takeSlots(g)[0]))
	}
	return "session." + g.ID
}

// endActions are what ending (or cancelling) flow f does: clear its
// slots, then pop it.
func (t *translator) endActions(f *Flow) []*yaml.Node {
	clear := t.resetSlots(f)
	if t.resume[f.ID] {
		clear = append(clear, atSlot(f))
	}
	// Nothing is asked once the flow is gone: a question of the ended
	// flow (or pattern) must not stay the one the machine waits for.
	return actions(yamltree.Map("ask", "none"), clearAction(clear), yamltree.Str("pop"))
}

func (t *translator) pattern(id string) *Flow {
	if f := t.p.Flow(id); f != nil && f.Pattern {
		return f
	}
	return nil
}

// afterFlow is where the conversation goes when a flow (or pattern) has
// ended and been popped: back into the flow it returns to.
func (t *translator) afterFlow(f *Flow) []*yaml.Node {
	var out []*yaml.Node
	ci := t.pattern("pattern_continue_interrupted")
	switch {
	case f.ID == "pattern_continue_interrupted":
		for _, x := range t.users {
			if t.resume[x.ID] {
				out = append(out, trans(`flow == "`+x.ID+`" and `+t.ctx("ctx_cancel_interrupted"), "session.idle",
					append(t.endActions(x), setExpr("ctx_cancel_interrupted", "false"))))
			}
		}
		for _, x := range t.users {
			if t.resume[x.ID] {
				out = append(out, trans(`flow == "`+x.ID+`"`, t.path(x, "resume"), nil))
			}
		}
	case !f.Pattern || f.ID == "pattern_cancel_flow":
		// A second flow the same message started waits beneath the
		// first (Rasa pushes both): it runs before anything resumes.
		out = append(out, trans(t.ctx("ctx_next_flow")+` != ""`, "session.start_next", nil))
		// A called flow returns to its caller; an interrupting flow ends
		// with the interrupted one beneath: pattern_continue_interrupted.
		for _, x := range t.users {
			if r := t.rets[x.ID]; len(r) > 0 && !f.Pattern {
				out = append(out, trans(`flow == "`+x.ID+`" and `+atSlot(x)+` in [`+quoteAll(r)+`]`, t.path(x, "resume"), nil))
			}
		}
		for _, x := range t.users {
			if !t.resume[x.ID] {
				continue
			}
			if ci != nil {
				out = append(out, trans(`flow == "`+x.ID+`"`, "session."+ci.ID,
					actions(setExpr(t.ctx("ctx_interrupted"), strconv.Quote(x.Name)), yamltree.Map("push", ci.ID))))
			} else {
				out = append(out, trans(`flow == "`+x.ID+`"`, t.path(x, "resume"), nil))
			}
		}
		if pc := t.pattern("pattern_completed"); pc != nil && (f.ID == "pattern_cancel_flow" || !f.Pattern && f.RunCompleted) {
			out = append(out, trans(`flow == ""`, "session."+pc.ID, actions(yamltree.Map("push", pc.ID))))
		}
	default:
		for _, x := range t.users {
			if t.resume[x.ID] {
				out = append(out, trans(`flow == "`+x.ID+`"`, t.path(x, "resume"), nil))
			}
		}
	}
	return append(out, trans("", "session.idle", nil))
}

func quoteAll(xs []string) string {
	var q []string
	for _, x := range xs {
		q = append(q, strconv.Quote(x))
	}
	return strings.Join(q, ", ")
}

// flowState is the compound state of one flow: a state per step (three
// for a collect: deciding, waiting, checking), the entity-taking chain a
// start or correction runs through, the resume dispatch and the end.
func (t *translator) flowState(f *Flow) (*yaml.Node, error) {
	desc := f.Description
	if f.Pattern && f.Default {
		desc = "Rasa's default " + f.ID + ": " + desc
	}
	first := t.stepState(f, f.Steps[0].ID)
	states := yamltree.Map()
	user := !f.Pattern
	takes := t.takeSlots(f)
	// take_<slot>: the slots a start_flow command carries as entities,
	// the flow's and those of the flows it calls (Rasa sets them at once).
	if user {
		// validate_<slot>: Rasa validates each slot a start carries that
		// has domain validation (pattern_validate_slot, pushed per slot
		// after the commands run, so the last one set is validated
		// first) before the flow's first step.
		var checked []string
		for i := len(takes) - 1; i >= 0; i-- {
			if sl := t.p.Slot(takes[i]); sl != nil && len(sl.Rejections) > 0 {
				checked = append(checked, takes[i])
			}
		}
		afterTakes := first
		if len(checked) > 0 {
			afterTakes = t.path(f, "validate_"+slotVar(checked[0]))
		}
		for i, s := range checked {
			next := first
			if i+1 < len(checked) {
				next = t.path(f, "validate_"+slotVar(checked[i+1]))
			}
			if err := t.validateState(f, s, "validate_"+slotVar(s), next, states); err != nil {
				return nil, err
			}
		}
		for i, s := range takes {
			next := afterTakes
			if i+1 < len(takes) {
				next = t.path(f, "take_"+slotVar(takes[i+1]))
			}
			sl := t.p.Slot(s)
			v := slotVar(s)
			g := `event.entities.` + v + ` != ""`
			if c, _ := t.valueCheck(sl, "event.entities."+v); c != "" {
				g += " and " + c
			}
			var last *yaml.Node
			if i+1 == len(takes) {
				last = yamltree.Map("ask", "none")
			}
			yamltree.Add(states, "take_"+v, yamltree.Map("always", yamltree.Seq(
				trans(g, next, actions(yamltree.Map("ask", v), yamltree.Map("fill", "event.entities."+v), last)),
				trans("", next, actions(last)))))
		}
		// fix_<slot>: the slots a correct_slot command carries; then
		// pattern_correction when anything was corrected.
		if pc := t.pattern("pattern_correction"); len(takes) > 0 && pc != nil {
			slots := takes
			for i, s := range slots {
				v := slotVar(s)
				g := `event.entities.` + v + ` != ""`
				if c, _ := t.valueCheck(t.p.Slot(s), "event.entities."+v); c != "" {
					g += " and " + c
				}
				// The first corrected slot is recorded in the pattern's
				// context and set by action_correct_flow_slot (so an
				// override that asks confirm_correction first can keep
				// the old value); further slots of the same message are
				// set at once.
				record := actions(
					setExpr(t.ctx("ctx_corrected_slots"), `ctx_corrected_slots == "" ? "`+s+`" : ctx_corrected_slots + ", `+s+`"`),
					setExpr(t.ctx("ctx_corrected_values"), `ctx_corrected_values == "" ? event.entities.`+v+` : ctx_corrected_values + ", " + event.entities.`+v))
				// Rasa's is_reset_only: every corrected slot is collected
				// with ask_before_filling.
				only := setExpr(t.ctx("ctx_is_reset_only"), `ctx_corrected_slots == "" ? `+t.resetOnly(s)+` : (ctx_is_reset_only and `+t.resetOnly(s)+`)`)
				record = append(actions(only), record...)
				later := append(actions(yamltree.Map("ask", v), yamltree.Map("fill", "event.entities."+v), yamltree.Map("ask", "none")), record...)
				first := g + ` and ctx_corrected_slots == ""`
				// The first slot's value alone, for action_correct_flow_slot.
				record1 := append(actions(setExpr(t.ctx("ctx_correct_value"), "event.entities."+v)), record...)
				var always []*yaml.Node
				if i+1 < len(slots) {
					next := t.path(f, "fix_"+slotVar(slots[i+1]))
					always = []*yaml.Node{trans(first, next, record1), trans(g, next, later), trans("", next, nil)}
				} else {
					run := actions(yamltree.Map("ask", "none"), yamltree.Map("push", pc.ID))
					always = []*yaml.Node{
						trans(first, "session."+pc.ID, append(record1, run...)),
						trans(g, "session."+pc.ID, append(later, run...)),
						trans(`ctx_corrected_slots != ""`, "session."+pc.ID, run),
						trans("", t.path(f, "resume"), actions(yamltree.Map("ask", "none"))),
					}
				}
				yamltree.Add(states, "fix_"+v, yamltree.Map("always", yamltree.Seq(always...)))
			}
		}
	}
	for i, s := range f.Steps {
		name := t.names[f][s.ID]
		switch s.Kind {
		case "collect":
			if err := t.collect(f, s, i, states); err != nil {
				return nil, err
			}
		case "action":
			t.extra = nil
			st, err := t.action(f, s)
			if err != nil {
				return nil, err
			}
			yamltree.Add(states, name, st)
			for _, x := range t.extra {
				yamltree.Add(states, x[0].(string), x[1])
			}
		case "set_slots":
			var entry []*yaml.Node
			for _, sv := range s.SetSlots {
				a, err := t.setSlot(sv)
				if err != nil {
					return nil, err
				}
				entry = append(entry, a)
			}
			br, err := t.branches(f, s, nil)
			if err != nil {
				return nil, err
			}
			yamltree.Add(states, name, yamltree.Map("description", "set_slots", "entry", entry, "always", br))
		case "noop":
			br, err := t.branches(f, s, nil)
			if err != nil {
				return nil, err
			}
			yamltree.Add(states, name, yamltree.Map("description", "noop", "always", br))
		case "link":
			g := t.p.Flow(s.Arg)
			acts := append(t.endActions(f), yamltree.Map("push", g.ID))
			yamltree.Add(states, name, yamltree.Map("description", "link: "+g.ID, "always", yamltree.Seq(trans("", t.startFlow(g), acts))))
		case "call":
			g := t.p.Flow(s.Arg)
			acts := actions(setExpr(atSlot(f), strconv.Quote(name+"_ret")), yamltree.Map("push", g.ID))
			yamltree.Add(states, name, yamltree.Map("description", "call: "+g.ID, "always", yamltree.Seq(trans("", t.startFlow(g), acts))))
			br, err := t.branches(f, s, nil)
			if err != nil {
				return nil, err
			}
			yamltree.Add(states, name+"_ret", yamltree.Map("description", "back from "+g.ID, "always", br))
		}
	}
	if user && t.resume[f.ID] {
		var always []*yaml.Node
		for _, s := range f.Steps {
			switch s.Kind {
			case "collect":
				always = append(always, trans(atSlot(f)+` == "`+t.names[f][s.ID]+`"`, t.stepState(f, s.ID), nil))
			case "call":
				n := t.names[f][s.ID] + "_ret"
				always = append(always, trans(atSlot(f)+` == "`+n+`"`, t.path(f, n), nil))
			}
		}
		always = append(always, trans("", first, nil))
		yamltree.Add(states, "resume", yamltree.Map("description", "back to the step the flow was interrupted at", "always", yamltree.Seq(always...)))
	}
	end := t.endActions(f)
	yamltree.Add(states, "end", yamltree.Map("description", "the flow has ended", "entry", end, "always", yamltree.Seq(t.afterFlow(f)...)))
	initial := t.names[f][f.Steps[0].ID]
	m := yamltree.Map()
	if desc != "" {
		yamltree.Add(m, "description", strings.TrimSpace(desc))
	}
	yamltree.Add(m, "initial", initial)
	yamltree.Add(m, "states", states)
	return m, nil
}

func (t *translator) collect(f *Flow, s *Step, idx int, states *yaml.Node) error {
	name := t.names[f][s.ID]
	sl := t.p.Slot(s.Arg)
	v := t.use(s.Arg)
	utter := s.Utter
	if utter == "" {
		utter = "utter_ask_" + s.Arg
	}
	var prompt []*yaml.Node
	if t.p.Responses[utter] != nil {
		prompt = actions(t.say(utter))
	} else if st := t.p.Code["action_ask_"+s.Arg]; st != nil {
		prompt = t.stubSays(st)
	} else {
		t.note(s.Pos, "collect %s asks with the custom action action_ask_%s, whose text is not known; the import says nothing", s.Arg, s.Arg)
	}
	user := !f.Pattern
	ask := append(actions(yamltree.Map("ask", v)), prompt...)
	if s.AskBefore {
		ask = append(actions(yamltree.Map("clear", v)), ask...)
	}
	if user {
		ask = append(ask, setExpr(atSlot(f), strconv.Quote(name)))
	}
	var decide []*yaml.Node
	if !s.AskBefore {
		decide = append(decide, trans("filled("+v+")", t.path(f, name+"_check"), nil))
	}
	decide = append(decide, trans("", t.path(f, name+"_wait"), ask))
	yamltree.Add(states, name, yamltree.Map("description", "collect "+s.Arg, "always", yamltree.Seq(decide...)))

	on := yamltree.Map()
	var set []*yaml.Node
	if f.ID == "pattern_continue_interrupted" {
		set = t.answerBeneath(f)
	}
	if c, rej := t.valueCheck(sl, "event.value"); c != "" {
		set = append(set, trans("not ("+c+")", t.path(f, name), actions(t.say(rej))))
	}
	fill := yamltree.Map("fill", "event.value")
	if sl.Type == "bool" {
		// "Yes" is a valid answer, not a boolean simctl parses.
		fill = setExpr(v, typed(sl, "event.value"))
	}
	if user {
		// Other slots of the flow with domain validation that the answer
		// carries: set beside it (name_take_X) and validated at once,
		// the last first (name_val_X), as Rasa pushes a
		// pattern_validate_slot per slot set.
		var vs []string
		for _, x := range collectSlots(f) {
			if xs := t.p.Slot(x); x != s.Arg && xs != nil && len(xs.Rejections) > 0 && !contains(vs, x) {
				vs = append(vs, x)
			}
		}
		var any []string
		for i, x := range vs {
			xs, xv := t.p.Slot(x), slotVar(x)
			any = append(any, `event.entities.`+xv+` != ""`)
			g := `event.entities.` + xv + ` != ""`
			if c, _ := t.valueCheck(xs, "event.entities."+xv); c != "" {
				g += " and " + c
			}
			next := t.path(f, name+"_val_"+slotVar(vs[len(vs)-1]))
			if i+1 < len(vs) {
				next = t.path(f, name+"_take_"+slotVar(vs[i+1]))
			}
			yamltree.Add(states, name+"_take_"+xv, yamltree.Map("always", yamltree.Seq(
				trans(g, next, actions(setExpr(t.use(x), typed(xs, "event.entities."+xv)))),
				trans("", next, nil))))
		}
		for i := len(vs) - 1; i >= 0; i-- {
			next := t.path(f, name+"_check")
			if i > 0 {
				next = t.path(f, name+"_val_"+slotVar(vs[i-1]))
			}
			if err := t.validateState(f, vs[i], name+"_val_"+slotVar(vs[i]), next, states); err != nil {
				return err
			}
		}
		if len(vs) > 0 {
			set = append(set, trans(strings.Join(any, " or "), t.path(f, name+"_take_"+slotVar(vs[0])), actions(fill)))
		}
	}
	set = append(set, trans("", t.path(f, name+"_check"), actions(fill)))
	yamltree.Add(on, "set_slot", yamltree.Seq(set...))
	if user {
		// A start of this flow, which is asking, that carries the slot
		// asked: the command generator, seeing the question, sets the
		// slot (Rasa drops a start of a flow already on the stack). Any
		// other start of it is dropped, and the flow waits on.
		xv := "event.entities." + slotVar(s.Arg)
		g := `event.entities.flow == "` + f.ID + `" and ` + carried(xv)
		if c, _ := t.valueCheck(sl, xv); c != "" {
			g += " and " + c
		}
		yamltree.Add(on, "start_flow", yamltree.Seq(trans(g, t.path(f, name+"_check"), actions(setExpr(v, typed(sl, xv))))))
	}
	if user && t.pattern("pattern_correction") != nil && len(collectSlots(f)) > 0 {
		// The step to go back to: the earliest corrected slot collected
		// before this step (Rasa resets the flow there), else this one.
		expr := strconv.Quote(name)
		seen := map[string]bool{}
		var earlier []*Step
		for _, e := range f.Steps[:idx] {
			if e.Kind == "collect" && !seen[e.Arg] {
				seen[e.Arg] = true
				earlier = append(earlier, e)
			}
		}
		for i := len(earlier) - 1; i >= 0; i-- {
			e := earlier[i]
			expr = `event.entities.` + slotVar(e.Arg) + ` != "" ? "` + t.names[f][e.ID] + `" : (` + expr + `)`
		}
		// A slot of a flow called before this step: the flow goes back
		// to the call, which asks what the called flow still needs.
		for i := idx - 1; i >= 0; i-- {
			c := f.Steps[i]
			if c.Kind != "call" {
				continue
			}
			var conds []string
			for _, sl := range t.takeSlots(t.p.Flow(c.Arg)) {
				conds = append(conds, `event.entities.`+slotVar(sl)+` != ""`)
			}
			if len(conds) > 0 {
				expr = `(` + strings.Join(conds, " or ") + `) ? "` + t.names[f][c.ID] + `" : (` + expr + `)`
			}
		}
		// A reset (the user takes a value back without giving a new
		// one: entity reset_slot names the slot) goes back to that
		// slot's question once pattern_correction has run.
		var corr []*yaml.Node
		if pc := t.pattern("pattern_correction"); pc != nil {
			reset := func(slot, back string) {
				corr = append(corr, trans(`event.entities.reset_slot == "`+slot+`"`, "session."+pc.ID,
					actions(yamltree.Map("ask", "none"), setExpr(atSlot(f), strconv.Quote(back)),
						setExpr(t.ctx("ctx_corrected_slots"), strconv.Quote(slot)), setExpr(t.ctx("ctx_corrected_values"), `""`), setExpr(t.ctx("ctx_correct_value"), `""`),
						setExpr(t.ctx("ctx_is_reset_only"), t.resetOnly(slot)),
						yamltree.Map("push", pc.ID))))
			}
			done := map[string]bool{}
			for _, e := range append(earlier, s) {
				done[e.Arg] = true
				reset(e.Arg, t.names[f][e.ID])
			}
			// A slot of a flow called before this step: back to the call,
			// which asks again what the called flow is missing.
			for i := idx - 1; i >= 0; i-- {
				if c := f.Steps[i]; c.Kind == "call" {
					for _, sl := range t.takeSlots(t.p.Flow(c.Arg)) {
						if !done[sl] {
							done[sl] = true
							reset(sl, t.names[f][c.ID])
						}
					}
				}
			}
		}
		corr = append(corr, t.callerCorrections(f)...)
		// A correction of the slot asked while it is empty sets it:
		// Rasa's command generator answers with set slot, and only a
		// slot set again with another value is a correction.
		xv := "event.entities." + slotVar(s.Arg)
		g := carried(xv) + " and not filled(" + v + ")"
		if c, _ := t.valueCheck(sl, xv); c != "" {
			g += " and " + c
		}
		corr = append([]*yaml.Node{trans(g, t.path(f, name+"_check"), actions(setExpr(v, typed(sl, xv))))}, corr...)
		corr = append(corr, trans("", t.path(f, "fix_"+slotVar(t.takeSlots(f)[0])),
			actions(setExpr(atSlot(f), expr), setExpr(t.ctx("ctx_corrected_slots"), `""`), setExpr(t.ctx("ctx_corrected_values"), `""`))))
		yamltree.Add(on, "correct_slot", yamltree.Seq(corr...))
	}
	if f.ID == "pattern_correction" {
		// A second correction while the first waits for its
		// confirmation replaces it and asks again.
		seen := map[string]bool{}
		var again []*yaml.Node
		for _, x := range t.users {
			for _, sl := range collectSlots(x) {
				if seen[sl] {
					continue
				}
				seen[sl] = true
				v := slotVar(sl)
				again = append(again, trans(carried(`event.entities.`+v), t.path(f, name),
					actions(yamltree.Map("ask", "none"), setExpr(t.ctx("ctx_corrected_slots"), strconv.Quote(sl)), setExpr(t.ctx("ctx_corrected_values"), "event.entities."+v), setExpr(t.ctx("ctx_correct_value"), "event.entities."+v),
						setExpr(t.ctx("ctx_is_reset_only"), t.resetOnly(sl)))))
			}
		}
		if len(again) > 0 {
			yamltree.Add(on, "correct_slot", yamltree.Seq(again...))
		}
	}
	yamltree.Add(states, name+"_wait", yamltree.Map("description", "waiting for "+s.Arg, "waits", true, "direct", "set_slot", "on", on))

	var check []*yaml.Node
	for _, r := range append(append([]Rejection{}, sl.Rejections...), s.Rejections...) {
		g, err := t.cond(r.Cond, r.CondPos)
		if err != nil {
			return err
		}
		check = append(check, trans(g, t.path(f, name), actions(t.say(r.Utter), yamltree.Map("clear", v))))
	}
	br, err := t.branches(f, s, nil)
	if err != nil {
		return err
	}
	check = append(check, br...)
	yamltree.Add(states, name+"_check", yamltree.Map("description", "rejections and next of collect "+s.Arg, "always", yamltree.Seq(check...)))
	return nil
}

func (t *translator) action(f *Flow, s *Step) (*yaml.Node, error) {
	a := s.Arg
	switch {
	case strings.HasPrefix(a, "utter_"):
		br, err := t.branches(f, s, nil)
		if err != nil {
			return nil, err
		}
		return yamltree.Map("description", "action "+a, "entry", yamltree.Seq(t.say(a)), "always", br), nil
	case a == "action_correct_flow_slot":
		// Sets the corrected slot recorded when correct_slot arrived;
		// the flow beneath goes back to the step recorded then.
		var apply []*yaml.Node
		seen := map[string]bool{}
		for _, x := range t.users {
			for _, sl := range collectSlots(x) {
				if seen[sl] {
					continue
				}
				seen[sl] = true
				v := t.use(sl)
				apply = append(apply,
					trans(`(`+t.ctx("ctx_corrected_slots")+` == "`+sl+`" or ctx_corrected_slots startsWith "`+sl+`, ") and `+t.ctx("ctx_correct_value")+` == ""`, t.path(f, t.names[f][s.ID]+"_ret"),
						actions(yamltree.Map("clear", v))),
					trans(`ctx_corrected_slots == "`+sl+`" or ctx_corrected_slots startsWith "`+sl+`, "`, t.path(f, t.names[f][s.ID]+"_ret"),
						actions(setExpr(v, typed(t.p.Slot(sl), "ctx_correct_value")))))
			}
		}
		apply = append(apply, trans("", t.path(f, t.names[f][s.ID]+"_ret"), nil))
		br, err := t.branches(f, s, nil)
		if err != nil {
			return nil, err
		}
		t.extra = append(t.extra, [2]any{t.names[f][s.ID] + "_ret", yamltree.Map("description", "after action_correct_flow_slot", "always", br)})
		return yamltree.Map("description", "action "+a, "always", apply), nil
	case defaultActions[a] != "" || hasKey(defaultActions, a):
		var entry []*yaml.Node
		switch defaultActions[a] {
		case "cancel_interrupted":
			entry = append(entry, setExpr(t.ctx("ctx_cancel_interrupted"), "true"))
		case "clarify":
			entry = append(entry, setExpr(t.ctx("ctx_clarification_options"), t.ctx("ctx_names")))
		}
		br, err := t.branches(f, s, nil)
		if err != nil {
			return nil, err
		}
		return yamltree.Map("description", "action "+a, "entry", entry, "always", br), nil
	case unsupportedActions[a] != "":
		t.note(s.Pos, "action %s %s; the import does nothing in its place", a, unsupportedActions[a])
		br, err := t.branches(f, s, nil)
		if err != nil {
			return nil, err
		}
		return yamltree.Map("description", "action "+a+" (not simulated)", "always", br), nil
	}
	// A custom action: an external action the scenarios stub.
	if !t.p.Actions[a] && !f.Default {
		t.note(s.Pos, "action %s is not listed under actions: in the domain; it is imported as a custom action", a)
	}
	t.invoked[a] = true
	var pre []*yaml.Node
	if st := t.p.Stubs[a]; st != nil {
		pre = append(pre, t.stubSays(st)...)
	}
	br, err := t.branches(f, s, pre)
	if err != nil {
		return nil, err
	}
	on := yamltree.Map("done:"+a, br)
	if ie := t.pattern("pattern_internal_error"); ie != nil {
		// The flow (or pattern) whose action failed ends before
		// pattern_internal_error runs: resuming it would run the action
		// again, and fail again, in the same turn.
		yamltree.Add(on, "failed:"+a, yamltree.Seq(trans("", "session."+ie.ID, append(t.endActions(f), setExpr(t.ctx("ctx_reason"), `""`), yamltree.Map("push", ie.ID)))))
	}
	return yamltree.Map("description", "custom action "+a, "entry", yamltree.Seq(yamltree.Map("invoke", a)), "on", on), nil
}

// resetOnly is "true" when every collect step of slot asks before
// filling: Rasa then resets the flow to the question instead of taking
// the corrected value (CorrectSlotsCommand's is_reset_only).
func (t *translator) resetOnly(slot string) string {
	n := 0
	for _, f := range t.p.Flows {
		for _, s := range f.Steps {
			if s.Kind == "collect" && s.Arg == slot {
				if !s.AskBefore {
					return "false"
				}
				n++
			}
		}
	}
	if n == 0 {
		return "false"
	}
	return "true"
}

// answerBeneath are the transitions of pattern_continue_interrupted's
// question for a message that answers the interrupted flow's question
// instead (the demo's "ah, great, I owe him $500" while asked whether to
// continue the transfer): the pattern ends, the slot is set, and the flow
// goes on from where it was interrupted.
func (t *translator) answerBeneath(f *Flow) []*yaml.Node {
	var out []*yaml.Node
	for _, x := range t.users {
		if !t.resume[x.ID] {
			continue
		}
		seen := map[string]bool{}
		for _, s := range collectSlots(x) {
			if seen[s] {
				continue
			}
			seen[s] = true
			sl := t.p.Slot(s)
			v := slotVar(s)
			g := `event.entities.` + v + ` != "" and ` + atSlot(x) + ` != ""`
			if c, _ := t.valueCheck(sl, "event.entities."+v); c != "" {
				g += " and " + c
			}
			out = append(out, trans(g, t.path(x, "resume"), append(t.endActions(f), setExpr(t.use(s), typed(sl, "event.entities."+v)))))
		}
	}
	return out
}

// startNext starts the flow a message started second (ctx_next_flow),
// once the first has ended.
func (t *translator) startNext() *yaml.Node {
	var always []*yaml.Node
	for _, g := range t.users {
		if !startable(g) {
			continue
		}
		acts := actions(setExpr(t.ctx("ctx_next_flow"), `""`), yamltree.Map("ask", "none"), yamltree.Map("push", g.ID))
		if t.resume[g.ID] {
			acts = append(acts, setExpr(atSlot(g), `"started"`))
		}
		always = append(always, trans(`ctx_next_flow == "`+g.ID+`"`, t.startFlow(g), acts))
	}
	always = append(always, trans("", "session.idle", actions(setExpr(t.ctx("ctx_next_flow"), `""`))))
	return yamltree.Map("description", "a second flow the last message started runs now", "always", yamltree.Seq(always...))
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// commands are the session's transitions for Rasa's commands other than
// set_slot and correct_slot, which collect steps handle.
func (t *translator) commands() (*yaml.Node, error) {
	on := yamltree.Map()
	var start []*yaml.Node
	for _, g := range t.users {
		guard := `event.entities.flow == "` + g.ID + `" and flow != "` + g.ID + `"`
		if t.resume[g.ID] {
			// A flow is on the stack once: its return point is set from
			// its start to its end.
			guard += ` and ` + atSlot(g) + ` == ""`
		}
		if g.Guard != "" {
			c, err := t.cond(g.Guard, g.GuardPos)
			if err != nil {
				return nil, err
			}
			guard += " and " + c
		}
		var mark *yaml.Node
		if t.resume[g.ID] {
			mark = setExpr(atSlot(g), `"started"`)
		}
		later := setExpr(t.ctx("ctx_next_flow"), "event.entities.next_flow")
		start = append(start,
			trans(guard+` and flow startsWith "pattern_"`, t.startFlow(g), actions(yamltree.Map("ask", "none"), yamltree.Str("pop"), yamltree.Map("push", g.ID), mark, later)),
			trans(guard, t.startFlow(g), actions(yamltree.Map("ask", "none"), yamltree.Map("push", g.ID), mark, later)))
	}
	yamltree.Add(on, "start_flow", start)
	if pc := t.pattern("pattern_cancel_flow"); pc != nil {
		var cancel []*yaml.Node
		// A called flow is cancelled with its callers: Rasa cancels the
		// top user flow that is not called, and every frame above it.
		for _, ch := range t.callChains() {
			guard := `flow == "` + ch[0].ID + `"`
			var acts []*yaml.Node
			for i, y := range ch {
				if i > 0 {
					guard += ` and ` + atSlot(y) + ` == "` + t.retOf(y, ch[i-1]) + `"`
				}
				acts = append(acts, t.endActions(y)...)
			}
			top := ch[len(ch)-1]
			cancel = append(cancel, trans(guard, "session."+pc.ID,
				append(actions(setExpr(t.ctx("ctx_canceled_name"), strconv.Quote(top.Name)), setExpr(t.ctx("ctx_next_flow"), "event.entities.next_flow")),
					append(acts, yamltree.Map("push", pc.ID))...)))
		}
		for _, x := range t.users {
			cancel = append(cancel, trans(`flow == "`+x.ID+`"`, "session."+pc.ID,
				append(actions(setExpr(t.ctx("ctx_canceled_name"), strconv.Quote(x.Name)), setExpr(t.ctx("ctx_next_flow"), "event.entities.next_flow")),
					append(t.endActions(x), yamltree.Map("push", pc.ID))...)))
		}
		// A cancellation while a pattern asks (a correction waiting for
		// its confirmation) ends the pattern and the flow beneath it: the
		// first flow with a return point set.
		for _, x := range t.users {
			if !t.resume[x.ID] {
				continue
			}
			acts := actions(setExpr(t.ctx("ctx_canceled_name"), strconv.Quote(x.Name)), yamltree.Map("ask", "none"), yamltree.Str("pop"))
			acts = append(acts, t.endActions(x)...)
			cancel = append(cancel, trans(`flow startsWith "pattern_" and flow != "`+pc.ID+`" and `+atSlot(x)+` != ""`, "session."+pc.ID,
				append(acts, yamltree.Map("push", pc.ID))))
		}
		yamltree.Add(on, "cancel_flow", cancel)
	}
	for _, c := range []string{"clarify", "chitchat", "human_handoff", "cannot_handle", "search", "skip_question", "error"} {
		pt := t.pattern(commandPatterns[c])
		if pt == nil {
			continue
		}
		// The question of the flow beneath is asked again when the
		// pattern ends; meanwhile nothing waits for its answer.
		acts := actions(yamltree.Map("ask", "none"), yamltree.Map("push", pt.ID))
		switch c {
		case "clarify":
			acts = append(actions(setExpr(t.ctx("ctx_names"), "event.entities.flow")), acts...)
		case "error":
			// The command generator's own error (a message too long or
			// empty): context.error_type names it.
			acts = append(actions(setExpr(t.ctx("ctx_reason"), "event.entities.error_type")), acts...)
		}
		yamltree.Add(on, c, yamltree.Seq(trans(`not (flow startsWith "pattern_")`, "session."+pt.ID, acts)))
	}
	return on, nil
}

// typed is text expression x as a value of the slot's type (a set of a
// number or bool slot needs that type).
func typed(sl *Slot, x string) string {
	switch sl.Type {
	case "float":
		return "number(" + x + ")"
	case "bool":
		return "lower(trim(" + x + `)) in ["true", "yes"]`
	}
	return x
}

// stubParam is the machine parameter choosing the custom actions' stubs.
const stubParam = "rasa_stubs"

// stubFor is the stub test tc runs action a with: its own
// (test_case::action), else its file's, else the first file-wide stub of
// the project (the best stand-in for the action server the test ran
// against).
func (p *Project) stubFor(tc *TestCase, a string) *Stub {
	var file *Stub
	for _, st := range p.AllStubs {
		if st.Action != a || st.File != tc.File {
			continue
		}
		if st.Test == tc.Name {
			return st
		}
		if st.Test == "" && file == nil {
			file = st
		}
	}
	if file != nil {
		return file
	}
	return p.Stubs[a]
}

// stubVariants gives each test whose stubs differ from the project-wide
// ones a variant of the machine (named after the first such test), so
// every scenario runs with its own test's stubs.
func (t *translator) stubVariants(actions []string) {
	t.variantOf = map[*TestCase]string{}
	t.variantStubs = map[string]map[string]*Stub{}
	t.variantFixtures = map[string][]SlotValue{}
	bySig := map[string]string{}
	for _, tc := range t.p.Tests {
		var sig []string
		chosen := map[string]*Stub{}
		for _, a := range actions {
			if st := t.p.stubFor(tc, a); st != t.p.Stubs[a] {
				sig = append(sig, a+"@"+st.Pos.String())
				chosen[a] = st
			}
		}
		// A test's fixtures set slots before it starts: its variant
		// does so too.
		var fixed []SlotValue
		for _, fx := range tc.Fixtures {
			switch {
			case routerSlots[fx.Slot]:
				t.note(fx.Pos, "test case %s: fixture slot %s is not kept: it is the slot of Rasa's router, which the import does not simulate", tc.Name, fx.Slot)
			case t.p.Slot(fx.Slot) == nil:
				t.note(fx.Pos, "test case %s: fixture slot %s is not in the domain; not kept", tc.Name, fx.Slot)
			default:
				fixed = append(fixed, fx)
				sig = append(sig, "fixture "+fx.Slot+"@"+fx.Pos.String())
			}
		}
		if len(sig) == 0 {
			continue
		}
		key := strings.Join(sig, ";")
		name, ok := bySig[key]
		if !ok {
			prefix := "stubs_"
			if len(chosen) == 0 {
				prefix = "fixtures_"
			}
			name = prefix + strings.Trim(nameRe.ReplaceAllString(strings.ToLower(tc.Name), "_"), "_")
			for t.variantStubs[name] != nil {
				name += "_"
			}
			bySig[key] = name
			t.variants = append(t.variants, name)
			t.variantStubs[name] = chosen
			t.variantFixtures[name] = fixed
		}
		t.variantOf[tc] = name
	}
}

// fixtureSets are the session's transitions setting each variant's
// fixture slots once, when the conversation starts (before its first
// turn, as Rasa's e2e runner sets them before the first message).
func (t *translator) fixtureSets() ([]*yaml.Node, error) {
	var out []*yaml.Node
	for _, v := range t.variants {
		fixed := t.variantFixtures[v]
		if len(fixed) == 0 {
			continue
		}
		acts := actions(setExpr(t.ctx("ctx_fixtures_set"), "true"))
		for _, fx := range fixed {
			a, err := t.setSlot(fx)
			if err != nil {
				return nil, err
			}
			acts = append(acts, a)
		}
		out = append(out, trans(stubParam+` == "`+v+`" and not ctx_fixtures_set`, "session.idle", acts))
	}
	return out, nil
}

// stubOutputs are action a's outputs: each slot a stub sets, with the
// value of the variant's stub (a slot a stub does not set keeps its value).
func (t *translator) stubOutputs(a string) (*yaml.Node, error) {
	var order []string
	vals := map[string]map[string]string{} // slot -> variant ("" for the project-wide stub) -> expression
	addStub := func(v string, st *Stub) error {
		if st == nil {
			return nil
		}
		for _, sv := range st.Slots {
			e, err := t.literal(t.p.Slot(sv.Slot), sv.Value, sv.Pos)
			if err != nil {
				return err
			}
			if e == "" {
				continue
			}
			if vals[sv.Slot] == nil {
				vals[sv.Slot] = map[string]string{}
				order = append(order, sv.Slot)
			}
			vals[sv.Slot][v] = e
		}
		for _, x := range st.Exprs {
			if vals[x[0]] == nil {
				vals[x[0]] = map[string]string{}
				order = append(order, x[0])
			}
			vals[x[0]][v] = x[1]
		}
		return nil
	}
	if err := addStub("", t.p.Stubs[a]); err != nil {
		return nil, err
	}
	for _, v := range t.variants {
		if st := t.variantStubs[v][a]; st != nil {
			if err := addStub(v, st); err != nil {
				return nil, err
			}
		}
	}
	outs := yamltree.Map()
	for _, sl := range order {
		v := t.use(sl)
		expr, ok := vals[sl][""]
		if !ok {
			expr = v
		}
		for i := len(t.variants) - 1; i >= 0; i-- {
			name := t.variants[i]
			st := t.variantStubs[name][a]
			if st == nil {
				continue
			}
			e, ok := vals[sl][name]
			if !ok {
				e = v
			}
			expr = stubParam + ` == "` + name + `" ? ` + e + ` : (` + expr + `)`
		}
		yamltree.Add(outs, v, expr)
	}
	return outs, nil
}

// takeSlots are the slots flow f and the flows it calls collect, in step
// order, once each.
func (t *translator) takeSlots(f *Flow) []string {
	var out []string
	seen := map[string]bool{}
	visited := map[*Flow]bool{}
	var walk func(f *Flow)
	walk = func(f *Flow) {
		if f == nil || visited[f] {
			return
		}
		visited[f] = true
		for _, s := range f.Steps {
			switch s.Kind {
			case "collect":
				if !seen[s.Arg] {
					seen[s.Arg] = true
					out = append(out, s.Arg)
				}
			case "call":
				walk(t.p.Flow(s.Arg))
			}
		}
	}
	walk(f)
	return out
}

// stubSays are what a stub says: its responses by name, then its texts.
func (t *translator) stubSays(st *Stub) []*yaml.Node {
	var out []*yaml.Node
	for _, r := range st.Said {
		out = append(out, t.say(r))
	}
	for _, r := range st.Responses {
		out = append(out, yamltree.Map("say", strings.NewReplacer("{", "{{", "}", "}}").Replace(r)))
	}
	return out
}

// deriveStubs gives a test a stub of each custom action it asserts was
// executed (action_executed) and its file does not stub: the slots the
// same turn shows set, other than those the turn's own message carries,
// are what the action did in this test.
func (t *translator) deriveStubs() {
	for _, tc := range t.p.Tests {
		turns := t.turns(tc)
		cmds := t.infer(tc, turns)
		done := map[string]bool{}
		for i, tu := range turns {
			for _, ex := range tu.executed {
				a := ex.Text
				if done[a] || !t.invoked[a] || t.p.Code[a] != nil {
					continue // the action's own code says what it does
				}
				if st := t.p.stubFor(tc, a); st != nil && st.File == tc.File {
					continue
				}
				st := &Stub{Action: a, File: tc.File, Test: tc.Name, Pos: ex.Pos}
				for _, sv := range tu.slots {
					sl := t.p.Slot(sv.Slot)
					if sl == nil || routerSlots[sv.Slot] || sv.Value == nil {
						continue
					}
					if v, ok := valueText(sl, sv.Value); ok && cmds[i].gives(sv.Slot, v) {
						continue
					}
					st.Slots = append(st.Slots, SlotValue{Slot: sv.Slot, Value: sv.Value, Pos: sv.Pos})
				}
				if len(st.Slots) == 0 {
					continue
				}
				done[a] = true
				t.p.AllStubs = append(t.p.AllStubs, st)
				t.note(ex.Pos, "test case %s: %s is stubbed for this test from the slots the turn shows it set", tc.Name, a)
			}
		}
		t.deriveThresholds(tc, turns, cmds)
	}
}

// deriveThresholds stubs, for one test, a custom action whose flow
// branches on a bool slot right after it, when the test runs it with
// both results (the responses of the branches show which) at different
// values of a number slot the flow collected before it: the demo's
// check_transfer_funds refuses 5000 and accepts 3000, comparing the
// amount with a balance the import cannot see. The stub accepts a number
// below the smallest value refused (above the largest, when larger
// values are the accepted ones): what the test shows, and nothing more.
// A test that shows one result, of an action no test stubs, gets that
// result as its stub.
func (t *translator) deriveThresholds(tc *TestCase, turns []*turn, cmds []*command) {
	for _, f := range t.users {
		for k, s := range f.Steps {
			if s.Kind != "action" || !t.invoked[s.Arg] || t.p.Code[s.Arg] != nil || len(s.Next) < 2 {
				continue
			}
			if st := t.p.stubFor(tc, s.Arg); st != nil && st.File == tc.File {
				continue
			}
			b := s.Next[0]
			m := boolCondRe.FindStringSubmatch(strings.TrimSpace(b.Cond))
			first := branchStep(f, b)
			if m == nil || first == nil || first.Kind != "action" || t.p.Slot(m[2]) == nil || t.p.Slot(m[2]).Type != "bool" {
				continue
			}
			var num string
			for _, c := range f.Steps[:k] {
				if sl := t.p.Slot(c.Arg); c.Kind == "collect" && sl != nil && (sl.Type == "float" || sl.numeric) {
					num = c.Arg
				}
			}
			// The number slot's value as the turns give it, and the
			// action's result in the turns whose responses show a branch.
			var yes, no []float64
			var noText []string
			results := map[bool]bool{}
			cur := ""
			for i, tu := range turns {
				for _, kv := range cmds[i].sets {
					if kv[0] == num {
						cur = kv[1]
					}
				}
				if cmds[i].slot == num && cmds[i].hasValue {
					cur = cmds[i].value
				}
				took := contains(tu.says, first.Arg)
				if !took && !t.reaches(f, s, tu.says) {
					continue
				}
				// The branch's condition held: the slot is false for
				// "not slots.x", true for "slots.x".
				results[took == (m[1] == "")] = true
				x, err := strconv.ParseFloat(cur, 64)
				if num == "" || err != nil {
					continue
				}
				if took == (m[1] == "") {
					yes = append(yes, x)
				} else {
					no = append(no, x)
					noText = append(noText, cur)
				}
				cur = ""
			}
			if len(results) == 1 && t.p.Stubs[s.Arg] == nil {
				// One result, and no stub anywhere else to stand in: the
				// result the test shows.
				v := strconv.FormatBool(results[true])
				t.p.AllStubs = append(t.p.AllStubs, &Stub{Action: s.Arg, File: tc.File, Test: tc.Name, Exprs: [][2]string{{m[2], v}}, Pos: tc.Pos})
				t.note(tc.Pos, "test case %s: %s is stubbed for this test as %s = %s, from the branch its turns show it took", tc.Name, s.Arg, m[2], v)
				continue
			}
			if len(yes) == 0 || len(no) == 0 {
				continue
			}
			// The action accepts below the smallest value refused (or
			// above the largest), so that it refuses no more than the
			// test shows.
			bound, cmp := slices.Min(no), "<"
			if slices.Max(yes) >= bound {
				bound, cmp = slices.Max(no), ">"
				if slices.Min(yes) <= bound {
					continue
				}
			}
			if t.refused == nil {
				t.refused = map[[2]string]bool{}
			}
			for _, v := range noText {
				t.refused[[2]string{num, v}] = true
			}
			n := t.use(num)
			expr := "filled(" + n + ") and number(" + n + ") " + cmp + " " + strconv.FormatFloat(bound, 'f', -1, 64)
			t.p.AllStubs = append(t.p.AllStubs, &Stub{Action: s.Arg, File: tc.File, Test: tc.Name, Exprs: [][2]string{{m[2], expr}}, Pos: tc.Pos})
			t.note(tc.Pos, "test case %s: %s is stubbed for this test as %s = %s, from the branches its turns show it took", tc.Name, s.Arg, m[2], expr)
		}
	}
}

// branchStep is the first step of branch b of flow f: its first inline
// step, or the step its target names.
func branchStep(f *Flow, b Branch) *Step {
	if len(b.Steps) > 0 {
		return b.Steps[0]
	}
	for _, s := range f.Steps {
		if s.ID == b.Target {
			return s
		}
	}
	return nil
}

// boolCondRe is a branch condition on one bool slot: slots.x or not slots.x.
var boolCondRe = regexp.MustCompile(`^(not\s+)?slots\.([A-Za-z_][A-Za-z0-9_]*)$`)

// reaches tells whether the turn's responses show flow f going on past
// step s without its first branch: a question or response of a later
// step.
func (t *translator) reaches(f *Flow, s *Step, says []string) bool {
	after := false
	for _, x := range f.Steps {
		if x == s {
			after = true
			continue
		}
		if !after {
			continue
		}
		if u := stepSays(x); u != "" && contains(says, u) {
			return true
		}
	}
	return false
}

// carried is the condition that a command carries entity x beside it (a
// start or a correction carrying a slot). It is written not (x == ""):
// the simulated user reads a guard x != "" as a question answered with
// x's texts, and a cooperative user does not answer a question with a
// correction or a start of the flow that asks it.
func carried(x string) string { return "not (" + x + ` == "")` }
