package sim

import (
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

// noiseSeed separates the noise model's random stream from the fork
// scheduler's, so that turning noise on does not change branch orders.
const noiseSeed = 0x6e6f6973655f6e6c

// noiseDraws is the number of uniforms every parse draws, whatever the
// rate and whatever happens: conversation k then meets the same draws at
// every rate of a sweep, so that results at different rates differ only by
// the rate (common random numbers).
const noiseDraws = 7 + 2*engine.MaxEntities

// Noisy is the NLU error model: it sits between the user and an NLU and,
// with probabilities that grow with Rate, perturbs the text before the
// NLU sees it (a typo or a dropped word; stub NLU only, since a cassette
// has no record of perturbed text), confuses the intent, jitters the
// confidence and drops or changes entities. Direct slot mapping does not
// call the NLU and is not perturbed. nlu.yaml's noise: scales each kind of
// error and says which intents are confused with which.
type Noisy struct {
	inner    NLU
	stub     *Stub
	m        *engine.Machine
	text     bool
	pText    float64
	pIntent  float64
	jitter   float64
	pEntity  float64
	rows     [][]weighted // per intent: the wrong intents, cumulative weights; nil: uniform
	alts     map[engine.EntityID][]string
	fallback engine.IntentID
	rnd      *rand.Rand
	u        [noiseDraws]float64

	// Changed reports whether the noise changed the last parse, and Last
	// is that parse.
	Changed bool
	Last    engine.Event
}

type weighted struct {
	intent engine.IntentID
	cum    float64
}

// NewNoisy puts the error model of nlu.yaml n (nil: defaults) at rate in
// front of inner. stub is the suite's stub: text perturbation applies only
// when inner is that stub.
func NewNoisy(inner NLU, stub *Stub, n *spec.NLU, m *engine.Machine, rate float64) *Noisy {
	var ns *spec.Noise
	if n != nil {
		ns = n.Noise
	}
	if ns == nil {
		ns = &spec.Noise{}
	}
	p := func(f *spec.Factor) float64 { return min(1, rate*f.Scale()) }
	z := &Noisy{inner: inner, stub: stub, m: m, text: inner == NLU(stub),
		pText: p(ns.Text), pIntent: p(ns.Intent), jitter: rate * ns.Confidence.Scale(), pEntity: p(ns.Entities),
		rows: make([][]weighted, len(m.Intents())), alts: map[engine.EntityID][]string{}, fallback: FallbackIntent(n, m)}
	for _, row := range ns.Confusion {
		from, _ := m.IntentID(row.Key)
		cum := 0.0
		for _, c := range row.Value {
			if c.Value.Value <= 0 {
				continue
			}
			to, _ := m.IntentID(c.Key)
			cum += c.Value.Value
			z.rows[from] = append(z.rows[from], weighted{intent: to, cum: cum})
		}
	}
	if n != nil {
		for _, e := range n.Entities {
			id, ok := m.EntityID(e.Key)
			if !ok {
				continue
			}
			for _, v := range e.Value.Values {
				z.alts[id] = append(z.alts[id], v.Key)
			}
		}
	}
	z.Reset(0)
	return z
}

// Reset reseeds the noise for a new conversation.
func (z *Noisy) Reset(seed uint64) {
	z.rnd = rand.New(rand.NewPCG(seed, seed^noiseSeed))
}

// Parse implements NLU.
func (z *Noisy) Parse(text string, state engine.StateID, ev *engine.Event) error {
	u := &z.u
	for i := range u {
		u[i] = z.rnd.Float64()
	}
	z.Changed = false
	if z.text && u[0] < z.pText {
		if t := perturb(text, u[1], u[2]); t != text {
			text, z.Changed = t, true
		}
	}
	if err := z.inner.Parse(text, state, ev); err != nil {
		return err
	}
	if ev.Intent != engine.NoID {
		z.confuse(ev)
		z.jitterConfidence(ev)
		z.entities(ev)
	}
	z.Last = *ev
	return nil
}

func (z *Noisy) confuse(ev *engine.Event) {
	u := &z.u
	n := len(z.m.Intents())
	if u[3] >= z.pIntent || n < 2 {
		return
	}
	if row := z.rows[ev.Intent]; len(row) > 0 {
		x := u[4] * row[len(row)-1].cum
		to := row[len(row)-1].intent
		for _, w := range row {
			if x < w.cum {
				to = w.intent
				break
			}
		}
		ev.Intent = to
	} else {
		j := engine.IntentID(min(int(u[4]*float64(n-1)), n-2))
		if j >= ev.Intent {
			j++
		}
		ev.Intent = j
	}
	z.Changed = true
}

func (z *Noisy) jitterConfidence(ev *engine.Event) {
	if z.jitter <= 0 {
		return
	}
	c := min(1, max(0, ev.Confidence+(2*z.u[5]-1)*z.jitter))
	if c != ev.Confidence {
		ev.Confidence, z.Changed = c, true
	}
}

// entities drops an entity or gives it a wrong value: another canonical
// value of its nlu.yaml values, or, for an entity without them, its value
// with a typo. event.value follows the entity it came from.
func (z *Noisy) entities(ev *engine.Event) {
	var kept [engine.MaxEntities]engine.Entity
	k, gone := 0, false
	for i := 0; i < int(ev.NEnt); i++ {
		e := ev.Entities[i]
		a, b := z.u[6+2*i], z.u[7+2*i]
		if a >= z.pEntity {
			kept[k], k = e, k+1
			continue
		}
		old := e.Value.String()
		alts := z.alts[e.ID]
		z.Changed = true
		if b < 0.5 || (len(alts) == 0 && utf8.RuneCountInString(old) < 2) {
			gone = gone || ev.Value == old
			continue
		}
		nv := wrongValue(old, alts, (b-0.5)*2)
		e.Value = engine.TextValue(nv)
		if ev.Value == old {
			ev.Value = nv
		}
		kept[k], k = e, k+1
	}
	ev.Entities, ev.NEnt = kept, uint8(k)
	if gone {
		ev.Value = ""
		for i := 0; i < k && ev.Value == ""; i++ {
			ev.Value = kept[i].Value.String()
		}
		if ev.Value == "" && ev.Intent == z.fallback {
			ev.Value = strings.TrimSpace(ev.Text)
		}
	}
}

// wrongValue picks, with u in [0,1), one of alts other than old, or, with
// none, old with a typo.
func wrongValue(old string, alts []string, u float64) string {
	var others []string
	for _, v := range alts {
		if v != old {
			others = append(others, v)
		}
	}
	if len(others) == 0 {
		return typo(old, u)
	}
	return others[min(int(u*float64(len(others))), len(others)-1)]
}

// perturb makes one error in text: a typo in one word (u2 < 0.5) or a
// dropped word; u1 picks the word. Text of one word gets a typo.
func perturb(text string, u1, u2 float64) string {
	words := strings.Fields(text)
	if len(words) == 0 {
		return text
	}
	i := min(int(u1*float64(len(words))), len(words)-1)
	if u2 < 0.5 || len(words) == 1 {
		k := u2 * 2
		if u2 >= 0.5 {
			k = (u2 - 0.5) * 2
		}
		words[i] = typo(words[i], k)
	} else {
		words = append(words[:i], words[i+1:]...)
	}
	return strings.Join(words, " ")
}

// typo swaps two neighbouring characters of w, at a place u in [0,1)
// picks; a word of one character is dropped.
func typo(w string, u float64) string {
	r := []rune(w)
	if len(r) < 2 {
		return ""
	}
	i := min(int(u*float64(len(r)-1)), len(r)-2)
	if r[i] == r[i+1] {
		// Swapping equal letters changes nothing: drop one instead.
		return string(append(r[:i:i], r[i+1:]...))
	}
	r[i], r[i+1] = r[i+1], r[i]
	return string(r)
}
