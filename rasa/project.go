// Package rasa imports a Rasa CALM project (config.yml, the domain, flows
// and end-to-end tests) as a simctl suite: machine.yaml, a starting-point
// nlu.yaml, one scenario per e2e test case and an import report. Read
// loads and checks a project (every error carries file:line:col); Translate
// turns it into the suite's files in memory; cli's `simctl import rasa`
// writes them.
package rasa

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

// Error is a problem in a project file, with its position.
type Error = spec.Error

// Note is a Rasa construct the translation does not keep, or keeps only
// approximately.
type Note = spec.Note

// Slot is a slot of the domain.
type Slot struct {
	Name   string
	Type   string // text, float, bool, categorical, any, list
	Values []string
	Pos    engine.Pos
	// Internal slots are the ones the translation adds (return points,
	// pattern context); Default marks the default patterns' slots.
	Internal bool
	// Rejections are the slot's validation rejections.
	Rejections []Rejection
	// Initial is the slot's initial_value (nil: none), set when the
	// conversation starts.
	Initial    *yaml.Node
	InitialPos engine.Pos
	// numeric: a text slot that every test setting it sets to a number
	// (an amount kept as text); a value read from a message is then the
	// number in it.
	numeric bool
}

// Response is a response of the domain; only its first variation is used.
type Response struct {
	Name  string
	Text  string
	Jinja bool
	Pos   engine.Pos
}

// Branch is one entry of a step's next: a condition (empty for else or an
// unconditional next) and where it goes: a step id, END, or inline steps.
type Branch struct {
	Cond    string
	CondPos engine.Pos
	Else    bool
	Target  string // a step id or "END"; empty when Steps holds inline steps
	Steps   []*Step
	Pos     engine.Pos
}

// Step is one step of a flow.
type Step struct {
	ID          string
	Kind        string // collect, action, set_slots, link, call, noop
	Arg         string // the slot, action, or flow
	Utter       string // collect: the response asking for the slot
	AskBefore   bool
	Reset       bool
	Rejections  []Rejection
	SetSlots    []SlotValue
	Next        []Branch
	HasNext     bool
	Description string
	Pos         engine.Pos
}

// Rejection is a collect step's slot rejection.
type Rejection struct {
	Cond    string
	CondPos engine.Pos
	Utter   string
	Pos     engine.Pos
}

// SlotValue is one assignment of a set_slots step or a stub.
type SlotValue struct {
	Slot  string
	Value *yaml.Node
	Pos   engine.Pos
}

// Flow is a flow or a pattern.
type Flow struct {
	ID           string
	Name         string
	Description  string
	Guard        string
	GuardPos     engine.Pos
	Steps        []*Step // in order, inline branch steps flattened after their parents
	Persisted    map[string]bool
	RunCompleted bool
	Pattern      bool
	Default      bool     // a default pattern the project did not override
	Triggers     []string // nlu_trigger intents: a "/intent" message starts the flow
	Pos          engine.Pos
}

// Stub is a stubbed custom action of the e2e tests.
type Stub struct {
	Action    string
	File      string // the e2e test file whose tests it stubs the action for
	Test      string // the one test case it is for (test_case::action), or ""
	Slots     []SlotValue
	Responses []string // texts said
	Said      []string // responses said by name (an action's code)
	// Exprs are slots set to a simctl expression over the slots: a
	// result the test shows depending on a value (derived stubs).
	Exprs [][2]string
	Pos   engine.Pos
}

// TestStep is one step of an e2e test case.
type TestStep struct {
	Kind  string // user, bot, utter, slot_was_set, slot_was_not_set, assertion
	Text  string // user or bot text, response name
	Slot  string // slot_was_set, slot_was_not_set
	Value *yaml.Node
	Pos   engine.Pos
}

// TestCase is one e2e test case.
type TestCase struct {
	Name  string
	File  string
	Steps []TestStep
	Pos   engine.Pos
	// Fixtures are the slots the test's fixtures set before it starts,
	// in order.
	Fixtures []SlotValue
	// fixtureNames are the fixtures the test names, with positions,
	// resolved against its file's fixtures once the file is read.
	fixtureNames []SlotValue
}

// Project is a Rasa CALM project as read from disk.
type Project struct {
	Dir       string
	Slots     []*Slot
	Responses map[string]*Response
	Actions   map[string]bool // the domain's custom actions
	Flows     []*Flow         // the project's flows, then the default patterns used
	Tests     []*TestCase
	// MaxChars is the command generator's input limit: a longer message
	// is answered by pattern_internal_error (Rasa's default, 420).
	MaxChars int
	Stubs    map[string]*Stub // per action, the first file-wide stub (else per-test one): the stand-in where a test's file stubs nothing
	AllStubs []*Stub
	// Recordings are the recorded replies of the LLM command generator
	// (llm_mock_server/collection.json), the parse of the messages they
	// answer.
	Recordings []Recording
	// Code are the custom actions whose Python code (actions/) does the
	// same unconditionally; CodeNotes the ones whose code decides.
	Code      map[string]*Stub
	CodeNotes map[string]Note
	Notes     []Note
	slotIdx   map[string]*Slot
	flowIdx   map[string]*Flow
}

// Slot returns the named slot, or nil.
func (p *Project) Slot(name string) *Slot { return p.slotIdx[name] }

// Flow returns the named flow, or nil.
func (p *Project) Flow(id string) *Flow { return p.flowIdx[id] }

func (p *Project) note(pos engine.Pos, format string, args ...any) {
	p.Notes = append(p.Notes, Note{Pos: pos, What: fmt.Sprintf(format, args...)})
}

// reader walks one file's nodes.
type reader struct {
	file string
	p    *Project
}

func (r *reader) pos(n *yaml.Node) engine.Pos {
	return engine.Pos{File: r.file, Line: max(n.Line, 1), Col: max(n.Column, 1)}
}

func (r *reader) errf(n *yaml.Node, format string, args ...any) error {
	return &Error{Pos: r.pos(n), Msg: fmt.Sprintf(format, args...)}
}

// pairs returns a mapping's key and value nodes, or an error naming what was expected.
func (r *reader) pairs(n *yaml.Node, what string) ([][2]*yaml.Node, error) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return nil, r.errf(n, "expected %s (a mapping), got %s", what, spec.DescribeNode(n))
	}
	var out [][2]*yaml.Node
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return nil, r.errf(k, "expected a key in %s", what)
		}
		if seen[k.Value] {
			return nil, r.errf(k, "duplicate key %q in %s", k.Value, what)
		}
		seen[k.Value] = true
		out = append(out, [2]*yaml.Node{k, deref(n.Content[i+1])})
	}
	return out, nil
}

func (r *reader) list(n *yaml.Node, what string) ([]*yaml.Node, error) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		return nil, r.errf(n, "expected %s (a list), got %s", what, spec.DescribeNode(n))
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = deref(c)
	}
	return out, nil
}

func (r *reader) str(n *yaml.Node, what string) (string, error) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", r.errf(n, "expected %s (text), got %s", what, spec.DescribeNode(n))
	}
	return n.Value, nil
}

func (r *reader) boolean(n *yaml.Node, what string) (bool, error) {
	n = deref(n)
	if n.Kind == yaml.ScalarNode {
		switch strings.ToLower(n.Value) {
		case "true", "yes":
			return true, nil
		case "false", "no":
			return false, nil
		}
	}
	return false, r.errf(n, "expected %s (true or false), got %s", what, spec.DescribeNode(n))
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// Read loads the project in dir: config.yml, domain.yml or domain/,
// flows.yml or data/ (every file with a flows: key), and e2e_tests/ or
// tests/ (every file with a test_cases: key).
func Read(dir string) (*Project, error) {
	p := &Project{Dir: dir, MaxChars: 420, Responses: map[string]*Response{}, Actions: map[string]bool{},
		Stubs: map[string]*Stub{}, Code: map[string]*Stub{}, CodeNotes: map[string]Note{}, slotIdx: map[string]*Slot{}, flowIdx: map[string]*Flow{}}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s: not a Rasa project folder", dir)
	}
	if cfg := filepath.Join(dir, "config.yml"); exists(cfg) {
		if err := p.readConfig(cfg); err != nil {
			return nil, err
		}
	}
	domains, err := files(dir, []string{"domain.yml", "domain.yaml"}, []string{"domain"}, "")
	if err != nil {
		return nil, err
	}
	if len(domains) == 0 {
		return nil, fmt.Errorf("%s: no domain.yml or domain/ folder: not a Rasa project", dir)
	}
	for _, f := range domains {
		if err := p.readDomain(f); err != nil {
			return nil, err
		}
	}
	flowFiles, err := files(dir, []string{"flows.yml", "flows.yaml"}, []string{"data"}, "flows")
	if err != nil {
		return nil, err
	}
	for _, f := range flowFiles {
		if err := p.readFlows(f, false); err != nil {
			return nil, err
		}
	}
	ruleFiles, err := files(dir, nil, []string{"data"}, "rules")
	if err != nil {
		return nil, err
	}
	for _, f := range ruleFiles {
		if err := p.readRules(f); err != nil {
			return nil, err
		}
	}
	if err := p.addDefaultPatterns(); err != nil {
		return nil, err
	}
	if err := p.readRecordings(); err != nil {
		return nil, err
	}
	testFiles, err := files(dir, nil, []string{"e2e_tests", "tests"}, "test_cases")
	if err != nil {
		return nil, err
	}
	for _, f := range testFiles {
		if err := p.readTests(f); err != nil {
			return nil, err
		}
	}
	p.markNumeric()
	if err := p.readActionCode(); err != nil {
		return nil, err
	}
	for name, st := range p.Code {
		var keep []SlotValue
		for _, sv := range st.Slots {
			if p.Slot(sv.Slot) != nil {
				keep = append(keep, sv)
			}
		}
		st.Slots = keep
		var said []string
		for _, r := range st.Said {
			if p.Responses[r] != nil {
				said = append(said, r)
			}
		}
		st.Said = said
		if p.Stubs[name] == nil {
			p.Stubs[name] = st
		}
	}
	return p, p.check()
}

func exists(f string) bool { _, err := os.Stat(f); return err == nil }

// files lists the named files of dir and the YAML files under its folders
// (recursively, sorted); with key set, only files whose text has that
// top-level key.
func files(dir string, names, folders []string, key string) ([]string, error) {
	var out []string
	for _, n := range names {
		if f := filepath.Join(dir, n); exists(f) {
			out = append(out, f)
		}
	}
	for _, d := range folders {
		root := filepath.Join(dir, d)
		if !exists(root) {
			continue
		}
		var found []string
		err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() || !(strings.HasSuffix(path, ".yml") || strings.HasSuffix(path, ".yaml")) {
				return nil
			}
			if key != "" {
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				if !hasTopKey(string(data), key) {
					return nil
				}
			}
			found = append(found, path)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: cannot read it (%v)", root, err)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

func hasTopKey(text, key string) bool {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, key+":") {
			return true
		}
	}
	return false
}

func load(file string) (*yaml.Node, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read it (%v)", file, err)
	}
	if emptyYAML(data) {
		// Rasa reads an empty file as no content; so does the import.
		return nil, nil
	}
	doc, err := spec.ParseYAML(file, data)
	if err != nil {
		return nil, err
	}
	return deref(doc.Content[0]), nil
}

func (p *Project) readConfig(file string) error {
	root, err := load(file)
	if err != nil || root == nil {
		return err
	}
	r := &reader{file: file, p: p}
	kv, err := r.pairs(root, "config.yml")
	if err != nil {
		return err
	}
	for _, e := range kv {
		if e[0].Value != "pipeline" || e[1].Kind != yaml.SequenceNode {
			continue
		}
		for _, c := range e[1].Content {
			c = deref(c)
			if c.Kind != yaml.MappingNode {
				continue
			}
			for i := 0; i+1 < len(c.Content); i += 2 {
				if c.Content[i].Value == "name" && strings.Contains(c.Content[i+1].Value, "CommandGenerator") {
					p.note(r.pos(c.Content[i+1]), "the %s (an LLM turning messages into commands) is not simulated: nlu.yaml's stub rules stand in for it", c.Content[i+1].Value)
				}
				// The generator's input limit (user_input: max_characters).
				if c.Content[i].Value == "user_input" && deref(c.Content[i+1]).Kind == yaml.MappingNode {
					u := deref(c.Content[i+1])
					for j := 0; j+1 < len(u.Content); j += 2 {
						if n, err := strconv.Atoi(u.Content[j+1].Value); err == nil && u.Content[j].Value == "max_characters" {
							p.MaxChars = n
						}
					}
				}
			}
		}
	}
	return nil
}

var slotTypes = map[string]bool{"text": true, "float": true, "bool": true, "categorical": true, "any": true, "list": true}

func (p *Project) addSlot(s *Slot) error {
	if old := p.slotIdx[s.Name]; old != nil {
		if old.Internal {
			// A project slot replaces a default pattern's slot of that name.
			*old = *s
			return nil
		}
		return &Error{Pos: s.Pos, Msg: fmt.Sprintf("slot %q is defined twice (first at %s)", s.Name, old.Pos)}
	}
	p.Slots = append(p.Slots, s)
	p.slotIdx[s.Name] = s
	return nil
}

func (p *Project) readDomain(file string) error {
	root, err := load(file)
	if err != nil || root == nil {
		return err
	}
	r := &reader{file: file, p: p}
	kv, err := r.pairs(root, "the domain")
	if err != nil {
		return err
	}
	for _, e := range kv {
		switch e[0].Value {
		case "slots":
			slots, err := r.pairs(e[1], "slots")
			if err != nil {
				return err
			}
			for _, s := range slots {
				if err := r.readSlot(s[0], s[1]); err != nil {
					return err
				}
			}
		case "responses":
			resp, err := r.pairs(e[1], "responses")
			if err != nil {
				return err
			}
			for _, s := range resp {
				if err := r.readResponse(s[0], s[1], false); err != nil {
					return err
				}
			}
		case "actions":
			acts, err := r.list(e[1], "actions")
			if err != nil {
				return err
			}
			for _, a := range acts {
				name := a.Value
				if a.Kind == yaml.MappingNode && len(a.Content) == 2 {
					name = a.Content[0].Value
				} else if a.Kind != yaml.ScalarNode {
					return r.errf(a, "expected an action name")
				}
				p.Actions[name] = true
			}
		case "forms":
			p.note(r.pos(e[0]), "forms are Rasa's pre-CALM dialogue model; they are not imported")
		case "version", "intents", "entities", "session_config", "config":
		default:
			p.note(r.pos(e[0]), "domain key %q is not imported", e[0].Value)
		}
	}
	return nil
}

func (r *reader) readSlot(k, v *yaml.Node) error {
	s := &Slot{Name: k.Value, Type: "text", Pos: r.pos(k)}
	kv, err := r.pairs(v, "slot "+k.Value)
	if err != nil {
		return err
	}
	for _, e := range kv {
		switch e[0].Value {
		case "type":
			t, err := r.str(e[1], "a slot type")
			if err != nil {
				return err
			}
			if !slotTypes[t] {
				return r.errf(e[1], "unknown slot type %q (expected one of: text, float, bool, categorical, any, list)", t)
			}
			s.Type = t
		case "values":
			vals, err := r.list(e[1], "the categorical values")
			if err != nil {
				return err
			}
			for _, x := range vals {
				s.Values = append(s.Values, x.Value)
			}
		case "initial_value":
			if e[1].Kind == yaml.ScalarNode && e[1].Tag != "!!null" {
				s.Initial = e[1]
				s.InitialPos = r.pos(e[1])
			} else if e[1].Tag != "!!null" {
				r.p.note(r.pos(e[1]), "slot %s: initial_value %s is not kept: only a single value is", s.Name, spec.DescribeNode(e[1]))
			}
		case "validation":
			// Rasa's slot validation: rejections checked whenever a
			// collect step has the slot, as the step's own are.
			kv, err := r.pairs(e[1], "the slot's validation")
			if err != nil {
				return err
			}
			for _, v := range kv {
				if v[0].Value != "rejections" {
					r.p.note(r.pos(v[0]), "slot %s: validation key %q is not imported", s.Name, v[0].Value)
					continue
				}
				rejs, err := r.rejections(v[1])
				if err != nil {
					return err
				}
				s.Rejections = append(s.Rejections, rejs...)
			}
		case "mappings", "influence_conversation", "min_value", "max_value", "shared_for_coexistence":
			if e[0].Value == "min_value" || e[0].Value == "max_value" {
				r.p.note(r.pos(e[0]), "slot %s: %s is not checked", s.Name, e[0].Value)
			}
		default:
			r.p.note(r.pos(e[0]), "slot %s: key %q is not imported", s.Name, e[0].Value)
		}
	}
	if s.Type == "list" {
		r.p.note(s.Pos, "slot %s: list slots become text slots", s.Name)
	}
	if s.Type == "categorical" && len(s.Values) == 0 {
		return r.errf(k, "categorical slot %s has no values", s.Name)
	}
	return r.p.addSlot(s)
}

func (r *reader) readResponse(k, v *yaml.Node, def bool) error {
	vars, err := r.list(v, "the variations of response "+k.Value)
	if err != nil {
		return err
	}
	resp := &Response{Name: k.Value, Pos: r.pos(k)}
	if len(vars) == 0 {
		return r.errf(v, "response %s has no variations", k.Value)
	}
	if len(vars) > 1 && !def {
		r.p.note(r.pos(vars[1]), "response %s: only its first variation is said", k.Value)
	}
	kv, err := r.pairs(vars[0], "a response variation")
	if err != nil {
		return err
	}
	has := false
	for _, e := range kv {
		switch e[0].Value {
		case "text":
			t, err := r.str(e[1], "the response text")
			if err != nil {
				return err
			}
			resp.Text, has = t, true
		case "metadata":
			md, err := r.pairs(e[1], "metadata")
			if err != nil {
				return err
			}
			for _, m := range md {
				switch {
				case m[0].Value == "template" && m[1].Value == "jinja":
					resp.Jinja = true
				case m[0].Value == "rephrase" && strings.EqualFold(m[1].Value, "true") && !def:
					r.p.note(r.pos(m[0]), "response %s: rephrasing by an LLM is not simulated; the text is said as written", k.Value)
				}
			}
		case "buttons", "image", "custom", "attachment", "quick_replies", "channel", "condition", "id":
			if !def {
				r.p.note(r.pos(e[0]), "response %s: %s is not imported (only the text is said)", k.Value, e[0].Value)
			}
		default:
			r.p.note(r.pos(e[0]), "response %s: key %q is not imported", k.Value, e[0].Value)
		}
	}
	if !has {
		return r.errf(vars[0], "response %s has no text", k.Value)
	}
	if old, ok := r.p.Responses[k.Value]; ok && !def {
		if !strings.HasPrefix(old.Pos.File, "(") {
			return r.errf(k, "response %s is defined twice (first at %s)", k.Value, old.Pos)
		}
	} else if ok && def {
		return nil // the project's own response wins
	}
	r.p.Responses[k.Value] = resp
	return nil
}

// emptyYAML tells whether data holds nothing but blank lines and comments.
func emptyYAML(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") && t != "---" {
			return false
		}
	}
	return true
}

// markNumeric marks the text slots the tests only ever set to numbers.
func (p *Project) markNumeric() {
	seen := map[*Slot]bool{}
	for _, tc := range p.Tests {
		for _, st := range tc.Steps {
			sl := p.Slot(st.Slot)
			v := deref(st.Value)
			if st.Kind != "slot_was_set" || sl == nil || v == nil || v.Tag == "!!null" {
				continue
			}
			_, err := strconv.ParseFloat(v.Value, 64)
			if !seen[sl] {
				seen[sl], sl.numeric = true, err == nil
			} else if err != nil {
				sl.numeric = false
			}
		}
	}
}
