package scxml

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
)

// Definition compiles the loaded chart onto the engine: an
// engine.Definition whose states, transitions and executable content are
// the chart's, with its data model: ECMAScript (returned too), or, for
// datamodel="null", Null (the ECMAScript returned is then unused;
// engine.Machine.NewData makes either's data). The chart's events are
// the machine's intents. It is the SCXML loader's path onto the one
// interpreter (issue #25); what the engine cannot run yet is an error
// naming the element.
func (m *Machine) Definition() (*engine.Definition, *ECMAScript, error) {
	c := &compiler{ch: m.Chart, dm: NewECMAScript(), names: map[string]bool{}, namePos: map[string]Pos{}, ids: map[string]bool{}}
	d, err := c.definition()
	if err != nil {
		return nil, nil, err
	}
	if m.Chart.Datamodel == "null" {
		n := &Null{paths: map[string]string{}}
		for i := 1; i < len(m.Chart.States); i++ {
			n.paths[m.Chart.States[i].ID] = c.paths[i]
		}
		d.DataModel = n
	}
	return d, c.dm, nil
}

type compiler struct {
	ch    *Chart
	dm    *ECMAScript
	paths []string
	// synthetic are the transient states of <initial> transitions the
	// engine's initial children cannot express (see initial).
	synthetic []engine.StateDef
	names     map[string]bool // the alphabet: every event name the chart names
	namePos   map[string]Pos  // where the chart first names it
	ids       map[string]bool // every sendid
	err       error
}

func (c *compiler) fail(pos Pos, format string, args ...any) {
	if c.err == nil {
		c.err = &Error{Pos: pos, Msg: fmt.Sprintf(format, args...) + " (not supported on the engine yet)", Unsupported: true}
	}
}

func epos(p Pos) engine.Pos { return engine.Pos(p) }

func (c *compiler) src(x Expr) string {
	if x == NoExpr {
		return ""
	}
	return c.ch.Exprs[x].Src
}

func (c *compiler) expr(x Expr) engine.Expr {
	if x == NoExpr {
		return engine.Expr{}
	}
	return engine.Expr{Src: c.ch.Exprs[x].Src, Pos: epos(c.ch.Exprs[x].Pos)}
}

// name makes an SCXML id an engine state name (letters, digits,
// underscores), keeping it when it is one.
func name(id string, i int) string {
	ok := id != ""
	for j, r := range id {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || j > 0 && r >= '0' && r <= '9') {
			ok = false
		}
	}
	if ok {
		return id
	}
	return "s_" + strconv.Itoa(i)
}

// statePaths gives each state of the chart its engine path (index 0, the
// document, has none).
func statePaths(ch *Chart) []string {
	paths := make([]string, len(ch.States))
	for i := 1; i < len(ch.States); i++ {
		st := &ch.States[i]
		n := name(st.ID, i)
		if st.Parent > 0 {
			paths[i] = paths[st.Parent] + "." + n
		} else {
			paths[i] = n
		}
	}
	return paths
}

// OtherEvent is the intent of the events a chart names nowhere, not even
// by a prefix: only its "*" transitions take them (a chart without one
// has no such intent).
const OtherEvent = "__simctl_other"

// ErrUnhandled is Machine.Event's answer for an event no transition of
// the chart can take: delivering it would change nothing.
var ErrUnhandled = errors.New("no transition of the chart takes this event")

// otherName is the key under which an OtherEvent a chart sends holds its
// name, beside its data.
const otherName = "__simctl_event"

// Event is the external event name at virtual time at, for mach (built
// from m.Definition). A name the chart does not know is delivered as the
// longest one it knows that is a prefix of it by whole dot-separated
// parts (its column holds every transition whose descriptors match the
// name: a descriptor longer than that prefix would be a known name
// too), or as OtherEvent; the event's Text then holds the name, which
// _event.name gives.
func (m *Machine) Event(mach *engine.Machine, name string, at int64) (engine.Event, error) {
	ev := engine.Event{Kind: engine.UserEvent, At: at, Confidence: 1, Timer: engine.NoID, Ext: engine.NoID}
	id, exact, ok := EventIntent(mach, name)
	if !ok {
		ev.Text = name
		return ev, ErrUnhandled
	}
	if !exact {
		ev.Text = name
	}
	ev.Intent = id
	return ev, nil
}

// EventIntent returns the intent of mach (a chart compiled onto the
// engine) that delivers the event name, as Machine.Event does: its own
// (exact), or the longest name the chart knows that prefixes it by whole
// dot-separated parts ("DIGIT" takes DIGIT.5), or OtherEvent; ok is false
// when no transition takes it.
func EventIntent(mach *engine.Machine, name string) (id engine.IntentID, exact, ok bool) {
	if name != OtherEvent {
		if id, ok := mach.IntentID(name); ok {
			return id, true, true
		}
		for p := name; ; {
			i := strings.LastIndexByte(p, '.')
			if i < 0 {
				break
			}
			p = p[:i]
			if id, ok := mach.IntentID(p); ok {
				return id, false, true
			}
		}
	}
	id, ok = mach.IntentID(OtherEvent)
	return id, false, ok
}

// Active returns the ids the document gives the atomic states active in
// c, a configuration of mach (built from m.Definition), in document
// order: the recommendation's configuration as a test script states it.
func (m *Machine) Active(mach *engine.Machine, c *engine.Config) []string {
	var out []string
	for i, p := range statePaths(m.Chart) {
		if i == 0 {
			continue
		}
		if s, ok := mach.StateID(p); ok && mach.IsLeaf(s) && mach.IsActive(c, s) {
			out = append(out, m.Chart.States[i].ID)
		}
	}
	return out
}

func (c *compiler) definition() (*engine.Definition, error) {
	ch := c.ch
	d := &engine.Definition{Name: ch.Name, DataModel: c.dm, MaxChain: engine.MaxChainLimit}
	c.paths = statePaths(ch)
	at := make([]int, len(ch.States)) // chart state index -> d.States index
	for _, e := range []string{"error.execution", "error.communication", "error.platform"} {
		c.names[e] = true
	}
	c.scan()
	for i := 1; i < len(ch.States); i++ {
		st := &ch.States[i]
		if c.ch.States[i].Kind == HistoryShallow || c.ch.States[i].Kind == HistoryDeep {
			// Not a state of the engine: a transition to it resumes its
			// parent (see transition).
			continue
		}
		sd := engine.StateDef{Name: name(st.ID, i), Pos: epos(st.Pos), Final: st.Kind == Final,
			Parallel: st.Kind == Parallel, Waits: true}
		if st.Parent > 0 {
			sd.Parent = c.paths[st.Parent]
		}
		if st.Kind == Compound {
			sd.Initial = c.initial(i)
		}
		sd.Entry, sd.Exit = c.blocks(st.OnEntry), c.blocks(st.OnExit)
		if dd := st.DoneData; dd != nil {
			sd.DoneData = c.data(st.Pos, dd.Params, dd.Content, dd.ContentStr)
		}
		for _, t := range st.Trans {
			td, always := c.transition(t)
			if always {
				sd.Always = append(sd.Always, td)
			} else {
				sd.On = append(sd.On, td)
			}
		}
		at[i] = len(d.States)
		d.States = append(d.States, sd)
	}
	d.Initial = c.initial(0)
	d.States = append(d.States, c.synthetic...)
	// The document's data (every state's, when bound early) and script
	// run before anything else: as scripts of the initial state's first
	// entry actions.
	c.prelude(d, at)
	names := make([]string, 0, len(c.names))
	for n := range c.names {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		d.Intents = append(d.Intents, engine.NameDef{Name: n, Pos: epos(c.namePos[n])})
	}
	return d, c.err
}

// name adds event n to the alphabet, named at pos (the first place is
// kept, for an error about the name).
func (c *compiler) name(n string, pos Pos) {
	c.names[n] = true
	if _, ok := c.namePos[n]; !ok {
		c.namePos[n] = pos
	}
}

// prelude declares the document's <data> and runs its <script> as the
// machine starts (Definition.StartActions). Bound late, a state's <data>
// is declared there and assigned when the state is first entered.
func (c *compiler) prelude(d *engine.Definition, at []int) {
	late := c.ch.Binding == "late"
	// One script per <data>, so that one that fails (error.execution)
	// leaves its variable undefined and the others bound; each its own
	// block, as a failed one stops only its own.
	script := func(x Data, src string) engine.ActionDef {
		return engine.ActionDef{Kind: engine.ActScript, Pos: epos(x.Pos), Expr: engine.Expr{Src: src, Pos: epos(x.Pos)}}
	}
	block := func(a engine.ActionDef) engine.ActionDef {
		return engine.ActionDef{Kind: engine.ActBlock, Pos: a.Pos, Body: []engine.ActionDef{a}}
	}
	for i, data := range c.ch.Data {
		var first []engine.ActionDef
		for k, x := range data {
			if !late || i == 0 {
				// Declared apart: a value that does not compile leaves
				// the variable declared, undefined, for later assigns.
				d.StartActions = append(d.StartActions, script(x, "var "+x.ID+";"), block(script(x, x.ID+" = "+c.dataValue(x)+";")))
				continue
			}
			d.StartActions = append(d.StartActions, block(script(x, "var "+x.ID+";")))
			flag := fmt.Sprintf("__simctl_bound_%d_%d", i, k)
			first = append(first, script(x, "if (typeof "+flag+" === 'undefined') { "+flag+" = true; "+x.ID+" = "+c.dataValue(x)+"; }"))
		}
		if len(first) > 0 {
			d.States[at[i]].Entry = append(first, d.States[at[i]].Entry...)
		}
	}
	if c.ch.Script != NoExpr {
		d.StartActions = append(d.StartActions, block(engine.ActionDef{Kind: engine.ActScript, Expr: c.expr(c.ch.Script)}))
	}
}

// textValue is the value of inline content: JSON, or else the text with
// its white space normalized (the recommendation's B.2.2 and 5.6).
func textValue(text string) string {
	if t := strings.TrimSpace(text); json.Valid([]byte(t)) {
		return "JSON.parse(" + strconv.Quote(t) + ")"
	}
	return strconv.Quote(strings.Join(strings.Fields(text), " "))
}

// dataValue is the value of a <data>: its expression, its content (JSON,
// or else text), or undefined.
func (c *compiler) dataValue(x Data) string {
	switch {
	case x.Expr != NoExpr:
		return "(" + c.src(x.Expr) + ")"
	case x.Text != nil:
		return textValue(*x.Text)
	}
	return "undefined"
}

// initial names the state entering st (the document, index 0, or a
// compound state) by default enters: its initial child, or, for the
// document, the state its initial attribute names at any depth. An
// <initial> whose transition has content, several targets or a target
// deeper down becomes a transient child of its own (synthetic: none of
// the chart's states), left at once by an eventless transition with that
// content to those targets, as the recommendation's enterStates runs the
// content after st's onentry and before entering the targets.
func (c *compiler) initial(i int) string {
	st := &c.ch.States[i]
	t := st.Initial
	if t == nil || len(t.Targets) == 0 {
		c.fail(st.Pos, "a state without an initial state")
		return ""
	}
	if len(t.Targets) == 1 && len(t.Actions) == 0 {
		x := t.Targets[0]
		// A history target (<scxml initial="h">) is resumed by the
		// transient state's transition below.
		k := c.ch.States[x].Kind
		switch {
		case k == HistoryShallow || k == HistoryDeep:
		case i == 0:
			return c.paths[x]
		case c.ch.States[x].Parent == i:
			return name(c.ch.States[x].ID, x)
		}
	}
	sd := engine.StateDef{Name: "__initial_" + strconv.Itoa(i), Pos: epos(t.Pos)}
	if i > 0 {
		sd.Parent = c.paths[i]
	}
	var targets []string
	for _, x := range t.Targets {
		targets = append(targets, c.paths[x])
	}
	td := engine.TransitionDef{Pos: epos(t.Pos), Target: strings.Join(targets, " "), Actions: c.actionList(t.Actions)}
	c.history(&td, t.Targets)
	sd.Always = []engine.TransitionDef{td}
	c.synthetic = append(c.synthetic, sd)
	return sd.Name
}

func (c *compiler) transition(t *Transition) (engine.TransitionDef, bool) {
	td := engine.TransitionDef{Pos: epos(t.Pos), TargetPos: epos(t.Pos), OnPos: epos(t.Pos), TypePos: epos(t.Pos), Guard: c.expr(t.Cond), Actions: c.actionList(t.Actions)}
	var targets []string
	for _, x := range t.Targets {
		targets = append(targets, c.paths[x])
	}
	td.Target = strings.Join(targets, " ")
	c.history(&td, t.Targets)
	if t.Type == Internal && len(t.Targets) > 0 && c.ch.States[t.Source].Kind == Compound && c.inside(t.Targets, t.Source) {
		// An internal transition whose source is not a compound state,
		// or whose targets are not all proper descendants of it, is
		// external, as the recommendation's getTransitionDomain says.
		td.Type = "internal"
	}
	var on []string
	for _, e := range t.Events {
		switch {
		case e == "*":
			on = append(on, "*")
		case strings.HasPrefix(e, "done.state."):
			id := strings.TrimPrefix(e, "done.state.")
			x, ok := c.ch.Lookup(id)
			if !ok || len(t.Events) > 1 {
				c.fail(t.Pos, "event descriptor %q", e)
				continue
			}
			on = append(on, "done.state."+c.paths[x])
		default:
			c.names[e] = true
			on = append(on, e)
		}
	}
	td.On = strings.Join(on, " ")
	return td, len(t.Events) == 0
}

// history compiles a transition's targets that are history states: each
// resumes its parent and, while nothing is recorded, takes its default
// transition (for one of several targets, one without content).
func (c *compiler) history(td *engine.TransitionDef, t []int) {
	targets := strings.Fields(td.Target)
	for j, h := range t {
		st := &c.ch.States[h]
		if st.Kind != HistoryShallow && st.Kind != HistoryDeep {
			continue
		}
		kind := "shallow"
		if st.Kind == HistoryDeep {
			kind = "deep"
		}
		targets[j], td.HistoryPos = c.paths[st.Parent], td.Pos
		d := st.Initial
		if d == nil || len(d.Targets) != 1 {
			c.fail(st.Pos, "a history whose default transition has several targets")
			return
		}
		p := &c.ch.States[st.Parent]
		plain := len(d.Actions) == 0 && p.Initial != nil && len(p.Initial.Targets) == 1 && p.Initial.Targets[0] == d.Targets[0] && len(p.Initial.Actions) == 0
		if len(t) == 1 {
			td.History = kind
			if !plain {
				td.HistoryDefault, td.HistoryActions = c.paths[d.Targets[0]], c.actionList(d.Actions)
			}
			continue
		}
		if len(d.Actions) > 0 {
			c.fail(st.Pos, "a history whose default transition has content, one of several targets")
		}
		if td.Histories == nil {
			td.Histories, td.HistoryDefaults = make([]string, len(t)), make([]string, len(t))
		}
		td.Histories[j] = kind
		if !plain {
			td.HistoryDefaults[j] = c.paths[d.Targets[0]]
		}
	}
	td.Target = strings.Join(targets, " ")
}

// inside reports whether every target is a proper descendant of state s.
func (c *compiler) inside(targets []int, s int) bool {
	for _, x := range targets {
		p := c.ch.States[x].Parent
		for p >= 0 && p != s {
			p = c.ch.States[p].Parent
		}
		if x == s || p != s {
			return false
		}
	}
	return true
}

// blocks compiles a state's <onentry> (or <onexit>) elements: each is a
// block of its own, which an error stops without stopping the next.
func (c *compiler) blocks(bs [][]Action) []engine.ActionDef {
	if len(bs) == 1 {
		return c.actionList(bs[0])
	}
	var out []engine.ActionDef
	for _, b := range bs {
		out = append(out, engine.ActionDef{Kind: engine.ActBlock, Body: c.actionList(b)})
	}
	return out
}

func (c *compiler) actionList(as []Action) []engine.ActionDef {
	var out []engine.ActionDef
	for i := range as {
		if a, ok := c.action(&as[i]); ok {
			out = append(out, a)
		}
	}
	return out
}

// tagNames names action kinds as their elements, for error data.
var tagNames = [...]string{ActRaise: "raise", ActSend: "send", ActCancel: "cancel",
	ActAssign: "assign", ActScript: "script", ActLog: "log", ActIf: "if",
	ActForeach: "foreach"}

func (c *compiler) action(a *Action) (engine.ActionDef, bool) {
	ad, ok := c.action1(a)
	if ok && int(a.Kind) < len(tagNames) {
		// Where an error can be raised: the element, its expressions
		// and those it was compiled into.
		tag := tagNames[a.Kind]
		var mark func(ad *engine.ActionDef)
		mark = func(ad *engine.ActionDef) {
			for _, p := range []engine.Pos{ad.Pos, ad.Expr.Pos, ad.Data.Pos} {
				if _, ok := c.dm.tags[p]; !ok && p != (engine.Pos{}) {
					c.dm.tags[p] = tag
				}
			}
		}
		mark(&ad)
		for _, b := range ad.Branches {
			if _, ok := c.dm.tags[b.Cond.Pos]; !ok && b.Cond.Pos != (engine.Pos{}) {
				c.dm.tags[b.Cond.Pos] = tag
			}
		}
	}
	return ad, ok
}

func (c *compiler) action1(a *Action) (engine.ActionDef, bool) {
	ad := engine.ActionDef{Pos: epos(a.Pos)}
	switch a.Kind {
	case ActRaise:
		if a.EventExpr != NoExpr {
			c.fail(a.Pos, "<raise> with a computed event")
			return ad, false
		}
		c.names[a.Event] = true
		ad.Kind, ad.Name = engine.ActRaise, a.Event
	case ActSend:
		switch {
		case a.Type != "" && a.Type != SCXMLProcessor && a.Type != "scxml",
			a.Target != "" && a.Target != "#_internal" && !strings.HasPrefix(a.Target, "#_"):
			// A type or target no processor here has: the send fails
			// (error.execution) and the rest of its block is skipped.
			ad.Kind, ad.Expr = engine.ActScript, engine.Expr{Src: "throw new Error(" + strconv.Quote("send: cannot deliver to "+a.Target+a.Type) + ")", Pos: epos(a.Pos)}
			return ad, true
		case strings.HasPrefix(a.Target, "#_scxml_") || a.Target == "#_parent" || strings.HasPrefix(a.Target, "#_") && a.Target != "#_internal":
			// A session that does not exist: error.communication.
			c.names["error.communication"] = true
			ad.Kind, ad.Name = engine.ActRaise, "error.communication"
			return ad, true
		}
		return c.send(a), true
	case ActCancel:
		if a.IDExpr != NoExpr {
			// The sendids are the chart's own: the cancel is the one
			// whose id the expression gives.
			ad.Kind = engine.ActIf
			for _, id := range sortedKeys(c.ids) {
				ad.Branches = append(ad.Branches, engine.CondDef{Pos: epos(a.Pos), Cond: c.is(a.IDExpr, id),
					Actions: []engine.ActionDef{{Kind: engine.ActCancelSend, Pos: epos(a.Pos), Name: id}}})
			}
			return ad, true
		}
		ad.Kind, ad.Name = engine.ActCancelSend, a.ID
	case ActAssign:
		ad.Kind, ad.Slot, ad.Expr = engine.ActAssign, c.src(a.Location), c.expr(a.Expr)
	case ActScript:
		ad.Kind, ad.Expr = engine.ActScript, c.expr(a.Expr)
	case ActLog:
		ad.Kind, ad.Name, ad.Expr = engine.ActLog, a.Label, c.expr(a.Expr)
	case ActIf:
		ad.Kind = engine.ActIf
		for i, cond := range a.Conds {
			ad.Branches = append(ad.Branches, engine.CondDef{Pos: epos(a.Pos), Cond: c.expr(cond), Actions: c.actionList(a.Branches[i])})
		}
	case ActForeach:
		ad.Kind, ad.Expr, ad.Item, ad.Index, ad.Body = engine.ActForeach, c.expr(a.Expr), c.src(a.Location), c.src(a.Index), c.actionList(a.Body)
	case ActEscalate:
		// The reason is text: its braces are no template placeholders.
		ad.Kind, ad.Name = engine.ActEscalate, strings.NewReplacer("{", "{{", "}", "}}").Replace(a.Label)
	default:
		c.fail(a.Pos, "executable content kind %d", a.Kind)
		return ad, false
	}
	return ad, true
}

// send compiles a <send> to this session. What is computed (eventexpr,
// targetexpr, typeexpr) becomes an if over what it can be: the chart's
// event names, this session's targets, the SCXML processor's types;
// idlocation is given the send's id, which is the chart's own.
func (c *compiler) send(a *Action) engine.ActionDef {
	pos := epos(a.Pos)
	id := c.sendID(a)
	core := func(event string, internal bool) engine.ActionDef {
		ad := engine.ActionDef{Pos: pos, Kind: engine.ActSend, Name: event, ID: id, Data: c.data(a.Pos, a.Params, a.Content, a.ContentStr)}
		switch {
		case internal:
			ad.Kind = engine.ActRaise
		case a.DelayExpr != NoExpr:
			ad.Expr = engine.Expr{Src: "(function(d){var m=/^\\s*(\\d*\\.?\\d+)(ms|s)\\s*$/.exec(String(d));return m?Number(m[1])*(m[2]=='s'?1000:1):NaN})(" + c.src(a.DelayExpr) + ")", Pos: pos}
		case a.DelayMS > 0:
			ad.Expr = engine.Expr{Src: strconv.FormatInt(a.DelayMS, 10), Pos: pos}
		}
		return ad
	}
	build := func(internal bool) engine.ActionDef {
		if a.EventExpr == NoExpr {
			return core(a.Event, internal)
		}
		ad := engine.ActionDef{Pos: pos, Kind: engine.ActIf}
		for _, n := range sortedKeys(c.names) {
			if n != OtherEvent {
				ad.Branches = append(ad.Branches, engine.CondDef{Pos: pos, Cond: c.is(a.EventExpr, n), Actions: []engine.ActionDef{core(n, internal)}})
			}
		}
		if !c.names[OtherEvent] {
			return ad // a name the chart does not know reaches nothing
		}
		// A name the chart does not know: OtherEvent, which only "*"
		// takes, its name held with its data (otherName).
		other := core(OtherEvent, internal)
		data := other.Data.Src
		if data == "" {
			data = "undefined"
		}
		other.Data = engine.Expr{Src: "({" + strconv.Quote(otherName) + ": String(" + c.src(a.EventExpr) + "), data: " + data + "})", Pos: pos}
		ad.Branches = append(ad.Branches, engine.CondDef{Pos: pos, Actions: []engine.ActionDef{other}})
		return ad
	}
	fail := func(msg string) engine.ActionDef {
		return engine.ActionDef{Pos: pos, Kind: engine.ActScript, Expr: engine.Expr{Src: "throw new Error(" + strconv.Quote(msg) + ")", Pos: pos}}
	}
	var out engine.ActionDef
	if a.TargetExpr != NoExpr {
		t := "(" + c.src(a.TargetExpr) + ")"
		c.names["error.communication"] = true
		out = engine.ActionDef{Pos: pos, Kind: engine.ActIf, Branches: []engine.CondDef{
			{Pos: pos, Cond: engine.Expr{Src: t + ` === "#_internal"`, Pos: pos}, Actions: []engine.ActionDef{build(true)}},
			{Pos: pos, Cond: engine.Expr{Src: t + ` === "#_scxml_" + _sessionid`, Pos: pos}, Actions: []engine.ActionDef{build(false)}},
			{Pos: pos, Cond: engine.Expr{Src: `/^#_/.test(` + t + `)`, Pos: pos}, Actions: []engine.ActionDef{{Pos: pos, Kind: engine.ActRaise, Name: "error.communication"}}},
			{Pos: pos, Actions: []engine.ActionDef{fail("send: cannot deliver to this target")}},
		}}
	} else {
		out = build(a.Target == "#_internal")
	}
	if a.TypeExpr != NoExpr {
		out = engine.ActionDef{Pos: pos, Kind: engine.ActIf, Branches: []engine.CondDef{
			{Pos: pos, Cond: engine.Expr{Src: "[" + strconv.Quote(SCXMLProcessor) + `, "scxml"].indexOf(` + c.src(a.TypeExpr) + ") >= 0", Pos: pos}, Actions: []engine.ActionDef{out}},
			{Pos: pos, Actions: []engine.ActionDef{fail("send: no processor of this type")}},
		}}
	}
	if a.IDLocation != NoExpr {
		// Two actions in one: an if with an else alone, whose error
		// stops the enclosing block as the send's own would.
		out = engine.ActionDef{Pos: pos, Kind: engine.ActIf, Branches: []engine.CondDef{{Pos: pos, Actions: []engine.ActionDef{
			{Pos: pos, Kind: engine.ActAssign, Slot: c.src(a.IDLocation), Expr: engine.Expr{Src: strconv.Quote(id), Pos: pos}}, out}}}}
	}
	return out
}

// sendID is a send's id: its own, or, for one with idlocation, one made
// from its position.
func (c *compiler) sendID(a *Action) string {
	if a.ID == "" && a.IDLocation != NoExpr {
		return fmt.Sprintf("send_%d_%d", a.Pos.Line, a.Pos.Col)
	}
	return a.ID
}

// is is the condition that expression x has the value v.
func (c *compiler) is(x Expr, v string) engine.Expr {
	return engine.Expr{Src: "(" + c.src(x) + ") === " + strconv.Quote(v), Pos: epos(c.ch.Exprs[x].Pos)}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// scan collects, before compiling, every event name the chart names
// (raised, sent, taken by a transition; OtherEvent when a transition
// takes "*") and every sendid, so that a computed event or sendid can be
// compiled over them.
func (c *compiler) scan() {
	var acts func([]Action)
	acts = func(as []Action) {
		for i := range as {
			a := &as[i]
			switch a.Kind {
			case ActRaise, ActSend:
				if a.EventExpr == NoExpr && a.Event != "" {
					c.name(a.Event, a.Pos)
				}
				if id := c.sendID(a); a.Kind == ActSend && id != "" {
					c.ids[id] = true
				}
			case ActIf:
				for _, b := range a.Branches {
					acts(b)
				}
			case ActForeach:
				acts(a.Body)
			}
		}
	}
	for i := range c.ch.States {
		st := &c.ch.States[i]
		for _, b := range append(append([][]Action(nil), st.OnEntry...), st.OnExit...) {
			acts(b)
		}
		if st.Initial != nil {
			acts(st.Initial.Actions)
		}
		for _, t := range st.Trans {
			acts(t.Actions)
			for _, e := range t.Events {
				switch {
				case e == "*":
					c.names[OtherEvent] = true
				case !strings.HasPrefix(e, "done.state."):
					c.name(e, t.Pos)
				}
			}
		}
	}
}

// data builds the value of an event's data: an object of the params, or
// the content.
func (c *compiler) data(pos Pos, params []Param, content Expr, text *string) engine.Expr {
	switch {
	case len(params) > 0:
		var b strings.Builder
		b.WriteString("({")
		for i, p := range params {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(p.Name) + ":(" + c.src(p.Expr) + ")")
		}
		b.WriteString("})")
		return engine.Expr{Src: b.String(), Pos: epos(pos)}
	case content != NoExpr:
		return c.expr(content)
	case text != nil:
		return engine.Expr{Src: textValue(*text), Pos: epos(pos)}
	}
	return engine.Expr{}
}
