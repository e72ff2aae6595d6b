package engine_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

var _ = Describe("guard expressions", func() {
	var (
		cfg engine.Config
		res engine.Result
	)

	BeforeEach(func() {
		cfg, res = engine.Config{}, engine.Result{}
	})

	// The guard is the only thing that differs between entries, so each
	// entry builds its own machine around it and evaluates it once, on an
	// inform event at 100ms, against
	//
	//	name="Ada" mail="ada@b.co" age=36 vip=true city=(empty) tries=2 (limit 3)
	//	event: intent inform, value "hello world", confidence 0.8, entity town=Paris
	DescribeTable("evaluate over slots, counters and event fields",
		func(src string, want bool) {
			m, err := et.New("probe", "probe").
				Intents("inform").
				Slot("name", engine.TypeText).Slot("mail", engine.TypeText).Slot("age", engine.TypeNumber).
				Slot("vip", engine.TypeBool).Slot("city", engine.TypeText).
				Counter("tries", 3).
				Flow("trip", "city").
				State("probe", et.Waits(), et.OnIf("inform", src, "yes"), et.On("inform", "no")).
				State("yes").State("no").
				Build()
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Start(&cfg, 0, &res)).To(Succeed())
			set := func(slot string, v engine.Value) {
				id, ok := m.SlotID(slot)
				Expect(ok).To(BeTrue())
				cfg.SetSlot(id, v)
			}
			set("name", engine.TextValue("Ada"))
			set("mail", engine.TextValue("ada@b.co"))
			set("age", engine.NumberValue(36))
			set("vip", engine.BoolValue(true))
			cfg.Counters[0] = 2

			ev := engine.Event{Kind: engine.UserEvent, Intent: mustIntent(m, "inform"), At: 100,
				Value: "hello world", Text: "hello world", Confidence: 0.8}
			if id, ok := m.EntityID("town"); ok {
				ev.AddEntity(id, engine.TextValue("Paris"))
			}
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			Expect(res.Guards).To(HaveLen(1))
			Expect(res.Guards[0].Pass).To(Equal(want), "got %s = %t, want %t", src, res.Guards[0].Pass, want)
		},
		EntryDescription("%s is %t"),
		Entry(nil, `name == "Ada"`, true),
		Entry(nil, `name == "Bob"`, false),
		Entry(nil, `name != "Ada"`, false),
		Entry(nil, `age < 40`, true),
		Entry(nil, `age <= 36 && age >= 36`, true),
		Entry(nil, `age > 36`, false),
		Entry(nil, `age + 4 == 40`, true),
		Entry(nil, `tries % 2 == 0`, true),
		Entry(nil, `"Ada" < "Bob"`, true),
		Entry(nil, `tries == 2`, true),
		Entry(nil, `tries < 3 and vip`, true),
		Entry(nil, `not vip or age > 100`, false),
		Entry(nil, `!(age == 36)`, false),
		Entry(nil, `vip == true`, true),
		Entry(nil, `name in ["Ada", "Bob"]`, true),
		Entry(nil, `name in ["Bob"]`, false),
		Entry(nil, `name not in ["Ada"]`, false),
		Entry(nil, `age in [1, 36]`, true),
		Entry(nil, `mail matches "^[a-z]+@"`, true),
		Entry(nil, `name matches "^[a-z]+$"`, false),
		Entry(nil, `event.value contains "world"`, true),
		Entry(nil, `event.value contains "moon"`, false),
		Entry(nil, `event.value startsWith "hell"`, true),
		Entry(nil, `event.value endsWith "hell"`, false),
		Entry(nil, `len(name) == 3`, true),
		Entry(nil, `len(event.text) > 20`, false),
		Entry(nil, `lower(name) == "ada"`, true),
		Entry(nil, `(age > 18 ? "adult" : "minor") == "adult"`, true),
		Entry(nil, `filled(name)`, true),
		Entry(nil, `filled(city)`, false),
		Entry(nil, `empty(city)`, true),
		Entry(nil, `empty(age)`, false),
		Entry(nil, `exhausted(tries)`, false),
		Entry(nil, `all_filled()`, false),
		Entry(nil, `flow == ""`, true),
		Entry(nil, `waiting == ""`, true),
		Entry(nil, `state == "probe"`, true),
		Entry(nil, `now == 100`, true),
		Entry(nil, `event.intent == "inform"`, true),
		Entry(nil, `event.kind == "user"`, true),
		Entry(nil, `event.confidence > 0.5`, true),
		Entry(nil, `event.timer == ""`, true),
		Entry(nil, `event.entities.town == "Paris"`, true),
		Entry(nil, `event.entities.country == ""`, true),
		Entry(nil, `email("a@b.co")`, true),
		Entry(nil, `email("nope")`, false),
		Entry(nil, `email(mail) and not email(name)`, true),
		Entry(nil, `phone("+44 20 7946 0958")`, true),
		Entry(nil, `url("https://example.com/x")`, true),
		Entry(nil, `is_number("3.5")`, true),
		Entry(nil, `number("3.5") == 3.5`, true),
		Entry(nil, `number(event.value contains "hello" ? "4200" : "0") - age > 4000`, true),
		Entry(nil, `number(age) == 36`, true),
		Entry(nil, `text("   ")`, false),
		Entry(nil, `-age < 0`, true),
		Entry(nil, `abs(-3) == 3`, true),
		Entry(nil, `trim("  a ") == "a"`, true),
		Entry(nil, `upper(name) == "ADA"`, true),
		Entry(nil, `(vip ? 1 : 2) == 1`, true),
		Entry(nil, `not vip ? true : false`, false),
		Entry(nil, `name <= "Ab"`, false),
		Entry(nil, `name >= "Ab"`, true),
		// Literals and slots read without a closure (compiled shapes), on
		// either side, against the closures' results.
		Entry(nil, `"Ada" == name`, true),
		Entry(nil, `"Bob" != name`, true),
		Entry(nil, `36 == age`, true),
		Entry(nil, `40 == age + 4`, true),
		Entry(nil, `"a" == "a" and 2 == 2`, true),
		Entry(nil, `"a" == "b"`, false),
		Entry(nil, `city == ""`, true),
		Entry(nil, `"" != city`, false),
		Entry(nil, `vip == false`, false),
		Entry(nil, `age >= 37`, false),
		Entry(nil, `age > 35.5`, true),
		Entry(nil, `age <= 35`, false),
		Entry(nil, `tries + 1 < 3`, false),
		Entry(nil, `tries + 1 <= 3`, true),
		Entry(nil, `tries - 1 == 1`, true),
		Entry(nil, `email(city)`, false),
		Entry(nil, `email(name + "@b.co")`, true),
		Entry(nil, `valid(city)`, false),
		// Guards pick evaluates without closures (engine/shaped.go): a
		// literal on the left of an ordering, counters, and, or, and the
		// arithmetic applied in its closure.
		Entry(nil, `40 > age`, true),
		Entry(nil, `36 >= age and 36 <= age`, true),
		Entry(nil, `30 > age or 40 < age`, false),
		Entry(nil, `36 < age`, false),
		Entry(nil, `tries != 2`, false),
		Entry(nil, `2 >= tries and name == "Ada"`, true),
		Entry(nil, `name == "Bob" or tries > 1`, true),
		Entry(nil, `name != "Ada" or city != ""`, false),
		Entry(nil, `remaining() == 0 and age == 36`, true),
		Entry(nil, `valid(name) or remaining() != 0`, false),
		Entry(nil, `len(name)*10000 + len(mail)*100 + len(city) == 30800`, true),
		Entry(nil, `age / 4 - 9 == 0 and tries * 3 == 6`, true),
		// Formulas (engine/formula.go): terms of a slot and a literal on
		// either side, chains begun by a literal, a counter breaking the
		// chain into closures.
		Entry(nil, `age * 2 - len(name) * 3 + 1 == 64`, true),
		Entry(nil, `2 * age + 10 * len(name) == 102`, true),
		Entry(nil, `1 - age + 40 == 5`, true),
		Entry(nil, `age - 1 - tries == 33`, true),
		Entry(nil, `len(name) + len(mail) + len(city) - 11 == 0`, true),
		Entry(nil, `100 - len(name) * age + 0.5 == -7.5`, true),
		// A count plus or minus a literal is a test leaf too.
		Entry(nil, `tries + 1 < 3`, false),
		Entry(nil, `tries + 0.5 > 2.25`, true),
		Entry(nil, `tries - 0.5 == 1.5`, true),
		Entry(nil, `tries - 3 < 0 and remaining() + 1 == 1`, true),
		Entry(nil, `remaining() - 1 >= 0 or tries + 1 - 1 != 2`, false),
		Entry(nil, `tries * 2 - 1 == 3`, true),
	)

	It("renders say templates with placeholders of every kind", func() {
		m, err := et.New("say", "s").
			Intents("go").
			Slot("name", engine.TypeText).Slot("age", engine.TypeNumber).Slot("vip", engine.TypeBool).
			Counter("tries", 0).
			State("s", et.Waits(), et.On("go", "",
				et.Set("name", "event.value"), et.Set("age", "36.5"), et.Set("vip", "age > 30"), et.Incr("tries"),
				et.Say("{{hi}} {name}, {age}, {vip}, {tries}, {upper(name)}{name == \"x\" ? \"!\" : \".\"}"))).
			Build()
		Expect(err).NotTo(HaveOccurred())
		Expect(stepAll(m, &cfg, &res, "go=Ada")).To(Succeed())
		Expect(et.Says(&res)).To(Equal([]string{"{hi} Ada, 36.5, true, 1, ADA."}))
	})
})

var _ = Describe("arithmetic that is not a number", func() {
	var (
		cfg engine.Config
		res engine.Result
	)

	BeforeEach(func() {
		cfg, res = engine.Config{}, engine.Result{}
	})

	build := func() *engine.Machine {
		m, err := et.New("nan", "idle").
			Intents("divide", "lookup").
			Slot("x", engine.TypeNumber).Slot("ratio", engine.TypeNumber).
			External("lookup_ratio", "true").
			Output("lookup_ratio", "ratio", "x / x").
			State("idle", et.Waits(),
				et.On("divide", "idle", et.Set("x", "x / x")),
				et.On("lookup", "waiting", et.Invoke("lookup_ratio"))).
			State("waiting", et.Waits(), et.On("done:lookup_ratio", "idle")).
			Build()
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		return m
	}

	It("is a runtime error in the step that computes it (0/0 in a set)", func() {
		m := build()
		ev, err := et.ParseEvent(m, &cfg, "divide")
		Expect(err).NotTo(HaveOccurred())
		err = m.Step(&cfg, &ev, &res)
		Expect(err).To(MatchError(ContainSubstring(`in expression "x / x": the result is NaN, not a number`)))
		var rt *engine.RuntimeError
		Expect(errors.As(err, &rt)).To(BeTrue())
		Expect(rt.Pos.Col).To(BeNumerically(">", 0), "the position of the operator")
	})

	// The error is at the first operator whose result is not a number;
	// a formula (engine/formula.go) reports the one its closures did.
	DescribeTable("is a runtime error at the first operator that overflows",
		func(src string, at int) {
			m, err := et.New("inf", "idle").
				Intents("grow").
				Slot("x", engine.TypeNumber).
				State("idle", et.Waits(), et.On("grow", "idle", et.Set("x", src))).
				Build()
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Start(&cfg, 0, &res)).To(Succeed())
			id, _ := m.SlotID("x")
			cfg.SetSlot(id, engine.NumberValue(1e308))
			ev, err := et.ParseEvent(m, &cfg, "grow")
			Expect(err).NotTo(HaveOccurred())
			err = m.Step(&cfg, &ev, &res)
			Expect(err).To(MatchError(ContainSubstring(`in expression "` + src + `": the result is +Inf, not a number`)))
			var rt *engine.RuntimeError
			Expect(errors.As(err, &rt)).To(BeTrue())
			Expect(rt.Pos.Col).To(Equal(at), "got column %d, want %d (%q)", rt.Pos.Col, at, src[at:])
		},
		Entry("x + literal", "x + 1e308", 2),
		Entry("x * literal", "x * 10", 2),
		Entry("literal + x", "1e308 + x", 6),
		Entry("a formula's first operator", "x * 10 + 1 - x", 2),
		Entry("a formula's term's operator", "x + x * 10 - 1", 6),
		Entry("a formula's operator between terms", "x - 1 + x * 0.5 + x", 16),
		Entry("a formula's literal's term", "1 - x + 3 * x", 10),
	)

	It("is a runtime error when an action's output delivers it", func() {
		m := build()
		ev, err := et.ParseEvent(m, &cfg, "lookup")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
		x, _ := m.ExtID("lookup_ratio")
		var done engine.Event
		m.Invoke(&cfg, x, cfg.Now, &done)
		Expect(m.Step(&cfg, &done, &res)).To(MatchError(ContainSubstring("output ratio of action lookup_ratio is NaN, not a number")))
	})
})
