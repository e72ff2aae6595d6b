package mutate

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// Killer is a scenario that passes on the original machine and fails on
// the mutants it kills: written by simctl mutate --emit-scenarios for the
// survivors.
type Killer struct {
	Name  string // the scenario's name and file name (without the suffix)
	Data  []byte // the scenario file
	Kills []int  // the ids of the mutants it kills, in order
}

// KillerOptions bound the search for killing scenarios.
type KillerOptions struct {
	Seed int64
	// Generate is the number of generated conversations tried as
	// candidates, per variant.
	Generate int
	// MaxStates caps the search whose covering paths are candidates, and
	// the searches that find where a mutant parts from the original (at
	// most TargetStates each).
	MaxStates int
	// SuitePath is the suite folder as the written files name it (their
	// suite: key); empty: the files live in the suite folder.
	SuitePath string
}

// candidate is a conversation to try: the lines of each turn as a scenario
// writes them, in a variant.
type candidate struct {
	v     *spec.Variant
	turns [][]string
	// The candidate as a scenario without expectations, and what the
	// original shows after each of its turns (nil: it does not play
	// cleanly on the original, and is no candidate).
	bare *spec.Scenario
	orig []seen
}

// Killers searches, for each survivor of suite s in turn, a conversation
// after which the original and the mutant differ in what a scenario can
// check (state, bot text, waited slot, slots, counters), and writes it as a
// scenario expecting the original's behaviour, cut at the first turn that
// differs. A scenario is kept only when it passes on the original without
// breaking any invariant and fails on the mutant; every later survivor it
// kills too is counted as killed by it. The candidates are first those
// aimed at the mutant (targeted), then the paths of a search of the
// original that cover its transitions, then generated conversations, each
// also followed by a wait long enough for every timer.
func Killers(s *spec.Suite, survivors []*Mutant, o KillerOptions) []Killer {
	cands := candidates(s, o)
	origSums := map[string]map[uint64]uint64{}
	for _, v := range s.Variants {
		if res, err := explore.Explore(s, v, explore.Options{Depth: 1 << 30, MaxStates: min(o.MaxStates, TargetStates), Digest: true}); err == nil {
			origSums[v.Name] = res.NodeDigests()
		}
	}
	invs := map[string]bool{}
	for _, n := range spec.BuiltinInvariants {
		invs[n] = true
	}
	for _, inv := range s.Machine.Invariants() {
		invs[inv.Name] = true
	}
	type mutant struct {
		m  *Mutant
		ms *spec.Suite
	}
	var todo []mutant
	for _, m := range survivors {
		if ms, err := Build(s, m.Apply(s.Def)); err == nil {
			todo = append(todo, mutant{m, ms})
		}
	}
	killed := map[int]bool{}
	var out []Killer
	for _, t := range todo {
		if killed[t.m.ID] {
			continue
		}
		name := killerName(s, t.m)
		// A scenario that breaks no invariant on the original is
		// preferred; one that breaks only known contradictions, listed
		// under known_violations, is kept in case there is none.
		var fallback *Killer
		var sc *spec.Scenario
		var v *spec.Variant
		for _, c := range append(targeted(s, t.ms, o, origSums), cands...) {
			data, ok := killerYAML(s, t.ms, c, name, t.m, o, nil)
			if !ok {
				continue
			}
			sc1, err := spec.LoadScenario(filepath.Join(s.Dir, name+spec.ScenarioSuffix), data, s.Machine, s.Tags, invs)
			if err != nil {
				continue
			}
			r := sim.RunScenario(s, sc1, sim.Options{Variant: c.v, Seed: o.Seed})
			if r.Status == sim.Pass && fails(t.ms, sc1, c.v, o.Seed) {
				fallback, sc, v = &Killer{Name: name, Data: data}, sc1, c.v
				break
			}
			if r.Status != sim.Known || fallback != nil {
				continue
			}
			data, _ = killerYAML(s, t.ms, c, name, t.m, o, broken(r))
			if sc1, err = spec.LoadScenario(filepath.Join(s.Dir, name+spec.ScenarioSuffix), data, s.Machine, s.Tags, invs); err != nil {
				continue
			}
			if sim.RunScenario(s, sc1, sim.Options{Variant: c.v, Seed: o.Seed}).Status == sim.Known && fails(t.ms, sc1, c.v, o.Seed) {
				fallback, sc, v = &Killer{Name: name, Data: data}, sc1, c.v
			}
		}
		if fallback == nil {
			continue
		}
		k := *fallback
		for _, u := range todo {
			if !killed[u.m.ID] && fails(u.ms, sc, v, o.Seed) {
				killed[u.m.ID] = true
				k.Kills = append(k.Kills, u.m.ID)
			}
		}
		out = append(out, k)
	}
	return out
}

// broken lists, sorted, the invariants a scenario run broke.
func broken(r *sim.ScenarioResult) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range r.Violations {
		if !seen[v.Invariant] {
			seen[v.Invariant] = true
			out = append(out, v.Invariant)
		}
	}
	sort.Strings(out)
	return out
}

// fails reports whether scenario sc fails on suite ms in variant v's
// place.
func fails(ms *spec.Suite, sc *spec.Scenario, v *spec.Variant, seed int64) bool {
	for _, mv := range ms.Variants {
		if mv.Name == v.Name {
			return sim.RunScenario(ms, sc, sim.Options{Variant: mv, Seed: seed}).Status == sim.Fail
		}
	}
	return false
}

func killerName(s *spec.Suite, m *Mutant) string {
	return fmt.Sprintf("mutant-%s-%d-%s", s.Name, m.ID, strings.ReplaceAll(string(m.Op), "_", "-"))
}

// candidates lists the conversations tried, variant by variant.
func candidates(s *spec.Suite, o KillerOptions) []candidate {
	var out []candidate
	probe := []string{fmt.Sprintf("  - wait: %dms", longestTimer(s.Def)+1)}
	for _, v := range s.Variants {
		var base [][][]string
		if res, err := explore.Explore(s, v, explore.Options{Depth: 1 << 30, MaxStates: o.MaxStates}); err == nil {
			for _, n := range res.Cover() {
				base = append(base, splitTurns(res.PathTurns(n)))
			}
		}
		base = append(base, generated(s, v, o)...)
		for _, b := range base {
			with := append(append([][]string(nil), b...), probe)
			for _, turns := range [][][]string{b, with} {
				c := candidate{v: v, turns: turns}
				c.bare = bareScenario(s, c, o)
				if c.bare != nil {
					c.orig = observe(s, v, c.bare, o.Seed)
				}
				if c.orig != nil {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// TargetStates caps the searches of targeted: the first difference is
// usually a few levels down, and a suite whose search does not complete
// (formfill) would otherwise pay a whole capped search per survivor.
const TargetStates = 50_000

// targeted lists the candidates aimed at one mutant: the search of the
// mutant finds the first configuration (breadth first) from which it
// moves otherwise than the original (origSums, by variant); the path there
// followed by each user act, or by a wait for every timer, is tried.
func targeted(s, ms *spec.Suite, o KillerOptions, origSums map[string]map[uint64]uint64) []candidate {
	var out []candidate
	probe := []string{fmt.Sprintf("  - wait: %dms", longestTimer(s.Def)+1)}
	for i, mv := range ms.Variants {
		sums := origSums[mv.Name]
		if sums == nil {
			continue
		}
		res, err := explore.Explore(ms, mv, explore.Options{Depth: 1 << 30, MaxStates: min(o.MaxStates, TargetStates), Digest: true})
		if err != nil {
			continue
		}
		n, ok := res.FirstDifference(sums)
		if !ok {
			continue
		}
		var path [][]string
		if n > 0 {
			path = splitTurns(res.PathTurns(n))
		}
		var nexts [][][]string
		for _, a := range res.AlphabetTurns() {
			nexts = append(nexts, [][]string{splitTurns(a)[0]}, [][]string{splitTurns(a)[0], probe})
		}
		nexts = append(nexts, [][]string{probe})
		v := s.Variants[i]
		for _, next := range nexts {
			c := candidate{v: v, turns: append(append([][]string(nil), path...), next...)}
			if c.bare = bareScenario(s, c, o); c.bare == nil {
				continue
			}
			if c.orig = observe(s, v, c.bare, o.Seed); c.orig == nil {
				continue
			}
			out = append(out, c)
			// A timer that falls due at another time (a restart dropped)
			// shows only when the wait ends between the two deadlines.
			mut := observe(ms, mv, c.bare, o.Seed)
			if len(mut) != len(c.orig) || len(mut) == 0 {
				continue
			}
			a, b := c.orig[len(mut)-1].next, mut[len(mut)-1].next
			if a == b || (a < 0 && b < 0) {
				continue
			}
			w := a
			if w < 0 || (b >= 0 && b < w) {
				w = b
			}
			t := candidate{v: v, turns: append(append([][]string(nil), c.turns...), []string{fmt.Sprintf("  - wait: %dms", w)})}
			if t.bare = bareScenario(s, t, o); t.bare != nil {
				if t.orig = observe(s, v, t.bare, o.Seed); t.orig != nil {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// longestTimer is the longest delay a timer or timeout of def may take.
func longestTimer(def *engine.Definition) int64 {
	var ms int64 = 1
	for _, t := range def.Timers {
		ms = max(ms, t.AfterMS)
	}
	for _, s := range def.States {
		if s.Timeout != nil {
			ms = max(ms, s.Timeout.AfterMS)
		}
	}
	return ms
}

// splitTurns cuts a scenario's turns: lines into turns.
func splitTurns(text string) [][]string {
	var out [][]string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if strings.HasPrefix(l, "  - ") || len(out) == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], l)
	}
	return out
}

// generated plays o.Generate conversations of simulated users and returns
// their turns.
func generated(s *spec.Suite, v *spec.Variant, o KillerOptions) [][][]string {
	mo, err := generate.NewModel(s, v.Machine)
	if err != nil {
		return nil
	}
	p := generate.NewPlayer(mo, sim.NewStub(s.NLU, v.Machine))
	p.Record = true
	var out [][][]string
	for k := 0; k < o.Generate; k++ {
		res := p.Play(mo.Sample(o.Seed, k), uint64(o.Seed)^uint64(k)*0x9E3779B97F4A7C15)
		var turns [][]string
		for _, t := range res.Recorded {
			var l []string
			switch {
			case t.IsWait:
				l = append(l, fmt.Sprintf("  - wait: %dms", t.WaitMS))
			case t.Intent != "":
				l = append(l, fmt.Sprintf("  - event: {intent: %s}", strconv.Quote(t.Intent)))
			default:
				l = append(l, fmt.Sprintf("  - user: %s", strconv.Quote(t.User)))
			}
			if len(t.Schedule) > 0 {
				parts := make([]string, len(t.Schedule))
				for i, x := range t.Schedule {
					parts[i] = strconv.Itoa(x)
				}
				l = append(l, fmt.Sprintf("    schedule: [%s]", strings.Join(parts, ", ")))
			}
			turns = append(turns, l)
		}
		if len(turns) > 0 {
			out = append(out, turns)
		}
	}
	return out
}

// seen is what a scenario can check after a turn.
type seen struct {
	// next is how long until the next timer falls due (-1: none); no
	// scenario can check it, but a wait that long can show it.
	next                 int64
	state, said, waiting string
	slots                []string // "" for an empty slot, else "=" + value
	counters             []int
}

// watch records the configuration after each step, by turn.
type watch struct {
	m    *engine.Machine
	last map[int]engine.Config
}

func (w *watch) Observe(st *eval.Step) { w.last[st.Turn] = *st.After }

// bareScenario loads candidate c as a scenario without expectations; nil
// when it does not load.
func bareScenario(s *spec.Suite, c candidate, o KillerOptions) *spec.Scenario {
	data := scenarioText(s, c, "probe", &Mutant{}, o, nil, nil)
	sc, err := spec.LoadScenario(filepath.Join(s.Dir, "probe"+spec.ScenarioSuffix), data, c.v.Machine, s.Tags, allInvariants(s))
	if err != nil {
		return nil
	}
	return sc
}

// observe plays scenario sc on suite s in variant v and returns what
// could be seen after each turn; nil when the run stops early (a runtime
// error).
func observe(s *spec.Suite, v *spec.Variant, sc *spec.Scenario, seed int64) []seen {
	w := &watch{m: v.Machine, last: map[int]engine.Config{}}
	r := sim.RunScenario(s, sc, sim.Options{Variant: v, Seed: seed, Observers: []sim.Observer{w}})
	if r.Error != "" || len(r.TurnLog) != len(sc.Turns) {
		return nil
	}
	m := v.Machine
	out := make([]seen, len(r.TurnLog))
	var cfg engine.Config
	if c, ok := w.last[0]; ok {
		cfg = c
	}
	for i, t := range r.TurnLog {
		if c, ok := w.last[t.Turn]; ok {
			cfg = c
		}
		x := seen{state: t.State, said: t.Said, next: -1}
		if tm, ok := m.NextTimer(&cfg); ok {
			x.next = tm.Deadline - cfg.Now
		}
		if cfg.Waiting != engine.NoID {
			x.waiting = m.SlotName(cfg.Waiting)
		}
		for id := range m.Slots() {
			val := cfg.Slot(engine.SlotID(id))
			if val.IsEmpty() {
				x.slots = append(x.slots, "")
			} else {
				x.slots = append(x.slots, "="+val.String())
			}
		}
		for id := range m.Counters() {
			x.counters = append(x.counters, int(cfg.Counters[id]))
		}
		out[i] = x
	}
	return out
}

func allInvariants(s *spec.Suite) map[string]bool {
	invs := map[string]bool{}
	for _, n := range spec.BuiltinInvariants {
		invs[n] = true
	}
	for _, inv := range s.Machine.Invariants() {
		invs[inv.Name] = true
	}
	return invs
}

// killerYAML plays candidate c on the original and the mutant and, when
// they differ after some turn, writes the scenario up to that turn with
// the original's state and bot text expected after every turn, and at
// the last what differs in slots, counters and the waited slot.
func killerYAML(s, ms *spec.Suite, c candidate, name string, m *Mutant, o KillerOptions, known []string) ([]byte, bool) {
	var mv *spec.Variant
	for _, x := range ms.Variants {
		if x.Name == c.v.Name {
			mv = x
		}
	}
	orig, mut := c.orig, observe(ms, mv, c.bare, o.Seed)
	k := -1
	for i := range orig {
		if i >= len(mut) || !sameSeen(orig[i], mut[i]) {
			k = i
			break
		}
	}
	if k < 0 {
		return nil, false
	}
	cut := candidate{v: c.v, turns: c.turns[:k+1]}
	var mk *seen
	if k < len(mut) {
		mk = &mut[k]
	}
	return scenarioText(s, cut, name, m, o, known, func(i int) string { return expectation(c.v.Machine, orig[i], mk, i == k) }), true
}

func sameSeen(a, b seen) bool {
	return a.state == b.state && a.said == b.said && a.waiting == b.waiting &&
		strings.Join(a.slots, "\x00") == strings.Join(b.slots, "\x00") && fmt.Sprint(a.counters) == fmt.Sprint(b.counters)
}

// expectation writes the expect: line of a turn: state and bot always; at
// the last turn also each slot, counter and waited slot that differs from
// the mutant's (mut nil: the mutant's run stopped).
func expectation(m *engine.Machine, x seen, mut *seen, last bool) string {
	parts := []string{"state: " + strconv.Quote(x.state), "bot: " + strconv.Quote(x.said)}
	if last && mut != nil {
		if x.waiting != mut.waiting {
			parts = append(parts, "waiting: "+strconv.Quote(x.waiting))
		}
		var slots, empty []string
		for id, v := range x.slots {
			if v == mut.slots[id] {
				continue
			}
			if v == "" {
				empty = append(empty, m.SlotName(engine.SlotID(id)))
			} else {
				slots = append(slots, m.SlotName(engine.SlotID(id))+": "+strconv.Quote(v[1:]))
			}
		}
		if len(slots) > 0 {
			parts = append(parts, "slots: {"+strings.Join(slots, ", ")+"}")
		}
		if len(empty) > 0 {
			parts = append(parts, "empty: ["+strings.Join(empty, ", ")+"]")
		}
		var counters []string
		for id, n := range x.counters {
			if n != mut.counters[id] {
				counters = append(counters, fmt.Sprintf("%s: %d", m.CounterName(engine.CounterID(id)), n))
			}
		}
		if len(counters) > 0 {
			parts = append(parts, "counters: {"+strings.Join(counters, ", ")+"}")
		}
	}
	return "    expect: {" + strings.Join(parts, ", ") + "}"
}

// scenarioText writes candidate c as a scenario, with expect(i) after
// turn i when expect is set.
func scenarioText(s *spec.Suite, c candidate, name string, m *Mutant, o KillerOptions, known []string, expect func(int) string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by simctl mutate --emit-scenarios (seed %d): the original machine\n", o.Seed)
	fmt.Fprintf(&b, "# passes it, mutant %d fails it: %s\n", m.ID, m.Pos)
	fmt.Fprintf(&b, "#   %s\n", m.Desc)
	fmt.Fprintf(&b, "name: %s\n", name)
	b.WriteString("pin: true\n")
	if o.SuitePath != "" {
		fmt.Fprintf(&b, "suite: %s\n", strconv.Quote(filepath.ToSlash(o.SuitePath)))
	}
	fmt.Fprintf(&b, "description: %s\n", strconv.Quote(fmt.Sprintf("tells the machine from mutant %d (%s)", m.ID, m.Op)))
	if len(known) > 0 {
		fmt.Fprintf(&b, "known_violations: [%s]\n", strings.Join(known, ", "))
	}
	if len(s.Def.Params) > 0 {
		b.WriteString("parameters:\n")
		names := make([]string, 0, len(s.Def.Params))
		for _, p := range s.Def.Params {
			names = append(names, p.Name)
		}
		sort.Strings(names)
		for _, n := range names {
			val, _ := c.v.Machine.Param(n)
			fmt.Fprintf(&b, "  %s: %s\n", n, strconv.Quote(val.String()))
		}
	}
	b.WriteString("turns:\n")
	for i, t := range c.turns {
		for _, l := range t {
			b.WriteString(l + "\n")
		}
		if expect != nil {
			b.WriteString(expect(i) + "\n")
		}
	}
	return []byte(b.String())
}
