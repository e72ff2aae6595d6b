package generate

// Shrinking below the level of drawn acts: once no act can go, the turns
// of the scenario are simplified one by one (waits and other turns
// deleted, a user's words replaced by the shortest utterance the NLU maps
// to the same parse, a value by the smallest that still fails), each
// candidate judged by replaying the scenario file it would write, as
// simctl replay does.

import (
	"regexp"
	"slices"
	"strconv"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// simplifyBudget bounds the replays one failure's simplification plays.
const simplifyBudget = 400

// maxValueTries bounds the smaller values tried in place of one turn's.
const maxValueTries = 6

// replayer replays candidate scenario files of one failure.
type replayer struct {
	p     *Player
	s     *spec.Suite
	v     *spec.Variant
	opts  Options
	f     *Failure
	key   string
	tries int
	// hit is the finding the last replay that made it made.
	hit eval.Violation
}

// spent reports whether the simplification is over: its budget played,
// or the run stopped (a signal), which a long replay must not outlast.
func (r *replayer) spent() bool {
	return r.tries >= simplifyBudget || r.opts.stopped()
}

var generatedTags = map[string]bool{"generated": true}

// replays reports whether the scenario file written for turns makes the
// finding again when replayed.
func (r *replayer) replays(turns []Turn) bool {
	r.tries++
	data := scenarioYAML(r.s, r.v, r.opts, *r.f, turns)
	sc, err := spec.LoadScenario(r.f.Name+".scenario.yaml", data, r.v.Machine, generatedTags, nil)
	if err != nil {
		return false
	}
	nlu := r.opts.NLU
	nlu.Noise = 0
	res := sim.RunScenario(r.s, sc, sim.Options{Variant: r.v, Seed: r.opts.Seed, NLU: nlu})
	for i := range res.Violations {
		if res.Violations[i].Key() == r.key {
			r.hit = res.Violations[i]
			return true
		}
	}
	return false
}

// simplify returns turns simplified as far as the finding allows:
// deletions and simpler words, in rounds, until a round changes nothing.
func (r *replayer) simplify(turns []Turn) []Turn {
	if len(turns) == 0 || !r.replays(turns) {
		return turns
	}
	cur := turns
	for changed := true; changed && !r.spent(); {
		var del, words bool
		cur, del = r.deleteTurns(cur)
		cur, words = r.simplerWords(cur)
		changed = del || words
	}
	return cur
}

// deleteTurns drops the turns the finding does not need: waits first,
// then the others. A liveness finding needs all its turns.
func (r *replayer) deleteTurns(cur []Turn) ([]Turn, bool) {
	if r.f.Invariant == eval.Liveness {
		return cur, false
	}
	changed := false
	for _, waits := range []bool{true, false} {
		for i := len(cur) - 1; i >= 0 && !r.spent(); i-- {
			if cur[i].IsWait != waits || len(cur) == 1 {
				continue
			}
			cand := slices.Delete(slices.Clone(cur), i, i+1)
			if r.replays(cand) {
				cur, changed = cand, true
			}
		}
	}
	return cur, changed
}

// simplerWords replaces each user turn's words by the first of
// mo.SimplerTexts with which the finding stays.
func (r *replayer) simplerWords(cur []Turn) ([]Turn, bool) {
	if r.s.Cassette != nil {
		// Words the cassette has no record of would not replay.
		return cur, false
	}
	changed := false
	for i := range cur {
		t := cur[i]
		if t.User == "" || r.spent() {
			continue
		}
		for _, u := range r.p.mo.SimplerTexts(r.p.stub, t.User) {
			if r.spent() {
				break
			}
			cand := slices.Clone(cur)
			cand[i].User = u
			if r.replays(cand) {
				cur, changed = cand, true
				break
			}
		}
	}
	return cur, changed
}

// SimplerTexts are the texts to try in place of a user's text, best
// first, each shorter than it: the utterances the stub NLU maps to the
// same parse (intent, value and entities) and, among the others, a few
// values users give (a smaller value, for a finding a value makes).
// Shrinking tries them in order and keeps the first with which the
// failure stays: generate's against the model, bot's against a live bot.
func (mo *Model) SimplerTexts(stub *sim.Stub, text string) []string {
	var was engine.Event
	wasOK := stub.Parse(text, 0, &was) == nil
	var out []string
	tried := 0
	for _, u := range mo.candidates(text) {
		if len(u) >= len(text) {
			break
		}
		var ev engine.Event
		if !(wasOK && stub.Parse(u, 0, &ev) == nil && sameParse(&was, &ev)) {
			// Not the same parse: a smaller value, tried a few times.
			if tried >= maxValueTries || !mo.isValue(u) {
				continue
			}
			tried++
		}
		out = append(out, u)
	}
	return out
}

var number = regexp.MustCompile(`^[0-9]+([.,][0-9]+)?$`)

// candidates are the texts tried in place of text, shortest first: the
// model's utterances and, for a number, 0 and 1.
func (mo *Model) candidates(text string) []string {
	out := mo.utterances
	if number.MatchString(text) {
		out = append([]string{"0", "1"}, out...)
	}
	return out
}

// isValue reports whether u is a value users give (a goal's, a slot's
// candidate, an entity's synonym) or a number, rather than a phrase.
func (mo *Model) isValue(u string) bool {
	if _, err := strconv.ParseFloat(u, 64); err == nil {
		return true
	}
	for _, vs := range mo.slotValues {
		if slices.Contains(vs, u) {
			return true
		}
	}
	for _, g := range mo.goals {
		for _, vs := range g.values {
			if slices.Contains(vs, u) {
				return true
			}
		}
	}
	for _, ts := range mo.entityTexts {
		if slices.Contains(ts, u) {
			return true
		}
	}
	return false
}

// sameParse reports whether two parses are the same event for the
// machine: intent, value and entities (the text aside).
func sameParse(a, b *engine.Event) bool {
	if a.Intent != b.Intent || a.Value != b.Value || a.NEnt != b.NEnt || a.Intent == engine.NoID {
		return false
	}
	for i := 0; i < int(a.NEnt); i++ {
		if a.Entities[i] != b.Entities[i] {
			return false
		}
	}
	return true
}
