package generate

import (
	"slices"

	"github.com/simctl/simctl/engine"
)

// A machine that asks for nothing (no slot, no menu) still has a way
// through it: the states lead, move by move, to a final state. A
// cooperative user at such a state says one of the things it listens for;
// picking among them at random is a random walk, which a machine with a
// back move ("back", "previous") turns into a walk that may never arrive.
// A user who wants to get somewhere heads for the end instead: among the
// moves it could make, it prefers those that bring the conversation closer
// to a final state, as the machine's graph measures it, and never one that
// takes it farther (undoes progress) while another does not.

// endDistances returns, per state, the fewest transitions from it to a
// top-level final state, guards ignored (a transition of an ancestor, or
// of the machine, counts from every state below it, and entering a
// compound state enters its initial leaf); -1 where no final state is
// reachable.
func endDistances(m *engine.Machine) []int {
	n := m.NumStates()
	// into[u] lists the states with a transition that enters u; global
	// lists the states a machine-level transition enters (from anywhere).
	from := make([][]engine.StateID, n) // per source state, the leaves its transitions enter
	var global []engine.StateID
	for t := 0; t < m.NumTransitions(); t++ {
		ti := m.Transition(engine.TransID(t))
		if ti.Target == engine.NoID || escapeOnly(m, ti) {
			continue
		}
		u := m.InitialLeaf(ti.Target)
		if ti.Source == engine.NoID {
			global = append(global, u)
			continue
		}
		from[ti.Source] = append(from[ti.Source], u)
	}
	into := make([][]engine.StateID, n)
	for s := 0; s < n; s++ {
		for a := engine.StateID(s); a != engine.NoID; a = m.Parent(a) {
			for _, u := range from[a] {
				into[u] = append(into[u], engine.StateID(s))
			}
		}
	}
	isGlobal := make([]bool, n)
	for _, u := range global {
		isGlobal[u] = true
	}
	dist := make([]int, n)
	var queue []engine.StateID
	for s := 0; s < n; s++ {
		dist[s] = -1
		if m.IsFinal(engine.StateID(s)) && m.Parent(engine.StateID(s)) == engine.NoID {
			dist[s] = 0
			queue = append(queue, engine.StateID(s))
		}
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		relax := func(s engine.StateID) {
			if dist[s] < 0 {
				dist[s] = dist[u] + 1
				queue = append(queue, s)
			}
		}
		for _, s := range into[u] {
			relax(s)
		}
		if isGlobal[u] {
			for s := 0; s < n; s++ {
				relax(engine.StateID(s))
			}
			isGlobal[u] = false
		}
	}
	return dist
}

// escapeOnly reports whether only escape intents (cancel, ...) trigger
// transition ti: no way through the task for a user who pursues it, so
// the final state it reaches (an SCXML chart's cancelled) is no end it
// heads for.
func escapeOnly(m *engine.Machine, ti engine.TransitionInfo) bool {
	ins := triggerIntents(m, ti)
	for _, in := range ins {
		if !m.IsEscapeIntent(in) {
			return false
		}
	}
	return len(ins) > 0
}

// toEnd returns how far state s is from a final state (-1: no final state
// is reachable from it).
func (mo *Model) toEnd(s engine.StateID) int {
	if mo.dist == nil {
		mo.dist = endDistances(mo.m)
	}
	return mo.dist[s]
}

// forward keeps, of the events a user could say next, those that bring the
// conversation closest to a final state and, of those, the ones that lead
// to a state not yet visited in this conversation: each is tried on a copy
// of the configuration, and the state it leads to measured with toEnd (an
// event that leads where no final state is reachable counts as the
// farthest). A move back to where the user has been is undoing progress,
// even where the graph's shortest way (a jump the user does not take)
// makes both look as far. Where nothing tells the events apart, it keeps
// them all.
func (p *Player) forward(evs []engine.Event) []int {
	all := make([]int, len(evs))
	for i := range all {
		all[i] = i
	}
	if len(evs) < 2 {
		return all
	}
	type rank struct {
		dist    int // -1: no final state reachable
		visited bool
	}
	better := func(a, b rank) bool {
		if a.dist != b.dist {
			return b.dist < 0 || (a.dist >= 0 && a.dist < b.dist)
		}
		return !a.visited && b.visited
	}
	// A machine whose data lives beside the configuration (an SCXML
	// chart's heap) looks ahead on its data, which is put back after each
	// look; data that cannot be saved so rules no move out.
	data := p.d.Data
	var saved any
	if data != nil {
		var ok bool
		if saved, ok = data.Save(); !ok {
			return all
		}
	}
	ranks := make([]rank, len(evs))
	best := 0
	for i := range evs {
		p.lookCfg = p.d.Cfg
		c := &p.lookCfg
		ev := evs[i]
		ev.At = c.Now
		r := rank{dist: -1, visited: true}
		err := p.mo.m.StepWith(c, data, &ev, &p.look)
		if data != nil && !data.Restore(saved) {
			return all
		}
		if err == nil {
			r.dist = p.mo.toEnd(c.State)
			if c.Final {
				r.dist = 0
			}
			r.visited = c.State == p.began || slices.Contains(p.states, c.State)
		}
		ranks[i] = r
		if better(r, ranks[best]) {
			best = i
		}
	}
	var out []int
	for i, r := range ranks {
		if !better(ranks[best], r) {
			out = append(out, i)
		}
	}
	return out
}
