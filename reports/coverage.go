package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// CoverageCSV is the coverage report's file name.
const CoverageCSV = "coverage.csv"

// Coverage kinds, in the order coverage.csv lists them within a suite.
const (
	KindState      = "state"
	KindTransition = "transition"
	KindIntent     = "intent"
	KindSlot       = "slot"
	KindGuardTrue  = "guard_true"
	KindGuardFalse = "guard_false"
	KindTag        = "tag"
)

// Coverage sources, as the sources column names them.
const (
	SourceScripted  = "scripted"
	SourceGenerated = "generated"
	SourceExplored  = "explored"
)

// CoverageRow is one line of coverage.csv: one item of a suite's machine
// (a state, a transition, an intent, a slot, one outcome of a guard) or
// one scenario tag, how often it was covered and by which sources.
type CoverageRow struct {
	Suite string `csv:"suite"`
	Kind  string `csv:"kind"`
	// ID is the item's numeric id in the compiled machine (for guard rows
	// the transition's; for tags the position in the sorted tag list).
	ID   int    `csv:"id"`
	Item string `csv:"item"`
	// Count is summed over the conversations played: scripted scenarios
	// and generated conversations. Explorations count separately.
	Count   int64  `csv:"count"`
	Covered bool   `csv:"covered"` // some source covered it, explorations included
	Spec    string `csv:"spec"`    // file:line:col where it is declared; empty if not known
	// Sources lists the sources that covered it, space separated, in the
	// order scripted, generated, explored.
	Sources   string `csv:"sources"`
	Scripted  int64  `csv:"scripted"`
	Generated int64  `csv:"generated"`
	Explored  int64  `csv:"explored"`
}

// WriteCoverageCSV writes coverage.csv for run: a header, then by suite
// name every state, transition, intent, slot, guard outcome and tag.
func WriteCoverageCSV(w io.Writer, run *Run) error {
	suites, err := ordered(run)
	if err != nil {
		return err
	}
	rows := []CoverageRow{}
	for _, s := range suites {
		rows = append(rows, coverageRows(s)...)
	}
	return marshalCSV(w, rows)
}

// played is the suite's coverage over the conversations played: its
// scripted scenarios plus its generated conversations. transitions.csv,
// summary.json and the page count these.
func played(s *Suite) *eval.Coverage {
	if s.GeneratedCoverage == nil {
		return s.Coverage
	}
	c := s.newCoverage()
	c.Add(s.Coverage)
	c.Add(s.GeneratedCoverage)
	return c
}

// counter reads one kind of count from a coverage.
type counter func(c *eval.Coverage) []int64

// at returns counts[i] of c's counter, or 0 when c is nil or too short.
func (f counter) at(c *eval.Coverage, i int) int64 {
	if c == nil {
		return 0
	}
	if xs := f(c); i < len(xs) {
		return xs[i]
	}
	return 0
}

// coverageRows lists every item of one suite in coverage.csv order.
func coverageRows(s *Suite) []CoverageRow {
	m := s.shape()
	var rows []CoverageRow
	add := func(kind string, id int, item string, pos engine.Pos, scripted, generated, explored int64) {
		r := CoverageRow{Suite: s.Name, Kind: kind, ID: id, Item: item, Count: scripted + generated,
			Sources: sources(scripted, generated, explored), Scripted: scripted, Generated: generated, Explored: explored}
		if pos != (engine.Pos{}) {
			r.Spec = pos.String()
		}
		r.Covered = r.Sources != ""
		rows = append(rows, r)
	}
	// counted adds an item of the machine, counted by all three sources.
	counted := func(kind string, id int, item string, pos engine.Pos, f counter) {
		add(kind, id, item, pos, f.at(s.Coverage, id), f.at(s.GeneratedCoverage, id), f.at(s.ExploredCoverage, id))
	}
	// A compound state counts as entered whenever one of its
	// descendants is (the engine counts the state a transition lands in).
	entered := func(c *eval.Coverage) []int64 {
		if c == nil {
			return nil
		}
		return enteredCounts(m, c.States)
	}
	scripted, generated, explored := entered(s.Coverage), entered(s.GeneratedCoverage), entered(s.ExploredCoverage)
	for i := range m.NumStates() {
		add(KindState, i, m.StateName(engine.StateID(i)), m.StatePos(engine.StateID(i)),
			countAt(scripted, i), countAt(generated, i), countAt(explored, i))
	}
	for i := range m.NumTransitions() {
		t := m.Transition(engine.TransID(i))
		counted(KindTransition, i, transitionItem(m, t), t.Pos, transitions)
	}
	intentPos, slotPos := declared(s.Def)
	for i, name := range s.Machine.Intents() {
		counted(KindIntent, i, name, intentPos[name], intents)
	}
	for i, name := range s.Machine.Slots() {
		counted(KindSlot, i, name, slotPos[name], slots)
	}
	for _, g := range []struct {
		kind string
		f    counter
	}{{KindGuardTrue, guardTrue}, {KindGuardFalse, guardFalse}} {
		for i := range m.NumTransitions() {
			if t := m.Transition(engine.TransID(i)); t.Guard != "" {
				counted(g.kind, i, transitionItem(m, t), t.Pos, g.f)
			}
		}
	}
	// Tags belong to scripted scenarios only.
	tags, counts := tagCounts(s)
	for i, tag := range tags {
		add(KindTag, i, tag, engine.Pos{}, counts[i], 0, 0)
	}
	return rows
}

// The counters of an eval.Coverage, one per kind.
var (
	transitions counter = func(c *eval.Coverage) []int64 { return c.Trans }
	intents     counter = func(c *eval.Coverage) []int64 { return c.Intents }
	slots       counter = func(c *eval.Coverage) []int64 { return c.Slots }
	guardTrue   counter = func(c *eval.Coverage) []int64 { return c.GuardTrue }
	guardFalse  counter = func(c *eval.Coverage) []int64 { return c.GuardFalse }
)

// sources names the sources with a non-zero count.
func sources(scripted, generated, explored int64) string {
	var out []string
	for _, s := range []struct {
		n    int64
		name string
	}{{scripted, SourceScripted}, {generated, SourceGenerated}, {explored, SourceExplored}} {
		if s.n > 0 {
			out = append(out, s.name)
		}
	}
	return strings.Join(out, " ")
}

// anyState stands for the source of an override, which any state takes.
const anyState = "(any state)"

// transitionItem names a transition in one line: "from -> to on trigger
// [guard]"; a targetless transition has "(internal)" for its target, an
// override "(any state)" for its source.
func transitionItem(m Shape, t engine.TransitionInfo) string {
	to := target(m, t)
	if to == "" {
		to = "(internal)"
	}
	from := m.StateName(t.Source)
	if t.Source == engine.NoID {
		from = anyState
	}
	s := fmt.Sprintf("%s -> %s on %s", from, to, t.Trigger)
	if t.Guard != "" {
		s += " [" + t.Guard + "]"
	}
	return s
}

// declared maps intent and slot names to where machine.yaml declares them.
func declared(d *engine.Definition) (intents, slots map[string]engine.Pos) {
	intents, slots = map[string]engine.Pos{}, map[string]engine.Pos{}
	if d == nil {
		return
	}
	for _, n := range d.Intents {
		intents[n.Name] = n.Pos
	}
	for _, sd := range d.Slots {
		slots[sd.Name] = sd.Pos
	}
	return
}

// tagCounts returns the suite's tags, sorted (the tags it declares and any
// its scenarios carry), with the number of scenario runs carrying each.
func tagCounts(s *Suite) ([]string, []int64) {
	tags := slices.Clone(s.Tags)
	for _, r := range s.Scenarios {
		tags = append(tags, r.Tags...)
	}
	slices.Sort(tags)
	tags = slices.Compact(tags)
	counts := make([]int64, len(tags))
	for _, r := range s.Scenarios {
		for _, t := range slices.Compact(slices.Sorted(slices.Values(r.Tags))) {
			i, _ := slices.BinarySearch(tags, t)
			counts[i]++
		}
	}
	return tags, counts
}
