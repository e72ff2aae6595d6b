package spec

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/scxml"
)

// Tags every suite may use on scenarios; a suite adds its own in
// machine.yaml (tags:). Path tags name the state paths the mission cares
// about.
var BuiltinTags = []string{
	"happy", "disambiguation", "correction", "retry", "fork-merge", "timeout",
	"cancel", "confirmation", "error", "escalation", "off-topic", "validation",
	"direct-mapping", "contradiction", "generated", "explored",
}

// Scenario is a scripted conversation: turns with expectations after each,
// and expectations on the whole conversation.
type Scenario struct {
	File string `yaml:"-"`
	Pos  engine.Pos
	Name string `yaml:"name"`
	// Suite names the suite folder, relative to this file, for a scenario
	// kept outside it (a generated failure); empty: the file's folder.
	Suite           Str        `yaml:"suite"`
	Description     string     `yaml:"description"`
	Tags            StrList    `yaml:"tags"`
	KnownViolations KnownList  `yaml:"known_violations"`
	MaxTurns        int        `yaml:"max_turns"`
	MaxTurnsPos     engine.Pos `yaml:"-"`
	FinalState      Str        `yaml:"final_state"`
	Seed            int64      `yaml:"seed"`
	// Params pins machine parameters: the scenario runs in every variant
	// that gives them these values.
	Params Entries[string] `yaml:"parameters"`
	// FailAtStart lists the external actions that fail when the machine's
	// start invokes them, before the first turn.
	FailAtStart StrList `yaml:"fail_at_start"`
	// Liveness: the user cooperated on every turn, so the conversation
	// must have ended (a top-level final state, or back at the initial
	// state with nothing under way) by its last turn; otherwise it breaks
	// liveness, as the generated conversation it was shrunk from did.
	Liveness bool   `yaml:"liveness"`
	Turns    []Turn `yaml:"turns,required"`
	// Pin marks a scenario that pins the machine's behaviour as it is (one
	// simctl mutate --emit-scenarios wrote), not what the seed states:
	// mutation scores are given with and without such scenarios.
	Pin bool `yaml:"pin"`
}

// TagNames returns the scenario's tags.
func (s *Scenario) TagNames() []string {
	out := make([]string, len(s.Tags))
	for i, t := range s.Tags {
		out[i] = t.Value
	}
	return out
}

// HasTag reports whether the scenario has tag t.
func (s *Scenario) HasTag(t string) bool {
	for _, x := range s.Tags {
		if x.Value == t {
			return true
		}
	}
	return false
}

// Turn is one step of a scenario: a user utterance, a parsed event, or a
// wait that advances the virtual clock.
type Turn struct {
	Pos   engine.Pos
	User  *Str       `yaml:"user"`
	Wait  *Duration  `yaml:"wait"`
	Event *EventSpec `yaml:"event"`
	Fail  StrList    `yaml:"fail"`
	// Schedule fixes the order in which fork branches take their steps
	// during this turn (branch indices from 0); the run's seeded source
	// chooses once it is used up.
	Schedule []int   `yaml:"schedule"`
	Expect   *Expect `yaml:"expect"`
}

// EventSpec is a raw user event that bypasses the NLU: an intent (with
// text, value, confidence and entities), or, as an SCXML chart's
// scenarios write it, an event name with its data (_event.data).
type EventSpec struct {
	Pos    engine.Pos
	Intent Str `yaml:"intent"`
	// Name is the event's name, another way to write Intent.
	Name Str `yaml:"name"`
	// Data is the event's data: the ECMAScript data model reads it as
	// _event.data, an object of these keys (EventData).
	Data       Entries[Str] `yaml:"data"`
	Text       string       `yaml:"text"`
	Value      string       `yaml:"value"`
	Confidence *float64     `yaml:"confidence"`
	Entities   Entries[Str] `yaml:"entities"`
}

// Expect lists what must hold after a turn. Each field is optional.
type Expect struct {
	Pos         engine.Pos
	State       *Str         `yaml:"state"`
	Waiting     *Str         `yaml:"waiting"`
	Slots       Entries[Str] `yaml:"slots"`
	Counters    Entries[int] `yaml:"counters"`
	Empty       StrList      `yaml:"empty"`
	Bot         *Str         `yaml:"bot"`
	BotContains *Str         `yaml:"bot_contains"`
	BotMatches  *Str         `yaml:"bot_matches"`
	Intent      *Str         `yaml:"intent"`
	Actions     *StrList     `yaml:"actions"`
	Flows       *StrList     `yaml:"flows"`
	// Path lists the states the turn's transitions entered, in order (the
	// trace a reference such as WORKLOAD.md states), not only where it ends.
	Path         *StrList   `yaml:"path"`
	NLU          *Str       `yaml:"nlu"`
	Escalated    *bool      `yaml:"escalated"`
	EscalatedPos engine.Pos `yaml:"-"`
	// Configuration is the exact set of active atomic states (every
	// region's), in any order.
	Configuration *StrList `yaml:"configuration"`
	// Active lists states (of any kind) that must be active.
	Active StrList `yaml:"active"`
	// Done: whether the machine has reached a top-level final state.
	Done    *bool      `yaml:"done"`
	DonePos engine.Pos `yaml:"-"`
	// BotRe is BotMatches compiled.
	BotRe *regexp.Regexp `yaml:"-"`
}

// LoadScenario parses a scenario file and checks every name in it against
// the machine, so that a typo in an expectation is a load error rather than
// a confusing failure.
func LoadScenario(file string, data []byte, m *engine.Machine, tags map[string]bool, invariants map[string]bool) (*Scenario, error) {
	return loadScenario(file, data, m, tags, invariants, nil)
}

// loadScenario is LoadScenario with the names states go by besides their
// own (aliases: an SCXML id that is not an engine name, "asking-city",
// to its state's path), renamed before anything is checked.
func loadScenario(file string, data []byte, m *engine.Machine, tags map[string]bool, invariants map[string]bool, aliases map[string]string) (*Scenario, error) {
	s := &Scenario{File: file}
	if err := decodeFile(file, data, s); err != nil {
		return nil, err
	}
	if len(aliases) > 0 {
		s.rename(aliases)
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(file), ".scenario.yaml")
	}
	if len(s.Turns) == 0 {
		return nil, &Error{Pos: s.Pos, Msg: "scenario has no turns"}
	}
	for _, t := range s.Tags {
		if !tags[t.Value] {
			return nil, &Error{Pos: t.Pos, Msg: fmt.Sprintf("unknown tag %q (known tags: %s; a suite adds its own under tags: in machine.yaml)", t.Value, strings.Join(sortedSet(tags), ", "))}
		}
	}
	for i := range s.KnownViolations {
		if err := s.KnownViolations[i].check(m, invariants); err != nil {
			return nil, err
		}
	}
	if s.FinalState.Value != "" {
		if _, ok := m.StateID(s.FinalState.Value); !ok {
			return nil, unknownState(s.FinalState, m)
		}
	}
	if s.MaxTurns < 0 {
		return nil, &Error{Pos: s.MaxTurnsPos, Msg: "max_turns must not be negative"}
	}
	for _, f := range s.FailAtStart {
		if _, ok := m.ExtID(f.Value); !ok {
			return nil, &Error{Pos: f.Pos, Msg: fmt.Sprintf("fail_at_start: unknown action %q", f.Value)}
		}
	}
	for i := range s.Turns {
		if err := checkTurn(&s.Turns[i], m); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func checkTurn(t *Turn, m *engine.Machine) error {
	kinds := 0
	if t.User != nil {
		kinds++
	}
	if t.Wait != nil {
		kinds++
	}
	if t.Event != nil {
		kinds++
		if err := checkEvent(t.Event, m); err != nil {
			return err
		}
		if c := t.Event.Confidence; c != nil {
			if err := checkConfidence(t.Event.Pos, *c); err != nil {
				return err
			}
		}
	}
	if kinds != 1 {
		return &Error{Pos: t.Pos, Msg: "a turn needs exactly one of user, wait or event"}
	}
	for _, f := range t.Fail {
		if _, ok := m.ExtID(f.Value); !ok {
			return &Error{Pos: f.Pos, Msg: fmt.Sprintf("fail: unknown action %q", f.Value)}
		}
	}
	x := t.Expect
	if x == nil {
		return nil
	}
	if x.State != nil {
		if _, ok := m.StateID(x.State.Value); !ok {
			return unknownState(*x.State, m)
		}
	}
	if x.Configuration != nil {
		for _, s := range *x.Configuration {
			if _, ok := m.StateID(s.Value); !ok {
				return unknownState(s, m)
			}
		}
	}
	for _, s := range x.Active {
		if _, ok := m.StateID(s.Value); !ok {
			return unknownState(s, m)
		}
	}
	if x.Path != nil {
		for _, s := range *x.Path {
			if _, ok := m.StateID(s.Value); !ok {
				return unknownState(s, m)
			}
		}
	}
	if x.Waiting != nil && x.Waiting.Value != "" {
		if _, ok := m.SlotID(x.Waiting.Value); !ok {
			return unknownSlot(*x.Waiting, m)
		}
	}
	for _, s := range x.Slots {
		if _, ok := m.SlotID(s.Key); !ok {
			return unknownSlot(Str{Value: s.Key, Pos: s.KeyPos}, m)
		}
	}
	for _, s := range x.Empty {
		if _, ok := m.SlotID(s.Value); !ok {
			return unknownSlot(s, m)
		}
	}
	for _, c := range x.Counters {
		if _, ok := m.CounterID(c.Key); !ok {
			return &Error{Pos: c.KeyPos, Msg: fmt.Sprintf("unknown counter %q (counters: %s)", c.Key, joinNames(m.Counters()))}
		}
	}
	if x.Intent != nil {
		if _, ok := m.IntentID(x.Intent.Value); !ok {
			return unknownIntent(*x.Intent, m)
		}
	}
	if x.Actions != nil {
		for _, a := range *x.Actions {
			if _, ok := m.ExtID(a.Value); !ok {
				return &Error{Pos: a.Pos, Msg: fmt.Sprintf("unknown action %q", a.Value)}
			}
		}
	}
	if x.Flows != nil {
		for _, f := range *x.Flows {
			if _, ok := m.FlowID(f.Value); !ok {
				return &Error{Pos: f.Pos, Msg: fmt.Sprintf("unknown flow %q", f.Value)}
			}
		}
	}
	if x.NLU != nil && x.NLU.Value != "called" && x.NLU.Value != "skipped" {
		return &Error{Pos: x.NLU.Pos, Msg: fmt.Sprintf("nlu: expected called or skipped, got %q", x.NLU.Value)}
	}
	if x.BotMatches != nil {
		re, err := regexp.Compile(x.BotMatches.Value)
		if err != nil {
			return &Error{Pos: x.BotMatches.Pos, Msg: fmt.Sprintf("bot_matches: bad regular expression: %v", err)}
		}
		x.BotRe = re
	}
	return nil
}

// rename gives the states the scenario names by an alias their paths.
func (s *Scenario) rename(aliases map[string]string) {
	one := func(x *Str) {
		if p, ok := aliases[x.Value]; ok {
			x.Value = p
		}
	}
	list := func(l StrList) {
		for i := range l {
			one(&l[i])
		}
	}
	one(&s.FinalState)
	for i := range s.Turns {
		x := s.Turns[i].Expect
		if x == nil {
			continue
		}
		if x.State != nil {
			one(x.State)
		}
		for _, l := range []*StrList{x.Path, x.Configuration, &x.Active} {
			if l != nil {
				list(*l)
			}
		}
	}
}

// checkEvent checks an event: turn's intent, or its name (an SCXML
// chart's event), against the machine.
func checkEvent(e *EventSpec, m *engine.Machine) error {
	switch {
	case e.Intent.Value != "" && e.Name.Value != "":
		return &Error{Pos: e.Name.Pos, Msg: "an event has an intent or a name, not both"}
	case e.Intent.Value != "":
		if _, ok := m.IntentID(e.Intent.Value); !ok {
			return unknownIntent(e.Intent, m)
		}
	case e.Name.Pos.Line > 0:
		if e.Name.Value == "" {
			return &Error{Pos: e.Name.Pos, Msg: "empty event name"}
		}
		// As an unknown intent: an event no transition listens for
		// changes nothing, and is most likely a typo. A name the chart
		// does not know is delivered as the recommendation's descriptors
		// match it ("DIGIT" takes DIGIT.5), its own name kept as the
		// event's text (_event.name).
		id, exact, ok := scxml.EventIntent(m, e.Name.Value)
		if !ok {
			// Names beginning "__" are the compiler's own, no event a
			// scenario sends.
			var names []string
			for _, n := range m.Intents() {
				if !strings.HasPrefix(n, "__") {
					names = append(names, n)
				}
			}
			return &Error{Pos: e.Name.Pos, Msg: fmt.Sprintf("unknown event %q: no transition's event descriptor matches it (the machine's events: %s)",
				e.Name.Value, joinNames(names))}
		}
		e.Intent = e.Name
		if !exact {
			e.Intent.Value = m.Intents()[id]
			if e.Text == "" {
				e.Text = e.Name.Value
			}
		}
	default:
		return &Error{Pos: e.Pos, Msg: `missing required field "intent" (or "name", an SCXML event's)`}
	}
	return nil
}

// EventData is the event's data as the JSON text of an object (the
// value the ECMAScript data model reads as _event.data), or "" when it has
// none: numbers and booleans as written become numbers and booleans,
// anything else text.
func (e *EventSpec) EventData() string { return eventData(e.Data) }

func unknownState(s Str, m *engine.Machine) error {
	names := make([]string, m.NumStates())
	for i := range names {
		names[i] = m.StateName(engine.StateID(i))
	}
	sort.Strings(names)
	return &Error{Pos: s.Pos, Msg: fmt.Sprintf("unknown state %q (states: %s)", s.Value, joinNames(names))}
}

func unknownIntent(s Str, m *engine.Machine) error {
	return &Error{Pos: s.Pos, Msg: fmt.Sprintf("unknown intent %q (the machine declares: %s)", s.Value, joinNames(m.Intents()))}
}

func unknownSlot(s Str, m *engine.Machine) error {
	return &Error{Pos: s.Pos, Msg: fmt.Sprintf("unknown slot %q (slots: %s)", s.Value, joinNames(m.Slots()))}
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Known is one entry of a scenario's known_violations: an invariant that
// must break in the scenario, only in the findings its notes list. A bare
// name relies on the invariant's notes in machine.yaml; a mapping gives
// the scenario's own (the way to excuse a built-in invariant's finding).
type Known struct {
	Pos             engine.Pos
	Invariant       Str      `yaml:"invariant,required"`
	Contradiction   noteList `yaml:"contradiction"`
	ModellingChoice noteList `yaml:"modelling_choice"`
	// Notes are the scenario's own notes, checked against the machine.
	Notes []engine.NoteDef `yaml:"-"`
}

// KnownList is a scenario's known_violations.
type KnownList []Known

func (l *KnownList) decodeYAML(d *decoder, n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return d.errf(n, "expected a list of invariant names or of mappings with invariant: and its notes, got %s", DescribeNode(n))
	}
	for _, c := range n.Content {
		var k Known
		k.Pos = d.pos(c)
		if c.Kind == yaml.ScalarNode {
			if err := k.Invariant.decodeYAML(d, c); err != nil {
				return err
			}
		} else if err := d.decodeStruct(c, refl(&k), 1); err != nil {
			return err
		}
		*l = append(*l, k)
	}
	return nil
}

// Table reports whether invariant name is an allowed-transition table of
// m (whose findings are moves).
func Table(m *engine.Machine, name string) bool {
	for _, inv := range m.Invariants() {
		if inv.Name == name {
			return inv.Kind == engine.InvAllowed
		}
	}
	return false
}

func (k *Known) check(m *engine.Machine, invariants map[string]bool) error {
	name := k.Invariant.Value
	if !invariants[name] {
		return &Error{Pos: k.Invariant.Pos, Msg: fmt.Sprintf("known_violations: unknown invariant %q (invariants: %s)", name, strings.Join(sortedSet(invariants), ", "))}
	}
	defs, err := noteDefs(k.Contradiction, k.ModellingChoice)
	if err != nil {
		return err
	}
	k.Notes = defs
	if len(defs) > 0 {
		_, err := m.CompileNotes(name, Table(m, name), defs)
		return err
	}
	for _, inv := range m.Invariants() {
		if inv.Name == name && len(inv.Notes) > 0 {
			return nil
		}
	}
	for _, b := range m.BuiltinNotes() {
		if b.Name == name && len(b.Notes) > 0 {
			return nil
		}
	}
	return &Error{Pos: k.Invariant.Pos, Msg: fmt.Sprintf("known_violations: %s has no notes in machine.yaml: list the findings it excuses here (invariant: %s, with contradiction: or modelling_choice:)", name, name)}
}
