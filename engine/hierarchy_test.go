package engine_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// hierarchyMachine announces every entry and exit with a say action, so the
// order of a step's says is the order in which states were left and entered.
//
//	idle
//	work            (initial a)
//	  a
//	  b
//	  c             (initial c1)
//	    c1          (initial x)
//	      x
func hierarchyMachine() *et.Builder {
	enterExit := func(name string) []et.Part {
		return []et.Part{et.Entry(et.Say("enter " + name)), et.Exit(et.Say("exit " + name))}
	}
	return et.New("hierarchy", "idle").
		Intents("go", "next", "stop", "again", "reset", "up", "dive", "ping", "home").
		State("idle", append(enterExit("idle"), et.Waits(), et.On("go", "work"))...).
		State("work", append(enterExit("work"), et.Initial("a"),
			et.On("stop", "idle"),
			et.On("reset", "work"),
			et.On("ping", "", et.Say("pong")))...).
		State("work.a", append(enterExit("a"), et.Waits(),
			et.On("next", "work.b", et.Say("a to b")),
			et.On("dive", "work.c"))...).
		State("work.b", append(enterExit("b"), et.Waits(),
			et.On("again", "work.b", et.Say("b to b")),
			et.On("up", "work"))...).
		State("work.c", append(enterExit("c"), et.Initial("c1"))...).
		State("work.c.c1", append(enterExit("c1"), et.Initial("x"))...).
		State("work.c.c1.x", append(enterExit("x"), et.Waits(), et.On("home", "idle"))...)
}

// stepAll starts m and feeds it events, returning the Result of the last.
func stepAll(m *engine.Machine, c *engine.Config, r *engine.Result, events ...string) error {
	if err := m.Start(c, 0, r); err != nil {
		return err
	}
	for _, s := range events {
		ev, err := et.ParseEvent(m, c, s)
		if err != nil {
			return err
		}
		if err := m.Step(c, &ev, r); err != nil {
			return fmt.Errorf("step %q: %w", s, err)
		}
	}
	return nil
}

var _ = Describe("hierarchical states", func() {
	var (
		m   *engine.Machine
		cfg engine.Config
		res engine.Result
	)

	BeforeEach(func() {
		var err error
		m, err = hierarchyMachine().Build()
		Expect(err).NotTo(HaveOccurred())
		cfg, res = engine.Config{}, engine.Result{}
	})

	It("enters the initial state on Start, as one trace step with no transition", func() {
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		Expect(et.Says(&res)).To(Equal([]string{"enter idle"}))
		Expect(res.Steps).To(HaveLen(1))
		Expect(res.Steps[0].From).To(Equal(engine.StateID(engine.NoID)))
		Expect(res.Steps[0].Trans).To(Equal(engine.TransID(engine.NoID)))
		Expect(m.StateName(cfg.State)).To(Equal("idle"))
	})

	It("enters a compound initial state down to its initial leaf on Start", func() {
		b := hierarchyMachine()
		b.Def().Initial = "work"
		var err error
		m, err = b.Build()
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		Expect(et.Says(&res)).To(Equal([]string{"enter work", "enter a"}))
		Expect(m.StateName(cfg.State)).To(Equal("work.a"))
		Expect(m.StateName(res.Steps[0].To)).To(Equal("work.a"))
	})

	type orderCase struct {
		events []string // the last one is the step under test
		says   []string
		state  string
	}

	DescribeTable("runs exit, transition and entry actions in order, only for the states left and entered",
		func(tc orderCase) {
			Expect(stepAll(m, &cfg, &res, tc.events...)).To(Succeed())
			Expect(res.Handled).To(BeTrue())
			Expect(et.Says(&res)).To(Equal(tc.says), "says of the last step")
			Expect(m.StateName(cfg.State)).To(Equal(tc.state))
		},
		Entry("into a compound state: its initial child is entered after it",
			orderCase{[]string{"go"}, []string{"exit idle", "enter work", "enter a"}, "work.a"}),
		Entry("between siblings: the parent is neither left nor entered",
			orderCase{[]string{"go", "next"}, []string{"exit a", "a to b", "enter b"}, "work.b"}),
		Entry("a transition declared on the parent applies in the child, exiting leaf to ancestor",
			orderCase{[]string{"go", "next", "stop"}, []string{"exit b", "exit work", "enter idle"}, "idle"}),
		Entry("a self-transition on a leaf exits and re-enters it",
			orderCase{[]string{"go", "next", "again"}, []string{"exit b", "b to b", "enter b"}, "work.b"}),
		Entry("a self-transition on a compound state exits and re-enters it and its initial child",
			orderCase{[]string{"go", "next", "reset"}, []string{"exit b", "exit work", "enter work", "enter a"}, "work.a"}),
		Entry("a transition to an ancestor leaves and re-enters the ancestor",
			orderCase{[]string{"go", "next", "up"}, []string{"exit b", "exit work", "enter work", "enter a"}, "work.a"}),
		Entry("a compound target enters its initial children recursively",
			orderCase{[]string{"go", "dive"}, []string{"exit a", "enter c", "enter c1", "enter x"}, "work.c.c1.x"}),
		Entry("leaving a deep leaf exits every level up to the domain",
			orderCase{[]string{"go", "dive", "home"}, []string{"exit x", "exit c1", "exit c", "exit work", "enter idle"}, "idle"}),
		Entry("a targetless transition runs its actions with no exit or entry",
			orderCase{[]string{"go", "next", "ping"}, []string{"pong"}, "work.b"}),
	)

	It("lists the actions run in Result.Actions, in the order of the says", func() {
		Expect(stepAll(m, &cfg, &res, "go", "dive")).To(Succeed())
		var got []string
		for _, a := range res.Actions {
			kind, name, _ := m.ActionInfo(a)
			got = append(got, kind.String()+" "+name)
		}
		Expect(got).To(Equal([]string{"say exit a", "say enter c", "say enter c1", "say enter x"}))
		Expect(res.Steps).To(HaveLen(1))
		st := res.Steps[0]
		Expect(m.StateName(st.From)).To(Equal("work.a"))
		Expect(m.StateName(st.To)).To(Equal("work.c.c1.x"))
		Expect(res.Actions[st.ActLo:st.ActHi]).To(Equal(res.Actions))
	})

	It("reports InState for the leaf and each of its ancestors only", func() {
		Expect(stepAll(m, &cfg, &res, "go", "dive")).To(Succeed())
		for _, s := range []string{"work", "work.c", "work.c.c1", "work.c.c1.x"} {
			id, ok := m.StateID(s)
			Expect(ok).To(BeTrue(), s)
			Expect(m.InState(cfg.State, id)).To(BeTrue(), "InState(%s)", s)
		}
		for _, s := range []string{"idle", "work.a", "work.b"} {
			id, _ := m.StateID(s)
			Expect(m.InState(cfg.State, id)).To(BeFalse(), "InState(%s)", s)
		}
	})

	It("ignores an event no state in the chain handles, leaving the config unchanged but the clock", func() {
		Expect(stepAll(m, &cfg, &res, "go")).To(Succeed())
		before := cfg
		ev, err := et.ParseEvent(m, &cfg, "again@40")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
		Expect(res.Handled).To(BeFalse())
		Expect(res.Steps).To(BeEmpty())
		before.Now = 40
		Expect(cfg).To(Equal(before))
	})

	It("resolves unique short state names as well as full paths", func() {
		byPath, ok := m.StateID("work.c.c1.x")
		Expect(ok).To(BeTrue())
		byShort, ok := m.StateID("x")
		Expect(ok).To(BeTrue())
		Expect(byShort).To(Equal(byPath))
	})
})
