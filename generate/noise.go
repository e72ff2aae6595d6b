package generate

// NLU noise in generated conversations, measured runs for noise sweeps,
// and pass^k.

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// useNLU makes the player's conversations talk to nlu.
func (p *Player) useNLU(nlu sim.NLU) { p.d.NLU = nlu }

// resetNoise reseeds the NLU noise, if any, from the conversation's seed:
// the noise a conversation meets depends on nothing else.
func (p *Player) resetNoise(seed uint64) {
	if z, ok := p.d.NLU.(*sim.Noisy); ok {
		z.Reset(seed)
	}
}

// noisyTurn reports whether the NLU noise changed the parse of the user
// turn just played; when recording, it keeps the event the machine got, so
// that the scenario written replays it without noise.
func (p *Player) noisyTurn(t *Turn) bool {
	z, ok := p.d.NLU.(*sim.Noisy)
	if !ok || t.User == "" || p.d.Info.Skipped || !z.Changed {
		return false
	}
	if p.Record {
		ev := z.Last
		t.Parsed, t.Noise = &ev, true
	}
	return true
}

// writeParsed writes a parsed turn as an event turn: a menu answered with
// the event its transition takes, or, under NLU noise, the event the noise
// made of the user's words (marked "# NLU noise"; when the noisy text was
// not understood, a turn in which nothing happens).
func writeParsed(b *strings.Builder, m *engine.Machine, ev *engine.Event, noise bool) {
	if ev.Intent == engine.NoID {
		fmt.Fprintf(b, "  - wait: 0ms # NLU noise: %s was not understood\n", strconv.Quote(ev.Text))
		return
	}
	fmt.Fprintf(b, "  - event: {intent: %s, text: %s, value: %s, confidence: %s",
		strconv.Quote(m.Intents()[ev.Intent]), strconv.Quote(ev.Text), strconv.Quote(ev.Value),
		strconv.FormatFloat(ev.Confidence, 'g', -1, 64))
	if ev.NEnt > 0 {
		parts := make([]string, ev.NEnt)
		for i := range parts {
			e := &ev.Entities[i]
			parts[i] = strconv.Quote(m.EntityName(e.ID)) + ": " + strconv.Quote(e.Value.String())
		}
		fmt.Fprintf(b, ", entities: {%s}", strings.Join(parts, ", "))
	}
	b.WriteString("}")
	if noise {
		b.WriteString(" # NLU noise")
	}
	b.WriteString("\n")
}

// GoalTally counts the conversations drawn for one goal and how many of
// them succeeded.
type GoalTally struct {
	Goal      string
	Trials    int
	Successes int
}

// Measure plays conversations From..To-1 like Run, but only measures:
// no shrinking, no failure scenarios. Besides the metrics it returns, per
// goal (in the model's goal order), the conversations drawn and the
// successes, from which PassHatK computes pass^k. A noise sweep calls it
// once per rate with the same seed, so every rate plays the same
// conversations and only the noise differs.
func Measure(s *spec.Suite, v *spec.Variant, opts Options) (Metrics, []GoalTally, error) {
	met := Metrics{Suite: s.Name, Variant: v.Name}
	mo, err := NewModel(s, v.Machine)
	if err != nil {
		return met, nil, err
	}
	stub := sim.NewStub(s.NLU, v.Machine)
	met.SuccessBy = mo.SuccessBy()
	p := NewPlayer(mo, stub, opts.Observers...)
	p.useNLU(opts.NLU.For(s, v.Machine, stub, 0))
	goals := make([]GoalTally, len(mo.goals))
	for i, g := range mo.goals {
		goals[i].Goal = g.name
		if g.name == "" {
			goals[i].Goal = v.Machine.Intents()[g.intent]
		}
	}
	for k := opts.From; k < opts.To; k++ {
		if opts.stopped() {
			break
		}
		conv := mo.Sample(opts.Seed, k)
		out := p.Play(conv, mix(uint64(opts.Seed), uint64(k)^0xa5a5))
		count(&met, out)
		g := &goals[int(conv.Goal)%len(goals)]
		g.Trials++
		if out.Success {
			g.Successes++
		}
	}
	return met, goals, nil
}

// count adds one conversation's outcome to the metrics (Run and Measure).
func count(met *Metrics, out Outcome) {
	met.Conversations++
	met.Turns += out.Turns
	if out.Success {
		met.Successes++
		met.TurnsToCompletion += out.SuccessTurn
	}
	if out.Cooperative {
		met.Cooperative++
		if out.Success {
			met.CooperativeSuccesses++
		}
	}
	if out.Escalated {
		met.Escalations++
	}
	if out.Cancelled {
		met.Cancellations++
	}
	if out.ViolationCount > 0 {
		met.Violating++
		met.Violations += out.ViolationCount
	}
}

// MaxPassK is the largest k simctl reports pass^k for.
const MaxPassK = 8

// PassHatK is τ-bench's pass^k (Yao et al., 2024): the chance that k
// independent trials of the same task all succeed, averaged over tasks.
// For a goal with n trials and c successes it is estimated without bias by
// C(c,k)/C(n,k); the result is the mean over the goals with at least k
// trials, computed in exact rational arithmetic. ok is false when no goal
// has k trials.
func PassHatK(goals []GoalTally, k int) (pass float64, ok bool) {
	if k < 1 {
		return 0, false
	}
	sum := new(big.Rat)
	n := 0
	for _, g := range goals {
		if g.Trials < k {
			continue
		}
		n++
		sum.Add(sum, new(big.Rat).SetFrac(binomial(g.Successes, k), binomial(g.Trials, k)))
	}
	if n == 0 {
		return 0, false
	}
	sum.Quo(sum, new(big.Rat).SetInt64(int64(n)))
	f, _ := sum.Float64()
	return f, true
}

// binomial is C(n, k), 0 when k > n.
func binomial(n, k int) *big.Int {
	if k > n || k < 0 {
		return new(big.Int)
	}
	return new(big.Int).Binomial(int64(n), int64(k))
}
