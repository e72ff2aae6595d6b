package explore

import (
	"regexp"
	"regexp/syntax"
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

// guardValues returns the constants the machine's guards and validators
// compare user data with, sorted and without repeats.
func guardValues(d *engine.Definition) []string {
	slots := userSlots(d)
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	guard := func(src string) {
		if src == "" {
			return
		}
		tree, err := parser.Parse(src)
		if err != nil {
			return
		}
		for _, c := range userConstants(slots, tree.Node) {
			add(c.text)
		}
		for _, n := range comparedNumbers(slots, tree.Node) {
			for _, x := range []float64{n - 1, n, n + 1} {
				add(strconv.FormatFloat(x, 'f', -1, 64))
			}
		}
	}
	var trans func(ts []engine.TransitionDef)
	trans = func(ts []engine.TransitionDef) {
		for _, t := range ts {
			guard(t.Guard.Src)
		}
	}
	for _, s := range d.States {
		trans(s.On)
		trans(s.Always)
		if s.Timeout != nil {
			trans(s.Timeout.Then)
		}
	}
	trans(d.On)
	for _, o := range d.Overrides {
		guard(o.Guard.Src)
	}
	for _, v := range d.Validators {
		for _, x := range v.OneOf {
			add(x)
		}
		if v.Regex != "" {
			if ex, ok := regexExample(v.Regex); ok {
				add(ex)
			}
		}
	}
	sort.Strings(out)
	return out
}

// comparedNumbers returns the numbers a guard orders user data against
// (number(event.text) > 5).
func comparedNumbers(slots map[string]bool, n ast.Node) []float64 {
	var out []float64
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		switch n := n.(type) {
		case *ast.BinaryNode:
			switch n.Operator {
			case "<", "<=", ">", ">=", "==", "!=":
				for _, pair := range [][2]ast.Node{{n.Left, n.Right}, {n.Right, n.Left}} {
					if ok, _ := userData(slots, pair[0]); ok {
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

// nluUtterances builds texts from the stub NLU's rules: each intent's
// trigger alone and with each example of an entity the machine reads. The
// caller parses them with the stub.
func nluUtterances(n *spec.NLU, read map[string]bool) []string {
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
			if x, ok := regexExample(e.Value.Pattern.Value); ok {
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
			trigger, _ = regexExample(r.Value.Patterns[0].Value)
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

// regexExample returns a short text the regular expression matches: the
// first branch of each alternation, the least repetition, the first
// character of each class.
func regexExample(expr string) (string, bool) {
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

// readEntities names the entities an expression of the machine reads
// (event.entities.NAME): only those are worth an utterance.
func readEntities(d *engine.Definition) map[string]bool {
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
	trans := func(ts []engine.TransitionDef) {
		for _, t := range ts {
			out = append(out, t.Guard.Src)
			for _, a := range t.Actions {
				out = append(out, a.Expr.Src)
			}
		}
	}
	for _, s := range d.States {
		trans(s.On)
		trans(s.Always)
		if s.Timeout != nil {
			trans(s.Timeout.Then)
		}
	}
	trans(d.On)
	return out
}
