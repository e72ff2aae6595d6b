package spec

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"

	"github.com/simctl/simctl/engine"
)

// exprProblems finds what the engine's compiler accepts and a careful
// reader would not: a state name compared with state (state is the
// active leaf's full path, so "confirmin", or a short name, never equals
// it), and constant arithmetic that cannot be evaluated (1/0). Each is an
// error at the position inside the expression. It reads every expression
// of def, found by walking the definition, so that a new kind of
// expression is not forgotten here.
func exprProblems(def *engine.Definition, m *engine.Machine) []*engine.Error {
	var out []*engine.Error
	for _, x := range definitionExprs(reflect.ValueOf(def), nil) {
		if strings.TrimSpace(x.Src) == "" {
			continue
		}
		tree, err := parser.Parse(x.Src)
		if err != nil {
			continue // the build reports it
		}
		v := &exprVisitor{m: m, x: x}
		ast.Walk(&tree.Node, v)
		out = append(out, v.errs...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return out
}

var exprType = reflect.TypeOf(engine.Expr{})

// definitionExprs collects every engine.Expr reachable from v.
func definitionExprs(v reflect.Value, out []engine.Expr) []engine.Expr {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			out = definitionExprs(v.Elem(), out)
		}
	case reflect.Struct:
		if v.Type() == exprType {
			return append(out, v.Interface().(engine.Expr))
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				out = definitionExprs(v.Field(i), out)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			out = definitionExprs(v.Index(i), out)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			out = definitionExprs(v.MapIndex(k), out)
		}
	}
	return out
}

type exprVisitor struct {
	m    *engine.Machine
	x    engine.Expr
	errs []*engine.Error
}

func (v *exprVisitor) errf(n ast.Node, format string, args ...any) {
	pos := v.x.Pos
	pos.Col += n.Location().From
	v.errs = append(v.errs, &engine.Error{Pos: pos, Msg: fmt.Sprintf("in expression %q: %s", v.x.Src, fmt.Sprintf(format, args...))})
}

func (v *exprVisitor) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BinaryNode:
		switch n.Operator {
		case "==", "!=":
			if isState(n.Left) {
				v.stateName(n.Right)
			} else if isState(n.Right) {
				v.stateName(n.Left)
			}
		case "in":
			if arr, ok := n.Right.(*ast.ArrayNode); ok && isState(n.Left) {
				for _, e := range arr.Nodes {
					v.stateName(e)
				}
			}
		case "/", "%":
			if d, ok := constValue(n.Right); ok && d == 0 {
				v.errf(n.Right, "division by zero: %s is 0 whatever the conversation", describeConst(n.Right))
			}
		}
	case *ast.CallNode:
		callee, ok := n.Callee.(*ast.IdentifierNode)
		if !ok || len(n.Arguments) != 1 {
			return
		}
		switch callee.Value {
		case "In":
			v.stateName(n.Arguments[0])
		case "number":
			if s, ok := n.Arguments[0].(*ast.StringNode); ok {
				if _, err := strconv.ParseFloat(strings.TrimSpace(s.Value), 64); err != nil {
					v.errf(n, "number(%q) is never a number", s.Value)
				}
			}
		}
	}
}

// isState reports whether n reads the active state (state, before.state).
func isState(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.IdentifierNode:
		return n.Value == "state"
	case *ast.MemberNode:
		id, ok := n.Node.(*ast.IdentifierNode)
		p, ok2 := n.Property.(*ast.StringNode)
		return ok && ok2 && id.Value == "before" && p.Value == "state"
	}
	return false
}

// stateName checks that a constant compared with the state is a state's
// full path.
func (v *exprVisitor) stateName(n ast.Node) {
	s, ok := n.(*ast.StringNode)
	if !ok {
		return
	}
	id, found := v.m.StateID(s.Value)
	switch {
	case !found:
		v.errf(n, "no state %q (state is the active leaf's full path)", s.Value)
	case v.m.StateName(id) != s.Value:
		v.errf(n, "state is the active leaf's full path: %q never equals it (write %q)", s.Value, v.m.StateName(id))
	}
}

// constValue folds a constant numeric expression.
func constValue(n ast.Node) (float64, bool) {
	switch n := n.(type) {
	case *ast.IntegerNode:
		return float64(n.Value), true
	case *ast.FloatNode:
		return n.Value, true
	case *ast.UnaryNode:
		x, ok := constValue(n.Node)
		switch {
		case !ok:
			return 0, false
		case n.Operator == "-":
			return -x, true
		case n.Operator == "+":
			return x, true
		}
	case *ast.BinaryNode:
		l, ok := constValue(n.Left)
		r, ok2 := constValue(n.Right)
		if !ok || !ok2 {
			return 0, false
		}
		switch n.Operator {
		case "+":
			return l + r, true
		case "-":
			return l - r, true
		case "*":
			return l * r, true
		case "/":
			if r != 0 {
				return l / r, true
			}
		case "%":
			if r != 0 {
				return math.Mod(l, r), true
			}
		}
	}
	return 0, false
}

func describeConst(n ast.Node) string {
	if _, ok := n.(*ast.IntegerNode); ok {
		return "the divisor"
	}
	return "the divisor " + n.String()
}
