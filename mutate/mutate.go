// Package mutate makes mutants of a suite's machine and judges how well the
// suite's tests tell each from the original, as Stryker and PIT do for
// code. Enumerate lists the mutants of an engine.Definition (retarget a
// transition, drop or negate a guard, drop an action, swap two
// transitions, drop a timer cancel, raise a counter limit), each at the
// spec position it changes; Apply makes one on a copy of the definition;
// Runner plays a suite's scripted scenarios, generated conversations and
// exploration against it and classifies it as killed, survived, equivalent
// or invalid.
package mutate

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
)

// Operator names a kind of mutation.
type Operator string

// The operators, in the order Enumerate lists their mutants at one site.
const (
	Retarget    Operator = "retarget"
	DropGuard   Operator = "drop_guard"
	NegateGuard Operator = "negate_guard"
	DropAction  Operator = "drop_action"
	Swap        Operator = "swap"
	DropCancel  Operator = "drop_cancel"
	RaiseLimit  Operator = "raise_limit"
)

// Operators lists every operator, in report order.
var Operators = []Operator{Retarget, DropGuard, NegateGuard, DropAction, Swap, DropCancel, RaiseLimit}

// Mutant is one small change to a machine.
type Mutant struct {
	// ID numbers the suite's mutants in enumeration order, from 0.
	ID   int
	Op   Operator
	Pos  engine.Pos // where in the machine's source (YAML or SCXML) the change is
	Desc string     // one line saying what changed
	edit func(d *engine.Definition)
}

// Apply returns a copy of def with the mutation made; def is unchanged.
func (m *Mutant) Apply(def *engine.Definition) *engine.Definition {
	d := clone(def)
	m.edit(d)
	return d
}

// clone copies what a mutation may change: the states with their
// transition and action lists, the counters and the overrides.
func clone(def *engine.Definition) *engine.Definition {
	d := *def
	d.States = make([]engine.StateDef, len(def.States))
	for i, s := range def.States {
		s.Entry = cloneActs(s.Entry)
		s.Exit = cloneActs(s.Exit)
		s.On = cloneTrans(s.On)
		s.Always = cloneTrans(s.Always)
		if s.Timeout != nil {
			t := *s.Timeout
			t.Then = cloneTrans(t.Then)
			s.Timeout = &t
		}
		if s.Fork != nil {
			f := *s.Fork
			f.Join = cloneTrans(f.Join)
			s.Fork = &f
		}
		d.States[i] = s
	}
	d.StartActions = cloneActs(def.StartActions)
	d.Counters = append([]engine.CounterDef(nil), def.Counters...)
	d.Overrides = make([]engine.OverrideDef, len(def.Overrides))
	for i, o := range def.Overrides {
		o.Actions = cloneActs(o.Actions)
		d.Overrides[i] = o
	}
	return &d
}

func cloneActs(a []engine.ActionDef) []engine.ActionDef {
	if a == nil {
		return nil
	}
	return append([]engine.ActionDef(nil), a...)
}

func cloneTrans(ts []engine.TransitionDef) []engine.TransitionDef {
	if ts == nil {
		return nil
	}
	out := make([]engine.TransitionDef, len(ts))
	for i, t := range ts {
		t.Actions = cloneActs(t.Actions)
		out[i] = t
	}
	return out
}

// The transition lists of a state, in a fixed order, so that an index
// into them names the same list in a clone.
const (
	listOn = iota
	listAlways
	listTimeout
	listJoin
	nLists
)

func transList(d *engine.Definition, state, list int) *[]engine.TransitionDef {
	s := &d.States[state]
	switch list {
	case listOn:
		return &s.On
	case listAlways:
		return &s.Always
	case listTimeout:
		if s.Timeout != nil {
			return &s.Timeout.Then
		}
	case listJoin:
		if s.Fork != nil {
			return &s.Fork.Join
		}
	}
	return nil
}

// Enumerate lists the mutants of def, in a fixed order: the actions the
// machine runs as it starts, then state by state in declaration order,
// each state's entry and exit actions, then its transitions list by list
// (on, always, timeout, join) with, for each, the
// retarget, guard and action mutants and the swap with the next
// transition of the same trigger; then the overrides, then the counters.
// The seed chooses each retargeted transition's new target, from its
// target's siblings, by a source of its own (seeded with the seed and the
// transition's position), so a mutant does not depend on the others.
func Enumerate(def *engine.Definition, seed int64) []*Mutant {
	e := &enumerator{def: def, seed: seed, paths: statePaths(def)}
	e.startActions()
	for si := range def.States {
		s := &def.States[si]
		e.actions(s.Entry, "state "+e.paths[si]+" entry", func(d *engine.Definition) *[]engine.ActionDef { return &d.States[si].Entry })
		e.actions(s.Exit, "state "+e.paths[si]+" exit", func(d *engine.Definition) *[]engine.ActionDef { return &d.States[si].Exit })
		for li := 0; li < nLists; li++ {
			ts := transList(def, si, li)
			if ts == nil {
				continue
			}
			for ti := range *ts {
				e.transition(si, li, ti)
			}
		}
	}
	for oi := range def.Overrides {
		e.override(oi)
	}
	for ci, c := range def.Counters {
		if c.Limit <= 0 {
			continue
		}
		e.add(RaiseLimit, c.Pos, fmt.Sprintf("counter %s: limit %d raised to %d", c.Name, c.Limit, c.Limit+1),
			func(d *engine.Definition) { d.Counters[ci].Limit++ })
	}
	return e.out
}

type enumerator struct {
	def   *engine.Definition
	seed  int64
	paths []string
	out   []*Mutant
}

func (e *enumerator) add(op Operator, pos engine.Pos, desc string, edit func(*engine.Definition)) {
	e.out = append(e.out, &Mutant{ID: len(e.out), Op: op, Pos: pos, Desc: desc, edit: edit})
}

// label names a transition for descriptions: "state S: on X [if G] -> T".
func (e *enumerator) label(si, li int, t *engine.TransitionDef) string {
	var b strings.Builder
	b.WriteString("state " + e.paths[si] + ": ")
	switch li {
	case listOn:
		b.WriteString("on " + t.On)
	case listAlways:
		b.WriteString("always")
	case listTimeout:
		b.WriteString("timeout")
	case listJoin:
		b.WriteString("join")
	}
	if t.Guard.Src != "" {
		b.WriteString(" if " + short(t.Guard.Src))
	}
	target := t.Target
	if target == "" {
		target = "(internal)"
	}
	b.WriteString(" -> " + target)
	return b.String()
}

func (e *enumerator) transition(si, li, ti int) {
	t := &(*transList(e.def, si, li))[ti]
	name := e.label(si, li, t)
	at := func(d *engine.Definition) *engine.TransitionDef { return &(*transList(d, si, li))[ti] }
	// An SCXML transition's target is an attribute of the <transition>
	// element, whose position the compiled transition carries.
	tpos := t.TargetPos
	if tpos.Line == 0 {
		tpos = t.Pos
	}
	if to, ok := e.retarget(t.Target, tpos); ok {
		e.add(Retarget, tpos, fmt.Sprintf("%s: target %s changed to %s", name, t.Target, to),
			func(d *engine.Definition) { at(d).Target = to })
	}
	e.guard(t.Guard, name, func(d *engine.Definition) *engine.Expr { return &at(d).Guard })
	e.actions(t.Actions, name, func(d *engine.Definition) *[]engine.ActionDef { return &at(d).Actions })
	// The next transition of the list the same event may take: swapping
	// the two changes which is tried first. Two whose guards cannot both
	// hold are tried in either order alike: that swap is no mutant.
	ts := *transList(e.def, si, li)
	for tj := ti + 1; tj < len(ts); tj++ {
		u := &ts[tj]
		if li != listOn || shareEvent(t.On, u.On) {
			if exclusive(t.Guard.Src, u.Guard.Src) {
				break
			}
			e.add(Swap, t.Pos, fmt.Sprintf("%s swapped with the next, %s (line %d)", name, strings.TrimPrefix(e.label(si, li, u), "state "+e.paths[si]+": "), u.Pos.Line),
				func(d *engine.Definition) {
					l := *transList(d, si, li)
					l[ti], l[tj] = l[tj], l[ti]
				})
			break
		}
	}
}

func (e *enumerator) override(oi int) {
	o := &e.def.Overrides[oi]
	name := "override " + o.Name
	at := func(d *engine.Definition) *engine.OverrideDef { return &d.Overrides[oi] }
	if to, ok := e.retarget(o.Target, o.TargetPos); ok {
		e.add(Retarget, o.TargetPos, fmt.Sprintf("%s: target %s changed to %s", name, o.Target, to),
			func(d *engine.Definition) { at(d).Target = to })
	}
	e.guard(o.Guard, name, func(d *engine.Definition) *engine.Expr { return &at(d).Guard })
	e.actions(o.Actions, name, func(d *engine.Definition) *[]engine.ActionDef { return &at(d).Actions })
	if oi+1 < len(e.def.Overrides) {
		next := e.def.Overrides[oi+1].Name
		e.add(Swap, o.Pos, fmt.Sprintf("%s swapped with the next, override %s", name, next), func(d *engine.Definition) {
			d.Overrides[oi], d.Overrides[oi+1] = d.Overrides[oi+1], d.Overrides[oi]
		})
	}
}

func (e *enumerator) guard(g engine.Expr, name string, at func(*engine.Definition) *engine.Expr) {
	if g.Src == "" {
		return
	}
	e.add(DropGuard, g.Pos, fmt.Sprintf("%s: guard dropped (always taken)", name), func(d *engine.Definition) { *at(d) = engine.Expr{} })
	e.add(NegateGuard, g.Pos, fmt.Sprintf("%s: guard negated", name), func(d *engine.Definition) {
		x := at(d)
		x.Src = "!(" + x.Src + ")"
	})
}

func (e *enumerator) actions(acts []engine.ActionDef, where string, at func(*engine.Definition) *[]engine.ActionDef) {
	for ai := range acts {
		e.dropAction(acts, ai, where, at)
	}
}

// startActions makes the mutants of what the machine runs as it starts
// (Definition.StartActions: an SCXML document's <data> values and its
// <script>; a YAML machine has none). Each block there is one unit of
// the document's work, a <data>'s value or the <script>, and dropping it
// is the mutant: the variable stays declared and undefined. The bare
// declarations between them (var x;) are left alone: a <data>'s value
// declares its variable as it assigns it, so dropping the declaration
// alone would change nothing a test could see.
func (e *enumerator) startActions() {
	acts := e.def.StartActions
	for ai, a := range acts {
		if a.Kind == engine.ActBlock {
			e.dropAction(acts, ai, "machine start", func(d *engine.Definition) *[]engine.ActionDef { return &d.StartActions })
		}
	}
}

// dropAction makes the mutant that drops acts[ai] from the list at
// returns: drop_cancel for a timer's cancel, drop_action otherwise.
func (e *enumerator) dropAction(acts []engine.ActionDef, ai int, where string, at func(*engine.Definition) *[]engine.ActionDef) {
	a := acts[ai]
	op := DropAction
	if a.Kind == engine.ActCancel {
		op = DropCancel
	}
	e.add(op, actionPos(a), fmt.Sprintf("%s: action %s dropped", where, describeAction(a)), func(d *engine.Definition) {
		l := at(d)
		*l = append((*l)[:ai:ai], (*l)[ai+1:]...)
	})
}

// actionPos is where in the source an action is: its own position, else
// (a block the loader made, which no element of the source is) its
// first action's, else its expression's.
func actionPos(a engine.ActionDef) engine.Pos {
	switch {
	case a.Pos.Line > 0:
		return a.Pos
	case len(a.Body) > 0:
		return actionPos(a.Body[0])
	}
	return a.Expr.Pos
}

// retarget chooses the new target of a transition to target: another
// child of its target's parent, drawn by a source seeded with the seed
// and the position. It reports false for an internal transition, an
// unknown target and a target without siblings.
func (e *enumerator) retarget(target string, pos engine.Pos) (string, bool) {
	ti := resolve(e.def, e.paths, target)
	if ti < 0 {
		return "", false
	}
	parent := e.def.States[ti].Parent
	var cands []string
	for i := range e.def.States {
		if i != ti && e.def.States[i].Parent == parent {
			cands = append(cands, e.paths[i])
		}
	}
	if len(cands) == 0 {
		return "", false
	}
	// The file's base name, not its path as given: the same suite named
	// from another folder (simctl mutate ../x, or x) has the same mutants.
	h := fnv.New64a()
	fmt.Fprintf(h, "%s:%d:%d", filepath.Base(pos.File), pos.Line, pos.Col)
	r := rand.New(rand.NewPCG(uint64(e.seed), h.Sum64()))
	return cands[r.IntN(len(cands))], true
}

// statePaths gives each state its dotted path, as the engine names it.
func statePaths(def *engine.Definition) []string {
	idx := map[string]int{}
	for i, s := range def.States {
		idx[s.Name] = i
	}
	paths := make([]string, len(def.States))
	var path func(i, depth int) string
	path = func(i, depth int) string {
		if paths[i] != "" {
			return paths[i]
		}
		s := def.States[i]
		p := s.Name
		if j, ok := idx[s.Parent]; ok && s.Parent != "" && depth < len(def.States) {
			p = path(j, depth+1) + "." + s.Name
		}
		paths[i] = p
		return p
	}
	for i := range def.States {
		path(i, 0)
	}
	return paths
}

// resolve finds a target state as the engine does: by path, else by a
// unique name or tail of a path; -1 when there is none or more than one.
func resolve(def *engine.Definition, paths []string, name string) int {
	if name == "" {
		return -1
	}
	found := -1
	for i, p := range paths {
		if p == name {
			return i
		}
		if def.States[i].Name == name || strings.HasSuffix(p, "."+name) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

func describeAction(a engine.ActionDef) string {
	if a.Kind == engine.ActBlock && len(a.Body) == 1 {
		// A block of one action (a <data>'s value, one <onentry> of
		// several) says what that action does.
		return describeAction(a.Body[0])
	}
	s := a.Kind.String()
	switch {
	case a.Kind == engine.ActSay:
		s += " " + strconv.Quote(short(a.Name))
	case a.Slot != "" && a.Expr.Src != "":
		s += " " + a.Slot + " = " + short(a.Expr.Src)
	case a.Name != "":
		s += " " + short(a.Name)
	case a.Slot != "":
		s += " " + a.Slot
	case a.Expr.Src != "":
		s += " " + short(a.Expr.Src)
	}
	return s
}

// short keeps a description to one readable line.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 40 {
		return string(r[:37]) + "..."
	}
	return s
}

// shareEvent reports whether one event can take transitions triggered by
// a and by b: the same trigger, "*" (any user event) and an intent, or a
// kind's wildcard ("timer:*") and a trigger of that kind. "*" takes no
// timer, action result or other event that is not the user's.
func shareEvent(a, b string) bool {
	if a == b {
		return true
	}
	ka, na, ta := strings.Cut(a, ":")
	kb, nb, tb := strings.Cut(b, ":")
	switch {
	case !ta && !tb:
		return a == "*" || b == "*"
	case ta && tb:
		return ka == kb && (na == "*" || nb == "*")
	}
	return false
}

// equalsConst matches a guard that compares one name with a string
// constant.
var equalsConst = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*==\s*"([^"\\]*)"\s*$`)

// exclusive reports whether guards a and b cannot both hold: each compares
// the same name with a different constant. Both are evaluated on the same
// configuration and event (SCXML selects before it acts).
func exclusive(a, b string) bool {
	ma, mb := equalsConst.FindStringSubmatch(a), equalsConst.FindStringSubmatch(b)
	return ma != nil && mb != nil && ma[1] == mb[1] && ma[2] != mb[2]
}
