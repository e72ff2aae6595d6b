package scxml_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
	"github.com/simctl/simctl/scxml"
)

// cart is an order in ECMAScript on the engine: items are kept in an
// array, the cart is full at three, and checkout lists them.
func cart() (*engine.Machine, *scxml.ECMAScript) {
	dm := scxml.NewECMAScript()
	m, err := et.New("cart", "shopping").Intents("add", "checkout", "clock", engine.ErrorExecution).
		DataModel(dm).
		State("shopping", et.Waits(), et.Entry(et.Script("items = []; total = 0")),
			et.OnIf("add", "items.length >= 2", "full", et.Script("items.push(_event.data)")),
			et.On("add", "", et.Assign("total", "total + _event.data.price"), et.Script("items.push(_event.data)")),
			et.OnIf("clock", "Date.now() === 5000 && In('shopping')", "", et.Log("time", "Date.now()"))).
		State("full", et.Waits(),
			et.On("checkout", "done",
				et.Foreach("items", "item", "i", et.Log("", "i + ':' + item.name")),
				et.Assign("total", "total +"))).
		State("done", et.Waits(), et.On(engine.ErrorExecution, "broken")).
		State("broken", et.Waits()).
		Build()
	Expect(err).NotTo(HaveOccurred())
	return m, dm
}

func event(m *engine.Machine, intent, data string, at int64) *engine.Event {
	id, ok := m.IntentID(intent)
	Expect(ok).To(BeTrue())
	return &engine.Event{Kind: engine.UserEvent, Intent: id, Value: data, At: at, Confidence: 1, Timer: engine.NoID, Ext: engine.NoID}
}

var _ = Describe("the ECMAScript data model on the engine", func() {
	var (
		m   *engine.Machine
		d   engine.Data
		cfg engine.Config
		res engine.Result
	)

	BeforeEach(func() {
		var dm *scxml.ECMAScript
		m, dm = cart()
		d = dm.NewData(m, "s1")
		cfg, res = engine.Config{}, engine.Result{}
		Expect(m.StartWith(&cfg, d, 0, &res)).To(Succeed())
	})

	add := func(name string, price int, at int64) {
		GinkgoHelper()
		Expect(m.StepWith(&cfg, d, event(m, "add", fmt.Sprintf(`{"name":%q,"price":%d}`, name, price), at), &res)).To(Succeed())
	}

	It("runs guards, assignments, scripts, foreach and log in the conversation's heap, with _event and In()", func() {
		add("tea", 3, 1)
		add("cake", 4, 2)
		Expect(m.StateName(cfg.State)).To(Equal("shopping"))
		add("jam", 5, 3)
		Expect(m.StateName(cfg.State)).To(Equal("full"))
		Expect(m.StepWith(&cfg, d, event(m, "checkout", "", 4), &res)).To(Succeed())
		Expect(et.Logs(&res)).To(Equal([]string{"0:tea", "1:cake", "2:jam"}))
		// total + does not compile: it raises error.execution.
		Expect(m.StateName(cfg.State)).To(Equal("broken"))
	})

	It("reads the virtual clock through Date", func() {
		Expect(m.StepWith(&cfg, d, event(m, "clock", "", 5000), &res)).To(Succeed())
		Expect(et.Logs(&res)).To(Equal([]string{"time: 5000"}))
	})

	It("steps on from a stored configuration: Save with the Config, Restore, and the same step gives the same result", func() {
		add("tea", 3, 1)
		saved, ok := d.Save()
		Expect(ok).To(BeTrue())
		kept, print := cfg, d.Fingerprint()
		add("cake", 4, 2)
		add("jam", 5, 3)
		after, afterPrint := cfg, d.Fingerprint()
		Expect(afterPrint).NotTo(Equal(print))

		cfg = kept
		Expect(d.Restore(saved)).To(BeTrue())
		Expect(d.Fingerprint()).To(Equal(print))
		add("cake", 4, 2)
		add("jam", 5, 3)
		Expect(cfg).To(Equal(after))
		Expect(d.Fingerprint()).To(Equal(afterPrint))
	})

	Describe("events with data", func() {
		BeforeEach(func() {
			dm := scxml.NewECMAScript()
			var err error
			m, err = et.New("courier", "idle").Intents("ship", "arrive", "note", "cancel").DataModel(dm).
				State("idle", et.Waits(), et.On("ship", "transit",
					et.WithData(et.Send("arrive", "parcel", "1000"), "({from: 'depot', n: 2})"),
					et.WithData(et.Raise("note"), "'packed'"))).
				State("transit", et.Waits(),
					et.On("note", "", et.Log("note", "_event.data")),
					et.OnIf("arrive", "_event.data.n === 2", "idle", et.Log("from", "_event.data.from")),
					et.On("cancel", "idle", et.CancelSend("parcel"))).
				Build()
			Expect(err).NotTo(HaveOccurred())
			d = dm.NewData(m, "s2")
			cfg, res = engine.Config{}, engine.Result{}
			Expect(m.StartWith(&cfg, d, 0, &res)).To(Succeed())
		})

		fire := func() {
			GinkgoHelper()
			t, ok := m.NextTimer(&cfg)
			Expect(ok).To(BeTrue())
			ev := engine.Event{Kind: engine.TimerEvent, Timer: t.ID, At: t.Deadline, Intent: engine.NoID, Ext: engine.NoID}
			Expect(m.StepWith(&cfg, d, &ev, &res)).To(Succeed())
		}

		It("gives a raised event and a delayed send their data as _event.data, held in the heap while pending", func() {
			before := d.Fingerprint()
			Expect(m.StepWith(&cfg, d, event(m, "ship", "", 1), &res)).To(Succeed())
			Expect(et.Logs(&res)).To(Equal([]string{"note: packed"}))
			pending := d.Fingerprint()
			Expect(pending).NotTo(Equal(before))
			saved, ok := d.Save()
			Expect(ok).To(BeTrue())
			kept := cfg

			fire()
			Expect(et.Logs(&res)).To(Equal([]string{"from: depot"}))
			Expect(m.StateName(cfg.State)).To(Equal("idle"))

			cfg = kept
			Expect(d.Restore(saved)).To(BeTrue())
			Expect(d.Fingerprint()).To(Equal(pending))
			fire()
			Expect(et.Logs(&res)).To(Equal([]string{"from: depot"}))
		})

		It("forgets the data of a cancelled send", func() {
			before := d.Fingerprint()
			Expect(m.StepWith(&cfg, d, event(m, "ship", "", 1), &res)).To(Succeed())
			Expect(m.StepWith(&cfg, d, event(m, "cancel", "", 2), &res)).To(Succeed())
			Expect(d.Fingerprint()).To(Equal(before))
		})
	})
})

// The heap's globals are listed again only after an expression that may
// make or delete one: bareWrites must see every way a script does.
var _ = DescribeTable("the globals an expression may assign",
	func(src string, want []string, ok bool) {
		names, got := scxml.BareWrites(src)
		Expect(got).To(Equal(ok))
		if ok {
			Expect(names).To(Equal(want))
		}
	},
	Entry("a member assignment", "order.toppings.push('cheese'); order.qty = 2", []string(nil), true),
	Entry("an index assignment", "o.list[0] = o.list[o.list.length - 1]", []string(nil), true),
	Entry("a comparison", "a <= b && c >= d && e != f && g == h && i === j", []string(nil), true),
	Entry("a global", "made = n", []string{"made"}, true),
	Entry("compound and chained", "x += 1; y <<= 2; z = w = 3; q >>>= 1; r ??= 0", []string{"x", "y", "z", "w", "q", "r"}, true),
	Entry("increments", "i++; --j; k.n++", []string{"i", "j"}, true),
	Entry("a string holding an assignment", `s == 'a = b'`, []string(nil), true),
	Entry("var", "var t = 1", nil, false),
	Entry("a function", "f = function () { x = 1 }", nil, false),
	Entry("an arrow", "a.map(v => v)", nil, false),
	Entry("this", "this.x = 1", nil, false),
	Entry("globalThis", "globalThis['x'] = 1", nil, false),
	Entry("eval", "(0, eval)('x = 1')", nil, false),
	Entry("delete", "delete made", nil, false),
	Entry("a constructor", "o.constructor.constructor('x = 1')()", nil, false),
	Entry("an array destructured", "[a, b] = [1, 2]", nil, false),
	Entry("an array destructured after return", "return [a] = [1]", nil, false),
	Entry("an object destructured", "({a} = o)", nil, false),
	Entry("a parenthesized global", "(x) = 1", nil, false),
	Entry("a loop", "for (k in o) n++", nil, false),
	Entry("_event", "x.d = _event.data", nil, false),
	Entry("_event's name", "s = s + _event.name.substr(6)", []string{"s"}, true),
	Entry("_event's field named like its name", "x = _event.names", nil, false),
	Entry("a template string", "s = `${x = 1}`", nil, false),
	Entry("a comment", "x.a = 1 // y = 2", nil, false),
	Entry("an unterminated string", "x = 'a", nil, false),
)
