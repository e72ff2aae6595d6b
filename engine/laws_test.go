package engine_test

// The engine's own laws, checked with gopter on random machines and random
// conversations (enginetest.GenCase). Each law is a plain function from a
// built machine and a case to an error; checkLaw runs it through gopter with
// a fixed seed and, on failure, fails the spec with the seed, the shrunk
// case, the machine as builder code and the trace of its conversation, from
// which a plain regression spec is written by hand.

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// lawSeed fixes the cases every law is checked on. A failure prints it with
// the seed of the failing case, which et.DrawCase reproduces on its own.
// SIMCTL_LAW_SEED and SIMCTL_LAW_CASES override the seed and the number of
// cases per law, to search further than the suite does on every run.
var (
	lawSeed  = envInt("SIMCTL_LAW_SEED", 20251122)
	lawCases = int(envInt("SIMCTL_LAW_CASES", 100))
)

// law checks one case and says what it broke, or returns nil.
type law func(m *engine.Machine, c et.Case) error

// checkLaw runs l over lawCases random cases with gopter.
func checkLaw(name string, l law) {
	GinkgoHelper()
	params := gopter.DefaultTestParametersWithSeed(lawSeed)
	params.MinSuccessfulTests = lawCases
	params.MaxShrinkCount = 200
	props := gopter.NewProperties(params)
	props.Property(name, forAllCases(l))
	var out strings.Builder
	if !props.Run(gopter.NewFormatedReporter(true, 1<<16, &out)) {
		Fail(fmt.Sprintf("law %q broken; gopter seed %d\n%s", name, lawSeed, out.String()))
	}
}

// forAllCases adapts a typed law to a gopter property over et.GenCase, so
// that no law sees interface{}.
func forAllCases(l law) gopter.Prop {
	return prop.ForAll(func(c et.Case) string {
		m, diags := engine.Build(c.Def)
		if err := diags.Err(); err != nil {
			return fmt.Sprintf("case %d does not build: %v", c.Seed, err)
		}
		if err := l(m, c); err != nil {
			return fmt.Sprintf("%v\n\n%s", err, c.Explain())
		}
		return ""
	}, et.GenCase())
}

var _ = Describe("laws on random machines and conversations", func() {
	It("draws definitions that build", func() {
		r := rand.New(rand.NewSource(lawSeed))
		const draws = 500
		built := 0
		var failures []string
		for i := 0; i < draws; i++ {
			d := et.RandomDefinition(r)
			if _, diags := engine.Build(d); diags.Err() == nil {
				built++
			} else if len(failures) < 3 {
				failures = append(failures, fmt.Sprintf("%v\n%s", diags.Err(), et.GoSource(d)))
			}
		}
		Expect(built).To(BeNumerically(">=", draws*98/100),
			"got %d of %d random definitions built, want nearly all; seed %d; first failures:\n%s",
			built, draws, lawSeed, strings.Join(failures, "\n"))
	})

	It("draws conversations that exercise every feature of the engine", func() {
		got := coverage()
		fmt.Fprintf(GinkgoWriter, "feature coverage over %d cases (seed %d):\n%s", lawCases, lawSeed, got)
		var missing []string
		for _, f := range got.features() {
			if f.n < f.min {
				missing = append(missing, fmt.Sprintf("%s: got %d, want at least %d", f.name, f.n, f.min))
			}
		}
		Expect(missing).To(BeEmpty(), "seed %d", lawSeed)
	})

	It("determinism: the same machine and events give byte-identical traces and equal configurations", func() {
		checkLaw("determinism", determinism)
	})

	It("replay: replaying the recorded events on a fresh start reaches the same configuration after every step", func() {
		checkLaw("replay", replay)
	})

	It("timers: fire only at their pending deadline, once, in (deadline, sequence) order; cancelled ones are ignored", func() {
		checkLaw("timers", timerLaws)
	})

	It("ignored events: an event no transition takes changes nothing but the clock", func() {
		checkLaw("ignored events", ignoredEvents)
	})

	It("joins: a fork joins exactly when every branch finished, the same whatever the branch schedule", func() {
		checkLaw("joins", joinLaws)
	})

	It("hash: equal configurations hash equally, and distinct ones reached in runs hash apart", func() {
		checkLaw("hash", hashLaw)
	})
})

// determinism: the definition is a function of the case's seed, and playing
// the same moves twice on one machine, and once on a fresh build of the same
// definition, gives the same events, traces and configurations.
func determinism(m *engine.Machine, c et.Case) error {
	again := et.DrawCase(c.Seed).Def
	if !reflect.DeepEqual(again, c.Def) {
		return errors.New("drawing the case's seed again gave another definition")
	}
	fresh, diags := engine.Build(again)
	if err := diags.Err(); err != nil {
		return fmt.Errorf("fresh build: %w", err)
	}
	runs := []*et.Transcript{et.Play(m, c.Moves), et.Play(m, c.Moves), et.Play(fresh, c.Moves)}
	want := runs[0]
	var errs []error
	for k, got := range runs[1:] {
		run := []string{"second run", "run on a fresh build"}[k]
		if got.Trace != want.Trace {
			errs = append(errs, fmt.Errorf("%s: trace differs at %s", run, firstDiff(got.Trace, want.Trace)))
		}
		if len(got.Turns) != len(want.Turns) {
			errs = append(errs, fmt.Errorf("%s: got %d events, want %d", run, len(got.Turns), len(want.Turns)))
			continue
		}
		for i := range got.Turns {
			g, w := &got.Turns[i], &want.Turns[i]
			if g.Event != w.Event || g.After != w.After || g.After.Hash() != w.After.Hash() {
				errs = append(errs, fmt.Errorf("%s: event %d (%s): got %s, want %s", run, i, w.Line, m.Describe(&g.After), m.Describe(&w.After)))
				break
			}
		}
		gf, wf := got.Final(), want.Final()
		if gf != wf || gf.Hash() != wf.Hash() {
			errs = append(errs, fmt.Errorf("%s: final configurations differ: got %s, want %s", run, m.Describe(&gf), m.Describe(&wf)))
		}
	}
	return errors.Join(errs...)
}

// replay: the events a conversation recorded, replayed on a fresh start,
// reach the recorded configuration before and after every step; Step leaves
// its event as it was; and a configuration is a value, which scribbling on
// a copy leaves alone.
func replay(m *engine.Machine, c et.Case) error {
	t := et.Play(m, c.Moves)
	var (
		cfg engine.Config
		res engine.Result
	)
	if err := m.Start(&cfg, 0, &res); errText(err) != errText(t.StartErr) {
		return fmt.Errorf("start: got error %q, want %q", errText(err), errText(t.StartErr))
	} else if err != nil {
		return nil
	}
	if cfg != t.Start {
		return fmt.Errorf("start: got %s, want %s", m.Describe(&cfg), m.Describe(&t.Start))
	}
	var replayed []engine.Config
	for i := range t.Turns {
		turn := &t.Turns[i]
		if cfg != turn.Before {
			return fmt.Errorf("before event %d (%s): got %s, want %s", i, turn.Line, m.Describe(&cfg), m.Describe(&turn.Before))
		}
		ev := turn.Event
		err := m.Step(&cfg, &ev, &res)
		if ev != turn.Event {
			return fmt.Errorf("event %d (%s): Step changed its event", i, turn.Line)
		}
		if errText(err) != errText(turn.Err) {
			return fmt.Errorf("event %d (%s): got error %q, want %q", i, turn.Line, errText(err), errText(turn.Err))
		}
		if err != nil {
			break
		}
		if cfg != turn.After || res.Handled != turn.Handled {
			return fmt.Errorf("after event %d (%s): got %s (handled %t), want %s (handled %t)",
				i, turn.Line, m.Describe(&cfg), res.Handled, m.Describe(&turn.After), turn.Handled)
		}
		replayed = append(replayed, cfg)
	}
	for i := range replayed {
		kept := replayed[i]
		scribble(&replayed[i])
		if replayed[i] == kept {
			return fmt.Errorf("after event %d: scribbling on a copy left it equal", i)
		}
		if kept != t.Turns[i].After {
			return fmt.Errorf("after event %d: scribbling on a copy changed another copy", i)
		}
	}
	return nil
}

// scribble changes every part of a configuration that could share memory
// with another if Config were not a plain value.
func scribble(c *engine.Config) {
	c.Now++
	c.SetSlot(0, engine.TextValue(c.Slot(0).Str+"#"))
	c.SetSlot(engine.InlineSlots, engine.TextValue(c.Slot(engine.InlineSlots).Str+"#"))
	c.Counters[0]++
	c.Timers[0].Deadline++
	c.Flows[0]++
	c.Branches[0].Pending++
	c.SetTexts(c.Texts() + "#")
}

// timerLaws: NextTimer is the minimum of the pending timers by (deadline,
// sequence), and a timer is pending at most once; a timer event is handled
// only at its pending deadline, and off it is rejected leaving the
// configuration unchanged; after a timer fired it is no longer pending
// unless its transition restarted it, so firing it again is ignored; the
// event of a timer that is not pending (never started, cancelled, fired) is
// ignored, changing nothing but the clock.
func timerLaws(m *engine.Machine, c et.Case) error {
	t := et.Play(m, c.Moves)
	ids, err := timerIDs(m, c.Def)
	if err != nil {
		return err
	}
	var errs []error
	at := func(where string, cfg *engine.Config) {
		for _, err := range []error{nextTimerLaw(m, cfg), ignoredTimersLaw(m, cfg, ids), offDeadlineLaw(m, cfg)} {
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", where, err))
			}
		}
	}
	if t.StartErr == nil {
		at("after start", &t.Start)
	}
	for i := range t.Turns {
		turn := &t.Turns[i]
		where := fmt.Sprintf("event %d (%s)", i, turn.Line)
		if turn.Err != nil {
			break
		}
		at("after "+where, &turn.After)
		if turn.Event.Kind == engine.TimerEvent {
			if err := firedTimerLaw(m, turn); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", where, err))
			}
		}
		if err := cancelledTimerLaw(m, turn); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
		}
		if len(errs) > 0 {
			break
		}
	}
	return errors.Join(errs...)
}

// timerIDs lists every timer of the machine: the declared ones and those of
// state timeouts.
func timerIDs(m *engine.Machine, d *engine.Definition) ([]engine.TimerID, error) {
	var names []string
	for _, td := range d.Timers {
		names = append(names, td.Name)
	}
	for _, sd := range d.States {
		if sd.Timeout != nil {
			path := sd.Name
			if sd.Parent != "" {
				path = sd.Parent + "." + sd.Name
			}
			names = append(names, engine.TimeoutTimer(path))
		}
	}
	var ids []engine.TimerID
	for _, n := range names {
		id, ok := m.TimerID(n)
		if !ok {
			return nil, fmt.Errorf("got no timer %q, want one", n)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// pendingTimer returns the active timer of id in c, if any.
func pendingTimer(c *engine.Config, id engine.TimerID) (engine.Timer, bool) {
	for _, t := range c.Timers {
		if t.Active && t.ID == id {
			return t, true
		}
	}
	return engine.Timer{}, false
}

func nextTimerLaw(m *engine.Machine, c *engine.Config) error {
	var active []engine.Timer
	ids := map[engine.TimerID]bool{}
	seqs := map[uint32]bool{}
	for _, t := range c.Timers {
		if !t.Active {
			if t != (engine.Timer{}) {
				return fmt.Errorf("an inactive timer slot holds %+v", t)
			}
			continue
		}
		if ids[t.ID] || seqs[t.Seq] {
			return fmt.Errorf("timer %s (seq %d) is pending twice, or shares its sequence number", m.TimerName(t.ID), t.Seq)
		}
		if t.Seq > c.TimerSeq || t.Deadline < c.Now {
			return fmt.Errorf("timer %s: seq %d of %d, deadline %d at %d: it can never fire", m.TimerName(t.ID), t.Seq, c.TimerSeq, t.Deadline, c.Now)
		}
		ids[t.ID], seqs[t.Seq] = true, true
		active = append(active, t)
	}
	sort.Slice(active, func(i, j int) bool {
		if active[i].Deadline != active[j].Deadline {
			return active[i].Deadline < active[j].Deadline
		}
		return active[i].Seq < active[j].Seq
	})
	got, ok := m.NextTimer(c)
	switch {
	case len(active) == 0 && ok:
		return fmt.Errorf("NextTimer: got %+v, want none", got)
	case len(active) > 0 && (!ok || got != active[0]):
		return fmt.Errorf("NextTimer: got %+v (%t), want %+v", got, ok, active[0])
	}
	return nil
}

// stepCopy steps a copy of c by a timer event and returns the copy.
func stepCopy(m *engine.Machine, c *engine.Config, ev engine.Event) (engine.Config, *engine.Result, error) {
	cp := *c
	var res engine.Result
	err := m.Step(&cp, &ev, &res)
	return cp, &res, err
}

func timerEvent(id engine.TimerID, at int64) engine.Event {
	return engine.Event{Kind: engine.TimerEvent, Timer: id, At: at, Confidence: 1, Intent: engine.NoID, Ext: engine.NoID}
}

// ignoredAt checks that stepping c by ev changed nothing but the clock.
func ignoredAt(m *engine.Machine, c *engine.Config, ev engine.Event) error {
	got, res, err := stepCopy(m, c, ev)
	want := *c
	want.Now = ev.At
	switch {
	case err != nil:
		return fmt.Errorf("timer %s @%d: got error %v, want it ignored", m.TimerName(ev.Timer), ev.At, err)
	case res.Handled || len(res.Steps) > 0 || len(res.Effects) > 0:
		return fmt.Errorf("timer %s @%d: got it handled (%d steps, %d effects), want it ignored", m.TimerName(ev.Timer), ev.At, len(res.Steps), len(res.Effects))
	case got != want:
		return fmt.Errorf("timer %s @%d: ignoring it changed the configuration: got %s, want %s", m.TimerName(ev.Timer), ev.At, m.Describe(&got), m.Describe(&want))
	}
	return nil
}

func ignoredTimersLaw(m *engine.Machine, c *engine.Config, ids []engine.TimerID) error {
	for _, id := range ids {
		if _, ok := pendingTimer(c, id); ok {
			continue
		}
		for _, at := range []int64{c.Now, c.Now + 7} {
			if err := ignoredAt(m, c, timerEvent(id, at)); err != nil {
				return fmt.Errorf("a timer that is not pending: %w", err)
			}
		}
	}
	return nil
}

func offDeadlineLaw(m *engine.Machine, c *engine.Config) error {
	for _, t := range c.Timers {
		if !t.Active {
			continue
		}
		for _, at := range []int64{t.Deadline - 1, t.Deadline + 1} {
			if at < c.Now {
				continue
			}
			ev := timerEvent(t.ID, at)
			if c.Final {
				// A final configuration ignores every event.
				if err := ignoredAt(m, c, ev); err != nil {
					return fmt.Errorf("in a final configuration, off its deadline: %w", err)
				}
				continue
			}
			got, res, err := stepCopy(m, c, ev)
			if err == nil || res.Handled || got != *c {
				return fmt.Errorf("timer %s @%d, off its deadline %d: got error %v, handled %t, configuration changed %t; want an error and no change",
					m.TimerName(t.ID), at, t.Deadline, err, res.Handled, got != *c)
			}
		}
	}
	return nil
}

// firedTimerLaw checks a turn that fired a timer.
func firedTimerLaw(m *engine.Machine, turn *et.Turn) error {
	ev := turn.Event
	fired, ok := pendingTimer(&turn.Before, ev.Timer)
	if !ok || fired.Deadline != ev.At {
		if turn.Handled {
			return fmt.Errorf("timer %s handled @%d, but it was not pending at that deadline (%+v)", m.TimerName(ev.Timer), ev.At, fired)
		}
		return nil
	}
	now, ok := pendingTimer(&turn.After, ev.Timer)
	switch {
	case ok && now.Seq == fired.Seq:
		return fmt.Errorf("timer %s (seq %d) is still pending after it fired; it would fire again", m.TimerName(ev.Timer), fired.Seq)
	case ok && !startedIn(turn.Effects, ev.Timer):
		return fmt.Errorf("timer %s is pending again after it fired, but no action restarted it", m.TimerName(ev.Timer))
	case ok:
		return nil // restarted: its new deadline is later, and checked with the others
	}
	if err := ignoredAt(m, &turn.After, ev); err != nil {
		return fmt.Errorf("firing a fired timer again: %w", err)
	}
	return nil
}

func startedIn(effects []engine.Effect, id engine.TimerID) bool {
	for _, e := range effects {
		if e.Kind == engine.EffStartTimer && e.Timer == id {
			return true
		}
	}
	return false
}

// cancelledTimerLaw checks the timers a turn cancelled (and did not start
// again after): they are not pending, and their event at the deadline they
// had is ignored.
func cancelledTimerLaw(m *engine.Machine, turn *et.Turn) error {
	deadline := map[engine.TimerID]int64{}
	for _, t := range turn.Before.Timers {
		if t.Active {
			deadline[t.ID] = t.Deadline
		}
	}
	cancelled := map[engine.TimerID]int64{}
	for _, e := range turn.Effects {
		switch e.Kind {
		case engine.EffStartTimer:
			delete(cancelled, e.Timer)
			deadline[e.Timer] = e.Deadline
		case engine.EffCancelTimer:
			cancelled[e.Timer] = deadline[e.Timer]
		}
	}
	for id, at := range cancelled {
		if _, ok := pendingTimer(&turn.After, id); ok {
			return fmt.Errorf("timer %s is pending after it was cancelled", m.TimerName(id))
		}
		if at < turn.After.Now {
			continue
		}
		if err := ignoredAt(m, &turn.After, timerEvent(id, at)); err != nil {
			return fmt.Errorf("a cancelled timer at its old deadline: %w", err)
		}
	}
	return nil
}

// ignoredEvents: Step's contract that an event it reports unhandled leaves
// the configuration unchanged apart from the clock, and apart from what the
// event consumed or delivered regardless: the timer that fell due, the
// awaited result of a fork branch's action, and an action's outputs, which
// land in the slots they are named after whether or not a transition
// handles the done: event (docs/machine-format.md, External actions).
func ignoredEvents(m *engine.Machine, c et.Case) error {
	t := et.Play(m, c.Moves)
	for i := range t.Turns {
		turn := &t.Turns[i]
		if turn.Err != nil {
			break
		}
		if turn.Handled {
			continue
		}
		want := turn.Before
		want.Now = turn.Event.At
		ev := &turn.Event
		switch {
		case ev.Kind == engine.TimerEvent:
			for k := range want.Timers {
				if t := want.Timers[k]; t.Active && t.ID == ev.Timer && t.Deadline == ev.At {
					want.Timers[k] = engine.Timer{}
				}
			}
		case ev.Branch > 0 && int(ev.Branch) <= int(want.NBranch):
			want.Branches[ev.Branch-1].Pending = engine.NoID
		}
		if ev.Kind == engine.DoneEvent && !turn.Before.Final && (ev.Branch == 0 || int(ev.Branch) <= int(turn.Before.NBranch)) {
			for k := 0; k < int(ev.NEnt); k++ {
				if s, ok := m.SlotID(m.EntityName(ev.Entities[k].ID)); ok {
					want.SetSlot(s, ev.Entities[k].Value)
					if v := want.Slot(s); v.Kind == engine.Text && v.Str == "" {
						want.SetSlot(s, engine.Value{})
					}
				}
			}
		}
		if turn.After != want {
			return fmt.Errorf("event %d (%s) was ignored, but changed the configuration: got %s, want %s\ngot  %+v\nwant %+v",
				i, turn.Line, m.Describe(&turn.After), m.Describe(&want), turn.After, want)
		}
	}
	return nil
}

// joinLaws: a join records every branch finished and every contract
// delivered, and a branch's step joins only when it was the last one
// running; a fork state whose branches all finished has joined; a branch's
// step moves that branch alone; finish orders number the finished branches
// from 1; and playing the conversation under another
// branch schedule gives the same joins, and configurations that differ only
// in the branches' progress (and, for a merge by finish order, the merged
// slot).
func joinLaws(m *engine.Machine, c et.Case) error {
	t := et.Play(m, c.Moves)
	for i := range t.Turns {
		turn := &t.Turns[i]
		if turn.Err != nil {
			break
		}
		if err := joinTurnLaw(m, turn); err != nil {
			return fmt.Errorf("event %d (%s): %w", i, turn.Line, err)
		}
	}
	byFinish, merged := mergeOf(m, c.Def)
	other := et.Play(m, et.Reschedule(c.Moves, rand.New(rand.NewSource(c.Seed^0x5eed))))
	if len(other.Turns) != len(t.Turns) {
		return fmt.Errorf("another branch schedule: got %d events, want %d", len(other.Turns), len(t.Turns))
	}
	project := func(c engine.Config) engine.Config {
		c.Branches, c.Finished = [engine.MaxBranches]engine.Branch{}, 0
		c.SetTexts("")
		if byFinish && merged != engine.NoID {
			c.SetSlot(merged, engine.Value{})
		}
		return c
	}
	for i := range t.Turns {
		a, b := &t.Turns[i], &other.Turns[i]
		where := fmt.Sprintf("another branch schedule, event %d (%s, there %s)", i, a.Line, b.Line)
		switch {
		case !toBranch(a.Event) && a.Line != b.Line:
			return fmt.Errorf("%s: got another event", where)
		case !reflect.DeepEqual(a.Joins, b.Joins):
			return fmt.Errorf("%s: got joins %+v, want %+v", where, b.Joins, a.Joins)
		case errText(a.Err) != errText(b.Err):
			return fmt.Errorf("%s: got error %q, want %q", where, errText(b.Err), errText(a.Err))
		case project(a.After) != project(b.After):
			pa, pb := project(a.After), project(b.After)
			return fmt.Errorf("%s: got %s, want %s", where, m.Describe(&pb), m.Describe(&pa))
		}
	}
	return nil
}

func joinTurnLaw(m *engine.Machine, turn *et.Turn) error {
	for _, j := range turn.Joins {
		if j.Finished != j.Branches || j.Delivered != j.Branches || j.Failed > j.Finished {
			return fmt.Errorf("join of %s while branches ran: %+v", m.StateName(j.Fork), j)
		}
	}
	before, c := &turn.Before, &turn.After
	if i := int(turn.Event.Branch) - 1; i >= 0 && i < int(before.NBranch) {
		// A step of branch i: it alone was unfinished if the fork joined,
		// and it alone moved if the fork stayed.
		if len(turn.Joins) > 0 && turn.Joins[0].Fork == before.State && int(before.NBranch-before.Finished) != 1 {
			return fmt.Errorf("branch %d's step joined %s while %d branches ran", i, m.StateName(before.State), before.NBranch-before.Finished)
		}
		if len(turn.Joins) == 0 && c.State == before.State {
			for k := 0; k < int(c.NBranch); k++ {
				if k != i && c.Branches[k] != before.Branches[k] {
					return fmt.Errorf("branch %d's step changed branch %d: got %+v, want %+v", i, k, c.Branches[k], before.Branches[k])
				}
			}
		}
	}
	finished := 0
	orders := map[uint8]bool{}
	for i := range c.Branches {
		b := &c.Branches[i]
		if i >= int(c.NBranch) {
			if *b != (engine.Branch{}) {
				return fmt.Errorf("branch %d of %d is not cleared: %+v", i, c.NBranch, *b)
			}
			continue
		}
		if !m.IsFork(c.State) || !m.InState(b.State, c.State) {
			return fmt.Errorf("branch %d runs in %s, outside the fork state %s", i, m.StateName(b.State), m.StateName(c.State))
		}
		if (b.Status == engine.BranchRunning) != (b.Order == 0) || orders[b.Order] && b.Order != 0 {
			return fmt.Errorf("branch %d: status %d with finish order %d", i, b.Status, b.Order)
		}
		orders[b.Order] = true
		if b.Status != engine.BranchRunning {
			finished++
		}
	}
	for k := 1; k <= finished; k++ {
		if !orders[uint8(k)] {
			return fmt.Errorf("%d branches finished, but none was finished %d", finished, k)
		}
	}
	switch {
	case finished != int(c.Finished):
		return fmt.Errorf("%d branches finished, but Finished is %d", finished, c.Finished)
	case m.IsFork(c.State) && c.Finished == c.NBranch:
		return fmt.Errorf("all %d branches of %s finished, but it did not join", c.NBranch, m.StateName(c.State))
	}
	return nil
}

// mergeOf says whether the machine's fork merges by finish order, and into
// which slot (NoID when none).
func mergeOf(m *engine.Machine, d *engine.Definition) (bool, engine.SlotID) {
	for _, sd := range d.States {
		if f := sd.Fork; f != nil && f.Into != "" {
			id, _ := m.SlotID(f.Into)
			return f.Merge == "finish", id
		}
	}
	return false, engine.NoID
}

// toBranch reports whether ev is addressed to a fork branch, so that
// another schedule may replace it.
func toBranch(ev engine.Event) bool {
	return ev.Branch > 0
}

// hashLaw: over the configurations two runs of a case reach (two branch
// schedules), equal configurations hash equally, and distinct ones hash
// apart: a collision among so few would point at a field Hash leaves out.
func hashLaw(m *engine.Machine, c et.Case) error {
	configs := et.Play(m, c.Moves).Configs()
	configs = append(configs, et.Play(m, et.Reschedule(c.Moves, rand.New(rand.NewSource(c.Seed^0x5eed)))).Configs()...)
	byConfig := map[engine.Config]uint64{}
	byHash := map[uint64]engine.Config{}
	for i := range configs {
		cfg := configs[i]
		h := cfg.Hash()
		if cp := cfg; cp.Hash() != h {
			return fmt.Errorf("a copy of %s hashes differently", m.Describe(&cfg))
		}
		if prev, ok := byConfig[cfg]; ok && prev != h {
			return fmt.Errorf("equal configurations %s hash to %x and %x", m.Describe(&cfg), prev, h)
		}
		if prev, ok := byHash[h]; ok && prev != cfg {
			return fmt.Errorf("distinct configurations hash alike (%x):\n%+v\n%+v", h, prev, cfg)
		}
		byConfig[cfg], byHash[h] = h, cfg
	}
	return nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// firstDiff locates the first line where two texts differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, gl, wl)
		}
	}
	return "no line"
}

// featureCount is how often a feature showed up in the random cases, and
// how often it must for the generator to be doing its job.
type featureCount struct {
	name   string
	n, min int
}

type featureCounts struct{ list []featureCount }

func (f *featureCounts) features() []featureCount { return f.list }

func (f *featureCounts) String() string {
	var b strings.Builder
	for _, x := range f.list {
		fmt.Fprintf(&b, "  %-40s %5d (min %d)\n", x.name, x.n, x.min)
	}
	return b.String()
}

// coverage plays the first lawCases cases the laws see and counts what they
// exercised.
func coverage() *featureCounts {
	GinkgoHelper()
	gp := gopter.DefaultGenParameters().CloneWithSeed(lawSeed)
	counts := map[string]int{}
	for k := 0; k < lawCases; k++ {
		v, ok := et.GenCase()(gp).Retrieve()
		Expect(ok).To(BeTrue())
		c := v.(et.Case)
		m, diags := engine.Build(c.Def)
		Expect(diags.Err()).NotTo(HaveOccurred())
		if hasFork(c.Def) {
			counts["machines with a fork"]++
		}
		t := et.Play(m, c.Moves)
		counts["events"] += len(t.Turns)
		counts["eventless transitions"] += strings.Count(t.Trace, "(always)")
		counts["overrides taken"] += strings.Count(t.Trace, "(override:")
		for i := range t.Turns {
			turn := &t.Turns[i]
			if turn.Err != nil {
				counts["runtime errors"]++
				continue
			}
			ev := &turn.Event
			switch {
			case ev.Kind == engine.UserEvent && turn.Handled:
				counts["user events handled"]++
			case ev.Kind == engine.UserEvent:
				counts["user events ignored"]++
			case ev.Kind == engine.TimerEvent && turn.Handled:
				counts["timer events handled"]++
				if strings.HasPrefix(m.TimerName(ev.Timer), "timeout.") {
					counts["state timeouts handled"]++
				}
			case ev.Kind == engine.TimerEvent:
				counts["timer events ignored"]++
			case ev.Branch > 0:
				counts["branch action results"]++
			case turn.Handled:
				counts["action results handled"]++
			}
			for _, j := range turn.Joins {
				counts["joins"]++
				if j.Branches > 1 {
					counts["joins of 2+ branches"]++
				}
				if j.Failed > 0 {
					counts["joins with a failed branch"]++
				}
			}
			for _, e := range turn.Effects {
				if e.Kind == engine.EffCancelTimer {
					counts["timers cancelled"]++
				}
			}
			if m.Parent(turn.After.State) != engine.NoID && !m.IsFork(m.Parent(turn.After.State)) {
				counts["steps ending in a child state"]++
			}
			if turn.After.Final && !turn.Before.Final {
				counts["conversations reaching a final state"]++
			}
		}
	}
	list := []featureCount{
		{name: "events", min: 1000},
		{name: "user events handled", min: 300},
		{name: "user events ignored", min: 50},
		{name: "eventless transitions", min: 100},
		{name: "steps ending in a child state", min: 50},
		{name: "overrides taken", min: 5},
		{name: "timer events handled", min: 30},
		{name: "timer events ignored", min: 10},
		{name: "state timeouts handled", min: 5},
		{name: "timers cancelled", min: 20},
		{name: "action results handled", min: 10},
		{name: "machines with a fork", min: 20},
		{name: "branch action results", min: 5},
		{name: "joins", min: 10},
		{name: "joins of 2+ branches", min: 5},
		{name: "joins with a failed branch", min: 3},
		{name: "conversations reaching a final state", min: 5},
		{name: "runtime errors", min: 1},
	}
	for i := range list {
		list[i].n = counts[list[i].name]
		list[i].min = list[i].min * lawCases / 100 // the minimums are for 100 cases
	}
	return &featureCounts{list: list}
}

func hasFork(d *engine.Definition) bool {
	for _, sd := range d.States {
		if sd.Fork != nil {
			return true
		}
	}
	return false
}

// envInt reads an integer from the environment, or returns def.
func envInt(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil {
		return v
	}
	return def
}
