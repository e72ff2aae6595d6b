package generate

import (
	"slices"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/sim"
)

// Act is one turn of a simulated user's behaviour: what kind of thing it
// does, and a choice among the values or goals that apply (taken modulo
// their number). Shrinking moves Kind towards Follow and Pick towards 0.
type Act struct {
	Kind Kind
	Pick uint8
	// Fail: the external actions this turn sets off fail (those that may).
	// Shrinking moves it towards false.
	Fail bool
}

// Conversation is one drawn conversation: the goal, a value choice per goal
// slot, and the user's acts, one per turn.
type Conversation struct {
	Goal   uint8
	Values []uint8
	Acts   []Act
}

// Turn is one turn a simulated user took, as a scenario would write it.
type Turn struct {
	// Role is the phrase role said ("cancel", "human", ...), or "".
	Role     string
	User     string
	Intent   string // an event turn, when the NLU has no phrase for the intent
	WaitMS   int64
	IsWait   bool
	Schedule []int // the fork branches picked, in order
	// Parsed is the event the machine got for User when the NLU noise
	// changed the parse (noise.go), or the event a choice was answered
	// with; the turn is written as that event.
	Parsed *engine.Event
	// Fail lists the external actions that failed in this turn.
	Fail []string
}

// Outcome is what happened in a played conversation.
type Outcome struct {
	Turns          int
	Success        bool
	SuccessTurn    int // the turn the goal was achieved in
	Escalated      bool
	Cancelled      bool
	Ended          bool // the task ended (final state, or back to idle) before the acts ran out
	Violations     []eval.Violation
	ViolationCount int
	Recorded       []Turn
}

// Player plays conversations on one driver, reusing it.
type Player struct {
	stub    *sim.Stub
	mo      *Model
	d       *sim.Driver
	checker *eval.Checker
	w       watcher
	// Record keeps the turns taken, for writing scenarios.
	Record bool
	all    []sim.Observer
}

// quiet detaches the caller's observers (coverage, latency), so that the
// conversations played while shrinking do not count as part of the run.
func (p *Player) quiet(on bool) {
	if on {
		p.d.Observers = p.all[:2]
	} else {
		p.d.Observers = p.all
	}
}

// NewPlayer returns a player for the model's machine. extra observers (say,
// coverage) see every step too.
func NewPlayer(mo *Model, stub *sim.Stub, extra ...sim.Observer) *Player {
	p := &Player{mo: mo, stub: stub, d: sim.NewDriver(mo.m, stub, stub), checker: eval.NewChecker(mo.m)}
	p.w.m = mo.m
	p.d.Observers = append([]sim.Observer{p.checker, &p.w}, extra...)
	p.all = p.d.Observers
	return p
}

// watcher follows progress towards the goal during a conversation.
type watcher struct {
	m         *engine.Machine
	want      []engine.SlotID
	values    []string
	filled    []bool
	done      bool
	escalated bool
	// results: some external action's result came back; lastDone: the
	// last one was a success.
	results, lastDone bool
}

func (w *watcher) reset(slots []engine.SlotID, values []string) {
	w.want, w.values = slots, values
	w.filled = append(w.filled[:0], make([]bool, len(slots))...)
	w.done, w.escalated, w.results, w.lastDone = false, false, false, false
}

// Observe implements sim.Observer.
func (w *watcher) Observe(st *eval.Step) {
	for i, s := range w.want {
		if v := st.After.Slot(s); !v.IsEmpty() && (v.Str == w.values[i] || v.String() == w.values[i]) {
			w.filled[i] = true
		}
	}
	if ev := st.Event; ev != nil && ev.Kind == engine.DoneEvent && st.Result.Handled {
		w.done = true
	}
	if ev := st.Event; ev != nil && ev.Branch == 0 && (ev.Kind == engine.DoneEvent || ev.Kind == engine.FailedEvent) {
		w.results, w.lastDone = true, ev.Kind == engine.DoneEvent
	}
	for i := range st.Result.Effects {
		if st.Result.Effects[i].Kind == engine.EffEscalate {
			w.escalated = true
		}
	}
}

// achieved is a goal's own success: condition, checked after every turn.
func (w *watcher) achieved(c *engine.Config, g *goal) bool {
	return g.success != nil && g.success(c)
}

// completed is the default success, judged when the task ends: the goal's
// flow was completed, not abandoned. Every goal slot was seen holding the
// goal's value; the user did not cancel and nobody escalated; and, on a
// machine that invokes external actions, the last result before the end
// was a success (the flow's final action done: not a pre-check done early
// and the order refused or dropped later).
func (w *watcher) completed(needAction, cancelled bool) bool {
	for _, f := range w.filled {
		if !f {
			return false
		}
	}
	return !cancelled && !w.escalated && (w.lastDone || (!needAction && !w.results))
}

// Play runs one conversation from the machine's start and reports what
// happened. It stops when the task ends (a final state, or back in the
// initial state with no flow after the user has asked for something), when
// the acts run out, or at an engine error (a runtime_error violation).
func (p *Player) Play(conv Conversation, seed uint64) Outcome {
	mo, d := p.mo, p.d
	var out Outcome
	p.checker.Reset()
	g := &mo.goals[int(conv.Goal)%len(mo.goals)]
	values := make([]string, len(g.slots))
	for i := range g.slots {
		pick := 0
		if i < len(conv.Values) {
			pick = int(conv.Values[i])
		}
		values[i] = g.values[i][pick%len(g.values[i])]
	}
	// The machine stores what the NLU makes of a value ("Madrid" becomes
	// MAD); progress is judged on that.
	want := make([]string, len(values))
	for i, v := range values {
		want[i] = p.stub.Normalize(g.slots[i], v)
	}
	p.w.reset(g.slots, want)
	d.Rand = newRand(seed)
	p.resetNoise(seed)
	d.Fail = d.Fail[:0]
	err := d.Start(0)
	requested := false
	cooperative := true
	for _, act := range conv.Acts {
		if err != nil {
			break
		}
		c := &d.Cfg
		if c.Final || (requested && p.idle()) {
			out.Ended = true
			break
		}
		if act.Kind != Follow {
			cooperative = false
		}
		if act.Fail {
			// A backend failing is not the user cooperating: bounded
			// liveness asks for an end when everyone cooperates.
			cooperative = false
		}
		p.failing(act.Fail)
		var t Turn
		t, requested, err = p.turn(act, g, values, requested)
		if act.Fail {
			t.Fail = p.failed()
		}
		if p.noisyTurn(&t) {
			// The machine did not hear what the user said: the user's
			// cooperation does not bind it (bounded liveness).
			cooperative = false
		}
		// A turn the engine failed on is recorded too: it is the one that
		// shows the runtime error.
		if p.Record {
			t.Schedule = append([]int(nil), d.Picks...)
			out.Recorded = append(out.Recorded, t)
		}
		out.Turns++
		if err == nil {
			p.checker.EndOfTurn(d.Turn, &d.Cfg)
		}
		if t.Role == "cancel" {
			out.Cancelled = true
		}
		if !out.Success && p.w.achieved(&d.Cfg, g) {
			out.Success, out.SuccessTurn = true, out.Turns
			// Agenda empty: the user has what they came for and stops.
			out.Ended = true
			break
		}
	}
	d.Fail = d.Fail[:0]
	if err == nil && !out.Ended && (d.Cfg.Final || (requested && p.idle())) {
		out.Ended = true
	}
	if g.success == nil && out.Ended && err == nil && p.w.completed(mo.invokes, out.Cancelled) {
		out.Success, out.SuccessTurn = true, out.Turns
	}
	out.Escalated = p.w.escalated
	out.Violations = append(out.Violations, p.checker.Violations...)
	out.ViolationCount = p.checker.Count
	if err != nil {
		out.Violations = append(out.Violations, eval.Violation{Invariant: eval.RuntimeError, Turn: d.Turn, Msg: err.Error(),
			After: mo.m.Describe(&d.Cfg)})
		out.ViolationCount++
	} else if cooperative && len(conv.Acts) >= mo.maxTurns && !out.Ended {
		// Bounded liveness: a user who always cooperates must see the
		// task end within the suite's turn bound.
		out.Violations = append(out.Violations, eval.Violation{Invariant: eval.Liveness, Turn: d.Turn,
			Msg:   "a cooperative user did not reach a final or idle state within the turn bound",
			After: mo.m.Describe(&d.Cfg)})
		out.ViolationCount++
	}
	return out
}

func hasExternal(m *engine.Machine) bool {
	for i := 0; i < m.NumActions(); i++ {
		if k, _, _ := m.ActionInfo(uint32(i)); k == engine.ActInvoke {
			return true
		}
	}
	return false
}

// failing makes every external action that may fail fail during the next
// turn, or none.
func (p *Player) failing(on bool) {
	d := p.d
	d.Fail = d.Fail[:0]
	if !on {
		return
	}
	for x := 0; x < p.mo.m.NumExternals(); x++ {
		d.Fail = append(d.Fail, p.mo.m.MayFail(engine.ExtID(x)))
	}
}

// failed names the actions the turn just played invoked and failed.
func (p *Player) failed() []string {
	var out []string
	for _, x := range p.d.Info.Invoked {
		if int(x) < len(p.d.Fail) && p.d.Fail[x] {
			name := p.mo.m.ExtName(x)
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// idle reports whether the conversation is back where it started, with
// nothing under way.
func (p *Player) idle() bool {
	return p.mo.m.IsIdle(&p.d.Cfg)
}

// turn decides and plays what the user does for act, agenda-style: start
// the task, answer what is asked, confirm; or stray as act says.
func (p *Player) turn(act Act, g *goal, values []string, requested bool) (Turn, bool, error) {
	mo, d := p.mo, p.d
	c := &d.Cfg
	say := func(text string) (Turn, bool, error) { return Turn{User: text}, requested, d.User(text) }
	request := func(gl *goal) (Turn, bool, error) {
		if gl.say != "" {
			return Turn{User: gl.say}, true, d.User(gl.say)
		}
		if ph, ok := mo.intentPh[gl.intent]; ok {
			return Turn{User: ph}, true, d.User(ph)
		}
		return Turn{Intent: mo.m.Intents()[gl.intent]}, true, d.Inject(engine.Event{Kind: engine.UserEvent, Intent: gl.intent, Confidence: 1})
	}
	// Straying that means the same wherever the conversation is.
	switch act.Kind {
	case Silence:
		if t, ok := mo.m.NextTimer(c); ok {
			ms := t.Deadline - c.Now
			return Turn{WaitMS: ms, IsWait: true}, requested, d.Wait(ms)
		}
	case OffTopic:
		return say(mo.phrases["off_topic"])
	case Human, Cancel:
		role := "human"
		if act.Kind == Cancel {
			role = "cancel"
		}
		if ph, ok := mo.phrases[role]; ok && requested {
			t, r, err := say(ph)
			t.Role = role
			return t, r, err
		}
	case ChangeMind:
		if requested {
			return request(&mo.goals[int(act.Pick)%len(mo.goals)])
		}
	}
	if !requested || p.idle() {
		return request(g)
	}
	// A slot counts as asked while it is empty: machines may leave the
	// waiting slot set once it is filled (while confirming, say).
	if w := c.Waiting; w != engine.NoID && c.Slot(w).IsEmpty() {
		idx := -1
		for i, s := range g.slots {
			if s == w {
				idx = i
			}
		}
		switch act.Kind {
		case Invalid:
			bad := mo.slotInvalid[w]
			if idx >= 0 && len(g.invalid[idx]) > 0 {
				bad = g.invalid[idx][int(act.Pick)%len(g.invalid[idx])]
			}
			return say(bad)
		case Correct:
			// Correct a slot given earlier to another of the goal's values.
			var filled []int
			for i, s := range g.slots {
				if s != w && !c.Slot(s).IsEmpty() {
					filled = append(filled, i)
				}
			}
			if len(filled) > 0 {
				i := filled[int(act.Pick)%len(filled)]
				vals := g.values[i]
				nv := vals[(int(act.Pick)+1)%len(vals)]
				values[i] = nv
				p.w.values[i] = p.stub.Normalize(g.slots[i], nv)
				return say(mo.correction(mo.m.SlotName(g.slots[i]), nv))
			}
		}
		if idx >= 0 {
			return say(values[idx])
		}
		if ch := mo.choicesAt(c.State); len(ch) > 0 {
			return p.choose(ch[int(act.Pick)%len(ch)], requested)
		}
		return say(mo.slotValue[w])
	}
	if act.Kind == Deny {
		if ph, ok := mo.phrases["deny"]; ok {
			return say(ph)
		}
	}
	if ch := mo.choicesAt(c.State); len(ch) > 0 {
		return p.choose(ch[int(act.Pick)%len(ch)], requested)
	}
	takes := mo.intentsAt(c.State)
	if ph, ok := mo.phrases["affirm"]; ok && (len(takes) == 0 || p.takes(ph, takes)) {
		return say(ph)
	}
	if len(takes) > 0 {
		// Nothing asked, no yes to say: say one of the things the state
		// listens for (the conversation's "bye"), rather than the request
		// again, which a cooperative user would repeat for ever.
		in := takes[int(act.Pick)%len(takes)]
		if ph, ok := mo.intentPh[in]; ok {
			return say(ph)
		}
		// An intent with no phrase is often the NLU's fallback, which any
		// text reaches (with the text as its value).
		if p.takes(anyText, []engine.IntentID{in}) {
			return say(anyText)
		}
		return Turn{Intent: mo.m.Intents()[in]}, requested, d.Inject(engine.Event{Kind: engine.UserEvent, Intent: in, Confidence: 1})
	}
	if ph, ok := mo.phrases["affirm"]; ok {
		return say(ph)
	}
	return request(g)
}

// anyText is what a user says where any answer will do.
const anyText = "something"

// takes reports whether the NLU makes of text one of intents.
func (p *Player) takes(text string, intents []engine.IntentID) bool {
	var ev engine.Event
	if p.stub.Parse(text, p.d.Cfg.State, &ev) != nil {
		return false
	}
	return slices.Contains(intents, ev.Intent)
}

// choose answers a menu or choice question with ch: said, when the NLU
// makes of the text an event the transition takes, else as a parsed event
// with the transition's intent.
func (p *Player) choose(ch choice, requested bool) (Turn, bool, error) {
	d := p.d
	var ev engine.Event
	if p.stub.Parse(ch.text, d.Cfg.State, &ev) == nil && ev.Intent != engine.NoID && (ch.intent == engine.NoID || ev.Intent == ch.intent) {
		return Turn{User: ch.text}, requested, d.User(ch.text)
	}
	intent := ch.intent
	if intent == engine.NoID {
		intent = 0 // "*" takes any intent
	}
	ev = engine.Event{Kind: engine.UserEvent, Intent: intent, Text: ch.text, Value: ch.text, Confidence: 1, Timer: engine.NoID, Ext: engine.NoID}
	parsed := ev
	return Turn{Parsed: &parsed}, requested, d.Inject(ev)
}
