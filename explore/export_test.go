package explore

import (
	"fmt"
	"slices"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

// What the external tests need of the explorer's internals: the reference
// search in reference_test.go steps the same user alphabet, and bounds
// the failures it explores per event the same way.

// FullAlphabet returns the user acts an unreduced search offers at every
// configuration of machine m of suite s (before value classes).
func FullAlphabet(s *spec.Suite, m *engine.Machine) []engine.Event { return fullAlphabet(s, m) }

// MaxChoiceBits is how many external actions per event the explorer lets
// fail as well as succeed.
const MaxChoiceBits = maxChoiceBits

// PathOf returns the events on the shortest path to node n.
func PathOf(r *Result, n int32) []Edge {
	out := []Edge{}
	for _, e := range r.path(n) {
		out = append(out, Edge{Event: e.event, Fails: e.fails})
	}
	return out
}

// SetFolding turns folding alike events on or off, returning the old
// setting.
func SetFolding(on bool) bool {
	old := foldPayloads
	foldPayloads = on
	return old
}

// SetMaxQuiet sets how many findings the checker is told about before
// a step (0: none, every violation described anew), returning the old
// value.
func SetMaxQuiet(n int) int {
	old := maxQuiet
	maxQuiet = n
	return old
}

// SetSplitWidth sets how many configurations per shard a sharded search
// splits at (tests split early, to split small machines), returning the
// old width.
func SetSplitWidth(w int) int {
	old := splitWidth
	splitWidth = w
	return old
}

// SameGraph reports how two searches' graphs differ (their nodes, in
// order, and the node each transition was first taken at), or nil.
func SameGraph(a, b *Result) error {
	if len(a.nodes) != len(b.nodes) {
		return fmt.Errorf("%d nodes, then %d", len(a.nodes), len(b.nodes))
	}
	for i := range a.nodes {
		if a.nodes[i] != b.nodes[i] {
			return fmt.Errorf("node %d: %+v, then %+v", i, a.nodes[i], b.nodes[i])
		}
	}
	if !slices.Equal(a.firstTaken, b.firstTaken) {
		return fmt.Errorf("first taken: %v, then %v", a.firstTaken, b.firstTaken)
	}
	return nil
}

// SetParallel sets the narrowest level a parallel search expands on its
// workers and its batch size (0: adapt), returning a func that restores
// both.
func SetParallel(minWidth, batch int) func() {
	m, b := minParallel, fixedBatch
	minParallel, fixedBatch = minWidth, batch
	return func() { minParallel, fixedBatch = m, b }
}
