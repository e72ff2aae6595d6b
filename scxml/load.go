// Package scxml loads a machine.scxml (W3C SCXML 1.0) into a
// Chart and compiles it with its data model: the null data
// model, or the ecmascript one on the embedded goja engine. Every element
// or attribute simctl does not implement (<invoke>, the HTTP event I/O
// processor, ...) is a load error "file:line:col: <invoke> is not
// supported", never ignored.
package scxml

import (
	"fmt"
	"sort"
	"strings"
)

// Machine is a loaded, compiled chart; NewSession starts runs of it.
type Machine struct {
	Chart   *Chart
	Program Program
	// Warnings are what the recommendation lets a document hold but that
	// can only fail when run: an expression that does not compile, a
	// <send> type no processor here has. Each raises error.execution when
	// it is evaluated; simctl lint prints them.
	Warnings []*Error
}

// Options change how a document is loaded.
type Options struct {
	// ReadFile reads a src attribute's file, relative to the document's
	// folder; nil forbids src.
	ReadFile func(name string) ([]byte, error)
}

// Load parses and compiles a document; file names it in errors.
func Load(file string, src []byte, opt Options) (*Machine, error) {
	root, _, err := parseXML(file, src)
	if err != nil {
		return nil, err
	}
	l := &loader{file: file, opt: opt, chart: &Chart{}}
	if err := l.document(root); err != nil {
		return nil, err
	}
	if err := l.chart.Build(); err != nil {
		return nil, err
	}
	if err := l.resolve(); err != nil {
		return nil, err
	}
	l.chart.Prepare()
	var comp Compiler
	if l.chart.Datamodel == "null" {
		comp = nullCompiler{}
	} else {
		comp = ecmaCompiler{}
	}
	prog, err := comp.Compile(l.chart)
	if err != nil {
		return nil, err
	}
	m := &Machine{Chart: l.chart, Program: prog, Warnings: l.warnings}
	if p, ok := prog.(*ecmaProgram); ok {
		m.Warnings = append(m.Warnings, p.warnings...)
	}
	sort.SliceStable(m.Warnings, func(i, j int) bool {
		a, b := m.Warnings[i].Pos, m.Warnings[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	return m, nil
}

// BasicHTTPProcessor is the type URI of the recommendation's Basic HTTP
// event I/O processor, which simctl does not implement.
const BasicHTTPProcessor = "http://www.w3.org/TR/scxml/#BasicHTTPEventProcessor"

type pendingTargets struct {
	t    *Transition
	ids  []string
	pos  Pos
	kind string // "transition", "initial"
}

type loader struct {
	file string

	opt      Options
	chart    *Chart
	targets  []pendingTargets
	warnings []*Error
}

func (l *loader) errf(n *node, format string, args ...any) error {
	return &Error{Pos: n.pos, Msg: fmt.Sprintf(format, args...)}
}

// unsupportedf is the error of a feature of the recommendation that
// simctl does not implement (<invoke>, XML content, the Basic HTTP
// processor): the document may be right, simctl cannot run it.
func (l *loader) unsupportedf(n *node, format string, args ...any) error {
	return &Error{Pos: n.pos, Msg: fmt.Sprintf(format, args...), Unsupported: true}
}

// attrs checks n's attributes against the allowed ones and returns them by
// name. Namespace declarations are allowed everywhere, and so are
// attributes of other namespaces, which the recommendation's schema lets
// any element carry (an editor's qt:editorversion) and simctl ignores.
func (l *loader) attrs(n *node, allowed ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, a := range n.attrs {
		if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
			continue
		}
		if a.Name.Space != "" && a.Name.Space != NS && a.Name.Space != SimctlNS {
			continue
		}
		name := a.Name.Local
		ok := false
		for _, al := range allowed {
			if al == name && a.Name.Space == "" {
				ok = true
				break
			}
		}
		if !ok {
			if unsupportedAttrs[n.name+"."+name] {
				return nil, l.unsupportedf(n, "<%s %s> is not supported", n.name, name)
			}
			return nil, l.errf(n, "<%s> has an unknown attribute %q (expected one of: %s)", n.name, name, strings.Join(allowed, ", "))
		}
		out[name] = a.Value
	}
	return out, nil
}

var unsupportedAttrs = map[string]bool{"send.hints": true, "scxml.exmode": true}

// unsupported elements are SCXML elements simctl does not run.
var unsupported = map[string]bool{"invoke": true, "finalize": true}

func (l *loader) checkNS(n *node) error {
	if n.space != NS {
		return l.errf(n, "<%s> is not an SCXML element (namespace %q, expected %q)", n.name, n.space, NS)
	}
	if unsupported[n.name] {
		return l.unsupportedf(n, "<%s> is not supported", n.name)
	}
	return nil
}

func (l *loader) expr(n *node, src string, kind ExprKind) Expr {
	l.chart.Exprs = append(l.chart.Exprs, ExprDef{Src: src, Pos: n.pos, Kind: kind})
	return Expr(len(l.chart.Exprs) - 1)
}

func (l *loader) optExpr(n *node, a map[string]string, name string, kind ExprKind) Expr {
	if v, ok := a[name]; ok {
		return l.expr(n, v, kind)
	}
	return NoExpr
}

func (l *loader) document(n *node) error {
	if n.name != "scxml" {
		return l.errf(n, "expected <scxml> as the root element, found <%s>", n.name)
	}
	if err := l.checkNS(n); err != nil {
		return err
	}
	a, err := l.attrs(n, "initial", "name", "version", "datamodel", "binding")
	if err != nil {
		return err
	}
	if v, ok := a["version"]; ok && v != "1.0" {
		return l.errf(n, "version %q: expected \"1.0\"", v)
	}
	c := l.chart
	c.Name = a["name"]
	switch dm := a["datamodel"]; dm {
	case "", "ecmascript":
		c.Datamodel = "ecmascript"
	case "null":
		c.Datamodel = "null"
	default:
		return l.unsupportedf(n, "datamodel %q is not supported (expected null or ecmascript)", dm)
	}
	switch b := a["binding"]; b {
	case "", "early":
		c.Binding = "early"
	case "late":
		c.Binding = "late"
	default:
		return l.errf(n, "binding %q: expected early or late", b)
	}
	c.Script = NoExpr
	c.States = append(c.States, State{ID: "", Pos: n.pos, Kind: Compound, Parent: -1})
	c.Data = append(c.Data, nil)
	if err := l.children(n, 0, a, true); err != nil {
		return err
	}
	return nil
}

// children reads a state's (or the root's) content.
func (l *loader) children(n *node, idx int, a map[string]string, root bool) error {
	c := l.chart
	var initialEl *node
	for _, ch := range n.children {
		if err := l.checkNS(ch); err != nil {
			return err
		}
		switch ch.name {
		case "state", "parallel", "final", "history":
			if root && ch.name == "history" {
				return l.errf(ch, "<history> must be inside a <state> or <parallel>")
			}
			if c.States[idx].Kind == Final {
				return l.errf(ch, "a <final> state has no child states")
			}
			if err := l.state(ch, idx); err != nil {
				return err
			}
		case "initial":
			if root || n.name != "state" {
				return l.errf(ch, "<initial> must be inside a <state>")
			}
			if initialEl != nil {
				return l.errf(ch, "a second <initial>")
			}
			initialEl = ch
		case "transition":
			if root || c.States[idx].Kind == Final {
				return l.errf(ch, "<transition> is not allowed in <%s>", n.name)
			}
			t, err := l.transition(ch, idx)
			if err != nil {
				return err
			}
			c.States[idx].Trans = append(c.States[idx].Trans, t)
		case "onentry", "onexit":
			if root {
				return l.errf(ch, "<%s> is not allowed in <scxml>", ch.name)
			}
			if _, err := l.attrs(ch); err != nil {
				return err
			}
			block, err := l.block(ch.children)
			if err != nil {
				return err
			}
			if ch.name == "onentry" {
				c.States[idx].OnEntry = append(c.States[idx].OnEntry, block)
			} else {
				c.States[idx].OnExit = append(c.States[idx].OnExit, block)
			}
		case "datamodel":
			if err := l.datamodel(ch, idx); err != nil {
				return err
			}
		case "script":
			if !root {
				return l.errf(ch, "<script> is allowed in <scxml> and in executable content only")
			}
			if c.Script != NoExpr {
				return l.errf(ch, "a second <script> in <scxml>")
			}
			act, err := l.script(ch)
			if err != nil {
				return err
			}
			c.Script = act.Expr
		case "donedata":
			if c.States[idx].Kind != Final {
				return l.errf(ch, "<donedata> must be inside a <final>")
			}
			if _, err := l.attrs(ch); err != nil {
				return err
			}
			dd := &DoneData{Content: NoExpr}
			for _, x := range ch.children {
				if err := l.checkNS(x); err != nil {
					return err
				}
				switch x.name {
				case "param":
					p, err := l.param(x)
					if err != nil {
						return err
					}
					dd.Params = append(dd.Params, p)
				case "content":
					e, s, err := l.content(x)
					if err != nil {
						return err
					}
					dd.Content, dd.ContentStr = e, s
				default:
					return l.errf(x, "<%s> is not allowed in <donedata> (expected <param> or <content>)", x.name)
				}
			}
			c.States[idx].DoneData = dd
		default:
			return l.errf(ch, "<%s> is not allowed in <%s>", ch.name, n.name)
		}
	}
	st := &c.States[idx]
	if len(st.Children) > 0 && st.Kind == Atomic {
		st.Kind = Compound
	}
	init, hasInit := a["initial"]
	switch {
	case hasInit && initialEl != nil:
		return l.errf(initialEl, "a state has either an initial attribute or an <initial> element")
	case hasInit:
		if st.Kind != Compound {
			return l.errf(n, "initial on a state without child states")
		}
		st.Initial = &Transition{Pos: n.pos, Source: idx, Cond: NoExpr, Type: Internal}
		l.targets = append(l.targets, pendingTargets{t: st.Initial, ids: strings.Fields(init), pos: n.pos, kind: "initial"})
	case initialEl != nil:
		if _, err := l.attrs(initialEl, "id"); err != nil {
			return err
		}
		if len(initialEl.children) != 1 || initialEl.children[0].name != "transition" {
			return l.errf(initialEl, "<initial> holds exactly one <transition>")
		}
		t, err := l.transition(initialEl.children[0], idx)
		if err != nil {
			return err
		}
		if len(t.Events) > 0 || t.Cond != NoExpr {
			return l.errf(initialEl.children[0], "the <initial> transition has neither event nor cond")
		}
		t.Type = Internal
		st.Initial = t
	case root && len(st.Children) == 0:
		return l.errf(n, "<scxml> holds no state")
	case st.Kind == Compound:
		for _, ch := range st.Children {
			if k := c.States[ch].Kind; k != HistoryShallow && k != HistoryDeep {
				st.Initial = &Transition{Pos: n.pos, Source: idx, Cond: NoExpr, Targets: []int{ch}, Type: Internal}
				break
			}
		}
		if st.Initial == nil {
			return l.errf(n, "a state whose children are all <history> has no initial state")

		}
	}
	return nil
}

func (l *loader) state(n *node, parent int) error {
	c := l.chart
	var allowed []string
	kind := Atomic
	switch n.name {
	case "state":
		allowed = []string{"id", "initial"}
	case "parallel":
		allowed, kind = []string{"id"}, Parallel
	case "final":
		allowed, kind = []string{"id"}, Final
	case "history":
		allowed, kind = []string{"id", "type"}, HistoryShallow
	}
	a, err := l.attrs(n, allowed...)
	if err != nil {
		return err
	}
	idx := len(c.States)
	id, ok := a["id"]
	if !ok {
		id = fmt.Sprintf("_s%d", idx)
	} else if id == "" {
		return l.errf(n, "empty id")
	}
	if n.name == "history" {
		switch a["type"] {
		case "", "shallow":
		case "deep":
			kind = HistoryDeep
		default:
			return l.errf(n, "history type %q: expected shallow or deep", a["type"])
		}
	}
	c.States = append(c.States, State{ID: id, Pos: n.pos, Kind: kind, Parent: parent})
	c.Data = append(c.Data, nil)
	c.States[parent].Children = append(c.States[parent].Children, idx)
	if kind == HistoryShallow || kind == HistoryDeep {
		c.States[parent].History = append(c.States[parent].History, idx)
		if len(n.children) != 1 || n.children[0].name != "transition" {
			return l.errf(n, "<history> holds exactly one default <transition>")
		}
		if err := l.checkNS(n.children[0]); err != nil {
			return err
		}
		t, err := l.transition(n.children[0], idx)
		if err != nil {
			return err
		}
		if len(t.Events) > 0 || t.Cond != NoExpr || strings.TrimSpace(attr(n.children[0], "target")) == "" {
			return l.errf(n.children[0], "a history's default transition has a target and neither event nor cond")
		}
		c.States[idx].Initial = t
		return nil
	}
	return l.children(n, idx, a, false)
}

func (l *loader) transition(n *node, src int) (*Transition, error) {
	a, err := l.attrs(n, "event", "cond", "target", "type")
	if err != nil {
		return nil, err
	}
	t := &Transition{Pos: n.pos, Source: src, Cond: l.optExpr(n, a, "cond", CondExpr)}
	for _, d := range strings.Fields(a["event"]) {
		if d != "*" {
			// "foo.*" and "foo." mean "foo"; a descriptor that is only
			// ".*" is read as "*".
			d = strings.TrimSuffix(strings.TrimSuffix(d, "*"), ".")
			if d == "" {
				d = "*"
			}
		}
		t.Events = append(t.Events, d)
	}
	if v, ok := a["event"]; ok && len(t.Events) == 0 {
		return nil, l.errf(n, "event %q names no event", v)
	}
	switch a["type"] {
	case "", "external":
	case "internal":
		t.Type = Internal
	default:
		return nil, l.errf(n, "transition type %q: expected internal or external", a["type"])
	}
	if tg, ok := a["target"]; ok {
		ids := strings.Fields(tg)
		if len(ids) == 0 {
			return nil, l.errf(n, "empty target")
		}
		l.targets = append(l.targets, pendingTargets{t: t, ids: ids, pos: n.pos, kind: "transition"})
	}
	if t.Actions, err = l.block(n.children); err != nil {
		return nil, err
	}
	return t, nil
}

// resolve turns target ids into state indices once every state is known.
func (l *loader) resolve() error {
	c := l.chart
	for _, p := range l.targets {
		for _, id := range p.ids {
			i, ok := c.Lookup(id)
			if !ok || i == 0 {
				return &Error{Pos: p.pos, Msg: fmt.Sprintf("target %q is not a state", id)}
			}
			if p.kind == "initial" && !isDescendant(c, i, p.t.Source) {
				return &Error{Pos: p.pos, Msg: fmt.Sprintf("initial state %q is not a descendant of %q", id, c.States[p.t.Source].ID)}
			}
			p.t.Targets = append(p.t.Targets, i)
		}
	}
	if c.States[0].Initial == nil {
		return &Error{Pos: c.States[0].Pos, Msg: "<scxml> holds no state"}
	}
	return nil
}

func isDescendant(c *Chart, s, anc int) bool {
	for p := c.States[s].Parent; p >= 0; p = c.States[p].Parent {
		if p == anc {
			return true
		}
	}
	return false
}

func (l *loader) datamodel(n *node, idx int) error {
	if _, err := l.attrs(n); err != nil {
		return err
	}
	for _, ch := range n.children {
		if err := l.checkNS(ch); err != nil {
			return err
		}
		if ch.name != "data" {
			return l.errf(ch, "<%s> is not allowed in <datamodel> (expected <data>)", ch.name)
		}
		a, err := l.attrs(ch, "id", "expr", "src")
		if err != nil {
			return err
		}
		d := Data{ID: a["id"], Pos: ch.pos, Expr: l.optExpr(ch, a, "expr", ValueExpr)}
		if d.ID == "" {
			return l.errf(ch, "<data> needs an id")
		}
		if err := l.noXML(ch); err != nil {
			return err
		}
		text := strings.TrimSpace(l.innerText(ch))
		switch {
		case a["src"] != "":
			if d.Expr != NoExpr || text != "" {
				return l.errf(ch, "<data> has one of src, expr or content")
			}
			b, err := l.read(ch, a["src"])
			if err != nil {
				return err
			}
			s := string(b)
			d.Text = &s
		case text != "":
			if d.Expr != NoExpr {
				return l.errf(ch, "<data> has one of src, expr or content")
			}
			d.Text = &text
		}
		l.chart.Data[idx] = append(l.chart.Data[idx], d)
	}
	return nil
}

func (l *loader) read(n *node, name string) ([]byte, error) {
	if l.opt.ReadFile == nil {
		return nil, l.errf(n, "src %q: reading files is not allowed here", name)
	}
	b, err := l.opt.ReadFile(name)
	if err != nil {
		return nil, l.errf(n, "src %q: %v", name, err)
	}
	return b, nil
}

// innerText is an element's content as written: its text, or the source
// of its child elements (XML content, kept as a string).
func (l *loader) innerText(n *node) string {
	return n.text.String()
}

// noXML rejects XML content: the ecmascript datamodel here has no DOM, so
// it cannot be kept as what the document means.
func (l *loader) noXML(n *node) error {
	if len(n.children) > 0 {
		return l.unsupportedf(n.children[0], "XML content (<%s> in <%s>) is not supported", n.children[0].name, n.name)
	}
	return nil
}

func (l *loader) block(children []*node) ([]Action, error) {
	var out []Action
	for _, ch := range children {
		a, err := l.action(ch)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func (l *loader) script(n *node) (Action, error) {
	a, err := l.attrs(n, "src")
	if err != nil {
		return Action{}, err
	}
	body := l.innerText(n)
	if src, ok := a["src"]; ok {
		if strings.TrimSpace(body) != "" {
			return Action{}, l.errf(n, "<script> has either src or content")
		}
		b, err := l.read(n, src)
		if err != nil {
			return Action{}, err
		}
		body = string(b)
	} else if len(n.children) > 0 {
		return Action{}, l.errf(n.children[0], "<%s> is not allowed in <script>", n.children[0].name)
	}
	return Action{Kind: ActScript, Pos: n.pos, Expr: l.expr(n, body, ScriptExpr)}, nil
}

func (l *loader) action(n *node) (Action, error) {
	none := NoExpr
	act := Action{Pos: n.pos, EventExpr: none, TargetExpr: none, TypeExpr: none, IDExpr: none,
		IDLocation: none, DelayExpr: none, Content: none, Location: none, Expr: none, Index: none}
	if n.space == SimctlNS {
		return l.escalate(n, act)
	}
	if err := l.checkNS(n); err != nil {
		return Action{}, err
	}
	switch n.name {
	case "raise":
		a, err := l.attrs(n, "event")
		if err != nil {
			return act, err
		}
		act.Kind, act.Event = ActRaise, a["event"]
		if act.Event == "" {
			return act, l.errf(n, "<raise> needs an event")
		}
	case "log":
		a, err := l.attrs(n, "label", "expr")
		if err != nil {
			return act, err
		}
		act.Kind, act.Label, act.Expr = ActLog, a["label"], l.optExpr(n, a, "expr", LogExpr)
	case "assign":
		a, err := l.attrs(n, "location", "expr")
		if err != nil {
			return act, err
		}
		act.Kind = ActAssign
		if a["location"] == "" {
			return act, l.errf(n, "<assign> needs a location")
		}
		act.Location = l.expr(n, a["location"], LocationExpr)
		act.Expr = l.optExpr(n, a, "expr", ValueExpr)
		if err := l.noXML(n); err != nil {
			return act, err
		}
		if text := strings.TrimSpace(l.innerText(n)); text != "" {
			if act.Expr != none {
				return act, l.errf(n, "<assign> has either expr or content")
			}
			act.ContentStr = &text
		}
	case "script":
		return l.script(n)
	case "cancel":
		a, err := l.attrs(n, "sendid", "sendidexpr")
		if err != nil {
			return act, err
		}
		act.Kind, act.ID, act.IDExpr = ActCancel, a["sendid"], l.optExpr(n, a, "sendidexpr", ValueExpr)
		if (act.ID == "") == (act.IDExpr == none) {
			return act, l.errf(n, "<cancel> needs one of sendid or sendidexpr")
		}
	case "if":
		if _, err := l.attrs(n, "cond"); err != nil {
			return act, err
		}
		act.Kind = ActIf
		act.Conds = []Expr{l.expr(n, attr(n, "cond"), CondExpr)}
		act.Branches = [][]Action{nil}
		sawElse := false
		for _, ch := range n.children {
			if ch.space == NS && (ch.name == "elseif" || ch.name == "else") {
				if sawElse {
					return act, l.errf(ch, "<%s> after <else>", ch.name)
				}
				if ch.name == "elseif" {
					if _, err := l.attrs(ch, "cond"); err != nil {
						return act, err
					}
					act.Conds = append(act.Conds, l.expr(ch, attr(ch, "cond"), CondExpr))
				} else {
					if _, err := l.attrs(ch); err != nil {
						return act, err
					}
					sawElse = true
					act.Conds = append(act.Conds, none)
				}
				act.Branches = append(act.Branches, nil)
				continue
			}
			a, err := l.action(ch)
			if err != nil {
				return act, err
			}
			k := len(act.Branches) - 1
			act.Branches[k] = append(act.Branches[k], a)
		}
	case "foreach":
		a, err := l.attrs(n, "array", "item", "index")
		if err != nil {
			return act, err
		}
		if a["array"] == "" || a["item"] == "" {
			return act, l.errf(n, "<foreach> needs array and item")
		}
		act.Kind = ActForeach
		act.Expr = l.expr(n, a["array"], ValueExpr)
		act.Location = l.expr(n, a["item"], LocationExpr)
		act.Index = l.optExpr(n, a, "index", LocationExpr)
		if act.Body, err = l.block(n.children); err != nil {
			return act, err
		}
	case "send":
		return l.send(n, act)
	default:
		return act, l.errf(n, "<%s> is not executable content", n.name)
	}
	if n.name != "if" && n.name != "foreach" && n.name != "assign" && len(n.children) > 0 {
		return act, l.errf(n.children[0], "<%s> is not allowed in <%s>", n.children[0].name, n.name)
	}
	return act, nil
}

// escalate reads simctl's executable content (SimctlNS): only
// <escalate reason="..."/>, which hands the conversation to a person as a
// YAML machine's escalate action does, so that reports count it.
func (l *loader) escalate(n *node, act Action) (Action, error) {
	if n.name != "escalate" {
		return act, l.errf(n, "<%s> is not simctl executable content (expected escalate, namespace %q)", n.name, SimctlNS)
	}
	a, err := l.attrs(n, "reason")
	if err != nil {
		return act, err
	}
	if strings.TrimSpace(a["reason"]) == "" {
		return act, l.errf(n, "<escalate> needs a reason")
	}
	if len(n.children) > 0 || strings.TrimSpace(l.innerText(n)) != "" {
		return act, l.errf(n, "<escalate> has no content")
	}
	act.Kind, act.Label = ActEscalate, a["reason"]
	return act, nil
}

func attr(n *node, name string) string {
	for _, a := range n.attrs {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value
		}
	}
	return ""
}

func (l *loader) send(n *node, act Action) (Action, error) {
	a, err := l.attrs(n, "event", "eventexpr", "target", "targetexpr", "type", "typeexpr", "id", "idlocation", "delay", "delayexpr", "namelist")
	if err != nil {
		return act, err
	}
	act.Kind = ActSend
	act.Event, act.EventExpr = a["event"], l.optExpr(n, a, "eventexpr", ValueExpr)
	act.Target, act.TargetExpr = a["target"], l.optExpr(n, a, "targetexpr", ValueExpr)
	act.Type, act.TypeExpr = a["type"], l.optExpr(n, a, "typeexpr", ValueExpr)
	act.ID = a["id"]
	act.IDLocation = l.optExpr(n, a, "idlocation", LocationExpr)
	act.DelayExpr = l.optExpr(n, a, "delayexpr", ValueExpr)
	pairs := [][2]string{{"event", "eventexpr"}, {"target", "targetexpr"}, {"type", "typeexpr"}, {"id", "idlocation"}, {"delay", "delayexpr"}}
	for _, p := range pairs {
		_, x := a[p[0]]
		_, y := a[p[1]]
		if x && y {
			return act, l.errf(n, "<send> has either %s or %s", p[0], p[1])
		}
	}
	// The Basic HTTP processor is one the recommendation defines and
	// simctl lacks: a document that uses it cannot be run as meant. Any
	// other type names no processor at all, which the recommendation
	// makes an error.execution when the <send> runs (W3C test199).
	switch t := act.Type; t {
	case "", SCXMLProcessor, "scxml":
	case BasicHTTPProcessor:
		return act, l.unsupportedf(n, "<send type=%q> is not supported (the SCXML event processor only)", t)
	default:
		l.warnings = append(l.warnings, &Error{Pos: n.pos, Msg: fmt.Sprintf("<send type=%q> names no event processor simctl has (the SCXML one only): it raises error.execution when it runs", t)})
	}
	if d, ok := a["delay"]; ok {
		ms, err := ParseDelay(d)
		if err != nil {
			return act, l.errf(n, "%v", err)
		}
		act.DelayMS = ms
	}
	for _, name := range strings.Fields(a["namelist"]) {
		act.Params = append(act.Params, Param{Name: name, Expr: l.expr(n, name, ValueExpr)})
	}
	for _, ch := range n.children {
		if err := l.checkNS(ch); err != nil {
			return act, err
		}
		switch ch.name {
		case "param":
			p, err := l.param(ch)
			if err != nil {
				return act, err
			}
			act.Params = append(act.Params, p)
		case "content":
			if act.Content != NoExpr || act.ContentStr != nil {
				return act, l.errf(ch, "a second <content>")
			}
			act.Content, act.ContentStr, err = l.content(ch)
			if err != nil {
				return act, err
			}
		default:
			return act, l.errf(ch, "<%s> is not allowed in <send> (expected <param> or <content>)", ch.name)
		}
	}
	if (act.Content != NoExpr || act.ContentStr != nil) && len(act.Params) > 0 {
		return act, l.errf(n, "<send> has either <content> or namelist and <param>")
	}
	return act, nil
}

func (l *loader) param(n *node) (Param, error) {
	a, err := l.attrs(n, "name", "expr", "location")
	if err != nil {
		return Param{}, err
	}
	if a["name"] == "" {
		return Param{}, l.errf(n, "<param> needs a name")
	}
	_, e := a["expr"]
	_, loc := a["location"]
	if e == loc {
		return Param{}, l.errf(n, "<param> needs one of expr or location")
	}
	src := a["expr"]
	if loc {
		src = a["location"]
	}
	return Param{Name: a["name"], Expr: l.expr(n, src, ValueExpr)}, nil
}

func (l *loader) content(n *node) (Expr, *string, error) {
	a, err := l.attrs(n, "expr")
	if err != nil {
		return NoExpr, nil, err
	}
	if err := l.noXML(n); err != nil {
		return NoExpr, nil, err
	}
	text := l.innerText(n)
	if e, ok := a["expr"]; ok {
		if strings.TrimSpace(text) != "" {
			return NoExpr, nil, l.errf(n, "<content> has either expr or content")
		}
		return l.expr(n, e, ValueExpr), nil, nil
	}
	return NoExpr, &text, nil
}
