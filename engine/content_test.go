package engine_test

import (
	"fmt"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// path renders a result's trace steps as "from>to trigger".
func path(m *engine.Machine, r *engine.Result) []string {
	var out []string
	for _, st := range r.Steps {
		out = append(out, m.StateName(st.From)+">"+m.StateName(st.To)+" "+m.Transition(st.Trans).Trigger)
	}
	return out
}

// fireDue fires the pending timer (or send) due first.
func fireDue(m *engine.Machine, c *engine.Config, r *engine.Result) {
	t, ok := m.NextTimer(c)
	ExpectWithOffset(1, ok).To(BeTrue(), "a timer or send is pending")
	ev := engine.Event{Kind: engine.TimerEvent, Timer: t.ID, At: t.Deadline, Intent: engine.NoID, Ext: engine.NoID}
	ExpectWithOffset(1, m.Step(c, &ev, r)).To(Succeed())
}

func user(m *engine.Machine, intent string, at int64) engine.Event {
	id, ok := m.IntentID(intent)
	ExpectWithOffset(1, ok).To(BeTrue())
	return engine.Event{Kind: engine.UserEvent, Intent: id, At: at, Confidence: 1, Timer: engine.NoID, Ext: engine.NoID}
}

var _ = Describe("executable content and the internal queue", func() {
	var (
		cfg engine.Config
		res engine.Result
	)

	BeforeEach(func() {
		cfg, res = engine.Config{}, engine.Result{}
	})

	It("processes a raised event after the eventless transitions, within the same Step", func() {
		m, err := et.New("raise", "idle").Intents("go", "inner").
			State("idle", et.Waits(), et.On("go", "a", et.Raise("inner"), et.Log("", `"raised"`))).
			State("a", et.Always("b"), et.On("inner", "wrong")).
			State("b", et.Waits(), et.On("inner", "c")).
			State("c", et.Waits()).
			State("wrong", et.Waits()).
			Build()
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		ev := user(m, "go", 1)
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
		Expect(path(m, &res)).To(Equal([]string{"idle>a go", "a>b always", "b>c inner"}))
		Expect(et.Logs(&res)).To(Equal([]string{"raised"}))
	})

	It("matches event descriptors as the recommendation does: several names, and dot-separated prefixes", func() {
		m, err := et.New("descriptors", "idle").Intents("go", "error.execution", "error.communication", "done.invoke.x", "stop").
			State("idle", et.Waits(), et.On("go stop", "errors"), et.On("done.invoke.*", "idle")).
			State("errors", et.Waits(), et.On("error", "idle")).
			Build()
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		for _, step := range []struct{ intent, want string }{
			{"stop", "errors"}, {"error.communication", "idle"}, {"go", "errors"}, {"error.execution", "idle"}, {"done.invoke.x", "idle"},
		} {
			ev := user(m, step.intent, 1)
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			Expect(m.StateName(cfg.State)).To(Equal(step.want), step.intent)
		}
		Expect(m.Transition(0).Trigger).To(Equal("go stop"))
		_, err = et.New("descriptors", "idle").Intents("go").
			State("idle", et.Waits(), et.On("go gone", "idle")).Build()
		Expect(err).To(MatchError(ContainSubstring(`unknown intent "gone"`)))
	})

	It("reports a loop of raised events as a runaway chain", func() {
		m, err := et.New("loop", "idle").Intents("go", "again").MaxChain(20).
			State("idle", et.Waits(), et.On("go", "spin")).
			State("spin", et.Entry(et.Raise("again")), et.On("again", "spin")).
			Build()
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		ev := user(m, "go", 1)
		Expect(m.Step(&cfg, &ev, &res)).To(MatchError(ContainSubstring("did not settle after 20 steps")))
	})

	Describe("send and cancel_send on the virtual clock", func() {
		var m *engine.Machine

		BeforeEach(func() {
			var err error
			m, err = et.New("reminder", "idle").Intents("go", "stop", "remind", "now").
				State("idle", et.Waits(),
					et.On("go", "waiting", et.Send("remind", "r", "2000"), et.Send("remind", "r", "5000")),
					et.On("now", "idle", et.Send("remind", "", ""))).
				State("waiting", et.Waits(),
					et.On("remind", "reminded"),
					et.On("stop", "idle", et.CancelSend("r"))).
				State("reminded", et.Waits(), et.On("remind", "twice")).
				State("twice", et.Waits()).
				Build()
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		})

		It("delivers each delayed event at its deadline, the first one first", func() {
			ev := user(m, "go", 100)
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			t, ok := m.NextTimer(&cfg)
			Expect(ok).To(BeTrue())
			Expect(t.Deadline).To(Equal(int64(2100)))
			Expect(m.TimerName(t.ID)).To(Equal("send.remind#r"))
			fireDue(m, &cfg, &res)
			Expect(m.StateName(cfg.State)).To(Equal("reminded"))
			Expect(cfg.Now).To(Equal(int64(2100)))
			fireDue(m, &cfg, &res)
			Expect(m.StateName(cfg.State)).To(Equal("twice"))
			Expect(cfg.Now).To(Equal(int64(5100)))
		})

		It("cancels every pending send with the sendid", func() {
			ev := user(m, "go", 100)
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			ev = user(m, "stop", 200)
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			_, ok := m.NextTimer(&cfg)
			Expect(ok).To(BeFalse())
			Expect(res.Effects).To(HaveLen(2))
			Expect(res.Effects[0].Kind).To(Equal(engine.EffCancelTimer))
		})

		It("makes a send without delay the next event due, after the step", func() {
			ev := user(m, "now", 100)
			Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
			Expect(m.StateName(cfg.State)).To(Equal("idle"))
			t, ok := m.NextTimer(&cfg)
			Expect(ok).To(BeTrue())
			Expect(t.Deadline).To(Equal(int64(100)))
			late := user(m, "go", 150)
			Expect(m.Step(&cfg, &late, &res)).To(MatchError(ContainSubstring("skips timer send.remind")))
		})
	})

	It("rejects a cancel_send whose id no send has, and a raise of an undeclared event", func() {
		_, err := et.New("bad", "idle").Intents("go").
			State("idle", et.Waits(), et.On("go", "idle", et.CancelSend("nope"), et.Raise("ghost"))).
			Build()
		Expect(err).To(MatchError(SatisfyAll(ContainSubstring(`raise: unknown event "ghost"`))))
		var be *engine.BuildError
		Expect(err).To(BeAssignableToTypeOf(be))
		msgs := []string{}
		for _, d := range err.(*engine.BuildError).Diags {
			msgs = append(msgs, d.Msg)
		}
		Expect(msgs).To(ContainElement(`cancel_send: no send has id "nope"`))
	})

	It("runs if/elseif/else, foreach, assign and log with the expression language", func() {
		m, err := et.New("content", "idle").Intents("go").
			Slot("n", engine.TypeNumber).Slot("items", engine.TypeText).
			Slot("item", engine.TypeText).Slot("i", engine.TypeNumber).Slot("seen", engine.TypeText).
			State("idle", et.Waits(), et.On("go", "idle",
				et.Assign("items", `"a|b|c"`),
				et.Foreach("items", "item", "i",
					et.Set("seen", `seen + item`),
					et.If(et.Then(`i == 0`, et.Log("first", "item")),
						et.Then(`i == 1`, et.Log("second", "item")),
						et.Else(et.Log("other", "item")))),
				et.Assign("n", "i + 1"))).
			Build()
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		ev := user(m, "go", 1)
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
		Expect(et.Logs(&res)).To(Equal([]string{"first: a", "second: b", "other: c"}))
		seen, _ := m.SlotID("seen")
		n, _ := m.SlotID("n")
		Expect(cfg.Slot(seen).String()).To(Equal("abc"))
		Expect(cfg.Slot(n).String()).To(Equal("3"))
	})

	It("has no scripts and no event data in the expression language", func() {
		_, err := et.New("script", "idle").Intents("go").
			State("idle", et.Waits(), et.On("go", "idle", et.Script("x = 1"))).
			Build()
		Expect(err).To(MatchError(ContainSubstring("script: the expression language has no scripts")))
		_, err = et.New("data", "idle").Intents("go").
			State("idle", et.Waits(), et.On("go", "idle", et.WithData(et.Raise("go"), `"x"`))).
			Build()
		Expect(err).To(MatchError(ContainSubstring("event data needs a data model")))
	})

	It("gives done.state the value of the final state's donedata", func() {
		m, err := et.New("done", "task").Intents("go").Slot("result", engine.TypeText).
			State("task", et.Initial("work"), et.On("done.state.task", "idle", et.Set("result", "event.value"))).
			State("task.work", et.Waits(), et.On("go", "end")).
			State("task.end", et.Final(), et.DoneData(`"ok"`)).
			State("idle", et.Waits()).
			Build()
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		ev := user(m, "go", 1)
		Expect(m.Step(&cfg, &ev, &res)).To(Succeed())
		Expect(m.StateName(cfg.State)).To(Equal("idle"))
		id, _ := m.SlotID("result")
		Expect(cfg.Slot(id).String()).To(Equal("ok"))
	})

	Describe("a data model outside the Config", func() {
		var (
			m  *engine.Machine
			dm *toyModel
		)

		build := func() {
			var err error
			dm = &toyModel{}
			m, err = et.New("counter", "idle").Intents("go").
				DataModel(dm).
				State("idle", et.Waits(),
					et.OnIf("go", "x >= 3", "full"),
					et.On("go", "idle", et.Assign("x", "x+1"), et.Script("y=x"),
						et.Foreach("3", "item", "", et.Script("z=item")), et.Log("x", "x"))).
				State("full", et.Waits(), et.On("go", "idle", et.Assign("x", "nonsense"))).
				State("broken", et.Waits()).
				Build()
			Expect(err).NotTo(HaveOccurred())
		}

		It("evaluates conditions, assignments, scripts and foreach through the Data", func() {
			build()
			d := newToyData(dm)
			Expect(m.StartWith(&cfg, d, 0, &res)).To(Succeed())
			for i := 1; i <= 3; i++ {
				ev := user(m, "go", int64(i))
				Expect(m.StepWith(&cfg, d, &ev, &res)).To(Succeed())
				Expect(et.Logs(&res)).To(Equal([]string{fmt.Sprintf("x: %d", i)}))
			}
			Expect(d.vars).To(Equal(map[string]int{"x": 3, "y": 3, "item": 2, "z": 2}))
			ev := user(m, "go", 4)
			Expect(m.StepWith(&cfg, d, &ev, &res)).To(Succeed())
			Expect(m.StateName(cfg.State)).To(Equal("full"))
		})

		It("keeps a configuration with the data's Save and steps on from it after Restore", func() {
			build()
			d := newToyData(dm)
			Expect(m.StartWith(&cfg, d, 0, &res)).To(Succeed())
			ev := user(m, "go", 1)
			Expect(m.StepWith(&cfg, d, &ev, &res)).To(Succeed())
			saved, ok := d.Save()
			Expect(ok).To(BeTrue())
			kept, print := cfg, d.Fingerprint()
			ev = user(m, "go", 2)
			Expect(m.StepWith(&cfg, d, &ev, &res)).To(Succeed())
			Expect(d.Fingerprint()).NotTo(Equal(print))
			cfg = kept
			Expect(d.Restore(saved)).To(BeTrue())
			Expect(d.Fingerprint()).To(Equal(print))
			Expect(m.StepWith(&cfg, d, &ev, &res)).To(Succeed())
			Expect(d.vars["x"]).To(Equal(2))
		})

		It("fails the step on an expression error, or raises error.execution when the machine listens", func() {
			build()
			d := newToyData(dm)
			d.vars["x"] = 3
			Expect(m.StartWith(&cfg, d, 0, &res)).To(Succeed())
			ev := user(m, "go", 1)
			Expect(m.StepWith(&cfg, d, &ev, &res)).To(Succeed())
			ev = user(m, "go", 2)
			Expect(m.StepWith(&cfg, d, &ev, &res)).To(MatchError(ContainSubstring(`"nonsense" is not a number`)))

			dm = &toyModel{}
			m2, err := et.New("counter", "idle").Intents("go", engine.ErrorExecution).
				DataModel(dm).
				State("idle", et.Waits(), et.On("go", "idle", et.Assign("x", "nonsense")),
					et.On(engine.ErrorExecution, "broken")).
				State("broken", et.Waits()).
				Build()
			Expect(err).NotTo(HaveOccurred())
			d = newToyData(dm)
			Expect(m2.StartWith(&cfg, d, 0, &res)).To(Succeed())
			ev = user(m2, "go", 1)
			Expect(m2.StepWith(&cfg, d, &ev, &res)).To(Succeed())
			Expect(m2.StateName(cfg.State)).To(Equal("broken"))
		})
	})
})

// toyModel is a data model of integer variables, enough to check the
// interface: a condition is "VAR >= N", a value a number or a variable,
// "VAR+1" an increment, a script "VAR=VAR", a foreach array a count.
type toyModel struct{ codes []string }

func (t *toyModel) Compile(kind engine.CodeKind, x engine.Expr) (engine.Code, error) {
	t.codes = append(t.codes, x.Src)
	return engine.Code(len(t.codes) - 1), nil
}

func (t *toyModel) NewData(*engine.Machine, string) engine.Data { return newToyData(t) }

type toyData struct {
	vars map[string]int
	dm   *toyModel
}

func newToyData(dm *toyModel) *toyData { return &toyData{vars: map[string]int{}, dm: dm} }

func (d *toyData) src(x engine.Code) string { return d.dm.codes[x] }

func (d *toyData) value(s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, nil
	}
	if v, ok := strings.CutSuffix(s, "+1"); ok {
		return d.vars[v] + 1, nil
	}
	if n, ok := d.vars[s]; ok || s == "x" {
		return n, nil
	}
	return 0, fmt.Errorf("%q is not a number", s)
}

func (d *toyData) Cond(x engine.Code, _ *engine.Config, _ *engine.Event) (bool, error) {
	v, n, _ := strings.Cut(d.src(x), " >= ")
	k, err := strconv.Atoi(n)
	return d.vars[v] >= k, err
}

func (d *toyData) Value(x engine.Code, _ *engine.Config, _ *engine.Event) (engine.Value, error) {
	n, err := d.value(d.src(x))
	return engine.NumberValue(float64(n)), err
}

func (d *toyData) Assign(loc, x engine.Code, _ *engine.Config, _ *engine.Event) error {
	n, err := d.value(d.src(x))
	if err == nil {
		d.vars[d.src(loc)] = n
	}
	return err
}

func (d *toyData) Script(x engine.Code, _ *engine.Config, _ *engine.Event) error {
	dst, src, _ := strings.Cut(d.src(x), "=")
	n, err := d.value(src)
	d.vars[dst] = n
	return err
}

func (d *toyData) Foreach(x, item, index engine.Code, _ *engine.Config, _ *engine.Event, body func() error) error {
	n, err := d.value(d.src(x))
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		d.vars[d.src(item)] = i
		if err := body(); err != nil {
			return err
		}
	}
	return nil
}

func (d *toyData) Hold(x engine.Code, key uint32, _ *engine.Config, _ *engine.Event) error {
	n, err := d.value(d.src(x))
	d.vars[fmt.Sprint("held", key)] = n
	return err
}

func (d *toyData) Take(key uint32) {
	d.vars["data"] = d.vars[fmt.Sprint("held", key)]
	d.Drop(key)
}

func (d *toyData) Drop(key uint32) { delete(d.vars, fmt.Sprint("held", key)) }

func (d *toyData) Save() (any, bool) {
	out := map[string]int{}
	for k, v := range d.vars {
		out[k] = v
	}
	return out, true
}

func (d *toyData) Restore(saved any) bool {
	d.vars = map[string]int{}
	for k, v := range saved.(map[string]int) {
		d.vars[k] = v
	}
	return true
}

func (d *toyData) Fingerprint() uint64 {
	var h uint64
	for k, v := range d.vars {
		h += uint64(len(k))*1_000_003 + uint64(v)*7919*uint64(k[0])
	}
	return h
}
