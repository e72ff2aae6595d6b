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
	}}
	if b.m.maxChain <= 0 {
		b.m.maxChain = DefaultMaxChain
	}
	b.symbols()
	b.declareStates()
	b.xc = newExprCompiler(b.m)
	b.compileExts()
	b.compileStates()
	if !b.failed() {
		b.tables()
		b.reachability()
	}
	b.compileInvariants()
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
	case !validIdent(name):
		b.errf(pos, "%s name %q must be letters, digits and underscores, not starting with a digit", kind, name)
		return false
	case reserved[name]:
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
	names := map[string]Pos{}
	for _, v := range builtinValidators {
		names[v] = Pos{File: "(builtin validator)"}
		m.validators = append(m.validators, &validator{name: v, fn: builtinValidatorFuncs[v]})
	}
	for _, vd := range d.Validators {
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
	for _, td := range d.Timers {
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
	for _, fd := range d.Flows {
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
		}
		m.flowIDs[fd.Name] = FlowID(len(m.flows))
		m.flows = append(m.flows, f)
	}
	seen = map[string]Pos{}
	for _, in := range d.Intents {
		if !b.checkName("intent", in.Name, in.Pos, seen) {
			continue
		}
		m.intentIDs[in.Name] = IntentID(len(m.intents))
		m.intents = append(m.intents, in.Name)
	}
	seen = map[string]Pos{}
	for _, ed := range d.Actions {
		if !b.checkName("action", ed.Name, ed.Pos, seen) {
			continue
		}
		m.extIDs[ed.Name] = ExtID(len(m.exts))
		m.exts = append(m.exts, ext{name: ed.Name, pos: ed.Pos})
	}
}

func (b *builder) declareStates() {
	m, d := b.m, b.d
	if len(d.States) == 0 {
		b.errf(d.Pos, "machine %q has no states", d.Name)
		return
	}
	if len(d.States) >= NoID {
		b.errf(d.Pos, "too many states: %d", len(d.States))
		return
	}
	byPath := map[string]StateID{}
	short := map[string][]StateID{}
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
		short[sd.Name] = append(short[sd.Name], id)
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
	for name, ids := range short {
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
	if id, ok := m.stateIDs[name]; ok {
		return id
	}
	var matches []string
	for i := range m.states {
		if m.states[i].name == name || strings.HasSuffix(m.states[i].path, "."+name) {
			matches = append(matches, m.states[i].path)
		}
	}
	switch {
	case len(matches) == 1:
		// A unique tail of a path ("c1.x" for "work.c.c1.x").
		return m.stateIDs[matches[0]]
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

func (b *builder) compileExts() {
	for i, ed := range b.d.Actions {
		id, ok := b.m.extIDs[ed.Name]
		if !ok || int(id) != i {
			continue
		}
		e := &b.m.exts[id]
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
			e.outputs = append(e.outputs, extOutput{entity: b.m.entity(o.Name), x: c})
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
		if len(s.children) > 0 {
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
	}
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
		s.entry = b.actions(sd.Entry)
		s.exit = b.actions(sd.Exit)
		for _, td := range sd.On {
			b.transition(id, td, false)
		}
		for _, td := range sd.Always {
			b.transition(id, td, true)
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
	for x := target; len(m.states[x].children) > 0 && m.states[x].initial != NoID; {
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

func (b *builder) transition(src StateID, td TransitionDef, always bool) {
	m := b.m
	if len(m.trans) >= NoID-1 {
		b.errf(td.Pos, "too many transitions")
		return
	}
	t := transition{pos: td.Pos, source: src, always: always, target: NoID, domain: NoID, guardSrc: td.Guard.Src}
	if !always {
		t.trig = b.trigger(td)
	}
	if td.Guard.Src != "" {
		c, err := b.xc.compile(td.Guard, Bool)
		b.add(err)
		t.guard = c.b
	}
	if td.Target != "" {
		t.target = b.resolveState(td.Target, td.TargetPos, "transition target")
		if t.target != NoID {
			t.domain = b.domain(src, t.target)
			t.enter = b.enterPath(t.domain, t.target)
			t.leaf = t.enter[len(t.enter)-1]
		}
	} else if always {
		b.errf(td.Pos, "eventless transition in state %q needs a target", m.states[src].path)
	}
	t.actions = b.actions(td.Actions)
	m.trans = append(m.trans, t)
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
	kind, name, found := strings.Cut(on, ":")
	if !found {
		if id, ok := m.intentIDs[on]; ok {
			return trigger{kind: UserEvent, id: uint16(id)}
		}
		b.errf(td.OnPos, "unknown intent %q (intents: %s)", on, describe(append([]string(nil), m.intents...)))
		return trigger{}
	}
	switch kind {
	case "timer":
		if id, ok := m.timerIDs[name]; ok {
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
		b.errf(td.OnPos, "unknown trigger %q (want an intent, *, timer:NAME, done:ACTION or failed:ACTION)", on)
	}
	return trigger{}
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
	case ActFill:
		c, err := b.xc.compile(ad.Expr, Empty)
		if err != nil {
			b.add(err)
			return a, false
		}
		a.x, a.hasX = c, true
	case ActClear:
		switch ad.Name {
		case "all":
			a.all = true
		case "waiting":
		default:
			if !slotRef(ad.Name) {
				return a, false
			}
		}
	case ActAsk:
		switch ad.Name {
		case "next", "none":
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
	default:
		b.errf(ad.Pos, "unknown action kind %d", ad.Kind)
		return a, false
	}
	return a, true
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
	bySource := make([][]TransID, n)
	for i := range m.trans {
		s := m.trans[i].source
		bySource[s] = append(bySource[s], TransID(i))
	}
	for s := 0; s < n; s++ {
		for x := StateID(s); x != NoID; x = m.states[x].parent {
			for _, t := range bySource[x] {
				tr := &m.trans[t]
				switch {
				case tr.always:
					m.alwaysTab[s] = append(m.alwaysTab[s], t)
				case tr.trig.kind == UserEvent && tr.trig.any:
					for i := 0; i < ni; i++ {
						m.userTab[s*ni+i] = append(m.userTab[s*ni+i], t)
					}
				case tr.trig.kind == UserEvent:
					m.userTab[s*ni+int(tr.trig.id)] = append(m.userTab[s*ni+int(tr.trig.id)], t)
				case tr.trig.kind == TimerEvent:
					m.timerTab[s*nt+int(tr.trig.id)] = append(m.timerTab[s*nt+int(tr.trig.id)], t)
				case tr.trig.kind == DoneEvent:
					m.doneTab[s*ne+int(tr.trig.id)] = append(m.doneTab[s*ne+int(tr.trig.id)], t)
				case tr.trig.kind == FailedEvent:
					m.failTab[s*ne+int(tr.trig.id)] = append(m.failTab[s*ne+int(tr.trig.id)], t)
				}
			}
		}
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
	mark := func(x StateID) {
		for ; x != NoID && !reached[x]; x = m.states[x].parent {
			reached[x] = true
			queue = append(queue, x)
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
			if tr.target == NoID || !reached[tr.source] {
				continue
			}
			// A transition declared on s applies to every active descendant.
			if !m.InState(s, tr.source) {
				continue
			}
			for _, e := range tr.enter {
				mark(e)
			}
		}
	}
	for i := range m.states {
		if !reached[i] {
			b.warnf(m.states[i].pos, "state %q is unreachable from the initial state", m.states[i].path)
		}
	}
}
