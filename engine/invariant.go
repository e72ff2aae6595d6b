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
	Name          string
	Pos           Pos
	Kind          InvariantKind
	Description   string
	Contradiction string
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
		inv := Invariant{Name: d.Name, Pos: d.Pos, Kind: d.Kind, Description: d.Description, Contradiction: d.Contradiction, n: n}
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
