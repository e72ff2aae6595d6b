package explore_test

import (
	"os"
	"runtime"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// planted is a fault planted in testdata/planted (see its machine.yaml):
// the finding that must report it, the length of its shortest path, the
// state at its end, and whether it is a known contradiction.
type planted struct {
	kind  string
	path  int
	state string
	known bool
}

var _ = Describe("a machine with planted faults", func() {
	var (
		s   *spec.Suite
		res *explore.Result
	)
	BeforeEach(func() {
		s = load("testdata/planted")
		res = search(s, explore.Options{Depth: 10})
	})

	It("explores every reachable configuration and says it did", func() {
		Expect(res.Complete).To(BeTrue())
		Expect(res.Stopped).To(BeEmpty())
		// idle, s1, s2, stuck, hopped, l1, l2, l3, ping, pong.
		Expect(res.Distinct).To(Equal(10))
		Expect(res.Depth).To(Equal(5))
		Expect(res.Queue).To(BeZero())
		Expect(kinds(res)).To(ConsistOf("dead_end", "livelock", "never_hopped", "lifecycle", explore.Stuck))
	})

	DescribeTable("finds each fault by its shortest path",
		func(p planted) {
			f := finding(res, p.kind)
			Expect(f).NotTo(BeNil(), "got findings %v, want %s", kinds(res), p.kind)
			Expect(res.PathLen(f.Node)).To(Equal(p.path))
			Expect(res.Machine().StateName(res.ConfigAt(f.Node).State)).To(Equal(p.state))
			Expect(f.Known != "").To(Equal(p.known))
		},
		Entry("a dead end 3 events away", planted{kind: eval.DeadEnd, path: 3, state: "stuck"}),
		Entry("a livelock 4 events away (ping and pong only lead to each other)", planted{kind: "livelock", path: 4, state: "ping"}),
		Entry("a never invariant broken after 2 events", planted{kind: "never_hopped", path: 2, state: "hopped"}),
		Entry("a transition table broken by a step back to the start configuration, known", planted{kind: "lifecycle", path: 3, state: "idle", known: true}),
		Entry("stuck 1 event away (from l1 only cancel ends the task; loop, loop, next lead into the livelock)", planted{kind: explore.Stuck, path: 1, state: "l1"}),
	)

	DescribeTable("writes a scenario for each finding that replays to it",
		func(p planted) {
			file := emit(res)["explore-planted-default-"+p.kind]
			Expect(file).NotTo(BeEmpty())
			r := replay(res, file, nil)
			Expect(r.Error).To(BeEmpty())
			Expect(r.Turns).To(Equal(p.path))
			Expect(r.FinalState).To(Equal(p.state))
			switch p.kind {
			case "livelock":
				// Nothing checks livelocks while running: the replay ends
				// in the cycle, and the cycle never leaves it.
				Expect(violated(r)).NotTo(ContainElement("livelock"))
			default:
				Expect(violated(r)).To(ContainElement(p.kind))
			}
		},
		Entry("the dead end: the replay rests in it and the checker calls it one", planted{kind: eval.DeadEnd, path: 3, state: "stuck"}),
		Entry("the livelock", planted{kind: "livelock", path: 4, state: "ping"}),
		Entry("the never invariant", planted{kind: "never_hopped", path: 2, state: "hopped"}),
		Entry("the transition table", planted{kind: "lifecycle", path: 3, state: "idle"}),
	)

	It("finds nothing past the depth it was given", func() {
		res = search(s, explore.Options{Depth: 2})
		Expect(res.Complete).To(BeFalse())
		Expect(res.Depth).To(Equal(2))
		// idle; s1, l1; s2, hopped, l2.
		Expect(res.Distinct).To(Equal(6))
		Expect(res.Queue).To(Equal(3))
		// Unexpanded configurations may yet get back: no livelock.
		Expect(kinds(res)).To(ConsistOf("never_hopped"))
	})
})

// semantic is a small machine with the finding expected of it.
type semantic struct {
	yaml  string
	depth int
	check func(res *explore.Result)
}

var _ = DescribeTable("steps the machine as a driver would",
	func(c semantic) {
		res := search(suiteOf(c.yaml), explore.Options{Depth: c.depth})
		c.check(res)
	},
	Entry("a timer no transition takes still falls due, so later timers fire", semantic{yaml: `
machine: timers
initial: idle
intents: [go]
timers: {t1: 100ms, t2: 200ms}
states:
  idle:
    on: {go: armed}
  armed:
    entry: [{start: t1}, {start: t2}]
    on:
      timer:t2: finished
  finished: {final: true}
`, depth: 6, check: func(res *explore.Result) {
		Expect(res.Complete).To(BeTrue())
		// idle; armed with two timers; armed with t2; finished.
		Expect(res.Distinct).To(Equal(4))
		Expect(kinds(res)).To(BeEmpty())
		Expect(taken(res.Machine(), res.Coverage)).To(ContainElement(ContainSubstring("--timer:t2--> finished")))
	}}),
	Entry("an action's outputs land in their slots even when no transition takes its result", semantic{yaml: `
machine: outputs
initial: idle
intents: [go, check]
slots: {s: {}}
actions:
  lookup:
    never_fails: true
    outputs: {s: '"found"'}
states:
  idle:
    on: {go: calling}
  calling:
    entry: [{invoke: lookup}]
    on:
      check: {guard: filled(s), target: finished}
  finished: {final: true}
`, depth: 6, check: func(res *explore.Result) {
		Expect(res.Complete).To(BeTrue())
		Expect(kinds(res)).To(BeEmpty())
		Expect(taken(res.Machine(), res.Coverage)).To(ContainElement(ContainSubstring("--check--> finished")))
	}}),
	Entry("when every runnable fork branch is stuck the user may still act", semantic{yaml: `
machine: stuck_branch
initial: idle
intents: [go, cancel]
states:
  idle:
    on: {go: work}
  work:
    fork:
      branches: 2
      join: [{target: idle}]
    initial: start
    on: {cancel: idle}
    states:
      start:
        always: [{guard: branch_index == 0, target: ok}]
      ok: {final: true}
`, depth: 8, check: func(res *explore.Result) {
		Expect(res.Complete).To(BeTrue())
		Expect(kinds(res)).NotTo(ContainElement(eval.DeadEnd))
		Expect(kinds(res)).NotTo(ContainElement("livelock"))
		Expect(taken(res.Machine(), res.Coverage)).To(ContainElement(ContainSubstring("--cancel--> idle")))
	}}),
	Entry("a within bound armed around a cycle counts from the configuration, so the search completes", semantic{yaml: `
machine: cycle
initial: idle
intents: [go, tick, cancel]
invariants:
  - name: back_soon
    within: {turns: 3, after: 'state == "busy"', then: 'state == "idle"'}
states:
  idle:
    on: {go: busy}
  busy:
    on: {tick: busy2, cancel: idle}
  busy2:
    on: {tick: busy}
`, depth: 40, check: func(res *explore.Result) {
		Expect(res.Complete).To(BeTrue())
		Expect(res.Distinct).To(BeNumerically("<", 20))
		f := finding(res, "back_soon")
		Expect(f).NotTo(BeNil())
		// go arms it at turn 1 (due by 4); tick, tick, tick; the fifth
		// event is past the bound.
		Expect(res.PathLen(f.Node)).To(Equal(5))
	}}),
	Entry("an invariant broken at the start is found with a path of no events", semantic{yaml: `
machine: start
initial: idle
intents: [go]
invariants:
  - {name: not_idle, never: 'state == "idle"'}
states:
  idle:
    on: {go: finished}
  finished: {final: true}
`, depth: 3, check: func(res *explore.Result) {
		f := finding(res, "not_idle")
		Expect(f).NotTo(BeNil())
		Expect(res.PathLen(f.Node)).To(Equal(0))
		Expect(f.Violation.Before).To(Equal("state="))
	}}),
	Entry("... and its scenario replays to it", semantic{yaml: `
machine: start
initial: idle
intents: [go]
slots: {s: {}}
invariants:
  - {name: not_idle, never: 'state == "idle"'}
states:
  idle:
    on: {go: finished}
  finished: {final: true}
`, depth: 3, check: func(res *explore.Result) {
		r := replay(res, emit(res)["explore-start-default-not_idle"], nil)
		Expect(r.Turns).To(Equal(1)) // wait: 0ms
		Expect(violated(r)).To(ContainElement("not_idle"))
	}}),
	Entry("a runtime error ends its path and is not a livelock", semantic{yaml: `
machine: crash
initial: idle
intents: [go, back]
states:
  idle:
    on:
      go: {target: broken, actions: [{fill: event.value}]}
  broken:
    on: {back: idle}
`, depth: 5, check: func(res *explore.Result) {
		Expect(kinds(res)).To(ConsistOf(eval.RuntimeError))
		Expect(res.PathLen(finding(res, eval.RuntimeError).Node)).To(Equal(1))
	}}),
	Entry("every dead end counts as one: the second is not a livelock", semantic{yaml: `
machine: two_ends
initial: idle
intents: [left, right]
states:
  idle:
    on: {left: a, right: b}
  a:
    on: {left: end_a}
  b:
    on: {right: end_b}
  end_a: {waits: true}
  end_b: {waits: true}
`, depth: 5, check: func(res *explore.Result) {
		Expect(kinds(res)).To(ConsistOf(eval.DeadEnd))
		Expect(res.PathLen(finding(res, eval.DeadEnd).Node)).To(Equal(2))
	}}),
)

// covered names a search whose cover scenarios are replayed.
type covered struct {
	dir     string
	yaml    string // a machine of its own instead of dir
	variant int
	depth   int
	// unsaid are transitions whose shortest path lets an action fail on
	// some of its calls in one turn and not on others. A scenario's fail:
	// fails an action throughout its turn, so it cannot say that path and
	// its replay goes elsewhere.
	unsaid []string
}

var _ = DescribeTable("the cover scenarios, replayed, take every transition the search took",
	func(c covered) {
		var s *spec.Suite
		if c.yaml != "" {
			s = suiteOf(c.yaml)
		} else {
			s = load(c.dir)
		}
		res, err := explore.Explore(s, s.Variants[c.variant], explore.Options{Depth: c.depth})
		Expect(err).NotTo(HaveOccurred())
		cov := eval.NewCoverage(res.Machine())
		n := 0
		for name, file := range emit(res) {
			if !isCover(name) {
				continue
			}
			n++
			r := replay(res, file, cov)
			Expect(r.Error).To(BeEmpty(), "%s", name)
		}
		Expect(n).To(Equal(len(res.Cover())))
		want := taken(res.Machine(), res.Coverage)
		Expect(want).NotTo(BeEmpty())
		Expect(want).To(ContainElements(c.unsaid))
		want = slices.DeleteFunc(want, func(t string) bool { return slices.Contains(c.unsaid, t) })
		Expect(taken(res.Machine(), cov)).To(ContainElements(want))
	},
	Entry("planted faults (transitions back to idle go to a configuration seen before)", covered{dir: "testdata/planted", depth: 10}),
	Entry("a fork whose branch's action may fail", covered{yaml: forkYAML, depth: 12}),
	Entry("soni", covered{dir: seedSuite("soni"), depth: 3}),
	Entry("bench-soni", covered{dir: seedSuite("bench-soni"), depth: 4}),
	Entry("hfsm", covered{dir: seedSuite("hfsm"), depth: 5,
		unsaid: []string{"#31 semantic_synthesis --failed:synthesis_llm--> answer"}}),
	Entry("hfsm, simple-concat", covered{dir: seedSuite("hfsm"), variant: 1, depth: 5}),
	Entry("thea", covered{dir: seedSuite("thea"), depth: 2}),
	Entry("formfill", covered{dir: seedSuite("formfill"), depth: 2}),
)

func isCover(name string) bool {
	for i := len(name) - 1; i > 0; i-- {
		if name[i] == '-' {
			return i >= 6 && name[i-6:i] == "-cover"
		}
	}
	return false
}

// forkYAML runs two branches that each call a tool which may fail; the
// join tells a failed branch from none.
const forkYAML = `
machine: forked
initial: idle
intents: [go, cancel]
actions:
  search: {}
states:
  idle:
    on: {go: research}
  research:
    fork:
      branches: 2
      into: findings
      join:
        - {guard: branches_failed > 0, target: partial}
        - target: complete
    initial: start
    on: {cancel: idle}
    states:
      start:
        always: [{target: call}]
      call:
        entry: [{invoke: search}]
        on:
          done:search: {target: ok, actions: [{contract: '"ok " + branch_input'}]}
          failed:search: bad
      ok: {final: true}
      bad: {final: true, failed: true}
  partial:
    on: {cancel: idle}
  complete:
    on: {cancel: idle}
slots:
  findings: {}
`

var _ = Describe("the state cap", func() {
	It("stops the search with a reason, incomplete, and within its memory (formfill has no livelock to find)", func() {
		// formfill's alphabet is large: to depth 50 it has millions of
		// configurations.
		s := load(seedSuite("formfill"))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: 50, MaxStates: 5000})
		Expect(err).NotTo(HaveOccurred())
		runtime.GC()
		runtime.ReadMemStats(&after)
		Expect(res.Stopped).To(ContainSubstring("5000 distinct configurations"))
		Expect(res.Complete).To(BeFalse())
		Expect(res.Distinct).To(Equal(5000))
		Expect(res.Queue).To(BeNumerically(">", 0))
		Expect(kinds(res)).NotTo(ContainElement("livelock"))
		// About 10 MB allocated in all (more under -race), and what the
		// result keeps.
		Expect(after.TotalAlloc-before.TotalAlloc).To(BeNumerically("<", 256<<20), "bytes allocated")
		Expect(int64(after.HeapAlloc)-int64(before.HeapAlloc)).To(BeNumerically("<", 4<<20), "bytes kept")
		runtime.KeepAlive(res)
	})

	It("keeps at least the start", func() {
		res := search(load("testdata/planted"), explore.Options{Depth: 10, MaxStates: 1})
		Expect(res.Distinct).To(Equal(1))
		Expect(res.Stopped).NotTo(BeEmpty())
	})
})

var _ = Describe("Options.Stop", func() {
	It("ends the search soon after it says so, incomplete, with what was found so far", func() {
		s := load(seedSuite("formfill"))
		asked := 0
		stop := func() bool { asked++; return asked > 3 }
		res, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: 50, Stop: stop})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Stopped).To(Equal(explore.Interrupted))
		Expect(res.Complete).To(BeFalse())
		Expect(asked).To(Equal(4))
		// Asked every few hundred configurations expanded: the search
		// stops long before the state cap.
		Expect(res.Distinct).To(BeNumerically(">", 1))
		Expect(res.Distinct).To(BeNumerically("<", 100_000))
		Expect(res.Queue).To(BeNumerically(">", 0))
		Expect(kinds(res)).NotTo(ContainElement("livelock"))
	})

	It("is not asked when it is not set, and then changes nothing", func() {
		s := load("testdata/planted")
		a := search(s, explore.Options{Depth: 6})
		b := search(s, explore.Options{Depth: 6, Stop: func() bool { return false }})
		Expect(b.Distinct).To(Equal(a.Distinct))
		Expect(kinds(b)).To(Equal(kinds(a)))
		Expect(b.Stopped).To(BeEmpty())
	})
})

var _ = Describe("determinism", func() {
	DescribeTable("two searches find the same and write the same files",
		func(dir string, depth int) {
			s := load(dir)
			a, b := search(s, explore.Options{Depth: depth}), search(s, explore.Options{Depth: depth})
			Expect(b.Generated).To(Equal(a.Generated))
			Expect(b.Distinct).To(Equal(a.Distinct))
			Expect(b.Findings).To(Equal(a.Findings))
			Expect(b.Coverage).To(Equal(a.Coverage))
			Expect(b.Cover()).To(Equal(a.Cover()))
			fa, fb := emit(a), emit(b)
			Expect(fb).To(HaveLen(len(fa)))
			for name, file := range fa {
				Expect(fb).To(HaveKey(name))
				Expect(os.ReadFile(fb[name])).To(Equal(mustRead(file)), "%s", name)
			}
		},
		Entry("soni", seedSuite("soni"), 3),
		Entry("hfsm", seedSuite("hfsm"), 5),
		Entry("planted faults", "testdata/planted", 10),
	)
})

func mustRead(file string) []byte {
	GinkgoHelper()
	b, err := os.ReadFile(file)
	Expect(err).NotTo(HaveOccurred())
	return b
}

var _ sim.Observer = (*eval.Coverage)(nil)

var _ = Describe("a generated machine of 10,000 configurations", func() {
	It("is explored to the end: every pair of two counters from 0 to 99", func() {
		res := search(suiteOf(countersYAML(100)), explore.Options{Depth: 1000})
		Expect(res.Complete).To(BeTrue())
		Expect(res.Stopped).To(BeEmpty())
		Expect(res.Distinct).To(Equal(100 * 100))
		// The farthest pair, (99, 99), is 99 + 99 events away.
		Expect(res.Depth).To(Equal(198))
		Expect(kinds(res)).To(BeEmpty())
	})

	DescribeTable("the xstate graph peer's machines have as many configurations as it finds",
		func(yaml string, want int) {
			res := search(suiteOf(yaml), explore.Options{Depth: 1000})
			Expect(res.Complete).To(BeTrue())
			Expect(res.Distinct).To(Equal(want))
			Expect(kinds(res)).To(BeEmpty())
		},
		Entry("chain:50", chainYAML(50), 50),
		Entry("chain:200", chainYAML(200), 200),
		Entry("grid:5x10", gridYAML(5, 10), 46),
		Entry("grid:4x50", gridYAML(4, 50), 185),
	)
})
