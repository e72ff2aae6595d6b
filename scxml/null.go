package scxml

import (
	"errors"
	"regexp"
	"strings"

	"github.com/simctl/simctl/engine"
)

// nullCompiler is the null data model: no variables, and conditions of the
// form In('state') only.
type nullCompiler struct{}

var inRE = regexp.MustCompile(`^\s*In\(\s*(?:'([^']*)'|"([^"]*)")\s*\)\s*$`)

// nullProgram holds, per expression, the state an In() condition names
// or, for a <log> expr, its source text.
type nullProgram struct {
	states []string
	text   []string
}

func (nullCompiler) Compile(c *Chart) (Program, error) {
	p := &nullProgram{states: make([]string, len(c.Exprs)), text: make([]string, len(c.Exprs))}
	for i, e := range c.Exprs {
		if e.Kind == LogExpr {
			p.text[i] = e.Src
			continue
		}
		m := inRE.FindStringSubmatch(e.Src)
		if e.Kind != CondExpr || m == nil {
			return nil, &Error{Pos: e.Pos, Msg: "the null datamodel evaluates In('state') conditions only, not " + strings.TrimSpace(clip(e.Src))}
		}
		p.states[i] = m[1] + m[2]
		if _, ok := c.Lookup(p.states[i]); !ok {
			return nil, &Error{Pos: e.Pos, Msg: "In(" + p.states[i] + "): no such state"}
		}
	}
	for i, d := range c.Data {
		if len(d) > 0 {
			return nil, &Error{Pos: d[0].Pos, Msg: "<data> needs datamodel=\"ecmascript\" (state " + c.States[i].ID + ")"}
		}
	}
	if c.Script != NoExpr {
		return nil, &Error{Pos: c.Exprs[c.Script].Pos, Msg: "<script> needs datamodel=\"ecmascript\""}
	}
	return p, nil
}

var errNull = errors.New("the null datamodel has no values")

// Null is the recommendation's null data model on the engine
// (engine.Definition.DataModel for a chart with datamodel="null"): no
// data, conditions In('state') only, and a <log>'s expr as its text (the
// loader accepts nothing else). Its Data holds nothing, so a step costs
// what the engine's own does.
type Null struct {
	// paths maps a state's id to its engine path; states and text hold,
	// per compiled code, the path an In() names or a value's text.
	paths  map[string]string
	states []string
	text   []string
}

// Compile compiles x: an In() condition, or a value (a log's text).
func (n *Null) Compile(kind engine.CodeKind, x engine.Expr) (engine.Code, error) {
	code := engine.Code(len(n.states))
	st, txt := "", ""
	var err error
	switch kind {
	case engine.CondCode:
		m := inRE.FindStringSubmatch(x.Src)
		if m == nil {
			err = errNull
		} else if st = n.paths[m[1]+m[2]]; st == "" {
			err = errors.New("In(" + m[1] + m[2] + "): no such state")
		}
	case engine.ValueCode:
		txt = x.Src
	default:
		err = errNull
	}
	n.states, n.text = append(n.states, st), append(n.text, txt)
	return code, err
}

// Fresh returns a data model of the same chart with nothing compiled
// yet, as ECMAScript's Fresh does.
func (n *Null) Fresh() engine.DataModel { return &Null{paths: n.paths} }

// NewData returns the conversation's data: nothing but the machine.
func (n *Null) NewData(m *engine.Machine, _ string) engine.Data { return nullData{n: n, m: m} }

type nullData struct {
	n *Null
	m *engine.Machine
}

func (d nullData) Cond(x engine.Code, c *engine.Config, _ *engine.Event) (bool, error) {
	s, ok := d.m.StateID(d.n.states[x])
	return ok && d.m.IsActive(c, s), nil
}

func (d nullData) Value(x engine.Code, _ *engine.Config, _ *engine.Event) (engine.Value, error) {
	return engine.TextValue(d.n.text[x]), nil
}

func (nullData) Assign(_, _ engine.Code, _ *engine.Config, _ *engine.Event) error { return errNull }
func (nullData) Script(engine.Code, *engine.Config, *engine.Event) error          { return errNull }
func (nullData) Foreach(_, _, _ engine.Code, _ *engine.Config, _ *engine.Event, _ func() error) error {
	return errNull
}
func (nullData) Hold(engine.Code, uint32, *engine.Config, *engine.Event) error { return errNull }
func (nullData) Take(uint32)                                                   {}
func (nullData) Drop(uint32)                                                   {}
func (nullData) Save() (any, bool)                                             { return nil, true }
func (nullData) Restore(any) bool                                              { return true }
func (nullData) Fingerprint() uint64                                           { return 0 }
