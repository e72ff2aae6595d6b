package generate

import (
	"slices"
	"strings"

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
	Persona Persona
	Goal    uint8
	Values  []uint8
	Acts    []Act
	// After are the turns past completion (docs/users-format.md#past-completion):
	// Thanks, Correct (a value given), ChangeMind (a new request) or
	// Silence; Follow (what shrinking leaves) says thanks.
	After []Act
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
	// Noise: Parsed is what the NLU noise made of User.
	Noise bool
	// Fail lists the external actions that failed in this turn.
	Fail []string
	// After: the turn was played past completion.
	After bool
}

// Outcome is what happened in a played conversation.
type Outcome struct {
	Turns       int
	Success     bool
	SuccessTurn int // the turn the goal was achieved in
	Escalated   bool
	Cancelled   bool
	Ended       bool // the task ended (final state, or back to idle) before the acts ran out
	// Cooperative: the user cooperated on every turn (the Cooperative
	// persona, or a draw that never strayed).
	Cooperative bool
	// AfterTurns counts the turns played past completion.
	AfterTurns     int
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
	// Per conversation: how often each goal slot was answered, how many
	// items of each list were given, the slots corrected, the (state,
	// answer) pairs that left the state unchanged (a cooperative user
	// tries something else there next), and the state after each turn.
	given     map[engine.SlotID]int
	listed    map[engine.SlotID]int
	corrected map[engine.SlotID]bool
	stuck     map[stuckKey]bool
	states    []engine.StateID
	// look holds the result of a move tried on a copy of the
	// configuration (progress.go).
	look    engine.Result
	lookCfg engine.Config
	// began is the state the conversation started in.
	began engine.StateID
	// affirmed holds the states the user said yes in: back in one, yes
	// went round a loop ("anything else?"), and the user says something
	// else that moves the task on, where the state takes something else.
	affirmed map[engine.StateID]bool
}

type stuckKey struct {
	state engine.StateID
	what  string
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
	// last one was a success; branchDone: a region's action succeeded.
	results, lastDone, branchDone bool
}

func (w *watcher) reset(slots []engine.SlotID, values []string) {
	w.want, w.values = slots, values
	w.filled = append(w.filled[:0], make([]bool, len(slots))...)
	w.done, w.escalated, w.results, w.lastDone, w.branchDone = false, false, false, false, false
}

// Observe implements sim.Observer.
func (w *watcher) Observe(st *eval.Step) {
	ev := st.Event
	for i, s := range w.want {
		if v := st.After.Slot(s); !v.IsEmpty() && (v.Str == w.values[i] || v.String() == w.values[i]) {
			w.filled[i] = true
		}
		// A machine may fill the slot and act on it and clear it in the
		// one step (a Rasa flow's last collect): the answer the machine
		// took while it waited for the slot counts as given.
		if ev != nil && ev.Kind == engine.UserEvent && st.Before.Waiting == s && st.Result.Handled && ev.Value == w.values[i] {
			w.filled[i] = true
		}
	}
	if ev != nil && ev.Kind == engine.DoneEvent && st.Result.Handled {
		w.done = true
	}
	if ev := st.Event; ev != nil && ev.Branch == 0 && (ev.Kind == engine.DoneEvent || ev.Kind == engine.FailedEvent) {
		w.results, w.lastDone = true, ev.Kind == engine.DoneEvent
	}
	if ev := st.Event; ev != nil && ev.Branch != 0 && ev.Kind == engine.DoneEvent {
		w.branchDone = true
	}
	for i := range st.Result.Effects {
		if st.Result.Effects[i].Kind == engine.EffEscalate {
			w.escalated = true
		}
	}
}

// given reports whether every goal slot has been seen holding the
// goal's value.
func (w *watcher) given() bool {
	for _, f := range w.filled {
		if !f {
			return false
		}
	}
	return true
}

// achieved is a goal's own success: condition, checked after every turn.
func (w *watcher) achieved(c *engine.Config, g *goal) bool {
	return g.success != nil && g.success(c)
}

// completed is the default success, judged when the task ends: the goal's
// flow was completed, not abandoned. Every goal slot was seen holding the
// goal's value (or answered while the machine waited for it); the user did
// not cancel and nobody escalated; and, when some external action's result
// came back, the last one of the main machine was a success (the flow's
// final action done: not a pre-check done early and the order refused
// later), or one of a parallel state's regions succeeded. Play also
// leaves out a task ended by the user's no or by a timer.
func (w *watcher) completed(cancelled bool) bool {
	for _, f := range w.filled {
		if !f {
			return false
		}
	}
	return !cancelled && !w.escalated && (w.lastDone || !w.results || w.branchDone)
}

// Play runs one conversation from the machine's start and reports what
// happened. The user pursues its goal until the task ends (a final state,
// or back in the initial state with no flow after the user has asked for
// something), the acts run out, or the engine fails (a runtime_error
// violation); then, unless the machine is in a final state, it goes on for
// the turns past completion (conv.After).
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
	clear(p.given)
	clear(p.listed)
	clear(p.corrected)
	clear(p.stuck)
	clear(p.affirmed)
	p.states = p.states[:0]
	if p.listed == nil {
		p.given, p.listed, p.corrected, p.stuck = map[engine.SlotID]int{}, map[engine.SlotID]int{}, map[engine.SlotID]bool{}, map[stuckKey]bool{}
		p.affirmed = map[engine.StateID]bool{}
	}
	d.Rand = newRand(seed)
	p.resetNoise(seed)
	d.Fail = d.Fail[:0]
	err := d.Start(0)
	p.began = d.Cfg.State
	requested := false
	cooperative := true
	refused := false
	// Without a goal, back at the initial state is one more place to
	// press a button from, not the task's end.
	ended := func() bool { return d.Cfg.Final || (requested && p.idle() && !mo.goalless) }
	record := func(t Turn) {
		// A turn the engine failed on is recorded too: it is the one that
		// shows the runtime error.
		if p.Record {
			t.Schedule = append([]int(nil), d.Picks...)
			out.Recorded = append(out.Recorded, t)
		}
		out.Turns++
		if err == nil {
			p.checker.EndOfTurn(d.Turn, &d.Cfg, d.Data)
		}
	}
	for _, act := range conv.Acts {
		if err != nil {
			break
		}
		if ended() {
			out.Ended = true
			break
		}
		if act.Kind != Follow || act.Fail {
			// A backend failing is not the user cooperating either.
			cooperative = false
		}
		p.failing(act.Fail)
		var t Turn
		t, requested, err = p.turn(act, g, values, requested)
		if act.Fail {
			t.Fail = p.failed(err != nil)
		}
		if p.noisyTurn(&t) {
			// The machine did not hear what the user said: the user's
			// cooperation does not bind it (bounded liveness).
			cooperative = false
		}
		record(t)
		p.states = append(p.states, d.Cfg.State)
		if t.Role == "cancel" {
			out.Cancelled = true
		}
		// A task ended by the user's no, or by a timer while the user was
		// silent, is not the goal's flow completed.
		refused = t.Role == "deny" || t.IsWait
		if !out.Success && p.w.achieved(&d.Cfg, g) {
			out.Success, out.SuccessTurn = true, out.Turns
			// The goal is met: the user turns to what comes after.
			out.Ended = true
			break
		}
	}
	d.Fail = d.Fail[:0]
	if err == nil && !out.Ended && ended() {
		out.Ended = true
	}
	if g.success == nil && !mo.goalless && out.Ended && err == nil && !refused && p.w.completed(out.Cancelled) {
		out.Success, out.SuccessTurn = true, out.Turns
	}
	out.Escalated = p.w.escalated
	out.Cooperative = cooperative
	if err == nil && cooperative && len(conv.Acts) >= mo.maxTurns && !out.Ended && !mo.goalless {
		// Bounded liveness: a user who always cooperates must see the
		// task end within the suite's turn bound (without a goal there
		// is no task to end).
		p.checker.Violations = append(p.checker.Violations, eval.LivenessViolation(mo.m, p.states, &d.Cfg, d.Turn))
		p.checker.Count++
	}
	if err == nil && out.Ended && !d.Cfg.Final {
		for _, act := range conv.After {
			if err != nil {
				break
			}
			t, ok := p.afterTurn(act, g, values)
			if !ok {
				continue
			}
			err = t.err
			t.Turn.After = true
			if p.noisyTurn(&t.Turn) {
				t.Turn.Noise = true
			}
			record(t.Turn)
			out.AfterTurns++
			if d.Cfg.Final {
				break
			}
		}
	}
	out.Violations = append(out.Violations, p.checker.Violations...)
	out.ViolationCount = p.checker.Count
	if err != nil {
		out.Violations = append(out.Violations, eval.Violation{Invariant: eval.RuntimeError, Turn: d.Turn, Msg: err.Error(),
			After: mo.m.Describe(&d.Cfg)})
		out.ViolationCount++
	}
	return out
}

// played is a turn past completion and the engine's answer to it.
type played struct {
	Turn
	err error
}

// afterTurn plays one turn past completion: thanks, a correction of a
// value given, a new request, or silence until the next pending timer. It
// reports false when the turn has nothing to say (no thanks phrase, no
// timer pending, no slot given).
func (p *Player) afterTurn(act Act, g *goal, values []string) (played, bool) {
	mo, d := p.mo, p.d
	switch act.Kind {
	case Silence:
		t, ok := mo.m.NextTimer(&d.Cfg)
		if !ok {
			return played{}, false
		}
		ms := t.Deadline - d.Cfg.Now
		return played{Turn{WaitMS: ms, IsWait: true}, d.Wait(ms)}, true
	case Correct:
		if len(g.slots) == 0 {
			return played{}, false
		}
		i := int(act.Pick) % len(g.slots)
		vals := g.values[i]
		nv := vals[(slices.Index(vals, values[i])+1)%len(vals)]
		text := mo.correction(mo.m.SlotName(g.slots[i]), nv)
		return played{Turn{User: text, Role: "correction"}, d.User(text)}, true
	case ChangeMind:
		gl := &mo.goals[int(act.Pick)%len(mo.goals)]
		t, _, err := p.request(gl)
		return played{t, err}, true
	}
	ph, ok := mo.phrases["thanks"]
	if !ok {
		return played{}, false
	}
	return played{Turn{User: ph, Role: "thanks"}, d.User(ph)}, true
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

// failed names the actions the turn just played invoked and failed. A
// turn the engine failed on may not have recorded every action it
// invoked: it names every action that may fail, as the turn made them.
func (p *Player) failed(broke bool) []string {
	var out []string
	if broke {
		for x := 0; x < p.mo.m.NumExternals(); x++ {
			if p.mo.m.MayFail(engine.ExtID(x)) {
				out = append(out, p.mo.m.ExtName(engine.ExtID(x)))
			}
		}
		return out
	}
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

// request asks for gl's task: with its say, the intent's phrase, or a
// parsed event with the intent.
func (p *Player) request(gl *goal) (Turn, bool, error) {
	mo, d := p.mo, p.d
	if gl.say != "" {
		return Turn{User: gl.say}, true, d.User(gl.say)
	}
	if ph, ok := mo.intentPh[gl.intent]; ok {
		return Turn{User: ph}, true, d.User(ph)
	}
	return Turn{Intent: mo.m.Intents()[gl.intent]}, true, d.Inject(engine.Event{Kind: engine.UserEvent, Intent: gl.intent, Confidence: 1})
}

// turn decides and plays what the user does for act, agenda-style: start
// the task, answer what is asked (the slot waited for, a list, a menu, a
// confirmation), or stray as act says.
func (p *Player) turn(act Act, g *goal, values []string, requested bool) (Turn, bool, error) {
	mo, d := p.mo, p.d
	c := &d.Cfg
	say := func(text, role string) (Turn, bool, error) {
		return Turn{User: text, Role: role}, requested, d.User(text)
	}
	// Straying that means the same wherever the conversation is.
	switch act.Kind {
	case Silence:
		if t, ok := mo.m.NextTimer(c); ok {
			ms := t.Deadline - c.Now
			return Turn{WaitMS: ms, IsWait: true}, requested, d.Wait(ms)
		}
	case OffTopic:
		return say(mo.phrases["off_topic"], "off_topic")
	case Human, Cancel:
		role := "human"
		if act.Kind == Cancel {
			role = "cancel"
		}
		if ph, ok := mo.phrases[role]; ok && requested {
			return say(ph, role)
		}
	case ChangeMind:
		if requested {
			return p.request(&mo.goals[int(act.Pick)%len(mo.goals)])
		}
	}
	if !requested || (p.idle() && !mo.goalless) {
		return p.request(g)
	}
	if w := c.Waiting; w != engine.NoID && act.Kind == Follow {
		if items := g.listOf(w); items != nil {
			// A list: its items one per ask, then "that's all".
			if n := p.listed[w]; n < len(items) {
				p.listed[w]++
				return say(items[n], "")
			}
			if ph, ok := mo.phrases["done"]; ok {
				return say(ph, "done")
			}
		}
	}
	// A slot counts as asked while it is empty: machines may leave the
	// waiting slot set once it is filled (while confirming, say).
	if w := c.Waiting; w != engine.NoID && c.Slot(w).IsEmpty() {
		idx := slices.Index(g.slots, w)
		switch act.Kind {
		case Invalid:
			bad := mo.slotInvalid[w]
			if idx >= 0 && len(g.invalid[idx]) > 0 {
				bad = g.invalid[idx][int(act.Pick)%len(g.invalid[idx])]
			}
			return say(bad, "")
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
				nv := p.change(g, values, i, act.Pick)
				return say(mo.correction(mo.m.SlotName(g.slots[i]), nv), "correction")
			}
		}
		switch {
		case g.listOf(w) != nil:
			// A list whose items are given and no done phrase: answered
			// below.
		case p.given[w] > 0 && p.heardAs("done"):
			// Asked again for a value already given, where the machine
			// takes "that's all": a list the goal holds one item of.
			return say(mo.phrases["done"], "done")
		case idx >= 0:
			p.given[w]++
			return say(values[idx], "")
		default:
			// Once every answer the guards test has left the state
			// unchanged, the user gives the slot a value instead.
			if ch := p.fresher(p.choicesHere()); len(ch) > 0 {
				return p.choose(ch, act.Pick, requested)
			}
			if !p.yesNo(w) {
				p.given[w]++
				return say(mo.slotValue[w], "")
			}
			// A yes/no slot is a confirmation: answered below.
		}
	}
	return p.confirm(act, g, values, requested)
}

// confirm answers where no slot is asked (a confirmation, a menu, a state
// that waits for what comes next): a value the summary shows wrong is
// corrected (once per slot), a menu gets one of its answers, a
// confirmation yes, and elsewhere the user says something the state
// listens for that moves the task on.
func (p *Player) confirm(act Act, g *goal, values []string, requested bool) (Turn, bool, error) {
	mo, d := p.mo, p.d
	c := &d.Cfg
	say := func(text, role string) (Turn, bool, error) {
		return Turn{User: text, Role: role}, requested, d.User(text)
	}
	if act.Kind == Deny {
		if ph, ok := mo.phrases["deny"]; ok {
			return say(ph, "deny")
		}
	}
	if act.Kind == Correct {
		// The correcting user changes its mind about a value given.
		var filled []int
		for i, s := range g.slots {
			if !c.Slot(s).IsEmpty() {
				filled = append(filled, i)
			}
		}
		if len(filled) > 0 {
			p.change(g, values, filled[int(act.Pick)%len(filled)], act.Pick)
		}
	}
	// The summary: a goal slot holding another value than the user wants
	// is corrected, with the value, where the state hears a correction.
	for i, s := range g.slots {
		v := c.Slot(s)
		if v.IsEmpty() || p.corrected[s] || v.Str == p.w.values[i] || v.String() == p.w.values[i] {
			continue
		}
		text := mo.correction(mo.m.SlotName(s), values[i])
		if p.takesHere(text) {
			p.corrected[s] = true
			return say(text, "correction")
		}
	}
	takes, any := p.intentsHere()
	affirm, yes := mo.phrases["affirm"]
	var yesIntent engine.IntentID = engine.NoID
	var ev engine.Event
	if yes && p.stub.Parse(affirm, c.State, &ev) == nil {
		yesIntent = ev.Intent
	}
	no, deny := mo.phrases["deny"]
	deny = deny && len(takes) > 0 && p.takes(no, takes)
	again := p.affirmed[c.State] && (deny || len(p.withoutYes(p.onwards(takes, g), yesIntent)) > 0)
	if again {
		// Yes and the other answer alternate: a summary confirmed, then
		// reached again by another way, is confirmed again after one no.
		delete(p.affirmed, c.State)
	}
	if again && deny {
		// Yes went round a loop: no ends it ("anything else?" "no").
		return say(no, "")
	}
	// Where any intent is taken but the guards test for answers (a date,
	// a number), yes is no answer: one of those is, below.
	if yes && !again && ((any && len(p.fresher(p.choicesHere())) == 0) || (len(takes) > 0 && p.takes(affirm, takes))) {
		p.affirmed[c.State] = true
		return say(affirm, "")
	}
	if p.w.given() && p.heardAs("done") {
		// Everything given: "that's all" ends a list the goal did not
		// declare.
		return say(mo.phrases["done"], "done")
	}
	if ch := p.fresher(p.choicesHere()); len(ch) > 0 {
		return p.choose(ch, act.Pick, requested)
	}
	if yes && len(takes) == 0 {
		return say(affirm, "")
	}
	if len(takes) > 0 {
		// Nothing asked, no yes to say: say one of the things the state
		// listens for that moves the task on (the conversation's "bye"),
		// rather than the request again, a reset or a cancel word.
		takes = p.onwards(takes, g)
		if again {
			takes = p.withoutYes(takes, yesIntent)
		}
		says := make([]saying, len(takes))
		evs := make([]engine.Event, len(takes))
		for i, in := range takes {
			says[i], evs[i] = p.say(in)
		}
		// Of those, the moves that bring the task closest to its end
		// (progress.go).
		keep := p.forward(evs)
		i := keep[p.fresh(len(keep), act.Pick, func(i int) string { return mo.m.Intents()[takes[keep[i]]] })]
		what, sy := mo.m.Intents()[takes[i]], says[i]
		if sy.text != "" {
			return p.tryOut(what, Turn{User: sy.text}, requested, func() error { return d.User(sy.text) })
		}
		return p.tryOut(what, Turn{Intent: what}, requested, func() error { return d.Inject(sy.ev) })
	}
	if ph, ok := mo.phrases["affirm"]; ok {
		return say(ph, "")
	}
	return p.request(g)
}

// saying is how a user says an intent: a text, or (no text) a parsed
// event.
type saying struct {
	text string
	ev   engine.Event
}

// say finds how to say intent in, and the event the machine would get:
// the intent's phrase; else, when the NLU's fallback is the intent, any
// text (with the text as its value); else the intent as a parsed event.
func (p *Player) say(in engine.IntentID) (saying, engine.Event) {
	var ev engine.Event
	if ph, ok := p.mo.intentPh[in]; ok {
		p.hears(ph, &ev)
		return saying{text: ph}, ev
	}
	if p.takes(anyText, []engine.IntentID{in}) {
		p.hears(anyText, &ev)
		return saying{text: anyText}, ev
	}
	ev = engine.Event{Kind: engine.UserEvent, Intent: in, Confidence: 1}
	return saying{ev: ev}, ev
}

// change makes the user want another of the goal's values for slot i, and
// returns it.
func (p *Player) change(g *goal, values []string, i int, pick uint8) string {
	vals := g.values[i]
	nv := vals[(int(pick)+1)%len(vals)]
	values[i] = nv
	p.w.values[i] = p.stub.Normalize(g.slots[i], nv)
	return nv
}

// yesNo reports whether slot s, asked for and not in the goal, is a
// confirmation: a bool slot, or one named for confirming.
func (p *Player) yesNo(s engine.SlotID) bool {
	if _, ok := p.mo.phrases["affirm"]; !ok {
		return false
	}
	return yesNoSlot(p.mo.m, s)
}

// onwards leaves out of intents those a cooperative user does not say to
// move on: the tasks' requests, the roles of straying (cancel, human, off
// topic, deny, correction) and, before every goal value has been given,
// those whose transitions only lead back to the initial state (a reset
// word). When nothing is left, it returns intents unchanged.
func (p *Player) onwards(intents []engine.IntentID, g *goal) []engine.IntentID {
	mo := p.mo
	avoid := map[engine.IntentID]bool{}
	for _, gl := range mo.goals {
		// Without a goal, a request is one more button to press.
		avoid[gl.intent] = !mo.goalless
	}
	for in := range mo.ownEvents {
		avoid[in] = true
	}
	for _, role := range []string{"cancel", "human", "off_topic", "deny", "correction"} {
		if ph, ok := mo.phrases[role]; ok {
			if role == "correction" {
				ph = mo.correction("x", "y")
			}
			var ev engine.Event
			if p.stub.Parse(ph, p.d.Cfg.State, &ev) == nil && ev.Intent != engine.NoID {
				avoid[ev.Intent] = true
			}
		}
	}
	given := p.w.given()
	var out []engine.IntentID
	for _, in := range intents {
		// Once every goal value is given, a request that leads back to
		// the initial state is the way home, not a new task (a
		// Dialogflow page whose only route is the greeting back to the
		// start flow).
		if (avoid[in] && !(given && p.resets(in))) || (!given && !mo.goalless && p.resets(in)) {
			continue
		}
		out = append(out, in)
	}
	if len(out) == 0 {
		return intents
	}
	return out
}

// resets reports whether every transition of the active states on intent
// in leads to the machine's initial state.
func (p *Player) resets(in engine.IntentID) bool {
	m := p.mo.m
	name := m.Intents()[in]
	any := false
	for _, leaf := range p.leaves() {
		for t := 0; t < m.NumTransitions(); t++ {
			ti := m.Transition(engine.TransID(t))
			if !slices.Contains(strings.Fields(ti.Trigger), name) || (ti.Source != engine.NoID && !m.InState(leaf, ti.Source)) {
				continue
			}
			if ti.Target == engine.NoID || !m.InState(m.Initial(), ti.Target) {
				return false
			}
			any = true
		}
	}
	return any
}

// leaves returns the active leaf states: the main machine's and, while a
// parallel state is active, its regions' unfinished leaves first.
func (p *Player) leaves() []engine.StateID {
	c := &p.d.Cfg
	var out []engine.StateID
	for i := 0; i < int(c.NBranch); i++ {
		if b := c.Branches[i]; b.State != engine.NoID && b.Status == engine.BranchRunning {
			out = append(out, b.State)
		}
	}
	return append(out, c.State)
}

// intentsHere returns the intents the active states have transitions for
// (escapes left out, each once), and whether one of them takes any intent.
func (p *Player) intentsHere() ([]engine.IntentID, bool) {
	var out []engine.IntentID
	for _, s := range p.leaves() {
		is := p.mo.intentsAt(s)
		if is == nil && p.mo.anyAt(s) {
			return nil, true
		}
		for _, in := range is {
			if !slices.Contains(out, in) {
				out = append(out, in)
			}
		}
	}
	return out, false
}

// choicesHere returns the answers the guards of the active states test.
func (p *Player) choicesHere() []choice {
	var out []choice
	for _, s := range p.leaves() {
		for _, ch := range p.mo.choicesAt(s) {
			if !slices.Contains(out, ch) {
				out = append(out, ch)
			}
		}
	}
	return out
}

// fresh picks among n answers, starting at pick, the first that has not
// already left this state unchanged in this conversation (else pick).
func (p *Player) fresh(n int, pick uint8, name func(int) string) int {
	for j := 0; j < n; j++ {
		i := (int(pick) + j) % n
		if !p.stuck[stuckKey{p.d.Cfg.State, name(i)}] {
			return i
		}
	}
	return int(pick) % n
}

// fresher returns the choices that have not left this state unchanged in
// this conversation: once every answer of a menu has been tried in vain,
// the user says something else.
func (p *Player) fresher(chs []choice) []choice {
	var out []choice
	for _, ch := range chs {
		if !p.stuck[stuckKey{p.d.Cfg.State, "choice " + ch.text}] {
			out = append(out, ch)
		}
	}
	return out
}

// tryOut plays an answer and remembers it when it left the state
// unchanged, so that the user tries another answer there next.
func (p *Player) tryOut(what string, t Turn, requested bool, play func() error) (Turn, bool, error) {
	before := p.d.Cfg
	err := play()
	if p.d.Cfg.State == before.State && p.d.Cfg.Waiting == before.Waiting && p.d.Cfg.SameSlots(&before) {
		p.stuck[stuckKey{before.State, what}] = true
	}
	return t, requested, err
}

// anyText is what a user says where any answer will do.
const anyText = "something"

// hears returns the event the machine gets for text now: the waiting
// slot's direct mapping where the state has one and the text no marker,
// else the NLU's parse.
func (p *Player) hears(text string, ev *engine.Event) bool {
	c := &p.d.Cfg
	if di := p.mo.m.DirectIntent(c.State); di != engine.NoID && c.Waiting != engine.NoID && !p.stub.HasMarker(text) {
		*ev = engine.Event{Kind: engine.UserEvent, Intent: di, Text: text, Value: p.stub.Normalize(c.Waiting, text)}
		return true
	}
	return p.stub.Parse(text, c.State, ev) == nil && ev.Intent != engine.NoID
}

// takes reports whether the machine makes of text one of intents.
func (p *Player) takes(text string, intents []engine.IntentID) bool {
	var ev engine.Event
	return p.hears(text, &ev) && slices.Contains(intents, ev.Intent)
}

// takesHere reports whether the machine makes of text an intent the active
// states have a transition for.
func (p *Player) takesHere(text string) bool {
	is, any := p.intentsHere()
	var ev engine.Event
	return p.hears(text, &ev) && (any || slices.Contains(is, ev.Intent))
}

// heardAs reports whether the role's phrase reaches the machine as the
// intent the NLU makes of it (not as the waiting slot's value), and the
// active states take it.
func (p *Player) heardAs(role string) bool {
	ph, ok := p.mo.phrases[role]
	if !ok {
		return false
	}
	var heard, parsed engine.Event
	if !p.hears(ph, &heard) || p.stub.Parse(ph, p.d.Cfg.State, &parsed) != nil || heard.Intent != parsed.Intent {
		return false
	}
	return p.takesHere(ph)
}

// choose answers a menu or choice question with one of ch (the pick's,
// else the next that has not left the state unchanged): said, when the
// NLU makes of the text an event the transition takes, else as a parsed
// event with the transition's intent.
func (p *Player) choose(chs []choice, pick uint8, requested bool) (Turn, bool, error) {
	d := p.d
	ch := chs[p.fresh(len(chs), pick, func(i int) string { return "choice " + chs[i].text })]
	what := "choice " + ch.text
	var ev engine.Event
	if p.hears(ch.text, &ev) && (ch.intent == engine.NoID || ev.Intent == ch.intent) {
		return p.tryOut(what, Turn{User: ch.text}, requested, func() error { return d.User(ch.text) })
	}
	intent := ch.intent
	if intent == engine.NoID {
		intent = 0 // "*" takes any intent
	}
	ev = engine.Event{Kind: engine.UserEvent, Intent: intent, Text: ch.text, Value: ch.text, Confidence: 1, Timer: engine.NoID, Ext: engine.NoID}
	parsed := ev
	return p.tryOut(what, Turn{Parsed: &parsed}, requested, func() error { return d.Inject(ev) })
}

// withoutYes returns intents less yes and those whose phrase the NLU
// makes yes of (coffee_shop's extra order intent is said "Yes").
func (p *Player) withoutYes(intents []engine.IntentID, yes engine.IntentID) []engine.IntentID {
	var out []engine.IntentID
	for _, x := range intents {
		var ev engine.Event
		if ph, ok := p.mo.intentPh[x]; x == yes || (ok && p.stub.Parse(ph, p.d.Cfg.State, &ev) == nil && ev.Intent == yes) {
			continue
		}
		out = append(out, x)
	}
	return out
}
