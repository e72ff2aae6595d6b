package engine_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

var _ = Describe("external actions", func() {
	var (
		m   *engine.Machine
		cfg engine.Config
		res engine.Result
	)

	BeforeEach(func() {
		b := et.New("lookup", "idle").
			Intents("ask").
			Slot("city", engine.TypeText).Slot("price", engine.TypeNumber).
			External("lookup", `city != "Atlantis"`).
			State("idle", et.Waits(), et.On("ask", "searching", et.Set("city", "event.value"))).
			State("searching",
				et.Entry(et.Invoke("lookup")),
				et.On("done:lookup", "found", et.Say("{city}: {price}")),
				et.On("failed:lookup", "sorry", et.Say("no luck with {city}"))).
			State("found", et.Final()).
			State("sorry", et.Final())
		b.Def().Actions[0].Outputs = []engine.OutputDef{{Name: "price", Expr: engine.Expr{Src: "len(city) * 10"}}}
		var err error
		m, err = b.Build()
		Expect(err).NotTo(HaveOccurred())
		cfg, res = engine.Config{}, engine.Result{}
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
	})

	// invoke performs the invoke effect of the last step, as a driver
	// would, and steps the result.
	invoke := func() {
		GinkgoHelper()
		var x engine.ExtID = engine.NoID
		for _, e := range res.Effects {
			if e.Kind == engine.EffInvoke {
				x = e.Ext
			}
		}
		Expect(x).NotTo(Equal(engine.ExtID(engine.NoID)), "got no invoke effect, want one")
		Expect(m.ExtName(x)).To(Equal("lookup"))
		var ev, reused engine.Event
		m.Invoke(&cfg, x, cfg.Now+5, &ev)
		// Invoke fills the event field by field: one that held anything
		// (a field added to Event since included) comes out the same.
		et.FillLeftover(&reused)
		m.Invoke(&cfg, x, cfg.Now+5, &reused)
		Expect(reused).To(Equal(ev))
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
	}

	It("reports an invoke effect and takes done: with the stub's outputs in their slots", func() {
		Expect(stepScript(m, &cfg, &res, "ask=Paris@10")).To(Succeed())
		invoke()
		Expect(m.StateName(cfg.State)).To(Equal("found"))
		Expect(cfg.Now).To(Equal(int64(15)))
		Expect(slotValue(m, &cfg, "price")).To(Equal(engine.NumberValue(50)))
		Expect(et.Says(&res)).To(Equal([]string{"Paris: 50"}))
		Expect(cfg.Final).To(BeTrue())
	})

	It("takes failed: when the stub's success condition does not hold", func() {
		Expect(stepScript(m, &cfg, &res, "ask=Atlantis@10")).To(Succeed())
		invoke()
		Expect(m.StateName(cfg.State)).To(Equal("sorry"))
		Expect(slotValue(m, &cfg, "price").IsEmpty()).To(BeTrue())
		Expect(et.Says(&res)).To(Equal([]string{"no luck with Atlantis"}))
	})

	It("ignores every event once a top-level final state is reached", func() {
		Expect(stepScript(m, &cfg, &res, "ask=Paris@10")).To(Succeed())
		invoke()
		before := cfg
		Expect(stepScript(m, &cfg, &res, "ask=Rome@20")).To(Succeed())
		Expect(res.Handled).To(BeFalse())
		before.Now = 20
		Expect(cfg).To(Equal(before))
	})
})

var _ = Describe("an event no transition takes", func() {
	// SCXML selects eventless transitions again after every external
	// event, matched or not; so does simctl.
	It("selects the eventless transitions again: an action's outputs may enable one", func() {
		m, err := et.New("recheck", "idle").
			Intents("go").
			Slot("price", engine.TypeText).
			External("lookup", "true").
			Output("lookup", "price", `"12"`).
			State("idle", et.Waits(), et.On("go", "waiting", et.Invoke("lookup"))).
			State("waiting", et.Waits(), et.AlwaysIf("filled(price)", "priced")).
			State("priced", et.Waits()).
			Build()
		Expect(err).NotTo(HaveOccurred())
		var (
			cfg engine.Config
			res engine.Result
		)
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		ev, err := et.ParseEvent(m, &cfg, "go")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
		Expect(m.StateName(cfg.State)).To(Equal("waiting"))
		x, _ := m.ExtID("lookup")
		var done engine.Event
		m.Invoke(&cfg, x, cfg.Now, &done)
		Expect(m.Step(&cfg, &done, &res)).To(Succeed())
		Expect(res.Handled).To(BeTrue(), "the configuration moved")
		Expect(m.StateName(cfg.State)).To(Equal("priced"))
	})
})
