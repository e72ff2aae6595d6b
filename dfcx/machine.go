package dfcx

import (
	"fmt"
	"maps"
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

// The machine: one compound state per flow, one compound state per page
// (its children are the steps of Dialogflow's page lifecycle), and a
// top-level final state for END_SESSION.
//
//	FLOW.PAGE.enter    entry fulfillment (transient)
//	FLOW.PAGE.form     the first empty required parameter is asked (transient)
//	FLOW.PAGE.ask_P    waits for parameter P
//	FLOW.PAGE.routes   the condition routes in order (transient)
//	FLOW.PAGE.wait     waits for the user
//	FLOW.PAGE.nm, ni   the no-match and no-input event handlers (transient)
//	FLOW.start         the flow's START_PAGE: routes, wait, nm, ni
//	FLOW.end_flow      END_FLOW: back to the page that started the flow
//
// Intent routes, custom events and webhook errors are transitions of the
// page's compound state, so they apply in every child, in the documented
// order: the page's routes, its route groups, the flow's routes and groups.

// reserved are names a slot cannot take (machine-format.md).
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`event waiting waiting_value prompt state flow now all next none filled empty
		all_filled remaining exhausted valid true false nil len lower upper trim number before changed pending
		deadline branch_index branch_input branch_result branches branches_done branches_failed in not and or
		matches contains startsWith endsWith abs email phone url text`) {
		reserved[w] = true
	}
}

var nonName = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// sanitize turns a display name into a simctl name.
func sanitize(s string) string {
	n := strings.Trim(nonName.ReplaceAllString(strings.TrimSpace(s), "_"), "_")
	if n == "" {
		n = "x"
	}
	if n[0] >= '0' && n[0] <= '9' {
		n = "n_" + n
	}
	return n
}

// namer hands out unique names.
type namer map[string]bool

func (nm namer) take(base string) string {
	n := base
	for i := 2; nm[n]; i++ {
		n = base + "_" + strconv.Itoa(i)
	}
	nm[n] = true
	return n
}

const (
	intentNoMatch = "no_match"
	intentNoInput = "no_input"
	intentInject  = "inject"
	endSession    = "end_session"
)

type translator struct {
	a           *Agent
	notes       []Note
	noted       map[string]bool
	slotOf      map[string]string // parameter -> slot
	slots       []string
	slotNm      namer
	intOf       map[string]string // intent display name -> simctl intent
	intents     []string
	events      map[string]string // custom event -> intent
	actions     []string
	actSet      map[string]bool
	flowOf      map[*Flow]string
	pageOf      map[*Page]string
	retOf       map[*Flow]string   // the return slot of a flow that others start
	callers     map[*Flow][]string // the page paths that start a flow
	variants    [][]string         // messages said with text variants
	usesPrev    bool
	injected    map[string]bool   // parameters test cases inject
	entNames    map[string]string // entity type ("@size", "@sys.number") -> nlu entity
	entOrder    []string
	testPhrases map[string][]string  // intent -> test case utterances matched to it
	exact       map[string][]string  // intent display name -> its exact phrases in nlu.yaml
	owner       map[string]string    // lower-cased phrase -> the intent the stub NLU gives it
	written     map[string]bool      // parameters the agent writes (forms, intents, presets, injections)
	order       []string             // parameters in the order they were first used
	gone        map[string]bool      // parameters left out (overflow)
	validator   map[string]string    // slot -> builtin validator of its system entity
	children    map[*Flow]*yaml.Node // each flow's states
	endUsed     map[*Flow]bool       // flows some route ends (END_FLOW)
	prevUsed    map[*Flow]bool       // flows some route goes back in (PREVIOUS_PAGE)
	started     map[*Flow]bool       // flows some route starts (targetFlow)
	read        map[string]bool      // parameters read somewhere
	internals   map[string]bool      // slots of the translation's own
	cur         *Page                // the page whose conditions are translated
	err         error
}

func (t *translator) note(n *node, format string, args ...any) {
	what := fmt.Sprintf(format, args...)
	key := n.pos.String() + what
	if t.noted[key] {
		return
	}
	t.noted[key] = true
	t.notes = append(t.notes, Note{Pos: n.pos, What: what})
}

func (t *translator) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

// slot returns the slot of a parameter that is read (in a condition, a
// message, a form), declaring it on first use; "" for one left out.
func (t *translator) slot(param string) string {
	t.read[param] = true
	return t.declare(param)
}

// wslot returns the slot of a parameter that is written.
func (t *translator) wslot(param string) string {
	t.written[param] = true
	return t.declare(param)
}

func (t *translator) declare(param string) string {
	if t.gone[param] {
		return ""
	}
	if s, ok := t.slotOf[param]; ok {
		return s
	}
	base := sanitize(param)
	if reserved[base] || strings.HasPrefix(base, "ret_") || base == "prev_page" || base == "cur_page" {
		base = "p_" + base
	}
	s := t.slotNm.take(base)
	t.slotOf[param] = s
	t.order = append(t.order, param)
	t.slots = append(t.slots, s)
	return s
}

// internal declares a slot of the translation's own (never a
// parameter's name: slot() prefixes those).
func (t *translator) internal(name string) string {
	s := t.slotNm.take(name)
	t.slots = append(t.slots, s)
	t.internals[s] = true
	return s
}

func (t *translator) formDone() string {
	if t.cur == nil {
		return "true"
	}
	var parts []string
	for _, fp := range t.cur.N.path("form", "parameters").arr() {
		if fp.get("required").truth() {
			parts = append(parts, "filled("+t.slot(fp.get("displayName").s())+")")
		}
	}
	if len(parts) == 0 {
		return "true"
	}
	return strings.Join(parts, " and ")
}

func (t *translator) intent(name string) string {
	if s, ok := t.intOf[name]; ok {
		return s
	}
	return ""
}

func (t *translator) event(name string) string {
	if s, ok := t.events[name]; ok {
		return s
	}
	s := t.takeIntent("ev_" + sanitize(name))
	t.events[name] = s
	return s
}

func (t *translator) takeIntent(base string) string {
	for _, x := range t.intents {
		if x == base {
			base += "_"
		}
	}
	t.intents = append(t.intents, base)
	return base
}

func (t *translator) action(webhook, tag string) string {
	n := "wh_" + sanitize(webhook)
	if tag != "" {
		n += "_" + sanitize(tag)
	}
	if !t.actSet[n] {
		t.actSet[n] = true
		t.actions = append(t.actions, n)
	}
	return n
}

// entity returns the NLU entity standing for an entity type, "" for one
// simctl reads as the whole text (@sys.any and unknown system entities).
func (t *translator) entity(et string, at *node) string {
	if n, ok := t.entNames[et]; ok {
		return n
	}
	n := ""
	if strings.HasPrefix(et, "@sys.") {
		if sysPatterns[strings.TrimPrefix(et, "@sys.")] != "" {
			n = "sys_" + sanitize(strings.TrimPrefix(et, "@sys."))
		} else if et != "@sys.any" {
			t.note(at, "system entity %s is read as any text (simctl recognises %s)", et, sysNames())
		}
	} else if e := t.a.Entities[strings.TrimPrefix(et, "@")]; e != nil && len(e.Entities) > 0 {
		n = "e_" + sanitize(e.Name)
	}
	t.entNames[et] = n
	if n != "" {
		t.entOrder = append(t.entOrder, et)
	}
	return n
}

// sysPatterns are the system entities recognised, as RE2 patterns whose
// first group is the value.
var sysPatterns = map[string]string{
	"number":          `(?:^|\s)(-?\d+(?:\.\d+)?)\b`,
	"number-integer":  `(?:^|\s)(-?\d+)\b`,
	"cardinal":        `(?:^|\s)(\d+)\b`,
	"email":           `([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,})`,
	"phone-number":    `(\+?[0-9][0-9 ()\-.]{5,}[0-9])`,
	"date":            `(?i)\b(\d{1,4}[/-]\d{1,2}[/-]\d{1,4}|today|tomorrow|yesterday|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*(?:\s+\d{4})?)\b`,
	"time":            `\b(\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2})\b`,
	"url":             `(https?://\S+)`,
	"number-sequence": `\b(\d[\d -]*\d|\d)\b`,
}

// sysValidators are simctl's builtin validators of the system entities
// that have one: a form parameter of that type declares it on its slot.
var sysValidators = map[string]string{
	"email": "email", "phone-number": "phone", "url": "url",
	"number": "number", "number-integer": "number", "cardinal": "number",
}

// sysCore are the same patterns without groups, for entity types that
// list system entities among their values (@sys.number-sequence,
// @sys.email, ...).
var sysCore = map[string]string{
	"number":          `-?\d+(?:\.\d+)?`,
	"number-integer":  `-?\d+`,
	"cardinal":        `\d+`,
	"number-sequence": `\d[\d -]*\d|\d`,
	"email":           `[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`,
	"phone-number":    `\+?[0-9][0-9 ()\-.]{5,}[0-9]`,
	"url":             `https?://\S+`,
}

func sysNames() string {
	var out []string
	for k := range sysPatterns {
		out = append(out, "@sys."+k)
	}
	sort.Strings(out)
	return strings.Join(append(out, "@sys.any"), ", ")
}

// Translate turns the agent into a suite named name.
func Translate(a *Agent, name string) (*Suite, error) {
	s, t, err := translate(a, name, nil)
	if err != nil || len(t.slots) <= maxSlots {
		return s, err
	}
	// Too many parameters for one machine: translate again without those
	// that matter least (see overflow).
	gone := t.overflow()
	if gone == nil {
		return nil, fmt.Errorf("%s: the agent uses %d parameters; a simctl machine holds at most %d slots", a.agentFile.pos, len(t.slots), maxSlots)
	}
	s, _, err = translate(a, name, gone)
	return s, err
}

// maxSlots is simctl's limit of slots per machine.
const maxSlots = engine.MaxSlots

// overflow picks the parameters to leave out when the agent has more
// than a machine's slots: first those nothing reads (their writes are
// no-ops to the conversation), then those nothing in the agent writes
// (only a webhook sets them, and the stubbed webhooks set nothing, so
// they are always empty), the last declared first. nil when that is not
// enough.
func (t *translator) overflow() map[string]bool {
	gone := map[string]bool{}
	n := len(t.slots)
	for _, pass := range []func(p string) bool{
		func(p string) bool { return !t.read[p] },
		func(p string) bool { return !t.written[p] },
	} {
		for i := len(t.order) - 1; i >= 0 && n > maxSlots; i-- {
			p := t.order[i]
			if !gone[p] && pass(p) {
				gone[p] = true
				n--
			}
		}
	}
	if n > maxSlots {
		return nil
	}
	return gone
}

func translate(a *Agent, name string, gone map[string]bool) (*Suite, *translator, error) {
	t := &translator{a: a, gone: gone, written: map[string]bool{}, validator: map[string]string{},
		children: map[*Flow]*yaml.Node{}, endUsed: map[*Flow]bool{}, prevUsed: map[*Flow]bool{}, started: map[*Flow]bool{}, noted: map[string]bool{}, slotOf: map[string]string{}, slotNm: namer{},
		intOf: map[string]string{}, events: map[string]string{}, actSet: map[string]bool{},
		flowOf: map[*Flow]string{}, pageOf: map[*Page]string{}, retOf: map[*Flow]string{},
		callers: map[*Flow][]string{}, injected: map[string]bool{}, entNames: map[string]string{}, testPhrases: map[string][]string{}, read: map[string]bool{}, internals: map[string]bool{}}
	for _, s := range []string{intentNoMatch, intentNoInput, intentInject} {
		t.intents = append(t.intents, s)
	}
	var inames []string
	for n := range a.Intents {
		inames = append(inames, n)
	}
	sort.Strings(inames)
	for _, n := range inames {
		t.intOf[n] = t.takeIntent(sanitize(n))
	}
	// Names of flows and pages.
	fnm := namer{endSession: true}
	for _, f := range a.Flows {
		t.flowOf[f] = fnm.take(sanitize(f.Name))
		pnm := namer{"start": true, "end_flow": true, "previous": true}
		for _, p := range f.Pages {
			t.pageOf[p] = t.flowOf[f] + "." + pnm.take(sanitize(p.Name))
		}
	}
	walk(a, func(f *Flow, n *node) {
		if special(n.get("targetPage").s()) == "PREVIOUS_PAGE" {
			t.usesPrev = true
		}
		if g := a.flow(n.get("targetFlow").s()); g != nil {
			t.started[g] = true
		}
		// Custom events become intents before any page is translated: a
		// page's no-match catch-all leaves every one of them to the
		// handlers, the first page that handles one included.
		if ev := n.get("event").s(); ev != "" && !strings.HasPrefix(ev, "sys.no-match") && !strings.HasPrefix(ev, "sys.no-input") && !strings.HasPrefix(ev, "webhook.error") {
			t.event(ev)
		}
	})
	if t.usesPrev {
		t.internal("prev_page")
		t.internal("cur_page")
	}
	for _, tc := range a.Tests {
		for _, turn := range tc.N.get("testCaseConversationTurns").arr() {
			if ev := turn.path("userInput", "input", "event", "event").s(); ev != "" {
				t.eventIntent(ev)
			}
			txt := turn.path("userInput", "input", "text", "text").s()
			if ti := turn.path("virtualAgentOutput", "triggeredIntent", "name").s(); ti != "" && t.intOf[ti] != "" && txt != "" {
				t.testPhrases[t.intOf[ti]] = append(t.testPhrases[t.intOf[ti]], txt)
			}
			inj := turn.path("userInput", "injectedParameters")
			for _, k := range inj.keys {
				t.injected[k] = true
				t.wslot(k)
			}
		}
	}
	t.phrases()
	var inject *yaml.Node
	states := yamltree.Map()
	for _, f := range a.Flows {
		yamltree.Add(states, t.flowOf[f][strings.LastIndex(t.flowOf[f], ".")+1:], t.flow(f))
	}
	t.flowEnds()
	yamltree.Add(states, endSession, yamltree.Map("description", "END_SESSION: the conversation is over", "final", true))
	if t.err != nil {
		return nil, nil, t.err
	}
	if len(t.injected) > 0 {
		var sets []*yaml.Node
		for _, k := range slices.Sorted(maps.Keys(t.injected)) {
			s := t.wslot(k)
			if s == "" {
				continue
			}
			sets = append(sets, yamltree.Map("set", yamltree.Map(s, fmt.Sprintf(`event.entities.%s != "" ? event.entities.%s : %s`, s, s, s))))
		}
		inject = yamltree.Map(intentInject, yamltree.Map("description", "parameters a test case injects", "actions", sets))
	}
	root := yamltree.Map("machine", sanitize(name),
		"description", "Imported from the Dialogflow CX agent "+a.Name+" by simctl import dfcx",
		"initial", t.flowOf[a.StartFlow]+".start.wait",
		"idle_states", yamltree.FlowSeq(t.flowOf[a.StartFlow]+".start"))
	yamltree.Add(root, "intents", yamltree.FlowSeq(t.intents...))
	// No input and a test case's injected parameters are not what a user
	// says to get on: escapes, as simctl's default ones (cancel, stop,
	// quit, abort), which a declared list replaces, are.
	escapes := []string{intentNoInput, intentInject}
	for _, in := range t.intents {
		l := strings.ToLower(in)
		if strings.Contains(l, "cancel") || strings.Contains(l, "stop") || strings.Contains(l, "quit") || strings.Contains(l, "abort") {
			escapes = append(escapes, in)
		}
	}
	yamltree.Add(root, "escapes", yamltree.FlowSeq(escapes...))
	if len(t.slots) > 0 {
		sl := yamltree.Map()
		for _, s := range t.slots {
			def := yamltree.Map()
			if v := t.validator[s]; v != "" {
				yamltree.Add(def, "validator", v)
			}
			yamltree.Add(sl, s, def)
		}
		root.Content = append(root.Content, yamltree.Str("slots"), sl)
	}
	yamltree.Add(root, "counters", yamltree.Map("no_match", yamltree.Map(), "no_input", yamltree.Map()))
	if len(t.actions) > 0 {
		ac := yamltree.Map()
		for _, x := range t.actions {
			yamltree.Add(ac, x, yamltree.Map())
		}
		yamltree.Add(root, "actions", ac)
	}
	yamltree.Add(root, "states", states)
	if inject != nil {
		yamltree.Add(root, "on", inject)
	}
	for _, p := range slices.Sorted(maps.Keys(gone)) {
		why := "only a webhook sets it, and the stubs set nothing"
		if !t.read[p] {
			why = "nothing reads it"
		}
		t.notes = append(t.notes, Note{Pos: a.agentFile.pos, What: fmt.Sprintf("parameter %q is not kept (%s): the agent has more parameters than the %d slots of a simctl machine", p, why, maxSlots)})
	}
	// Slots were declared while states were built: put them before states.
	s := &Suite{Files: map[string][]byte{}}
	s.Files["machine.yaml"] = yamltree.Generated(GeneratedMarker, a.Dir, root)
	scen, err := t.scenarios()
	if err != nil {
		return nil, nil, err
	}
	s.Files["nlu.yaml"] = t.nlu()
	for k, v := range scen {
		s.Files[k] = v
	}
	s.Scenarios = len(scen)
	s.Flows = len(a.Flows)
	for _, f := range a.Flows {
		s.Pages += len(f.Pages)
	}
	s.Notes = append(append([]Note{}, a.Notes...), t.notes...)
	spec.SortNotes(s.Notes)
	s.Files["import.md"] = t.report(s)
	return s, t, nil
}

// route is a route in scope on a page, with where it came from.
type route struct {
	n    *node
	flow bool // a flow-level route (or a flow's group)
}

// scopeRoutes lists the routes in scope on page p (nil: the start page),
// in the documented order: the page's routes, its groups, then the flow's
// routes and groups.
func (t *translator) scopeRoutes(f *Flow, p *Page) []route {
	var out []route
	if p != nil {
		for _, r := range p.N.get("transitionRoutes").arr() {
			out = append(out, route{n: r})
		}
		for _, g := range p.N.get("transitionRouteGroups").arr() {
			for _, r := range t.a.group(f, g.s()).get("transitionRoutes").arr() {
				out = append(out, route{n: r})
			}
		}
	}
	for _, r := range f.N.get("transitionRoutes").arr() {
		out = append(out, route{n: r, flow: true})
	}
	for _, g := range f.N.get("transitionRouteGroups").arr() {
		for _, r := range t.a.group(f, g.s()).get("transitionRoutes").arr() {
			out = append(out, route{n: r, flow: true})
		}
	}
	return out
}

// scopeHandlers lists the event handlers in scope: the form parameter's
// (if one is asked), the page's, then the flow's.
func scopeHandlers(f *Flow, p *Page, param *node) []*node {
	var out []*node
	if param != nil {
		out = append(out, param.path("fillBehavior", "repromptEventHandlers").arr()...)
	}
	if p != nil {
		out = append(out, p.N.get("eventHandlers").arr()...)
	}
	return append(out, f.N.get("eventHandlers").arr()...)
}

func (t *translator) flow(f *Flow) *yaml.Node {
	fpath := t.flowOf[f]
	children := yamltree.Map()
	yamltree.Add(children, "start", t.page(f, nil, fpath+".start"))
	for _, p := range f.Pages {
		path := t.pageOf[p]
		yamltree.Add(children, path[strings.LastIndex(path, ".")+1:], t.page(f, p, path))
	}
	t.children[f] = children
	return yamltree.Map("description", "flow "+f.Name, "initial", "start", "states", children)
}

// flowEnds adds each flow's end_flow and previous states, once every
// route of every flow was translated: the callers a flow returns to and
// the flows that use PREVIOUS_PAGE are known then.
func (t *translator) flowEnds() {
	for _, f := range t.a.Flows {
		fpath := t.flowOf[f]
		children := t.children[f]
		if t.prevUsed[f] {
			var tr []*yaml.Node
			for _, p := range f.Pages {
				tr = append(tr, yamltree.Map("guard", "prev_page == "+quote(t.pageOf[p]), "target", t.pageOf[p]))
			}
			tr = append(tr, yamltree.Map("target", fpath+".start"))
			yamltree.Add(children, "previous", yamltree.Map("description", "PREVIOUS_PAGE", "always", tr))
		}
		if !t.endUsed[f] {
			continue
		}
		var tr []*yaml.Node
		if ret := t.retOf[f]; ret != "" {
			for _, c := range t.callers[f] {
				tr = append(tr, yamltree.Map("guard", ret+" == "+quote(c), "target", c+".routes",
					"actions", yamltree.Seq(yamltree.Map("clear", ret))))
			}
		}
		tr = append(tr, yamltree.Map("target", endSession))
		yamltree.Add(children, "end_flow", yamltree.Map("description", "END_FLOW: back to the page that started the flow", "always", tr))
	}
}

// page builds the compound state of a page (p nil: the flow's start page).
func (t *translator) page(f *Flow, p *Page, path string) *yaml.Node {
	t.cur = p
	defer func() { t.cur = nil }()
	routes := t.scopeRoutes(f, p)
	desc := "START_PAGE of flow " + f.Name
	var pn *node = f.N
	if p != nil {
		desc = "page " + p.Name
		pn = p.N
	}
	if kc := pn.get("knowledgeConnectorSettings"); kc.get("enabled").truth() || len(kc.get("dataStoreConnections").arr()) > 0 {
		t.note(kc, "data store answers (knowledge connector) are not kept: a question only a data store answers gets no answer")
	}
	children := yamltree.Map()
	initial := "enter"
	var params []*node
	if p == nil && !t.started[f] {
		initial = "routes"
	}
	if p == nil && t.started[f] {
		// A flow started by an intent route: the intent that was matched
		// is matched again against the new flow's start page, as
		// Dialogflow does, before its condition routes.
		var tr []*yaml.Node
		for _, r := range routes {
			if in := t.intent(r.n.get("intent").s()); in != "" {
				if x := t.transition(f, p, path, r.n, path+".routes"); x != nil {
					guardAnd(x, "event.intent == "+quote(in))
					tr = append(tr, x)
				}
			}
		}
		tr = append(tr, yamltree.Map("target", path+".routes"))
		yamltree.Add(children, "enter", yamltree.Map("description", "the flow starts: the intent that started it is matched again", "always", tr))
	}
	if p != nil {
		for _, fp := range p.N.path("form", "parameters").arr() {
			if fp.get("redact").truth() {
				t.note(fp.get("redact"), "redact on parameter %q: kept as a plain slot (redaction hides values in logs only)", fp.get("displayName").s())
			}
			if fp.get("isList").truth() {
				t.note(fp.get("isList"), "list parameter %q: kept as one value", fp.get("displayName").s())
			}
			if fp.get("required").truth() {
				if v := sysValidators[strings.TrimPrefix(fp.get("entityType").s(), "@sys.")]; v != "" {
					if sl := t.wslot(fp.get("displayName").s()); sl != "" {
						t.validator[sl] = v
					}
				}
				t.wslot(fp.get("displayName").s())
				params = append(params, fp)
			} else {
				t.wslot(fp.get("displayName").s())
			}
		}
		entry := []*yaml.Node{yamltree.Map("reset", "no_match"), yamltree.Map("reset", "no_input")}
		if t.usesPrev {
			entry = append(entry, yamltree.Map("set", yamltree.Map("prev_page", "cur_page", "cur_page", quote(path))))
		}
		entry = append(entry, t.fulfillment(p.N.get("entryFulfillment"))...)
		yamltree.Add(children, "enter", yamltree.Map("entry", entry, "always", yamltree.Seq(yamltree.Map("target", path+".routes"))))
		var form []*yaml.Node
		for _, fp := range params {
			s := t.slot(fp.get("displayName").s())
			form = append(form, yamltree.Map("guard", "empty("+s+")", "target", path+".ask_"+s,
				"actions", t.fulfillment(fp.path("fillBehavior", "initialPromptFulfillment"))))
		}
		form = append(form, yamltree.Map("target", path+".wait"))
		yamltree.Add(children, "form", yamltree.Map("always", form))
	}
	// The intents in scope: the catch-alls below leave them to the
	// page's own transitions.
	var scopeIntents []string
	seen := map[string]bool{}
	for _, r := range routes {
		if in := t.intent(r.n.get("intent").s()); in != "" && !seen[in] {
			seen[in] = true
			scopeIntents = append(scopeIntents, in)
		}
	}
	notScope := "event.intent not in [" + strings.Join(quoteAll(append(append([]string{}, scopeIntents...), t.specialIntents()...)), ", ") + "]"
	// While a form parameter is asked, an answer that fills it wins over
	// the flow's intent routes (the agents' own test cases show an
	// airport code filling the parameter, where the same text on the
	// start page matches the flow's booking intent); the page's intent
	// routes still come first.
	var pageIntents []string
	for _, r := range routes {
		if in := t.intent(r.n.get("intent").s()); in != "" && !r.flow && !contains(pageIntents, in) {
			pageIntents = append(pageIntents, in)
		}
	}
	notPage := "event.intent not in [" + strings.Join(quoteAll(append(pageIntents, t.specialIntents()...)), ", ") + "]"
	// Dialogflow matches only the intents in scope; the stub NLU gives a
	// phrase two intents share to one of them everywhere. Where that one
	// is out of scope here, the phrase is routed as the in-scope intent
	// that also has it.
	type alias struct {
		from    string // the intent the NLU gives
		phrases []string
		r       route
	}
	var aliases []alias
	var aliasConds []string
	for _, r := range routes {
		y := r.n.get("intent").s()
		if t.intent(y) == "" {
			continue
		}
		byFrom := map[string][]string{}
		var froms []string
		for _, e := range t.exact[y] {
			x := t.owner[strings.ToLower(e)]
			if x == "" || x == t.intent(y) || seen[x] {
				continue
			}
			if byFrom[x] == nil {
				froms = append(froms, x)
			}
			byFrom[x] = append(byFrom[x], strings.ToLower(e))
		}
		for _, x := range froms {
			aliases = append(aliases, alias{x, byFrom[x], r})
			aliasConds = append(aliasConds, "(event.intent == "+quote(x)+" and lower(trim(event.text)) in ["+strings.Join(quoteAll(byFrom[x]), ", ")+"])")
		}
	}
	if len(aliasConds) > 0 {
		notScope += " and not (" + strings.Join(aliasConds, " or ") + ")"
	}
	for _, fp := range params {
		s := t.slot(fp.get("displayName").s())
		et := fp.get("entityType")
		ent := t.entity(et.s(), et)
		val := "trim(event.text)"
		if ent != "" {
			val = "event.entities." + ent
		}
		fill := []*yaml.Node{yamltree.Map("set", yamltree.Map(s, val))}
		// Other empty parameters of the form whose entity type is found
		// in the same answer are filled too, as Dialogflow fills a form.
		for _, other := range params {
			os := t.slot(other.get("displayName").s())
			oe := t.entity(other.get("entityType").s(), other.get("entityType"))
			// System entities are patterns that would take the same
			// words twice ("50%" is a number too): only entity types.
			if other == fp || oe == "" || os == "" || strings.HasPrefix(oe, "sys_") || oe == ent || countEntity(t, params, oe) > 1 {
				continue
			}
			fill = append(fill, yamltree.Map("set", yamltree.Map(os, fmt.Sprintf(`empty(%s) and event.entities.%s != "" ? event.entities.%s : %s`, os, oe, oe, os))))
		}
		// The slot is waited for while the parameter is asked: what a
		// simulated user answers, and what {waiting} names.
		ask := yamltree.Map("description", "form parameter "+fp.get("displayName").s(), "waits", true,
			"entry", yamltree.Seq(yamltree.Map("ask", s)), "exit", yamltree.Seq(yamltree.Map("ask", "none")))
		on := yamltree.Map("*", yamltree.Seq(
			yamltree.Map("guard", notPage+" and "+val+` != ""`, "target", path+".routes", "actions", fill),
			yamltree.Map("guard", notScope+" and no_match < 6", "target", path+".nm_"+s, "actions", yamltree.Seq(yamltree.Map("incr", "no_match"))),
			yamltree.Map("guard", notScope, "target", path+".nm_"+s)))
		yamltree.Add(on, intentNoInput, counted("no_input", path+".ni_"+s, ""))
		yamltree.Add(ask, "on", on)
		yamltree.Add(children, "ask_"+s, ask)
		yamltree.Add(children, "nm_"+s, t.dispatch(f, p, fp, "no-match", "no_match", path+".ask_"+s))
		yamltree.Add(children, "ni_"+s, t.dispatch(f, p, fp, "no-input", "no_input", path+".ask_"+s))
	}
	// Condition routes, in order; on the start page the flow's too, on
	// other pages only the page's (flow condition routes are in scope on
	// the start page alone).
	// The condition routes come first on entering the page and after
	// every answer; when none moves on, the form asks for its next
	// parameter (Dialogflow's page lifecycle), else the page waits.
	settle := path + ".wait"
	if p != nil {
		settle = path + ".form"
	}
	var conds []*yaml.Node
	for _, r := range routes {
		if r.n.get("intent").s() != "" || (r.flow && p != nil) {
			continue
		}
		if tr := t.transition(f, p, path, r.n, settle); tr != nil {
			conds = append(conds, tr)
		}
	}
	conds = append(conds, yamltree.Map("target", settle))
	yamltree.Add(children, "routes", yamltree.Map("always", conds))
	yamltree.Add(children, "wait", yamltree.Map("waits", true))
	yamltree.Add(children, "nm", t.dispatch(f, p, nil, "no-match", "no_match", path+".wait"))
	yamltree.Add(children, "ni", t.dispatch(f, p, nil, "no-input", "no_input", path+".wait"))
	// The page's transitions: intent routes in order, events, then the
	// catch-all that raises no-match.
	on := yamltree.Map()
	byIntent := map[string]*yaml.Node{}
	for _, r := range routes {
		in := t.intent(r.n.get("intent").s())
		if in == "" {
			continue
		}
		back := path + ".routes"
		tr := t.transition(f, p, path, r.n, back)
		if tr == nil {
			continue
		}
		if byIntent[in] == nil {
			byIntent[in] = yamltree.Seq()
			yamltree.Add(on, in, byIntent[in])
		}
		byIntent[in].Content = append(byIntent[in].Content, tr)
	}
	for _, al := range aliases {
		back := path + ".routes"
		tr := t.transition(f, p, path, al.r.n, back)
		if tr == nil {
			continue
		}
		guardAnd(tr, "lower(trim(event.text)) in ["+strings.Join(quoteAll(al.phrases), ", ")+"]")
		if byIntent[al.from] == nil {
			byIntent[al.from] = yamltree.Seq()
			yamltree.Add(on, al.from, byIntent[al.from])
		}
		byIntent[al.from].Content = append(byIntent[al.from].Content, tr)
	}
	// Custom events and webhook errors.
	evs := map[string]*yaml.Node{}
	var hooks []*yaml.Node
	for _, h := range scopeHandlers(f, p, nil) {
		ev := h.get("event").s()
		switch {
		case strings.HasPrefix(ev, "sys.no-match") || strings.HasPrefix(ev, "sys.no-input"):
			continue
		case strings.HasPrefix(ev, "webhook.error"):
			if tr := t.transition(f, p, path, h, path+".wait"); tr != nil {
				hooks = append(hooks, tr)
			}
			continue
		case strings.HasPrefix(ev, "sys."):
			t.note(h.get("event"), "event %s is not raised by the simulation; its handler is kept as the intent %s", ev, "ev_"+sanitize(ev))
		}
		in := t.event(ev)
		if evs[in] == nil {
			evs[in] = yamltree.Seq()
			yamltree.Add(on, in, evs[in])
		}
		if tr := t.transition(f, p, path, h, path+".wait"); tr != nil {
			evs[in].Content = append(evs[in].Content, tr)
		}
	}
	yamltree.Add(on, intentNoInput, counted("no_input", path+".ni", ""))
	yamltree.Add(on, "*", counted("no_match", path+".nm", notScope))
	if len(hooks) > 0 {
		yamltree.Add(on, "failed:*", yamltree.Seq(hooks...))
	}
	return yamltree.Map("description", desc, "initial", initial, "on", on, "states", children)
}

// counted is a move to a handler dispatch that counts the event on this
// page. The count stops at 6, the last numbered event
// (sys.no-match-6), so the state space stays finite.
func counted(counter, target, guard string) *yaml.Node {
	g := counter + " < 6"
	if guard != "" {
		g = guard + " and " + g
	}
	last := yamltree.Map("target", target)
	if guard != "" {
		last = yamltree.Map("guard", guard, "target", target)
	}
	return yamltree.Seq(yamltree.Map("guard", g, "target", target, "actions", yamltree.Seq(yamltree.Map("incr", counter))), last)
}

func countEntity(t *translator, params []*node, ent string) int {
	n := 0
	for _, p := range params {
		if t.entity(p.get("entityType").s(), p.get("entityType")) == ent {
			n++
		}
	}
	return n
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = quote(x)
	}
	return out
}

// specialIntents are the intents a catch-all never takes.
func (t *translator) specialIntents() []string {
	out := []string{intentNoInput, intentInject}
	for _, in := range t.intents {
		if strings.HasPrefix(in, "ev_") {
			out = append(out, in)
		}
	}
	return out
}

// dispatch is the transient state that picks the event handler of a
// no-match or no-input: Dialogflow raises sys.no-match-N (N the count on
// this page) and, when no handler in scope takes it, sys.no-match-default.
func (t *translator) dispatch(f *Flow, p *Page, param *node, kind, counter, back string) *yaml.Node {
	hs := scopeHandlers(f, p, param)
	var tr []*yaml.Node
	for n := 1; n <= 6; n++ {
		for _, h := range hs {
			if h.get("event").s() == "sys."+kind+"-"+strconv.Itoa(n) {
				if x := t.transition(f, p, t.pagePath(f, p), h, back); x != nil {
					guardAnd(x, counter+" == "+strconv.Itoa(n))
					tr = append(tr, x)
				}
			}
		}
	}
	for _, h := range hs {
		if h.get("event").s() == "sys."+kind+"-default" {
			if x := t.transition(f, p, t.pagePath(f, p), h, back); x != nil {
				tr = append(tr, x)
			}
		}
	}
	tr = append(tr, yamltree.Map("target", back))
	return yamltree.Map("description", "sys."+kind+" handlers", "always", tr)
}

func (t *translator) pagePath(f *Flow, p *Page) string {
	if p == nil {
		return t.flowOf[f] + ".start"
	}
	return t.pageOf[p]
}

func guardAnd(tr *yaml.Node, g string) {
	for i := 0; i+1 < len(tr.Content); i += 2 {
		if tr.Content[i].Value == "guard" {
			tr.Content[i+1].Value = "(" + tr.Content[i+1].Value + ") and " + g
			return
		}
	}
	tr.Content = append([]*yaml.Node{yamltree.Str("guard"), yamltree.Str(g)}, tr.Content...)
}

// transition translates a route or event handler; back is the target of
// one without a target.
func (t *translator) transition(f *Flow, p *Page, path string, r *node, back string) *yaml.Node {
	tr := yamltree.Map()
	if c := r.get("condition"); c.s() != "" && strings.TrimSpace(c.s()) != "true" {
		g, err := translateCond(c.s(), c.pos, t)
		if err != nil {
			t.fail(err)
			return nil
		}
		yamltree.Add(tr, "guard", g)
	}
	var acts []*yaml.Node
	if in := t.a.Intents[r.get("intent").s()]; in != nil {
		for _, id := range in.Order {
			s := t.wslot(id)
			ent := t.entity(in.Params[id], r.get("intent"))
			if ent == "" || s == "" {
				continue
			}
			acts = append(acts, yamltree.Map("set", yamltree.Map(s, fmt.Sprintf(`event.entities.%s != "" ? event.entities.%s : %s`, ent, ent, s))))
		}
	}
	acts = append(acts, t.fulfillment(r.get("triggerFulfillment"))...)
	target := back
	if tf := r.get("targetFlow").s(); tf != "" {
		g := t.a.flow(tf)
		ret := t.retOf[g]
		if ret == "" {
			ret = t.internal("ret_" + t.flowOf[g])
			t.retOf[g] = ret
		}
		if !contains(t.callers[g], path) {
			t.callers[g] = append(t.callers[g], path)
		}
		acts = append(acts, yamltree.Map("set", yamltree.Map(ret, quote(path))))
		target = t.flowOf[g] + ".start"
	} else if tp := r.get("targetPage").s(); tp != "" {
		switch special(tp) {
		case "END_SESSION":
			target = endSession
		case "END_FLOW":
			t.endUsed[f] = true
			target = t.flowOf[f] + ".end_flow"
		case "CURRENT_PAGE":
			target = path
		case "PREVIOUS_PAGE":
			t.prevUsed[f] = true
			target = t.flowOf[f] + ".previous"
		case "START_PAGE":
			target = t.flowOf[f] + ".start.routes"
		default:
			target = t.pageOf[f.page[tp]]
		}
	}
	yamltree.Add(tr, "target", target)
	if len(acts) > 0 {
		yamltree.Add(tr, "actions", acts)
	}
	desc := r.get("description").s()
	if desc == "" {
		switch {
		case r.get("intent").s() != "":
			desc = "intent " + r.get("intent").s()
		case r.get("event").s() != "":
			desc = "event " + r.get("event").s()
		case r.get("condition").s() != "":
			desc = "condition " + clip(r.get("condition").s())
		}
	}
	if desc != "" {
		yamltree.Add(tr, "description", desc)
	}
	return tr
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// fulfillment translates messages, parameter presets, conditional cases
// and the webhook call of a fulfillment into actions.
func (t *translator) fulfillment(fu *node) []*yaml.Node {
	if fu.absent || fu.kind != jObj {
		return nil
	}
	var acts []*yaml.Node
	var say []string
	for _, m := range fu.get("messages").arr() {
		if x := t.message(m); x != "" {
			say = append(say, x)
		}
	}
	for _, cc := range fu.get("conditionalCases").arr() {
		if x := t.cases(cc.get("cases")); x != "" {
			say = append(say, "{"+x+"}")
		}
	}
	if len(say) > 0 {
		acts = append(acts, yamltree.Map("say", strings.Join(say, "\n")))
	}
	for _, sp := range fu.get("setParameterActions").arr() {
		name := sp.get("parameter").s()
		if name == "" {
			continue
		}
		s := t.wslot(name)
		if s == "" {
			continue
		}
		v := sp.get("value")
		switch v.kind {
		case jNull:
			acts = append(acts, yamltree.Map("clear", s))
		case jStr:
			segs, err := segments(v.str, v.pos, t)
			if err != nil {
				t.fail(err)
				continue
			}
			acts = append(acts, yamltree.Map("set", yamltree.Map(s, valueExpr(segs))))
		case jNum, jBool:
			x, _ := v.scalar()
			acts = append(acts, yamltree.Map("set", yamltree.Map(s, quote(x))))
		default:
			if v.absent {
				acts = append(acts, yamltree.Map("clear", s))
			} else {
				t.note(v, "parameter %q is set to a list or an object: not kept (slots hold text)", name)
			}
		}
	}
	if wh := fu.get("webhook").s(); wh != "" {
		acts = append(acts, yamltree.Map("invoke", t.action(wh, fu.get("tag").s())))
	}
	if g := fu.get("generators"); len(g.arr()) > 0 {
		t.note(g, "generators in a fulfillment (LLM text) are not kept")
	}
	if fu.get("enableGenerativeFallback").truth() {
		t.note(fu.get("enableGenerativeFallback"), "generative fallback is not kept")
	}
	return acts
}

// message returns the say template of one response message, "" for a
// message that is not said as text.
func (t *translator) message(m *node) string {
	if lc := m.get("languageCode").s(); lc != "" && lc != t.a.Lang {
		t.note(m, "a message in language %s dropped (only %s is kept)", lc, t.a.Lang)
		return ""
	}
	vs := m.path("text", "text").arr()
	if len(vs) == 0 {
		for _, k := range m.keys {
			switch k {
			case "payload", "languageCode", "channel", "conversationSuccess", "responseType", "endInteraction":
			case "liveAgentHandoff":
				t.note(m.get(k), "a live agent handoff message: not said (the conversation goes on)")
			default:
				t.note(m.get(k), "a %s message is not said (simctl keeps text messages)", k)
			}
		}
		return ""
	}
	var texts []string
	tmpl := ""
	for i, v := range vs {
		segs, err := segments(v.s(), v.pos, t)
		if err != nil {
			t.fail(err)
			return ""
		}
		if i == 0 {
			tmpl = template(segs)
		}
		texts = append(texts, v.s())
	}
	if len(texts) > 1 {
		t.variants = append(t.variants, texts)
	}
	return tmpl
}

// cases translates conditional cases into one text expression: the first
// case whose condition holds (one without a condition always does).
func (t *translator) cases(cs *node) string {
	x := `""`
	list := cs.arr()
	for i := len(list) - 1; i >= 0; i-- {
		c := list[i]
		var parts []string
		for _, cc := range c.get("caseContent").arr() {
			if m := cc.get("message"); !m.absent {
				for _, v := range m.path("text", "text").arr()[:min(1, len(m.path("text", "text").arr()))] {
					segs, err := segments(v.s(), v.pos, t)
					if err != nil {
						t.fail(err)
						return `""`
					}
					parts = append(parts, valueExpr(segs))
				}
			}
			if ac := cc.get("additionalCases"); !ac.absent {
				if y := t.cases(ac.get("cases")); y != `""` {
					parts = append(parts, y)
				}
			}
		}
		body := `""`
		if len(parts) > 0 {
			body = "(" + strings.Join(parts, ` + "\n" + `) + ")"
		}
		cond := c.get("condition")
		if cond.s() == "" {
			x = body
			continue
		}
		g, err := translateCond(cond.s(), cond.pos, t)
		if err != nil {
			t.fail(err)
			return `""`
		}
		x = "(" + g + " ? " + body + " : " + x + ")"
	}
	if strings.Contains(x, "}") {
		t.note(cs, "conditional response holds a brace: not said")
		return ""
	}
	if x == `""` {
		return ""
	}
	return x
}
