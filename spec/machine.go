package spec

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// machineFile is the schema of machine.yaml; docs/machine-format.md
// documents it.
type machineFile struct {
	Machine           string     `yaml:"machine,required"`
	MachinePos        engine.Pos `yaml:"-"`
	Description       string     `yaml:"description"`
	Initial           Str        `yaml:"initial,required"`
	MaxChain          int        `yaml:"max_chain"`
	MaxTurns          int        `yaml:"max_turns"`
	MaxTurnsPos       engine.Pos `yaml:"-"`
	ExploreDepth      *int       `yaml:"explore_depth"`
	ExploreMaxStates  int        `yaml:"explore_max_states"`
	Tags              StrList    `yaml:"tags"`
	Intents           StrList    `yaml:"intents"`
	CorrectionIntents StrList    `yaml:"correction_intents"`
	IdleStates        StrList    `yaml:"idle_states"`
	Escapes           StrList    `yaml:"escapes"`
	// Sources name the seed documents the notes cite: folders holding
	// them or the files, relative to the suite folder.
	Sources    StrList                `yaml:"sources"`
	Slots      Entries[slotYAML]      `yaml:"slots"`
	Counters   Entries[counterYAML]   `yaml:"counters"`
	Timers     Entries[Duration]      `yaml:"timers"`
	Flows      Entries[StrList]       `yaml:"flows"`
	Validators Entries[validatorYAML] `yaml:"validators"`
	Actions    Entries[externalYAML]  `yaml:"actions"`
	States     Entries[stateYAML]     `yaml:"states,required"`
	Invariants []invariantYAML        `yaml:"invariants"`
	Overrides  []overrideYAML         `yaml:"overrides"`
	On         Entries[transList]     `yaml:"on"`
	Parameters Entries[paramYAML]     `yaml:"parameters"`
	Variants   []variantYAML          `yaml:"variants"`
	Latency    *latencyYAML           `yaml:"latency"`
	// SLO holds the objectives as written; latency.ParseSLO reads them.
	SLO []Expr     `yaml:"slo"`
	Pos engine.Pos `yaml:"-"`
}

type slotYAML struct {
	Pos       engine.Pos
	Type      Str    `yaml:"type"`
	Validator Str    `yaml:"validator"`
	Prompt    string `yaml:"prompt"`
	Persist   bool   `yaml:"persist"`
}

type counterYAML struct {
	Pos   engine.Pos
	Limit int `yaml:"limit"`
}

type validatorYAML struct {
	Pos     engine.Pos
	OneOf   []string `yaml:"one_of"`
	Regex   string   `yaml:"regex"`
	Builtin string   `yaml:"builtin"`
}

type externalYAML struct {
	Pos      engine.Pos
	Succeeds Expr          `yaml:"succeeds"`
	Outputs  Entries[Expr] `yaml:"outputs"`
	// Kind (action, llm or synthesis) only chooses the action's default
	// latency distribution.
	Kind Str `yaml:"kind"`
	// NeverFails: the action cannot fail; explore and generated users do
	// not try its failure.
	NeverFails bool `yaml:"never_fails"`
}

type stateYAML struct {
	Pos         engine.Pos
	Description string             `yaml:"description"`
	Initial     Str                `yaml:"initial"`
	Final       bool               `yaml:"final"`
	Waits       bool               `yaml:"waits"`
	Direct      Str                `yaml:"direct"`
	Entry       actionList         `yaml:"entry"`
	Exit        actionList         `yaml:"exit"`
	On          Entries[transList] `yaml:"on"`
	Always      transList          `yaml:"always"`
	States      Entries[stateYAML] `yaml:"states"`
	Timeout     *timeoutYAML       `yaml:"timeout"`
	Fork        *forkYAML          `yaml:"fork"`
	Parallel    bool               `yaml:"parallel"`
	Failed      bool               `yaml:"failed"`
	// Cost marks a validation step for the latency model (validation).
	Cost Str `yaml:"cost"`
}

// withinYAML is "within N turns after X, Y".
type withinYAML struct {
	Pos   engine.Pos
	Turns int  `yaml:"turns,required"`
	After Expr `yaml:"after,required"`
	Then  Expr `yaml:"then,required"`
}

type timeoutYAML struct {
	Pos   engine.Pos
	After Duration  `yaml:"after,required"`
	Then  transList `yaml:"then,required"`
}

type forkYAML struct {
	Pos           engine.Pos
	Branches      int        `yaml:"branches"`
	InputsFrom    string     `yaml:"inputs_from"`
	InputsFromPos engine.Pos `yaml:"-"`
	Into          string     `yaml:"into"`
	IntoPos       engine.Pos `yaml:"-"`
	Merge         string     `yaml:"merge"`
	MergePos      engine.Pos `yaml:"-"`
	Join          transList  `yaml:"join,required"`
}

type overrideYAML struct {
	Pos         engine.Pos
	Name        Str        `yaml:"name,required"`
	Description string     `yaml:"description"`
	From        StrList    `yaml:"from"`
	To          StrList    `yaml:"to"`
	Guard       Expr       `yaml:"guard"`
	Target      Str        `yaml:"target,required"`
	Actions     actionList `yaml:"actions"`
}

type paramYAML struct {
	Pos         engine.Pos
	Type        Str      `yaml:"type"`
	Values      []string `yaml:"values"`
	Default     string   `yaml:"default"`
	Description string   `yaml:"description"`
}

type variantYAML struct {
	Pos  engine.Pos
	Name Str             `yaml:"name,required"`
	Set  Entries[string] `yaml:"set"`
}

type transYAML struct {
	Pos         engine.Pos
	Target      Str        `yaml:"target"`
	Guard       Expr       `yaml:"guard"`
	Actions     actionList `yaml:"actions"`
	Description string     `yaml:"description"`
	// History resumes the target where it was left: shallow or deep.
	History Str `yaml:"history"`
	// Type is internal or external (the default).
	Type Str `yaml:"type"`
}

type invariantYAML struct {
	Pos                engine.Pos
	Name               Str              `yaml:"name,required"`
	Description        string           `yaml:"description"`
	Always             Expr             `yaml:"always"`
	Never              Expr             `yaml:"never"`
	Within             *withinYAML      `yaml:"within"`
	AllowedTransitions Entries[StrList] `yaml:"allowed_transitions"`
	Transparent        StrList          `yaml:"transparent"`
	// The known findings the invariant excuses, by what they rest on.
	Contradiction   noteList `yaml:"contradiction"`
	ModellingChoice noteList `yaml:"modelling_choice"`
}

// noteYAML is one known finding: a table's move, or another invariant's
// state (and slot), with the seed text it rests on.
type noteYAML struct {
	Pos   engine.Pos
	Move  Str    `yaml:"move"`
	State Str    `yaml:"state"`
	Slot  Str    `yaml:"slot"`
	Seed  Str    `yaml:"seed"`
	Quote string `yaml:"quote"`
	Why   string `yaml:"why"`
	// Descendants widens the note's states to their descendants; Variants
	// narrows it to the variants named.
	Descendants bool    `yaml:"descendants"`
	Variants    StrList `yaml:"variants"`
}

type noteList []noteYAML

func (l *noteList) decodeYAML(d *decoder, n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return d.errf(n, "expected a list of known findings (each a move: from -> to, or a state:, with the seed: document:line it rests on), got %s", DescribeNode(n))
	}
	for _, c := range n.Content {
		var x noteYAML
		if err := d.decodeStruct(c, refl(&x), 1); err != nil {
			return err
		}
		*l = append(*l, x)
	}
	return nil
}

// seedRef is "document:line" or "document:first-last".
var seedRef = regexp.MustCompile(`^[^\s:]+:[1-9][0-9]*(-[1-9][0-9]*)?$`)

// noteDefs checks known findings' fields and converts them for the engine.
func noteDefs(contradiction, choice noteList) ([]engine.NoteDef, error) {
	var out []engine.NoteDef
	for _, l := range []struct {
		kind engine.NoteKind
		list noteList
	}{{engine.Contradiction, contradiction}, {engine.ModellingChoice, choice}} {
		for _, x := range l.list {
			d := engine.NoteDef{Kind: l.kind, Pos: x.Pos, Seed: x.Seed.Value, Quote: strings.TrimSpace(x.Quote), Why: strings.TrimSpace(x.Why),
				State: engine.NameDef{Name: x.State.Value, Pos: x.State.Pos}, Slot: engine.NameDef{Name: x.Slot.Value, Pos: x.Slot.Pos},
				Descendants: x.Descendants}
			for _, v := range x.Variants {
				d.Variants = append(d.Variants, engine.NameDef{Name: v.Value, Pos: v.Pos})
			}
			if x.Move.Value != "" {
				from, to, ok := strings.Cut(x.Move.Value, "->")
				from, to = strings.TrimSpace(from), strings.TrimSpace(to)
				if !ok || from == "" || to == "" || strings.Contains(to, "->") {
					return nil, &Error{Pos: x.Move.Pos, Msg: fmt.Sprintf("move %q: expected from -> to", x.Move.Value)}
				}
				col := x.Move.Pos
				d.From = engine.NameDef{Name: from, Pos: col}
				d.To = engine.NameDef{Name: to, Pos: col}
			}
			if x.Seed.Value != "" && !seedRef.MatchString(x.Seed.Value) {
				return nil, &Error{Pos: x.Seed.Pos, Msg: fmt.Sprintf("seed %q: expected document:line (such as 001_2dc4cc250bdceda9.txt:412)", x.Seed.Value)}
			}
			switch {
			case l.kind == engine.Contradiction && (x.Seed.Value == "" || d.Quote == ""):
				return nil, &Error{Pos: x.Pos, Msg: "a contradiction quotes the seed text it rests on: seed: document:line and quote: the text"}
			case l.kind == engine.ModellingChoice && d.Why == "":
				return nil, &Error{Pos: x.Pos, Msg: "a modelling choice says what the suite chose where the seeds are silent: why: the reason"}
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// Expr is an expression with the position of its first character (inside
// the quotes, if quoted).
type Expr struct {
	Src string
	Pos engine.Pos
}

func (x *Expr) decodeYAML(d *decoder, n *yaml.Node) error {
	s, err := d.scalar(n, "an expression")
	if err != nil {
		return err
	}
	x.Src, x.Pos = s, d.pos(n)
	if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
		x.Pos.Col++
	}
	return nil
}

func (x Expr) engine() engine.Expr { return engine.Expr{Src: x.Src, Pos: x.Pos} }

// transList is one transition or a list of them. A bare name is a
// transition to that state.
type transList []transYAML

func (l *transList) decodeYAML(d *decoder, n *yaml.Node) error {
	one := func(n *yaml.Node) (transYAML, error) {
		var t transYAML
		if n.Kind == yaml.ScalarNode {
			t.Pos = d.pos(n)
			err := t.Target.decodeYAML(d, n)
			return t, err
		}
		err := d.decodeStruct(n, refl(&t), 1)
		return t, err
	}
	if n.Kind == yaml.SequenceNode {
		for _, c := range n.Content {
			t, err := one(c)
			if err != nil {
				return err
			}
			*l = append(*l, t)
		}
		return nil
	}
	t, err := one(n)
	if err != nil {
		return err
	}
	*l = transList{t}
	return nil
}

// actionNames lists the action kinds in the order the docs give them.
var actionNames = []string{"set", "clear", "fill", "ask", "incr", "reset", "push", "pop",
	"say", "invoke", "start", "cancel", "escalate", "reset_context", "contract",
	"raise", "send", "cancel_send"}

// actionList decodes a list of actions; each item is a bare keyword (pop,
// reset_context) or a one-key mapping such as {say: "Hello {name}"}.
type actionList []engine.ActionDef

func (l *actionList) decodeYAML(d *decoder, n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return d.errf(n, "expected a list of actions, got %s", DescribeNode(n))
	}
	for _, item := range n.Content {
		if err := l.item(d, item); err != nil {
			return err
		}
	}
	return nil
}

func (l *actionList) item(d *decoder, n *yaml.Node) error {
	pos := d.pos(n)
	if n.Kind == yaml.ScalarNode {
		switch n.Value {
		case "pop":
			*l = append(*l, engine.ActionDef{Pos: pos, Kind: engine.ActPop})
		case "reset_context":
			*l = append(*l, engine.ActionDef{Pos: pos, Kind: engine.ActResetContext})
		default:
			return d.errf(n, "unknown action %q (expected one of: %s)", n.Value, strings.Join(actionNames, ", "))
		}
		return nil
	}
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return d.errf(n, "an action is a one-key mapping such as {say: \"…\"} or a keyword (pop, reset_context), got %s", DescribeNode(n))
	}
	k, v := n.Content[0], n.Content[1]
	pos = d.pos(k)
	name := func() (string, error) { return d.scalar(v, "a name") }
	simple := map[string]engine.ActionKind{
		"ask": engine.ActAsk, "incr": engine.ActIncr, "reset": engine.ActReset, "push": engine.ActPush,
		"say": engine.ActSay, "invoke": engine.ActInvoke, "cancel": engine.ActCancel, "escalate": engine.ActEscalate,
		"raise": engine.ActRaise, "cancel_send": engine.ActCancelSend,
	}
	if kind, ok := simple[k.Value]; ok {
		s, err := name()
		if err != nil {
			return err
		}
		p := d.pos(v)
		if kind == engine.ActSay || kind == engine.ActEscalate {
			if v.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
				p.Col++
			}
		}
		*l = append(*l, engine.ActionDef{Pos: p, Kind: kind, Name: s})
		return nil
	}
	switch k.Value {
	case "pop", "reset_context":
		kind := engine.ActPop
		if k.Value == "reset_context" {
			kind = engine.ActResetContext
		}
		*l = append(*l, engine.ActionDef{Pos: pos, Kind: kind})
	case "set":
		var sets Entries[Expr]
		if err := sets.decodeYAML(d, v); err != nil {
			return err
		}
		if len(sets) == 0 {
			return d.errf(v, "set needs at least one slot: expression pair")
		}
		for _, s := range sets {
			*l = append(*l, engine.ActionDef{Pos: s.KeyPos, Kind: engine.ActSet, Slot: s.Key, Expr: s.Value.engine()})
		}
	case "fill", "contract":
		var x Expr
		if err := x.decodeYAML(d, v); err != nil {
			return err
		}
		kind := engine.ActFill
		if k.Value == "contract" {
			kind = engine.ActContract
		}
		*l = append(*l, engine.ActionDef{Pos: pos, Kind: kind, Expr: x.engine()})
	case "clear":
		var names StrList
		if err := names.decodeYAML(d, v); err != nil {
			return err
		}
		for _, s := range names {
			*l = append(*l, engine.ActionDef{Pos: s.Pos, Kind: engine.ActClear, Name: s.Value})
		}
	case "send":
		if v.Kind == yaml.ScalarNode {
			s, err := name()
			if err != nil {
				return err
			}
			*l = append(*l, engine.ActionDef{Pos: d.pos(v), Kind: engine.ActSend, Name: s})
			return nil
		}
		var st struct {
			Event Str      `yaml:"event,required"`
			After Duration `yaml:"after"`
			ID    Str      `yaml:"id"`
		}
		if err := d.decodeStruct(v, refl(&st), 1); err != nil {
			return err
		}
		*l = append(*l, engine.ActionDef{Pos: st.Event.Pos, Kind: engine.ActSend, Name: st.Event.Value, ID: st.ID.Value,
			Expr: afterExpr(st.After, st.Event.Pos)})
	case "start":
		if v.Kind == yaml.ScalarNode {
			s, err := name()
			if err != nil {
				return err
			}
			*l = append(*l, engine.ActionDef{Pos: d.pos(v), Kind: engine.ActStart, Name: s})
			return nil
		}
		var st struct {
			Timer Str      `yaml:"timer,required"`
			After Duration `yaml:"after"`
		}
		if err := d.decodeStruct(v, refl(&st), 1); err != nil {
			return err
		}
		*l = append(*l, engine.ActionDef{Pos: st.Timer.Pos, Kind: engine.ActStart, Name: st.Timer.Value,
			Expr: afterExpr(st.After, st.Timer.Pos)})
	default:
		return d.errf(k, "unknown action %q (expected one of: %s)", k.Value, strings.Join(actionNames, ", "))
	}
	return nil
}

// afterExpr is the delay of a start or send action (after:, in ms) as the
// expression the engine compiles; none when the action gives no delay.
func afterExpr(after Duration, pos engine.Pos) engine.Expr {
	if after <= 0 {
		return engine.Expr{}
	}
	return engine.Expr{Src: strconv.FormatInt(int64(after), 10), Pos: pos}
}

// definition converts a decoded machine.yaml into an engine.Definition.
func (f *machineFile) definition(file string) (*engine.Definition, error) {
	def := &engine.Definition{
		Name: f.Machine, Pos: f.Pos, Initial: f.Initial.Value, InitialPos: f.Initial.Pos,
		MaxChain: f.MaxChain,
	}
	for _, s := range f.Intents {
		def.Intents = append(def.Intents, engine.NameDef{Name: s.Value, Pos: s.Pos})
	}
	for _, s := range f.IdleStates {
		def.IdleStates = append(def.IdleStates, engine.NameDef{Name: s.Value, Pos: s.Pos})
	}
	for _, s := range f.Escapes {
		def.Escapes = append(def.Escapes, engine.NameDef{Name: s.Value, Pos: s.Pos})
	}
	for _, s := range f.CorrectionIntents {
		def.CorrectionIntents = append(def.CorrectionIntents, engine.NameDef{Name: s.Value, Pos: s.Pos})
	}
	for _, e := range f.Slots {
		sd := engine.SlotDef{Name: e.Key, Pos: e.KeyPos, Validator: e.Value.Validator.Value, ValPos: e.Value.Validator.Pos,
			Prompt: e.Value.Prompt, Persist: e.Value.Persist}
		switch e.Value.Type.Value {
		case "", "text":
			sd.Type = engine.TypeText
		case "number":
			sd.Type = engine.TypeNumber
		case "bool":
			sd.Type = engine.TypeBool
		default:
			return nil, &Error{Pos: e.Value.Type.Pos, Msg: fmt.Sprintf("slot %q: unknown type %q (expected text, number or bool)", e.Key, e.Value.Type.Value)}
		}
		def.Slots = append(def.Slots, sd)
	}
	for _, e := range f.Counters {
		def.Counters = append(def.Counters, engine.CounterDef{Name: e.Key, Pos: e.KeyPos, Limit: e.Value.Limit})
	}
	for _, e := range f.Timers {
		def.Timers = append(def.Timers, engine.TimerDef{Name: e.Key, Pos: e.KeyPos, AfterMS: int64(e.Value)})
	}
	for _, e := range f.Flows {
		fd := engine.FlowDef{Name: e.Key, Pos: e.KeyPos}
		for _, s := range e.Value {
			fd.Slots = append(fd.Slots, s.Value)
			fd.SlotsPos = append(fd.SlotsPos, s.Pos)
		}
		def.Flows = append(def.Flows, fd)
	}
	for _, e := range f.Validators {
		def.Validators = append(def.Validators, engine.ValidatorDef{Name: e.Key, Pos: e.KeyPos,
			OneOf: e.Value.OneOf, Regex: e.Value.Regex, Builtin: e.Value.Builtin})
	}
	for _, e := range f.Actions {
		xd := engine.ExternalDef{Name: e.Key, Pos: e.KeyPos, Succeeds: e.Value.Succeeds.engine(), NeverFails: e.Value.NeverFails}
		for _, o := range e.Value.Outputs {
			xd.Outputs = append(xd.Outputs, engine.OutputDef{Name: o.Key, Expr: o.Value.engine()})
		}
		def.Actions = append(def.Actions, xd)
	}
	if err := flattenStates(def, "", f.States); err != nil {
		return nil, err
	}
	for _, on := range f.On {
		for _, t := range on.Value {
			def.On = append(def.On, t.engine(on.Key, on.KeyPos))
		}
	}
	for _, o := range f.Overrides {
		od := engine.OverrideDef{Name: o.Name.Value, Pos: o.Name.Pos, Description: o.Description, Guard: o.Guard.engine(),
			Target: o.Target.Value, TargetPos: o.Target.Pos, Actions: o.Actions}
		for _, s := range o.From {
			od.From = append(od.From, engine.NameDef{Name: s.Value, Pos: s.Pos})
		}
		for _, s := range o.To {
			od.To = append(od.To, engine.NameDef{Name: s.Value, Pos: s.Pos})
		}
		def.Overrides = append(def.Overrides, od)
	}
	for _, p := range f.Parameters {
		pd := engine.ParamDef{Name: p.Key, Pos: p.KeyPos, Values: p.Value.Values, Default: p.Value.Default}
		switch p.Value.Type.Value {
		case "", "text":
			pd.Type = engine.TypeText
		case "number":
			pd.Type = engine.TypeNumber
		case "bool":
			pd.Type = engine.TypeBool
		default:
			return nil, &Error{Pos: p.Value.Type.Pos, Msg: fmt.Sprintf("parameter %q: unknown type %q (expected text, number or bool)", p.Key, p.Value.Type.Value)}
		}
		if pd.Default == "" && len(pd.Values) > 0 {
			pd.Default = pd.Values[0]
		}
		def.Params = append(def.Params, pd)
	}
	for _, iv := range f.Invariants {
		if slices.Contains(eval.Notable, iv.Name.Value) {
			// A built-in invariant, or an explorer finding (livelock,
			// stuck), is listed by name only to give its notes.
			notes, err := noteDefs(iv.Contradiction, iv.ModellingChoice)
			if err != nil {
				return nil, err
			}
			if iv.Always.Src != "" || iv.Never.Src != "" || iv.Within != nil || len(iv.AllowedTransitions) > 0 || len(notes) == 0 {
				return nil, &Error{Pos: iv.Pos, Msg: fmt.Sprintf("invariant %q is built in: list it only to give its notes (contradiction: or modelling_choice:)", iv.Name.Value)}
			}
			def.BuiltinNotes = append(def.BuiltinNotes, engine.BuiltinNotesDef{Name: iv.Name.Value, Pos: iv.Pos, Notes: notes})
			continue
		}
		d := engine.InvariantDef{Name: iv.Name.Value, Pos: iv.Name.Pos, Description: iv.Description}
		notes, err := noteDefs(iv.Contradiction, iv.ModellingChoice)
		if err != nil {
			return nil, err
		}
		d.Notes = notes
		set := 0
		if iv.Always.Src != "" {
			set++
			d.Kind, d.Expr = engine.InvAlways, iv.Always.engine()
		}
		if iv.Never.Src != "" {
			set++
			d.Kind, d.Expr = engine.InvNever, iv.Never.engine()
		}
		if w := iv.Within; w != nil {
			set++
			d.Kind, d.Expr, d.Then, d.Turns = engine.InvWithin, w.After.engine(), w.Then.engine(), w.Turns
		}
		if len(iv.AllowedTransitions) > 0 {
			set++
			d.Kind = engine.InvAllowed
			for _, row := range iv.AllowedTransitions {
				a := engine.AllowedDef{From: engine.NameDef{Name: row.Key, Pos: row.KeyPos}, FromAny: row.Key == "*"}
				for _, to := range row.Value {
					a.To = append(a.To, engine.NameDef{Name: to.Value, Pos: to.Pos})
				}
				d.Allowed = append(d.Allowed, a)
			}
			for _, t := range iv.Transparent {
				d.Transparent = append(d.Transparent, engine.NameDef{Name: t.Value, Pos: t.Pos})
			}
		}
		if set != 1 {
			return nil, &Error{Pos: iv.Pos, Msg: fmt.Sprintf("invariant %q needs exactly one of always, never, within or allowed_transitions", iv.Name.Value)}
		}
		def.Invariants = append(def.Invariants, d)
	}
	return def, nil
}

func flattenStates(def *engine.Definition, parent string, states Entries[stateYAML]) error {
	for _, e := range states {
		s := &e.Value
		sd := engine.StateDef{Name: e.Key, Pos: e.KeyPos, Parent: parent, Initial: s.Initial.Value,
			InitialPos: s.Initial.Pos, Final: s.Final, Waits: s.Waits, Direct: s.Direct.Value, DirectPos: s.Direct.Pos,
			Entry: s.Entry, Exit: s.Exit}
		for _, on := range e.Value.On {
			for _, t := range on.Value {
				sd.On = append(sd.On, t.engine(on.Key, on.KeyPos))
			}
		}
		for _, t := range s.Always {
			sd.Always = append(sd.Always, t.engine("", engine.Pos{}))
		}
		sd.Failed, sd.Parallel = s.Failed, s.Parallel
		if s.Failed {
			sd.Final = true
		}
		if to := s.Timeout; to != nil {
			td := &engine.TimeoutDef{Pos: to.Pos, AfterMS: int64(to.After)}
			for _, t := range to.Then {
				td.Then = append(td.Then, t.engine("", engine.Pos{}))
			}
			sd.Timeout = td
		}
		if f := s.Fork; f != nil {
			fd := &engine.ForkDef{Pos: f.Pos, Branches: f.Branches, InputsFrom: f.InputsFrom, InputsPos: f.InputsFromPos,
				Into: f.Into, IntoPos: f.IntoPos, Merge: f.Merge, MergePos: f.MergePos}
			for _, t := range f.Join {
				fd.Join = append(fd.Join, t.engine("", engine.Pos{}))
			}
			sd.Fork = fd
		}
		def.States = append(def.States, sd)
		path := e.Key
		if parent != "" {
			path = parent + "." + e.Key
		}
		if err := flattenStates(def, path, s.States); err != nil {
			return err
		}
	}
	return nil
}

func (t transYAML) engine(on string, onPos engine.Pos) engine.TransitionDef {
	return engine.TransitionDef{Pos: t.Pos, On: on, OnPos: onPos, Guard: t.Guard.engine(),
		Target: t.Target.Value, TargetPos: t.Target.Pos, Actions: t.Actions,
		History: t.History.Value, HistoryPos: t.History.Pos, Type: t.Type.Value, TypePos: t.Type.Pos}
}
