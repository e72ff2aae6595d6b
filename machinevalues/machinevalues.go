// Package machinevalues finds the values a machine itself compares user
// input with: the string constants of its guards (whole, or the words of
// contains), the numbers on each side of a comparison, the values of its
// validators, and utterances built from the stub NLU's rules. The explorer
// adds them to its alphabet (explore/alphabet.go); simulated users answer
// with them (generate). One walk of the guards serves both.
package machinevalues

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

// The alphabet from the machine. The utterances of scenarios and
// users.yaml are what the suite's authors thought of; a guard may wait for
// a value none of them says (thea's awaiting_date_time -> awaiting_time
// needs an agenda request that names a date and no time). As
// coverage-guided fuzzers take the operands of comparisons, the search
// adds the values the machine itself compares user input with: the string
// constants of guards (whole, or the words of contains), the numbers on
// each side of a comparison (c-1, c, c+1), the values of validators, and,
// through the stub NLU, utterances built from its rules: each intent's
// first phrase or keyword alone, and with each example (a value, or the
// shortest text its regular expression matches) of each entity an
// expression of the machine reads. Combinations of several entities are
// left to the scenarios: one entity at a time keeps the alphabet linear
// in the rules.

// GuardValues returns the constants the machine's guards and validators
// compare user data with, sorted and without repeats.
func GuardValues(d *engine.Definition) []string {
	slots := UserSlots(d)
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, tree := range guards(d) {
		for _, c := range Constants(slots, tree.Node) {
			add(c.Text)
		}
		for _, n := range ComparedNumbers(slots, tree.Node) {
			for _, x := range []float64{n - 1, n, n + 1} {
				add(strconv.FormatFloat(x, 'f', -1, 64))
			}
		}
	}
	for _, v := range d.Validators {
		for _, x := range v.OneOf {
			add(x)
		}
		if v.Regex != "" {
			if ex, ok := RegexExample(v.Regex); ok {
				add(ex)
			}
		}
	}
	sort.Strings(out)
	return out
}

// guards returns the machine's guards, parsed, in the definition's order:
// its transitions' (transitions), its overrides'.
func guards(d *engine.Definition) []*parser.Tree {
	var out []*parser.Tree
	guard := func(src string) {
		if src == "" {
			return
		}
		if tree, err := parser.Parse(src); err == nil {
			out = append(out, tree)
		}
	}
	for _, t := range transitions(d) {
		guard(t.Guard.Src)
	}
	for _, o := range d.Overrides {
		guard(o.Guard.Src)
	}
	return out
}

// transitions returns the machine's transitions: each state's on, always
// and timeout ones, then the machine's own on.
func transitions(d *engine.Definition) []engine.TransitionDef {
	var out []engine.TransitionDef
	for _, s := range d.States {
		out = append(append(out, s.On...), s.Always...)
		if s.Timeout != nil {
			out = append(out, s.Timeout.Then...)
		}
	}
	return append(out, d.On...)
}

// SlotConstants returns, per slot the user fills, the constants the
// guards compare it with in tests a transition takes (not negated, as
// plan == "premium" or city in ["Madrid", "Paris"]), in the machine's
// order, each once: answers the machine itself names for the slot.
func SlotConstants(d *engine.Definition) map[string][]string {
	slots := UserSlots(d)
	out := map[string][]string{}
	for _, tree := range guards(d) {
		for _, c := range Constants(slots, tree.Node) {
			if name := c.Input.Slot; name != "" && !c.Not && strings.TrimSpace(c.Text) != "" && !slices.Contains(out[name], c.Text) {
				out[name] = append(out[name], c.Text)
			}
		}
	}
	return out
}

// ComparedNumbers returns the numbers a guard orders user data against
// (number(event.text) > 5).
func ComparedNumbers(slots map[string]bool, n ast.Node) []float64 {
	var out []float64
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		switch n := n.(type) {
		case *ast.BinaryNode:
			switch n.Operator {
			case "<", "<=", ">", ">=", "==", "!=":
				for _, pair := range [][2]ast.Node{{n.Left, n.Right}, {n.Right, n.Left}} {
					if in, _ := userData(slots, pair[0]); in.ok() {
						switch c := pair[1].(type) {
						case *ast.IntegerNode:
							out = append(out, float64(c.Value))
						case *ast.FloatNode:
							out = append(out, c.Value)
						}
					}
				}
			}
			walk(n.Left)
			walk(n.Right)
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

// NLUUtterances builds texts from the stub NLU's rules: each intent's
// trigger alone and with each example of an entity the machine reads. The
// caller parses them with the stub.
func NLUUtterances(n *spec.NLU, read map[string]bool) []string {
	if n == nil {
		return nil
	}
	var examples []string
	for _, e := range n.Entities {
		if !read[e.Key] {
			continue
		}
		var ex []string
		if len(e.Value.Values) > 0 {
			// One value stands for the others: the guards read whether an
			// entity came, and the values the guards name are added whole.
			ex = append(ex, e.Value.Values[0].Key)
		}
		if e.Value.Pattern.Value != "" {
			if x, ok := RegexExample(e.Value.Pattern.Value); ok {
				ex = append(ex, x)
			}
		}
		examples = append(examples, ex...)
	}
	var out []string
	for _, r := range n.Intents {
		var trigger string
		switch {
		case len(r.Value.Exact) > 0:
			trigger = r.Value.Exact[0]
		case len(r.Value.Keywords) > 0:
			trigger = r.Value.Keywords[0]
		case len(r.Value.Patterns) > 0:
			trigger, _ = RegexExample(r.Value.Patterns[0].Value)
		}
		if trigger == "" {
			continue
		}
		out = append(out, trigger)
		for _, ex := range examples {
			out = append(out, trigger+" "+ex)
		}
	}
	out = append(out, examples...)
	return out
}

// RegexExample returns a short text the regular expression matches: the
// first branch of each alternation, the least repetition, the first
// character of each class.
func RegexExample(expr string) (string, bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	var gen func(r *syntax.Regexp) bool
	gen = func(r *syntax.Regexp) bool {
		switch r.Op {
		case syntax.OpLiteral:
			b.WriteString(string(r.Rune))
		case syntax.OpCharClass:
			if len(r.Rune) == 0 {
				return false
			}
			lo := r.Rune[0]
			if lo < ' ' && len(r.Rune) > 1 && r.Rune[1] >= 'a' {
				lo = 'a' // [^x] and such: a letter rather than a control character
			}
			b.WriteRune(lo)
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('a')
		case syntax.OpCapture:
			return gen(r.Sub[0])
		case syntax.OpStar, syntax.OpQuest:
		case syntax.OpPlus:
			return gen(r.Sub[0])
		case syntax.OpRepeat:
			for range r.Min {
				if !gen(r.Sub[0]) {
					return false
				}
			}
		case syntax.OpConcat:
			for _, s := range r.Sub {
				if !gen(s) {
					return false
				}
			}
		case syntax.OpAlternate:
			// The first branch that yields text (^ alone yields none).
			for _, s := range r.Sub {
				mark := b.Len()
				if gen(s) && b.Len() > mark {
					return true
				}
			}
			return gen(r.Sub[0])
		case syntax.OpNoMatch:
			return false
		}
		return true
	}
	if !gen(re) {
		return "", false
	}
	s := strings.TrimSpace(b.String())
	if s == "" || !regexp.MustCompile(expr).MatchString(s) {
		return "", false
	}
	return s, true
}

// ReadEntities names the entities an expression of the machine reads
// (event.entities.NAME): only those are worth an utterance.
func ReadEntities(d *engine.Definition) map[string]bool {
	out := map[string]bool{}
	re := regexp.MustCompile(`event\.entities\.([A-Za-z_][A-Za-z0-9_]*)`)
	for _, x := range exprSources(d) {
		for _, m := range re.FindAllStringSubmatch(x, -1) {
			out[m[1]] = true
		}
	}
	return out
}

// exprSources returns the source of every guard and action expression of
// the machine's transitions.
func exprSources(d *engine.Definition) []string {
	var out []string
	for _, t := range transitions(d) {
		out = append(out, t.Guard.Src)
		for _, a := range t.Actions {
			out = append(out, a.Expr.Src)
		}
	}
	return out
}

// Constant is a constant a guard compares user data with: whole (==,
// in) or as a part (contains, startsWith, endsWith), maybe ignoring case;
// Not: the comparison is negated (!=, not in, or under not), so the
// constant is what the transition does not take. Input says what the
// guard compares it with.
type Constant struct {
	Text            string
	Part, Fold, Not bool
	Input           Input
}

// Input is the user data a guard reads: the answer itself (event.value
// or event.text), an entity the NLU found, or a slot the user fills.
type Input struct {
	Answer       bool
	Entity, Slot string
}

func (in Input) ok() bool { return in.Answer || in.Entity != "" || in.Slot != "" }

// Constants walks a guard for comparisons of user data with constants;
// slots names the slots the user fills (UserSlots).
func Constants(slots map[string]bool, n ast.Node) []Constant {
	var out []Constant
	var walk func(n ast.Node, not bool)
	walk = func(n ast.Node, not bool) {
		switch n := n.(type) {
		case *ast.BinaryNode:
			switch n.Operator {
			case "==", "!=", "contains", "startsWith", "endsWith":
				part := n.Operator != "==" && n.Operator != "!="
				neg := not != (n.Operator == "!=")
				for _, pair := range [][2]ast.Node{{n.Left, n.Right}, {n.Right, n.Left}} {
					if in, fold := userData(slots, pair[0]); in.ok() {
						if lit, ok := constant(pair[1]); ok {
							out = append(out, Constant{Text: lit, Part: part, Fold: fold, Not: neg, Input: in})
						}
					}
				}
			case "in", "not in":
				if arr, ok := n.Right.(*ast.ArrayNode); ok {
					if in, fold := userData(slots, n.Left); in.ok() {
						neg := not != (n.Operator == "not in")
						for _, el := range arr.Nodes {
							if lit, ok := constant(el); ok {
								out = append(out, Constant{Text: lit, Fold: fold, Not: neg, Input: in})
							}
						}
					}
				}
			default:
				walk(n.Left, not)
				walk(n.Right, not)
			}
		case *ast.UnaryNode:
			walk(n.Node, not != (n.Operator == "not" || n.Operator == "!"))
		case *ast.ConditionalNode:
			walk(n.Cond, not)
			walk(n.Exp1, not)
			walk(n.Exp2, not)
		}
	}
	walk(n, false)
	return out
}

// userData reports what user data n reads: event.value, event.text,
// event.entities.NAME or a slot the user fills (slots), possibly through
// lower, upper, trim or number (fold: case is ignored).
func userData(slots map[string]bool, n ast.Node) (in Input, fold bool) {
	switch n := n.(type) {
	case *ast.IdentifierNode:
		if slots[n.Value] {
			return Input{Slot: n.Value}, false
		}
	case *ast.MemberNode:
		if id, ok := n.Node.(*ast.IdentifierNode); ok && id.Value == "event" {
			p, ok := n.Property.(*ast.StringNode)
			return Input{Answer: ok && (p.Value == "value" || p.Value == "text")}, false
		}
		if inner, ok := n.Node.(*ast.MemberNode); ok {
			id, ok1 := inner.Node.(*ast.IdentifierNode)
			p, ok2 := inner.Property.(*ast.StringNode)
			name, ok3 := n.Property.(*ast.StringNode)
			if ok1 && ok2 && ok3 && id.Value == "event" && p.Value == "entities" {
				return Input{Entity: name.Value}, false
			}
		}
	case *ast.BuiltinNode:
		if len(n.Arguments) == 1 && (n.Name == "lower" || n.Name == "upper" || n.Name == "trim") {
			in, fold := userData(slots, n.Arguments[0])
			return in, fold || n.Name != "trim"
		}
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok && id.Value == "number" && len(n.Arguments) == 1 {
			return userData(slots, n.Arguments[0])
		}
	case *ast.ChainNode:
		return userData(slots, n.Node)
	}
	return Input{}, false
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

// UserSlots names the slots that hold what the user said: those a flow
// collects or an ask waits for, and those set from the event other than by
// a transition on a timer or an action's result. Slots the machine sets itself (a step name, an
// action's output) do not, so a guard on them is not the alphabet's
// business.
func UserSlots(d *engine.Definition) map[string]bool {
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
