package engine_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

var _ = Describe("guards", func() {
	var (
		m   *engine.Machine
		cfg engine.Config
		res engine.Result
	)

	BeforeEach(func() {
		var err error
		m, err = et.New("guards", "menu.ask").
			Intents("answer", "other").
			State("menu", et.Initial("ask"),
				et.On("answer", "fallback")).
			State("menu.ask", et.Waits(),
				et.OnIf("answer", `event.value == "child"`, "child"),
				et.OnIf("answer", `len(event.value) > 5`, "big"),
				et.OnIf("answer", `len(event.value) > 2`, "mid"),
				et.OnIf("other", `event.value == "x"`, "child")).
			State("child", et.Waits()).
			State("big", et.Waits()).
			State("mid", et.Waits()).
			State("fallback", et.Waits()).
			Build()
		Expect(err).NotTo(HaveOccurred())
		cfg, res = engine.Config{}, engine.Result{}
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
	})

	// guardCase is one answer and what the guards make of it.
	type guardCase struct {
		value  string
		target string
		guards []string // "SRC=pass" for each guard evaluated, in order
	}

	DescribeTable("tries guards in declared order, the child's before the parent's, and the first passing wins",
		func(tc guardCase) {
			ev, err := et.ParseEvent(m, &cfg, "answer="+tc.value)
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			Expect(res.Handled).To(BeTrue())
			Expect(m.StateName(cfg.State)).To(Equal(tc.target))

			got := []string{}
			for _, g := range res.Guards {
				info := m.Transition(g.Trans)
				if g.Pass {
					got = append(got, info.Guard+"=pass")
				} else {
					got = append(got, info.Guard+"=fail")
				}
			}
			Expect(got).To(Equal(tc.guards))

			Expect(res.Steps).To(HaveLen(1))
			st := res.Steps[0]
			Expect(res.Guards[st.GuardLo:st.GuardHi]).To(Equal(res.Guards), "the step's guard window")
		},
		Entry("the child's first guard passes", guardCase{"child", "child",
			[]string{`event.value == "child"=pass`}}),
		Entry("two guards would pass: the earlier one wins", guardCase{"abcdefg", "big",
			[]string{`event.value == "child"=fail`, `len(event.value) > 5=pass`}}),
		Entry("only the third passes", guardCase{"abcd", "mid",
			[]string{`event.value == "child"=fail`, `len(event.value) > 5=fail`, `len(event.value) > 2=pass`}}),
		Entry("every child guard fails: the parent's unguarded transition applies, recording no outcome", guardCase{"a", "fallback",
			[]string{`event.value == "child"=fail`, `len(event.value) > 5=fail`, `len(event.value) > 2=fail`}}),
	)

	It("leaves the event unhandled when every candidate's guard fails", func() {
		before := cfg
		ev, err := et.ParseEvent(m, &cfg, "other=y@7")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
		Expect(res.Handled).To(BeFalse())
		Expect(res.Guards).To(HaveLen(1))
		Expect(res.Guards[0].Pass).To(BeFalse())
		before.Now = 7
		Expect(cfg).To(Equal(before))
	})
})

// mustIntent resolves an intent name, failing the spec when it is unknown.
func mustIntent(m *engine.Machine, name string) engine.IntentID {
	id, ok := m.IntentID(name)
	ExpectWithOffset(1, ok).To(BeTrue(), "got no intent %q, want one", name)
	return id
}

var _ = Describe("a step's use of its event's payload", func() {
	DescribeTable("is reported, so that an explorer tries one payload where any other steps alike",
		func(guard string, acts []engine.ActionDef, event string, read bool) {
			m, err := et.New("payload", "ask").
				Intents("answer").
				Slot("name", engine.TypeText).
				State("ask", et.Waits(), et.OnIf("answer", guard, "done", acts...)).
				State("done", et.Waits()).
				Build()
			Expect(err).NotTo(HaveOccurred())
			var cfg engine.Config
			var res engine.Result
			Expect(m.Start(&cfg, 0, &res)).To(Succeed())
			ev, err := et.ParseEvent(m, &cfg, event)
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			Expect(res.ReadEvent).To(Equal(read))
		},
		Entry("a guard on the state only", `state == "ask"`, nil, "answer=x", false),
		Entry("no guard, an action on slots", "", []engine.ActionDef{et.Set("name", `"fixed"`)}, "answer=x", false),
		Entry("a guard reading event.value", `event.value == "x"`, nil, "answer=x", true),
		Entry("a guard failing on event.text", `event.text == "y"`, nil, "answer=x", true),
		Entry("a guard on event.confidence", `event.confidence > 0.5`, nil, "answer=x", true),
		Entry("an action storing event.value", "", []engine.ActionDef{et.Set("name", "event.value")}, "answer=x", true),
		Entry("a reply quoting the event", "", []engine.ActionDef{et.Say("you said {event.text}")}, "answer=x", true),
		Entry("a guard on the intent", `event.intent == "answer"`, nil, "answer=x", false),
	)
})

var _ = Describe("a guard's regular expression", func() {
	// Labelled race: make test runs it under the race detector, the
	// engine's other specs (one goroutine) without it.
	It("gives the same verdicts when it has seen the text before, past its memory, and from many goroutines", Label("race"), func() {
		m, err := et.New("memo", "ask").
			Intents("answer").
			State("ask", et.Waits(), et.OnIf("answer", `event.text matches "^a+b?$"`, "yes"), et.On("answer", "no")).
			State("yes", et.Waits()).
			State("no", et.Waits()).
			Build()
		Expect(err).NotTo(HaveOccurred())
		texts := []string{}
		for i := 0; i < 3000; i++ {
			texts = append(texts, strings.Repeat("a", i%40+1)+[]string{"", "b", "c"}[i%3])
		}
		texts = append(texts, strings.Repeat("a", 5000)) // too long to remember
		done := make(chan []string, 4)
		for g := 0; g < 4; g++ {
			go func() {
				defer GinkgoRecover()
				var got []string
				for round := 0; round < 2; round++ {
					for _, t := range texts {
						var cfg engine.Config
						var res engine.Result
						Expect(m.Start(&cfg, 0, &res)).To(Succeed())
						ev := engine.Event{Kind: engine.UserEvent, Intent: 0, Text: t, Confidence: 1, Timer: engine.NoID, Ext: engine.NoID}
						Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
						got = append(got, m.StateName(cfg.State))
					}
				}
				done <- got
			}()
		}
		for g := 0; g < 4; g++ {
			got := <-done
			for i, t := range append(texts, texts...) {
				want := "no"
				if !strings.HasSuffix(t, "c") {
					want = "yes"
				}
				Expect(got[i]).To(Equal(want), "%q", t)
			}
		}
	})
})
