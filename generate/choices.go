package generate

import (
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/machinevalues"
)

// A state that waits without asking for a slot may still ask a question
// whose answers are not slots: a numbered menu ("1", "2"), a choice among
// words. Its transitions' guards say what it accepts (event.value == "1",
// event.text contains "transfer", event.value in ["a", "b"]); a simulated
// user answers with one of those, chosen by the turn's draw, so that a
// menu neither defeats the agenda nor traps a user who always says "1".

// choice is one answer a state's guards accept: the text, and the intent
// the transition is triggered by (NoID: "*", any user event).
type choice struct {
	text   string
	intent engine.IntentID
}

// choicesAt returns the answers the guards of the user-event transitions
// of leaf s and its ancestors (and the machine's own) test for, in
// transition order, each once.
func (mo *Model) choicesAt(s engine.StateID) []choice {
	if cs, ok := mo.choices[s]; ok {
		return cs
	}
	var out []choice
	seen := map[choice]bool{}
	m := mo.m
	for t := 0; t < m.NumTransitions(); t++ {
		ti := m.Transition(engine.TransID(t))
		if ti.Guard == "" || (ti.Source != engine.NoID && !m.InState(s, ti.Source)) || m.IsOverride(engine.TransID(t)) {
			continue
		}
		intents := []engine.IntentID{engine.NoID}
		if ti.Trigger != "*" {
			if intents = triggerIntents(m, ti); len(intents) == 0 {
				continue // a timer, an action's result, eventless
			}
		}
		tree, err := parser.Parse(ti.Guard)
		if err != nil {
			continue
		}
		// The answers the guard compares the user's answer with (a
		// negated test names what the transition does not take).
		var texts []string
		for _, c := range machinevalues.Constants(nil, tree.Node) {
			if c.Input.Answer && !c.Not && strings.TrimSpace(c.Text) != "" {
				texts = append(texts, c.Text)
			}
		}
		for _, name := range guardEntities(tree.Node) {
			texts = append(texts, mo.entityTexts[name]...)
		}
		for _, intent := range intents {
			for _, text := range texts {
				if intent != engine.NoID && mo.own[intent][strings.ToLower(strings.TrimSpace(text))] {
					// The intent's own phrase: an imported Dialogflow page
					// routes a phrase two intents share as its in-scope
					// intent that way. The user says the intent, or not.
					continue
				}
				c := choice{text: text, intent: intent}
				if !seen[c] {
					seen[c] = true
					out = append(out, c)
				}
			}
		}
	}
	if mo.choices == nil {
		mo.choices = map[engine.StateID][]choice{}
	}
	mo.choices[s] = out
	return out
}

// triggerIntents returns the intents a transition is triggered by: one,
// or several for an SCXML transition whose event attribute lists
// descriptors ("back help.timeout"); none for a timer, an action's
// result, an eventless transition or "*".
func triggerIntents(m *engine.Machine, ti engine.TransitionInfo) []engine.IntentID {
	var out []engine.IntentID
	for _, name := range strings.Fields(ti.Trigger) {
		if id, ok := m.IntentID(name); ok {
			out = append(out, id)
		}
	}
	return out
}

// intentsAt returns the intents the transitions of leaf s and its
// ancestors (and the machine's own) are triggered by, escapes (cancel)
// left out, in transition order, each once: what a cooperative user can
// say where no slot is asked and no answer is tested. It returns none
// where a "*" transition takes any intent as an answer; a "*" that is only
// the fallback of the intents named here (a no-match: every page of an
// imported Dialogflow agent has one) is no answer, and the named intents
// are still what moves the task on.
func (mo *Model) intentsAt(s engine.StateID) []engine.IntentID {
	if is, ok := mo.intents[s]; ok {
		return is
	}
	var out []engine.IntentID
	seen := map[engine.IntentID]bool{}
	m := mo.m
	var catchAll []string
	for t := 0; t < m.NumTransitions(); t++ {
		ti := m.Transition(engine.TransID(t))
		if (ti.Source != engine.NoID && !m.InState(s, ti.Source)) || m.IsOverride(engine.TransID(t)) {
			continue
		}
		if ti.Trigger == "*" {
			catchAll = append(catchAll, ti.Guard)
			continue
		}
		for _, id := range triggerIntents(m, ti) {
			if !seen[id] && !m.IsEscapeIntent(id) {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	for _, guard := range catchAll {
		if !fallback(guard, m.Intents(), out) {
			out = nil // any intent may be taken here: saying yes is not wasted
			break
		}
	}
	if mo.intents == nil {
		mo.intents = map[engine.StateID][]engine.IntentID{}
	}
	mo.intents[s] = out
	return out
}

// fallback reports whether a "*" transition's guard leaves out every one
// of intents (event.intent not in [...]), non-empty: it takes only what
// no other transition takes.
func fallback(guard string, names []string, intents []engine.IntentID) bool {
	if len(intents) == 0 || guard == "" {
		return false
	}
	tree, err := parser.Parse(guard)
	if err != nil {
		return false
	}
	out := map[string]bool{}
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		switch n := n.(type) {
		case *ast.BinaryNode:
			switch n.Operator {
			case "and", "&&":
				walk(n.Left)
				walk(n.Right)
			case "not in":
				excluded(n.Left, n.Right, out)
			}
		case *ast.UnaryNode:
			if n.Operator != "not" && n.Operator != "!" {
				return
			}
			if b, ok := n.Node.(*ast.BinaryNode); ok && b.Operator == "in" {
				excluded(b.Left, b.Right, out)
				return
			}
			guarded(n.Node, out)
		}
	}
	walk(tree.Node)
	for _, in := range intents {
		if !out[names[in]] {
			return false
		}
	}
	return true
}

// guarded adds to out the intents of a negated disjunction whose every
// part is event.intent == "X" and something else: not ((event.intent ==
// "X" and G) or ...) leaves X to the transition that takes X where G
// holds (an imported Dialogflow page routes a phrase two intents share as
// its in-scope intent that way), so the "*" takes X only as its fallback.
// A disjunction with any other part leaves out nothing.
func guarded(n ast.Node, out map[string]bool) {
	var parts []ast.Node
	var split func(n ast.Node)
	split = func(n ast.Node) {
		if b, ok := n.(*ast.BinaryNode); ok && (b.Operator == "or" || b.Operator == "||") {
			split(b.Left)
			split(b.Right)
			return
		}
		parts = append(parts, n)
	}
	split(n)
	var names []string
	for _, p := range parts {
		b, ok := p.(*ast.BinaryNode)
		if !ok || (b.Operator != "and" && b.Operator != "&&") {
			return
		}
		name, ok := intentIs(b.Left)
		if !ok {
			return
		}
		names = append(names, name)
	}
	for _, name := range names {
		out[name] = true
	}
}

// intentIs returns X of a test event.intent == "X".
func intentIs(n ast.Node) (string, bool) {
	b, ok := n.(*ast.BinaryNode)
	if !ok || b.Operator != "==" {
		return "", false
	}
	m, ok := b.Left.(*ast.MemberNode)
	if !ok {
		return "", false
	}
	id, ok1 := m.Node.(*ast.IdentifierNode)
	p, ok2 := m.Property.(*ast.StringNode)
	x, ok3 := b.Right.(*ast.StringNode)
	if !ok1 || !ok2 || !ok3 || id.Value != "event" || p.Value != "intent" {
		return "", false
	}
	return x.Value, true
}

// excluded adds to out the intents of a test event.intent in [...].
func excluded(left, right ast.Node, out map[string]bool) {
	m, ok := left.(*ast.MemberNode)
	if !ok {
		return
	}
	id, ok1 := m.Node.(*ast.IdentifierNode)
	p, ok2 := m.Property.(*ast.StringNode)
	arr, ok3 := right.(*ast.ArrayNode)
	if !ok1 || !ok2 || !ok3 || id.Value != "event" || p.Value != "intent" {
		return
	}
	for _, el := range arr.Nodes {
		if s, ok := el.(*ast.StringNode); ok {
			out[s.Value] = true
		}
	}
}

// anyAt reports whether a "*" transition takes any intent as an answer at
// leaf s (not only as the named intents' fallback).
func (mo *Model) anyAt(s engine.StateID) bool {
	return mo.intentsAt(s) == nil && mo.catchAllAt(s)
}

// catchAllAt reports whether a "*" transition applies at leaf s.
func (mo *Model) catchAllAt(s engine.StateID) bool {
	m := mo.m
	for t := 0; t < m.NumTransitions(); t++ {
		ti := m.Transition(engine.TransID(t))
		if ti.Trigger == "*" && (ti.Source == engine.NoID || m.InState(s, ti.Source)) && !m.IsOverride(engine.TransID(t)) {
			return true
		}
	}
	return false
}

// guardEntities walks a guard for the entities it requires
// (event.entities.NAME != "").
func guardEntities(n ast.Node) []string {
	var out []string
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		b, ok := n.(*ast.BinaryNode)
		if !ok {
			return
		}
		switch b.Operator {
		case "and", "&&", "or", "||":
			walk(b.Left)
			walk(b.Right)
		case "!=":
			if lit, ok := b.Right.(*ast.StringNode); ok && lit.Value == "" {
				if name, ok := entityName(b.Left); ok {
					out = append(out, name)
				}
			}
		}
	}
	walk(n)
	return out
}

func entityName(n ast.Node) (string, bool) {
	m, ok := n.(*ast.MemberNode)
	if !ok {
		return "", false
	}
	inner, ok := m.Node.(*ast.MemberNode)
	if !ok {
		return "", false
	}
	id, ok1 := inner.Node.(*ast.IdentifierNode)
	p, ok2 := inner.Property.(*ast.StringNode)
	name, ok3 := m.Property.(*ast.StringNode)
	if !ok1 || !ok2 || !ok3 || id.Value != "event" || p.Value != "entities" {
		return "", false
	}
	return name.Value, true
}
