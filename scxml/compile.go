package scxml

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/statechart"
)

// Definition compiles the loaded chart onto the engine: an
// engine.Definition whose states, transitions and executable content are
// the chart's, with the ECMAScript data model (the null data model's
// In() conditions are ECMAScript too). The chart's events are the
// machine's intents. It is the SCXML loader's path onto the one
// interpreter (issue #25); what the engine cannot run yet is an error
// naming the element.
func (m *Machine) Definition() (*engine.Definition, *ECMAScript, error) {
	c := &compiler{ch: m.Chart, dm: NewECMAScript(), names: map[string]bool{}}
	d, err := c.definition()
	if err != nil {
		return nil, nil, err
	}
	return d, c.dm, nil
}

type compiler struct {
	ch    *statechart.Chart
	dm    *ECMAScript
	paths []string
	names map[string]bool // the alphabet: every event name the chart names
	err   error
}

func (c *compiler) fail(pos statechart.Pos, format string, args ...any) {
	if c.err == nil {
		c.err = &statechart.Error{Pos: pos, Msg: fmt.Sprintf(format, args...) + " (not supported on the engine yet)", Unsupported: true}
	}
}

func epos(p statechart.Pos) engine.Pos { return engine.Pos(p) }

func (c *compiler) src(x statechart.Expr) string {
	if x == statechart.NoExpr {
		return ""
	}
	return c.ch.Exprs[x].Src
}

func (c *compiler) expr(x statechart.Expr) engine.Expr {
	if x == statechart.NoExpr {
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

func (c *compiler) definition() (*engine.Definition, error) {
	ch := c.ch
	d := &engine.Definition{Name: ch.Name, DataModel: c.dm, MaxChain: engine.MaxChainLimit}
	c.paths = make([]string, len(ch.States))
	for i := 1; i < len(ch.States); i++ {
		st := &ch.States[i]
		n := name(st.ID, i)
		if st.Parent > 0 {
			c.paths[i] = c.paths[st.Parent] + "." + n
		} else {
			c.paths[i] = n
		}
	}
	for _, e := range []string{"error.execution", "error.communication", "error.platform"} {
		c.names[e] = true
	}
	for i := 1; i < len(ch.States); i++ {
		st := &ch.States[i]
		if st.Kind == statechart.HistoryShallow || st.Kind == statechart.HistoryDeep {
			c.fail(st.Pos, "<history>")
			continue
		}
		sd := engine.StateDef{Name: name(st.ID, i), Pos: epos(st.Pos), Final: st.Kind == statechart.Final,
			Parallel: st.Kind == statechart.Parallel, Waits: true}
		if st.Parent > 0 {
			sd.Parent = c.paths[st.Parent]
		}
		if st.Kind == statechart.Compound {
			sd.Initial = c.initial(st)
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
		d.States = append(d.States, sd)
	}
	d.Initial = c.initial(&ch.States[0])
	for i := range ch.Data {
		if i > 0 && len(ch.Data[i]) > 0 && ch.Binding == "late" {
			c.fail(ch.States[i].Pos, "late binding of a state's <datamodel>")
		}
	}
	// The document's data (every state's, bound early) and script run
	// before anything else: as a script of the initial state's first
	// entry action.
	d.States = c.prelude(d.States)
	names := make([]string, 0, len(c.names))
	for n := range c.names {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		d.Intents = append(d.Intents, engine.NameDef{Name: n})
	}
	return d, c.err
}

// prelude declares the document's <data> and runs its <script> on entering
// the initial state, before its own entry actions.
func (c *compiler) prelude(states []engine.StateDef) []engine.StateDef {
	var b strings.Builder
	var all []statechart.Data
	for _, data := range c.ch.Data {
		all = append(all, data...)
	}
	if len(all) == 0 && c.ch.Script == statechart.NoExpr {
		return states
	}
	// One script per <data>, so that one that fails (error.execution)
	// leaves its variable undefined and the others bound.
	var pre []engine.ActionDef
	for _, x := range all {
		b.Reset()
		b.WriteString("var " + x.ID + " = ")
		switch {
		case x.Expr != statechart.NoExpr:
			b.WriteString("(" + c.src(x.Expr) + ");")
		case x.Text != nil:
			b.WriteString("(function(s){try{return JSON.parse(s)}catch(e){return s}})(" + strconv.Quote(strings.TrimSpace(*x.Text)) + ");")
		default:
			b.WriteString("undefined;")
		}
		pre = append(pre, engine.ActionDef{Kind: engine.ActScript, Pos: epos(x.Pos), Expr: engine.Expr{Src: b.String(), Pos: epos(x.Pos)}})
	}
	if c.ch.Script != statechart.NoExpr {
		pre = append(pre, engine.ActionDef{Kind: engine.ActScript, Expr: c.expr(c.ch.Script)})
	}
	top := strings.SplitN(c.initial(&c.ch.States[0]), ".", 2)[0]
	for i := range states {
		if states[i].Parent == "" && states[i].Name == top {
			states[i].Entry = append(pre, states[i].Entry...)
		}
	}
	return states
}

// initial names a compound state's initial child; an <initial> with
// content or a deeper target is not supported yet.
func (c *compiler) initial(st *statechart.State) string {
	t := st.Initial
	if t == nil || len(t.Targets) != 1 {
		c.fail(st.Pos, "an initial transition with several targets")
		return ""
	}
	if len(t.Actions) > 0 {
		c.fail(t.Pos, "an <initial> transition with executable content")
	}
	target := t.Targets[0]
	if c.ch.States[target].Parent != indexOf(c.ch, st) {
		c.fail(t.Pos, "an initial state that is not a child")
	}
	return name(c.ch.States[target].ID, target)
}

func indexOf(ch *statechart.Chart, st *statechart.State) int {
	for i := range ch.States {
		if &ch.States[i] == st {
			return i
		}
	}
	return -1
}

func (c *compiler) transition(t *statechart.Transition) (engine.TransitionDef, bool) {
	td := engine.TransitionDef{Pos: epos(t.Pos), Guard: c.expr(t.Cond), Actions: c.actionList(t.Actions)}
	var targets []string
	for _, x := range t.Targets {
		targets = append(targets, c.paths[x])
	}
	td.Target = strings.Join(targets, " ")
	if t.Type == statechart.Internal && len(t.Targets) > 0 && c.inside(t.Targets, t.Source) {
		// An internal transition whose targets are not all proper
		// descendants of its source is external, as the recommendation's
		// getTransitionDomain says.
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
func (c *compiler) blocks(bs [][]statechart.Action) []engine.ActionDef {
	if len(bs) == 1 {
		return c.actionList(bs[0])
	}
	var out []engine.ActionDef
	for _, b := range bs {
		out = append(out, engine.ActionDef{Kind: engine.ActBlock, Body: c.actionList(b)})
	}
	return out
}

func (c *compiler) actionList(as []statechart.Action) []engine.ActionDef {
	var out []engine.ActionDef
	for i := range as {
		if a, ok := c.action(&as[i]); ok {
			out = append(out, a)
		}
	}
	return out
}

func (c *compiler) action(a *statechart.Action) (engine.ActionDef, bool) {
	ad := engine.ActionDef{Pos: epos(a.Pos)}
	switch a.Kind {
	case statechart.ActRaise:
		if a.EventExpr != statechart.NoExpr {
			c.fail(a.Pos, "<raise> with a computed event")
			return ad, false
		}
		c.names[a.Event] = true
		ad.Kind, ad.Name = engine.ActRaise, a.Event
	case statechart.ActSend:
		switch {
		case a.Type != "" && a.Type != statechart.SCXMLProcessor && a.Type != "scxml",
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
		if a.EventExpr != statechart.NoExpr || a.TargetExpr != statechart.NoExpr || a.TypeExpr != statechart.NoExpr ||
			a.IDLocation != statechart.NoExpr {
			c.fail(a.Pos, "this <send>")
			return ad, false
		}
		c.names[a.Event] = true
		ad.Kind, ad.Name, ad.ID = engine.ActSend, a.Event, a.ID
		if a.Target == "#_internal" {
			ad.Kind = engine.ActRaise
		} else if a.DelayExpr != statechart.NoExpr {
			ad.Expr = engine.Expr{Src: "(function(d){var m=/^\\s*(\\d*\\.?\\d+)(ms|s)\\s*$/.exec(String(d));return m?Number(m[1])*(m[2]=='s'?1000:1):NaN})(" + c.src(a.DelayExpr) + ")", Pos: epos(a.Pos)}
		} else if a.DelayMS > 0 {
			ad.Expr = engine.Expr{Src: strconv.FormatInt(a.DelayMS, 10), Pos: epos(a.Pos)}
		}
		ad.Data = c.data(a.Pos, a.Params, a.Content, a.ContentStr)
	case statechart.ActCancel:
		if a.IDExpr != statechart.NoExpr {
			c.fail(a.Pos, "<cancel sendidexpr>")
			return ad, false
		}
		ad.Kind, ad.Name = engine.ActCancelSend, a.ID
	case statechart.ActAssign:
		ad.Kind, ad.Slot, ad.Expr = engine.ActAssign, c.src(a.Location), c.expr(a.Expr)
	case statechart.ActScript:
		ad.Kind, ad.Expr = engine.ActScript, c.expr(a.Expr)
	case statechart.ActLog:
		ad.Kind, ad.Name, ad.Expr = engine.ActLog, a.Label, c.expr(a.Expr)
	case statechart.ActIf:
		ad.Kind = engine.ActIf
		for i, cond := range a.Conds {
			ad.Branches = append(ad.Branches, engine.CondDef{Pos: epos(a.Pos), Cond: c.expr(cond), Actions: c.actionList(a.Branches[i])})
		}
	case statechart.ActForeach:
		ad.Kind, ad.Expr, ad.Item, ad.Index, ad.Body = engine.ActForeach, c.expr(a.Expr), c.src(a.Location), c.src(a.Index), c.actionList(a.Body)
	default:
		c.fail(a.Pos, "executable content kind %d", a.Kind)
		return ad, false
	}
	return ad, true
}

// data builds the value of an event's data: an object of the params, or
// the content.
func (c *compiler) data(pos statechart.Pos, params []statechart.Param, content statechart.Expr, text *string) engine.Expr {
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
	case content != statechart.NoExpr:
		return c.expr(content)
	case text != nil:
		return engine.Expr{Src: "(function(s){try{return JSON.parse(s)}catch(e){return s}})(" + strconv.Quote(strings.TrimSpace(*text)) + ")", Pos: epos(pos)}
	}
	return engine.Expr{}
}
