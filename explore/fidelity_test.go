package explore_test

import (
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/explore"
)

// Machines of the shapes two public bots, translated into suites by hand,
// showed the explorer getting wrong (issue 20).
var _ = Describe("a machine that invokes an action at its start", func() {
	const yaml = `
machine: profile
initial: loading
intents: [hello]
actions:
  load_profile:
    never_fails: true
    outputs: {name: '"Ada"'}
slots: {name: {}}
states:
  loading:
    entry: [{invoke: load_profile}]
    on:
      done:load_profile: ready
  ready:
    waits: true
    on: {hello: done}
  done: {final: true}
`
	It("is explored from where a driver's conversation starts, with no false dead end at depth 0", func() {
		res := search(suiteOf(yaml), explore.Options{Depth: 4})
		Expect(kinds(res)).To(BeEmpty())
		Expect(res.Complete).To(BeTrue())
		// loading with the profile asked for; ready; done.
		Expect(res.Distinct).To(Equal(3))
		Expect(taken(res.Machine(), res.Coverage)).To(ContainElement(ContainSubstring("--done:load_profile--> ready")))
	})

	It("is explored failing too: the failure strands the conversation at its start, written with fail_at_start", func() {
		s := suiteOf(strings.Replace(yaml, "    never_fails: true\n", "", 1))
		res := search(s, explore.Options{Depth: 4})
		f := finding(res, eval.UnhandledFailure)
		Expect(f).NotTo(BeNil(), "got %v", kinds(res))
		Expect(res.PathLen(f.Node)).To(Equal(1))
		Expect(kinds(res)).To(ContainElement(eval.DeadEnd))
		files := emit(res)
		file := files["explore-profile-default-"+eval.UnhandledFailure]
		text, err := os.ReadFile(file)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(text)).To(ContainSubstring("fail_at_start: [load_profile]"))
		Expect(violated(replay(res, file, nil))).To(ContainElement(eval.UnhandledFailure))
	})
})

var _ = Describe("an action without a failure handler", func() {
	const yaml = `
machine: lookup
initial: idle
intents: [order, cancel]
actions:
  check_stock: {}
states:
  idle:
    waits: true
    on: {order: checking}
  checking:
    waits: true
    entry: [{invoke: check_stock}]
    on:
      done:check_stock: ordered
      cancel: idle
  ordered: {final: true}
`
	It("is explored failing too, and the failure that strands the conversation is a finding with its shortest path", func() {
		s := suiteOf(yaml)
		res := search(s, explore.Options{Depth: 4})
		f := finding(res, eval.UnhandledFailure)
		Expect(f).NotTo(BeNil(), "got %v", kinds(res))
		Expect(res.PathLen(f.Node)).To(Equal(1))
		Expect(f.Violation.Msg).To(ContainSubstring("failed:check_stock"))
		// Left in checking with only cancel: stuck behind an escape.
		Expect(kinds(res)).To(ContainElement(explore.Stuck))
		// The finding's scenario replays to the same violation.
		files := emit(res)
		Expect(violated(replay(res, files["explore-lookup-default-"+eval.UnhandledFailure], nil))).To(ContainElement(eval.UnhandledFailure))
	})

	It("is not tried failing when declared never_fails", func() {
		res := search(suiteOf(yaml+"\n"), explore.Options{Depth: 4})
		Expect(kinds(res)).To(ContainElement(eval.UnhandledFailure))
		res = search(suiteOf(`
machine: lookup
initial: idle
intents: [order, cancel]
actions:
  check_stock: {never_fails: true}
states:
  idle:
    waits: true
    on: {order: checking}
  checking:
    waits: true
    entry: [{invoke: check_stock}]
    on:
      done:check_stock: ordered
      cancel: idle
  ordered: {final: true}
`), explore.Options{Depth: 4})
		Expect(kinds(res)).To(BeEmpty())
	})

	It("is a lint warning at the invoke", func() {
		s := suiteOf(yaml)
		Expect(s.Warnings).To(ContainElement(HaveField("Msg", ContainSubstring("invoke check_stock: no transition handles failed:check_stock"))))
	})
})

var _ = Describe("a fork branch stuck while cancel stays possible", func() {
	// A pizza order checks fraud and stock in parallel; the planted bug:
	// the stock branch waits in a state no event leaves, so the join never
	// comes, yet cancel and the session timeout still end the conversation.
	const yaml = `
machine: pizza
initial: idle
intents: [order, cancel]
timers: {session_timeout: 10m}
escapes: [cancel, "timer:session_timeout"]
states:
  idle:
    waits: true
    on: {order: checks}
  checks:
    entry: [{start: session_timeout}]
    fork:
      branches: 2
      join: [{target: placed}]
    initial: start
    on:
      cancel: idle
      timer:session_timeout: idle
    states:
      start:
        always:
          - {guard: branch_index == 0, target: ok}
          - {target: waiting_forever}
      waiting_forever: {}
      ok: {final: true}
  placed: {final: true}
`
	It("is reported as stuck, with its shortest path, and is neither a dead end nor a livelock", func() {
		res := search(suiteOf(yaml), explore.Options{Depth: 8})
		Expect(kinds(res)).To(ConsistOf(explore.Stuck))
		f := finding(res, explore.Stuck)
		Expect(res.PathLen(f.Node)).To(Equal(1))
		Expect(f.Violation.Msg).To(ContainSubstring("only through an escape (cancel, timer:session_timeout)"))
	})

	It("is not stuck once the branch can finish", func() {
		fixed := suiteOf(`
machine: pizza
initial: idle
intents: [order, cancel]
timers: {session_timeout: 10m}
states:
  idle:
    waits: true
    on: {order: checks}
  checks:
    entry: [{start: session_timeout}]
    fork:
      branches: 2
      join: [{target: placed}]
    initial: start
    on:
      cancel: idle
      timer:session_timeout: idle
    states:
      start:
        always: [{target: ok}]
      ok: {final: true}
  placed: {final: true}
`)
		Expect(kinds(search(fixed, explore.Options{Depth: 8}))).To(BeEmpty())
	})
})

var _ = Describe("guards never true", func() {
	It("are told apart: for want of values in the alphabet, or dead code", func() {
		res := search(suiteOf(`
machine: plans
initial: idle
intents: [choose]
slots: {plan: {}, step: {}}
flows: {signup: [plan]}
states:
  idle:
    waits: true
    entry: [{set: {step: '"start"'}}]
    on:
      choose:
        - guard: lower(event.value) == "premium"
          target: premium
        - guard: plan contains "gold"
          target: premium
        - guard: step == "never"
          target: premium
        - guard: 1 > 2
          target: premium
  premium: {final: true}
`), explore.Options{Depth: 3})
		lacks := map[string][]string{}
		m := res.Machine()
		for t := 0; t < m.NumTransitions(); t++ {
			if g := m.Transition(engine.TransID(t)).Guard; g != "" {
				lacks[g] = res.AlphabetLacks(engine.TransID(t))
			}
		}
		Expect(lacks).To(Equal(map[string][]string{
			`lower(event.value) == "premium"`: {"premium"},
			`plan contains "gold"`:            {"gold"},
			// step is the machine's own: its guard is dead code.
			`step == "never"`: nil,
			`1 > 2`:           nil,
		}))
	})
})

var _ = Describe("machine-level transitions and catch-alls in machine.yaml", func() {
	It("cancel from anywhere written once, and a timer caught by timer:*, are taken in every state", func() {
		res := search(suiteOf(`
machine: pizza
initial: idle
intents: [order, size, cancel]
timers: {nudge: 30s}
on:
  cancel: {target: idle, actions: [{say: "Cancelled."}]}
states:
  idle:
    waits: true
    on: {order: ordering}
  ordering:
    initial: size
    entry: [{start: nudge}]
    exit: [{cancel: nudge}]
    states:
      size:
        waits: true
        on:
          size: done
          "timer:*": {actions: [{say: "Still there?"}]}
  done: {final: true}
`), explore.Options{Depth: 4})
		Expect(kinds(res)).To(BeEmpty())
		t := taken(res.Machine(), res.Coverage)
		Expect(t).To(ContainElement(ContainSubstring("--timer:*-->")))
		Expect(t).To(ContainElement(MatchRegexp(`\(any( state)?\) --cancel--> idle|--cancel--> idle`)))
	})
})
