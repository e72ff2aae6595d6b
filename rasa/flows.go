package rasa

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

var stepKinds = []string{"collect", "action", "set_slots", "link", "call", "noop"}

func (p *Project) readFlows(file string, def bool) error {
	root, err := load(file)
	if err != nil || root == nil {
		return err
	}
	return p.readFlowsNode(&reader{file: file, p: p}, root, def)
}

func (p *Project) readFlowsNode(r *reader, root *yaml.Node, def bool) error {
	kv, err := r.pairs(root, "a flows file")
	if err != nil {
		return err
	}
	for _, e := range kv {
		switch e[0].Value {
		case "flows":
			flows, err := r.pairs(e[1], "flows")
			if err != nil {
				return err
			}
			for _, f := range flows {
				if def && p.flowIdx[f[0].Value] != nil {
					continue // the project overrides this pattern
				}
				if skip := skippedPatterns[f[0].Value]; skip != "" && !def {
					p.note(r.pos(f[0]), "flow %s is not imported: %s", f[0].Value, skip)
					continue
				}
				fl, err := r.readFlow(f[0], f[1])
				if err != nil {
					return err
				}
				fl.Default = def
				if old := p.flowIdx[f[0].Value]; old != nil {
					return r.errf(f[0], "flow %s is defined twice (first at %s)", f[0].Value, old.Pos)
				}
				p.Flows = append(p.Flows, fl)
				p.flowIdx[fl.ID] = fl
				p.flowIdx[f[0].Value] = fl
			}
		case "version":
		default:
			if !def {
				p.note(r.pos(e[0]), "key %q of a flows file is not imported", e[0].Value)
			}
		}
	}
	return nil
}

func (r *reader) readFlow(k, v *yaml.Node) (*Flow, error) {
	f := &Flow{ID: k.Value, Name: k.Value, Pos: r.pos(k), RunCompleted: true, Persisted: map[string]bool{},
		Pattern: strings.HasPrefix(k.Value, "pattern_")}
	if !isName(f.ID) {
		// Rasa allows any id (flow-check_balance); simctl names are
		// letters, digits and underscores. Links, calls and tests still
		// name the flow by its own id.
		f.ID = "flow_" + regexp.MustCompile(`[^A-Za-z0-9_]`).ReplaceAllString(f.ID, "_")
		for r.p.flowIdx[f.ID] != nil {
			f.ID += "_"
		}
		r.p.note(r.pos(k), "flow %s is named %s in the machine (simctl names are letters, digits and underscores)", k.Value, f.ID)
	}
	kv, err := r.pairs(v, "flow "+f.ID)
	if err != nil {
		return nil, err
	}
	var steps *yaml.Node
	for _, e := range kv {
		switch e[0].Value {
		case "name":
			if f.Name, err = r.str(e[1], "the flow's name"); err != nil {
				return nil, err
			}
		case "description":
			if f.Description, err = r.str(e[1], "the flow's description"); err != nil {
				return nil, err
			}
		case "if":
			if f.Guard, err = r.str(e[1], "a flow guard"); err != nil {
				return nil, err
			}
			f.GuardPos = condPos(r, e[1])
		case "steps":
			steps = e[1]
		case "persisted_slots":
			l, err := r.list(e[1], "persisted_slots")
			if err != nil {
				return nil, err
			}
			for _, s := range l {
				f.Persisted[s.Value] = true
			}
		case "run_pattern_completed":
			if f.RunCompleted, err = r.boolean(e[1], "run_pattern_completed"); err != nil {
				return nil, err
			}
		case "always_include_in_prompt", "file_path":
		case "nlu_trigger":
			// Each entry is an intent name, or {intent: NAME} or
			// {intent: {name: NAME, confidence_threshold: C}}: a test's
			// "/NAME" message starts the flow.
			l, err := r.list(e[1], "nlu_trigger")
			if err != nil {
				return nil, err
			}
			for _, it := range l {
				if it.Kind == yaml.MappingNode && len(it.Content) == 2 && it.Content[0].Value == "intent" {
					it = deref(it.Content[1])
					if it.Kind == yaml.MappingNode {
						for i := 0; i+1 < len(it.Content); i += 2 {
							if it.Content[i].Value == "name" {
								it = deref(it.Content[i+1])
								break
							}
						}
					}
				}
				if it.Kind == yaml.ScalarNode && it.Value != "" {
					f.Triggers = append(f.Triggers, it.Value)
				} else {
					r.p.note(r.pos(it), "flow %s: an nlu_trigger entry that names no intent is not imported", f.ID)
				}
			}
		default:
			r.p.note(r.pos(e[0]), "flow %s: key %q is not imported", f.ID, e[0].Value)
		}
	}
	if steps == nil {
		return nil, r.errf(k, "flow %s has no steps", f.ID)
	}
	b := &stepBuilder{r: r, f: f, ids: map[string]bool{}}
	list, err := r.list(steps, "the flow's steps")
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, r.errf(steps, "flow %s has no steps", f.ID)
	}
	if _, err := b.steps(list, ""); err != nil {
		return nil, err
	}
	return f, nil
}

type stepBuilder struct {
	r   *reader
	f   *Flow
	ids map[string]bool
	n   int
}

// steps reads a list of steps (top level or inline in a branch) and
// appends them to the flow; a step without next goes on to the following
// one, and the last one to END (the end of the flow). It returns the
// first step's id.
func (b *stepBuilder) steps(list []*yaml.Node, prefix string) (string, error) {
	var made []*Step
	for _, n := range list {
		s, inline, err := b.step(n, prefix)
		if err != nil {
			return "", err
		}
		made = append(made, s)
		b.f.Steps = append(b.f.Steps, s)
		for _, in := range inline {
			first, err := b.steps(in.nodes, in.prefix)
			if err != nil {
				return "", err
			}
			s.Next[in.branch].Target = first
		}
	}
	for i, s := range made {
		if s.HasNext {
			continue
		}
		if s.Kind == "link" {
			continue // a link ends the flow
		}
		target := "END"
		if i+1 < len(made) {
			target = made[i+1].ID
		}
		s.Next = []Branch{{Target: target, Pos: s.Pos}}
	}
	return made[0].ID, nil
}

type inlineSteps struct {
	branch int
	nodes  []*yaml.Node
	prefix string
}

func (b *stepBuilder) step(n *yaml.Node, prefix string) (*Step, []inlineSteps, error) {
	r := b.r
	kv, err := r.pairs(n, "a flow step")
	if err != nil {
		return nil, nil, err
	}
	s := &Step{Pos: r.pos(n), Reset: true}
	var nextNode *yaml.Node
	var unknown []*yaml.Node
	for _, e := range kv {
		key, val := e[0].Value, e[1]
		switch key {
		case "collect", "action", "link", "call":
			if s.Kind != "" {
				return nil, nil, r.errf(e[0], "a step has one kind; this one is %s and %s", s.Kind, key)
			}
			s.Kind = key
			if s.Arg, err = r.str(val, "the "+key+" step's "+map[string]string{"collect": "slot", "action": "action", "link": "flow", "call": "flow"}[key]); err != nil {
				return nil, nil, err
			}
		case "set_slots":
			if s.Kind != "" {
				return nil, nil, r.errf(e[0], "a step has one kind; this one is %s and %s", s.Kind, key)
			}
			s.Kind = key
			l, err := r.list(val, "set_slots")
			if err != nil {
				return nil, nil, err
			}
			for _, item := range l {
				pairs, err := r.pairs(item, "a slot assignment")
				if err != nil {
					return nil, nil, err
				}
				for _, sv := range pairs {
					s.SetSlots = append(s.SetSlots, SlotValue{Slot: sv[0].Value, Value: sv[1], Pos: r.pos(sv[0])})
				}
			}
		case "noop":
			if s.Kind != "" {
				return nil, nil, r.errf(e[0], "a step has one kind; this one is %s and %s", s.Kind, key)
			}
			s.Kind = key
		case "id":
			if s.ID, err = r.str(val, "a step id"); err != nil {
				return nil, nil, err
			}
			if b.ids[s.ID] {
				return nil, nil, r.errf(val, "step id %q is used twice in flow %s", s.ID, b.f.ID)
			}
		case "next":
			nextNode = val
		case "description":
			s.Description = val.Value
		case "utter":
			s.Utter = val.Value
		case "ask_before_filling":
			if s.AskBefore, err = r.boolean(val, "ask_before_filling"); err != nil {
				return nil, nil, err
			}
		case "reset_after_flow_ends":
			if s.Reset, err = r.boolean(val, "reset_after_flow_ends"); err != nil {
				return nil, nil, err
			}
		case "rejections":
			rejs, err := r.rejections(val)
			if err != nil {
				return nil, nil, err
			}
			s.Rejections = append(s.Rejections, rejs...)
		case "force_slot_filling", "silence_timeout", "persisted_slots":
			r.p.note(r.pos(e[0]), "step key %q is not imported", key)
		default:
			unknown = append(unknown, e[0])
		}
	}
	if s.Kind == "" && len(unknown) > 0 {
		return nil, nil, r.errf(unknown[0], "unknown step kind %q (expected one of: %s)", unknown[0].Value, strings.Join(stepKinds, ", "))
	}
	for _, u := range unknown {
		r.p.note(r.pos(u), "step key %q is not imported", u.Value)
	}
	if s.Kind == "" && nextNode != nil {
		// A step of only next (and an id): the branch step of Rasa
		// before 3.8, which calls it noop since; read as one.
		s.Kind = "noop"
		r.p.note(r.pos(n), "a step with only next is read as noop: true (Rasa 3.8's name for a branch step)")
	}
	if s.Kind == "" {
		return nil, nil, r.errf(n, "a step needs one of: %s", strings.Join(stepKinds, ", "))
	}
	if s.Kind == "noop" && nextNode == nil {
		return nil, nil, r.errf(n, "a noop step needs next")
	}
	if s.Kind != "collect" && (s.Utter != "" || s.AskBefore || len(s.Rejections) > 0) {
		return nil, nil, r.errf(n, "utter, ask_before_filling and rejections belong to collect steps")
	}
	if s.ID == "" {
		b.n++
		s.ID = fmt.Sprintf("%s%d_%s", prefix, b.n, s.Kind)
		for b.ids[s.ID] {
			s.ID += "_"
		}
	}
	b.ids[s.ID] = true
	var inline []inlineSteps
	if nextNode != nil {
		s.HasNext = true
		if s.Kind == "link" {
			return nil, nil, r.errf(nextNode, "a link step ends its flow; it cannot have next")
		}
		switch nextNode.Kind {
		case yaml.ScalarNode:
			s.Next = []Branch{{Target: nextNode.Value, Pos: r.pos(nextNode)}}
		case yaml.SequenceNode:
			for i, bn := range nextNode.Content {
				bn = deref(bn)
				pairs, err := r.pairs(bn, "a branch of next (if/then or else)")
				if err != nil {
					return nil, nil, err
				}
				br := Branch{Pos: r.pos(bn)}
				var then *yaml.Node
				for _, bp := range pairs {
					switch bp[0].Value {
					case "if":
						if br.Cond, err = r.str(bp[1], "a condition"); err != nil {
							return nil, nil, err
						}
						br.CondPos = condPos(r, bp[1])
					case "then":
						then = bp[1]
					case "else":
						br.Else, then = true, bp[1]
					default:
						return nil, nil, r.errf(bp[0], "unknown key %q in next (expected if, then, else)", bp[0].Value)
					}
				}
				if then == nil || (br.Else && br.Cond != "") || (!br.Else && br.Cond == "") {
					return nil, nil, r.errf(bn, "a branch of next is if with then, or else")
				}
				if br.Else && i != len(nextNode.Content)-1 {
					return nil, nil, r.errf(bn, "else must be the last branch of next")
				}
				s.Next = append(s.Next, br)
				switch then.Kind {
				case yaml.ScalarNode:
					s.Next[i].Target = then.Value
					s.Next[i].Pos = r.pos(then)
				case yaml.SequenceNode:
					l, _ := r.list(then, "steps")
					if len(l) == 0 {
						return nil, nil, r.errf(then, "a branch's steps may not be empty")
					}
					inline = append(inline, inlineSteps{branch: i, nodes: l, prefix: fmt.Sprintf("%s_b%d_", s.ID, i+1)})
				default:
					return nil, nil, r.errf(then, "expected a step id or a list of steps, got %s", spec.DescribeNode(then))
				}
			}
			if len(s.Next) == 0 {
				return nil, nil, r.errf(nextNode, "next may not be empty")
			}
		default:
			return nil, nil, r.errf(nextNode, "expected next to be a step id, END or a list of branches, got %s", spec.DescribeNode(nextNode))
		}
	}
	return s, inline, nil
}

// condPos is the position of a condition's first character: a plain or
// quoted scalar on one line starts at its node (plus the quote).
func condPos(r *reader, n *yaml.Node) engine.Pos {
	p := r.pos(n)
	if n.Style == yaml.DoubleQuotedStyle || n.Style == yaml.SingleQuotedStyle {
		p.Col++
	}
	return p
}

func isName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// rejections reads a list of rejections (if, utter).
func (r *reader) rejections(val *yaml.Node) ([]Rejection, error) {
	l, err := r.list(val, "rejections")
	if err != nil {
		return nil, err
	}
	var out []Rejection
	for _, item := range l {
		pairs, err := r.pairs(item, "a rejection")
		if err != nil {
			return nil, err
		}
		rej := Rejection{Pos: r.pos(item)}
		for _, rp := range pairs {
			switch rp[0].Value {
			case "if":
				if rej.Cond, err = r.str(rp[1], "a rejection condition"); err != nil {
					return nil, err
				}
				rej.CondPos = condPos(r, rp[1])
			case "utter":
				rej.Utter = rp[1].Value
			default:
				return nil, r.errf(rp[0], "unknown rejection key %q (expected if, utter)", rp[0].Value)
			}
		}
		if rej.Cond == "" || rej.Utter == "" {
			return nil, r.errf(item, "a rejection needs if and utter")
		}
		out = append(out, rej)
	}
	return out, nil
}

// skippedPatterns are patterns a project may override that the import
// does not take from the project, and why.
var skippedPatterns = map[string]string{
	"pattern_collect_information": "the import builds every collect step itself (ask, wait, rejections); an override's templated steps ({{context.collect}}) have no counterpart",
	"pattern_session_start":       "a simctl conversation starts in the idle state",
	"pattern_code_change":         "the import simulates one version of the assistant",
}
