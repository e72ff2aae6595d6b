package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// Source is where a conversation comes from.
const (
	Scripted  = "scripted"
	Generated = "generated"
	Explored  = "explored"
)

// Conversation is what is played against the bot: the user's side of it,
// step by step.
type Conversation struct {
	Source string
	Name   string
	// File is the scenario file of a scripted or explored conversation.
	File string
	// Index is a generated conversation's index in the seeded stream.
	Index int
	Steps []Step
	// Skip, when set, says why the conversation cannot be played live (an
	// external action made to fail, or a turn the model cannot replay).
	// What bot.yaml lets reach the bot is decided by the Player.
	Skip string
}

// StepKind is what one step of a conversation sends.
type StepKind uint8

const (
	// Say: a user message, Text.
	Say StepKind = iota
	// Event: a model event without text (Intent, Entities), sent as
	// bot.yaml's events: says.
	Event
	// Wait: WaitMS of the virtual clock, sent to the bot's clock endpoint.
	Wait
)

// Step is one turn of the user's side.
type Step struct {
	Kind       StepKind
	Text       string
	Intent     string
	Entities   [][2]string // name, value, in the scenario's order
	Confidence float64     // 0: 1
	WaitMS     int64
}

// Users is a conversation of user messages only.
func Users(texts ...string) []Step {
	out := make([]Step, len(texts))
	for i, t := range texts {
		out[i] = Step{Text: t}
	}
	return out
}

// Verdict is what playing a conversation against the bot found.
type Verdict uint8

const (
	// Conforms: every reply of the bot matched the model's.
	Conforms Verdict = iota
	// Diverges: at turn At the bot said something else than the model.
	Diverges
	// Faulted: the bot could not be talked to (Fault), on every attempt.
	Faulted
	// Skipped: not played (Conversation.Skip, or the model itself failed).
	Skipped
)

var verdictNames = [...]string{"conforms", "diverges", "fault", "skipped"}

func (v Verdict) String() string { return verdictNames[v] }

// Turn is one step and both replies.
type Turn struct {
	Step
	// User is how the step is shown: the message, the event or the wait.
	User  string
	Model []string
	Bot   []string
	// MS is the bot's wall-clock latency for this message, in milliseconds.
	MS int64
	// State is the model's state after the turn (for latency by state).
	State engine.StateID
	// StateWhy says how the bot's state differed from the model's after
	// the turn ("": it did not, or was not compared).
	StateWhy string
}

// Result is one conversation played.
type Result struct {
	Conv    *Conversation
	Verdict Verdict
	// Turns holds the turns played, up to and including the divergent one.
	Turns []Turn
	// At is the divergent turn's index in Turns (Diverges only).
	At int
	// Why says how the turn diverged, what the fault was, or why it was
	// skipped.
	Why   string
	Fault FaultKind
	// Faults counts every fault met, also on attempts retried after it.
	Faults map[FaultKind]int
	// Attempts is how many times the conversation was played.
	Attempts int
	// Coverage is the model's coverage over the conversation.
	Coverage *eval.Coverage
	// NotPlayed marks a conversation never started: the run was
	// interrupted, or already inconclusive.
	NotPlayed bool
}

// Player plays conversations of one suite and variant against the model
// and the bot side by side. It is safe for concurrent use: every
// conversation gets its own driver.
type Player struct {
	Suite   *spec.Suite
	Variant *spec.Variant
	Client  *Client
	Match   *Matcher
	Seed    int64
	// Retries is how many times a conversation that met a fault is played
	// again from the start, with a fresh sender id.
	Retries int
	// Prefix starts every sender id; ids are Prefix plus a counter, so that
	// every conversation (and every retry) is new to the bot.
	Prefix string
	// Meta is sent with every message of the variant's conversations (its
	// selector at the bot, from bot.yaml's variants:).
	Meta    map[string]any
	senders atomic.Int64
}

// sender returns a sender id never used before in this run.
func (p *Player) sender() string { return fmt.Sprintf("%s-%d", p.Prefix, p.senders.Add(1)) }

// Play plays c, again from the start after a fault, up to Retries times.
func (p *Player) Play(ctx context.Context, c *Conversation) *Result {
	if c.Skip != "" {
		return &Result{Conv: c, Verdict: Skipped, Why: c.Skip}
	}
	if why := p.Cannot(c); why != "" {
		return &Result{Conv: c, Verdict: Skipped, Why: why}
	}
	faults := map[FaultKind]int{}
	var r *Result
	for attempt := 0; attempt <= p.Retries; attempt++ {
		r = p.play(ctx, c, c.Steps)
		r.Attempts = attempt + 1
		if r.Verdict != Faulted {
			break
		}
		faults[r.Fault]++
		if ctx.Err() != nil {
			break
		}
	}
	r.Faults = faults
	return r
}

// sayings collects what the model says in a turn, one entry per say.
type sayings struct{ msgs []string }

func (s *sayings) Observe(st *eval.Step) {
	r := st.Result
	for i := range r.Effects {
		if e := &r.Effects[i]; e.Kind == engine.EffSay {
			s.msgs = append(s.msgs, string(r.EffectText(e)))
		}
	}
}

// Cannot says why c cannot be played against this bot ("": it can): an
// event without text needs bot.yaml's events:, a wait its clock:.
func (p *Player) Cannot(c *Conversation) string {
	conf := p.Client.Conf
	for i, st := range c.Steps {
		switch {
		case st.Kind == Event && (conf == nil || conf.Events == nil):
			return fmt.Sprintf("turn %d injects the event %s, which has no text to send (bot.yaml's events: says how)", i+1, st.Intent)
		case st.Kind == Wait && (conf == nil || conf.Clock == nil):
			return fmt.Sprintf("turn %d waits %dms: it needs the virtual clock (bot.yaml's clock: names the bot's)", i+1, st.WaitMS)
		}
	}
	return ""
}

// send plays one step at the bot.
func (p *Player) send(ctx context.Context, s *Session, st *Step) ([]string, time.Duration, error) {
	switch st.Kind {
	case Wait:
		return p.Client.Advance(ctx, s, st.WaitMS, p.Meta)
	case Event:
		text, meta := EventMessage(p.Client.Conf.Events, st, p.Meta)
		return p.Client.Send(ctx, s, text, meta)
	}
	return p.Client.Send(ctx, s, st.Text, p.Meta)
}

// EventMessage is what an event without text becomes for the bot: the
// message bot.yaml gives for its intent, else Rasa's payload
// /intent{"entity": "value"}, or an empty message with the event in the
// metadata field.
func EventMessage(ev *spec.BotEvents, st *Step, meta map[string]any) (string, map[string]any) {
	for _, m := range ev.Messages {
		if m.Key == st.Intent {
			return m.Value.Value, meta
		}
	}
	ents := map[string]any{}
	for _, e := range st.Entities {
		ents[e[0]] = e[1]
	}
	if ev.As.Value == "metadata" {
		out := map[string]any{ev.Field.Value: map[string]any{"intent": st.Intent, "entities": ents}}
		for k, v := range meta {
			out[k] = v
		}
		return "", out
	}
	if len(ents) == 0 {
		return "/" + st.Intent, meta
	}
	b, _ := json.Marshal(ents)
	return "/" + st.Intent + string(b), meta
}

// step plays one step on the model.
func step(d *sim.Driver, st *Step) error {
	switch st.Kind {
	case Wait:
		return d.Wait(st.WaitMS)
	case Event:
		m := d.M
		id, _ := m.IntentID(st.Intent)
		ev := engine.Event{Kind: engine.UserEvent, Intent: id, Confidence: 1}
		if st.Confidence != 0 {
			ev.Confidence = st.Confidence
		}
		for _, e := range st.Entities {
			if eid, ok := m.EntityID(e[0]); ok {
				ev.AddEntity(eid, engine.TextValue(e[1]))
			}
			if ev.Value == "" {
				ev.Value = e[1]
			}
		}
		return d.Inject(ev)
	}
	return d.User(st.Text)
}

// Show is how a step is shown on the terminal and in bot.csv.
func (st *Step) Show() string {
	switch st.Kind {
	case Wait:
		return fmt.Sprintf("(wait %dms)", st.WaitMS)
	case Event:
		return fmt.Sprintf("(event %s)", st.Intent)
	}
	return st.Text
}

// play plays steps once. What the model says when the conversation starts
// is not compared: the REST channel has no way to hear it before the first
// message.
func (p *Player) play(ctx context.Context, c *Conversation, steps []Step) *Result {
	m := p.Variant.Machine
	stub := sim.NewStub(p.Suite.NLU, m)
	seed := sim.SeedFor(p.Seed, p.Suite.Name, p.Variant.Name, c.Source, c.Name)
	d := sim.NewDriver(m, sim.NLUOptions{}.For(p.Suite, m, stub, seed), stub)
	d.Rand = rand.New(rand.NewPCG(seed, seed>>1|1))
	said := &sayings{}
	res := &Result{Conv: c, Coverage: eval.NewCoverage(m)}
	d.Observers = []sim.Observer{said, res.Coverage}
	if err := d.Start(0); err != nil {
		res.Verdict, res.Why = Skipped, "the model failed: "+err.Error()
		return res
	}
	sess := &Session{Sender: p.sender()}
	var st *spec.BotState
	if p.Client.Conf != nil {
		st = p.Client.Conf.State
	}
	fault := func(i int, err error) *Result {
		var f *Fault
		if !errors.As(err, &f) {
			f = &Fault{Kind: Connection, Msg: err.Error()}
		}
		res.Verdict, res.Fault, res.Why = Faulted, f.Kind, fmt.Sprintf("turn %d: %s", i+1, f.Error())
		return res
	}
	for i := range steps {
		s := &steps[i]
		said.msgs = said.msgs[:0]
		if err := step(d, s); err != nil {
			res.Verdict, res.Why = Skipped, fmt.Sprintf("the model failed at turn %d: %v", i+1, err)
			return res
		}
		texts, took, err := p.send(ctx, sess, s)
		if err != nil {
			return fault(i, err)
		}
		t := Turn{Step: *s, User: s.Show(), Model: append([]string(nil), said.msgs...), Bot: texts, MS: took.Milliseconds(), State: d.Cfg.State}
		res.Turns = append(res.Turns, t)
		if why := p.Match.Turn(t.Model, t.Bot); why != "" {
			res.Verdict, res.At, res.Why = Diverges, i, fmt.Sprintf("turn %d: %s", i+1, why)
			return res
		}
		if st != nil {
			v, err := p.Client.State(ctx, sess)
			if err != nil {
				return fault(i, err)
			}
			if why := CompareState(st, m, &d.Cfg, v); why != "" {
				res.Turns[i].StateWhy = why
				res.Verdict, res.At, res.Why = Diverges, i, fmt.Sprintf("turn %d: %s", i+1, why)
				return res
			}
		}
	}
	res.Verdict = Conforms
	return res
}

// Shrunk is a divergence shrunk against the live bot.
type Shrunk struct {
	// Result is the shortest conversation found, as re-played last against
	// the live bot.
	*Result
	// From is the length of the conversation first found (up to its
	// divergent turn); Tries the conversations played while shrinking.
	From, Tries int
}

// Shrink looks for a shorter, simpler conversation that still diverges,
// in rounds until a round changes nothing: it drops the turns after the
// divergent one, deletes waits, removes chunks of turns (halves,
// quarters, ... single turns), and replaces each user message by the
// first simpler text generate's shrinking would try (the shortest
// utterance the suite's NLU parses the same, or a smaller value). Every
// candidate is played against the live bot, at most maxTries times; one
// that meets a fault counts as not diverging. The result is re-played
// against the live bot.
func (p *Player) Shrink(ctx context.Context, r *Result, maxTries int) *Shrunk {
	best := make([]Step, r.At+1)
	for i := range best {
		best[i] = r.Turns[i].Step
	}
	out := &Shrunk{Result: r, From: len(best)}
	more := func() bool { return out.Tries < maxTries && ctx.Err() == nil }
	// diverges plays cand and keeps it, up to its divergent turn, if it
	// still diverges.
	diverges := func(cand []Step) bool {
		if len(cand) == 0 {
			return false
		}
		out.Tries++
		if cr := p.play(ctx, r.Conv, cand); cr.Verdict == Diverges {
			best = cand[:cr.At+1]
			return true
		}
		return false
	}
	simpler := p.simpler()
	for changed := true; changed && more(); {
		changed = false
		for i := len(best) - 1; i >= 0 && more(); i-- {
			if i < len(best) && best[i].Kind == Wait && diverges(slices.Delete(slices.Clone(best), i, i+1)) {
				changed = true
			}
		}
		for improved := true; improved && more(); {
			improved = false
			for chunk := len(best) / 2; chunk >= 1 && !improved; chunk /= 2 {
				for i := 0; i+chunk <= len(best) && more(); i++ {
					if diverges(append(append([]Step(nil), best[:i]...), best[i+chunk:]...)) {
						improved, changed = true, true
						break
					}
				}
			}
		}
		for i := 0; i < len(best) && simpler != nil && more(); i++ {
			if best[i].Kind != Say {
				continue
			}
			for _, u := range simpler(best[i].Text) {
				if !more() {
					break
				}
				cand := slices.Clone(best)
				cand[i].Text = u
				if diverges(cand) {
					changed = true
					break
				}
			}
		}
	}
	final := p.play(ctx, r.Conv, best)
	out.Tries++
	if final.Verdict == Diverges {
		out.Result = final
	}
	return out
}

// simpler returns, for a user's text, the simpler texts to try in its
// place (generate.Model.SimplerTexts); nil where there are none to try: a
// cassette has no record of words it was not given.
func (p *Player) simpler() func(string) []string {
	if p.Suite.Cassette != nil {
		return nil
	}
	m := p.Variant.Machine
	mo, err := generate.NewModel(p.Suite, m)
	if err != nil {
		return nil
	}
	stub := sim.NewStub(p.Suite.NLU, m)
	return func(text string) []string { return mo.SimplerTexts(stub, text) }
}
