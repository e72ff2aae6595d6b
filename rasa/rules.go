package rasa

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/spec"
)

// A hybrid project's router sends some messages to the pre-CALM NLU
// pipeline, whose rules answer an intent with actions. The import does
// not simulate that pipeline; a rule of the simplest shape (one intent,
// then actions, no condition, no form) is what the pipeline says for the
// intent, so it becomes a flow the intent starts, which ends without
// pattern_completed. Other rules are named and left out.

// readRules reads a file's rules: into flows.
func (p *Project) readRules(file string) error {
	root, err := load(file)
	if err != nil || root == nil {
		return err
	}
	r := &reader{file: file, p: p}
	kv, err := r.pairs(root, "a rules file")
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("flows:\n")
	n := 0
	for _, e := range kv {
		if e[0].Value != "rules" {
			continue
		}
		rules, err := r.list(e[1], "rules")
		if err != nil {
			return err
		}
		for _, rule := range rules {
			name, intent, acts, why := p.simpleRule(r, rule)
			if why != "" {
				p.note(r.pos(rule), "rule %s of the NLU-based (pre-CALM) pipeline is not imported: %s", name, why)
				continue
			}
			id := "rule_" + strings.Trim(nameRe.ReplaceAllString(strings.ToLower(name), "_"), "_")
			if p.flowIdx[id] != nil {
				continue
			}
			fmt.Fprintf(&b, "  %s:\n    description: %s\n    run_pattern_completed: false\n    nlu_trigger:\n      - intent: %s\n    steps:\n",
				id, strconv.Quote("the pre-CALM rule "+name+" ("+r.pos(rule).String()+")"), strconv.Quote(intent))
			for _, a := range acts {
				fmt.Fprintf(&b, "      - action: %s\n", strconv.Quote(a))
			}
			n++
		}
	}
	if n == 0 {
		return nil
	}
	doc, err := spec.ParseYAML(file, []byte(b.String()))
	if err != nil {
		return err
	}
	return p.readFlowsNode(r, doc.Content[0], false)
}

// simpleRule reads a rule of one intent followed by actions; why says
// what else it has.
func (p *Project) simpleRule(r *reader, rule *yaml.Node) (name, intent string, acts []string, why string) {
	kv, err := r.pairs(rule, "a rule")
	if err != nil {
		return "", "", nil, "it is not a mapping"
	}
	var steps *yaml.Node
	for _, e := range kv {
		switch e[0].Value {
		case "rule":
			name = e[1].Value
		case "steps":
			steps = deref(e[1])
		case "condition", "conversation_start", "wait_for_user_input":
			why = "it has " + e[0].Value
		}
	}
	if why != "" || steps == nil || steps.Kind != yaml.SequenceNode {
		if why == "" {
			why = "it has no steps"
		}
		return name, "", nil, why
	}
	for i, st := range steps.Content {
		st = deref(st)
		if st.Kind != yaml.MappingNode || len(st.Content) != 2 {
			return name, "", nil, "a step is not one key"
		}
		k, v := st.Content[0].Value, st.Content[1].Value
		switch {
		case i == 0 && k == "intent":
			intent = v
		case i > 0 && k == "action":
			if strings.HasPrefix(v, "utter_") && p.Responses[v] == nil {
				return name, "", nil, "response " + v + " is not in the domain"
			}
			acts = append(acts, v)
		default:
			return name, "", nil, "step " + k + " (only an intent, then actions, are imported)"
		}
	}
	if intent == "" || len(acts) == 0 {
		return name, "", nil, "it is not an intent followed by actions"
	}
	return name, intent, acts, ""
}
