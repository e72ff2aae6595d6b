package enginetest

// Random machines for property tests of the engine's own laws.
//
// The shapes drawn are chosen so that every machine builds and its runs stay
// meaningful rather than erroring at once:
//
//   - an eventless transition is guarded by "cN < K" and increments cN, an
//     override increments both counters, and only the actions of user,
//     timer and action-result transitions reset counters, so every chain of
//     eventless transitions ends (unless max_chain is drawn smaller than the
//     chain, which is a legitimate runaway error to render);
//   - a timer duration computed as "300 - c0 * 150" comes out negative once
//     c0 reaches 3, which is a runtime error to render;
//   - a fork branch only moves forward through its states, each of which has
//     an unguarded way on, so every branch finishes;
//   - a branch reads only its own context (branch_index, branch_input) and
//     writes only its contract, so whether and how the fork joins cannot
//     depend on the order in which the caller schedules the branches.

import (
	"fmt"
	"math/rand"
	"strings"

	"github.com/simctl/simctl/engine"
)

// RandomMachine draws a random, valid definition from r: RandomDefinition
// until one builds. The generator is meant to draw only valid definitions,
// so the loop is a safety net; it panics if a hundred draws in a row fail,
// which is a bug of the generator, not of the engine.
func RandomMachine(r *rand.Rand) *engine.Definition {
	var last error
	for i := 0; i < 100; i++ {
		d := RandomDefinition(r)
		_, diags := engine.Build(d)
		if last = diags.Err(); last == nil {
			return d
		}
	}
	panic(fmt.Sprintf("enginetest: 100 random definitions in a row failed to build; last: %v", last))
}

// RandomDefinition draws one random definition from r: 3 to 6 top-level
// states (waiting and transient leaves, compound states with an initial
// child, at most one final state and at most one fork), 2 to 4 intents,
// guarded user, timer and done:/failed: transitions, timeouts, sometimes a
// global override, and actions over two counters, four text slots (one
// persistent), one or two timers and two external actions. It does not
// build the definition; RandomMachine does.
func RandomDefinition(r *rand.Rand) *engine.Definition {
	g := &drawer{r: r}
	return g.machine()
}

// RandomUserValues are the values user turns carry: slot fillers and, split
// at "|", a fork's branch inputs.
var RandomUserValues = []string{"", "a", "b", "bad", "a|b", "bad|a|c", "x|y"}

type drawer struct {
	r       *rand.Rand
	b       *Builder
	intents []string
	timers  []string
	targets []string // states of the main machine a transition may target
}

// stateKind is the shape of a top-level state.
type stateKind int

const (
	kindWait stateKind = iota
	kindTransient
	kindCompound
	kindFinal
	kindFork
)

func (g *drawer) intn(n int) int { return g.r.Intn(n) }

// chance reports true with probability 1/n.
func (g *drawer) chance(n int) bool { return g.r.Intn(n) == 0 }

func pick[T any](g *drawer, xs []T) T { return xs[g.intn(len(xs))] }

func (g *drawer) machine() *engine.Definition {
	names := []string{"a", "b", "c", "d", "e", "f"}
	n := 3 + g.intn(4)
	kinds := make([]stateKind, n)
	hasFinal, hasFork := false, false
	for i := range kinds {
		k := stateKind(pick(g, []int{0, 0, 0, 1, 1, 2, 2, 3, 4, 4}))
		switch {
		case i == 0 && k == kindFinal:
			k = kindWait
		case k == kindFinal && hasFinal, k == kindFork && hasFork:
			k = kindCompound
		}
		hasFinal = hasFinal || k == kindFinal
		hasFork = hasFork || k == kindFork
		kinds[i] = k
	}

	g.b = New("random", names[0]).MaxChain(3 + g.intn(6))
	for i := 0; i < 2+g.intn(3); i++ {
		g.intents = append(g.intents, fmt.Sprintf("i%d", i))
	}
	g.b.Intents(g.intents...)
	g.b.Slot("s", engine.TypeText).Slot("items", engine.TypeText).Slot("merged", engine.TypeText).
		PersistentSlot("note", engine.TypeText)
	g.b.Counter("c0", 3).Counter("c1", 2)
	for i := 0; i < 1+g.intn(2); i++ {
		name := fmt.Sprintf("t%d", i)
		g.timers = append(g.timers, name)
		g.b.Timer(name, pick(g, []int64{100, 200, 300, 500}))
	}
	g.b.External("x1", pick(g, []string{"", "", "c0 < 2", `s != "bad"`}))
	if g.chance(2) {
		g.b.Output("x1", "s", pick(g, []string{`"out"`, `s + "!"`}))
	}
	if hasFork {
		g.b.External("x0", pick(g, []string{"", `branch_input != "bad"`, "branch_index != 1"}))
	}

	// Children are known before any transition is drawn, so that every
	// state of the main machine can be a target.
	children := make([][]string, n)
	for i, k := range kinds {
		g.targets = append(g.targets, names[i])
		if k == kindCompound {
			for _, c := range []string{"p", "q"}[:1+g.intn(2)] {
				children[i] = append(children[i], names[i]+"."+c)
			}
			g.targets = append(g.targets, children[i]...)
		}
	}
	for i, k := range kinds {
		name := names[i]
		switch k {
		case kindWait:
			g.b.State(name, g.leaf(true)...)
		case kindTransient:
			g.b.State(name, g.leaf(false)...)
		case kindFinal:
			g.b.State(name, Final(), Entry(g.actions(g.entryAction, 1)...))
		case kindCompound:
			g.compound(name, children[i])
		case kindFork:
			g.fork(name)
		}
	}
	if g.chance(4) {
		g.override(names[:n])
	}
	return g.b.Def()
}

// override draws a global override. Its actions increment both counters:
// an override replaces the actions of the eventless transition it
// intercepts, and so must make the progress that transition would have.
func (g *drawer) override(top []string) {
	opts := []OverrideOpt{Do(append([]engine.ActionDef{Incr("c0"), Incr("c1")}, g.actions(g.entryAction, 1)...)...)}
	if !g.chance(3) {
		opts = append(opts, When(g.guard()))
	}
	if g.chance(2) {
		opts = append(opts, From(pick(g, top)))
	}
	if g.chance(3) {
		opts = append(opts, Toward(g.target()))
	}
	g.b.Override("o1", g.target(), opts...)
}

// leaf draws the parts of a waiting or a transient leaf state.
func (g *drawer) leaf(waits bool) []Part {
	var parts []Part
	if waits {
		parts = append(parts, Waits())
	}
	parts = append(parts, Entry(g.actions(g.entryAction, 2)...), Exit(g.actions(g.entryAction, 1)...))
	// Every leaf has one unguarded way out on a user turn, so that random
	// conversations keep moving.
	parts = append(parts, On(pick(g, append([]string{"*"}, g.intents...)), g.target(), g.actions(g.userAction, 1)...))
	if g.chance(3) {
		// It calls the external action and waits for its result.
		parts = append(parts, Entry(Invoke("x1")),
			On("done:x1", g.targetOrSelf(), g.actions(g.userAction, 1)...),
			On("failed:x1", g.target()))
	}
	if waits {
		for i := 0; i < g.intn(3); i++ {
			parts = append(parts, g.userTransition())
		}
		if g.chance(5) {
			parts = append(parts, Timeout(pick(g, []int64{150, 250, 400}),
				ToIf(g.guard(), g.target(), g.actions(g.userAction, 1)...),
				To(g.targetOrSelf(), g.actions(g.userAction, 2)...)))
		}
		return parts
	}
	for i := 0; i < 1+g.intn(2); i++ {
		parts = append(parts, g.always())
	}
	return parts
}

// compound draws a compound state whose children are leaves, one of them
// sometimes final (which ends the child, not the conversation).
func (g *drawer) compound(name string, children []string) {
	parts := []Part{Initial(strings.TrimPrefix(pick(g, children), name+".")),
		Entry(g.actions(g.entryAction, 1)...), Exit(g.actions(g.entryAction, 1)...)}
	for i := 0; i < g.intn(3); i++ {
		parts = append(parts, g.userTransition())
	}
	if g.chance(6) {
		parts = append(parts, g.always())
	}
	if g.chance(6) {
		parts = append(parts, Timeout(pick(g, []int64{350, 600}), To(g.target(), g.actions(g.userAction, 1)...)))
	}
	g.b.State(name, parts...)
	for _, c := range children {
		switch g.intn(5) {
		case 0:
			g.b.State(c, Final(), Entry(g.actions(g.entryAction, 1)...))
		case 1:
			g.b.State(c, g.leaf(false)...)
		default:
			g.b.State(c, g.leaf(true)...)
		}
	}
}

// fork draws a fork state whose branches walk start → [mid] → [call] → ok or
// bad, guarded on their own context only.
func (g *drawer) fork(name string) {
	var opts []ForkOpt
	if g.chance(3) {
		opts = append(opts, InputsFrom("items"))
	} else {
		opts = append(opts, Branches(2+g.intn(2)))
	}
	if !g.chance(5) {
		opts = append(opts, Into("merged"))
	}
	switch g.intn(4) {
	case 0:
		opts = append(opts, MergeBy("finish"))
	case 1:
		opts = append(opts, MergeBy("index"))
	}
	opts = append(opts, Join(
		ToIf("branches_failed > 0", g.target(), Say("{branches_failed} of {branches} failed")),
		To(g.target(), Say("joined {branches_done}"))))
	parts := []Part{Initial("start"), Fork(opts...),
		Entry(g.actions(g.entryAction, 1)...), Exit(Say("left {branches_done}/{branches}"))}
	for i := 0; i < 1+g.intn(2); i++ {
		parts = append(parts, g.userTransition())
	}
	g.b.State(name, parts...)

	// Branch states in the order a branch may visit them.
	order := []string{"start"}
	if g.chance(2) {
		order = append(order, "mid")
	}
	if !g.chance(3) {
		order = append(order, "call")
	}
	later := func(i int) []string {
		out := append([]string(nil), order[i+1:]...)
		return append(out, "ok", "bad")
	}
	for i, s := range order {
		path := name + "." + s
		if s == "call" {
			g.b.State(path, Entry(Invoke("x0")),
				On("done:x0", name+"."+pick(g, []string{"ok", "ok", "bad"})),
				On("failed:x0", name+".bad"))
			continue
		}
		var parts []Part
		if g.chance(3) {
			parts = append(parts, Entry(Contract(g.contract())))
		}
		if !g.chance(3) {
			parts = append(parts, AlwaysIf(g.branchGuard(), name+"."+pick(g, later(i))))
		}
		parts = append(parts, Always(name+"."+pick(g, later(i))))
		g.b.State(path, parts...)
	}
	ok := []Part{Final()}
	if !g.chance(4) {
		ok = append(ok, Entry(Contract(g.contract())))
	}
	g.b.State(name+".ok", ok...)
	g.b.State(name+".bad", Final(), Failed(), Entry(Contract(`"bad:" + branch_input`)))
}

func (g *drawer) branchGuard() string {
	return pick(g, []string{"branch_index == 0", "branch_index >= 1", `branch_input == "bad"`,
		`branch_input startsWith "a"`, "len(branch_input) > 1", `branch_result != ""`})
}

func (g *drawer) contract() string {
	return pick(g, []string{`"ok:" + branch_input`, `branch_index == 0 ? "first" : "later"`,
		`branch_input + "/" + branch_result`, `upper(branch_input)`})
}

// userTransition draws a transition on a user intent, a timer, or the
// result of the main machine's external action.
func (g *drawer) userTransition() Part {
	var trigger string
	switch g.intn(10) {
	case 0:
		trigger = "*"
	case 1, 2:
		trigger = "timer:" + pick(g, g.timers)
	case 3:
		trigger = pick(g, []string{"done:x1", "failed:x1"})
	default:
		trigger = pick(g, g.intents)
	}
	guard := ""
	if g.chance(2) {
		guard = g.guard()
	}
	target := ""
	if !g.chance(4) {
		target = g.target()
	}
	return OnIf(trigger, guard, target, g.actions(g.userAction, 3)...)
}

// always draws an eventless transition that increments the counter it is
// guarded on, so that chains of them end.
func (g *drawer) always() Part {
	c := pick(g, []string{"c0", "c1"})
	guard := fmt.Sprintf("%s < %d", c, 1+g.intn(3))
	if g.chance(3) {
		guard += pick(g, []string{` && s != "b"`, " && c0 + c1 < 4", ` || s == "zz"`})
	}
	return AlwaysIf(guard, g.target(), append([]engine.ActionDef{Incr(c)}, g.actions(g.entryAction, 1)...)...)
}

func (g *drawer) guard() string {
	return pick(g, []string{"c0 >= 1", "c0 < 2", "exhausted(c1)", `s == "a"`, "filled(s)", "empty(s)",
		`c1 > 0 && s != "b"`, `event.value == "a"`, `s == "a" || c0 > 1`, `items contains "|"`, `note != ""`})
}

func (g *drawer) target() string { return pick(g, g.targets) }

// targetOrSelf is a target, or "" for a targetless transition.
func (g *drawer) targetOrSelf() string {
	if g.chance(3) {
		return ""
	}
	return g.target()
}

// actions draws up to max actions with draw.
func (g *drawer) actions(draw func() engine.ActionDef, max int) []engine.ActionDef {
	var out []engine.ActionDef
	for i := g.intn(max + 1); i > 0; i-- {
		out = append(out, draw())
	}
	return out
}

// entryAction draws an action that may run in an eventless chain: it never
// resets a counter.
func (g *drawer) entryAction() engine.ActionDef {
	switch g.intn(11) {
	case 0:
		return Incr(pick(g, []string{"c0", "c1"}))
	case 1:
		return Set("s", pick(g, []string{`"k"`, `s + "!"`, "event.value"}))
	case 2, 3:
		return Say(pick(g, []string{"hi {s}", "c={c0}/{c1}", "at {state}", "ok"}))
	case 4, 5:
		if g.chance(3) {
			return StartAfter(pick(g, g.timers), pick(g, []string{"100 + c0 * 50", "300 - c0 * 150"}))
		}
		return Start(pick(g, g.timers))
	case 6:
		return Cancel(pick(g, g.timers))
	case 7:
		return Invoke("x1")
	case 8:
		return Clear(pick(g, []string{"s", "items"}))
	case 9:
		return Escalate("stuck at {state} with {s}")
	}
	return Set("items", pick(g, []string{`"a|b"`, "event.value", `s + "|" + s`}))
}

// userAction draws an action of a transition a user turn, a timer or an
// action's result takes: anything an entry may do, and resets.
func (g *drawer) userAction() engine.ActionDef {
	switch g.intn(8) {
	case 0:
		return Reset(pick(g, []string{"c0", "c1", "all"}))
	case 1:
		return Set(pick(g, []string{"s", "items", "note"}), "event.value")
	case 2:
		if g.chance(3) {
			return ResetContext()
		}
	}
	return g.entryAction()
}
