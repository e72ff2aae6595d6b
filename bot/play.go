package bot

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// Source is where a conversation comes from.
const (
	Scripted  = "scripted"
	Generated = "generated"
	Explored  = "explored"
)

// Conversation is what is played against the bot: user messages only, as
// the bot's channel carries nothing else.
type Conversation struct {
	Source string
	Name   string
	// File is the scenario file of a scripted or explored conversation.
	File string
	// Index is a generated conversation's index in the seeded stream.
	Index int
	Users []string
	// Skip, when set, says why the conversation cannot be played live (it
	// waits on the virtual clock, injects an event without text, or makes
	// an external action fail).
	Skip string
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

// Turn is one user message and both replies.
type Turn struct {
	User  string
	Model []string
	Bot   []string
	// MS is the bot's wall-clock latency for this message, in milliseconds.
	MS int64
	// State is the model's state after the turn (for latency by state).
	State engine.StateID
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
	Prefix  string
	senders atomic.Int64
}

// sender returns a sender id never used before in this run.
func (p *Player) sender() string { return fmt.Sprintf("%s-%d", p.Prefix, p.senders.Add(1)) }

// Play plays c, again from the start after a fault, up to Retries times.
func (p *Player) Play(ctx context.Context, c *Conversation) *Result {
	if c.Skip != "" {
		return &Result{Conv: c, Verdict: Skipped, Why: c.Skip}
	}
	faults := map[FaultKind]int{}
	var r *Result
	for attempt := 0; attempt <= p.Retries; attempt++ {
		r = p.play(ctx, c, c.Users)
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

// play plays users once. What the model says when the conversation starts
// is not compared: the REST channel has no way to hear it before the first
// message.
func (p *Player) play(ctx context.Context, c *Conversation, users []string) *Result {
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
	sender := p.sender()
	for i, u := range users {
		said.msgs = said.msgs[:0]
		if err := d.User(u); err != nil {
			res.Verdict, res.Why = Skipped, fmt.Sprintf("the model failed at turn %d: %v", i+1, err)
			return res
		}
		texts, took, err := p.Client.Send(ctx, sender, u)
		if err != nil {
			var f *Fault
			if !errors.As(err, &f) {
				f = &Fault{Kind: Connection, Msg: err.Error()}
			}
			res.Verdict, res.Fault, res.Why = Faulted, f.Kind, fmt.Sprintf("turn %d: %s", i+1, f.Error())
			return res
		}
		t := Turn{User: u, Model: append([]string(nil), said.msgs...), Bot: texts, MS: took.Milliseconds(), State: d.Cfg.State}
		res.Turns = append(res.Turns, t)
		if why := p.Match.Turn(t.Model, t.Bot); why != "" {
			res.Verdict, res.At, res.Why = Diverges, i, fmt.Sprintf("turn %d: %s", i+1, why)
			return res
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

// Shrink looks for a shorter conversation that still diverges: it drops
// the turns after the divergent one, then removes chunks of turns (halves,
// quarters, ... single turns) as long as what is left still diverges,
// playing every candidate against the live bot, at most maxTries times. A
// candidate that meets a fault counts as not diverging. The result is
// re-played against the live bot.
func (p *Player) Shrink(ctx context.Context, r *Result, maxTries int) *Shrunk {
	best := make([]string, r.At+1)
	for i := range best {
		best[i] = r.Turns[i].User
	}
	out := &Shrunk{Result: r, From: len(best)}
	for improved := true; improved && out.Tries < maxTries && ctx.Err() == nil; {
		improved = false
		for chunk := len(best) / 2; chunk >= 1 && !improved; chunk /= 2 {
			for i := 0; i+chunk <= len(best) && out.Tries < maxTries; i++ {
				cand := append(append([]string(nil), best[:i]...), best[i+chunk:]...)
				if len(cand) == 0 {
					continue
				}
				out.Tries++
				if cr := p.play(ctx, r.Conv, cand); cr.Verdict == Diverges {
					best, improved = cand[:cr.At+1], true
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
