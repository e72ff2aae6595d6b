package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/spec"
)

// Status is a scenario's verdict.
type Status string

const (
	// Pass: every expectation held and no invariant broke.
	Pass Status = "pass"
	// Known: it passed except for invariant violations the scenario lists
	// under known_violations (a seed document contradicting itself).
	Known Status = "known"
	// Fail: an expectation failed, an unlisted invariant broke, the engine
	// reported an error, or a listed violation did not happen.
	Fail Status = "fail"
)

// Failure is one failed expectation, at the position of the expectation in
// the scenario file.
type Failure struct {
	Pos  engine.Pos
	Turn int
	What string
	Got  string
	Want string
}

func (f Failure) String() string {
	if f.Got == "" && f.Want == "" {
		return fmt.Sprintf("%s: turn %d: %s", f.Pos, f.Turn, f.What)
	}
	return fmt.Sprintf("%s: turn %d: %s: got %s, want %s", f.Pos, f.Turn, f.What, f.Got, f.Want)
}

// TraceLine is one transition, kept for -v output and reports.
type TraceLine struct {
	Turn int
	// Branch is -1 for the main machine, else the fork branch that stepped.
	Branch  int
	From    string
	To      string
	Trigger string
	Guards  string
	Actions string
}

// String is the line as simctl run -v prints it (and junit.xml carries it).
func (l TraceLine) String() string {
	return fmt.Sprintf("turn %d: %s", l.Turn, l.Step())
}

// Step is the line without its turn: "branch 1: a --trigger--> b  [guards]
// {actions}", on one line however the guards were written (a multi-line
// guard from YAML keeps the trace's indentation).
func (l TraceLine) Step() string {
	from := l.From
	if from == "" {
		from = "(start)"
	}
	branch := ""
	if l.Branch >= 0 {
		branch = fmt.Sprintf("branch %d: ", l.Branch)
	}
	s := fmt.Sprintf("%s%s --%s--> %s", branch, from, l.Trigger, l.To)
	if l.Guards != "" {
		s += "  [" + strings.Join(strings.Fields(l.Guards), " ") + "]"
	}
	if l.Actions != "" {
		s += "  {" + strings.Join(strings.Fields(l.Actions), " ") + "}"
	}
	return s
}

// ScenarioResult is the outcome of one scripted scenario.
type ScenarioResult struct {
	Suite       string
	Variant     string
	Scenario    string
	File        string
	Description string
	Tags        []string
	Status      Status
	Turns       int
	Transitions int
	NLUCalls    int
	NLUSkipped  int
	FinalState  string
	Failures    []Failure
	Violations  []eval.Violation
	// Notes holds, for each of Violations, the note that makes it known
	// (eval.Note.String), or "" when nothing excuses it.
	Notes []string
	// ViolationCount counts every violation, also those past the ones kept.
	ViolationCount int
	Known          []string // the known findings that did occur (Violation.Key)
	// Reached lists the positions of the notes a violation matched, for
	// the run's report of stale notes; Stale the scenario's own notes (in
	// known_violations) that nothing in it reached.
	Reached []engine.Pos
	Stale   []string
	Error   string // engine runtime error, if any
	Trace   []TraceLine
	// TurnLog holds one record per turn played (turns.csv), always kept.
	TurnLog []TurnRecord
	// Replay, when set, is the command that plays it again, for a result
	// that simctl replay FILE does not reproduce (a live bot's divergence,
	// simctl run FILE --bot URL).
	Replay string
	// DurationMS is the virtual time the conversation took, in
	// milliseconds: its waits and, under a latency model, its turns'
	// latencies (junit.xml's time).
	DurationMS int64
}

// Options control a scenario run.
type Options struct {
	// Trace keeps a TraceLine for every transition.
	Trace bool
	// Observers see every step in addition to the invariant checker.
	Observers []Observer
	// Variant is the parameter assignment to run in; nil: the suite's first.
	Variant *spec.Variant
	// Seed is the run's seed; each scenario derives its own source from it
	// and its names, so results do not depend on which scenarios run.
	Seed int64
	// NLU chooses the cassette or the stub, and the noise (cassette.go).
	NLU NLUOptions
	// Latency, when set, aggregates the turns' latencies under the suite's
	// latency model (the suite's model applies either way; without one
	// nothing is added).
	Latency *eval.Latency
	// Wall, when set, times the engine's steps with the wall clock.
	Wall *WallClock
}

// SeedFor derives the seed of one conversation from the run's seed and the
// names that identify it.
func SeedFor(seed int64, names ...string) uint64 {
	h := uint64(14695981039346656037) ^ uint64(seed)
	for _, n := range names {
		for i := 0; i < len(n); i++ {
			h ^= uint64(n[i])
			h *= 1099511628211
		}
		h ^= 0xff
		h *= 1099511628211
	}
	return h
}

// RunScenario plays sc on a fresh conversation of suite s.
func RunScenario(s *spec.Suite, sc *spec.Scenario, opts Options) *ScenarioResult {
	v := opts.Variant
	if v == nil {
		v = s.Variants[0]
	}
	m := v.Machine
	stub := NewStub(s.NLU, m)
	seed := SeedFor(opts.Seed, s.Name, v.Name, sc.Name)
	d := NewDriver(m, opts.NLU.For(s, m, stub, seed^noiseSeed), stub)
	d.Rand = rand.New(rand.NewPCG(seed, seed>>1|1))
	d.KeepPath = true
	d.Latency, d.Wall = s.Latency, opts.Wall
	if s.Latency != nil {
		d.LatencyOut = opts.Latency
	}
	checker := eval.NewChecker(m)
	res := &ScenarioResult{Suite: s.Name, Variant: v.Name, Scenario: sc.Name, File: sc.File, Description: sc.Description, Tags: sc.TagNames()}
	d.Observers = append([]Observer{checker}, opts.Observers...)
	if opts.Trace {
		d.Observers = append(d.Observers, &tracer{m: m, out: &res.Trace})
	}
	d.Fail = make([]bool, 0)
	for _, f := range sc.FailAtStart {
		x, _ := m.ExtID(f.Value)
		for len(d.Fail) <= int(x) {
			d.Fail = append(d.Fail, false)
		}
		d.Fail[x] = true
	}
	err := d.Start(0)
	var states []engine.StateID // after each turn, for a liveness check
	for i := range sc.Turns {
		if err != nil {
			break
		}
		t := &sc.Turns[i]
		d.Fail = d.Fail[:0]
		d.Schedule = append(d.Schedule[:0], t.Schedule...)
		for _, f := range t.Fail {
			x, _ := m.ExtID(f.Value)
			for len(d.Fail) <= int(x) {
				d.Fail = append(d.Fail, false)
			}
			d.Fail[x] = true
		}
		switch {
		case t.User != nil:
			err = d.User(t.User.Value)
		case t.Wait != nil:
			err = d.Wait(int64(*t.Wait))
		case t.Event != nil:
			err = d.Inject(EventOf(m, t.Event))
		}
		res.TurnLog = append(res.TurnLog, recordTurn(d, t))
		if err == nil {
			checker.EndOfTurn(d.Turn, &d.Cfg, d.Data)
		}
		states = append(states, d.Cfg.State)
		if err == nil && t.Expect != nil {
			res.Failures = append(res.Failures, check(d, t.Expect)...)
		}
	}
	res.Turns = d.Turn
	res.DurationMS = d.Cfg.Now
	res.Transitions = d.Transitions
	res.NLUCalls, res.NLUSkipped = d.NLUCalls, d.NLUSkipped
	res.FinalState = m.StateName(d.Cfg.State)
	if err == nil && sc.Liveness && !m.IsIdle(&d.Cfg) {
		checker.Violations = append(checker.Violations, eval.LivenessViolation(m, states, &d.Cfg, d.Turn))
		checker.Count++
	}
	res.Violations = append(res.Violations, checker.Violations...)
	res.ViolationCount = checker.Count
	if err != nil {
		err = scenarioError(err, s.Name, sc.Name, d.Turn)
		res.ViolationCount++
		res.Error = err.Error()
		res.Violations = append(res.Violations, eval.Violation{Invariant: "runtime_error", Turn: d.Turn, Msg: err.Error(),
			State: m.StateName(d.Cfg.State), After: m.Describe(&d.Cfg)})
	}
	if err == nil && sc.FinalState.Value != "" {
		want, _ := m.StateID(sc.FinalState.Value)
		if !m.InState(d.Cfg.State, want) {
			res.Failures = append(res.Failures, Failure{Pos: sc.FinalState.Pos, Turn: d.Turn, What: "final state",
				Got: res.FinalState, Want: sc.FinalState.Value})
		}
	}
	if sc.MaxTurns > 0 && d.Turn > sc.MaxTurns {
		res.Failures = append(res.Failures, Failure{Pos: sc.MaxTurnsPos, Turn: d.Turn, What: "max turns",
			Got: fmt.Sprint(d.Turn), Want: fmt.Sprintf("at most %d", sc.MaxTurns)})
	}
	known, own := ScenarioKnown(m, sc)
	res.Status = verdict(res, sc, known, checker.Unrecorded)
	for _, n := range own {
		if !slices.Contains(res.Reached, n.Pos) {
			res.Stale = append(res.Stale, fmt.Sprintf("%s: %s: %s: nothing in this scenario reached it", n.Pos, n.Invariant, n.Kind))
		}
	}
	return res
}

// ScenarioKnown returns the notes that judge sc's violations in machine
// m: the invariants' notes in machine.yaml and the scenario's own, which it
// also returns apart.
func ScenarioKnown(m *engine.Machine, sc *spec.Scenario) (*eval.Known, []eval.Note) {
	k := eval.NewKnown(m)
	var own []eval.Note
	for _, e := range sc.KnownViolations {
		if len(e.Notes) == 0 {
			continue
		}
		// Checked against the suite's machine when the scenario loaded;
		// a variant's machine has the same states and slots.
		notes, err := m.CompileNotes(e.Invariant.Value, spec.Table(m, e.Invariant.Value), e.Notes)
		if err == nil {
			k = k.With(e.Invariant.Value, notes)
			for _, n := range notes {
				own = append(own, eval.Note{Invariant: e.Invariant.Value, Note: n})
			}
		}
	}
	return k, own
}

// verdict weighs failures and violations against the notes: a violation
// is known only when a note (of its invariant in machine.yaml, or of the
// scenario's known_violations) names its finding, so that any other
// violation of the same invariant fails. A generated failure replays with
// the verdict it had, since the machine's notes apply listed or not; an
// invariant the scenario lists must break in it.
func verdict(res *ScenarioResult, sc *spec.Scenario, known *eval.Known, unrecorded int) Status {
	broke := map[string]bool{}
	unexpected := unrecorded > 0
	res.Notes = make([]string, len(res.Violations))
	for i := range res.Violations {
		v := &res.Violations[i]
		broke[v.Invariant] = true
		n := known.Match(v)
		if n == nil {
			unexpected = true
			continue
		}
		res.Notes[i] = n.String()
		res.Known = append(res.Known, v.Key())
		res.Reached = append(res.Reached, n.Pos)
	}
	if unrecorded > 0 {
		res.Failures = append(res.Failures, Failure{Pos: sc.Pos, Turn: res.Turns,
			What: fmt.Sprintf("%d violations past the %d distinct findings recorded were not judged", unrecorded, len(res.Violations))})
	}
	for _, k := range sc.KnownViolations {
		if !broke[k.Invariant.Value] {
			res.Failures = append(res.Failures, Failure{Pos: k.Invariant.Pos, Turn: res.Turns,
				What: fmt.Sprintf("known violation %s did not happen (remove it from known_violations?)", k.Invariant.Value)})
		}
	}
	switch {
	case len(res.Failures) > 0 || unexpected:
		return Fail
	case len(res.Known) > 0:
		return Known
	}
	return Pass
}

// EventOf is the user event a scenario's `event:` turn delivers.
func EventOf(m *engine.Machine, e *spec.EventSpec) engine.Event {
	id, _ := m.IntentID(e.Intent.Value)
	ev := engine.Event{Kind: engine.UserEvent, Intent: id, Text: e.Text, Value: e.Value, Confidence: 1}
	if data := e.EventData(); data != "" {
		// An SCXML event's data: the data model reads the value as
		// _event.data.
		ev.Value = data
	}
	if e.Confidence != nil {
		ev.Confidence = *e.Confidence
	}
	for _, ent := range e.Entities {
		if eid, ok := m.EntityID(ent.Key); ok {
			ev.AddEntity(eid, engine.TextValue(ent.Value.Value))
		}
		if ev.Value == "" {
			ev.Value = ent.Value.Value
		}
	}
	return ev
}

// check compares the driver's state after a turn with the expectations.
func check(d *Driver, x *spec.Expect) []Failure {
	m, c := d.M, &d.Cfg
	var out []Failure
	fail := func(pos engine.Pos, what, got, want string) {
		out = append(out, Failure{Pos: pos, Turn: d.Turn, What: what, Got: got, Want: want})
	}
	if x.State != nil {
		want, _ := m.StateID(x.State.Value)
		if !m.InState(c.State, want) {
			fail(x.State.Pos, "state", m.StateName(c.State), x.State.Value)
		}
	}
	if x.Waiting != nil {
		got := ""
		if c.Waiting != engine.NoID {
			got = m.SlotName(c.Waiting)
		}
		if got != x.Waiting.Value {
			fail(x.Waiting.Pos, "waiting for slot", quoteOrNone(got), quoteOrNone(x.Waiting.Value))
		}
	}
	for _, s := range x.Slots {
		id, _ := m.SlotID(s.Key)
		v := c.Slot(id)
		if v.IsEmpty() || v.String() != s.Value.Value {
			got := "empty"
			if !v.IsEmpty() {
				got = fmt.Sprintf("%q", v.String())
			}
			fail(s.Value.Pos, "slot "+s.Key, got, fmt.Sprintf("%q", s.Value.Value))
		}
	}
	for _, k := range x.Counters {
		id, _ := m.CounterID(k.Key)
		if got := int(c.Counters[id]); got != k.Value {
			fail(k.KeyPos, "counter "+k.Key, fmt.Sprint(got), fmt.Sprint(k.Value))
		}
	}
	for _, s := range x.Empty {
		id, _ := m.SlotID(s.Value)
		if v := c.Slot(id); !v.IsEmpty() {
			fail(s.Pos, "slot "+s.Value, fmt.Sprintf("%q", v.String()), "empty")
		}
	}
	said := string(d.Info.Said)
	if x.Bot != nil && said != x.Bot.Value {
		fail(x.Bot.Pos, "bot said", fmt.Sprintf("%q", said), fmt.Sprintf("%q", x.Bot.Value))
	}
	if x.BotContains != nil && !strings.Contains(said, x.BotContains.Value) {
		fail(x.BotContains.Pos, "bot said", fmt.Sprintf("%q", said), fmt.Sprintf("text containing %q", x.BotContains.Value))
	}
	if x.BotRe != nil && !x.BotRe.MatchString(said) {
		fail(x.BotMatches.Pos, "bot said", fmt.Sprintf("%q", said), fmt.Sprintf("text matching /%s/", x.BotMatches.Value))
	}
	if x.Intent != nil {
		got := "none"
		if d.Info.Intent != engine.NoID {
			got = m.Intents()[d.Info.Intent]
		}
		if got != x.Intent.Value {
			fail(x.Intent.Pos, "intent", got, x.Intent.Value)
		}
	}
	if x.Actions != nil {
		var got []string
		for _, a := range d.Info.Invoked {
			got = append(got, m.ExtName(a))
		}
		if want := strNames(*x.Actions); strings.Join(got, ",") != strings.Join(want, ",") {
			fail(listPos(*x.Actions, x.Pos), "actions invoked", fmt.Sprintf("[%s]", strings.Join(got, ", ")), fmt.Sprintf("[%s]", strings.Join(want, ", ")))
		}
	}
	if x.Flows != nil {
		var got []string
		for i := 0; i < int(c.FlowDepth); i++ {
			got = append(got, m.FlowName(c.Flows[i]))
		}
		if want := strNames(*x.Flows); strings.Join(got, ",") != strings.Join(want, ",") {
			fail(listPos(*x.Flows, x.Pos), "flow stack", fmt.Sprintf("[%s]", strings.Join(got, ", ")), fmt.Sprintf("[%s]", strings.Join(want, ", ")))
		}
	}
	if x.Path != nil {
		want := *x.Path
		ok := len(want) == len(d.Info.Path)
		got := make([]string, len(d.Info.Path))
		for i, s := range d.Info.Path {
			got[i] = m.StateName(s)
			if ok {
				id, _ := m.StateID(want[i].Value)
				ok = m.InState(s, id)
			}
		}
		if !ok {
			fail(listPos(want, x.Pos), "path", fmt.Sprintf("[%s]", strings.Join(got, ", ")), fmt.Sprintf("[%s]", strings.Join(strNames(want), ", ")))
		}
	}
	if x.NLU != nil {
		got := "called"
		if d.Info.Skipped {
			got = "skipped"
		}
		if got != x.NLU.Value {
			fail(x.NLU.Pos, "nlu", got, x.NLU.Value)
		}
	}
	if x.Escalated != nil && d.Info.Escalated != *x.Escalated {
		fail(x.EscalatedPos, "escalated", fmt.Sprint(d.Info.Escalated), fmt.Sprint(*x.Escalated))
	}
	if x.Configuration != nil {
		want := map[engine.StateID]bool{}
		for _, s := range *x.Configuration {
			id, _ := m.StateID(s.Value)
			want[id] = true
		}
		got := configuration(m, c)
		same := len(got) == len(want)
		for _, id := range got {
			same = same && want[id]
		}
		if !same {
			fail(x.Pos, "configuration", "["+strings.Join(shortNames(m, got), " ")+"]", "["+strings.Join(sortedNames(*x.Configuration), " ")+"]")
		}
	}
	for _, s := range x.Active {
		if id, _ := m.StateID(s.Value); !m.IsActive(c, id) {
			fail(s.Pos, "active", "["+strings.Join(shortNames(m, configuration(m, c)), " ")+"]", s.Value)
		}
	}
	if x.Done != nil && c.Final != *x.Done {
		fail(x.DonePos, "done", fmt.Sprint(c.Final), fmt.Sprint(*x.Done))
	}
	return out
}

// configuration returns the active atomic states of c, every region's,
// in id order.
func configuration(m *engine.Machine, c *engine.Config) []engine.StateID {
	var out []engine.StateID
	for s := 0; s < m.NumStates(); s++ {
		if id := engine.StateID(s); m.IsLeaf(id) && m.IsActive(c, id) {
			out = append(out, id)
		}
	}
	return out
}

// shortNames names states by the last part of their paths where that
// names them alone (an SCXML chart's ids), else by their paths, sorted.
func shortNames(m *engine.Machine, ids []engine.StateID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = m.StateName(id)
		short := out[i][strings.LastIndexByte(out[i], '.')+1:]
		if x, ok := m.StateID(short); ok && x == id {
			out[i] = short
		}
	}
	slices.Sort(out)
	return out
}

func sortedNames(l spec.StrList) []string {
	out := strNames(l)
	slices.Sort(out)
	return out
}

func quoteOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func strNames(l spec.StrList) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = s.Value
	}
	return out
}

func listPos(l spec.StrList, fallback engine.Pos) engine.Pos {
	if len(l) > 0 {
		return l[0].Pos
	}
	return fallback
}

// tracer records a TraceLine per transition for -v and reports.
type tracer struct {
	m   *engine.Machine
	out *[]TraceLine
}

func (t *tracer) Observe(st *eval.Step) {
	turn, r := st.Turn, st.Result
	for _, s := range r.Steps {
		line := TraceLine{Turn: turn, Branch: int(s.Branch) - 1, To: t.m.StateName(s.To), Trigger: "start"}
		if s.From != engine.NoID {
			line.From = t.m.StateName(s.From)
		}
		if s.Trans != engine.NoID {
			line.Trigger = t.m.Transition(s.Trans).Trigger
			if s.Overrode != engine.NoID {
				line.Trigger += " (instead of " + t.m.Transition(s.Overrode).Trigger + " to " + t.m.StateName(t.m.Transition(s.Overrode).Target) + ")"
			}
		}
		var g []string
		for _, o := range r.Guards[s.GuardLo:s.GuardHi] {
			g = append(g, fmt.Sprintf("%s: %v", t.m.Transition(o.Trans).Guard, o.Pass))
		}
		line.Guards = strings.Join(g, "; ")
		var a []string
		for _, ai := range r.Actions[s.ActLo:s.ActHi] {
			kind, name, _ := t.m.ActionInfo(ai)
			if name != "" && kind != engine.ActSay {
				a = append(a, kind.String()+" "+name)
			} else {
				a = append(a, kind.String())
			}
		}
		line.Actions = strings.Join(a, ", ")
		*t.out = append(*t.out, line)
	}
}
