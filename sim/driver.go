// Package sim drives compiled machines through conversations. A Driver owns
// one conversation's Config and virtual clock: it turns utterances into
// events (through an NLU, or by direct slot mapping), steps the engine,
// performs the effects the engine asks for (stubbed external actions,
// timers) and tells Observers about every step. RunScenario plays a scripted
// scenario on a Driver and checks its expectations.
package sim

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/latency"
)

// Observer sees every engine step a Driver takes: the configuration before
// and after it, and what it produced. Package eval holds the observers
// (invariants, coverage).
type Observer interface {
	Observe(st *eval.Step)
}

// maxInvokeDepth bounds chains of external actions whose results invoke
// further actions within one turn.
const maxInvokeDepth = 32

// TurnInfo is what happened during the last turn.
type TurnInfo struct {
	Intent    engine.IntentID
	Skipped   bool // the NLU was skipped by direct slot mapping
	Said      []byte
	Invoked   []engine.ExtID
	Escalated bool
	Steps     int // transitions taken
	// Path holds the target of each of the main machine's transitions,
	// when the Driver's KeepPath is set.
	Path []engine.StateID
	// Latency is what the turn's own chain took under the suite's latency
	// model, in virtual milliseconds: for a user or event turn its response
	// time, for a wait what the timers it fired set off; 0 without a model.
	Latency int64
}

// Driver runs one conversation at a time. It is not safe for concurrent
// use; run one Driver per goroutine.
type Driver struct {
	M         *engine.Machine
	NLU       NLU
	Stub      *Stub // for markers and normalisation in direct slot mapping; may be nil
	Observers []Observer

	Cfg engine.Config
	// Data is the conversation's data when the machine's data model keeps
	// it outside the Config (an SCXML chart's ECMAScript heap): Start makes
	// a fresh one (engine.Machine.NewData), nil for machine.yaml's.
	Data engine.Data
	Res  engine.Result
	Turn int
	Info TurnInfo

	// KeepPath makes every turn record its Path (RunScenario sets it, for
	// path expectations); without it, as when conversations are only
	// counted, the steps' targets are not copied.
	KeepPath bool

	// Totals over the Driver's life.
	NLUCalls, NLUSkipped, Transitions int

	// Fail makes the listed external actions fail during the next turn.
	Fail []bool
	// Rand chooses which region's awaited result is delivered next once
	// Schedule is used up; nil means always the lowest-numbered region.
	Rand *rand.Rand
	// Schedule lists the regions whose results to deliver first, in order.
	Schedule []int
	// BranchSteps counts the results delivered to regions in the current
	// turn.
	BranchSteps int
	// Picks records the regions whose results were delivered in the
	// current turn, so that a generated conversation can be written with
	// its schedule.
	Picks []int

	// Latency is the machine's latency model; nil: turns take no virtual
	// time and the clock moves only in waits. Costs are drawn from Rand.
	Latency *latency.Model
	// LatencyOut, when set (with Latency), aggregates every turn's latency.
	LatencyOut *eval.Latency
	// Wall, when set, times every engine step with the wall clock (simctl
	// run --measure-engine). It changes nothing else, but what it measures
	// differs from run to run: keep it out of reproducible output.
	Wall *WallClock

	acct      costs
	entered   []engine.StateID
	domains   []engine.StateID // by transition; see enteredBy
	fixedRand *rand.Rand

	obs   eval.Step
	prev  engine.Config
	ev    engine.Event
	invEv [maxInvokeDepth + 1]engine.Event // one per invoke depth, so stepping them does not allocate
}

// SessionID is every conversation's session id (SCXML's _sessionid):
// fixed, so that a conversation is the same whoever plays it.
const SessionID = "simctl"

// NewDriver returns a driver for machine m.
func NewDriver(m *engine.Machine, nlu NLU, stub *Stub) *Driver {
	return &Driver{M: m, NLU: nlu, Stub: stub}
}

// Start begins a new conversation at virtual time at.
func (d *Driver) Start(at int64) error {
	d.Turn = 0
	d.beginTurn()
	if len(d.Observers) > 0 {
		// Before the start nothing is (as in the explorer): no state, no
		// slot waited for. Only observers read it, and a Config is 1.7 KB.
		d.prev = engine.Config{State: engine.NoID, Waiting: engine.NoID, LastSay: engine.NoID}
	}
	d.fixedRand = nil
	d.Data = d.M.NewData(SessionID)
	var err error
	if d.Wall != nil {
		start := d.Wall.start()
		err = d.M.StartWith(&d.Cfg, d.Data, at, &d.Res)
		d.Wall.stop(start)
	} else {
		err = d.M.StartWith(&d.Cfg, d.Data, at, &d.Res)
	}
	if err != nil {
		return err
	}
	if err := d.step(nil, 0); err != nil {
		return err
	}
	if err := d.runBranches(); err != nil {
		return err
	}
	// What the machine does at the start is no turn, but takes time.
	return d.endTurn(false)
}

// maxBranchSteps bounds the results delivered to regions in one turn, so
// that regions invoking actions without end stop with an error instead of
// a hang.
const maxBranchSteps = 10000

// runBranches delivers the results the regions of the active parallel
// state await (the actions they invoked), one at a time, in the order the
// schedule (then the seeded source) chooses, until none awaits one: the
// order in which results arrive is the only interleaving regions have.
func (d *Driver) runBranches() error {
	if d.Cfg.NBranch == 0 {
		// No parallel state is active: nothing awaits (inlined).
		return nil
	}
	return d.deliverResults()
}

func (d *Driver) deliverResults() error {
	for {
		mask := d.Cfg.Awaiting()
		if mask == 0 {
			return nil
		}
		if d.BranchSteps++; d.BranchSteps > maxBranchSteps {
			return fmt.Errorf("regions awaited more than %d results in one turn", maxBranchSteps)
		}
		i := d.pick(mask)
		d.Picks = append(d.Picks, i)
		x := d.Cfg.Branches[i].Pending
		d.M.InvokeIn(&d.Cfg, x, uint8(i+1), d.Cfg.Now, &d.ev)
		if int(x) < len(d.Fail) && d.Fail[x] {
			d.ev = engine.Event{Kind: engine.FailedEvent, Ext: x, At: d.Cfg.Now, Branch: uint8(i + 1)}
		}
		if err := d.step(&d.ev, 0); err != nil {
			return err
		}
	}
}

// pick chooses a region whose result to deliver: the schedule's next
// entry when it names one, else a seeded draw, else the lowest.
func (d *Driver) pick(mask uint64) int {
	for len(d.Schedule) > 0 {
		i := d.Schedule[0]
		d.Schedule = d.Schedule[1:]
		if i >= 0 && i < 64 && mask&(1<<i) != 0 {
			return i
		}
	}
	if d.Rand == nil {
		return bits.TrailingZeros64(mask)
	}
	k := d.Rand.IntN(bits.OnesCount64(mask))
	for m := mask; ; m &= m - 1 {
		if k == 0 {
			return bits.TrailingZeros64(m)
		}
		k--
	}
}

func (d *Driver) beginTurn() {
	in := &d.Info
	in.Intent, in.Skipped, in.Escalated, in.Steps, in.Latency = engine.NoID, false, false, 0, 0
	in.Said, in.Invoked, in.Path = in.Said[:0], in.Invoked[:0], in.Path[:0]
	d.BranchSteps = 0
	d.Picks = d.Picks[:0]
	if d.Latency != nil {
		// Only the latency model fills the account (charge, chargeNLU),
		// and it is half a kilobyte to clear.
		d.acct.reset()
	}
}

// User plays one user utterance at the current virtual time. In a state
// with direct slot mapping, text without intent markers fills the waiting
// slot without an NLU call.
func (d *Driver) User(text string) error {
	d.Turn++
	d.beginTurn()
	c := &d.Cfg
	if di := d.M.DirectIntent(c.State); di != engine.NoID && c.Waiting != engine.NoID &&
		(d.Stub == nil || !d.Stub.HasMarker(text)) {
		d.direct(di, text)
	} else {
		if err := d.NLU.Parse(text, c.State, &d.ev); err != nil {
			return err
		}
		d.ev.At = c.Now
		d.NLUCalls++
	}
	if d.Latency != nil {
		d.chargeNLU(d.Info.Skipped)
	}
	d.Info.Intent = d.ev.Intent
	if d.ev.Intent == engine.NoID {
		// Not understood: the machine has no transition for it.
		return d.endTurn(true)
	}
	if err := d.step(&d.ev, 0); err != nil {
		return err
	}
	if err := d.runBranches(); err != nil {
		return err
	}
	return d.endTurn(true)
}

// direct fills d.ev with text mapped into the waiting slot without the
// NLU, as intent di. It is kept out of User, whose frame it would
// otherwise enlarge on every turn.
func (d *Driver) direct(di engine.IntentID, text string) {
	value := text
	if d.Stub != nil {
		value = d.Stub.Normalize(d.Cfg.Waiting, text)
	}
	newUserEvent(&d.ev, text)
	d.ev.Intent, d.ev.Value, d.ev.Confidence, d.ev.At = di, value, 1, d.Cfg.Now
	d.Info.Skipped = true
	d.NLUSkipped++
}

// Inject plays a parsed user event, bypassing the NLU.
func (d *Driver) Inject(ev engine.Event) error {
	d.Turn++
	d.beginTurn()
	ev.At = d.Cfg.Now
	d.Info.Intent = ev.Intent
	d.ev = ev
	if err := d.step(&d.ev, 0); err != nil {
		return err
	}
	if err := d.runBranches(); err != nil {
		return err
	}
	return d.endTurn(true)
}

// Wait advances the virtual clock by ms, firing every timer that falls due
// on the way in (deadline, sequence) order, each exactly at its deadline.
// Under a latency model, what a timer sets off takes time, which may carry
// the clock past the end of the wait.
func (d *Driver) Wait(ms int64) error {
	d.Turn++
	d.beginTurn()
	if err := d.elapse(d.Cfg.Now + ms); err != nil {
		return err
	}
	if d.Latency != nil {
		d.Info.Latency = d.acct.total()
		d.record(false, 0)
	}
	return nil
}

// step steps the engine with ev, then records what the step produced,
// tells the observers, performs the external actions it invoked and steps
// their results. With ev nil it only does the rest, for what Start did.
// One function, not a step calling an after: this runs on every step.
func (d *Driver) step(ev *engine.Event, depth int) error {
	if ev != nil {
		if len(d.Observers) > 0 || d.Wall != nil {
			if err := d.stepWatched(ev); err != nil {
				return err
			}
		} else if err := d.M.StepWith(&d.Cfg, d.Data, ev, &d.Res); err != nil {
			return err
		}
	}
	var n int
	if d.KeepPath {
		n = d.keepPath()
	} else {
		for i := range d.Res.Steps {
			if d.Res.Steps[i].Trans != engine.NoID {
				n++
			}
		}
	}
	d.Info.Steps += n
	d.Transitions += n
	if len(d.Res.Effects) == 0 && d.Latency == nil && len(d.Observers) == 0 && !d.M.HasSends() {
		// Nothing to perform, charge or tell, as on most steps.
		return nil
	}
	return d.perform(ev, depth)
}

// keepPath appends the targets of the main machine's transitions in the
// step to Info.Path and returns how many transitions the step took.
func (d *Driver) keepPath() int {
	path, n := d.Info.Path, 0
	for i := range d.Res.Steps {
		if s := &d.Res.Steps[i]; s.Trans != engine.NoID {
			n++
			if s.Branch == 0 {
				path = append(path, s.To)
			}
		}
	}
	d.Info.Path = path
	return n
}

// stepWatched is the engine's step when observers read the configuration
// before it or the wall clock times it.
func (d *Driver) stepWatched(ev *engine.Event) error {
	// A Config is 1.7 KB, not worth copying on every step when no one
	// reads it.
	if len(d.Observers) > 0 {
		d.prev = d.Cfg
	}
	var err error
	if d.Wall != nil {
		start := d.Wall.start()
		err = d.M.StepWith(&d.Cfg, d.Data, ev, &d.Res)
		d.Wall.stop(start)
	} else {
		err = d.M.StepWith(&d.Cfg, d.Data, ev, &d.Res)
	}
	if err != nil {
		// The transitions taken before the error still count for
		// coverage and traces.
		d.notify(ev)
	}
	return err
}

// notify tells the observers about the step just taken.
func (d *Driver) notify(ev *engine.Event) {
	if len(d.Observers) == 0 {
		return
	}
	d.obs = eval.Step{Turn: d.Turn, Event: ev, Before: &d.prev, After: &d.Cfg, Result: &d.Res}
	for _, o := range d.Observers {
		o.Observe(&d.obs)
	}
}

// perform is the rest of step: the step's effects, its latency costs,
// the observers, then the external actions it invoked and the sends due
// at once.
func (d *Driver) perform(ev *engine.Event, depth int) error {
	r := &d.Res
	var invoke [8]engine.ExtID
	var branch [8]uint8
	n := 0
	for i := range r.Effects {
		e := &r.Effects[i]
		switch e.Kind {
		case engine.EffSay:
			if len(d.Info.Said) > 0 {
				d.Info.Said = append(d.Info.Said, '\n')
			}
			d.Info.Said = append(d.Info.Said, r.EffectText(e)...)
		case engine.EffEscalate:
			d.Info.Escalated = true
		case engine.EffInvoke:
			if e.Branch > 0 {
				// A region's action: its result waits in the Config until
				// the driver delivers it (runBranches).
				d.Info.Invoked = append(d.Info.Invoked, e.Ext)
				continue
			}
			if n == len(invoke) {
				return fmt.Errorf("more than %d external actions invoked in one step", len(invoke))
			}
			invoke[n], branch[n] = e.Ext, e.Branch
			n++
		}
	}
	if d.Latency != nil {
		d.charge()
	}
	if len(d.Observers) > 0 {
		d.notify(ev)
	}
	if n > 0 && depth >= maxInvokeDepth {
		return fmt.Errorf("external actions kept invoking each other past %d levels", maxInvokeDepth)
	}
	for k, x := range invoke[:n] {
		d.Info.Invoked = append(d.Info.Invoked, x)
		ev := &d.invEv[depth]
		d.M.InvokeIn(&d.Cfg, x, branch[k], d.Cfg.Now, ev)
		if int(x) < len(d.Fail) && d.Fail[x] {
			*ev = engine.Event{Kind: engine.FailedEvent, Ext: x, At: d.Cfg.Now, Branch: branch[k]}
		}
		if err := d.step(ev, depth+1); err != nil {
			return err
		}
	}
	if d.M.HasSends() {
		// A send without delay is due at once: as SCXML's external queue
		// delivers it before any later event, it is taken in the same
		// turn, at the same virtual time, like an action's result.
		if t, ok := d.M.NextTimer(&d.Cfg); ok && t.Deadline <= d.Cfg.Now && d.M.IsSend(t.ID) {
			if depth >= maxInvokeDepth {
				return fmt.Errorf("sends without delay kept following each other past %d levels", maxInvokeDepth)
			}
			ev := &d.invEv[depth]
			*ev = engine.Event{Kind: engine.TimerEvent, Timer: t.ID, At: t.Deadline, Intent: engine.NoID, Ext: engine.NoID}
			return d.step(ev, depth+1)
		}
	}
	return nil
}
