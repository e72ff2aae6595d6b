package explore

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
)

// Cover returns a small set of nodes whose shortest paths together take
// every transition the search took: the shortest path to each transition's
// first occurrence are the candidates, and a greedy cover picks, again and
// again, the one taking the most transitions not yet covered (ties: the
// shorter path, then the earlier node).
func (r *Result) Cover() []int32 {
	type cand struct {
		node  int32
		takes map[engine.TransID]bool
	}
	seen := map[int32]bool{}
	var cands []cand
	for _, n := range r.firstTaken {
		if n < 0 || seen[n] {
			continue
		}
		seen[n] = true
		c := cand{node: n, takes: map[engine.TransID]bool{}}
		var cfg engine.Config
		var scratch engine.Result
		d := r.begin(&cfg, &scratch)
		for _, s := range scratch.Steps {
			if s.Trans != engine.NoID {
				c.takes[s.Trans] = true
			}
		}
		for _, e := range r.path(n) {
			taken, _ := r.replay(&cfg, d, e, &scratch, -1)
			for _, t := range taken {
				c.takes[t] = true
			}
		}
		cands = append(cands, c)
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].node < cands[j].node })
	covered := map[engine.TransID]bool{}
	var out []int32
	for {
		best, bestGain := -1, 0
		for i, c := range cands {
			gain := 0
			for t := range c.takes {
				if !covered[t] {
					gain++
				}
			}
			if gain > bestGain || (gain == bestGain && gain > 0 && r.nodes[c.node].depth < r.nodes[cands[best].node].depth) {
				best, bestGain = i, gain
			}
		}
		if best < 0 {
			return out
		}
		for t := range cands[best].takes {
			covered[t] = true
		}
		out = append(out, cands[best].node)
	}
}

// EmitScenarios writes, for each search, scenarios that together cover
// every transition it took, and one per finding, into dir. It returns how
// many it wrote. Each file is written to a temporary name and renamed.
func EmitScenarios(dir string, results []*Result) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	n := 0
	for _, r := range results {
		for i, node := range r.Cover() {
			name := fmt.Sprintf("explore-%s-%s-cover-%d", r.Suite, r.Variant, i+1)
			desc := fmt.Sprintf("simctl explore: a shortest path covering transitions (%d events)", r.PathLen(node))
			if err := r.writeScenario(dir, name, desc, node); err != nil {
				return n, err
			}
			n++
		}
		seen := map[string]int{}
		for _, f := range r.Findings {
			name := fmt.Sprintf("explore-%s-%s-%s", r.Suite, r.Variant, f.Kind)
			// A second finding of one invariant (another move or state)
			// gets its own file.
			if seen[f.Kind]++; seen[f.Kind] > 1 {
				name += fmt.Sprintf("-%d", seen[f.Kind])
			}
			desc := fmt.Sprintf("simctl explore: the shortest path to %s (%d events): %s", f.Key(), r.PathLen(f.Node), f.Violation.Msg)
			if err := r.writeScenario(dir, name, desc, f.Node); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// extNames names actions, each once, in order.
func extNames(m *engine.Machine, xs []engine.ExtID) []string {
	var out []string
	for _, x := range xs {
		if name := m.ExtName(x); !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// writeScenario writes the path to node as a scenario: each user act an
// event turn (failed actions listed under fail:), each timer a wait of
// exactly the time to its deadline, each branch step an entry of the
// schedule of the turn it belongs to.
func (r *Result) writeScenario(dir, name, desc string, node int32) error {
	var b strings.Builder
	suite := r.suiteDir
	if abs, err := filepath.Abs(r.suiteDir); err == nil {
		if base, err := filepath.Abs(dir); err == nil {
			if rel, err := filepath.Rel(base, abs); err == nil {
				suite = rel
			}
		}
	}
	fmt.Fprintf(&b, "# Written by simctl explore. Replay: simctl replay <this file>\n")
	fmt.Fprintf(&b, "name: %s\n", name)
	fmt.Fprintf(&b, "suite: %s\n", strconv.Quote(filepath.ToSlash(suite)))
	fmt.Fprintf(&b, "description: %s\n", strconv.Quote(desc))
	b.WriteString("tags: [explored]\n")
	if len(r.assign) > 0 {
		b.WriteString("parameters:\n")
		keys := make([]string, 0, len(r.assign))
		for k := range r.assign {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s: %s\n", k, strconv.Quote(r.assign[k]))
		}
	}
	path := r.path(node)
	var cfg engine.Config
	var scratch engine.Result
	d := r.begin(&cfg, &scratch)
	if len(path) > 0 && path[0].event == edgeStartResults {
		// The start's actions answer before any turn; those that failed
		// on this path fail at the start of the replay too.
		probe := cfg
		if _, failed := r.replay(&probe, d, path[0], &scratch, -1); len(failed) > 0 {
			fmt.Fprintf(&b, "fail_at_start: [%s]\n", strings.Join(extNames(r.m, failed), ", "))
		}
	}
	b.WriteString("turns:\n")
	b.WriteString(r.PathTurns(node))
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, name+".scenario.yaml"))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// PathEvents describes the shortest path to node n, one short line per
// event, for a person reading simctl explore's output: `intent "text"`
// (with =value, entities and failed actions when there are any), `wait
// 1500ms` for a timer, `branch 2` for a fork branch's step, "the start's
// actions answer" for the results of the actions the start invoked.
func (r *Result) PathEvents(n int32) []string {
	var out []string
	var cfg engine.Config
	var scratch engine.Result
	d := r.begin(&cfg, &scratch)
	for _, e := range r.path(n) {
		before := cfg
		_, failed := r.replay(&cfg, d, e, &scratch, -1)
		var s string
		switch {
		case e.event >= 0:
			ev := r.alpha[e.event]
			s = r.m.Intents()[ev.Intent]
			if ev.Value != "" && ev.Value != ev.Text {
				s += "=" + strconv.Quote(ev.Value)
			}
			for i := 0; i < int(ev.NEnt); i++ {
				s += fmt.Sprintf(" %s=%s", r.m.EntityName(ev.Entities[i].ID), strconv.Quote(ev.Entities[i].Value.Str))
			}
			if ev.Text != "" {
				s += " " + strconv.Quote(ev.Text)
			}
		case e.event == edgeTimer:
			t, _ := r.m.NextTimer(&before)
			s = fmt.Sprintf("wait %dms (%s)", t.Deadline-before.Now, r.m.TimerName(t.ID))
		case e.event == edgeStartResults:
			s = "the start's actions answer"
		default:
			s = "branch " + strconv.Itoa(int(edgeBranch-e.event))
		}
		var names []string
		for _, x := range failed {
			if name := r.m.ExtName(x); !slices.Contains(names, name) {
				names = append(names, name)
				s += " [" + name + " fails]"
			}
		}
		out = append(out, s)
	}
	return out
}

// PathTurns returns the turns of the shortest path to node as the lines
// of a scenario's turns: list (see writeScenario); simctl mutate builds
// scenarios on them.
func (r *Result) PathTurns(node int32) string {
	var b strings.Builder
	path := r.path(node)
	var cfg engine.Config
	var scratch engine.Result
	d := r.begin(&cfg, &scratch)
	turns := 0
	// A turn is written once the branch steps that follow it are known:
	// they are its schedule, and the actions failed on them are failed
	// for the whole turn.
	var schedule, fails []string
	flush := func() {
		if len(fails) > 0 {
			fmt.Fprintf(&b, "    fail: [%s]\n", strings.Join(fails, ", "))
			fails = nil
		}
		if len(schedule) > 0 {
			fmt.Fprintf(&b, "    schedule: [%s]\n", strings.Join(schedule, ", "))
			schedule = nil
		}
	}
	for _, e := range path {
		before := cfg
		_, failed := r.replay(&cfg, d, e, &scratch, -1)
		switch {
		case e.event == edgeStartResults:
			continue
		case e.event >= 0:
			flush()
			b.WriteString(r.eventTurn(e.event))
			turns++
		case e.event == edgeTimer:
			flush()
			t, _ := r.m.NextTimer(&before)
			fmt.Fprintf(&b, "  - wait: %dms\n", t.Deadline-before.Now)
			turns++
		default:
			schedule = append(schedule, strconv.Itoa(int(edgeBranch-e.event)))
		}
		for _, x := range failed {
			if name := r.m.ExtName(x); !slices.Contains(fails, name) {
				fails = append(fails, name)
			}
		}
	}
	if turns == 0 {
		b.WriteString("  - wait: 0ms\n")
	}
	flush()
	return b.String()
}

// eventTurn writes user act i of the alphabet as a scenario's event turn.
func (r *Result) eventTurn(i int32) string {
	var b strings.Builder
	ev := r.alpha[i]
	fmt.Fprintf(&b, "  - event: {intent: %s", strconv.Quote(r.m.Intents()[ev.Intent]))
	if ev.Text != "" {
		fmt.Fprintf(&b, ", text: %s", strconv.Quote(ev.Text))
	}
	if ev.Value != "" {
		fmt.Fprintf(&b, ", value: %s", strconv.Quote(ev.Value))
	}
	if ev.NEnt > 0 {
		b.WriteString(", entities: {")
		for i := 0; i < int(ev.NEnt); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s: %s", r.m.EntityName(ev.Entities[i].ID), strconv.Quote(ev.Entities[i].Value.Str))
		}
		b.WriteString("}")
	}
	b.WriteString("}\n")
	return b.String()
}

// AlphabetTurns returns every user act of the search's alphabet as a
// scenario's event turn.
func (r *Result) AlphabetTurns() []string {
	out := make([]string, len(r.alpha))
	for i := range r.alpha {
		out[i] = r.eventTurn(int32(i))
	}
	return out
}
