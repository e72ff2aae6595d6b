package engine_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// fanoutMachine forks one branch per "|"-separated part of the go event's
// value. A branch takes two eventless steps (start → mid → done) and leaves
// "done INPUT" as its contract; an input "bad" ends its branch in a failed
// final state after one step instead.
//
//	idle
//	work         (fork over items, into merged)
//	  start
//	  mid
//	  done       (final)
//	  broken     (final, failed)
//	after, failure
func fanoutMachine(merge string) *et.Builder {
	return et.New("fanout", "idle").
		Intents("go", "cancel").
		Slot("items", engine.TypeText).Slot("merged", engine.TypeText).
		State("idle", et.Waits(), et.On("go", "work", et.Set("items", "event.value"))).
		State("work", et.Initial("start"),
			et.Entry(et.Say("fork over {items}")),
			et.Exit(et.Say("leave fork: {branches_done} done, {branches_failed} failed")),
			et.Fork(et.InputsFrom("items"), et.Into("merged"), et.MergeBy(merge),
				et.Join(
					et.ToIf("branches_failed > 0", "failure", et.Say("{branches_failed} of {branches} failed")),
					et.To("after", et.Say("all {branches} done")))),
			et.On("cancel", "idle", et.Say("cancelled"))).
		State("work.start", et.Entry(et.Say("start {branch_input}")),
			et.AlwaysIf(`branch_input == "bad"`, "work.broken"),
			et.Always("work.mid")).
		State("work.mid", et.Always("work.done")).
		State("work.done", et.Final(), et.Entry(et.Contract(`"done " + branch_input`))).
		State("work.broken", et.Final(), et.Failed(), et.Entry(et.Contract(`"broken " + branch_input`))).
		State("after", et.Waits(), et.On("go", "work", et.Set("items", "event.value"))).
		State("failure", et.Waits())
}

// interleavings returns every order in which branches 0..n-1 can take k
// steps each: the schedules a caller may choose.
func interleavings(n, k int) [][]int {
	var (
		out  [][]int
		seq  []int
		left = make([]int, n)
		rec  func()
	)
	for i := range left {
		left[i] = k
	}
	rec = func() {
		if len(seq) == n*k {
			out = append(out, append([]int(nil), seq...))
			return
		}
		for i := range left {
			if left[i] > 0 {
				left[i]--
				seq = append(seq, i)
				rec()
				seq = seq[:len(seq)-1]
				left[i]++
			}
		}
	}
	rec()
	return out
}

// branchEvent lets fork branch i take one step at the current time.
func branchEvent(c *engine.Config, i int) engine.Event {
	return engine.Event{Kind: engine.BranchEvent, Branch: uint8(i + 1), At: c.Now}
}

var _ = Describe("fork and join", func() {
	var (
		m   *engine.Machine
		cfg engine.Config
		res engine.Result
	)

	BeforeEach(func() {
		cfg, res = engine.Config{}, engine.Result{}
	})

	// build compiles b and starts it.
	build := func(b *et.Builder) {
		GinkgoHelper()
		var err error
		m, err = b.Build()
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
	}

	// step feeds one scripted event and fails the spec on a runtime error.
	step := func(s string) {
		GinkgoHelper()
		ev, err := et.ParseEvent(m, &cfg, s)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
	}

	// schedule lets the branches take steps in the given order, checking
	// after each step but the last that no join happened yet.
	schedule := func(order []int) {
		GinkgoHelper()
		fork, n := cfg.State, cfg.NBranch
		for k, i := range order {
			ev := branchEvent(&cfg, i)
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed(), "schedule %v, step %d", order, k)
			Expect(res.Handled).To(BeTrue())
			if k < len(order)-1 {
				Expect(res.Joins).To(BeEmpty(), "schedule %v: joined after step %d of %d", order, k, len(order))
				Expect(cfg.State).To(Equal(fork))
				Expect(cfg.NBranch).To(Equal(n))
			}
		}
	}

	It("runs the exit actions of the branches' states when the fork is left, deepest first, then the fork's", func() {
		build(et.New("exits", "idle").
			Intents("go", "cancel").
			Slot("items", engine.TypeText).
			State("idle", et.Waits(), et.On("go", "work", et.Set("items", "event.value"))).
			State("work", et.Initial("task"),
				et.Exit(et.Say("exit work")),
				et.Fork(et.InputsFrom("items"), et.Join(et.To("idle"))),
				et.On("cancel", "idle", et.Say("cancelled"))).
			State("work.task", et.Initial("a"), et.Exit(et.Say("exit task {branch_input}"))).
			State("work.task.a", et.Exit(et.Say("exit a {branch_input}")), et.Always("work.task.b")).
			State("work.task.b", et.Exit(et.Say("exit b {branch_input}")), et.Always("work.done")).
			State("work.done", et.Final()))
		step("go=x|y")
		schedule([]int{0})
		step("cancel")
		Expect(m.StateName(cfg.State)).To(Equal("idle"))
		Expect(cfg.NBranch).To(BeZero())
		Expect(et.Says(&res)).To(Equal([]string{"exit b x", "exit a y", "exit task x", "exit task y", "exit work", "cancelled"}))
	})

	Describe("over the parts of a text slot", func() {
		BeforeEach(func() { build(fanoutMachine("")) })

		It("starts one branch per part, with that part as its input, each entering in branch context", func() {
			step("go=a|b|c")
			Expect(m.StateName(cfg.State)).To(Equal("work"))
			Expect(cfg.NBranch).To(Equal(uint8(3)))
			for i, in := range []string{"a", "b", "c"} {
				b := cfg.Branches[i]
				Expect(b.Input).To(Equal(in))
				Expect(b.Status).To(Equal(engine.BranchRunning))
				Expect(m.StateName(b.State)).To(Equal("work.start"))
			}
			Expect(cfg.Runnable()).To(Equal(uint32(0b111)))
			Expect(et.Says(&res)).To(Equal([]string{"fork over a|b|c", "start a", "start b", "start c"}))
			Expect(res.Joins).To(BeEmpty())
		})

		It("joins at once when the slot has no parts", func() {
			step("go=")
			Expect(m.StateName(cfg.State)).To(Equal("after"))
			Expect(res.Joins).To(HaveLen(1))
			j := res.Joins[0]
			Expect(j).To(Equal(engine.Join{Fork: mustState(m, "work"), Trans: j.Trans}), "no branches, none finished, failed or delivered")
			Expect(m.IsJoin(j.Trans)).To(BeTrue())
			Expect(slotValue(m, &cfg, "merged").IsEmpty()).To(BeTrue())
			Expect(et.Says(&res)).To(ContainElement("all 0 done"))
		})

		It("waits for every branch, whatever order they finish in, and delivers each contract once", func() {
			step("go=a|b|c")
			schedule([]int{2, 2, 0, 1, 0, 1})
			Expect(res.Joins).To(HaveLen(1))
			j := res.Joins[0]
			Expect(j.Branches).To(Equal(3))
			Expect(j.Finished).To(Equal(3))
			Expect(j.Failed).To(Equal(0))
			Expect(j.Delivered).To(Equal(j.Branches))
			merged := slotValue(m, &cfg, "merged").Str
			for _, c := range []string{"done a", "done b", "done c"} {
				Expect(strings.Count(merged, c)).To(Equal(1), "got merged %q, want %q once", merged, c)
			}
			Expect(m.StateName(cfg.State)).To(Equal("after"))
			Expect(cfg.NBranch).To(BeZero())
			Expect(cfg.Finished).To(BeZero())
			Expect(cfg.Branches).To(Equal([engine.MaxBranches]engine.Branch{}))
		})

		It("lets join actions and the fork's exit actions read the branches' outcome", func() {
			step("go=a|b|c")
			schedule([]int{0, 0, 1, 1, 2, 2})
			Expect(et.Says(&res)).To(Equal([]string{"leave fork: 3 done, 0 failed", "all 3 done"}))
		})

		It("merges in branch order for every schedule of 3 branches of 2 steps, into the same config", func() {
			orders := interleavings(3, 2)
			Expect(orders).To(HaveLen(90), "6!/(2!·2!·2!) interleavings")
			var first engine.Config
			for n, order := range orders {
				Expect(m.Start(&cfg, 0, &res)).To(Succeed())
				step("go=a|b|c")
				schedule(order)
				Expect(res.Joins).To(HaveLen(1), "schedule %v", order)
				Expect(res.Joins[0].Delivered).To(Equal(3))
				Expect(slotValue(m, &cfg, "merged").Str).To(Equal("done a\ndone b\ndone c"), "schedule %v", order)
				if n == 0 {
					first = cfg
					continue
				}
				Expect(cfg).To(Equal(first), "schedule %v ends in another config than %v", order, orders[0])
			}
		})

		It("reports more parts than a Config holds branches as a runtime error", func() {
			ev, err := et.ParseEvent(m, &cfg, "go=1|2|3|4|5|6|7|8|9")
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Step(&cfg, &ev, &res)).To(MatchError(ContainSubstring("fork work: 9 branches, more than 8")))
		})

		It("refuses to step a finished branch", func() {
			step("go=a|b|c")
			schedule([]int{1, 1})
			Expect(cfg.Branches[1].Status).To(Equal(engine.BranchDone))
			Expect(cfg.Runnable()).To(Equal(uint32(0b101)))
			ev := branchEvent(&cfg, 1)
			Expect(m.Step(&cfg, &ev, &res)).To(MatchError(ContainSubstring("fork branch 1 cannot step")))
		})

		It("refuses a branch step when no fork is running", func() {
			ev := branchEvent(&cfg, 0)
			Expect(m.Step(&cfg, &ev, &res)).To(MatchError(ContainSubstring("no fork branch 0 is running")))
		})

		It("abandons the branches when a user event leaves the fork state", func() {
			step("go=a|b|c")
			schedule([]int{0, 1, 0})
			step("cancel")
			Expect(m.StateName(cfg.State)).To(Equal("idle"))
			Expect(cfg.NBranch).To(BeZero())
			Expect(cfg.Finished).To(BeZero())
			Expect(cfg.Branches).To(Equal([engine.MaxBranches]engine.Branch{}))
			Expect(cfg.Runnable()).To(BeZero())
			Expect(res.Joins).To(BeEmpty())
			Expect(et.Says(&res)).To(Equal([]string{"leave fork: 1 done, 0 failed", "cancelled"}))
			Expect(slotValue(m, &cfg, "merged").IsEmpty()).To(BeTrue())
		})

		It("starts fresh branches when the fork is entered again", func() {
			step("go=a|b")
			schedule([]int{0, 0, 1, 1})
			Expect(m.StateName(cfg.State)).To(Equal("after"))
			step("go=x|y|z")
			Expect(cfg.NBranch).To(Equal(uint8(3)))
			Expect(cfg.Finished).To(BeZero())
			Expect(cfg.Branches[0].Input).To(Equal("x"))
			Expect(cfg.Branches[0].Result).To(BeEmpty())
			schedule([]int{0, 1, 2, 0, 1, 2})
			Expect(slotValue(m, &cfg, "merged").Str).To(Equal("done x\ndone y\ndone z"))
		})

		It("counts a failed ending in branches_failed, and the join guard routes to failure", func() {
			step("go=a|bad|c")
			ev := branchEvent(&cfg, 1)
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			Expect(cfg.Branches[1].Status).To(Equal(engine.BranchFailed))
			Expect(cfg.Finished).To(Equal(uint8(1)))
			for _, i := range []int{0, 2, 0, 2} {
				ev := branchEvent(&cfg, i)
				Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			}
			Expect(m.StateName(cfg.State)).To(Equal("failure"))
			Expect(res.Joins).To(HaveLen(1))
			Expect(res.Joins[0].Failed).To(Equal(1))
			Expect(res.Joins[0].Delivered).To(Equal(3))
			Expect(slotValue(m, &cfg, "merged").Str).To(Equal("done a\nbroken bad\ndone c"))
			Expect(et.Says(&res)).To(ContainElement("1 of 3 failed"))
			Expect(res.Guards).To(ContainElement(engine.GuardOutcome{Trans: res.Joins[0].Trans, Pass: true}))
		})

		It("gives the same trace for the same schedule", func() {
			script := []string{"go=a|bad|c", "branch:2", "branch:1", "branch:0", "branch:2", "cancel",
				"go=p|q", "branch:1", "branch:0", "branch:1", "branch:0"}
			first, err := et.Run(m, script...)
			Expect(err).NotTo(HaveOccurred())
			for range 3 {
				again, err := et.Run(m, script...)
				Expect(err).NotTo(HaveOccurred())
				Expect(again).To(Equal(first))
			}
			Expect(first).NotTo(ContainSubstring("error:"))
		})

		It("renders branch steps and joins in the trace", func() {
			got, err := et.Run(m, "go=a|bad", "branch:1", "branch:0", "branch:0")
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(`* start @0
  -> idle
> go=a|bad @0
  idle -> work (go)
    set items
    say fork over {items}
    say start {branch_input}
    say start {branch_input}
  say "fork over a|bad"
  say "start a"
  say "start bad"
> branch:1 @0
  b1: work.start -> work.broken (always) [branch_input == "bad"]=true
    contract
> branch:0 @0
  b0: work.start -> work.mid (always) [branch_input == "bad"]=false
> branch:0 @0
  b0: work.mid -> work.done (always)
    contract
  work -> failure (join) [branches_failed > 0]=true
    say leave fork: {branches_done} done, {branches_failed} failed
    say {branches_failed} of {branches} failed
  join work: 2 branches, 2 finished, 1 failed, 2 delivered
  say "leave fork: 1 done, 1 failed"
  say "1 of 2 failed"
`))
		})
	})

	Describe("with merge by finish order", func() {
		BeforeEach(func() { build(fanoutMachine("finish")) })

		It("merges the contracts in the order the branches finished, for every schedule", func() {
			for _, order := range interleavings(3, 2) {
				Expect(m.Start(&cfg, 0, &res)).To(Succeed())
				step("go=a|b|c")
				var want []string
				steps := map[int]int{}
				for _, i := range order {
					if steps[i]++; steps[i] == 2 {
						want = append(want, "done "+[]string{"a", "b", "c"}[i])
					}
				}
				schedule(order)
				Expect(slotValue(m, &cfg, "merged").Str).To(Equal(strings.Join(want, "\n")), "schedule %v", order)
				Expect(res.Joins[0].Delivered).To(Equal(3))
			}
		})

		It("orders branches that finish on entry in index order", func() {
			Expect(m.Start(&cfg, 0, &res)).To(Succeed())
			step("go=bad|a|bad")
			for _, i := range []int{2, 0, 1, 1} {
				ev := branchEvent(&cfg, i)
				Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			}
			Expect(slotValue(m, &cfg, "merged").Str).To(Equal("broken bad\nbroken bad\ndone a"))
			Expect(res.Joins[0].Failed).To(Equal(2))
		})
	})

	Describe("with a fixed branch count", func() {
		BeforeEach(func() {
			build(et.New("fixed", "work").
				Slot("merged", engine.TypeText).
				State("work", et.Initial("run"),
					et.Fork(et.Branches(3), et.Into("merged"), et.Join(et.To("end")))).
				State("work.run", et.Always("work.ok")).
				State("work.ok", et.Final(),
					et.Entry(et.Contract(`"#" + (branch_index == 0 ? "zero" : branch_index == 1 ? "one" : "two") + "[" + branch_input + "]"`))).
				State("end", et.Final()))
		})

		It("starts that many branches at Start, with empty inputs and indexes 0 to n-1", func() {
			Expect(m.StateName(cfg.State)).To(Equal("work"))
			Expect(cfg.NBranch).To(Equal(uint8(3)))
			schedule([]int{2, 1, 0})
			Expect(slotValue(m, &cfg, "merged").Str).To(Equal("#zero[]\n#one[]\n#two[]"))
			Expect(cfg.Final).To(BeTrue())
		})
	})

	Describe("with branches that invoke external actions", func() {
		BeforeEach(func() {
			build(et.New("lookups", "idle").
				Intents("go").
				Slot("items", engine.TypeText).Slot("merged", engine.TypeText).
				External("lookup", "").
				State("idle", et.Waits(), et.On("go", "work", et.Set("items", "event.value"))).
				State("work", et.Initial("ask"),
					et.Fork(et.InputsFrom("items"), et.Into("merged"),
						et.Join(et.ToIf("branches_failed > 0", "partial"), et.To("after")))).
				State("work.ask", et.Entry(et.Invoke("lookup")),
					et.On("done:lookup", "work.found"),
					et.On("failed:lookup", "work.lost")).
				State("work.found", et.Final(), et.Entry(et.Contract(`"found " + branch_input`))).
				State("work.lost", et.Final(), et.Failed(), et.Entry(et.Contract(`"lost " + branch_input`))).
				State("after", et.Waits()).
				State("partial", et.Waits()))
			step("go=x|y")
		})

		It("reports each invoke with the branch its result goes back to", func() {
			var got []uint8
			for _, e := range res.Effects {
				if e.Kind == engine.EffInvoke {
					got = append(got, e.Branch)
				}
			}
			Expect(got).To(Equal([]uint8{1, 2}))
			Expect(cfg.Branches[0].Pending).To(Equal(mustExt(m, "lookup")))
		})

		It("keeps a waiting branch out of Runnable and refuses to step it", func() {
			Expect(cfg.Runnable()).To(BeZero())
			ev := branchEvent(&cfg, 0)
			Expect(m.Step(&cfg, &ev, &res)).To(MatchError(ContainSubstring("waiting for an action")))
		})

		It("advances a branch on its own result, and joins when the last result arrives", func() {
			step("done:lookup/0@5")
			Expect(res.Handled).To(BeTrue())
			Expect(res.Steps[0].Branch).To(Equal(uint8(1)))
			Expect(cfg.Branches[0].Status).To(Equal(engine.BranchDone))
			Expect(cfg.Branches[1].Status).To(Equal(engine.BranchRunning))
			Expect(cfg.Runnable()).To(BeZero())
			Expect(res.Joins).To(BeEmpty())

			step("failed:lookup/1@9")
			Expect(res.Joins).To(HaveLen(1))
			Expect(res.Joins[0].Failed).To(Equal(1))
			Expect(m.StateName(cfg.State)).To(Equal("partial"))
			Expect(slotValue(m, &cfg, "merged").Str).To(Equal("found x\nlost y"))
			Expect(cfg.Now).To(Equal(int64(9)))
		})

		It("refuses a result routed to a branch that did not invoke the action", func() {
			step("done:lookup/0")
			ev, err := et.ParseEvent(m, &cfg, "done:lookup/0")
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Step(&cfg, &ev, &res)).To(MatchError(ContainSubstring("fork branch 0 did not invoke lookup")))
		})

		It("does not hand a result without a branch to the branches", func() {
			step("done:lookup")
			Expect(res.Handled).To(BeFalse())
			Expect(cfg.Branches[0].Pending).To(Equal(mustExt(m, "lookup")))
			Expect(cfg.Branches[1].Pending).To(Equal(mustExt(m, "lookup")))
		})
	})

	Describe("with a branch that invokes an action as it ends", func() {
		BeforeEach(func() {
			build(et.New("notify", "work").
				External("notify", "").
				State("work", et.Initial("group"), et.Fork(et.Branches(2), et.Join(et.To("end")))).
				State("work.group", et.Initial("run"), et.On("done:notify", "work.late")).
				State("work.group.run", et.Always("work.group.ok")).
				State("work.group.ok", et.Final(), et.Entry(et.Invoke("notify"))).
				State("work.late", et.Final(), et.Entry(et.Contract(`"late"`))).
				State("end", et.Waits()))
		})

		It("starts each branch at the leaf below the fork's initial child, though declared after the fork", func() {
			for i := 0; i < 2; i++ {
				Expect(m.StateName(cfg.Branches[i].State)).To(Equal("work.group.run"))
			}
		})

		It("counts it finished at once, and its result moves it no further", func() {
			schedule([]int{0})
			Expect(cfg.Branches[0].Status).To(Equal(engine.BranchDone))
			Expect(cfg.Runnable()).To(Equal(uint32(0b10)))
			step("done:notify/0")
			Expect(res.Handled).To(BeFalse())
			Expect(m.StateName(cfg.Branches[0].State)).To(Equal("work.group.ok"))
			Expect(cfg.Branches[0].Pending).To(Equal(engine.ExtID(engine.NoID)))
			Expect(cfg.Branches[0].Result).To(BeEmpty())
		})

		It("joins without waiting for the result, and ignores the result once the fork is gone", func() {
			schedule([]int{0, 1})
			Expect(res.Joins).To(HaveLen(1))
			Expect(m.StateName(cfg.State)).To(Equal("end"))
			var routed []uint8
			for _, e := range res.Effects {
				if e.Kind == engine.EffInvoke {
					routed = append(routed, e.Branch)
				}
			}
			Expect(routed).To(Equal([]uint8{2}))
			before := cfg
			step("done:notify/1@7")
			Expect(res.Handled).To(BeFalse())
			before.Now = 7
			Expect(cfg).To(Equal(before))
		})
	})

	It("reports a fork whose join loops back into it with branches that end at once, instead of recursing", func() {
		m, err := et.New("spin", "work").MaxChain(10).
			State("work", et.Initial("end"), et.Fork(et.Branches(1), et.Join(et.To("work")))).
			State("work.end", et.Final()).
			Build()
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Start(&cfg, 0, &res)).To(MatchError(ContainSubstring("did not settle after 10 joins")))
	})
})

// mustState resolves a state name, failing the spec when it is unknown.
func mustState(m *engine.Machine, name string) engine.StateID {
	id, ok := m.StateID(name)
	ExpectWithOffset(1, ok).To(BeTrue(), "got no state %q, want one", name)
	return id
}

// mustExt resolves an external action's name.
func mustExt(m *engine.Machine, name string) engine.ExtID {
	id, ok := m.ExtID(name)
	ExpectWithOffset(1, ok).To(BeTrue(), "got no action %q, want one", name)
	return id
}

var _ = Describe("Build of forks", func() {
	var def *engine.Definition

	BeforeEach(func() {
		def = et.New("forks", "idle").
			Intents("go").
			Slot("items", engine.TypeText).Slot("merged", engine.TypeText).Slot("count", engine.TypeNumber).
			External("lookup", "").
			State("idle", et.Waits(), et.On("go", "work")).
			State("work", et.Initial("a"),
				et.Fork(et.Branches(2), et.Into("merged"), et.Join(et.To("idle")))).
			State("work.a", et.Always("work.b")).
			State("work.b", et.Final()).
			Def()
		def.Pos = at(1, 1)
		for i := range def.States {
			def.States[i].Pos = at(10*(i+1), 3)
		}
		def.States[0].On[0].TargetPos = at(10, 30)
		def.States[1].Fork.Pos = at(21, 5)
		def.States[2].Always[0].TargetPos = at(31, 20)
	})

	It("accepts the base definition without any diagnostic", func() {
		m, diags := engine.Build(def)
		Expect(diags).To(BeEmpty())
		Expect(m.IsFork(mustState(m, "work"))).To(BeTrue())
	})

	fork := func(f func(*engine.ForkDef)) func(*engine.Definition) {
		return func(d *engine.Definition) { f(d.States[1].Fork) }
	}

	DescribeTable("reports a bad fork with its position",
		func(tc buildCase) { expectDiagnostic(def, tc) },
		Entry("fork without children", buildCase{
			mutate: func(d *engine.Definition) {
				d.States = append(d.States, engine.StateDef{Name: "lone", Pos: at(50, 3),
					Fork: &engine.ForkDef{Pos: at(51, 5), Branches: 2, Join: []engine.TransitionDef{{Target: "idle"}}}})
			},
			msg: `fork "lone" needs child states with an initial one`, pos: at(51, 5)}),
		Entry("no branches", buildCase{
			mutate: fork(func(f *engine.ForkDef) { f.Branches = 0 }),
			msg:    `fork "work": branches must be from 1 to 8`, pos: at(21, 5)}),
		Entry("more branches than a Config holds", buildCase{
			mutate: fork(func(f *engine.ForkDef) { f.Branches = engine.MaxBranches + 1 }),
			msg:    `fork "work": branches must be from 1 to 8`, pos: at(21, 5)}),
		Entry("negative branches", buildCase{
			mutate: fork(func(f *engine.ForkDef) { f.Branches = -1 }),
			msg:    `fork "work": branches must be from 1 to 8`, pos: at(21, 5)}),
		Entry("both branches and inputs_from", buildCase{
			mutate: fork(func(f *engine.ForkDef) { f.InputsFrom = "items" }),
			msg:    `fork "work": give branches or inputs_from, not both`, pos: at(21, 5)}),
		Entry("inputs_from naming a number slot", buildCase{
			mutate: fork(func(f *engine.ForkDef) { f.Branches, f.InputsFrom, f.InputsPos = 0, "count", at(22, 20) }),
			msg:    `fork "work": inputs_from needs a text slot, got "count"`, pos: at(22, 20)}),
		Entry("inputs_from naming an unknown slot", buildCase{
			mutate: fork(func(f *engine.ForkDef) { f.Branches, f.InputsFrom, f.InputsPos = 0, "nope", at(22, 20) }),
			msg:    `fork "work": inputs_from needs a text slot, got "nope"`, pos: at(22, 20)}),
		Entry("into naming a number slot", buildCase{
			mutate: fork(func(f *engine.ForkDef) { f.Into, f.IntoPos = "count", at(23, 12) }),
			msg:    `fork "work": into needs a text slot, got "count"`, pos: at(23, 12)}),
		Entry("unknown merge order", buildCase{
			mutate: fork(func(f *engine.ForkDef) { f.Merge, f.MergePos = "random", at(24, 12) }),
			msg:    `fork "work": merge is index or finish, got "random"`, pos: at(24, 12)}),
		Entry("missing join", buildCase{
			mutate: fork(func(f *engine.ForkDef) { f.Join = nil }),
			msg:    `fork "work" needs at least one join transition`, pos: at(21, 5)}),
		Entry("join without a target", buildCase{
			mutate: fork(func(f *engine.ForkDef) { f.Join = append([]engine.TransitionDef{{Pos: at(25, 7)}}, f.Join...) }),
			msg:    `fork "work": a join transition needs a target`, pos: at(25, 7)}),
		Entry("join into a branch state", buildCase{
			mutate: fork(func(f *engine.ForkDef) { f.Join[0].Target, f.Join[0].TargetPos = "work.b", at(25, 20) }),
			msg:    `state "work.b" runs in the branches of fork "work"; target the fork state instead`, pos: at(25, 20)}),
		Entry("user-event transition inside a fork region", buildCase{
			mutate: func(d *engine.Definition) {
				d.States[2].On = []engine.TransitionDef{{On: "go", Target: "work.b", Pos: at(32, 5)}}
			},
			msg: `state "work.a" runs in the branches of fork "work": it takes eventless and done:/failed: transitions only`, pos: at(32, 5)}),
		Entry("timeout inside a fork region", buildCase{
			mutate: func(d *engine.Definition) {
				d.States[2].Timeout = &engine.TimeoutDef{Pos: at(33, 5), AfterMS: 100,
					Then: []engine.TransitionDef{{Target: "work.b", Pos: at(34, 7)}}}
			},
			msg: `state "work.a" runs in the branches of fork "work": it takes eventless and done:/failed: transitions only`, pos: at(34, 7)}),
		Entry("branch transition leaving the region", buildCase{
			mutate: func(d *engine.Definition) { d.States[2].Always[0].Target = "idle" },
			msg:    `a branch of fork "work" cannot leave it; end the branch in a final state`, pos: at(31, 20)}),
		Entry("transition from outside targeting a branch state", buildCase{
			mutate: func(d *engine.Definition) { d.States[0].On[0].Target = "work.a" },
			msg:    `state "work.a" runs in the branches of fork "work"; target the fork state instead`, pos: at(10, 30)}),
		Entry("override targeting a branch state", buildCase{
			mutate: func(d *engine.Definition) {
				d.Overrides = []engine.OverrideDef{{Name: "jump", Pos: at(60, 3), Target: "work.a", TargetPos: at(61, 13)}}
			},
			msg: `override "jump": state "work.a" runs in the branches of fork "work"; target the fork state instead`, pos: at(61, 13)}),
		Entry("nested forks", buildCase{
			mutate: func(d *engine.Definition) {
				d.States = append(d.States,
					engine.StateDef{Name: "inner", Parent: "work", Pos: at(50, 3), Initial: "x",
						Fork: &engine.ForkDef{Branches: 1, Join: []engine.TransitionDef{{Target: "work.b"}}}},
					engine.StateDef{Name: "x", Parent: "work.inner", Pos: at(51, 5), Final: true})
			},
			msg: `fork "work.inner" is inside fork "work"; forks do not nest`, pos: at(50, 3)}),
		Entry("failed on a state that is not final", buildCase{
			mutate: func(d *engine.Definition) { d.States[2].Failed = true },
			msg:    `state "work.a": failed applies to final states (a failed branch ending)`, pos: at(30, 3)}),
	)
})
