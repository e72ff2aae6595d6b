package engine

import (
	"math"
	"strconv"
	"strings"
)

// Invariant is a compiled InvariantDef. Package eval checks invariants on
// every trace step; the engine only compiles them against the machine so
// that their names and expressions are validated with everything else.
type Invariant struct {
	Name        string
	Pos         Pos
	Kind        InvariantKind
	Description string
	// Notes are the known findings, resolved against the machine.
	Notes []Note
	// Turns is the bound of an InvWithin invariant.
	Turns       int
	then        boolFn
	n           int
	allowed     []bool // [from*n+to]
	transparent []bool
	check       boolFn
}

// Invariants returns the machine's declared invariants in declared order.
func (m *Machine) Invariants() []Invariant { return m.invariants }

// Allows reports whether an allowed-transition table permits from → to.
func (inv *Invariant) Allows(from, to StateID) bool {
	return inv.allowed[int(from)*inv.n+int(to)]
}

// Transparent reports whether the table looks through state s.
func (inv *Invariant) Transparent(s StateID) bool { return inv.transparent[s] }

// Condition compiles a boolean expression against the machine, as guards
// are, for checks made from outside a step (a simulated user's success).
func (m *Machine) Condition(x Expr) (func(*Config) bool, error) {
	xc := newExprCompiler(m)
	c, err := xc.compile(x, Bool)
	if err != nil {
		return nil, err
	}
	f := c.b
	return func(cfg *Config) bool { return f(evalEnv{m: m, c: cfg, ev: &noEvent}) }, nil
}

// Within evaluates an InvWithin invariant's trigger and goal on c, the
// configuration after a step; before.NAME and changed(NAME) read before,
// the configuration before it (give c at a conversation's start).
func (m *Machine) Within(inv *Invariant, before, c *Config) (trigger, goal bool) {
	e := evalEnv{m: m, c: c, ev: &noEvent, before: before}
	return inv.check(e), inv.then(e)
}

// Holds evaluates an always/never invariant's expression on c, the
// configuration after a step, and before, the one before it (for never,
// it reports whether the forbidden condition is absent).
func (m *Machine) Holds(inv *Invariant, before, c *Config) bool {
	e := evalEnv{m: m, c: c, ev: &noEvent, before: before}
	v := inv.check(e)
	if inv.Kind == InvNever {
		return !v
	}
	return v
}

func (b *builder) compileInvariants() {
	m := b.m
	seen := map[string]Pos{}
	n := len(m.states)
	xc := b.xc
	if xc != nil {
		xc = newInvariantCompiler(m)
		xc.use = b.xc.use // value classes see what invariants test
	}
	for _, d := range upTo(b, "invariants", b.d.Invariants, MaxInvariants, func(d InvariantDef) Pos { return d.Pos }) {
		if prev, dup := seen[d.Name]; dup {
			b.errf(d.Pos, "duplicate invariant %q (first declared at %s)", d.Name, prev)
			continue
		}
		if d.Name == "" {
			b.errf(d.Pos, "invariant needs a name")
			continue
		}
		seen[d.Name] = d.Pos
		inv := Invariant{Name: d.Name, Pos: d.Pos, Kind: d.Kind, Description: d.Description, n: n}
		inv.Notes = b.compileNotes(d.Name, d.Kind == InvAllowed, d.Notes)
		switch d.Kind {
		case InvAlways, InvNever:
			if xc == nil {
				continue
			}
			c, err := xc.compile(d.Expr, Bool)
			if err != nil {
				b.add(err)
				continue
			}
			inv.check = c.b
		case InvWithin:
			x, err := xc.compile(d.Expr, Bool)
			if err != nil {
				b.add(err)
				continue
			}
			y, err := xc.compile(d.Then, Bool)
			if err != nil {
				b.add(err)
				continue
			}
			if d.Turns < 1 {
				b.errf(d.Pos, "invariant %q: within needs turns of 1 or more", d.Name)
				continue
			}
			inv.check, inv.then, inv.Turns = x.b, y.b, d.Turns
		case InvAllowed:
			if len(d.Allowed) == 0 {
				b.errf(d.Pos, "invariant %q: allowed_transitions is empty", d.Name)
				continue
			}
			inv.allowed = make([]bool, n*n)
			inv.transparent = make([]bool, n)
			for _, t := range d.Transparent {
				if s := b.resolveState(t.Name, t.Pos, "invariant "+d.Name); s != NoID {
					// Like table rows, a compound state covers its children.
					for _, x := range m.subtree(s) {
						inv.transparent[x] = true
					}
				}
			}
			for _, row := range d.Allowed {
				var from []StateID
				if row.FromAny {
					for i := 0; i < n; i++ {
						from = append(from, StateID(i))
					}
				} else if s := b.resolveState(row.From.Name, row.From.Pos, "invariant "+d.Name); s != NoID {
					from = m.subtree(s)
				}
				for _, to := range row.To {
					t := b.resolveState(to.Name, to.Pos, "invariant "+d.Name)
					if t == NoID {
						continue
					}
					for _, f := range from {
						for _, x := range m.subtree(t) {
							inv.allowed[int(f)*n+int(x)] = true
						}
					}
				}
			}
		}
		m.invariants = append(m.invariants, inv)
	}
}

// Note is a compiled NoteDef: states and slot as ids (NoID: not given).
type Note struct {
	Kind             NoteKind
	Pos              Pos
	From, To, State  StateID
	Slot             SlotID
	Descendants      bool
	Seed, Quote, Why string
}

// compileNotes resolves an invariant's notes. A table's notes name moves;
// any other invariant's name a state (and perhaps a slot).
func (b *builder) compileNotes(inv string, table bool, defs []NoteDef) []Note {
	var out []Note
	for _, d := range defs {
		n := Note{Kind: d.Kind, Pos: d.Pos, From: NoID, To: NoID, State: NoID, Slot: NoID, Descendants: d.Descendants, Seed: d.Seed, Quote: d.Quote, Why: d.Why}
		what := "invariant " + inv
		switch {
		case table && (d.From.Name == "" || d.To.Name == "" || d.State.Name != "" || d.Slot.Name != ""):
			b.errf(d.Pos, "%s: a note on an allowed-transition table names one move (move: from -> to)", what)
			continue
		case !table && d.From.Name != "":
			b.errf(d.Pos, "%s: only an allowed-transition table's notes name a move; name the state (state:, and slot: for a slot's finding)", what)
			continue
		case !table && d.State.Name == "":
			b.errf(d.Pos, "%s: the note needs the state it excuses (state:)", what)
			continue
		}
		ok := true
		for _, r := range []struct {
			def NameDef
			id  *StateID
		}{{d.From, &n.From}, {d.To, &n.To}, {d.State, &n.State}} {
			if r.def.Name != "" {
				if *r.id = b.resolveState(r.def.Name, r.def.Pos, what); *r.id == NoID {
					ok = false
				}
			}
		}
		if d.Slot.Name != "" {
			id, found := b.m.slotIDs[d.Slot.Name]
			if !found {
				b.errf(d.Slot.Pos, "%s: unknown slot %q", what, d.Slot.Name)
				ok = false
			}
			n.Slot = id
		}
		if ok {
			out = append(out, n)
		}
	}
	return out
}

// NoteMatches reports whether note n names a finding at the move from ->
// to (tables) or in state with slot (other invariants; NoID when the
// finding is not about a slot). A state in a note names itself only, or
// with Descendants its descendants too.
func (m *Machine) NoteMatches(n *Note, from, to, state StateID, slot SlotID) bool {
	in := func(s, named StateID) bool { return s == named || n.Descendants && m.InState(s, named) }
	if n.From != NoID {
		return from != NoID && to != NoID && in(from, n.From) && in(to, n.To)
	}
	return state != NoID && in(state, n.State) && n.Slot == slot
}

// BuiltinNotes are the known findings of one built-in invariant.
type BuiltinNotes struct {
	Name  string
	Notes []Note
}

// BuiltinNotes returns the notes of built-in invariants, in declared order.
func (m *Machine) BuiltinNotes() []BuiltinNotes { return m.builtinNotes }

// ForkInto returns the slot fork state s merges its branches' contracts
// into, or NoID.
func (m *Machine) ForkInto(s StateID) SlotID {
	if int(s) >= len(m.states) || m.states[s].fork == nil {
		return NoID
	}
	return m.states[s].fork.into
}

func (b *builder) compileBuiltinNotes() {
	for _, d := range b.d.BuiltinNotes {
		b.m.builtinNotes = append(b.m.builtinNotes, BuiltinNotes{Name: d.Name, Notes: b.compileNotes(d.Name, false, d.Notes)})
	}
}

// subtree returns s and all its descendants.
func (m *Machine) subtree(s StateID) []StateID {
	out := []StateID{s}
	for i := 0; i < len(out); i++ {
		out = append(out, m.states[out[i]].children...)
	}
	return out
}

// parseNumber reads a user's number. NaN and infinities are refused even
// though strconv accepts "nan" and "inf": a NaN in a slot would make a
// Config unequal to itself, breaking == and the explorer's visited set.
func parseNumber(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// CompileNotes resolves the notes a scenario gives for one invariant (a
// declared one, or a built-in: table says whether its findings are moves).
// It returns the first problem as an error.
func (m *Machine) CompileNotes(inv string, table bool, defs []NoteDef) ([]Note, error) {
	b := &builder{m: m}
	out := b.compileNotes(inv, table, defs)
	if len(b.diags) > 0 {
		return nil, b.diags[0]
	}
	return out, nil
}

// HandlesTimer reports whether any state has a transition on timer t: a
// timer that none handles is not left behind by leaving one.
//
// A send's timer is handled where its event is: some state has a
// transition on that intent.
func (m *Machine) HandlesTimer(t TimerID) bool {
	if m.timers[t].send {
		ni, ev := len(m.intents), int(m.timers[t].event)
		for s := range m.states {
			if len(m.userTab[s*ni+ev]) > 0 {
				return true
			}
		}
		return false
	}
	n := len(m.timers)
	for s := range m.states {
		if len(m.timerTab[s*n+int(t)]) > 0 {
			return true
		}
	}
	return false
}
