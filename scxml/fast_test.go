package scxml_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/scxml"
)

// The subset of ECMAScript the data model evaluates in Go (fast.go) must
// give what goja gives, or decline. Each expression here runs both ways
// on the same heap, and the results, errors, heaps after and their
// fingerprints are compared.

// fastVars are the heap's variables; fastValues the values drawn for
// them, with ECMAScript's edge cases: -0 and NaN are made by expressions
// (plain data holds neither), large numbers whose sum is infinite,
// numbers whose text is not an integer's, strings that look like
// numbers, non-ASCII text.
var (
	fastVars   = []string{"a", "b", "s", "t", "arr", "o", "u"}
	fastValues = []string{"0", "1", "-1", "2.5", "10", "9", "1e21", "123456789012345680000", "1.7e308", "-1.7e308", "0.1",
		`""`, `"a"`, `"b"`, `"10"`, `"9"`, `"abc"`, `"é"`, `"x\u00e9"`, `"1"`, "true", "false", "null", "",
		`[]`, `["x", "b", "a"]`, `["é", "a"]`, `[1, "x"]`, `[2, 1]`, `[{"k": 1}]`, `{"x": 1, "y": "s"}`,
		`{"x": {"y": 2}}`, `{"1": "one", "x": 0}`, `{}`}
)

// fastAtoms are the leaves of the expressions drawn: mostly ones the
// subset covers on most heaps, a fifth of the time any.
var (
	fastAtoms = []string{"a", "b", "s", "t", "o.x", "o.y", "arr.length", "0", "1", "2.5", "10", "'a'", `"b"`, "''", "'10'",
		"true", "false", "null", "In('on')", "arr.indexOf('x')", "arr.concat(['c'])", "arr.concat(s, [a, 'c'])"}
	fastEdgeAtoms = []string{"arr", "o", "u", "nope", "o.z", "o.x.y", "s.length", "o.length", "'é'", "[]", "['x', 'y']", "[1]",
		"[a]", "[o]", "In('off')", "In(a)", "arr.indexOf(1)", "s.indexOf('b')", "arr.indexOf(o)", "undefined", "NaN",
		"o.toString", "s.x", "a.length", "_event", "_event.nope", "_event.data.x.y", "_event.data.length", "_event.invokeid",
		"_event.origintype", "_event.data[0]", "arr.concat(_event.data)", "s.concat('x')", "o.concat([])",
		"arr.concat([o])", "arr.concat(o.x, [NaN])"}
	// fastEventAtoms read _event (fastEvent draws it).
	fastEventAtoms = []string{"_event.name", "_event.type", "_event.sendid", "_event.origin", "_event.data", "_event.data.city",
		"_event.data.v", "_event.data.x", "_event.data ? _event.data.city : 'anywhere'", "_event.data ? _event.data.v % 2 : a"}
)

// fastEventNames and fastEventData are what the engine binds to _event:
// its name and the text of its data (Event.Value), which goja reads as
// JSON, else as a number, else as text with its white space normalized.
var (
	fastEventNames = []string{"inform.city", "inform", "done.state.form", "error.execution", "é.x", "a b", ""}
	fastEventData  = []string{"", `{"city": "Lisbon"}`, `{"city": "Lisboa", "date": "soon"}`, `{"v": 2}`, `{"v": -3}`,
		`{"v": 2.5}`, `{"v": -0}`, `{"x": {"y": "z"}, "v": 1}`, `{"city": "\ud800"}`, `{"city": "é"}`, `{"v": 1e400}`,
		`{"1": "one", "city": "x"}`, `{}`, `[1, 2]`, `["a"]`, "5", "-0", "2.5", "1e400", "NaN", "Infinity", "-Infinity",
		"0x10", "Lisbon", "  two   words ", `"quoted"`, `"10"`, "true", "false", "null", `{"v": null}`, `{"city": true}`}
)

// fastEvent draws an event as bind makes it.
func fastEvent(r *rand.Rand) (*scxml.Event, string) {
	e := &scxml.Event{Name: fastEventNames[r.IntN(len(fastEventNames))],
		Type: []string{"external", "internal", "platform"}[r.IntN(3)]}
	if r.IntN(4) == 0 {
		e.SendID, e.Origin, e.OriginType = "s1", "#_scxml_t", scxml.SCXMLProcessor
	}
	if r.IntN(8) == 0 {
		e.InvokeID = "inv"
	}
	return e, fastEventData[r.IntN(len(fastEventData))]
}

var fastOps = []string{"+", "-", "*", "/", "%", "<", "<=", ">", ">=", "===", "!==", "==", "!=", "&&", "||"}

func fastExpr(r *rand.Rand, depth int) string {
	if depth == 0 || r.IntN(3) == 0 {
		switch r.IntN(6) {
		case 0:
			return fastEdgeAtoms[r.IntN(len(fastEdgeAtoms))]
		case 1:
			return fastEventAtoms[r.IntN(len(fastEventAtoms))]
		}
		return fastAtoms[r.IntN(len(fastAtoms))]
	}
	switch r.IntN(7) {
	case 3:
		return fastExpr(r, depth-1) + " ? " + fastExpr(r, depth-1) + " : " + fastExpr(r, depth-1)
	case 0:
		return "!" + fastExpr(r, depth-1)
	case 1:
		return "-" + fastExpr(r, depth-1)
	case 2:
		return "(" + fastExpr(r, depth-1) + ")"
	}
	return fastExpr(r, depth-1) + " " + fastOps[r.IntN(len(fastOps))] + " " + fastExpr(r, depth-1)
}

var fastTargets = []string{"a", "b", "s", "o.x", "o.w", "o.x.y", "arr", "nope", "o.__proto__", "u"}

func fastStmt(r *rand.Rand) string {
	switch r.IntN(5) {
	case 0:
		return fastTargets[r.IntN(len(fastTargets))] + " = " + fastExpr(r, 1+r.IntN(2))
	case 1:
		return "arr.push(" + fastExpr(r, 1) + ")"
	case 2:
		return "arr.push(" + fastExpr(r, 1) + ", " + fastExpr(r, 1) + ")"
	case 3:
		return []string{"arr.sort()", "o.x.sort()", "s.sort()"}[r.IntN(3)]
	}
	return fastExpr(r, 1+r.IntN(2))
}

// fastHeap draws a heap: each variable any value a third of the time,
// else one of its type (numbers a and b, strings s and t, an array of
// strings, an object).
func fastHeap(r *rand.Rand) []string {
	typed := [][]string{{"0", "1", "-1", "2.5", "10", "1.7e308"}, {"0", "1", "9", "1e21", "-1.7e308"},
		{`""`, `"a"`, `"10"`, `"abc"`}, {`"b"`, `"9"`, `"x"`}, {`[]`, `["x", "b", "a"]`, `["a"]`},
		{`{"x": 1, "y": "s"}`, `{"x": {"y": 2}, "y": ""}`, `{"y": "t", "x": "a"}`}, {"", "null"}}
	vals := make([]string, len(fastVars))
	for i := range vals {
		if r.IntN(3) == 0 {
			vals[i] = fastValues[r.IntN(len(fastValues))]
		} else {
			vals[i] = typed[i][r.IntN(len(typed[i]))]
		}
	}
	return vals
}

var _ = Describe("the ECMAScript subset evaluated in Go", func() {
	agrees := func(c scxml.FastCase) bool {
		GinkgoHelper()
		if c.Vars == nil {
			c.Vars, c.JSON = fastVars, []string{"2", `"ab"`, `"x"`, `"y"`, `["b", "a"]`, `{"x": 1, "y": "s"}`, ""}
		}
		covered, diff := scxml.FastAgrees(c)
		Expect(diff).To(BeEmpty(), "%s %q %q on %v, _event %+v data %q", c.Kind, c.Loc, c.Src, c.JSON, c.Event, c.Data)
		return covered
	}

	DescribeTable("gives what goja gives, on ECMAScript's edge cases",
		func(c scxml.FastCase, covered bool) {
			Expect(agrees(c)).To(Equal(covered))
		},
		Entry("a sum", scxml.FastCase{Kind: "value", Src: "a + 1"}, true),
		Entry("a string and an integer", scxml.FastCase{Kind: "value", Src: "s + a"}, true),
		Entry("a string and -0", scxml.FastCase{Kind: "value", Src: "s + -0"}, true),
		Entry("a string and a fraction: declined", scxml.FastCase{Kind: "value", Src: "s + 2.5"}, false),
		Entry("a number and a boolean: declined", scxml.FastCase{Kind: "value", Src: "a + true"}, false),
		Entry("strings compared", scxml.FastCase{Kind: "cond", Src: "'10' < '9'"}, true),
		Entry("a number and a string compared: declined", scxml.FastCase{Kind: "cond", Src: "a < '9'"}, false),
		Entry("== between a number and a string: declined", scxml.FastCase{Kind: "cond", Src: "a == '2'"}, false),
		Entry("== between null and undefined", scxml.FastCase{Kind: "cond", Src: "u == null"}, true),
		Entry("null == 0", scxml.FastCase{Kind: "cond", Src: "null == 0"}, true),
		Entry("-0 === 0", scxml.FastCase{Kind: "cond", Src: "-0 === 0"}, true),
		Entry("objects compared: declined", scxml.FastCase{Kind: "cond", Src: "o === o"}, false),
		Entry("a property", scxml.FastCase{Kind: "cond", Src: "o.x < 20 && o.y === 's'"}, true),
		Entry("a property an object does not have: declined", scxml.FastCase{Kind: "value", Src: "o.z"}, false),
		Entry("&& gives an operand", scxml.FastCase{Kind: "value", Src: "s && a"}, true),
		Entry("|| does not evaluate the right side", scxml.FastCase{Kind: "value", Src: "a || nope"}, true),
		Entry("In", scxml.FastCase{Kind: "cond", Src: "In('on') && !In('off')"}, true),
		Entry("indexOf", scxml.FastCase{Kind: "cond", Src: "arr.indexOf('a') < 0"}, true),
		Entry("a trailing semicolon", scxml.FastCase{Kind: "cond", Src: "a > 1;"}, true),
		Entry("an assignment", scxml.FastCase{Kind: "assign", Loc: "a", Src: "a + 1"}, true),
		Entry("a new property", scxml.FastCase{Kind: "assign", Loc: "o.w", Src: "'new'"}, true),
		Entry("a fresh array", scxml.FastCase{Kind: "assign", Loc: "o.x", Src: "['p', 1]"}, true),
		Entry("an object two variables would share: declined", scxml.FastCase{Kind: "assign", Loc: "a", Src: "o"}, false),
		Entry("-0 stored: declined", scxml.FastCase{Kind: "assign", Loc: "a", Src: "-0"}, false),
		Entry("an undeclared variable: declined", scxml.FastCase{Kind: "assign", Loc: "nope", Src: "1"}, false),
		Entry("push and sort", scxml.FastCase{Kind: "script", Src: "arr.push('c'); arr.sort()"}, true),
		Entry("statements on lines", scxml.FastCase{Kind: "script", Src: "a = a + 1\no.x = a\n"}, true),
		Entry("a line that goes on with (: declined", scxml.FastCase{Kind: "script", Src: "a = a\n(s)"}, false),
		Entry("a line that goes on with -", scxml.FastCase{Kind: "script", Src: "a = a\n-1"}, true),
		Entry("sort of numbers: declined", scxml.FastCase{Kind: "script", Src: "arr.push(1); arr.sort()"}, false),
		Entry("++: declined", scxml.FastCase{Kind: "script", Src: "a++"}, false),
		Entry("a comment: declined", scxml.FastCase{Kind: "cond", Src: "a // x"}, false),
		Entry("an escape: declined", scxml.FastCase{Kind: "cond", Src: `s === 'a\'b'`}, false),
		Entry("a conditional", scxml.FastCase{Kind: "value", Src: "a > 1 ? s : t"}, true),
		Entry("nested conditionals", scxml.FastCase{Kind: "value", Src: "a ? b ? 1 : 2 : 3"}, true),
		Entry("an assignment in a conditional: declined", scxml.FastCase{Kind: "script", Src: "a ? b = 1 : 2"}, false),
		Entry("?? and ?.: declined", scxml.FastCase{Kind: "value", Src: "u ?? o?.x"}, false),
		Entry("a remainder", scxml.FastCase{Kind: "value", Src: "-7 % 3 + 7 % -3 + 2.5 % 1"}, true),
		Entry("a remainder of 0", scxml.FastCase{Kind: "assign", Loc: "b", Src: "a % 0 === a % 0"}, true),
		Entry("a product and a quotient", scxml.FastCase{Kind: "value", Src: "a * 2.5 / 4"}, true),
		Entry("0 * -2, which goja makes +0: declined", scxml.FastCase{Kind: "value", Src: "1 / (0 * -2)"}, false),
		Entry("a product past 2^53, which goja keeps exact: declined",
			scxml.FastCase{Kind: "value", Src: "94906267 * 94906267"}, false),
		Entry("a block comment: declined", scxml.FastCase{Kind: "value", Src: "a /* x */"}, false),
		Entry("concat", scxml.FastCase{Kind: "assign", Loc: "arr", Src: "arr.concat(['web'], s, [a])"}, true),
		Entry("concat of nothing", scxml.FastCase{Kind: "value", Src: "arr.concat()"}, true),
		Entry("concat of an object, stored: declined", scxml.FastCase{Kind: "assign", Loc: "arr", Src: "arr.concat(o)"}, false),
		Entry("concat of an object, read", scxml.FastCase{Kind: "cond", Src: "arr.concat(o).length === 3"}, true),
		Entry("concat of the event's data", scxml.FastCase{Kind: "assign", Loc: "arr", Src: "arr.concat(_event.data)",
			Event: &scxml.Event{Name: "n", Type: "external"}, Data: `["p", 2]`}, true),
		Entry("concat of -0: declined", scxml.FastCase{Kind: "value", Src: "arr.concat([-0])"}, false),
		Entry("concat of a string: declined", scxml.FastCase{Kind: "value", Src: "s.concat('x')"}, false),
		Entry("_event.name", scxml.FastCase{Kind: "cond", Src: "_event.name === 'inform.city' && _event.type === 'external'",
			Event: &scxml.Event{Name: "inform.city", Type: "external"}}, true),
		Entry("an unset field of _event", scxml.FastCase{Kind: "cond", Src: "_event.sendid == null && _event.origin == null",
			Event: &scxml.Event{Name: "e", Type: "internal"}}, true),
		Entry("_event.data's property", scxml.FastCase{Kind: "assign", Loc: "s", Src: "_event.data ? _event.data.city : 'anywhere'",
			Event: &scxml.Event{Name: "inform.city", Type: "external"}, Data: `{"city": "Lisbon"}`}, true),
		Entry("no data", scxml.FastCase{Kind: "assign", Loc: "s", Src: "_event.data ? _event.data.city : 'anywhere'",
			Event: &scxml.Event{Name: "inform.city", Type: "external"}}, true),
		Entry("data that is a number", scxml.FastCase{Kind: "assign", Loc: "a", Src: "_event.data + 1",
			Event: &scxml.Event{Name: "n", Type: "external"}, Data: " 42 "}, true),
		Entry("data that is text", scxml.FastCase{Kind: "assign", Loc: "s", Src: "_event.data",
			Event: &scxml.Event{Name: "n", Type: "external"}, Data: " two   words "}, true),
		Entry("a lone surrogate in the data: declined", scxml.FastCase{Kind: "assign", Loc: "s", Src: "_event.data.city",
			Event: &scxml.Event{Name: "n", Type: "external"}, Data: `{"city": "\ud800"}`}, false),
		Entry("-0 in the data, stored: declined", scxml.FastCase{Kind: "assign", Loc: "a", Src: "_event.data.v",
			Event: &scxml.Event{Name: "n", Type: "external"}, Data: `{"v": -0}`}, false),
		Entry("-0 in the data, read", scxml.FastCase{Kind: "assign", Loc: "s", Src: "'' + _event.data.v",
			Event: &scxml.Event{Name: "n", Type: "external"}, Data: `{"v": -0}`}, true),
		Entry("a property the data does not have: declined", scxml.FastCase{Kind: "value", Src: "_event.data.date",
			Event: &scxml.Event{Name: "n", Type: "external"}, Data: `{"city": "x"}`}, false),
		Entry("the data stored, an object: declined", scxml.FastCase{Kind: "assign", Loc: "o.x", Src: "_event.data",
			Event: &scxml.Event{Name: "n", Type: "external"}, Data: `{"city": "x"}`}, false),
		Entry("_event before any event: declined", scxml.FastCase{Kind: "value", Src: "_event.name"}, false),
		Entry("_event written: declined", scxml.FastCase{Kind: "assign", Loc: "_event.name", Src: "'x'",
			Event: &scxml.Event{Name: "n", Type: "external"}}, false),
	)

	It("gives what goja gives on random expressions and heaps, and covers at least a fifth of each kind", func() {
		r := rand.New(rand.NewPCG(25, 1))
		counts := map[string][2]int{}
		for range 4000 {
			c := scxml.FastCase{Vars: fastVars, JSON: fastHeap(r)}
			if r.IntN(4) > 0 {
				c.Event, c.Data = fastEvent(r)
			}
			switch c.Kind = []string{"cond", "value", "script", "assign"}[r.IntN(4)]; c.Kind {
			case "cond", "value":
				c.Src = fastExpr(r, 3)
			case "script":
				n := 1 + r.IntN(2)
				stmts := make([]string, n)
				for i := range stmts {
					stmts[i] = fastStmt(r)
				}
				c.Src = strings.Join(stmts, []string{"; ", "\n", ";\n"}[r.IntN(3)])
			case "assign":
				c.Loc, c.Src = fastTargets[r.IntN(len(fastTargets))], fastExpr(r, 2)
			}
			k := counts[c.Kind]
			k[0]++
			if agrees(c) {
				k[1]++
			}
			counts[c.Kind] = k
		}
		for kind, k := range counts {
			// Enough run in Go that the comparison means something.
			Expect(k[1]*5).To(BeNumerically(">", k[0]), fmt.Sprintf("%s: %d of %d in Go", kind, k[1], k[0]))
			GinkgoWriter.Printf("%s: %d of %d in Go\n", kind, k[1], k[0])
		}
	})
})
