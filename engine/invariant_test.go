package engine_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

var _ = Describe("invariants", func() {
	var (
		m   *engine.Machine
		cfg engine.Config
		res engine.Result
	)

	// id resolves a state name.
	id := func(name string) engine.StateID {
		GinkgoHelper()
		s, ok := m.StateID(name)
		Expect(ok).To(BeTrue(), "got no state %q, want one", name)
		return s
	}

	BeforeEach(func() {
		b := et.New("inv", "idle").
			Intents("go", "bad").
			Counter("tries", 0).
			State("idle", et.Waits(), et.On("go", "form")).
			State("form", et.Initial("ask")).
			State("form.ask", et.Waits(), et.On("go", "check"), et.On("bad", "form.ask", et.Incr("tries"))).
			State("check", et.Always("done")).
			State("done", et.Waits())
		b.Def().Invariants = []engine.InvariantDef{
			{Name: "flow", Kind: engine.InvAllowed,
				Allowed: []engine.AllowedDef{
					{From: engine.NameDef{Name: "idle"}, To: []engine.NameDef{{Name: "form"}}},
					{From: engine.NameDef{Name: "form"}, To: []engine.NameDef{{Name: "done"}, {Name: "ask"}}},
					{FromAny: true, To: []engine.NameDef{{Name: "idle"}}},
				},
				Transparent: []engine.NameDef{{Name: "check"}}},
			{Name: "few_tries", Kind: engine.InvAlways, Expr: engine.Expr{Src: "tries <= 2"}},
			{Name: "no_loop", Kind: engine.InvNever, Expr: engine.Expr{Src: "tries > 1"}},
		}
		var err error
		m, err = b.Build()
		Expect(err).NotTo(HaveOccurred())
		cfg, res = engine.Config{}, engine.Result{}
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
	})

	It("compiles allowed-transition tables over whole subtrees", func() {
		inv := &m.Invariants()[0]
		Expect(inv.Name).To(Equal("flow"))
		Expect(inv.Allows(id("idle"), id("form.ask"))).To(BeTrue(), "a row to a compound state allows its children")
		Expect(inv.Allows(id("form.ask"), id("done"))).To(BeTrue(), "a row from a compound state covers its children")
		Expect(inv.Allows(id("idle"), id("done"))).To(BeFalse())
		Expect(inv.Allows(id("done"), id("idle"))).To(BeTrue(), "from any")
		Expect(inv.Transparent(id("check"))).To(BeTrue())
		Expect(inv.Transparent(id("done"))).To(BeFalse())
	})

	It("evaluates always and never invariants against a configuration", func() {
		always, never := &m.Invariants()[1], &m.Invariants()[2]
		Expect(m.Holds(always, &cfg, &cfg)).To(BeTrue())
		Expect(m.Holds(never, &cfg, &cfg)).To(BeTrue())
		Expect(stepAll(m, &cfg, &res, "go", "bad", "bad")).To(Succeed())
		Expect(m.Holds(always, &cfg, &cfg)).To(BeTrue())
		Expect(m.Holds(never, &cfg, &cfg)).To(BeFalse(), "tries > 1 happened")
		Expect(stepScript(m, &cfg, &res, "bad")).To(Succeed())
		Expect(m.Holds(always, &cfg, &cfg)).To(BeFalse())
	})
})
