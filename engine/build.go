package engine

import (
	"sort"
	"strings"
)

type builder struct {
	m     *Machine
	d     *Definition
	xc    *exprCompiler
	diags Diagnostics
	// stateOf maps an index of d.States to its state id, or NoID when
	// declareStates rejected it; ids shift past a rejected state.
	stateOf []StateID
	// nHist counts the Config.Hist entries given out.
	nHist int
	// tooManyTrans is set once MaxTransitions has been reported.
	tooManyTrans bool
	// lang compiles executable content: the expression language, or the
	// definition's data model.
	lang language
	// sendTimers are the timers of send actions, by name (send.EVENT or
	// send.EVENT#ID); sendIDs those of each sendid.
	sendIDs        map[string][]TimerID
	pendingCancels []pendingCancel
}

func (b *builder) add(e *Error) {
	if e != nil {
		b.diags = append(b.diags, e)
	}
}

func (b *builder) errf(pos Pos, format string, args ...any) { b.add(errf(pos, format, args...)) }

func (b *builder) warnf(pos Pos, format string, args ...any) {
	e := errf(pos, format, args...)
	e.Warning = true
	b.add(e)
}

// Build compiles a definition. It returns every problem found, errors and
// warnings, sorted by position; the machine is nil when any is an error.
func Build(d *Definition) (*Machine, Diagnostics) {
	b := &builder{d: d, m: &Machine{
		name:       d.Name,
		pos:        d.Pos,
		stateIDs:   map[string]StateID{},
		slotIDs:    map[string]SlotID{},
		counterIDs: map[string]CounterID{},
		timerIDs:   map[string]TimerID{},
		flowIDs:    map[string]FlowID{},
		intentIDs:  map[string]IntentID{},
		extIDs:     map[string]ExtID{},
		entityIDs:  map[string]EntityID{},
		maxChain:   d.MaxChain,
		dm:         d.DataModel,
	}}
	if b.m.maxChain <= 0 {
		b.m.maxChain = DefaultMaxChain
	}
	if d.MaxChain > MaxChainLimit {
		b.errf(d.Pos, "max_chain is %d, more than the %d allowed", d.MaxChain, MaxChainLimit)
	}
	b.symbols()
	b.declareStates()
	b.stateTimers()
	b.xc = newExprCompiler(b.m)
	b.xc.use = newValueUse()
	b.lang = exprLanguage{b}
	if d.DataModel != nil {
		b.lang = modelLanguage{b: b, dm: d.DataModel}
	}
	b.xc.use.sink = &b.xc.use.extReads
	b.compileExts()
	b.xc.use.sink = nil
	b.compileStates()
	b.compileRootTransitions()
	b.m.nHist = b.nHist
	for i := range b.m.states {
		if st := &b.m.states[i]; st.par && st.histPos >= 0 {
			b.m.regionDeep = true
		}
	}
	b.compileOverrides()
	b.resolveCancels()
	b.escapes()
	if !b.failed() {
		b.idleStates()
		b.tables()
		b.m.prepareFast()
		b.m.prepareStart()
		b.reachability()
	}
	b.m.prepareDirect()
	b.xc.use.sink = &b.xc.use.invReads
	b.compileInvariants()
	b.compileBuiltinNotes()
	b.xc.use.sink = nil
	if d.DataModel != nil {
		// A data model's scripts read the event's name and data as they
		// please (an SCXML chart's _event.name, key.7 taken by the
		// descriptor "key"): no expression of the machine's says which
		// texts they tell apart.
		b.xc.use.distinguish(Expr{Src: "_event", Pos: d.Pos}, "a data model's scripts read the events' names and data")
	}
	b.finishValues(b.xc.use)
	b.finishCounters(b.xc.use.ctr)
	sort.SliceStable(b.diags, func(i, j int) bool {
		x, y := b.diags[i].Pos, b.diags[j].Pos
		if x.File != y.File {
			return x.File < y.File
		}
		if x.Line != y.Line {
			return x.Line < y.Line
		}
		return x.Col < y.Col
	})
	if b.failed() {
		return nil, b.diags
	}
	return b.m, b.diags
}

// Limits on what a definition may declare. Ids are 16-bit, and some build
// tables grow with the square of the number of states, so without them a
// short file could make Build run for minutes or exhaust memory; the
// largest seed suites are far below them (32 states, 17 intents), and
// imported bots (the Rasa CALM demo: 97 slots) too.
const (
	MaxStates      = 10000
	MaxTransitions = 60000
	MaxIntents     = 1024
	// MaxNames bounds each of timers, flows, actions, validators,
	// parameters and entity names.
	MaxNames      = 1024
	MaxInvariants = 64
)

// upTo returns the first limit items of a declaration list and reports the
// rest as one error, at the first item past the limit.
func upTo[T any](b *builder, kind string, items []T, limit int, pos func(T) Pos) []T {
	if len(items) <= limit {
		return items
	}
	b.errf(pos(items[limit]), "too many %s: %d (at most %d)", kind, len(items), limit)
	return items[:limit]
}

func (b *builder) failed() bool {
	for _, e := range b.diags {
		if !e.Warning {
			return true
		}
	}
	return false
}

// checkName reports reserved, duplicate or malformed names.
func (b *builder) checkName(kind, name string, pos Pos, seen map[string]Pos) bool {
	switch {
	case name == "":
		b.errf(pos, "%s needs a name", kind)
		return false
	case kind == "intent" && b.d.DataModel != nil && strings.ContainsAny(name, " \t\r\n"):
		// A data model's events are named as its documents name them
		// (SCXML's NMTOKENs: "In-s1", "a:b"); no expression of the
		// expression language reads them.
		b.errf(pos, "intent name %q must not contain white space", name)
		return false
	case kind == "intent" && b.d.DataModel == nil && !validEventName(name):
		b.errf(pos, "intent name %q must be letters, digits and underscores, not starting with a digit, in parts joined by dots", name)
		return false
	case kind != "intent" && !validIdent(name):
		b.errf(pos, "%s name %q must be letters, digits and underscores, not starting with a digit", kind, name)
		return false
	case reserved[name] && (kind == "slot" || kind == "counter" || kind == "validator" || kind == "parameter"):
		// Only names that expressions can read clash with the language.
		b.errf(pos, "%s name %q is reserved", kind, name)
		return false
	}
	if prev, dup := seen[name]; dup {
		b.errf(pos, "duplicate name %q (first declared at %s)", name, prev)
		return false
	}
	seen[name] = pos
	return true
}

// validEventName accepts an intent name: identifiers joined by dots, as
// the recommendation's event names are (error.execution).
func validEventName(s string) bool {
	for _, part := range strings.Split(s, ".") {
		if !validIdent(part) {
			return false
		}
	}
	return true
}

func validIdent(s string) bool {
	for i, r := range s {
		switch {
		case r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

func (b *builder) symbols() {
	m, d := b.m, b.d
	// Slots, counters and validators share the expression namespace.
	// Builtin validators may share a name with a slot (a form's email
	// field); the slot then wins the bare name and the validator stays
	// callable as is_email(x).
	names := map[string]Pos{}
	for _, v := range builtinValidators {
		m.validators = append(m.validators, &validator{name: v, fn: builtinValidatorFuncs[v]})
	}
	for _, vd := range upTo(b, "validators", d.Validators, MaxNames, func(v ValidatorDef) Pos { return v.Pos }) {
		if _, builtin := builtinValidatorFuncs[vd.Name]; builtin {
			b.errf(vd.Pos, "validator %q is a builtin validator; choose another name", vd.Name)
			continue
		}
		if !b.checkName("validator", vd.Name, vd.Pos, names) {
			continue
		}
		v, err := compileValidator(vd)
		if err != nil {
			b.add(err)
			continue
		}
		m.validators = append(m.validators, v)
	}
	if len(d.Slots) > MaxSlots {
		b.errf(d.Slots[MaxSlots].Pos, "too many slots: %d (at most %d)", len(d.Slots), MaxSlots)
	}
	for i, sd := range d.Slots {
		if i >= MaxSlots || !b.checkName("slot", sd.Name, sd.Pos, names) {
			continue
		}
		s := slot{name: sd.Name, pos: sd.Pos, typ: sd.Type, persist: sd.Persist, prompt: sd.Prompt}
		if sd.Validator != "" {
			if s.validator = m.validator(sd.Validator); s.validator == nil {
				b.errf(sd.ValPos, "slot %q: unknown validator %q", sd.Name, sd.Validator)
			}
		}
		m.slotIDs[sd.Name] = SlotID(len(m.slots))
		if len(m.slots) < InlineSlots && !s.persist {
			m.transient |= 1 << len(m.slots)
		}
		m.slots = append(m.slots, s)
	}
	if len(d.Counters) > MaxCounters {
		b.errf(d.Counters[MaxCounters].Pos, "too many counters: %d (at most %d)", len(d.Counters), MaxCounters)
	}
	for i, cd := range d.Counters {
		if i >= MaxCounters || !b.checkName("counter", cd.Name, cd.Pos, names) {
			continue
		}
		if cd.Limit < 0 {
			b.errf(cd.Pos, "counter %q: limit must not be negative", cd.Name)
		}
		m.counterIDs[cd.Name] = CounterID(len(m.counters))
		m.counters = append(m.counters, counter{name: cd.Name, pos: cd.Pos, limit: cd.Limit})
	}
	seen := map[string]Pos{}
	for _, td := range upTo(b, "timers", d.Timers, MaxNames, func(t TimerDef) Pos { return t.Pos }) {
		if !b.checkName("timer", td.Name, td.Pos, seen) {
			continue
		}
		if td.AfterMS <= 0 {
			b.errf(td.Pos, "timer %q needs a positive duration", td.Name)
		}
		m.timerIDs[td.Name] = TimerID(len(m.timers))
		m.timers = append(m.timers, timer{name: td.Name, pos: td.Pos, afterMS: td.AfterMS})
	}
	seen = map[string]Pos{}
	for _, fd := range upTo(b, "flows", d.Flows, MaxNames, func(f FlowDef) Pos { return f.Pos }) {
		if !b.checkName("flow", fd.Name, fd.Pos, seen) {
			continue
		}
		f := flow{name: fd.Name, pos: fd.Pos}
		for i, sn := range fd.Slots {
			id, ok := m.slotIDs[sn]
			if !ok {
				p := fd.Pos
				if i < len(fd.SlotsPos) {
					p = fd.SlotsPos[i]
				}
				b.errf(p, "flow %q: unknown slot %q", fd.Name, sn)
				continue
			}
			f.slots = append(f.slots, id)
			f.far = f.far || int(id) >= InlineSlots
		}
		m.flowIDs[fd.Name] = FlowID(len(m.flows))
		m.flows = append(m.flows, f)
	}
	seen = map[string]Pos{}
	for _, in := range upTo(b, "intents", d.Intents, MaxIntents, func(n NameDef) Pos { return n.Pos }) {
		if !b.checkName("intent", in.Name, in.Pos, seen) {
			continue
		}
		m.intentIDs[in.Name] = IntentID(len(m.intents))
		m.intents = append(m.intents, in.Name)
	}
	m.errExec = NoID
	if id, ok := m.intentIDs[ErrorExecution]; ok {
		m.errExec = id
	}
	b.params(names)
	m.correction = make([]bool, len(m.intents))
	for _, ci := range d.CorrectionIntents {
		id, ok := m.intentIDs[ci.Name]
		if !ok {
			b.errf(ci.Pos, "correction_intents: unknown intent %q", ci.Name)
			continue
		}
		m.correction[id] = true
	}
	seen = map[string]Pos{}
	for _, ed := range upTo(b, "actions", d.Actions, MaxNames, func(e ExternalDef) Pos { return e.Pos }) {
		if !b.checkName("action", ed.Name, ed.Pos, seen) {
			continue
		}
		m.extIDs[ed.Name] = ExtID(len(m.exts))
		m.exts = append(m.exts, ext{name: ed.Name, pos: ed.Pos})
	}
}

// params fixes every parameter's value for this build: the assigned one,
// else the default, checked against the declared values and type.
func (b *builder) params(names map[string]Pos) {
	m, d := b.m, b.d
	m.params = map[string]Value{}
	declared := map[string]bool{}
	for _, p := range upTo(b, "parameters", d.Params, MaxNames, func(p ParamDef) Pos { return p.Pos }) {
		if !b.checkName("parameter", p.Name, p.Pos, names) {
			continue
		}
		declared[p.Name] = true
		raw, ok := d.Assign[p.Name]
		if !ok {
			raw = p.Default
		}
		if len(p.Values) > 0 {
			found := false
			for _, v := range p.Values {
				found = found || v == raw
			}
			if !found {
				b.errf(p.Pos, "parameter %q: value %q is not one of %s", p.Name, raw, strings.Join(p.Values, ", "))
				m.params[p.Name] = zeroValue(p.Type)
				continue
			}
		}
		v := TextValue(raw)
		switch p.Type {
		case TypeBool:
			switch raw {
			case "true":
				v = BoolValue(true)
			case "false", "":
				v = BoolValue(false)
			default:
				b.errf(p.Pos, "parameter %q: %q is not true or false", p.Name, raw)
				m.params[p.Name] = zeroValue(p.Type)
				continue
			}
		case TypeNumber:
			n, ok := parseNumber(raw)
			if !ok {
				b.errf(p.Pos, "parameter %q: %q is not a number", p.Name, raw)
				m.params[p.Name] = zeroValue(p.Type)
				continue
			}
			v = NumberValue(n)
		}
		m.params[p.Name] = v
	}
	for _, k := range sortedKeys(d.Assign) {
		if !declared[k] {
			b.errf(d.Pos, "variant assigns unknown parameter %q", k)
		}
	}
}

// zeroValue is what a parameter whose value was rejected stands for: it
// stays declared, with its type, so that the expressions reading it do not
// add a cascade of "unknown name" errors to the one that matters.
func zeroValue(t SlotType) Value {
	switch t {
	case TypeBool:
		return BoolValue(false)
	case TypeNumber:
		return NumberValue(0)
	}
	return TextValue("")
}

func (b *builder) declareStates() {
	m, d := b.m, b.d
	if len(d.States) == 0 {
		b.errf(d.Pos, "machine %q has no states", d.Name)
		return
	}
	if len(d.States) > MaxStates {
		b.errf(d.States[MaxStates].Pos, "too many states: %d (at most %d)", len(d.States), MaxStates)
		return
	}
	byPath := map[string]StateID{}
	b.stateOf = make([]StateID, len(d.States))
	for i, sd := range d.States {
		b.stateOf[i] = NoID
		path := sd.Name
		if sd.Parent != "" {
			path = sd.Parent + "." + sd.Name
		}
		if !validIdent(sd.Name) {
			b.errf(sd.Pos, "state name %q must be letters, digits and underscores, not starting with a digit", sd.Name)
			continue
		}
		if prev, dup := byPath[path]; dup {
			b.errf(sd.Pos, "duplicate state %q (first declared at %s)", path, m.states[prev].pos)
			continue
		}
		id := StateID(len(m.states))
		b.stateOf[i] = id
		byPath[path] = id
		m.states = append(m.states, state{name: sd.Name, path: path, pos: sd.Pos, parent: NoID,
			initial: NoID, final: sd.Final, waits: sd.Waits, direct: NoID})
	}
	for i := range m.states {
		s := &m.states[i]
		if j := strings.LastIndexByte(s.path, '.'); j >= 0 {
			p, ok := byPath[s.path[:j]]
			if !ok {
				b.errf(s.pos, "state %q: unknown parent %q", s.path, s.path[:j])
				continue
			}
			s.parent = p
			m.states[p].children = append(m.states[p].children, StateID(i))
		}
	}
	for i := range m.states {
		depth := 0
		for p := m.states[i].parent; p != NoID && depth <= len(m.states); p = m.states[p].parent {
			depth++
		}
		m.states[i].depth = depth
	}
	for p, id := range byPath {
		m.stateIDs[p] = id
	}
	// Every dotted tail of a path that names one state only ("agenda.
	// awaiting_date" for "agent_delegated.agenda.awaiting_date") resolves
	// too, for specs and scenarios alike.
	tails := map[string][]StateID{}
	for i := range m.states {
		p := m.states[i].path
		for j := 0; j < len(p); j++ {
			if p[j] == '.' {
				tails[p[j+1:]] = append(tails[p[j+1:]], StateID(i))
			}
		}
	}
	for name, ids := range tails {
		if len(ids) == 1 {
			if _, taken := m.stateIDs[name]; !taken {
				m.stateIDs[name] = ids[0]
			}
		}
	}
}

// resolveState finds a state by path, unique short name or unique tail of a
// path ("c1.x" for "work.c.c1.x").
func (b *builder) resolveState(name string, pos Pos, what string) StateID {
	m := b.m
	id, matches := b.lookupState(name)
	switch {
	case id != NoID:
		return id
	case len(matches) > 1:
		sort.Strings(matches)
		b.errf(pos, "%s: state name %q is ambiguous (%s); use the full path", what, name, describe(matches))
		return NoID
	}
	var all []string
	for i := range m.states {
		all = append(all, m.states[i].path)
	}
	sort.Strings(all)
	b.errf(pos, "%s: unknown state %q (states: %s)", what, name, describe(all))
	return NoID
}

// lookupState finds a state by full path or by a unique tail of one
// ("c1.x" for "work.c.c1.x"); when it finds none, it returns the paths
// the name matches (several: ambiguous).
func (b *builder) lookupState(name string) (StateID, []string) {
	m := b.m
	if id, ok := m.stateIDs[name]; ok {
		return id, nil
	}
	var matches []string
	for i := range m.states {
		if m.states[i].name == name || strings.HasSuffix(m.states[i].path, "."+name) {
			matches = append(matches, m.states[i].path)
		}
	}
	if len(matches) == 1 {
		return m.stateIDs[matches[0]], nil
	}
	return NoID, matches
}

// stateTimers declares the implicit timer of every state timeout, so that
// its transitions can name it like any timer.
func (b *builder) stateTimers() {
	m := b.m
	for i, sd := range b.d.States {
		if sd.Timeout == nil {
			continue
		}
		id := b.stateOf[i]
		if id == NoID {
			continue
		}
		if sd.Timeout.AfterMS <= 0 {
			b.errf(sd.Timeout.Pos, "state %q: timeout needs a positive duration", m.states[id].path)
			continue
		}
		if len(sd.Timeout.Then) == 0 {
			b.errf(sd.Timeout.Pos, "state %q: timeout needs at least one transition under then", m.states[id].path)
			continue
		}
		name := TimeoutTimer(m.states[id].path)
		m.timerIDs[name] = TimerID(len(m.timers))
		m.timers = append(m.timers, timer{name: name, pos: sd.Timeout.Pos, afterMS: sd.Timeout.AfterMS})
	}
}

func (b *builder) compileExts() {
	for i, ed := range b.d.Actions {
		id, ok := b.m.extIDs[ed.Name]
		if !ok || int(id) != i {
			continue
		}
		e := &b.m.exts[id]
		e.neverFails = ed.NeverFails
		if ed.NeverFails && ed.Succeeds.Src != "" {
			b.errf(ed.Succeeds.Pos, "action %q: never_fails and succeeds contradict each other (succeeds says when it fails)", ed.Name)
		}
		if ed.Succeeds.Src != "" {
			c, err := b.xc.compile(ed.Succeeds, Bool)
			b.add(err)
			e.succeeds = c.b
		}
		for _, o := range ed.Outputs {
			want := Empty
			if sid, ok := b.m.slotIDs[o.Name]; ok {
				want = [...]ValueKind{TypeText: Text, TypeNumber: Number, TypeBool: Bool}[b.m.slots[sid].typ]
			}
			c, err := b.xc.compile(o.Expr, want)
			b.add(err)
			if c.cat {
				// The output reaches expressions as an entity of the result.
				b.xc.use.distinguish(o.Expr, "an action's output built with + from a user's text")
			}
			eid, ok := b.m.entity(o.Name)
			if !ok {
				b.errf(ed.Pos, "action %q: too many entity names (at most %d)", ed.Name, MaxNames)
				continue
			}
			e.outputs = append(e.outputs, extOutput{entity: eid, x: c, pos: o.Expr.Pos, name: o.Name})
		}
	}
}

func (b *builder) compileStates() {
	m, d := b.m, b.d
	if len(m.states) == 0 {
		return
	}
	// Initial children are resolved for every state before any transition
	// is compiled: a transition's entry path follows the initial children of
	// its target, which may be declared after the transition.
	for i, sd := range d.States {
		id := b.stateOf[i]
		if id == NoID {
			// The state was rejected by declareStates; skip its body.
			continue
		}
		s := &m.states[id]
		if sd.Parallel {
			b.declareParallel(id, sd)
		} else if len(s.children) > 0 {
			if sd.Final {
				b.errf(sd.Pos, "final state %q cannot have child states", s.path)
			}
			if sd.Initial == "" {
				b.errf(sd.Pos, "compound state %q needs an initial child state", s.path)
			} else {
				for _, c := range s.children {
					if m.states[c].name == sd.Initial {
						s.initial = c
					}
				}
				if s.initial == NoID {
					b.errf(sd.InitialPos, "compound state %q: initial state %q is not one of its children", s.path, sd.Initial)
				}
			}
		} else if sd.Initial != "" {
			b.errf(sd.InitialPos, "state %q has no child states, so it cannot have an initial state", s.path)
		}
		s.failed = sd.Failed
		if sd.Failed && !sd.Final {
			b.errf(sd.Pos, "state %q: failed applies to final states (a failed branch ending)", s.path)
		}
	}
	// Forks are declared once every initial child is known: a branch's
	// entry path follows initial children down from the fork's own, and
	// they may be declared after the fork.
	for i, sd := range d.States {
		if id := b.stateOf[i]; id != NoID && sd.Fork != nil {
			b.declareFork(id, sd.Fork)
		}
	}
	b.parallelRegions()
	b.forkRegions()
	b.statePaths()
	for i, sd := range d.States {
		id := b.stateOf[i]
		if id == NoID {
			continue
		}
		s := &m.states[id]
		if sd.Final && (len(sd.On) > 0 || len(sd.Always) > 0) {
			p := sd.Pos
			if len(sd.On) > 0 {
				p = sd.On[0].Pos
			} else {
				p = sd.Always[0].Pos
			}
			b.errf(p, "final state %q cannot have outgoing transitions", s.path)
		}
		if sd.Direct != "" {
			if iid, ok := m.intentIDs[sd.Direct]; ok {
				s.direct = iid
			} else {
				b.errf(sd.DirectPos, "state %q: direct slot mapping names unknown intent %q", s.path, sd.Direct)
			}
		}
		entry, exit := sd.Entry, sd.Exit
		if to := sd.Timeout; to != nil {
			if _, ok := m.timerIDs[TimeoutTimer(s.path)]; ok {
				name := TimeoutTimer(s.path)
				// Armed last on entry, cancelled first on exit.
				entry = append(append([]ActionDef(nil), entry...), ActionDef{Pos: to.Pos, Kind: ActStart, Name: name})
				exit = append([]ActionDef{{Pos: to.Pos, Kind: ActCancel, Name: name}}, exit...)
			}
		}
		s.entry = b.actions(entry)
		s.exit = b.actions(exit)
		if sd.DoneData.Src != "" {
			if !sd.Final {
				b.errf(sd.DoneData.Pos, "state %q: donedata belongs to final states", s.path)
			} else if v, err := b.lang.value(sd.DoneData, Empty); err != nil {
				b.add(err)
			} else {
				s.doneData = v
			}
		}
		for _, td := range sd.On {
			b.transition(id, td, false)
		}
		if to := sd.Timeout; to != nil {
			if _, ok := m.timerIDs[TimeoutTimer(s.path)]; ok {
				for _, td := range to.Then {
					td.On, td.OnPos = "timer:"+TimeoutTimer(s.path), to.Pos
					b.transition(id, td, false)
				}
			}
		}
		for _, td := range sd.Always {
			b.transition(id, td, true)
		}
		if fi := s.fork; fi != nil && sd.Fork != nil {
			for _, td := range sd.Fork.Join {
				if td.Target == "" {
					b.errf(td.Pos, "fork %q: a join transition needs a target", s.path)
					continue
				}
				// A join is a transition on the fork's own done.state
				// event, raised once every branch is in a final state.
				td.On, td.OnPos = "done.state."+s.path, td.Pos
				n := len(m.trans)
				if b.transition(id, td, false); len(m.trans) == n {
					continue
				}
				fi.join = append(fi.join, TransID(n))
				m.trans[n].join = true
			}
			if len(fi.join) == 0 {
				b.errf(sd.Fork.Pos, "fork %q needs at least one join transition", s.path)
			}
		}
	}
	if b.d.Initial == "" {
		b.errf(d.Pos, "machine %q needs an initial state", d.Name)
		return
	}
	init := b.resolveState(d.Initial, d.InitialPos, "initial")
	if init == NoID {
		return
	}
	m.initPath = b.enterPath(NoID, init)
	m.startActs = b.actions(d.StartActions)
	if len(m.initPath) > 0 {
		m.initial = m.initPath[len(m.initPath)-1]
	}
}

// enterPath lists the states entered, top-down, when a transition whose
// domain is `domain` targets `target`: the ancestors of target below domain,
// target itself, then initial children down to a leaf.
func (b *builder) enterPath(domain, target StateID) []StateID {
	m := b.m
	var up []StateID
	for x := target; x != domain && x != NoID; x = m.states[x].parent {
		up = append(up, x)
	}
	path := make([]StateID, 0, len(up)+2)
	for i := len(up) - 1; i >= 0; i-- {
		path = append(path, up[i])
	}
	// A fork state is entered alone: its branches start from its initial
	// child separately, one per branch.
	for x := target; len(m.states[x].children) > 0 && m.states[x].initial != NoID && m.states[x].fork == nil; {
		x = m.states[x].initial
		path = append(path, x)
	}
	return path
}

// domain returns the nearest state that is a proper ancestor of source and an
// ancestor of target (NoID: the root). External transitions exit and re-enter
// everything below it.
func (b *builder) domain(source, target StateID) StateID {
	m := b.m
	for a := m.states[source].parent; a != NoID; a = m.states[a].parent {
		for x := target; x != NoID; x = m.states[x].parent {
			if x == a && x != target {
				return a
			}
		}
	}
	return NoID
}

// statePaths records each state's path from the top and where entering it
// by initial children stops, for the transitions that resume a history.
func (b *builder) statePaths() {
	m := b.m
	for i := range m.states {
		s := &m.states[i]
		s.histShallow, s.histDeep, s.histPos = -1, -1, -1
		s.rootPath = b.enterPath(NoID, StateID(i))
		s.initLeaf = s.rootPath[len(s.rootPath)-1]
		s.rootPath = s.rootPath[:s.depth+1]
	}
}

// history compiles a transition's history: "" or "shallow" or "deep",
// recorded in a Config.Hist entry of the target's own. A history resumes
// states of the main machine or of a parallel: true state's region; the
// branches of a fork share their states, and one entry per state could
// not hold each branch's.
func (b *builder) history(t *transition, td TransitionDef) {
	m := b.m
	if td.History == "" {
		return
	}
	x := t.target
	s := &m.states[x]
	var slot *int16
	switch td.History {
	case "shallow":
		t.history, slot = histShallow, &s.histShallow
	case "deep":
		t.history, slot = histDeep, &s.histDeep
	default:
		b.errf(td.HistoryPos, "history %q: expected shallow or deep", td.History)
		return
	}
	switch {
	case len(s.children) == 0:
		b.errf(td.HistoryPos, "history: state %q has no child states, so it has no history to resume", s.path)
		return
	case s.fork != nil && s.fork.parallel && t.history == histShallow:
		// Its active children are all its regions: resuming them is
		// entering it.
		t.history = histNone
		return
	case s.fork != nil && s.fork.parallel && s.forkRoot == NoID:
		b.parallelHistory(t, x, td)
		return
	case s.fork != nil && !s.fork.parallel:
		b.errf(td.HistoryPos, "history: %q is a fork, whose branches all start again when it is entered; resume a state inside a branch instead", s.path)
		return
	case s.forkRoot != NoID && !m.states[s.forkRoot].fork.parallel:
		b.errf(td.HistoryPos, "history: state %q runs in the branches of fork %q, which share one history", s.path, m.states[s.forkRoot].path)
		return
	}
	if t.history == histDeep && !b.deepRegions(x, td.HistoryPos) {
		t.history = histNone
		return
	}
	for i, y := range t.enter {
		if y == x {
			t.histCut = uint8(i + 1)
		}
	}
	if td.HistoryDefault != "" || len(td.HistoryActions) > 0 {
		def := m.states[x].initial
		if td.HistoryDefault != "" {
			def = b.resolveState(td.HistoryDefault, td.HistoryPos, "history default")
		}
		if def == NoID || def == x || !m.InState(def, x) {
			if def != NoID {
				b.errf(td.HistoryPos, "history default %q is not inside %q", m.states[def].path, s.path)
			}
			return
		}
		t.histDef = b.defaultEntry(t, x, def, td)
		t.histActs = b.actions(td.HistoryActions)
	}
	if *slot < 0 {
		if b.nHist >= MaxHistory {
			b.errf(td.HistoryPos, "too many histories: more than %d (shallow and deep of a state count apart)", MaxHistory)
			t.history = histNone
			return
		}
		*slot = int16(b.nHist)
		b.nHist++
	}
}

// position is the index of x in targets.
func position(targets []StateID, x StateID) int {
	for j, y := range targets {
		if y == x {
			return j
		}
	}
	return 0
}

// regionHistory gives state x, a target in a region, the history slot a
// transition resumes.
func (b *builder) regionHistory(x StateID, kind string, td TransitionDef) (regionHist, bool) {
	m := b.m
	s := &m.states[x]
	rh := regionHist{x: x, shallow: kind == "shallow"}
	if kind != "shallow" && kind != "deep" {
		b.errf(td.HistoryPos, "history %q: expected shallow or deep", kind)
		return rh, false
	}
	if len(s.children) == 0 || s.fork != nil && !s.fork.parallel {
		b.errf(td.HistoryPos, "history: state %q has no history to resume in its region", s.path)
		return rh, false
	}
	slot := &s.histDeep
	if rh.shallow {
		slot = &s.histShallow
	} else if !b.deepRegions(x, td.HistoryPos) {
		return rh, false
	}
	if *slot < 0 {
		if b.nHist >= MaxHistory {
			b.errf(td.HistoryPos, "too many histories: more than %d (shallow and deep of a state count apart)", MaxHistory)
			return rh, false
		}
		*slot = int16(b.nHist)
		b.nHist++
	}
	rh.slot = int(*slot)
	return rh, true
}

// deepRegions prepares the deep history of state x, which resumes every
// atomic state active below it: when x is or holds a parallel state, x
// records the atomic state at each region position it spans as it is
// exited (regionSlots): in the main machine, those of the parallel states
// below it; inside a region, its own positions. A fork's branches share
// their states, so a deep history over a fork is refused.
func (b *builder) deepRegions(x StateID, pos Pos) bool {
	m := b.m
	s := &m.states[x]
	var width uint8
	for _, y := range m.subtree(x) {
		p := &m.states[y]
		switch {
		case p.fork == nil:
		case !p.fork.parallel:
			if y != x {
				b.errf(pos, "deep history: state %q holds fork %q, whose branches share their states; use shallow history", s.path, p.path)
				return false
			}
		case s.par:
			width = s.width
		case p.forkRoot == NoID:
			width = max(width, p.width)
		}
	}
	return width == 0 || b.regionSlots(x, width, pos)
}

// parallelHistory compiles the deep history of parallel: true state x,
// in the main machine: x records that it was exited (its histDeep) and
// the atomic state at each of its regions' positions (histPos on).
func (b *builder) parallelHistory(t *transition, x StateID, td TransitionDef) {
	m := b.m
	t.histPar = true
	for i, y := range t.enter {
		if y == x {
			t.histCut = uint8(i + 1)
		}
	}
	if td.HistoryDefault != "" || len(td.HistoryActions) > 0 {
		if def := b.resolveState(td.HistoryDefault, td.HistoryPos, "history default"); def != NoID && m.InState(def, x) && def != x {
			t.histDef = b.defaultEntry(t, x, def, td)
		}
		t.histActs = b.actions(td.HistoryActions)
	}
	s := &m.states[x]
	if s.histDeep < 0 {
		if b.nHist >= MaxHistory {
			b.errf(td.HistoryPos, "too many histories: more than %d (shallow and deep of a state count apart, a parallel state's deep one once per region)", MaxHistory)
			t.history, t.histPar = histNone, false
			return
		}
		s.histDeep = int16(b.nHist)
		b.nHist++
	}
	if !b.regionSlots(x, s.width, td.HistoryPos) {
		t.history, t.histPar = histNone, false
	}
}

// regionSlots gives state x, once, the width Config.Hist entries in which
// its deep history records the atomic state at each region position of
// the parallel state of the main machine exited with it (histPos on):
// x's own regions, or those of a parallel state below it.
func (b *builder) regionSlots(x StateID, width uint8, pos Pos) bool {
	s := &b.m.states[x]
	if s.histPos >= 0 {
		return true
	}
	if b.nHist+int(width) > MaxHistory {
		b.errf(pos, "too many histories: more than %d (shallow and deep of a state count apart, a deep one once more per region of the parallel state it holds)", MaxHistory)
		return false
	}
	s.histPos, s.histWidth = int16(b.nHist), width
	b.nHist += int(width)
	return true
}

// declareParallel checks a parallel: true state and records its regions:
// each child is one, entered at its initial path.
func (b *builder) declareParallel(id StateID, sd StateDef) {
	m := b.m
	s := &m.states[id]
	switch {
	case sd.Fork != nil:
		b.errf(sd.Fork.Pos, "state %q: a fork is already a parallel state; give parallel or fork, not both", s.path)
		return
	case sd.Final:
		b.errf(sd.Pos, "parallel state %q cannot be final", s.path)
		return
	case sd.Initial != "":
		b.errf(sd.InitialPos, "parallel state %q starts all its regions, so it cannot have an initial state", s.path)
		return
	case len(s.children) == 0:
		b.errf(sd.Pos, "parallel state %q needs child states: its regions", s.path)
		return
	case len(s.children) > MaxBranches:
		b.errf(sd.Pos, "parallel state %q has %d regions, more than %d", s.path, len(s.children), MaxBranches)
		return
	}
	s.fork = &forkInfo{parallel: true, fixed: len(s.children), inputs: NoID, into: NoID}
}

// parallelRegions fills in each parallel: true state's region entry paths,
// once every initial child is known.
func (b *builder) parallelRegions() {
	m := b.m
	for i := range m.states {
		fi := m.states[i].fork
		if fi == nil || !fi.parallel {
			continue
		}
		for _, ch := range m.states[i].children {
			if m.states[ch].final {
				b.errf(m.states[ch].pos, "state %q is a region of parallel state %q, so it cannot be final (a region ends in a final child)", m.states[ch].path, m.states[i].path)
			}
			fi.regions = append(fi.regions, b.enterPath(StateID(i), ch))
		}
	}
}

// declareFork checks a fork definition and records it on its state.
func (b *builder) declareFork(id StateID, fd *ForkDef) {
	m := b.m
	s := &m.states[id]
	if len(s.children) == 0 || s.initial == NoID {
		b.errf(fd.Pos, "fork %q needs child states with an initial one: the machine each branch runs", s.path)
		return
	}
	fi := &forkInfo{fixed: fd.Branches, inputs: NoID, into: NoID, start: b.enterPath(id, s.initial)}
	switch {
	case fd.InputsFrom != "" && fd.Branches != 0:
		b.errf(fd.Pos, "fork %q: give branches or inputs_from, not both", s.path)
	case fd.InputsFrom != "":
		sl, ok := m.slotIDs[fd.InputsFrom]
		if !ok || m.slots[sl].typ != TypeText {
			b.errf(fd.InputsPos, "fork %q: inputs_from needs a text slot, got %q", s.path, fd.InputsFrom)
			return
		}
		fi.inputs = sl
		// Each branch gets a piece of the slot's text, split at '|'.
		b.xc.use.distinguish(Expr{Src: "inputs_from: " + fd.InputsFrom, Pos: fd.InputsPos}, "a fork splits a text into branch inputs")
	case fd.Branches < 1 || fd.Branches > MaxBranches:
		b.errf(fd.Pos, "fork %q: branches must be from 1 to %d", s.path, MaxBranches)
		return
	}
	if fd.Into != "" {
		sl, ok := m.slotIDs[fd.Into]
		if !ok || m.slots[sl].typ != TypeText {
			b.errf(fd.IntoPos, "fork %q: into needs a text slot, got %q", s.path, fd.Into)
			return
		}
		fi.into = sl
	}
	switch fd.Merge {
	case "", "index":
	case "finish":
		fi.byFinish = true
	default:
		b.errf(fd.MergePos, "fork %q: merge is index or finish, got %q", s.path, fd.Merge)
	}
	s.fork = fi
}

// forkRegions marks the states each parallel state's regions run (a
// fork's are its children, replicated per branch; a parallel: true state's
// region i is its child i), the final states that end a region, and where
// each state's atomic states sit among the Config's regions (layout). A
// parallel: true state may hold others in its regions (SCXML's nested
// parallel states); forks neither nest nor hold parallel states. forkRoot
// is always the outermost parallel state.
func (b *builder) forkRegions() {
	m := b.m
	for i := range m.states {
		m.states[i].forkRoot = NoID
		m.states[i].region = -1
	}
	for i := range m.states {
		fi := m.states[i].fork
		if fi == nil || b.insideParallel(StateID(i)) {
			continue
		}
		for _, x := range m.subtree(StateID(i))[1:] {
			if xf := m.states[x].fork; xf != nil && (!fi.parallel || !xf.parallel) {
				b.errf(m.states[x].pos, "parallel state %q is inside parallel state %q; only parallel: true states nest, forks do not", m.states[x].path, m.states[i].path)
			}
			m.states[x].forkRoot = StateID(i)
			m.states[x].par = fi.parallel
			p := m.states[x].parent
			if fi.parallel {
				for k, ch := range m.states[i].children {
					if m.InState(x, ch) {
						m.states[x].region = int8(k)
					}
				}
				m.states[x].endsRegion = m.states[x].final && p != StateID(i) && m.states[p].parent == StateID(i)
			} else {
				m.states[x].endsRegion = m.states[x].final && p == StateID(i)
			}
		}
		if fi.parallel {
			if w := b.layout(StateID(i), 0); w > MaxBranches {
				b.errf(m.states[i].pos, "parallel state %q has %d regions with those of the parallel states inside it, more than %d", m.states[i].path, w, MaxBranches)
			}
		}
	}
}

// insideParallel reports whether a proper ancestor of s is a parallel state.
func (b *builder) insideParallel(s StateID) bool {
	for x := b.m.states[s].parent; x != NoID; x = b.m.states[x].parent {
		if b.m.states[x].fork != nil {
			return true
		}
	}
	return false
}

// layout places the subtree of s, a state inside a parallel: true state
// (or that state itself), from region off of the Config on: an atomic or
// compound state takes as many regions as its widest child, a parallel
// state the sum of its children's. Every state's atomic states then sit at
// off and after; the regions of a nested parallel state follow one
// another, so that a region's position never moves while it is active.
// It returns the width.
func (b *builder) layout(s StateID, off int) int {
	st := &b.m.states[s]
	st.off = uint8(min(off, MaxBranches))
	w := 0
	for _, ch := range st.children {
		if st.fork != nil {
			w += b.layout(ch, off+w)
		} else {
			w = max(w, b.layout(ch, off))
		}
	}
	w = max(w, 1)
	st.width = uint8(min(w, MaxBranches+1))
	return w
}

// checkRegion enforces that only a transition from inside a region targets
// a state in that region: a region is entered as a whole, with its
// parallel state (SCXML would enter the other regions' initial states
// alongside, which a region's target alone cannot say).
func (b *builder) checkRegion(src StateID, td TransitionDef, t *transition) {
	m := b.m
	if t.target == NoID {
		return
	}
	root := m.states[t.target].forkRoot
	if root == NoID {
		return
	}
	if src == NoID || m.states[src].forkRoot != root || !m.InState(src, m.regionOf(t.target)) {
		b.errf(td.TargetPos, "state %q is inside a region of parallel state %q: only a transition from the same region may target it; target the parallel state instead", m.states[t.target].path, m.states[root].path)
	}
}

// roomForTransition reports whether another transition (or override) fits
// under MaxTransitions; the first that does not is reported.
func (b *builder) roomForTransition(pos Pos) bool {
	if len(b.m.trans) < MaxTransitions {
		return true
	}
	if !b.tooManyTrans {
		b.tooManyTrans = true
		b.errf(pos, "too many transitions (at most %d)", MaxTransitions)
	}
	return false
}

func (b *builder) transition(src StateID, td TransitionDef, always bool) {
	m := b.m
	if !b.roomForTransition(td.Pos) {
		return
	}
	t := transition{pos: td.Pos, source: src, always: always, target: NoID, domain: NoID, guardSrc: td.Guard.Src}
	if !always {
		t.trig = b.trigger(td)
	}
	if td.Guard.Src != "" {
		if b.d.DataModel != nil {
			g, err := b.lang.cond(td.Guard)
			b.add(err)
			t.guard = g
		} else {
			c, err := b.xc.compile(td.Guard, Bool)
			b.add(err)
			t.guard, t.test, t.reads = c.b, c.t, c.reads
		}
	}
	if td.Target != "" && b.intoRegions(src, td) {
		b.regionTargets(&t, src, td)
	} else if td.Target != "" {
		t.target = b.resolveState(td.Target, td.TargetPos, "transition target")
		if t.target != NoID {
			t.domain = b.domain(src, t.target)
			if td.Type == "internal" {
				// SCXML's type="internal": a target inside the source
				// leaves the source active.
				if !m.descends(t.target, src) {
					b.errf(td.TypePos, "an internal transition of state %q needs a target inside it, not %q", m.states[src].path, m.states[t.target].path)
				}
				t.domain = src
			}
			if td.History != "" && m.descends(src, t.target) {
				// The recommendation's domain of a transition to a
				// <history> child of an ancestor of its source is that
				// ancestor: left below it, not exited.
				t.domain = t.target
			}
			t.enter = b.enterPath(t.domain, t.target)
			t.leaf = t.enter[len(t.enter)-1]
			b.history(&t, td)
		}
	} else if always && b.d.DataModel == nil {
		// A targetless eventless transition is taken again for as long
		// as its guard holds: a data model's script (an SCXML chart's)
		// is what ends that; machine.yaml asks for a target.
		b.errf(td.Pos, "eventless transition in state %q needs a target", m.states[src].path)
	}
	if td.History != "" && td.Target == "" {
		b.errf(td.HistoryPos, "history %q needs a target to resume", td.History)
	}
	switch {
	case td.Type != "" && td.Type != "internal" && td.Type != "external":
		b.errf(td.TypePos, "transition type %q: expected internal or external", td.Type)
	case td.Type == "internal" && td.Target == "":
		b.errf(td.TypePos, "an internal transition needs a target (a targetless one exits nothing already)")
	}
	t.actions = b.actions(td.Actions)
	b.checkRegion(src, td, &t)
	m.trans = append(m.trans, t)
}

// intoRegions reports whether a transition's targets are the
// recommendation's that the one-target path does not take: several
// (target="a b"), or one below a parallel state under the transition's
// domain, whose other regions it enters too. The domain is never a
// parallel state (findLCCA skips them): an external transition to or
// from a region's root state leaves the parallel state and enters it
// again.
func (b *builder) intoRegions(src StateID, td TransitionDef) bool {
	names := strings.Fields(td.Target)
	if len(names) > 1 {
		return true
	}
	m := b.m
	id, _ := b.lookupState(td.Target)
	if id == NoID || src == NoID || td.History != "" && m.descends(src, id) {
		return false
	}
	root := m.states[id].forkRoot
	if root == NoID || m.states[root].fork == nil || !m.states[root].fork.parallel {
		return false
	}
	dom := b.domain(src, id)
	if td.Type == "internal" && m.descends(id, src) {
		dom = src
	}
	for x := m.states[id].parent; x != dom && x != NoID; x = m.states[x].parent {
		if m.states[x].fork != nil {
			return true
		}
	}
	return td.Type != "internal" && dom != NoID && m.states[dom].fork != nil && m.states[dom].fork.parallel
}

// regionTargets compiles a transition into the regions of parallel
// states, as the recommendation's enterStates does: its domain (the
// source for an internal transition, otherwise the nearest compound
// ancestor of the source and every target, parallel states skipped) is
// exited, the states down to the first parallel state toward the targets
// are entered (t.enter, ending at t.target, that parallel state), and each
// region of it, and of every parallel state nested on the way, enters its
// path down to its target (or to the next parallel state); the other
// regions enter their initial states. Every target must be inside a
// different region. Below a parallel state of the main machine, the
// paths of its own regions are t.regionPaths (by child index); those of
// parallel states in regions are t.nested.
func (b *builder) regionTargets(t *transition, src StateID, td TransitionDef) {
	m := b.m
	var targets []StateID
	for _, name := range strings.Fields(td.Target) {
		id := b.resolveState(name, td.TargetPos, "transition target")
		if id == NoID {
			return
		}
		targets = append(targets, id)
	}
	fail := func(format string, args ...any) { b.errf(td.TargetPos, format, args...) }
	within := func(a StateID) bool {
		for _, x := range targets {
			if !m.descends(x, a) {
				return false
			}
		}
		return true
	}
	dom := StateID(NoID)
	switch {
	case td.Type == "internal" && src == NoID:
		b.errf(td.TypePos, "an internal transition needs a source state")
		return
	case td.Type == "internal" && !within(src):
		b.errf(td.TypePos, "an internal transition of state %q needs its targets inside it, not %q", m.states[src].path, td.Target)
		return
	case td.Type == "internal" && m.states[src].fork == nil:
		dom = src
	case src != NoID:
		// An internal transition of a parallel state has the
		// recommendation's domain of an external one.
		for a := m.states[src].parent; a != NoID; a = m.states[a].parent {
			if m.states[a].fork == nil && within(a) {
				dom = a
				break
			}
		}
	}
	p := StateID(NoID)
	for x := m.states[targets[0]].parent; x != dom && x != NoID; x = m.states[x].parent {
		if m.states[x].fork != nil {
			p = x
		}
	}
	if p == NoID || !m.states[p].fork.parallel {
		fail("the targets %q are not in the regions of one parallel state", td.Target)
		return
	}
	for _, x := range targets {
		if !m.descends(x, p) {
			fail("target %q is not inside a region of parallel state %q, as the other targets are", m.states[x].path, m.states[p].path)
			return
		}
	}
	t.target, t.domain, t.leaf = p, dom, p
	t.enter = b.enterPath(dom, p)
	pl := regionPlan{t: t, td: td, all: targets, top: NoID, out: &t.nested, hist: true}
	if m.states[p].forkRoot == NoID {
		pl.top = p
		t.regionPaths = make([][]StateID, len(m.states[p].children))
	}
	b.planRegions(&pl, p, targets)
}

// regionPlan is what planRegions fills in for one transition: the paths of
// the regions of parallel state top (t.regionPaths, by child index; top is
// NoID when they go to out too) and of the parallel states below (out,
// by region root); hist says that the targets resume the histories td
// names (all is every target, whose positions td.Histories follows).
type regionPlan struct {
	t    *transition
	td   TransitionDef
	all  []StateID
	top  StateID
	out  *[]regionPath
	hist bool
}

// planRegions plans the regions of parallel state p that hold targets xs;
// the others enter their initial states.
func (b *builder) planRegions(pl *regionPlan, p StateID, xs []StateID) bool {
	m := b.m
	for k, ch := range m.states[p].children {
		var in []StateID
		for _, x := range xs {
			if m.InState(x, ch) {
				in = append(in, x)
			}
		}
		if len(in) == 0 {
			continue
		}
		path, ok := b.regionEntry(pl, p, ch, k, in)
		if !ok {
			return false
		}
		if p == pl.top {
			pl.t.regionPaths[k] = path
		} else {
			*pl.out = append(*pl.out, regionPath{ch: ch, path: path})
		}
	}
	return true
}

// regionEntry returns the path region ch (child k) of parallel state p
// enters for targets xs, all inside it: down to the one target and its
// initial children (or where its history resumes), or down to the
// parallel state below which the targets are in different regions,
// whose regions are planned in turn.
func (b *builder) regionEntry(pl *regionPlan, p, ch StateID, k int, xs []StateID) ([]StateID, bool) {
	m := b.m
	pos := pl.td.TargetPos
	for cur := ch; ; {
		if len(xs) == 1 && xs[0] == cur {
			return b.targetEntry(pl, p, ch, k, cur)
		}
		for _, x := range xs {
			if x == cur {
				b.errf(pos, "target %q and a target inside it are in region %q of parallel state %q", m.states[x].path, m.states[ch].path, m.states[p].path)
				return nil, false
			}
		}
		if fi := m.states[cur].fork; fi != nil {
			if !fi.parallel {
				b.errf(pos, "target %q is in fork %q, whose branches are entered with it", m.states[xs[0]].path, m.states[cur].path)
				return nil, false
			}
			if !b.planRegions(pl, cur, xs) {
				return nil, false
			}
			return b.enterPath(p, cur), true
		}
		next := StateID(NoID)
		for _, c := range m.states[cur].children {
			if m.InState(xs[0], c) {
				next = c
			}
		}
		for _, x := range xs[1:] {
			if !m.InState(x, next) {
				b.errf(pos, "two targets in region %q of parallel state %q", m.states[ch].path, m.states[p].path)
				return nil, false
			}
		}
		cur = next
	}
}

// targetEntry returns the path region ch (child k) of parallel state p
// enters for target x, and compiles the history x resumes, if any: with
// nothing recorded, the history's default, whose paths through parallel
// states below x are planned too.
func (b *builder) targetEntry(pl *regionPlan, p, ch StateID, k int, x StateID) ([]StateID, bool) {
	m := b.m
	td := pl.td
	path := b.enterPath(p, x)
	if !pl.hist {
		return path, true
	}
	kind, def := td.History, td.HistoryDefault
	if len(pl.all) > 1 {
		kind, def = "", ""
		j := position(pl.all, x)
		if j < len(td.Histories) {
			kind = td.Histories[j]
		}
		if j < len(td.HistoryDefaults) {
			def = td.HistoryDefaults[j]
		}
	}
	if kind == "" || kind == "shallow" && m.states[x].fork != nil && m.states[x].fork.parallel {
		// A parallel state's shallow history is all its regions: entering it.
		return path, true
	}
	rh, ok := b.regionHistory(x, kind, td)
	if !ok {
		return nil, false
	}
	rh.k, rh.q, rh.ch = k, p, ch
	if p != pl.top {
		rh.k = -1
	}
	if len(pl.all) == 1 && len(td.HistoryActions) > 0 {
		rh.acts = b.actions(td.HistoryActions)
	}
	pl.t.regionHist = append(pl.t.regionHist, rh)
	if def != "" {
		if d := b.resolveState(def, td.HistoryPos, "history default"); d != NoID && m.descends(d, x) {
			sub := *pl
			sub.hist = false
			return b.regionEntry(&sub, p, ch, k, []StateID{d})
		}
	}
	return path, true
}

// defaultEntry compiles the default target def of state x's history: the
// states entered below x, down to def, or down to the first parallel
// state on the way (none when x is one), whose regions' paths go to
// t.histNested.
func (b *builder) defaultEntry(t *transition, x, def StateID, td TransitionDef) []StateID {
	m := b.m
	pl := regionPlan{t: t, td: td, top: NoID, out: &t.histNested}
	if m.states[x].fork != nil {
		b.planRegions(&pl, x, []StateID{def})
		return nil
	}
	f := StateID(NoID)
	for y := m.states[def].parent; y != x && y != NoID; y = m.states[y].parent {
		if m.states[y].fork != nil {
			f = y
		}
	}
	if f == NoID {
		return b.enterPath(x, def)
	}
	b.planRegions(&pl, f, []StateID{def})
	return b.enterPath(x, f)
}

func (b *builder) trigger(td TransitionDef) trigger {
	m := b.m
	on := td.On
	if on == "" {
		b.errf(td.Pos, "transition needs a trigger (on:)")
		return trigger{}
	}
	if on == "*" {
		return trigger{kind: UserEvent, any: true}
	}
	if path, ok := strings.CutPrefix(on, "done.state."); ok {
		// SCXML's done.state.ID: raised when the compound state's final
		// child is entered, or when every region of the parallel state is
		// in a final state.
		x := b.resolveState(path, td.OnPos, "done.state event")
		if x == NoID {
			return trigger{}
		}
		if len(m.states[x].children) == 0 {
			b.errf(td.OnPos, "done.state.%s: state %q has no child states, so it is never done", path, m.states[x].path)
			return trigger{}
		}
		m.states[x].heard = true
		return trigger{kind: doneStateKind, id: uint16(x)}
	}
	kind, name, found := strings.Cut(on, ":")
	if !found {
		// "a" matches a, and a.b too when the machine has it.
		return b.descriptors(td)
	}
	if name == "*" {
		// A catch-all for one kind of event, tried in written order like
		// any other transition.
		switch kind {
		case "timer":
			return trigger{kind: TimerEvent, any: true}
		case "done":
			return trigger{kind: DoneEvent, any: true}
		case "failed":
			return trigger{kind: FailedEvent, any: true}
		}
	}
	switch kind {
	case "timer":
		if id, ok := m.timerIDs[name]; ok && !m.timers[id].send {
			return trigger{kind: TimerEvent, id: uint16(id)}
		}
		b.errf(td.OnPos, "unknown timer %q", name)
	case "done", "failed":
		if id, ok := m.extIDs[name]; ok {
			k := DoneEvent
			if kind == "failed" {
				k = FailedEvent
			}
			return trigger{kind: k, id: uint16(id)}
		}
		b.errf(td.OnPos, "unknown action %q", name)
	default:
		b.errf(td.OnPos, "unknown trigger %q (want an intent, *, timer:NAME, done:ACTION or failed:ACTION, NAME or ACTION possibly *, or done.state.STATE)", on)
	}
	return trigger{}
}

// descriptors resolves a trigger written as the recommendation's event
// descriptors: names separated by spaces, each matching the intent of
// that name and those it is a dot-separated prefix of ("error" matches
// error.execution; a trailing ".*" is the same as none).
func (b *builder) descriptors(td TransitionDef) trigger {
	m := b.m
	t := trigger{kind: UserEvent, src: td.On}
	seen := map[IntentID]bool{}
	for _, d := range strings.Fields(td.On) {
		d = strings.TrimSuffix(d, ".*")
		n := 0
		for i, in := range m.intents {
			if in == d || (strings.HasPrefix(in, d) && in[len(d)] == '.') {
				n++
				if !seen[IntentID(i)] {
					seen[IntentID(i)] = true
					t.ids = append(t.ids, uint16(i))
				}
			}
		}
		if n == 0 {
			b.errf(td.OnPos, "unknown intent %q (intents: %s)", d, describe(append([]string(nil), m.intents...)))
			return trigger{}
		}
	}
	if len(t.ids) == 1 && td.On == m.intents[t.ids[0]] {
		return trigger{kind: UserEvent, id: t.ids[0]}
	}
	return t
}

func (b *builder) actions(defs []ActionDef) []uint32 {
	var out []uint32
	for _, ad := range defs {
		a, ok := b.action(ad)
		if !ok {
			continue
		}
		out = append(out, uint32(len(b.m.acts)))
		b.m.acts = append(b.m.acts, a)
	}
	return out
}

func (b *builder) action(ad ActionDef) (action, bool) {
	m := b.m
	a := action{pos: ad.Pos, kind: ad.Kind, slot: NoID, counter: NoID, flow: NoID, timer: NoID, ext: NoID, text: ad.Name}
	slotRef := func(name string) bool {
		id, ok := m.slotIDs[name]
		if !ok {
			b.errf(ad.Pos, "%s: unknown slot %q", ad.Kind, name)
		}
		a.slot = id
		return ok
	}
	switch ad.Kind {
	case ActSet:
		if !slotRef(ad.Slot) {
			return a, false
		}
		want := [...]ValueKind{TypeText: Text, TypeNumber: Number, TypeBool: Bool}[m.slots[a.slot].typ]
		c, err := b.xc.compile(ad.Expr, want)
		if err != nil {
			b.add(err)
			return a, false
		}
		a.x, a.hasX = c, true
		b.xc.use.assigns = append(b.xc.use.assigns, assign{dst: SlotMask(a.slot), src: c.slots, cat: c.cat})
	case ActFill:
		c, err := b.xc.compile(ad.Expr, Empty)
		if err != nil {
			b.add(err)
			return a, false
		}
		a.x, a.hasX = c, true
		b.xc.use.assigns = append(b.xc.use.assigns, assign{dst: waitBit, src: c.slots, cat: c.cat})
	case ActClear:
		switch ad.Name {
		case "all":
			a.all = true
		case "waiting":
			a.to = toWaiting
		default:
			if !slotRef(ad.Name) {
				return a, false
			}
		}
	case ActAsk:
		switch ad.Name {
		case "next":
			a.to = toNext
		case "none":
			a.to = toNone
		default:
			if !slotRef(ad.Name) {
				return a, false
			}
		}
	case ActIncr, ActReset:
		if ad.Kind == ActReset && ad.Name == "all" {
			a.all = true
			break
		}
		id, ok := m.counterIDs[ad.Name]
		if !ok {
			b.errf(ad.Pos, "%s: unknown counter %q", ad.Kind, ad.Name)
			return a, false
		}
		a.counter = id
	case ActPush:
		id, ok := m.flowIDs[ad.Name]
		if !ok {
			b.errf(ad.Pos, "push: unknown flow %q", ad.Name)
			return a, false
		}
		a.flow = id
	case ActContract:
		c, err := b.xc.compile(ad.Expr, Text)
		if err != nil {
			b.add(err)
			return a, false
		}
		a.x, a.hasX = c, true
		b.xc.use.assigns = append(b.xc.use.assigns, assign{dst: branchBit, src: c.slots, cat: c.cat})
	case ActPop, ActResetContext:
	case ActSay, ActEscalate:
		t, err := b.xc.compileTemplate(ad.Name, ad.Pos)
		if err != nil {
			b.add(err)
			return a, false
		}
		a.tmpl = t
	case ActInvoke:
		id, ok := m.extIDs[ad.Name]
		if !ok {
			b.errf(ad.Pos, "invoke: unknown action %q (declare it under actions:)", ad.Name)
			return a, false
		}
		a.ext = id
	case ActStart, ActCancel:
		id, ok := m.timerIDs[ad.Name]
		if !ok {
			b.errf(ad.Pos, "%s: unknown timer %q", ad.Kind, ad.Name)
			return a, false
		}
		a.timer = id
		if ad.Kind == ActStart && ad.Expr.Src != "" {
			c, err := b.xc.compile(ad.Expr, Number)
			if err != nil {
				b.add(err)
				return a, false
			}
			a.x, a.hasX = c, true
		}
	case ActRaise, ActSend, ActCancelSend, ActIf, ActForeach, ActLog, ActAssign, ActScript, ActBlock:
		return b.content(ad, a)
	default:
		b.errf(ad.Pos, "unknown action kind %d", ad.Kind)
		return a, false
	}
	return a, true
}

// content compiles an action of the recommendation's executable content.
func (b *builder) content(ad ActionDef, a action) (action, bool) {
	m := b.m
	var err *Error
	switch ad.Kind {
	case ActRaise, ActSend:
		id, ok := m.intentIDs[ad.Name]
		if !ok {
			b.errf(ad.Pos, "%s: unknown event %q (declare it under intents:)", ad.Kind, ad.Name)
			return a, false
		}
		a.intent = id
		if ad.Data.Src != "" {
			if a.hold, err = b.lang.hold(ad.Data); err != nil {
				break
			}
		}
		if ad.Kind == ActRaise {
			break
		}
		if a.timer, ok = b.sendTimer(ad, id); !ok {
			return a, false
		}
		if ad.Expr.Src != "" {
			a.val, err = b.lang.value(ad.Expr, Number)
		}
	case ActCancelSend:
		// Sends are compiled in document order; a cancel_send may come
		// first, so its id is resolved once all are known.
		b.pendingCancels = append(b.pendingCancels, pendingCancel{act: len(m.acts), pos: ad.Pos, id: ad.Name})
	case ActIf:
		for _, cd := range ad.Branches {
			var g boolFn
			if cd.Cond.Src != "" {
				if g, err = b.lang.cond(cd.Cond); err != nil {
					break
				}
			}
			a.conds = append(a.conds, g)
			a.blocks = append(a.blocks, b.actions(cd.Actions))
		}
	case ActForeach:
		if a.each, err = b.lang.foreach(ad.Expr, ad.Item, ad.Index, ad.Pos); err == nil {
			a.body = b.actions(ad.Body)
		}
	case ActLog:
		if ad.Expr.Src != "" {
			a.val, err = b.lang.value(ad.Expr, Empty)
		}
	case ActAssign:
		a.do, err = b.lang.assign(ad.Slot, ad.Expr, ad.Pos)
		if id, ok := m.slotIDs[ad.Slot]; ok && b.d.DataModel == nil {
			a.slot = id
		}
	case ActScript:
		a.do, err = b.lang.script(ad.Expr)
	case ActBlock:
		a.body = b.actions(ad.Body)
	}
	if err != nil {
		b.add(err)
		return a, false
	}
	return a, true
}

// pendingCancel is a cancel_send whose sendid is resolved once every send
// is compiled.
type pendingCancel struct {
	act int
	pos Pos
	id  string
}

// sendTimer returns the timer that holds the pending events of send
// actions sending event id with the same sendid, declaring it the first
// time: a delayed send waits on the virtual clock as a timer does.
func (b *builder) sendTimer(ad ActionDef, id IntentID) (TimerID, bool) {
	m := b.m
	name := "send." + ad.Name
	if ad.ID != "" {
		name += "#" + ad.ID
	}
	if t, ok := m.timerIDs[name]; ok {
		m.timers[t].data = m.timers[t].data || ad.Data.Src != ""
		return t, true
	}
	if len(m.timers) >= MaxNames {
		b.errf(ad.Pos, "send: too many timers and sends (at most %d)", MaxNames)
		return NoID, false
	}
	t := TimerID(len(m.timers))
	m.timerIDs[name] = t
	m.timers = append(m.timers, timer{name: name, pos: ad.Pos, send: true, event: id, sendID: ad.ID, data: ad.Data.Src != ""})
	m.sends = true
	if ad.ID != "" {
		if b.sendIDs == nil {
			b.sendIDs = map[string][]TimerID{}
		}
		b.sendIDs[ad.ID] = append(b.sendIDs[ad.ID], t)
	}
	return t, true
}

// resolveCancels gives each cancel_send the timers of its sendid, once
// every send is compiled.
func (b *builder) resolveCancels() {
	for _, pc := range b.pendingCancels {
		ts := b.sendIDs[pc.id]
		if len(ts) == 0 {
			b.errf(pc.pos, "cancel_send: no send has id %q", pc.id)
			continue
		}
		b.m.acts[pc.act].timers = ts
	}
}

// tables precomputes, for every state and trigger, the candidate
// transitions in priority order: the state's own in declared order, then its
// ancestors', so that Step does one slice lookup per event.
func (b *builder) tables() {
	m := b.m
	n := len(m.states)
	ni, nt, ne := len(m.intents), len(m.timers), len(m.exts)
	m.userTab = make([][]TransID, n*ni)
	m.timerTab = make([][]TransID, n*nt)
	m.doneTab = make([][]TransID, n*ne)
	m.failTab = make([][]TransID, n*ne)
	m.alwaysTab = make([][]TransID, n)
	for i := range m.trans {
		t := &m.trans[i]
		t.scope = m.scopeOf(TransID(i))
		if t.scope == scopeRegion && m.states[t.target].par && t.domain != NoID {
			// The regions below the domain; below a parallel domain, those
			// of its child toward the target.
			rs := t.domain
			if m.states[rs].fork != nil {
				rs = t.target
				for rs != NoID && m.states[rs].parent != t.domain {
					rs = m.states[rs].parent
				}
			}
			if rs != NoID {
				t.exLo, t.exHi = m.states[rs].off, m.states[rs].off+m.states[rs].width
			}
		}
	}
	m.doneStateTab = make([][]TransID, n)
	bySource := make([][]TransID, n)
	for i := range m.trans {
		if m.trans[i].override != "" || m.trans[i].source == NoID {
			continue
		}
		s := m.trans[i].source
		bySource[s] = append(bySource[s], TransID(i))
	}
	for s := 0; s < n; s++ {
		for x := StateID(s); x != NoID; x = m.states[x].parent {
			for _, t := range bySource[x] {
				b.addCandidate(s, t)
			}
		}
		// Machine-level transitions come after every state's own, as
		// SCXML's root transitions do.
		for _, t := range m.rootTrans {
			b.addCandidate(s, t)
		}
	}
}

// addCandidate appends transition t to the candidates of state s for the
// events its trigger matches. A catch-all matches every event of its kind.
func (b *builder) addCandidate(s int, t TransID) {
	m := b.m
	tr := &m.trans[t]
	if tr.always {
		m.alwaysTab[s] = append(m.alwaysTab[s], t)
		return
	}
	var tab [][]TransID
	var row int
	switch tr.trig.kind {
	case UserEvent:
		tab, row = m.userTab, len(m.intents)
	case TimerEvent:
		tab, row = m.timerTab, len(m.timers)
	case DoneEvent:
		tab, row = m.doneTab, len(m.exts)
	case FailedEvent:
		tab, row = m.failTab, len(m.exts)
	case doneStateKind:
		// One list per state; the step keeps those of the raised state.
		m.doneStateTab[s] = append(m.doneStateTab[s], t)
		return
	default:
		return
	}
	if tr.trig.ids != nil {
		for _, id := range tr.trig.ids {
			tab[s*row+int(id)] = append(tab[s*row+int(id)], t)
		}
		return
	}
	if !tr.trig.any {
		tab[s*row+int(tr.trig.id)] = append(tab[s*row+int(tr.trig.id)], t)
		return
	}
	for i := 0; i < row; i++ {
		tab[s*row+i] = append(tab[s*row+i], t)
	}
}

// reachability warns about states no transition can lead to, following
// targets and initial children from the initial state.
func (b *builder) reachability() {
	m := b.m
	if len(m.initPath) == 0 {
		return
	}
	reached := make([]bool, len(m.states))
	queue := []StateID{}
	var mark func(x StateID)
	mark = func(x StateID) {
		for ; x != NoID && !reached[x]; x = m.states[x].parent {
			reached[x] = true
			queue = append(queue, x)
			if fi := m.states[x].fork; fi != nil {
				for _, s := range fi.start {
					mark(s)
				}
				for _, p := range fi.regions {
					for _, s := range p {
						mark(s)
					}
				}
			}
		}
	}
	for _, s := range m.initPath {
		mark(s)
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for i := range m.trans {
			tr := &m.trans[i]
			if tr.override != "" {
				if tr.target != NoID && b.overrideFrom(TransID(i), s) {
					for _, e := range tr.rootPath {
						mark(e)
					}
				}
				continue
			}
			if tr.target != NoID && tr.source == NoID {
				// A machine-level transition leaves from any state.
				for _, e := range tr.enter {
					mark(e)
				}
				continue
			}
			if tr.target == NoID || tr.source == NoID || !reached[tr.source] {
				continue
			}
			// A transition declared on s applies to every active descendant.
			if !m.InState(s, tr.source) {
				continue
			}
			for _, e := range tr.enter {
				mark(e)
			}
			for _, p := range tr.regionPaths {
				for _, e := range p {
					mark(e)
				}
			}
			for _, e := range tr.histDef {
				mark(e)
			}
			for _, ps := range [][]regionPath{tr.nested, tr.histNested} {
				for _, p := range ps {
					for _, e := range p.path {
						mark(e)
					}
				}
			}
		}
	}
	for i := range m.states {
		if !reached[i] {
			b.warnf(m.states[i].pos, "state %q is unreachable from the initial state", m.states[i].path)
		}
	}
}

// idleStates marks the states a conversation rests in between tasks, and
// the external actions whose failure the machine handles.
func (b *builder) idleStates() {
	m := b.m
	m.idle = make([]bool, len(m.states))
	if len(b.d.IdleStates) == 0 {
		m.idle[m.initial] = true
	}
	for _, n := range b.d.IdleStates {
		if s := b.resolveState(n.Name, n.Pos, "idle_states"); s != NoID {
			for _, x := range m.subtree(s) {
				m.idle[x] = true
			}
		}
	}
	m.failable = make([]bool, len(m.exts))
	for i := range m.trans {
		t := &m.trans[i]
		if t.always || t.override != "" || t.trig.kind != FailedEvent {
			continue
		}
		if !t.trig.any {
			m.failable[t.trig.id] = true
			continue
		}
		for x := range m.failable {
			m.failable[x] = true
		}
	}
	// An action that may fail and whose failure no transition takes: a
	// backend failure leaves the machine where it was, which is the
	// commonest way a conversation gets stranded.
	warned := make([]bool, len(m.exts))
	for _, a := range m.acts {
		if a.kind != ActInvoke || a.ext == NoID || warned[a.ext] || m.failable[a.ext] || m.exts[a.ext].neverFails {
			continue
		}
		warned[a.ext] = true
		b.warnf(a.pos, "invoke %s: no transition handles failed:%s, so a failure leaves the machine where it was (explore tries it); handle it, or declare the action never_fails: true", m.exts[a.ext].name, m.exts[a.ext].name)
	}
}

// DefaultEscape reports whether an intent or timer name is an escape when
// a machine declares none: intents that abandon the task (cancel, stop,
// quit, abort) and timers of the whole session (names holding "session",
// "inactiv" or "idle"). A goodbye is left out: it often completes the task.
func DefaultEscape(name string, timer bool) bool {
	n := strings.ToLower(name)
	words := []string{"cancel", "stop", "quit", "abort"}
	if timer {
		words = []string{"session", "inactiv", "idle"}
	}
	for _, w := range words {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// escapes marks the escape intents and timers: the declared ones, or the
// defaults.
func (b *builder) escapes() {
	m := b.m
	m.escIntent = make([]bool, len(m.intents))
	m.escTimer = make([]bool, len(m.timers))
	if len(b.d.Escapes) == 0 {
		for i, n := range m.intents {
			m.escIntent[i] = DefaultEscape(n, false)
		}
		for i := range m.timers {
			// A state's timeout belongs to its state, not to the session.
			if !strings.HasPrefix(m.timers[i].name, "timeout.") {
				m.escTimer[i] = DefaultEscape(m.timers[i].name, true)
			}
		}
		return
	}
	for _, e := range b.d.Escapes {
		if name, ok := strings.CutPrefix(e.Name, "timer:"); ok {
			if id, ok := m.timerIDs[name]; ok {
				m.escTimer[id] = true
			} else {
				b.errf(e.Pos, "escapes: unknown timer %q", name)
			}
			continue
		}
		if id, ok := m.intentIDs[e.Name]; ok {
			m.escIntent[id] = true
		} else {
			b.errf(e.Pos, "escapes: unknown intent %q (want an intent or timer:NAME)", e.Name)
		}
	}
}

// compileRootTransitions compiles the machine-level transitions (the
// definition's On), which every state of the main machine tries after its
// own and its ancestors': SCXML's transitions of the root. Their domain is
// the root, so they leave the whole configuration and enter their target
// from the top, as a transition of a top-level state would.
func (b *builder) compileRootTransitions() {
	m := b.m
	for _, td := range b.d.On {
		if !b.roomForTransition(td.Pos) {
			return
		}
		t := transition{pos: td.Pos, source: NoID, target: NoID, domain: NoID, guardSrc: td.Guard.Src}
		t.trig = b.trigger(td)
		if td.Guard.Src != "" {
			c, err := b.xc.compile(td.Guard, Bool)
			b.add(err)
			t.guard, t.test = c.b, c.t
		}
		if td.Target != "" {
			t.target = b.resolveState(td.Target, td.TargetPos, "transition target")
			if t.target == NoID {
				continue
			}
			if root := m.states[t.target].forkRoot; root != NoID {
				b.errf(td.TargetPos, "state %q runs in the branches of fork %q; target the fork state instead", m.states[t.target].path, m.states[root].path)
				continue
			}
			t.enter = b.enterPath(NoID, t.target)
			t.leaf = t.enter[len(t.enter)-1]
			b.history(&t, td)
		}
		if td.Type == "internal" {
			b.errf(td.TypePos, "a machine-level transition cannot be internal: it has no source state to stay in")
		}
		t.actions = b.actions(td.Actions)
		m.rootTrans = append(m.rootTrans, TransID(len(m.trans)))
		m.trans = append(m.trans, t)
	}
}

// compileOverrides compiles each override into its own transition, with a
// path from the root to its target; the domain is found when it fires,
// because it depends on the state the machine is in.
func (b *builder) compileOverrides() {
	m := b.m
	seen := map[string]Pos{}
	for _, od := range b.d.Overrides {
		if prev, dup := seen[od.Name]; dup {
			b.errf(od.Pos, "duplicate override %q (first declared at %s)", od.Name, prev)
			continue
		}
		if od.Name == "" {
			b.errf(od.Pos, "override needs a name")
			continue
		}
		if !b.roomForTransition(od.Pos) {
			break
		}
		seen[od.Name] = od.Pos
		if od.Target == "" {
			b.errf(od.Pos, "override %q needs a target", od.Name)
			continue
		}
		t := transition{pos: od.Pos, source: NoID, override: od.Name, target: NoID, domain: NoID, guardSrc: od.Guard.Src}
		if t.target = b.resolveState(od.Target, od.TargetPos, "override "+od.Name); t.target == NoID {
			continue
		}
		if root := m.states[t.target].forkRoot; root != NoID {
			// Entering a branch state as the main machine's leaf would
			// leave the fork's branches running under it.
			b.errf(od.TargetPos, "override %q: state %q runs in the branches of fork %q; target the fork state instead", od.Name, m.states[t.target].path, m.states[root].path)
			continue
		}
		t.rootPath = b.enterPath(NoID, t.target)
		t.leaf = t.rootPath[len(t.rootPath)-1]
		o := override{}
		if od.Guard.Src != "" {
			c, err := b.xc.compile(od.Guard, Bool)
			b.add(err)
			o.guard = c.b
		}
		o.from = b.stateSet(od.From, "override "+od.Name)
		o.to = b.stateSet(od.To, "override "+od.Name)
		t.actions = b.actions(od.Actions)
		o.trans = TransID(len(m.trans))
		m.trans = append(m.trans, t)
		m.overrides = append(m.overrides, o)
	}
}

// stateSet marks the named states and their descendants; nil means any.
func (b *builder) stateSet(names []NameDef, what string) []bool {
	if len(names) == 0 {
		return nil
	}
	set := make([]bool, len(b.m.states))
	for _, n := range names {
		if n.Name == "*" {
			return nil
		}
		if s := b.resolveState(n.Name, n.Pos, what); s != NoID {
			for _, x := range b.m.subtree(s) {
				set[x] = true
			}
		}
	}
	return set
}

func (b *builder) overrideFrom(t TransID, s StateID) bool {
	for _, o := range b.m.overrides {
		if o.trans == t {
			return o.from == nil || o.from[s]
		}
	}
	return false
}
