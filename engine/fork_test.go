package engine_test

import (
	"fmt"
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

	It("runs the exit actions of the regions' states when the fork is left, in reverse document order, then the fork's", func() {
		// SCXML's exitOrder: the last region first, each from its leaf up.
		build(et.New("exits", "idle").
			Intents("go", "cancel").
			Slot("items", engine.TypeText).
			State("idle", et.Waits(), et.On("go", "work", et.Set("items", "event.value"))).
			State("work", et.Initial("task"),
				et.Exit(et.Say("exit work")),
				et.Fork(et.InputsFrom("items"), et.Join(et.To("idle"))),
				et.On("cancel", "idle", et.Say("cancelled"))).
			State("work.task", et.Initial("a"), et.Exit(et.Say("exit task {branch_input}"))).
			State("work.task.a", et.Exit(et.Say("exit a {branch_input}")), et.AlwaysIf(`branch_input == "x"`, "work.task.b")).
			State("work.task.b", et.Exit(et.Say("exit b {branch_input}")), et.On("go", "work.done")).
			State("work.done", et.Final()))
		step("go=x|y")
		Expect(m.StateName(cfg.Branches[0].State)).To(Equal("work.task.b"))
		Expect(m.StateName(cfg.Branches[1].State)).To(Equal("work.task.a"))
		step("cancel")
		Expect(m.StateName(cfg.State)).To(Equal("idle"))
		Expect(cfg.NBranch).To(BeZero())
		Expect(et.Says(&res)).To(Equal([]string{"exit a y", "exit task y", "exit b x", "exit task x", "exit work", "cancelled"}))
	})

	Describe("over the parts of a text slot", func() {
		BeforeEach(func() { build(fanoutMachine("")) })

		It("starts one region per part, with that part as its input, and runs their eventless chains together to the join", func() {
			step("go=a|b|c")
			Expect(et.Says(&res)).To(Equal([]string{"fork over a|b|c", "start a", "start b", "start c", "leave fork: 3 done, 0 failed", "all 3 done"}))
			Expect(res.Joins).To(HaveLen(1))
			j := res.Joins[0]
			Expect(j.Branches).To(Equal(3))
			Expect(j.Finished).To(Equal(3))
			Expect(j.Delivered).To(Equal(3))
			Expect(slotValue(m, &cfg, "merged").Str).To(Equal("done a\ndone b\ndone c"))
			Expect(m.StateName(cfg.State)).To(Equal("after"))
			Expect(cfg.NBranch).To(BeZero())
			Expect(cfg.Finished).To(BeZero())
			Expect(cfg.Branches).To(Equal([engine.MaxBranches]engine.Branch{}))
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

		It("reports more parts than a Config holds branches as a runtime error", func() {
			ev, err := et.ParseEvent(m, &cfg, "go="+strings.Repeat("x|", engine.MaxBranches)+"x")
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Step(&cfg, &ev, &res)).To(MatchError(ContainSubstring(fmt.Sprintf("fork work: %d branches, more than %d", engine.MaxBranches+1, engine.MaxBranches))))
		})

		It("starts fresh regions when the fork is entered again", func() {
			step("go=a|b")
			Expect(m.StateName(cfg.State)).To(Equal("after"))
			step("go=x|y|z")
			Expect(slotValue(m, &cfg, "merged").Str).To(Equal("done x\ndone y\ndone z"))
		})

		It("counts a failed ending in branches_failed, and the join guard routes to failure", func() {
			step("go=a|bad|c")
			Expect(m.StateName(cfg.State)).To(Equal("failure"))
			Expect(res.Joins).To(HaveLen(1))
			Expect(res.Joins[0].Failed).To(Equal(1))
			Expect(res.Joins[0].Delivered).To(Equal(3))
			Expect(slotValue(m, &cfg, "merged").Str).To(Equal("done a\nbroken bad\ndone c"))
			Expect(et.Says(&res)).To(ContainElement("1 of 3 failed"))
			Expect(res.Guards).To(ContainElement(engine.GuardOutcome{Trans: res.Joins[0].Trans, Pass: true}))
		})

		It("renders region steps, one microstep's transitions together, and joins in the trace", func() {
			got, err := et.Run(m, "go=a|bad")
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(`* start @0
  -> idle
> go=a|bad @0
  idle -> work (go)
    set items
    say fork over {items}
    say start {branch_input}
    say start {branch_input}
  b0: work.start -> work.mid (always) [branch_input == "bad"]=false
  b1: work.start -> work.broken (always) [branch_input == "bad"]=true
    contract
  b0: work.mid -> work.done (always)
    contract
  work -> failure (join) [branches_failed > 0]=true
    say leave fork: {branches_done} done, {branches_failed} failed
    say {branches_failed} of {branches} failed
  join work: 2 branches, 2 finished, 1 failed, 2 delivered
  say "fork over a|bad"
  say "start a"
  say "start bad"
  say "leave fork: 1 done, 1 failed"
  say "1 of 2 failed"
`))
		})
	})

	Describe("with merge by finish order", func() {
		BeforeEach(func() { build(fanoutMachine("finish")) })

		It("merges the contracts in the order the regions finished, index order within one microstep", func() {
			step("go=a|bad|c")
			// bad ends after one microstep, a and c after two.
			Expect(slotValue(m, &cfg, "merged").Str).To(Equal("broken bad\ndone a\ndone c"))
			Expect(res.Joins[0].Failed).To(Equal(1))
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

		It("runs that many regions at Start, with empty inputs and indexes 0 to n-1, to the join", func() {
			Expect(slotValue(m, &cfg, "merged").Str).To(Equal("#zero[]\n#one[]\n#two[]"))
			Expect(cfg.Final).To(BeTrue())
		})
	})

	Describe("with regions that invoke external actions", func() {
		BeforeEach(func() {
			build(et.New("lookups", "idle").
				Intents("go", "cancel").
				Slot("items", engine.TypeText).Slot("merged", engine.TypeText).
				External("lookup", "").
				State("idle", et.Waits(), et.On("go", "work", et.Set("items", "event.value"))).
				State("work", et.Initial("ask"),
					et.Fork(et.InputsFrom("items"), et.Into("merged"), et.MergeBy("finish"),
						et.Join(et.ToIf("branches_failed > 0", "partial"), et.To("after")))).
				State("work.ask", et.Entry(et.Invoke("lookup")),
					et.On("done:lookup", "work.found"),
					et.On("failed:lookup", "work.lost"),
					et.On("cancel", "work.lost", et.Contract(`"cancelled " + branch_input`))).
				State("work.found", et.Final(), et.Entry(et.Contract(`"found " + branch_input`))).
				State("work.lost", et.Final(), et.Failed()).
				State("after", et.Waits()).
				State("partial", et.Waits()))
			step("go=x|y")
		})

		It("reports each invoke with the region its result goes back to, and leaves the results awaited", func() {
			var got []uint8
			for _, e := range res.Effects {
				if e.Kind == engine.EffInvoke {
					got = append(got, e.Branch)
				}
			}
			Expect(got).To(Equal([]uint8{1, 2}))
			Expect(cfg.Branches[0].Pending).To(Equal(mustExt(m, "lookup")))
			Expect(cfg.Awaiting()).To(Equal(uint64(0b11)))
		})

		It("advances a region on its own result, and joins when the last result arrives", func() {
			step("done:lookup/1@5")
			Expect(res.Handled).To(BeTrue())
			Expect(res.Steps[0].Branch).To(Equal(uint8(2)))
			Expect(cfg.Branches[1].Status).To(Equal(engine.BranchDone))
			Expect(cfg.Branches[0].Status).To(Equal(engine.BranchRunning))
			Expect(cfg.Awaiting()).To(Equal(uint64(0b01)))
			Expect(res.Joins).To(BeEmpty())

			step("failed:lookup/0@9")
			Expect(res.Joins).To(HaveLen(1))
			Expect(res.Joins[0].Failed).To(Equal(1))
			Expect(m.StateName(cfg.State)).To(Equal("partial"))
			// Finish order: the result delivered first finished first.
			Expect(slotValue(m, &cfg, "merged").Str).To(Equal("found y"))
			Expect(cfg.Now).To(Equal(int64(9)))
		})

		It("lets every region react to a user event, in region order", func() {
			step("cancel")
			Expect(m.StateName(cfg.State)).To(Equal("partial"))
			Expect(res.Steps[0].Branch).To(Equal(uint8(1)))
			Expect(res.Steps[1].Branch).To(Equal(uint8(2)))
			Expect(slotValue(m, &cfg, "merged").Str).To(Equal("cancelled x\ncancelled y"))
		})

		It("refuses a result routed to a region that did not invoke the action", func() {
			step("done:lookup/0")
			ev, err := et.ParseEvent(m, &cfg, "done:lookup/0")
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Step(&cfg, &ev, &res)).To(MatchError(ContainSubstring("region 0 did not invoke lookup")))
		})

		It("hands a result without a region to every region, which leaves their own results awaited", func() {
			step("done:lookup")
			Expect(res.Handled).To(BeTrue())
			Expect(m.StateName(cfg.State)).To(Equal("after"))
		})
	})

	Describe("with a region that invokes an action as it ends", func() {
		BeforeEach(func() {
			build(et.New("notify", "work").
				Intents("go").
				External("notify", "").
				State("work", et.Initial("group"), et.Fork(et.Branches(2), et.Join(et.To("end")))).
				State("work.group", et.Initial("run"), et.On("done:notify", "work.late")).
				State("work.group.run", et.AlwaysIf("branch_index == 0", "work.group.ok"), et.On("go", "work.group.ok")).
				State("work.group.ok", et.Final(), et.Entry(et.Invoke("notify"))).
				State("work.late", et.Final(), et.Entry(et.Contract(`"late"`))).
				State("end", et.Waits()))
		})

		It("starts each region at the leaf below the fork's initial child, though declared after the fork", func() {
			Expect(m.StateName(cfg.Branches[0].State)).To(Equal("work.group.ok"))
			Expect(m.StateName(cfg.Branches[1].State)).To(Equal("work.group.run"))
		})

		It("does not count a final state nested below the fork's child as the region's end, and its result moves it", func() {
			Expect(cfg.Branches[0].Status).To(Equal(engine.BranchRunning))
			step("done:notify/0")
			Expect(res.Handled).To(BeTrue())
			Expect(m.StateName(cfg.Branches[0].State)).To(Equal("work.late"))
			Expect(cfg.Branches[0].Status).To(Equal(engine.BranchDone))
		})

		It("ignores the result of a region once the fork is gone", func() {
			step("done:notify/0")
			step("go")
			step("done:notify/1")
			Expect(res.Joins).To(HaveLen(1))
			Expect(m.StateName(cfg.State)).To(Equal("end"))
			before := cfg
			step("done:notify/1@7")
			Expect(res.Handled).To(BeFalse())
			before.Now = 7
			Expect(cfg).To(Equal(before))
		})
	})

	It("reports a fork whose join loops back into it with regions that end at once, instead of recursing", func() {
		m, err := et.New("spin", "work").MaxChain(10).
			State("work", et.Initial("end"), et.Fork(et.Branches(1), et.Join(et.To("work")))).
			State("work.end", et.Final()).
			Build()
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Start(&cfg, 0, &res)).To(MatchError(ContainSubstring("did not settle after 10 steps")))
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
			msg:    fmt.Sprintf("fork %q: branches must be from 1 to %d", "work", engine.MaxBranches), pos: at(21, 5)}),
		Entry("more branches than a Config holds", buildCase{
			mutate: fork(func(f *engine.ForkDef) { f.Branches = engine.MaxBranches + 1 }),
			msg:    fmt.Sprintf("fork %q: branches must be from 1 to %d", "work", engine.MaxBranches), pos: at(21, 5)}),
		Entry("negative branches", buildCase{
			mutate: fork(func(f *engine.ForkDef) { f.Branches = -1 }),
			msg:    fmt.Sprintf("fork %q: branches must be from 1 to %d", "work", engine.MaxBranches), pos: at(21, 5)}),
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
			msg:    `state "work.b" is inside a region of parallel state "work": only a transition from the same region may target it; target the parallel state instead`, pos: at(25, 20)}),
		Entry("transition from outside targeting a branch state", buildCase{
			mutate: func(d *engine.Definition) { d.States[0].On[0].Target = "work.a" },
			msg:    `state "work.a" is inside a region of parallel state "work": only a transition from the same region may target it; target the parallel state instead`, pos: at(10, 30)}),
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
			msg: `parallel state "work.inner" is inside parallel state "work"; parallel states do not nest`, pos: at(50, 3)}),
		Entry("failed on a state that is not final", buildCase{
			mutate: func(d *engine.Definition) { d.States[2].Failed = true },
			msg:    `state "work.a": failed applies to final states (a failed branch ending)`, pos: at(30, 3)}),
	)
})
