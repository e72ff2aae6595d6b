package generate

// The gopter side, wrapped so the rest of simctl never sees interface{}: a
// gopter.Gen draws a Conversation from GenParameters whose source is seeded
// per conversation index, and gopter's slice shrinker, with element
// shrinkers of our own, proposes smaller conversations.

import (
	"math/rand"
	randv2 "math/rand/v2"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

// gen returns the gopter generator of the model's conversations: the
// persona, the goal, a value choice per goal slot, max_turns acts drawn
// with the persona's chances, and the acts past completion.
func (mo *Model) gen() gopter.Gen {
	goalWeights := make([]float64, len(mo.goals))
	maxSlots := 0
	for i, g := range mo.goals {
		goalWeights[i] = g.weight
		maxSlots = max(maxSlots, len(g.slots))
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		persona := Persona(weighted(p.Rng, mo.personas[:]))
		conv := Conversation{Persona: persona, Goal: uint8(weighted(p.Rng, goalWeights))}
		for i := 0; i < maxSlots; i++ {
			conv.Values = append(conv.Values, uint8(p.Rng.Intn(256)))
		}
		for i := 0; i < mo.maxTurns; i++ {
			a := Act{Kind: Kind(weighted(p.Rng, mo.stray[persona][:])), Pick: uint8(p.Rng.Intn(256))}
			if mo.failRate > 0 && persona != Cooperative {
				// A cooperative user meets a backend that works: bounded
				// liveness asks for an end when everyone cooperates.
				a.Fail = p.Rng.Float64() < mo.failRate
			}
			conv.Acts = append(conv.Acts, a)
		}
		for i := 0; i < mo.after; i++ {
			conv.After = append(conv.After, Act{Kind: Kind(weighted(p.Rng, afterKinds[:])), Pick: uint8(p.Rng.Intn(256))})
		}
		return gopter.NewGenResult(conv, shrinkConversation)
	}
}

// weighted draws an index with probability proportional to its weight.
func weighted(r *rand.Rand, w []float64) int {
	total := 0.0
	for _, x := range w {
		total += x
	}
	if total <= 0 {
		return 0
	}
	x := r.Float64() * total
	for i, v := range w {
		if x < v {
			return i
		}
		x -= v
	}
	return len(w) - 1
}

// Sample draws conversation k of the stream seeded by seed. It depends on
// nothing else, so any shard draws the same conversation k.
func (mo *Model) Sample(seed int64, k int) Conversation {
	s := int64(mix(uint64(seed), uint64(k)))
	p := &gopter.GenParameters{MaxSize: mo.maxTurns, MaxShrinkCount: 1000, Rng: rand.New(&splitMix{state: uint64(s)})}
	v, _ := mo.gen()(p).Retrieve()
	return v.(Conversation)
}

// splitMix is SplitMix64 as a math/rand source (gopter draws through a
// *rand.Rand). Seeding math/rand's own source fills a 607-word table, which
// took longer than playing a conversation; this one seeds in one word.
type splitMix struct{ state uint64 }

func (x *splitMix) Seed(seed int64) { x.state = uint64(seed) }

func (x *splitMix) Uint64() uint64 {
	x.state += 0x9e3779b97f4a7c15
	z := x.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (x *splitMix) Int63() int64 { return int64(x.Uint64() >> 1) }

// mix is SplitMix64 over (seed, k): well-spread per-conversation seeds.
func mix(seed, k uint64) uint64 {
	z := seed + 0x9e3779b97f4a7c15*(k+1)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func newRand(seed uint64) *randv2.Rand { return randv2.New(randv2.NewPCG(seed, seed^0xdeadbeef)) }

// shrinkConversation proposes smaller conversations: fewer acts (gopter's
// slice shrinker halves, then drops chunks), then simpler acts (towards
// Follow and Pick 0), then simpler value choices (towards 0).
func shrinkConversation(v interface{}) gopter.Shrink {
	c := v.(Conversation)
	acts := gen.SliceShrinker(shrinkAct)(c.Acts).Map(func(a []Act) Conversation {
		return Conversation{Persona: c.Persona, Goal: c.Goal, Values: c.Values, Acts: a, After: c.After}
	})
	after := gen.SliceShrinker(shrinkAct)(c.After).Map(func(a []Act) Conversation {
		return Conversation{Persona: c.Persona, Goal: c.Goal, Values: c.Values, Acts: c.Acts, After: a}
	})
	values := gen.SliceShrinkerOne(shrinkUint8)(c.Values).Map(func(vs []uint8) Conversation {
		return Conversation{Persona: c.Persona, Goal: c.Goal, Values: vs, Acts: c.Acts, After: c.After}
	})
	return acts.Interleave(after).Interleave(values)
}

func shrinkAct(v interface{}) gopter.Shrink {
	a := v.(Act)
	var out []interface{}
	if a.Fail {
		out = append(out, Act{Kind: a.Kind, Pick: a.Pick})
	}
	if a.Kind != Follow {
		out = append(out, Act{Kind: Follow, Pick: a.Pick, Fail: a.Fail})
	}
	if a.Pick != 0 {
		out = append(out, Act{Kind: a.Kind, Pick: 0, Fail: a.Fail})
	}
	return fromList(out)
}

func shrinkUint8(v interface{}) gopter.Shrink {
	if x := v.(uint8); x != 0 {
		return fromList([]interface{}{uint8(0)})
	}
	return gopter.NoShrink
}

func fromList(l []interface{}) gopter.Shrink {
	i := 0
	return func() (interface{}, bool) {
		if i >= len(l) {
			return nil, false
		}
		i++
		return l[i-1], true
	}
}
