package reports

import (
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/statechart"
)

// Shape is what the reports and simctl graph read of a suite's machine:
// its states and transitions by id, as coverage counts them.
// *engine.Machine is one (a YAML suite); ChartShape gives an SCXML chart
// the same, so that one code path writes the CSVs, the coverage and the
// state graphs of both.
type Shape interface {
	Name() string
	NumStates() int
	StateName(engine.StateID) string
	StatePos(engine.StateID) engine.Pos
	Parent(engine.StateID) engine.StateID
	IsFinal(engine.StateID) bool
	Initial() engine.StateID
	InState(leaf, s engine.StateID) bool
	NumTransitions() int
	Transition(engine.TransID) engine.TransitionInfo
}

// regionShape is a machine with parallel states and history pseudo-states
// (an SCXML chart): the graph draws a parallel state's regions as dashed
// clusters side by side and a history state as a circle.
type regionShape interface {
	IsParallel(engine.StateID) bool
	IsHistory(engine.StateID) (deep, ok bool)
	// Targets lists every target of a transition (an SCXML transition
	// may enter several regions at once).
	Targets(engine.TransID) []engine.StateID
}

// shape is the suite's machine as the reports read it.
func (s *Suite) shape() Shape {
	if s.Chart != nil {
		return chartShape{s.Chart}
	}
	return s.Machine
}

// ChartShape is an SCXML chart as the reports and simctl graph read it.
func ChartShape(c *statechart.Chart) Shape { return chartShape{c} }

// newCoverage returns zeroed counters sized for the suite's machine.
func (s *Suite) newCoverage() *eval.Coverage {
	if s.Chart != nil {
		return eval.NewCoverageSized(len(s.Chart.Transitions()), len(s.Chart.States)-1)
	}
	return eval.NewCoverage(s.Machine)
}

// chartShape is an SCXML chart as a Shape: state k is the chart's
// state k+1 (the <scxml> root is left out: its children are the top
// level), transition k is Chart.Transitions()[k], as sim.ChartCoverage
// counts them. A transition's trigger is its event descriptors
// ("eventless" for none), its guard the cond's source.
type chartShape struct{ c *statechart.Chart }

func (m chartShape) Name() string   { return m.c.Name }
func (m chartShape) NumStates() int { return len(m.c.States) - 1 }

func (m chartShape) state(id engine.StateID) *statechart.State { return &m.c.States[int(id)+1] }

func (m chartShape) StateName(id engine.StateID) string {
	if int(id)+1 >= len(m.c.States) {
		return ""
	}
	return m.state(id).ID
}

func (m chartShape) StatePos(id engine.StateID) engine.Pos { return engine.Pos(m.state(id).Pos) }

func (m chartShape) Parent(id engine.StateID) engine.StateID {
	if p := m.state(id).Parent; p > 0 {
		return engine.StateID(p - 1)
	}
	return engine.NoID
}

func (m chartShape) IsFinal(id engine.StateID) bool { return m.state(id).Kind == statechart.Final }

func (m chartShape) IsParallel(id engine.StateID) bool {
	return m.state(id).Kind == statechart.Parallel
}

func (m chartShape) IsHistory(id engine.StateID) (deep, ok bool) {
	k := m.state(id).Kind
	return k == statechart.HistoryDeep, k == statechart.HistoryShallow || k == statechart.HistoryDeep
}

// Initial is the first state the <scxml> root's initial transition enters.
func (m chartShape) Initial() engine.StateID {
	if in := m.c.States[0].Initial; in != nil && len(in.Targets) > 0 {
		return engine.StateID(in.Targets[0] - 1)
	}
	return engine.NoID
}

func (m chartShape) InState(leaf, s engine.StateID) bool {
	for x := leaf; x != engine.NoID; x = m.Parent(x) {
		if x == s {
			return true
		}
	}
	return false
}

func (m chartShape) NumTransitions() int { return len(m.c.Transitions()) }

// Transition describes transition t; Target is its first target (Targets
// lists them all), NoID for a targetless one, which counts as internal.
func (m chartShape) Transition(id engine.TransID) engine.TransitionInfo {
	t := m.c.Transitions()[id]
	info := engine.TransitionInfo{ID: id, Source: engine.StateID(t.Source - 1), Target: engine.NoID,
		Trigger: strings.Join(t.Events, " "), Pos: engine.Pos(t.Pos), Internal: len(t.Targets) == 0}
	if info.Trigger == "" {
		info.Trigger = "eventless"
	}
	if len(t.Targets) > 0 {
		info.Target = engine.StateID(t.Targets[0] - 1)
	}
	if t.Cond != statechart.NoExpr {
		info.Guard = m.c.Exprs[t.Cond].Src
	}
	return info
}

func (m chartShape) Targets(id engine.TransID) []engine.StateID {
	t := m.c.Transitions()[id]
	out := make([]engine.StateID, len(t.Targets))
	for i, x := range t.Targets {
		out[i] = engine.StateID(x - 1)
	}
	return out
}

// ChartChecks are what every SCXML suite is checked for, listed in its
// invariants section as the built-in invariants are for a YAML suite: a
// macrostep that did not settle (halted: in scenarios, generated runs and
// the exploration), and the exploration's dead_end, stuck_region and
// livelock (explore.ChartFinding).
var ChartChecks = []string{"halted", "dead_end", "stuck_region", "livelock"}

// isHistory reports whether state s of a machine with regions is a
// history pseudo-state, and whether it is deep.
func isHistory(r regionShape, s engine.StateID) (deep, ok bool) {
	if r == nil {
		return false, false
	}
	return r.IsHistory(s)
}

// historyLabel is how the graphs draw a history state: H, or H* when deep.
func historyLabel(deep bool) string {
	if deep {
		return "H*"
	}
	return "H"
}

// parallelMark is " (parallel)" for a parallel state, else "".
func parallelMark(m Shape, s engine.StateID) string {
	if isParallel(m, s) {
		return " (parallel)"
	}
	return ""
}

// isRegion reports whether s is a region: a child of a parallel state.
func isRegion(m Shape, s engine.StateID) bool {
	p := m.Parent(s)
	return p != engine.NoID && isParallel(m, p)
}

// isParallel reports whether s is a parallel state whose children are
// its regions: an SCXML <parallel>, or a YAML state with parallel: true
// (every child is where one of its regions starts). A YAML fork runs
// its branches in regions of one shape; its children are the branch's
// states, drawn as they are.
func isParallel(m Shape, s engine.StateID) bool {
	switch x := m.(type) {
	case regionShape:
		return x.IsParallel(s)
	case *engine.Machine:
		n := x.Regions(s)
		if n == 0 {
			return false
		}
		heads := map[engine.StateID]bool{}
		for i := range n {
			if e := x.RegionEntry(s, i); len(e) > 0 {
				heads[e[0]] = true
			}
		}
		kids := 0
		for c := range x.NumStates() {
			if x.Parent(engine.StateID(c)) == s {
				kids++
				if !heads[engine.StateID(c)] {
					return false
				}
			}
		}
		return kids > 1
	}
	return false
}

// moreTargets lists the targets of t after its first (an SCXML transition
// may enter several regions at once).
func moreTargets(r regionShape, t engine.TransitionInfo) []engine.StateID {
	if r == nil || t.Internal || t.Target == engine.NoID {
		return nil
	}
	return r.Targets(t.ID)[1:]
}
