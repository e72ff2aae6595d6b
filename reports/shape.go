package reports

import (
	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// Shape is what the reports and simctl graph read of a suite's machine:
// its states and transitions by id, as coverage counts them.
// *engine.Machine is one, whatever the suite's machine file was.
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

// shape is the suite's machine as the reports read it.
func (s *Suite) shape() Shape { return s.Machine }

// newCoverage returns zeroed counters sized for the suite's machine.
func (s *Suite) newCoverage() *eval.Coverage { return eval.NewCoverage(s.Machine) }

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
