package explore

import (
	"sort"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"

	"github.com/simctl/simctl/engine"
)

// A guard the search never saw true may be dead code, or it may wait for a
// value the user alphabet does not hold: `event.value == "premium"` when
// neither users.yaml nor any scenario ever says "premium". The second is a
// limit of the search, not of the machine; AlphabetLacks tells them apart.

// AlphabetLacks returns the constants that guard t compares the user's
// data with (the event's value, text or entities, or a slot, which only
// user data fills) and that no event of the alphabet carries: while it
// returns any, the search could not have made the guard true through
// them. It returns nil for a guard that compares no user data with a
// constant, or whose constants the alphabet all holds.
func (r *Result) AlphabetLacks(t engine.TransID) []string {
	src := r.m.Transition(t).Guard
	if src == "" {
		return nil
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return nil
	}
	var lacks []string
	seen := map[string]bool{}
	for _, c := range userConstants(r.userSlots, tree.Node) {
		if seen[c.text] || r.alphabetHas(c) {
			continue
		}
		seen[c.text] = true
		lacks = append(lacks, c.text)
	}
	sort.Strings(lacks)
	return lacks
}

// userConstant is a constant a guard compares user data with: whole (==,
// in) or as a part (contains, startsWith, endsWith), maybe ignoring case.
type userConstant struct {
	text       string
	part, fold bool
}

func (r *Result) alphabetHas(c userConstant) bool {
	match := func(s string) bool {
		a, b := s, c.text
		if c.fold {
			a, b = strings.ToLower(a), strings.ToLower(b)
		}
		if c.part {
			return strings.Contains(a, b)
		}
		return strings.TrimSpace(a) == b
	}
	for i := range r.alpha {
		ev := &r.alpha[i]
		if match(ev.Value) || match(ev.Text) {
			return true
		}
		for k := 0; k < int(ev.NEnt); k++ {
			if match(ev.Entities[k].Value.Str) {
				return true
			}
		}
	}
	return false
}

// userConstants walks a guard for comparisons of user data with constants.
func userConstants(m map[string]bool, n ast.Node) []userConstant {
	var out []userConstant
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		switch n := n.(type) {
		case *ast.BinaryNode:
			switch n.Operator {
			case "==", "!=", "contains", "startsWith", "endsWith":
				part := n.Operator != "==" && n.Operator != "!="
				for _, pair := range [][2]ast.Node{{n.Left, n.Right}, {n.Right, n.Left}} {
					if ok, fold := userData(m, pair[0]); ok {
						if lit, ok := constant(pair[1]); ok {
							out = append(out, userConstant{text: lit, part: part, fold: fold})
						}
					}
				}
			case "in", "not in":
				if arr, ok := n.Right.(*ast.ArrayNode); ok {
					if ok, fold := userData(m, n.Left); ok {
						for _, el := range arr.Nodes {
							if lit, ok := constant(el); ok {
								out = append(out, userConstant{text: lit, fold: fold})
							}
						}
					}
				}
			default:
				walk(n.Left)
				walk(n.Right)
			}
		case *ast.UnaryNode:
			walk(n.Node)
		case *ast.ConditionalNode:
			walk(n.Cond)
			walk(n.Exp1)
			walk(n.Exp2)
		}
	}
	walk(n)
	return out
}

// userData reports whether n reads what the user said: event.value,
// event.text, event.entities.NAME or a slot the user fills (userSlots),
// possibly through lower, upper, trim or number (fold: case is ignored).
func userData(m map[string]bool, n ast.Node) (ok, fold bool) {
	switch n := n.(type) {
	case *ast.IdentifierNode:
		return m[n.Value], false
	case *ast.MemberNode:
		if id, ok := n.Node.(*ast.IdentifierNode); ok && id.Value == "event" {
			p, ok := n.Property.(*ast.StringNode)
			return ok && (p.Value == "value" || p.Value == "text"), false
		}
		if inner, ok := n.Node.(*ast.MemberNode); ok {
			id, ok1 := inner.Node.(*ast.IdentifierNode)
			p, ok2 := inner.Property.(*ast.StringNode)
			return ok1 && ok2 && id.Value == "event" && p.Value == "entities", false
		}
	case *ast.BuiltinNode:
		if len(n.Arguments) == 1 && (n.Name == "lower" || n.Name == "upper" || n.Name == "trim") {
			ok, fold := userData(m, n.Arguments[0])
			return ok, fold || n.Name != "trim"
		}
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok && id.Value == "number" && len(n.Arguments) == 1 {
			return userData(m, n.Arguments[0])
		}
	case *ast.ChainNode:
		return userData(m, n.Node)
	}
	return false, false
}

func constant(n ast.Node) (string, bool) {
	switch n := n.(type) {
	case *ast.StringNode:
		return n.Value, n.Value != ""
	case *ast.IntegerNode:
		return strconv.Itoa(n.Value), true
	case *ast.FloatNode:
		return strconv.FormatFloat(n.Value, 'g', -1, 64), true
	}
	return "", false
}

// userSlots names the slots that hold what the user said: those a flow
// collects or an ask waits for, and those set from the event other than by
// a transition on a timer or an action's result. Slots the machine sets itself (a step name, an
// action's output) do not, so a guard on them is not the alphabet's
// business.
func userSlots(d *engine.Definition) map[string]bool {
	out := map[string]bool{}
	for _, f := range d.Flows {
		for _, s := range f.Slots {
			out[s] = true
		}
	}
	acts := func(as []engine.ActionDef, user bool) {
		for _, a := range as {
			switch {
			case a.Kind == engine.ActAsk:
				out[a.Name] = true
			case a.Kind == engine.ActSet && user && strings.Contains(a.Expr.Src, "event."):
				out[a.Slot] = true
			}
		}
	}
	userTrigger := func(on string) bool { return on != "" && !strings.Contains(on, ":") }
	for _, sd := range d.States {
		// Entry and exit actions see the event that caused them, most
		// often the user's.
		acts(sd.Entry, true)
		acts(sd.Exit, true)
		for _, t := range sd.On {
			acts(t.Actions, userTrigger(t.On))
		}
		for _, t := range sd.Always {
			// An eventless transition still sees the user event that
			// started the step.
			acts(t.Actions, true)
		}
	}
	for _, t := range d.On {
		acts(t.Actions, userTrigger(t.On))
	}
	return out
}

// GuardsUnreached returns the guards the search never saw true for want of
// a value (AlphabetLacks is not empty), by transition id: while there is
// one, "complete" holds only over the alphabet.
func (r *Result) GuardsUnreached() []engine.TransID {
	var out []engine.TransID
	c := r.Coverage
	for t := 0; t < r.m.NumTransitions(); t++ {
		id := engine.TransID(t)
		if r.m.Transition(id).Guard != "" && c.GuardTrue[t] == 0 && c.GuardFalse[t] > 0 && len(r.AlphabetLacks(id)) > 0 {
			out = append(out, id)
		}
	}
	return out
}
