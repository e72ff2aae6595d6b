package engine_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// routerMachine is an agent pipeline: a router hands the request to a tool,
// whose result is then answered. Every state announces its entry and exit,
// so the says of a step show which states were left and entered. Two hooks
// run after the router: with a cached answer the tool is skipped; asked to
// go home, the pipeline is left.
//
//	idle
//	pipeline     (initial router)
//	  router
//	  tool
//	  answer
func routerMachine() *et.Builder {
	enterExit := func(name string) []et.Part {
		return []et.Part{et.Entry(et.Say("enter " + name)), et.Exit(et.Say("exit " + name))}
	}
	return et.New("router", "idle").
		Intents("ask", "result").
		Slot("cached", engine.TypeText).
		State("idle", append(enterExit("idle"), et.Waits(),
			et.On("ask", "pipeline", et.Set("cached", "event.value")))...).
		State("pipeline", append(enterExit("pipeline"), et.Initial("router"))...).
		State("pipeline.router", append(enterExit("router"),
			et.Always("pipeline.tool", et.Say("route to tool")))...).
		State("pipeline.tool", append(enterExit("tool"), et.Waits(),
			et.On("result", "pipeline.answer"))...).
		State("pipeline.answer", append(enterExit("answer"), et.Waits())...).
		Override("post_router", "pipeline.answer",
			et.From("pipeline.router"), et.Toward("pipeline.tool"),
			et.When(`cached != ""`), et.Do(et.Say("use the cache"))).
		Override("go_home", "idle",
			et.From("pipeline.router"), et.Toward("pipeline.tool"),
			et.When(`cached == "home"`), et.Do(et.Say("going home")))
}

// safetyMachine answers requests until a safety policy, an override from
// any state to any target, blocks every transition once three were made.
func safetyMachine(from ...string) *et.Builder {
	return et.New("safety", "idle").
		Intents("ask", "ping").
		Counter("requests", 0).
		State("idle", et.Waits(), et.On("ask", "check", et.Incr("requests"))).
		State("check", et.Always("idle", et.Say("answered {requests}"))).
		State("blocked", et.Waits(),
			et.Entry(et.Say("request limit reached")),
			et.On("ping", "", et.Say("still blocked"))).
		Override("safety", "blocked", et.From(from...), et.When("requests >= 3"),
			et.Do(et.Escalate("too many requests")))
}

var _ = Describe("overrides", func() {
	var (
		m   *engine.Machine
		cfg engine.Config
		res engine.Result
	)

	BeforeEach(func() {
		cfg, res = engine.Config{}, engine.Result{}
	})

	build := func(b *et.Builder) {
		GinkgoHelper()
		var err error
		m, err = b.Build()
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
	}

	step := func(s string) {
		GinkgoHelper()
		ev, err := et.ParseEvent(m, &cfg, s)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
	}

	// transOf returns the id of the first transition with this source and
	// trigger.
	transOf := func(source, trigger string) engine.TransID {
		GinkgoHelper()
		s := mustState(m, source)
		for t := 0; t < m.NumTransitions(); t++ {
			if info := m.Transition(engine.TransID(t)); info.Source == s && info.Trigger == trigger {
				return engine.TransID(t)
			}
		}
		Fail("got no transition " + trigger + " from " + source + ", want one")
		return engine.NoID
	}

	Describe("after a router", func() {
		BeforeEach(func() { build(routerMachine()) })

		It("redirects the decided transition when the machine is in From, the target in To and the guard holds", func() {
			step("ask=cached answer")
			Expect(m.StateName(cfg.State)).To(Equal("pipeline.answer"))
			Expect(res.Steps).To(HaveLen(2))
			st := res.Steps[1]
			Expect(m.IsOverride(st.Trans)).To(BeTrue())
			Expect(m.Transition(st.Trans).Trigger).To(Equal("override:post_router"))
			Expect(st.Overrode).To(Equal(transOf("pipeline.router", "always")))
			Expect(res.Steps[0].Overrode).To(Equal(engine.TransID(engine.NoID)))
			Expect(et.Format(m, &res)).To(Equal(`  idle -> pipeline.router (ask)
    say exit idle
    set cached
    say enter pipeline
    say enter router
  pipeline.router -> pipeline.answer (override:post_router instead of always -> pipeline.tool) [cached != ""]=true
    say exit router
    say use the cache
    say enter answer
  say "exit idle"
  say "enter pipeline"
  say "enter router"
  say "exit router"
  say "use the cache"
  say "enter answer"
`))
		})

		It("leaves the transition alone when the guard does not hold", func() {
			step("ask")
			Expect(m.StateName(cfg.State)).To(Equal("pipeline.tool"))
			st := res.Steps[1]
			Expect(st.Trans).To(Equal(transOf("pipeline.router", "always")))
			Expect(st.Overrode).To(Equal(engine.TransID(engine.NoID)))
			Expect(et.Says(&res)).To(ContainElements("route to tool", "enter tool"))
			Expect(res.Guards[st.GuardLo:st.GuardHi]).To(HaveLen(2), "both hooks' guards were tried")
		})

		It("leaves transitions from other states or toward other targets alone", func() {
			step("ask")
			step("result")
			Expect(m.StateName(cfg.State)).To(Equal("pipeline.answer"))
			Expect(res.Steps[0].Overrode).To(Equal(engine.TransID(engine.NoID)))
			Expect(res.Guards).To(BeEmpty(), "no override applies, so no override guard is evaluated")
		})

		It("tries overrides in declared order: the first that applies wins", func() {
			step("ask=home")
			Expect(m.StateName(cfg.State)).To(Equal("pipeline.answer"))
			Expect(m.Transition(res.Steps[1].Trans).Trigger).To(Equal("override:post_router"))
		})

		It("exits and enters the states between the current one and the override's target", func() {
			b := routerMachine()
			d := b.Def()
			d.Overrides[0], d.Overrides[1] = d.Overrides[1], d.Overrides[0]
			build(b)
			step("ask=home")
			Expect(m.StateName(cfg.State)).To(Equal("idle"))
			Expect(m.Transition(res.Steps[1].Trans).Trigger).To(Equal("override:go_home"))
			Expect(et.Says(&res)).To(Equal([]string{"exit idle", "enter pipeline", "enter router",
				"exit router", "exit pipeline", "going home", "enter idle"}))
		})
	})

	DescribeTable("as a safety policy from any state, intercepts any transition, eventless ones too",
		func(from []string) {
			build(safetyMachine(from...))
			step("ask")
			step("ask")
			Expect(et.Says(&res)).To(Equal([]string{"answered 2"}))
			step("ask")
			Expect(m.StateName(cfg.State)).To(Equal("blocked"))
			Expect(res.Steps).To(HaveLen(2))
			Expect(res.Steps[0].Overrode).To(Equal(engine.TransID(engine.NoID)), "requests was 2 when ask was decided")
			Expect(res.Steps[1].Overrode).To(Equal(transOf("check", "always")))
			Expect(et.Says(&res)).To(Equal([]string{"request limit reached"}))
			Expect(et.Format(m, &res)).To(ContainSubstring(`escalate "too many requests"`))
			Expect(counter(m, &cfg, "requests")).To(Equal(int32(3)))

			step("ping")
			Expect(res.Handled).To(BeTrue())
			Expect(res.Steps[0].Overrode).To(Equal(engine.TransID(engine.NoID)), "targetless transitions are not intercepted")
			Expect(et.Says(&res)).To(Equal([]string{"still blocked"}))
		},
		Entry("with From empty", []string(nil)),
		Entry(`with From "*"`, []string{"*"}),
	)

	Describe("among themselves", func() {
		BeforeEach(func() {
			build(et.New("chain", "a").
				Intents("go", "skip").
				State("a", et.Waits(), et.On("go", "b"), et.On("skip", "c")).
				State("b", et.Waits()).
				State("c", et.Waits()).
				State("d", et.Waits()).
				Override("same", "b", et.From("a"), et.Toward("b"), et.When("true"), et.Do(et.Say("same"))).
				Override("first", "c", et.Toward("b"), et.Do(et.Say("first"))).
				Override("second", "d", et.Toward("c"), et.Do(et.Say("second"))))
		})

		It("skips an override whose target is already the decided one, and never applies one to another", func() {
			step("go")
			Expect(m.StateName(cfg.State)).To(Equal("c"))
			Expect(et.Says(&res)).To(Equal([]string{"first"}))
			Expect(m.Transition(res.Steps[0].Trans).Trigger).To(Equal("override:first"))
			Expect(res.Guards).To(BeEmpty(), "the guard of the skipped override is not even evaluated")
		})

		It("still applies the second to an ordinary transition toward its To", func() {
			step("skip")
			Expect(m.StateName(cfg.State)).To(Equal("d"))
			Expect(et.Says(&res)).To(Equal([]string{"second"}))
		})
	})
})

var _ = Describe("Build of overrides", func() {
	var def *engine.Definition

	BeforeEach(func() {
		def = routerMachine().Def()
		def.Overrides[0].Pos = at(50, 3)
		def.Overrides[1].Pos = at(55, 3)
	})

	It("accepts the base definition without any diagnostic", func() {
		m, diags := engine.Build(def)
		Expect(diags).To(BeEmpty())
		Expect(m).NotTo(BeNil())
	})

	DescribeTable("reports a bad override with its position",
		func(tc buildCase) { expectDiagnostic(def, tc) },
		Entry("duplicate name", buildCase{
			mutate: func(d *engine.Definition) { d.Overrides[1].Name = "post_router" },
			msg:    `duplicate override "post_router" (first declared at machine.yaml:50:3)`, pos: at(55, 3)}),
		Entry("no name", buildCase{
			mutate: func(d *engine.Definition) { d.Overrides[1].Name = "" },
			msg:    `override needs a name`, pos: at(55, 3)}),
		Entry("no target", buildCase{
			mutate: func(d *engine.Definition) { d.Overrides[1].Target = "" },
			msg:    `override "go_home" needs a target`, pos: at(55, 3)}),
		Entry("unknown target", buildCase{
			mutate: func(d *engine.Definition) { d.Overrides[1].Target, d.Overrides[1].TargetPos = "nowhere", at(56, 13) },
			msg:    `override go_home: unknown state "nowhere"`, pos: at(56, 13)}),
		Entry("unknown From state", buildCase{
			mutate: func(d *engine.Definition) { d.Overrides[1].From = []engine.NameDef{{Name: "ghost", Pos: at(57, 11)}} },
			msg:    `override go_home: unknown state "ghost"`, pos: at(57, 11)}),
		Entry("guard that is not a boolean", buildCase{
			mutate: func(d *engine.Definition) { d.Overrides[1].Guard = engine.Expr{Src: "cached", Pos: at(58, 12)} },
			msg:    `expression "cached" is text, want a boolean`, pos: at(58, 12)}),
	)
})
