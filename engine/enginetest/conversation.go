package enginetest

import (
	"fmt"
	"math/rand"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"

	"github.com/simctl/simctl/engine"
)

// MoveKind says what a conversation does next.
type MoveKind uint8

const (
	// MoveUser is a user turn: an intent with a value, after some silence.
	MoveUser MoveKind = iota
	// MoveWait lets the pending timer that fires first fire, at its deadline.
	MoveWait
	// MoveBranch hands a region of the active parallel state (a fork's
	// branch) the result of the action it awaits: which region's result
	// arrives first is the only interleaving regions have.
	MoveBranch
	// MoveDone hands the main machine the result of an action it invoked.
	MoveDone
)

// Move is one step of a random conversation. It is abstract: Play resolves
// it against the configuration the conversation has reached, so that every
// move yields an event the engine accepts (no timer skipped, no branch
// stepped that cannot step) or, when it has nothing to act on, none.
type Move struct {
	Kind MoveKind
	// Pick chooses the intent and value of a user turn, the branch a
	// branch move advances, or the action a done move answers.
	Pick uint8
	// Delay is the silence in milliseconds before a user turn; it is cut
	// short at the next timer's deadline.
	Delay uint16
}

func (mv Move) String() string {
	switch mv.Kind {
	case MoveUser:
		return fmt.Sprintf("u%d+%d", mv.Pick, mv.Delay)
	case MoveWait:
		return "w"
	case MoveBranch:
		return fmt.Sprintf("b%d", mv.Pick)
	}
	return fmt.Sprintf("d%d", mv.Pick)
}

// RandomMoves draws a conversation of n moves: mostly user turns, then
// waits, branch steps and action results.
func RandomMoves(r *rand.Rand, n int) []Move {
	kinds := []MoveKind{MoveUser, MoveUser, MoveUser, MoveUser, MoveWait, MoveWait, MoveWait, MoveBranch, MoveBranch, MoveBranch, MoveDone}
	moves := make([]Move, n)
	for i := range moves {
		moves[i] = Move{Kind: kinds[r.Intn(len(kinds))], Pick: uint8(r.Intn(256)), Delay: uint16(r.Intn(400))}
	}
	return moves
}

// Reschedule returns a copy of moves whose branch moves pick their region
// with r instead: the same conversation with the regions' results
// delivered in another order. Every other move is kept as it is.
func Reschedule(moves []Move, r *rand.Rand) []Move {
	out := append([]Move(nil), moves...)
	for i := range out {
		if out[i].Kind == MoveBranch {
			out[i].Pick = uint8(r.Intn(256))
		}
	}
	return out
}

// Turn is one event a conversation played: the configuration before it,
// the event, and what Step made of it.
type Turn struct {
	// Move is the index of the move the event was resolved from.
	Move int
	// Line is the event in ParseEvent's syntax, with its time.
	Line    string
	Event   engine.Event
	Before  engine.Config
	After   engine.Config
	Handled bool
	Joins   []engine.Join
	Effects []engine.Effect
	// Err is the runtime error Step returned; the conversation stops there.
	Err error
}

// Transcript is what Play recorded.
type Transcript struct {
	// Start is the configuration Start produced, and StartErr its error.
	Start    engine.Config
	StartErr error
	Turns    []Turn
	// Trace is rendered as Run renders it: one block per event.
	Trace string
}

// Final returns the configuration the conversation ended in.
func (t *Transcript) Final() engine.Config {
	if len(t.Turns) == 0 {
		return t.Start
	}
	return t.Turns[len(t.Turns)-1].After
}

// Configs returns the configurations the conversation reached, Start's
// first; a configuration left by an error is not one of them.
func (t *Transcript) Configs() []engine.Config {
	if t.StartErr != nil {
		return nil
	}
	out := []engine.Config{t.Start}
	for i := range t.Turns {
		if t.Turns[i].Err == nil {
			out = append(out, t.Turns[i].After)
		}
	}
	return out
}

// player resolves moves into events and feeds them to the machine.
type player struct {
	m   *engine.Machine
	c   engine.Config
	r   engine.Result
	out strings.Builder
	// pending lists the actions the main machine invoked whose results
	// were not handed back yet, oldest first. (A branch's pending action
	// is in its Config.Branches entry instead.)
	pending []engine.ExtID
}

// Play starts m at time 0 and plays moves on it, recording every event it
// resolves them to, up to the first runtime error.
func Play(m *engine.Machine, moves []Move) *Transcript {
	p := &player{m: m}
	t := &Transcript{}
	p.out.WriteString("* start @0\n")
	if err := m.Start(&p.c, 0, &p.r); err != nil {
		t.StartErr = err
		fmt.Fprintf(&p.out, "  error: %v\n", err)
		t.Trace = p.out.String()
		return t
	}
	t.Start = p.c
	p.record()
	for i, mv := range moves {
		ev, line, ok := p.resolve(mv)
		if !ok {
			continue
		}
		turn := Turn{Move: i, Line: line, Event: ev, Before: p.c}
		fmt.Fprintf(&p.out, "> %s\n", line)
		turn.Err = m.Step(&p.c, &ev, &p.r)
		turn.After, turn.Handled = p.c, p.r.Handled
		turn.Joins = append([]engine.Join(nil), p.r.Joins...)
		turn.Effects = append([]engine.Effect(nil), p.r.Effects...)
		t.Turns = append(t.Turns, turn)
		if turn.Err != nil {
			fmt.Fprintf(&p.out, "  error: %v\n", turn.Err)
			break
		}
		p.record()
	}
	t.Trace = p.out.String()
	return t
}

// record renders the last result and notes the actions the main machine
// invoked.
func (p *player) record() {
	p.out.WriteString(Format(p.m, &p.r))
	for _, e := range p.r.Effects {
		if e.Kind == engine.EffInvoke && e.Branch == 0 {
			p.pending = append(p.pending, e.Ext)
		}
	}
}

// resolve turns a move into an event at the current configuration, or
// reports that the move has nothing to act on.
func (p *player) resolve(mv Move) (engine.Event, string, bool) {
	m, c := p.m, &p.c
	switch mv.Kind {
	case MoveUser:
		intents := m.Intents()
		in := intents[int(mv.Pick)%len(intents)]
		value := RandomUserValues[int(mv.Pick)/len(intents)%len(RandomUserValues)]
		at := c.Now + int64(mv.Delay)
		if t, ok := m.NextTimer(c); ok && t.Deadline < at {
			at = t.Deadline
		}
		id, _ := m.IntentID(in)
		ev := engine.Event{Kind: engine.UserEvent, Intent: id, Value: value, Text: value, At: at, Confidence: 1, Timer: engine.NoID, Ext: engine.NoID}
		line := in
		if value != "" {
			line += "=" + value
		}
		return ev, fmt.Sprintf("%s@%d", line, at), true
	case MoveWait:
		t, ok := m.NextTimer(c)
		if !ok {
			return engine.Event{}, "", false
		}
		ev := engine.Event{Kind: engine.TimerEvent, Timer: t.ID, At: t.Deadline, Confidence: 1, Intent: engine.NoID, Ext: engine.NoID}
		return ev, fmt.Sprintf("timer:%s@%d", m.TimerName(t.ID), t.Deadline), true
	case MoveBranch:
		// The regions awaiting a result: hand one its result. Each option
		// advances one region by one move, so how many such moves a fork
		// needs does not depend on which region each one picks.
		var opts []int
		for i := 0; i < int(c.NBranch); i++ {
			if c.Branches[i].Pending != engine.NoID {
				opts = append(opts, i)
			}
		}
		if len(opts) == 0 {
			return engine.Event{}, "", false
		}
		i := opts[int(mv.Pick)%len(opts)]
		x := c.Branches[i].Pending
		var ev engine.Event
		m.InvokeIn(c, x, uint8(i+1), c.Now, &ev)
		return ev, fmt.Sprintf("%s:%s/%d@%d", kindWord(ev.Kind), m.ExtName(x), i, ev.At), true
	case MoveDone:
		if len(p.pending) == 0 {
			return engine.Event{}, "", false
		}
		k := int(mv.Pick) % len(p.pending)
		x := p.pending[k]
		p.pending = append(p.pending[:k], p.pending[k+1:]...)
		var ev engine.Event
		m.Invoke(c, x, c.Now, &ev)
		return ev, fmt.Sprintf("%s:%s@%d", kindWord(ev.Kind), m.ExtName(x), ev.At), true
	}
	return engine.Event{}, "", false
}

func kindWord(k engine.EventKind) string {
	if k == engine.FailedEvent {
		return "failed"
	}
	return "done"
}

// Case is one random machine with one random conversation, both drawn from
// Seed; shrinking drops moves and keeps the machine.
type Case struct {
	Seed  int64
	Def   *engine.Definition
	Moves []Move
}

// DrawCase draws the case of seed: a machine (RandomMachine) and 10 to 50
// moves.
func DrawCase(seed int64) Case {
	r := rand.New(rand.NewSource(seed))
	d := RandomMachine(r)
	return Case{Seed: seed, Def: d, Moves: RandomMoves(r, 10+r.Intn(41))}
}

// String is short, because gopter renders every case it draws; Explain is
// the full account of one.
func (c Case) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "case %d: %d moves [", c.Seed, len(c.Moves))
	for i, mv := range c.Moves {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(mv.String())
	}
	b.WriteByte(']')
	return b.String()
}

// Explain renders the case for a person minimising it: its seed, the
// machine as builder code, and the trace of its conversation, whose event
// lines are in ParseEvent's syntax.
func (c Case) Explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nmachine:\n%s\n", c, GoSource(c.Def))
	m, diags := engine.Build(c.Def)
	if err := diags.Err(); err != nil {
		fmt.Fprintf(&b, "build: %v\n", err)
		return b.String()
	}
	fmt.Fprintf(&b, "trace:\n%s", Play(m, c.Moves).Trace)
	return b.String()
}

// GenCase is the gopter generator of cases: each draws its own seed from
// gopter's source, so a case is reproduced by DrawCase alone.
func GenCase() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(DrawCase(p.Rng.Int63()), shrinkCase)
	}
}

// shrinkCase proposes the same machine with fewer moves (gopter's slice
// shrinker halves, then drops ever smaller chunks).
func shrinkCase(v interface{}) gopter.Shrink {
	c := v.(Case)
	return gen.SliceShrinker(gopter.NoShrinker)(c.Moves).Map(func(ms []Move) Case {
		return Case{Seed: c.Seed, Def: c.Def, Moves: ms}
	})
}
