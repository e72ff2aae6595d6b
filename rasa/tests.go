package rasa

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

func (p *Project) readTests(file string) error {
	root, err := load(file)
	if err != nil || root == nil {
		return err
	}
	r := &reader{file: file, p: p}
	kv, err := r.pairs(root, "an e2e test file")
	if err != nil {
		return err
	}
	fixtures := map[string][]SlotValue{}
	first := len(p.Tests)
	defer func() {
		// The file's fixtures, wherever the file lists them.
		for _, tc := range p.Tests[first:] {
			for _, fx := range tc.fixtureNames {
				sets, ok := fixtures[fx.Slot]
				if !ok {
					p.note(fx.Pos, "test case %s: fixture %s is not defined in its file; not kept", tc.Name, fx.Slot)
				}
				tc.Fixtures = append(tc.Fixtures, sets...)
			}
		}
	}()
	for _, e := range kv {
		switch e[0].Value {
		case "test_cases":
			cases, err := r.list(e[1], "test_cases")
			if err != nil {
				return err
			}
			for _, c := range cases {
				tc, err := r.readTestCase(c)
				if err != nil {
					return err
				}
				p.Tests = append(p.Tests, tc)
			}
		case "stub_custom_actions":
			stubs, err := r.pairs(e[1], "stub_custom_actions")
			if err != nil {
				return err
			}
			for _, s := range stubs {
				if err := r.readStub(s[0], s[1]); err != nil {
					return err
				}
			}
		case "fixtures":
			items, err := r.list(e[1], "fixtures")
			if err != nil {
				return err
			}
			for _, it := range items {
				named, err := r.pairs(it, "a fixture (name: list of slot: value)")
				if err != nil {
					return err
				}
				for _, nv := range named {
					sets, err := r.list(nv[1], "the fixture's slots")
					if err != nil {
						return err
					}
					var vals []SlotValue
					for _, set := range sets {
						kv, err := r.pairs(set, "a slot: value of a fixture")
						if err != nil {
							return err
						}
						for _, x := range kv {
							vals = append(vals, SlotValue{Slot: x[0].Value, Value: x[1], Pos: r.pos(x[0])})
						}
					}
					fixtures[nv[0].Value] = vals
				}
			}
		case "metadata":
			p.note(r.pos(e[0]), "e2e %s are not imported: a scenario starts with every slot empty", e[0].Value)
		default:
			p.note(r.pos(e[0]), "key %q of an e2e test file is not imported", e[0].Value)
		}
	}
	return nil
}

func (r *reader) readStub(k, v *yaml.Node) error {
	name, test := k.Value, ""
	if i := strings.Index(name, "::"); i >= 0 {
		test, name = name[:i], name[i+2:]
	}
	st := &Stub{Action: name, Pos: r.pos(k), File: r.file, Test: test}
	kv, err := r.pairs(v, "a stubbed action")
	if err != nil {
		return err
	}
	for _, e := range kv {
		switch e[0].Value {
		case "events":
			evs, err := r.list(e[1], "the stub's events")
			if err != nil {
				return err
			}
			for _, ev := range evs {
				pairs, err := r.pairs(ev, "an event")
				if err != nil {
					return err
				}
				var kind, slot string
				var val *yaml.Node
				for _, pe := range pairs {
					switch pe[0].Value {
					case "event":
						kind = pe[1].Value
					case "name":
						slot = pe[1].Value
					case "value":
						val = pe[1]
					}
				}
				if kind != "slot" {
					r.p.note(r.pos(ev), "stub %s: event %q is not imported (only slot events are)", name, kind)
					continue
				}
				if slot == "" || val == nil {
					return r.errf(ev, "a slot event needs name and value")
				}
				st.Slots = append(st.Slots, SlotValue{Slot: slot, Value: val, Pos: r.pos(ev)})
			}
		case "responses":
			rs, err := r.list(e[1], "the stub's responses")
			if err != nil {
				return err
			}
			for _, rn := range rs {
				pairs, err := r.pairs(rn, "a response")
				if err != nil {
					return err
				}
				for _, pe := range pairs {
					if pe[0].Value == "text" {
						st.Responses = append(st.Responses, pe[1].Value)
					} else {
						r.p.note(r.pos(pe[0]), "stub %s: response key %q is not imported", name, pe[0].Value)
					}
				}
			}
		default:
			return r.errf(e[0], "unknown stub key %q (expected events, responses)", e[0].Value)
		}
	}
	r.p.AllStubs = append(r.p.AllStubs, st)
	// The stand-in for tests whose file stubs nothing: the first
	// file-wide stub, else the first per-test one.
	if old := r.p.Stubs[name]; old == nil || (old.Test != "" && test == "") {
		r.p.Stubs[name] = st
	}
	return nil
}

func (r *reader) readTestCase(n *yaml.Node) (*TestCase, error) {
	kv, err := r.pairs(n, "a test case")
	if err != nil {
		return nil, err
	}
	tc := &TestCase{File: r.file, Pos: r.pos(n)}
	var steps *yaml.Node
	for _, e := range kv {
		switch e[0].Value {
		case "test_case":
			if tc.Name, err = r.str(e[1], "the test case's name"); err != nil {
				return nil, err
			}
		case "steps":
			steps = e[1]
		case "fixtures":
			names, err := r.list(e[1], "the test's fixtures")
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				name, err := r.str(n, "a fixture's name")
				if err != nil {
					return nil, err
				}
				tc.fixtureNames = append(tc.fixtureNames, SlotValue{Slot: name, Pos: r.pos(n)})
			}
		case "metadata":
			r.p.note(r.pos(e[0]), "test case %s: %s are not imported", tc.Name, e[0].Value)
		default:
			r.p.note(r.pos(e[0]), "test case key %q is not imported", e[0].Value)
		}
	}
	if tc.Name == "" {
		return nil, r.errf(n, "a test case needs test_case (its name)")
	}
	if steps == nil {
		return nil, r.errf(n, "test case %s has no steps", tc.Name)
	}
	list, err := r.list(steps, "the test case's steps")
	if err != nil {
		return nil, err
	}
	for _, s := range list {
		pairs, err := r.pairs(s, "a test step")
		if err != nil {
			return nil, err
		}
		for _, e := range pairs {
			key, val := e[0].Value, e[1]
			switch key {
			case "user", "bot", "utter":
				t, err := r.str(val, "the "+key+" step's text")
				if err != nil {
					return nil, err
				}
				tc.Steps = append(tc.Steps, TestStep{Kind: key, Text: t, Pos: r.pos(val)})
			case "slot_was_set", "slot_was_not_set":
				items := []*yaml.Node{val}
				if val.Kind == yaml.SequenceNode {
					items, _ = r.list(val, key)
				}
				for _, it := range items {
					switch it.Kind {
					case yaml.ScalarNode:
						tc.Steps = append(tc.Steps, TestStep{Kind: key, Slot: it.Value, Pos: r.pos(it)})
					case yaml.MappingNode:
						ps, err := r.pairs(it, key)
						if err != nil {
							return nil, err
						}
						for _, sv := range ps {
							tc.Steps = append(tc.Steps, TestStep{Kind: key, Slot: sv[0].Value, Value: sv[1], Pos: r.pos(sv[0])})
						}
					default:
						return nil, r.errf(it, "expected a slot name or slot: value")
					}
				}
			case "assertions":
				as, err := r.list(val, "assertions")
				if err != nil {
					return nil, err
				}
				for _, a := range as {
					if err := r.readAssertion(tc, a); err != nil {
						return nil, err
					}
				}
			case "metadata", "assertion_order_enabled":
				r.p.note(r.pos(e[0]), "test case %s: step key %s is not imported", tc.Name, key)
			default:
				r.p.note(r.pos(e[0]), "test case %s: test step %q is not imported; the test does not check it", tc.Name, key)
			}
		}
	}
	return tc, nil
}

// readAssertion keeps the assertions that have a scenario expectation:
// flow_started (the flow's state after the turn), bot_uttered (its
// response's text) and slot_was_set; it names the others.
func (r *reader) readAssertion(tc *TestCase, a *yaml.Node) error {
	pairs, err := r.pairs(a, "an assertion")
	if err != nil {
		return err
	}
	for _, e := range pairs {
		switch e[0].Value {
		case "flow_started":
			ids := []string{}
			if e[1].Kind == yaml.ScalarNode {
				ids = append(ids, e[1].Value)
			} else if e[1].Kind == yaml.MappingNode {
				ps, _ := r.pairs(e[1], "flow_started")
				for _, p := range ps {
					if p[0].Value == "flow_ids" && p[1].Kind == yaml.SequenceNode {
						for _, c := range p[1].Content {
							ids = append(ids, c.Value)
						}
					}
				}
			}
			for _, id := range ids {
				tc.Steps = append(tc.Steps, TestStep{Kind: "flow_started", Text: id, Pos: r.pos(e[1])})
			}
		case "action_executed":
			// Not checked; the slots the same turn shows set are what the
			// action did in this test (a stub derived from the test).
			tc.Steps = append(tc.Steps, TestStep{Kind: "action_executed", Text: e[1].Value, Pos: r.pos(e[1])})
		case "flow_completed":
			// Not checked (a scenario has no expectation for it); it
			// tells the import a flow ends in the turn.
			tc.Steps = append(tc.Steps, TestStep{Kind: "flow_completed", Pos: r.pos(e[0])})
			r.p.note(r.pos(e[0]), "assertion flow_completed is not checked (no scenario expectation stands for it)")
		case "bot_uttered":
			ps, err := r.pairs(e[1], "bot_uttered")
			if err != nil {
				return err
			}
			for _, p := range ps {
				switch p[0].Value {
				case "utter_name":
					tc.Steps = append(tc.Steps, TestStep{Kind: "utter_contains", Text: p[1].Value, Pos: r.pos(p[1])})
				case "text_matches":
					tc.Steps = append(tc.Steps, TestStep{Kind: "bot_matches", Text: p[1].Value, Pos: r.pos(p[1])})
				default:
					r.p.note(r.pos(p[0]), "assertion bot_uttered: %s is not imported", p[0].Value)
				}
			}
		case "slot_was_set":
			items, err := r.list(e[1], "slot_was_set")
			if err != nil {
				return err
			}
			for _, it := range items {
				ps, err := r.pairs(it, "a slot assertion")
				if err != nil {
					return err
				}
				st := TestStep{Kind: "slot_was_set", Pos: r.pos(it)}
				for _, p := range ps {
					switch p[0].Value {
					case "name":
						st.Slot = p[1].Value
					case "value":
						st.Value = p[1]
					}
				}
				tc.Steps = append(tc.Steps, st)
			}
		default:
			r.p.note(r.pos(e[0]), "assertion %s is not imported (no scenario expectation stands for it)", e[0].Value)
		}
	}
	return nil
}

// check resolves every reference: next targets, linked and called flows,
// collected and set slots, responses. A default pattern's references are
// the importer's own and hold by construction.
func (p *Project) check() error {
	for _, f := range p.Flows {
		ids := map[string]bool{}
		for _, s := range f.Steps {
			ids[s.ID] = true
		}
		for _, s := range f.Steps {
			for _, b := range s.Next {
				if b.Target != "" && b.Target != "END" && !ids[b.Target] {
					return &Error{Pos: b.Pos, Msg: fmt.Sprintf("next goes to step %q, which flow %s does not have (its steps: %s)", b.Target, f.ID, strings.Join(sortedKeys(ids), ", "))}
				}
			}
			switch s.Kind {
			case "collect":
				if p.Slot(s.Arg) == nil {
					return &Error{Pos: s.Pos, Msg: fmt.Sprintf("collect: slot %q is not in the domain", s.Arg)}
				}
				utter := s.Utter
				if utter == "" {
					utter = "utter_ask_" + s.Arg
				}
				if p.Responses[utter] == nil && !p.Actions["action_ask_"+s.Arg] {
					return &Error{Pos: s.Pos, Msg: fmt.Sprintf("collect %s: response %s is not in the domain (a collect step asks with utter_ask_<slot>, its utter, or action_ask_<slot>)", s.Arg, utter)}
				}
				for _, rj := range append(append([]Rejection{}, p.Slot(s.Arg).Rejections...), s.Rejections...) {
					if p.Responses[rj.Utter] == nil {
						return &Error{Pos: rj.Pos, Msg: fmt.Sprintf("rejection: response %s is not in the domain", rj.Utter)}
					}
				}
			case "action":
				if strings.HasPrefix(s.Arg, "utter_") && p.Responses[s.Arg] == nil {
					return &Error{Pos: s.Pos, Msg: fmt.Sprintf("action %s: response %s is not in the domain", s.Arg, s.Arg)}
				}
			case "link", "call":
				g := p.Flow(s.Arg)
				if g == nil {
					return &Error{Pos: s.Pos, Msg: fmt.Sprintf("%s: flow %q does not exist", s.Kind, s.Arg)}
				}
				if s.Kind == "call" && g.Pattern {
					return &Error{Pos: s.Pos, Msg: fmt.Sprintf("call: %s is a pattern; a flow calls flows", s.Arg)}
				}
			case "set_slots":
				for _, sv := range s.SetSlots {
					if p.Slot(sv.Slot) == nil {
						return &Error{Pos: sv.Pos, Msg: fmt.Sprintf("set_slots: slot %q is not in the domain", sv.Slot)}
					}
				}
			}
		}
	}
	for _, st := range p.AllStubs {
		for _, sv := range st.Slots {
			if p.Slot(sv.Slot) == nil {
				return &Error{Pos: sv.Pos, Msg: fmt.Sprintf("stub %s sets slot %q, which is not in the domain", st.Action, sv.Slot)}
			}
		}
	}
	for _, tc := range p.Tests {
		for _, s := range tc.Steps {
			switch s.Kind {
			case "utter", "utter_contains":
				if p.Responses[s.Text] == nil {
					return &Error{Pos: s.Pos, Msg: fmt.Sprintf("test case %s: response %s is not in the domain", tc.Name, s.Text)}
				}
			case "slot_was_set", "slot_was_not_set":
				if p.Slot(s.Slot) == nil {
					return &Error{Pos: s.Pos, Msg: fmt.Sprintf("test case %s: slot %q is not in the domain", tc.Name, s.Slot)}
				}
			case "flow_started":
				if p.Flow(s.Text) == nil {
					return &Error{Pos: s.Pos, Msg: fmt.Sprintf("test case %s: flow %q does not exist", tc.Name, s.Text)}
				}
			}
		}
	}
	return nil
}
