package explore

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/scxml"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/statechart"
)

// ChartStep is one move of a chart exploration: an external event by name,
// or (Wait) the virtual clock moving MS milliseconds, to the next delayed
// event.
type ChartStep struct {
	Event string
	Wait  bool
	MS    int64
}

func (s ChartStep) String() string {
	if s.Wait {
		return "wait " + strconv.FormatInt(s.MS, 10) + "ms"
	}
	return s.Event
}

// ChartFinding is a problem found in an SCXML chart, with the shortest path
// to the first configuration that shows it.
type ChartFinding struct {
	// Kind is "halted" (a macrostep that did not settle, or a runaway
	// script, stopped the session), "dead_end" (running, and no event or delay changes
	// anything), "stuck_region" (a region of a parallel state that can no
	// longer reach its final state, so the parallel state never completes
	// and is never left), "livelock" (no top-level final state can be
	// reached any more), "stuck" (one can, but only through an escape:
	// cancel, a session timeout) or "leaked_timer" (a delayed event
	// fell due where nothing took it, though the chart handles it).
	Kind   string
	Active []string // the active atomic states there
	Msg    string
	Path   []ChartStep
}

// ChartResult is the outcome of exploring a chart.
type ChartResult struct {
	Generated, Distinct, Depth int
	// Complete is false when the depth or state bound stopped the search;
	// Capped says it was the state bound (MaxStates), which can leave
	// the deepest level partly explored.
	Complete    bool
	Capped      bool
	Interrupted bool // Stop ended the search
	Alphabet    []string
	Covered     int // transitions taken at least once
	Total       int // transitions of the chart
	Findings    []ChartFinding
	Unreached   []string // states never active
	// Coverage counts, per transition and state (sim.ChartCoverage's
	// ids), the edges of the search that took or entered it: the start,
	// then each (configuration, step) tried once.
	Coverage *eval.Coverage
}

// ChartOptions bound a chart exploration.
type ChartOptions struct {
	Depth     int // 0: no bound
	MaxStates int // 0: DefaultChartMaxStates
	// Stop, as Options.Stop: asked every few configurations whether to
	// give up; the search then ends with what it found, Interrupted set.
	Stop func() bool
}

// DefaultChartMaxStates bounds a chart's search when ChartOptions do not.
const DefaultChartMaxStates = 100000

type chartNode struct {
	key    string
	path   []ChartStep
	active []string
	config statechart.Bits
	// saved is the session at this configuration, to step from; nil when
	// its data model could not copy its variables (then the path is
	// replayed on a fresh session).
	saved  *statechart.Saved
	wait   int64    // the clock's move to the next delayed event
	delays bool     // whether an event is delayed
	due    []string // the delayed events that move delivers
	// esc names, for each successor in succ, the escape the step to it
	// is (see escape), or "".
	done   bool // expanded
	stop   bool // not running any more
	final  bool // stopped in a top-level final state
	halted string
	succ   []int
	esc    []string
	depth  int
}

// escape reports whether a step abandons the task rather than completes
// it: an event, sent or delayed, whose name a YAML machine's default
// escapes would count (cancel, stop, quit, abort; session, inactiv, idle).
func escape(names ...string) bool {
	for _, n := range names {
		if engine.DefaultEscape(n, false) || engine.DefaultEscape(n, true) {
			return true
		}
	}
	return false
}

// Chart explores an SCXML machine breadth-first: from each configuration,
// every event of the alphabet and, when events are delayed, the clock
// moving to the next one. A configuration is the session's Key (states,
// history, delayed events, data), so regions interleave as the events
// reach them. Each configuration is stored (Session.Save, the data
// model's variables included) and every step from it starts from what
// was stored; a configuration whose data cannot be stored that way (a
// function in a variable) is reached by replaying its shortest path on a
// fresh session instead, which keeps the search exact for any data model.
func Chart(m *scxml.Machine, opt ChartOptions) ChartResult {
	if opt.MaxStates <= 0 {
		opt.MaxStates = DefaultChartMaxStates
	}
	c := m.Chart
	res := ChartResult{Alphabet: c.Alphabet(), Complete: true}
	res.Coverage = sim.ChartCoverage(c)
	var activeEver statechart.Bits
	index := map[string]int{}
	var nodes []*chartNode
	// add records the session's configuration, reached from parent (nil:
	// the start) by st, unless it is known.
	add := func(s *statechart.Session, parent *chartNode, st ChartStep) int {
		k := s.Key()
		if i, ok := index[k]; ok {
			return i
		}
		var path []ChartStep
		if parent != nil {
			path = append(append(make([]ChartStep, 0, len(parent.path)+1), parent.path...), st)
		}
		n := &chartNode{key: k, path: path, active: s.Active(), config: s.Configuration(), stop: !s.Running(), depth: len(path)}
		n.final = n.stop && s.Final >= 0
		n.halted = s.Halted()
		if !n.stop {
			n.saved, _ = s.Save()
			if due, ok := s.NextDue(); ok {
				n.wait, n.delays = due-s.Now(), true
				n.due = s.DueWithin(n.wait)
			}
		}
		for w := range activeEver {
			activeEver[w] |= n.config[w]
		}
		index[k] = len(nodes)
		nodes = append(nodes, n)
		if len(path) > res.Depth {
			res.Depth = len(path)
		}
		return len(nodes) - 1
	}
	// replay plays path on a fresh session, counting what it takes
	// nowhere that counts: the last step counts where it is played.
	scratch := sim.ChartCoverage(c)
	replay := func(path []ChartStep) *statechart.Session {
		s := m.NewSession()
		sim.CountChart(s, scratch, nil)
		s.Start()
		for _, st := range path {
			play(s, st)
		}
		return s
	}
	// discarded collects the events a step took from a queue that
	// enabled nothing: a delayed one the chart handles somewhere was
	// left pending when the states that handle it were exited.
	var discarded []string
	hook := func(s *statechart.Session) {
		sim.CountChart(s, res.Coverage, nil)
		s.Discarded = func(ev statechart.Event) { discarded = append(discarded, ev.Name) }
	}
	var leak *ChartFinding
	s := m.NewSession()
	hook(s)
	s.Start()
	add(s, nil, ChartStep{})
	steps := make([]ChartStep, 0, len(res.Alphabet)+1)
	for i := 0; i < len(nodes); i++ {
		if opt.Stop != nil && i%stopEvery == 0 && opt.Stop() {
			// The configurations not expanded count as able to reach
			// anything, as beyond a bound: no finding comes of stopping.
			res.Complete, res.Interrupted = false, true
			break
		}
		n := nodes[i]
		if n.stop {
			n.done = true
			continue
		}
		if opt.Depth > 0 && n.depth >= opt.Depth || len(nodes) >= opt.MaxStates {
			res.Complete = false
			res.Capped = res.Capped || len(nodes) >= opt.MaxStates
			continue
		}
		n.done = true
		steps = steps[:0]
		for _, e := range res.Alphabet {
			steps = append(steps, ChartStep{Event: e})
		}
		if n.delays {
			steps = append(steps, ChartStep{Wait: true, MS: n.wait})
		}
		for _, st := range steps {
			if n.saved == nil || !s.Restore(n.saved) {
				s = replay(n.path)
				hook(s)
			}
			discarded = discarded[:0]
			play(s, st)
			res.Generated++
			if st.Wait && leak == nil {
				leak = leaked(c, n, st, discarded)
			}
			j := add(s, n, st)
			if j != i {
				n.succ = append(n.succ, j)
				e := ""
				switch {
				case st.Wait && escape(n.due...):
					e = "the delayed " + strings.Join(n.due, ", ")
				case !st.Wait && escape(st.Event):
					e = st.Event
				}
				n.esc = append(n.esc, e)
			}
		}
	}
	res.Distinct = len(nodes)
	res.Total = countTransitions(c)
	for _, n := range res.Coverage.Trans {
		if n > 0 {
			res.Covered++
		}
	}
	for i := 1; i < len(c.States); i++ {
		if k := c.States[i].Kind; k != statechart.HistoryShallow && k != statechart.HistoryDeep && !activeEver.Has(i) {
			res.Unreached = append(res.Unreached, c.States[i].ID)
		}
	}
	res.Findings = chartFindings(c, nodes)
	if leak != nil {
		res.Findings = append(res.Findings, *leak)
	}
	return res
}

// leaked returns a leaked_timer finding when the wait step st from n
// delivered a delayed event that no active state took although a
// transition of the chart handles it, or nil.
func leaked(c *statechart.Chart, n *chartNode, st ChartStep, discarded []string) *ChartFinding {
	for _, name := range discarded {
		isDue := false
		for _, d := range n.due {
			isDue = isDue || d == name
		}
		if !isDue || !c.Handles(name) {
			continue
		}
		return &ChartFinding{Kind: "leaked_timer", Active: n.active, Path: append(append([]ChartStep(nil), n.path...), st),
			Msg: "delayed event " + name + " fell due in " + strings.Join(n.active, " ") + " and no active state took it, although a transition of the chart handles it: it was sent, then left pending when the states that handle it were exited (a <cancel> missing from an <onexit>)"}
	}
	return nil
}

func play(s *statechart.Session, st ChartStep) {
	if st.Wait {
		s.Advance(st.MS)
		return
	}
	s.Send(statechart.Event{Name: st.Event})
}

// EmitChartScenarios writes, for each finding of each chart, a scenario
// that replays its shortest path and expects the configuration at its end,
// to dir as <suite>-<kind>.scenario.yaml; suiteDirs[i] is the folder of
// results[i]'s suite. It returns the number of files written.
func EmitChartScenarios(dir string, names, suiteDirs []string, results []ChartResult) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	n := 0
	for i, res := range results {
		rel, err := relPath(dir, suiteDirs[i])
		if err != nil {
			return n, err
		}
		for _, f := range res.Findings {
			var b strings.Builder
			name := names[i] + "-" + strings.ReplaceAll(f.Kind, "_", "-")
			fmt.Fprintf(&b, "name: %s\nsuite: %s\ndescription: %q\ntags: [explored]\nturns:\n", name, filepath.ToSlash(rel), "simctl explore: "+f.Kind+": "+f.Msg)
			for _, st := range f.Path {
				if st.Wait {
					fmt.Fprintf(&b, "  - wait: %dms\n", st.MS)
				} else {
					fmt.Fprintf(&b, "  - event: {name: %q}\n", st.Event)
				}
			}
			if len(f.Path) == 0 {
				continue
			}
			fmt.Fprintf(&b, "    expect: {configuration: [%s]}\n", strings.Join(f.Active, ", "))
			if err := writeWhole(filepath.Join(dir, name+".scenario.yaml"), b.String()); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// relPath is target relative to base, both taken from the working
// folder when relative.
func relPath(base, target string) (string, error) {
	b, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	t, err := filepath.Abs(target)
	if err != nil {
		return "", err
	}
	return filepath.Rel(b, t)
}

// writeWhole writes a file through a temporary one and a rename, so that
// no reader sees half of it.
func writeWhole(path, content string) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func countTransitions(c *statechart.Chart) int {
	n := 0
	for i := range c.States {
		n += len(c.States[i].Trans)
	}
	return n
}

// chartFindings judges the explored graph. A configuration that was not
// expanded (beyond the depth bound) counts as able to reach anything, so
// that a bound never produces a finding.
func chartFindings(c *statechart.Chart, nodes []*chartNode) []ChartFinding {
	var out []ChartFinding
	for _, n := range nodes {
		if n.halted != "" {
			out = append(out, ChartFinding{Kind: "halted", Active: n.active, Path: n.path, Msg: n.halted})
			break
		}
	}
	for _, n := range nodes {
		if n.done && !n.stop && len(n.succ) == 0 {
			out = append(out, ChartFinding{Kind: "dead_end", Active: n.active, Path: n.path,
				Msg: "no event changes this configuration and nothing is delayed"})
			break
		}
	}
	stuck := false
	for p := range c.States {
		if c.States[p].Kind != statechart.Parallel || !completes(c, p) {
			continue
		}
		var regions []int
		var goods [][]bool
		for _, r := range c.States[p].Children {
			if k := c.States[r].Kind; k == statechart.HistoryShallow || k == statechart.HistoryDeep {
				continue
			}
			r := r
			regions = append(regions, r)
			goods = append(goods, canReach(nodes, func(n *chartNode) bool { return !n.config.Has(p) || inFinal(c, n.config, r) }, false))
		}
		for i, n := range nodes {
			if !n.config.Has(p) {
				continue
			}
			var stuckRegions []string
			for k, r := range regions {
				if !goods[k][i] {
					stuckRegions = append(stuckRegions, c.States[r].ID)
				}
			}
			if len(stuckRegions) == 0 {
				continue
			}
			word := "region " + stuckRegions[0] + " cannot reach its final state"
			if len(stuckRegions) > 1 {
				word = "regions " + strings.Join(stuckRegions, ", ") + " cannot reach their final states"
			}
			out = append(out, ChartFinding{Kind: "stuck_region", Active: n.active, Path: n.path,
				Msg: "parallel state " + c.States[p].ID + " can never complete: " + word + ", and no transition leaves " + c.States[p].ID})
			stuck = true
			break
		}
	}
	if stuck || !hasTopFinal(c) {
		return out
	}
	final := func(n *chartNode) bool { return n.final }
	good := canReach(nodes, final, false)
	for i, n := range nodes {
		if !good[i] {
			out = append(out, ChartFinding{Kind: "livelock", Active: n.active, Path: n.path,
				Msg: "no top-level final state can be reached from here"})
			break
		}
	}
	// stuck: the final state is still reachable, but only through an
	// escape (cancel, a session timeout), as YAML suites judge it.
	unaided := canReach(nodes, final, true)
	for i, n := range nodes {
		if good[i] && !unaided[i] {
			out = append(out, ChartFinding{Kind: "stuck", Active: n.active, Path: n.path,
				Msg: "a top-level final state can be reached from here only through an escape (" + strings.Join(escapesFrom(nodes, i), ", ") + "): the task cannot complete by itself"})
			break
		}
	}
	return out
}

// escapesFrom lists the escape steps taken from the stuck node's
// reachable part, as the finding names them.
func escapesFrom(nodes []*chartNode, i int) []string {
	seen := map[int]bool{i: true}
	names := map[string]bool{}
	queue := []int{i}
	for len(queue) > 0 {
		n := nodes[queue[0]]
		queue = queue[1:]
		for k, j := range n.succ {
			if n.esc[k] != "" {
				continue
			}
			if !seen[j] {
				seen[j] = true
				queue = append(queue, j)
			}
		}
	}
	for j := range seen {
		n := nodes[j]
		for _, e := range n.esc {
			if e != "" {
				names[e] = true
			}
		}
	}
	out := make([]string, 0, len(names))
	for k := range names {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// completes reports whether every region of parallel state p has a final
// state to reach, so that p is meant to complete.
func completes(c *statechart.Chart, p int) bool {
	for _, r := range c.States[p].Children {
		k := c.States[r].Kind
		if k == statechart.HistoryShallow || k == statechart.HistoryDeep {
			continue
		}
		if k == statechart.Parallel {
			if !completes(c, r) {
				return false
			}
			continue
		}
		has := false
		for _, ch := range c.States[r].Children {
			if c.States[ch].Kind == statechart.Final {
				has = true
			}
		}
		if !has && k != statechart.Final {
			return false
		}
	}
	return true
}

// inFinal is the recommendation's isInFinalState on a configuration.
func inFinal(c *statechart.Chart, config statechart.Bits, s int) bool {
	switch c.States[s].Kind {
	case statechart.Final:
		return config.Has(s)
	case statechart.Compound:
		for _, ch := range c.States[s].Children {
			if c.States[ch].Kind == statechart.Final && config.Has(ch) {
				return true
			}
		}
	case statechart.Parallel:
		for _, ch := range c.States[s].Children {
			if k := c.States[ch].Kind; k != statechart.HistoryShallow && k != statechart.HistoryDeep && !inFinal(c, config, ch) {
				return false
			}
		}
		return true
	}
	return false
}

func hasTopFinal(c *statechart.Chart) bool {
	for _, ch := range c.States[0].Children {
		if c.States[ch].Kind == statechart.Final {
			return true
		}
	}
	return false
}

// canReach marks the nodes from which a node satisfying goal, or a node
// not expanded, can be reached; unaided: without an escape step.
func canReach(nodes []*chartNode, goal func(*chartNode) bool, unaided bool) []bool {
	pred := make([][]int, len(nodes))
	for i, n := range nodes {
		for k, j := range n.succ {
			if unaided && n.esc[k] != "" {
				continue
			}
			pred[j] = append(pred[j], i)
		}
	}
	good := make([]bool, len(nodes))
	var queue []int
	for i, n := range nodes {
		if goal(n) || !n.done {
			good[i] = true
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		j := queue[0]
		queue = queue[1:]
		for _, i := range pred[j] {
			if !good[i] {
				good[i] = true
				queue = append(queue, i)
			}
		}
	}
	return good
}
