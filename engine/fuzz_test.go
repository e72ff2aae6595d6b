package engine_test

// FuzzExpr feeds arbitrary text to the expression compiler in each place a
// machine uses one: as a guard (Machine.Condition and a transition's
// guard), as a fill expression (any result kind) and as a say-template
// placeholder. Whatever the text, compiling gives a closure or an *Error
// positioned at or after the expression's own position, and a closure
// evaluates without a panic on any configuration a conversation can reach.
// The seed corpus is testdata/fuzz/FuzzExpr; `make fuzz-short` and `make
// fuzz` mutate it.

import (
	"math"
	"sync"
	"testing"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// exprPos is where the fuzzed expression claims to start in its file.
var exprPos = engine.Pos{File: "fuzz.yaml", Line: 3, Col: 7}

// exprMachine returns a machine with every kind of name an expression may
// read (slots of each type, counters with and without a limit, a timer, a
// flow, an external action, validators, parameters), whose state probe
// waits for a name and takes inform with the given parts.
func exprMachine(parts ...et.Part) *et.Builder {
	b := et.New("probe", "probe").
		Intents("inform", "other").
		Slot("name", engine.TypeText).Slot("age", engine.TypeNumber).Slot("vip", engine.TypeBool).
		Slot("email", engine.TypeText).Slot("town", engine.TypeText).
		Counter("tries", 3).Counter("seen", 0).
		Timer("nudge", 1000).
		Flow("trip", "name", "age", "town").
		External("lookup", `name != ""`).Output("lookup", "town", `"Paris"`).
		Param("mode", engine.TypeText, "fast", "fast", "slow").
		Param("strict", engine.TypeBool, "true").
		Param("limit", engine.TypeNumber, "2.5").
		State("probe", append([]et.Part{et.Waits(), et.Entry(et.Push("trip"), et.Ask("name"))}, parts...)...).
		State("yes", et.Waits(), et.On("other", "probe")).
		State("no", et.Final())
	d := b.Def()
	d.Validators = append(d.Validators,
		engine.ValidatorDef{Name: "city", OneOf: []string{"Paris", "Rome"}},
		engine.ValidatorDef{Name: "digits", Regex: `^[0-9]+$`})
	return b
}

var fixedExprMachine = sync.OnceValues(func() (*engine.Machine, error) {
	return exprMachine(et.On("inform", "yes")).Build()
})

// exprConfigs returns configurations of m to evaluate a condition on: just
// started, with every slot and counter set, and with extreme values and
// nothing waited for.
func exprConfigs(t *testing.T, m *engine.Machine) []engine.Config {
	var (
		c   engine.Config
		res engine.Result
	)
	if err := m.Start(&c, 0, &res); err != nil {
		t.Fatalf("starting the fixed machine: %v", err)
	}
	set := func(c *engine.Config, slot string, v engine.Value) {
		if id, ok := m.SlotID(slot); ok {
			c.SetSlot(id, v)
		}
	}
	full := c
	full.Now = 12345
	set(&full, "name", engine.TextValue("Ada"))
	set(&full, "age", engine.NumberValue(36))
	set(&full, "vip", engine.BoolValue(true))
	set(&full, "email", engine.TextValue("ada@b.co"))
	set(&full, "town", engine.TextValue("Paris"))
	full.Counters[0], full.Counters[1] = 3, 7
	odd := c
	odd.Now = math.MaxInt64
	odd.Waiting = engine.NoID
	odd.FlowDepth = 0
	set(&odd, "name", engine.TextValue("\x00\xff\u2028"))
	set(&odd, "age", engine.NumberValue(math.NaN()))
	set(&odd, "town", engine.TextValue(""))
	odd.Counters[0], odd.Counters[1] = math.MaxInt32, math.MinInt32
	return []engine.Config{c, full, odd}
}

// checkExprErr asserts that a compile error is an *engine.Error placed at
// or after from, in its file.
func checkExprErr(t *testing.T, src string, from engine.Pos, err error) {
	t.Helper()
	e, ok := err.(*engine.Error)
	if !ok {
		t.Fatalf("%q: got error %T %v, want an *engine.Error", src, err, err)
	}
	p := e.Pos
	if p.File != from.File || p.Line < from.Line || p.Col < 1 || (p.Line == from.Line && p.Col < from.Col) {
		t.Fatalf("%q: error %q at %v, want a position at or after %v", src, e.Msg, p, from)
	}
}

// buildAndStep builds b and, when it builds, starts it and sends inform
// with entities, so the expression is evaluated on a live event. Only
// errors from the fuzzed expression are expected.
func buildAndStep(t *testing.T, src string, from engine.Pos, b *et.Builder) bool {
	t.Helper()
	m, diags := engine.Build(b.Def())
	if m == nil {
		for _, d := range diags {
			if !d.Warning {
				checkExprErr(t, src, from, d)
			}
		}
		return false
	}
	var (
		c   engine.Config
		res engine.Result
	)
	if m.Start(&c, 0, &res) != nil {
		return true
	}
	ev := engine.Event{Kind: engine.UserEvent, At: 10, Text: "Ada from Paris", Value: "Ada", Confidence: 0.5}
	ev.Intent, _ = m.IntentID("inform")
	if id, ok := m.EntityID("town"); ok {
		ev.AddEntity(id, engine.TextValue("Paris"))
	}
	if id, ok := m.EntityID("name"); ok {
		ev.AddEntity(id, engine.TextValue("Ada"))
	}
	_ = m.Step(&c, &ev, &res)
	return true
}

func FuzzExpr(f *testing.F) {
	f.Fuzz(func(t *testing.T, src string) {
		m, err := fixedExprMachine()
		if err != nil {
			t.Fatalf("building the fixed machine: %v", err)
		}
		x := engine.Expr{Src: src, Pos: exprPos}
		cond, err := m.Condition(x)
		if err != nil {
			checkExprErr(t, src, exprPos, err)
		} else {
			for _, c := range exprConfigs(t, m) {
				cond(&c)
			}
		}

		// The same text as a transition's guard builds exactly when
		// Condition compiles it (no text at all is no guard).
		guard := exprMachine(et.OnIf("inform", src, "yes"), et.On("inform", "no"))
		guard.Def().States[0].On[0].Guard.Pos = exprPos
		if built := buildAndStep(t, src, exprPos, guard); src != "" && built != (err == nil) {
			t.Fatalf("%q: Condition error %v, but as a guard the machine builds: %t", src, err, built)
		}

		fill := exprMachine(et.On("inform", "yes", et.Fill(src)))
		fill.Def().States[0].On[0].Actions[0].Expr.Pos = exprPos
		buildAndStep(t, src, exprPos, fill)

		say := exprMachine(et.On("inform", "yes", et.Say("{"+src+"}")))
		sayPos := exprPos
		sayPos.Col--
		say.Def().States[0].On[0].Actions[0].Pos = sayPos
		buildAndStep(t, src, sayPos, say)
	})
}
