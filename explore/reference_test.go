package explore_test

// A reference for the explorer: a naive depth-bounded depth-first search
// over the same successor relation, written from the engine and the
// checker directly. It keys configurations by value (a Go map of whole
// configurations, no hashing), recomputes successors whenever it reaches a
// configuration by a shorter path than before, checks every edge it
// walks, and decides livelocks by a fixpoint over all the edges it saw.
// Random machines (enginetest.RandomMachine, with invariants added) are
// searched both ways through gopter; the two must agree on how many
// distinct configurations lie within the depth and on which invariants,
// dead ends and livelocks they find.

import (
	"fmt"
	"math/rand"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/spec"
)

// refState is a configuration with the checker's path state.
type refState struct {
	cfg  engine.Config
	path eval.PathState
}

// refKey is what makes two states the same: the configuration with its
// time made relative and its counters saturated (timers count from now, ranked by firing order, the
// last utterance forgotten), data past the flow stack's and the fork's
// length cleared, and the path state with within-bounds counted from the
// state's turn (path also holds the ranked timers).
type refKey struct {
	cfg  engine.Config
	path string
}

func keyOf(m *engine.Machine, st *refState, turn int) refKey {
	c := st.cfg
	// A counter's values from where the machine reads them alike count as
	// one, as in the explorer (the engine's analysis decides where; its
	// specs check it).
	for i := range m.Counters() {
		if from, ok := m.CounterAlikeFrom(engine.CounterID(i)); ok && c.Counters[i] > from {
			c.Counters[i] = from
		}
	}
	now := c.Now
	c.Now, c.TimerSeq, c.LastSay = 0, 0, 0
	var ts []engine.Timer
	for i := range c.TimerSlots() {
		if t := c.TimerAt(i); t.Active {
			t.Deadline -= now
			ts = append(ts, t)
		}
	}
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].Deadline != ts[j].Deadline {
			return ts[i].Deadline < ts[j].Deadline
		}
		return ts[i].Seq < ts[j].Seq
	})
	// The ranked timers go in the path string: past the inline ones the
	// engine keeps them in a string of its own.
	c.Timers = [engine.InlineTimers]engine.Timer{}
	c.SetMoreTimers("")
	for i := range ts {
		ts[i].Seq = uint32(i + 1)
	}
	for i := int(c.FlowDepth); i < len(c.Flows); i++ {
		c.Flows[i] = 0
	}
	for i := int(c.NBranch); i < len(c.Branches); i++ {
		c.Branches[i] = engine.Branch{}
	}
	for i := engine.SlotID(0); i < engine.MaxSlots; i++ {
		if v := c.Slot(i); v.Kind == engine.Empty && v != (engine.Value{}) {
			c.SetSlot(i, engine.Value{})
		}
	}
	due := make([]int, len(st.path.Due))
	for i, d := range st.path.Due {
		due[i] = -1
		if d >= 0 {
			due[i] = d - turn
		}
	}
	return refKey{cfg: c, path: fmt.Sprint(st.path.Last, due, ts)}
}

// refNode is what the reference knows of one configuration.
type refNode struct {
	depth int // the shortest path's length
	good  bool
	// dead: a dead end; fails: an event from it makes the engine fail.
	dead, fails bool
	next        []refKey
	// nextNE are the successors some event other than an escape leads to.
	nextNE []refKey
}

// refResult is what the reference found.
type refResult struct {
	nodes map[refKey]*refNode
	kinds map[string]bool
}

func (r *refResult) sortedKinds() []string {
	out := []string{}
	for k := range r.kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

type reference struct {
	m       *engine.Machine
	alpha   []engine.Event
	checker *eval.Checker
	bound   int
	res     refResult
	// startCalls are the actions the machine's start invoked.
	startCalls []call
}

// refSearch searches m of suite s to depth bound, naively.
func refSearch(s *spec.Suite, m *engine.Machine, bound int) (*refResult, error) {
	r := &reference{m: m, alpha: explore.FullAlphabet(s, m), checker: eval.NewChecker(m), bound: bound,
		res: refResult{nodes: map[refKey]*refNode{}, kinds: map[string]bool{}}}
	var root refState
	var res engine.Result
	if err := m.Start(&root.cfg, 0, &res); err != nil {
		return nil, err
	}
	r.checker.Reset()
	before := engine.Config{State: engine.NoID, Waiting: engine.NoID, LastSay: engine.NoID}
	r.observe(0, nil, &before, &root.cfg, &res)
	// The actions the start invoked are delivered, each way, as the
	// root's successors.
	for _, e := range res.Effects {
		if e.Kind == engine.EffInvoke && e.Branch == 0 {
			r.startCalls = append(r.startCalls, call{ext: e.Ext, branch: e.Branch, level: 1})
		}
	}
	root.path = r.checker.Save()
	r.dfs(root, 0)
	r.livelocks()
	return &r.res, nil
}

func (r *reference) dfs(st refState, d int) {
	k := keyOf(r.m, &st, d)
	if d == 0 && len(r.startCalls) > 0 {
		// Awaiting the start's results: not the configuration an
		// unhandled failure leaves, though it looks the same.
		k.path += " awaiting the start's results"
	}
	n, seen := r.res.nodes[k]
	if seen && n.depth <= d {
		return
	}
	if !seen {
		n = &refNode{good: r.m.IsIdle(&st.cfg) && (d > 0 || len(r.startCalls) == 0)}
		r.res.nodes[k] = n
	}
	n.depth = d
	if d == r.bound {
		return
	}
	outs := r.successors(st, d)
	n.next, n.nextNE, n.fails = nil, nil, false
	for _, o := range outs {
		if o.failed {
			n.fails = true
			continue
		}
		n.next = append(n.next, keyOf(r.m, &o.st, d+1))
		if !o.esc {
			n.nextNE = append(n.nextNE, keyOf(r.m, &o.st, d+1))
		}
	}
	_, timer := r.m.NextTimer(&st.cfg)
	if len(outs) == 0 && !st.cfg.Final && !timer {
		n.dead = true
		r.res.kinds[eval.DeadEnd] = true
	}
	for _, o := range outs {
		if !o.failed {
			r.dfs(o.st, d+1)
		}
	}
}

// outcome is a successor, or an engine failure.
type outcome struct {
	st     refState
	failed bool
	esc    bool // an escape event led to it
}

// successors delivers the result each region awaits, each way; if none
// awaits one, every user act and the next timer.
func (r *reference) successors(st refState, d int) []outcome {
	if d == 0 && len(r.startCalls) > 0 {
		return r.deliver(st, r.startCalls, 0, d)
	}
	var out []outcome
	c := &st.cfg
	mask := c.Awaiting()
	for i := 0; i < int(c.NBranch); i++ {
		if mask&(1<<i) != 0 {
			out = append(out, r.deliver(st, []call{{ext: c.Branches[i].Pending, branch: uint8(i + 1)}}, 0, d)...)
		}
	}
	if len(out) > 0 {
		return out
	}
	mark := func(os []outcome, esc bool) []outcome {
		for i := range os {
			os[i].esc = esc
		}
		return os
	}
	for _, ev := range r.alpha {
		ev.At = c.Now
		out = append(out, mark(r.apply(st, ev, d), r.m.IsEscapeIntent(ev.Intent))...)
	}
	if t, ok := r.m.NextTimer(c); ok {
		out = append(out, mark(r.apply(st, engine.Event{Kind: engine.TimerEvent, Timer: t.ID, At: t.Deadline, Ext: engine.NoID}, d), r.m.IsEscapeTimer(t.ID))...)
	}
	return out
}

// call is an invoked action waiting for its result, nested level deep.
type call struct {
	ext    engine.ExtID
	branch uint8
	level  int
}

// A driver's limits (sim.Driver): at most 8 actions invoked in one step,
// results nested at most 32 levels deep.
const (
	refMaxInvokes = 8
	refMaxLevels  = 32
)

// apply steps one event, then delivers the results of the actions it set
// off, depth first, each way it may go.
func (r *reference) apply(st refState, ev engine.Event, d int) []outcome {
	next, calls, ok := r.step(st, ev, d, 0)
	if !ok {
		return nil
	}
	if next.failed {
		return []outcome{next}
	}
	return r.deliver(next.st, calls, 0, d)
}

func (r *reference) deliver(st refState, calls []call, bit int, d int) []outcome {
	if len(calls) == 0 {
		return []outcome{{st: st}}
	}
	p := calls[0]
	var out []outcome
	for _, fail := range []bool{false, true} {
		if fail && (bit >= explore.MaxChoiceBits || !r.m.MayFail(p.ext)) {
			continue
		}
		var ev engine.Event
		cfg := st.cfg
		r.m.InvokeIn(&cfg, p.ext, p.branch, cfg.Now, &ev)
		if fail {
			ev = engine.Event{Kind: engine.FailedEvent, Ext: p.ext, At: cfg.Now, Branch: p.branch, Timer: engine.NoID}
		}
		next, more, _ := r.step(refState{cfg: cfg, path: st.path}, ev, d, p.level)
		if next.failed {
			out = append(out, next)
			continue
		}
		out = append(out, r.deliver(next.st, append(more, calls[1:]...), bit+1, d)...)
	}
	return out
}

// step applies ev to a copy of st and checks every invariant on it. ok is
// false when a user act or branch step changed nothing.
func (r *reference) step(st refState, ev engine.Event, d, level int) (outcome, []call, bool) {
	cfg := st.cfg
	var res engine.Result
	r.checker.Restore(st.path)
	failed := func() (outcome, []call, bool) {
		r.res.kinds[eval.RuntimeError] = true
		return outcome{failed: true}, nil, true
	}
	if err := r.m.Step(&cfg, &ev, &res); err != nil {
		return failed()
	}
	if !res.Handled && ev.Kind == engine.UserEvent {
		return outcome{}, nil, false
	}
	var calls []call
	for _, e := range res.Effects {
		if e.Kind == engine.EffInvoke && e.Branch == 0 {
			calls = append(calls, call{ext: e.Ext, branch: e.Branch, level: level + 1})
		}
	}
	if len(calls) > refMaxInvokes {
		return failed()
	}
	r.observe(d+1, &ev, &st.cfg, &cfg, &res)
	if len(calls) > 0 && level >= refMaxLevels {
		return failed()
	}
	return outcome{st: refState{cfg: cfg, path: r.checker.Save()}}, calls, true
}

func (r *reference) observe(turn int, ev *engine.Event, before, after *engine.Config, res *engine.Result) {
	r.checker.Observe(&eval.Step{Turn: turn, Event: ev, Before: before, After: after, Result: res})
	for _, v := range r.checker.Violations {
		r.res.kinds[v.Key()] = true
	}
}

// livelocks: a configuration from which neither a good one (idle, final,
// or at the depth bound) nor a dead end or engine failure can be reached.
func (r *reference) livelocks() {
	ok := map[refKey]bool{}
	for k, n := range r.res.nodes {
		if n.good || n.dead || n.fails || n.depth >= r.bound {
			ok[k] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for k, n := range r.res.nodes {
			if ok[k] {
				continue
			}
			for _, x := range n.next {
				if ok[x] {
					ok[k] = true
					changed = true
					break
				}
			}
		}
	}
	if len(ok) < len(r.res.nodes) {
		r.res.kinds["livelock"] = true
	}
	// Stuck: an end is reachable, but not without an escape event.
	okNE := map[refKey]bool{}
	for k, n := range r.res.nodes {
		if n.good || n.dead || n.fails || n.depth >= r.bound {
			okNE[k] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for k, n := range r.res.nodes {
			if okNE[k] {
				continue
			}
			for _, x := range n.nextNE {
				if okNE[x] {
					okNE[k] = true
					changed = true
					break
				}
			}
		}
	}
	for k := range r.res.nodes {
		if ok[k] && !okNE[k] {
			r.res.kinds[explore.Stuck] = true
		}
	}
}

// machineCase is one random machine (drawn from Seed) and the depth both
// searches go to.
type machineCase struct {
	Seed  int64
	Depth int
}

func (c machineCase) String() string {
	return fmt.Sprintf("machine seed %d, depth %d", c.Seed, c.Depth)
}

// suite draws the case's machine: a random engine machine with an
// allowed-transition table, a never and a within invariant added, and
// validators on two slots so that the user alphabet carries the values its
// guards test.
func (c machineCase) suite() (*spec.Suite, error) {
	r := rand.New(rand.NewSource(c.Seed))
	for range 20 {
		d := et.RandomMachine(r)
		d.Validators = append(d.Validators,
			engine.ValidatorDef{Name: "sv", OneOf: []string{"a", "bad"}},
			engine.ValidatorDef{Name: "iv", OneOf: []string{"a|b", "bad|a|c"}})
		for i := range d.Slots {
			switch d.Slots[i].Name {
			case "s":
				d.Slots[i].Validator = "sv"
			case "items":
				d.Slots[i].Validator = "iv"
			}
		}
		var top []string
		for _, s := range d.States {
			if s.Parent == "" {
				top = append(top, s.Name)
			}
		}
		var rows []engine.AllowedDef
		for _, from := range top {
			row := engine.AllowedDef{From: engine.NameDef{Name: from}}
			for _, to := range top {
				if r.Intn(2) == 0 {
					row.To = append(row.To, engine.NameDef{Name: to})
				}
			}
			rows = append(rows, row)
		}
		d.Invariants = append(d.Invariants,
			engine.InvariantDef{Name: "table", Kind: engine.InvAllowed, Allowed: rows},
			engine.InvariantDef{Name: "never", Kind: engine.InvNever, Expr: engine.Expr{Src: []string{
				`c0 >= 2 and s == "a"`, `state == "` + top[r.Intn(len(top))] + `"`, `filled(merged)`, `c1 > 1`}[r.Intn(4)]}},
			engine.InvariantDef{Name: "within", Kind: engine.InvWithin, Turns: 1 + r.Intn(3),
				Expr: engine.Expr{Src: "c0 > 0"}, Then: engine.Expr{Src: []string{"c0 == 0", `s == "a"`, "filled(s)"}[r.Intn(3)]}})
		m, diags := engine.Build(d)
		if diags.Err() != nil {
			continue
		}
		return &spec.Suite{Name: "random", Def: d, Machine: m, MaxTurns: 50,
			Variants: []*spec.Variant{{Name: "default", Machine: m}}}, nil
	}
	return nil, fmt.Errorf("no random machine with invariants builds")
}

// refSeed fixes the machines the property is checked on; a failure prints
// it with the failing case's own seed. SIMCTL_REF_SEED and SIMCTL_REF_CASES
// override the seed and the number of cases, to search further than the
// suite does on every run.
var (
	refSeed  = envInt("SIMCTL_REF_SEED", 20261122)
	refCases = int(envInt("SIMCTL_REF_CASES", 50))
)

func envInt(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil {
		return v
	}
	return def
}

// refBudget bounds the successors one case's search may compute.
const refBudget = 1000

// refCompared counts the cases compared (not over budget at depth 1).
var refCompared int

// agreeing checks one case: the explorer and the reference agree.
func agreeing(c machineCase) error {
	s, err := c.suite()
	if err != nil {
		return err
	}
	// The deepest search up to the case's depth that stays within budget:
	// the reference is slow, and some machines fan out (every action may
	// fail, results invoke actions again, 32 levels deep).
	var res *explore.Result
	depth := 0
	for d := 1; d <= c.Depth; d++ {
		r, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: d, NoReduce: true})
		if err != nil {
			return nil // the machine fails at its start: nothing to search
		}
		if r.Generated > refBudget {
			break
		}
		res, depth = r, d
	}
	if res == nil {
		return nil // over budget at depth 1
	}
	refCompared++
	ref, err := refSearch(s, s.Machine, depth)
	if err != nil {
		return fmt.Errorf("the reference fails at the start, the explorer does not: %v", err)
	}
	var diffs []string
	if res.Distinct != len(ref.nodes) {
		diffs = append(diffs, fmt.Sprintf("distinct configurations: got %d, want %d", res.Distinct, len(ref.nodes)))
	}
	if got, want := keys(res), ref.sortedKinds(); !slices.Equal(got, want) {
		diffs = append(diffs, fmt.Sprintf("findings: got %v, want %v", got, want))
	}
	if len(diffs) > 0 {
		return fmt.Errorf("at depth %d:\n%s\n%s%s", depth, strings.Join(diffs, "\n"), et.GoSource(s.Def), invariantsOf(s.Def))
	}
	return nil
}

// invariantsOf renders the invariants suite() added, which GoSource
// leaves out.
func invariantsOf(d *engine.Definition) string {
	var b strings.Builder
	for _, inv := range d.Invariants {
		switch inv.Kind {
		case engine.InvAllowed:
			fmt.Fprintf(&b, "invariant %s: allowed", inv.Name)
			for _, row := range inv.Allowed {
				fmt.Fprintf(&b, " %s->%v", row.From.Name, names(row.To))
			}
		case engine.InvWithin:
			fmt.Fprintf(&b, "invariant %s: within %d turns after %s, %s", inv.Name, inv.Turns, inv.Expr.Src, inv.Then.Src)
		default:
			fmt.Fprintf(&b, "invariant %s: never %s", inv.Name, inv.Expr.Src)
		}
		b.WriteByte('\n')
	}
	for _, v := range d.Validators {
		fmt.Fprintf(&b, "validator %s: one of %q\n", v.Name, v.OneOf)
	}
	return b.String()
}

func names(ns []engine.NameDef) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Name
	}
	return out
}

// forAllMachines adapts a typed check to a gopter property over random
// machine cases, so that nothing else sees interface{}.
func forAllMachines(check func(machineCase) error) gopter.Prop {
	cases := gopter.CombineGens(gen.Int64Range(1, 1<<40), gen.IntRange(2, 5)).Map(func(v []interface{}) machineCase {
		return machineCase{Seed: v[0].(int64), Depth: v[1].(int)}
	})
	return prop.ForAll(func(c machineCase) string {
		if err := check(c); err != nil {
			return fmt.Sprintf("%s: %v", c, err)
		}
		return ""
	}, cases)
}

var _ = Describe("the explorer against a naive reference search", func() {
	It("agrees on the planted faults", func() {
		s := load("testdata/planted")
		res := search(s, explore.Options{Depth: 10, NoReduce: true})
		ref, err := refSearch(s, s.Machine, 10)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Distinct).To(Equal(len(ref.nodes)))
		Expect(keys(res)).To(Equal(ref.sortedKinds()))
	})

	DescribeTable("agrees on a seed suite",
		func(dir string, depth int) {
			s := load(dir)
			for _, v := range s.Variants {
				res, err := explore.Explore(s, v, explore.Options{Depth: depth, NoReduce: true})
				Expect(err).NotTo(HaveOccurred())
				ref, err := refSearch(s, v.Machine, depth)
				Expect(err).NotTo(HaveOccurred())
				Expect(res.Distinct).To(Equal(len(ref.nodes)), "variant %s", v.Name)
				Expect(keys(res)).To(Equal(ref.sortedKinds()), "variant %s", v.Name)
			}
		},
		Entry("soni", seedSuite("soni"), 2),
		Entry("bench-soni", seedSuite("bench-soni"), 3),
		Entry("hfsm", seedSuite("hfsm"), 4),
		Entry("thea", seedSuite("thea"), 2),
	)

	It("agrees on random machines", func() {
		params := gopter.DefaultTestParametersWithSeed(refSeed)
		params.MinSuccessfulTests = refCases
		params.MaxShrinkCount = 0 // a seed does not shrink
		props := gopter.NewProperties(params)
		props.Property("explorer = reference", forAllMachines(agreeing))
		var out strings.Builder
		refCompared = 0
		if !props.Run(gopter.NewFormatedReporter(true, 1<<16, &out)) {
			Fail(fmt.Sprintf("the explorer and the reference disagree; gopter seed %d\n%s", refSeed, out.String()))
		}
		Expect(refCompared).To(BeNumerically(">=", params.MinSuccessfulTests*8/10), "cases within budget")
	})
})
