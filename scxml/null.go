package scxml

import (
	"errors"
	"regexp"
	"strings"

	"github.com/simctl/simctl/statechart"
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

func (nullCompiler) Compile(c *statechart.Chart) (statechart.Program, error) {
	p := &nullProgram{states: make([]string, len(c.Exprs)), text: make([]string, len(c.Exprs))}
	for i, e := range c.Exprs {
		if e.Kind == statechart.LogExpr {
			p.text[i] = e.Src
			continue
		}
		m := inRE.FindStringSubmatch(e.Src)
		if e.Kind != statechart.CondExpr || m == nil {
			return nil, &statechart.Error{Pos: e.Pos, Msg: "the null datamodel evaluates In('state') conditions only, not " + strings.TrimSpace(clip(e.Src))}
		}
		p.states[i] = m[1] + m[2]
		if _, ok := c.Lookup(p.states[i]); !ok {
			return nil, &statechart.Error{Pos: e.Pos, Msg: "In(" + p.states[i] + "): no such state"}
		}
	}
	for i, d := range c.Data {
		if len(d) > 0 {
			return nil, &statechart.Error{Pos: d[0].Pos, Msg: "<data> needs datamodel=\"ecmascript\" (state " + c.States[i].ID + ")"}
		}
	}
	if c.Script != statechart.NoExpr {
		return nil, &statechart.Error{Pos: c.Exprs[c.Script].Pos, Msg: "<script> needs datamodel=\"ecmascript\""}
	}
	return p, nil
}

type nullDM struct {
	p  *nullProgram
	in func(string) bool
}

func (p *nullProgram) NewDatamodel(_ *statechart.Session, in func(string) bool) statechart.Datamodel {
	return &nullDM{p: p, in: in}
}

var errNull = errors.New("the null datamodel has no values")

func (*nullDM) Init([]statechart.Data) error            { return errNull }
func (*nullDM) SetEvent(statechart.Event)               {}
func (d *nullDM) Cond(e statechart.Expr) (bool, error)  { return d.in(d.p.states[e]), nil }
func (*nullDM) Value(statechart.Expr) (any, error)      { return nil, errNull }
func (*nullDM) Text(statechart.Expr) (string, error)    { return "", errNull }
func (*nullDM) Literal(s string) any                    { return s }
func (*nullDM) Assign(statechart.Expr, any, bool) error { return errNull }
func (*nullDM) Script(statechart.Expr) error            { return errNull }
func (*nullDM) Iterate(statechart.Expr) ([]any, error)  { return nil, errNull }
func (*nullDM) Snapshot() string                        { return "" }
func (*nullDM) Object(names []string, values []any) any { return nil }
func (*nullDM) Save() (any, bool)                       { return nil, true }
func (*nullDM) Restore(any) bool                        { return true }
