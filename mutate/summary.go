package mutate

// Tally counts the verdicts on a set of mutants.
type Tally struct {
	Mutants    int
	Killed     int
	BySource   map[Source]int
	Survived   int
	Equivalent int
	Invalid    int
	// Unreached mutants count against the score, as survivors do.
	Unreached int
	// Pinned counts the killed mutants that only pin: true scenarios (those
	// simctl mutate --emit-scenarios wrote) kill.
	Pinned int
	// Runaway counts the killed mutants whose exploration ran away; they
	// are among Killed and BySource[Explored].
	Runaway int
}

func (t *Tally) add(r *Result) {
	if t.BySource == nil {
		t.BySource = map[Source]int{}
	}
	t.Mutants++
	switch r.Status {
	case Killed:
		t.Killed++
		t.BySource[r.Source]++
		if r.Pinned {
			t.Pinned++
		}
	case Runaway:
		t.Killed++
		t.BySource[r.Source]++
		t.Runaway++
	case Unreached:
		t.Unreached++
	case Survived:
		t.Survived++
	case Equivalent:
		t.Equivalent++
	case Invalid:
		t.Invalid++
	}
}

// Judged is the number of mutants the score is over: neither equivalent
// nor invalid.
func (t Tally) Judged() int { return t.Mutants - t.Equivalent - t.Invalid }

// Score is killed / (mutants - equivalent - invalid), from 0 to 1; with
// nothing to judge it is 1 (no test was shown wanting).
func (t Tally) Score() float64 {
	if t.Judged() == 0 {
		return 1
	}
	return float64(t.Killed) / float64(t.Judged())
}

// ScoreWithoutPins is the score had the pin: true scenarios not been
// there: the mutants only they kill count as survivors.
func (t Tally) ScoreWithoutPins() float64 {
	if t.Judged() == 0 {
		return 1
	}
	return float64(t.Killed-t.Pinned) / float64(t.Judged())
}

// SuiteSummary is one suite's tally, in all and per operator.
type SuiteSummary struct {
	Suite string
	All   Tally
	// Ops holds a tally for each operator that made a mutant, in the
	// order of Operators.
	Ops       []OpTally
	Survivors []Result // in mutant order
	Runaways  []Result // in mutant order
}

// OpTally is one operator's tally.
type OpTally struct {
	Op Operator
	Tally
}

// Summarize tallies results (ordered by suite, then mutant) per suite and
// operator, keeping the suites in the order they first appear.
func Summarize(results []Result) []SuiteSummary {
	var out []SuiteSummary
	idx := map[string]int{}
	ops := map[string]map[Operator]*Tally{}
	for i := range results {
		r := &results[i]
		j, ok := idx[r.Suite]
		if !ok {
			j = len(out)
			idx[r.Suite] = j
			out = append(out, SuiteSummary{Suite: r.Suite, All: Tally{BySource: map[Source]int{}}})
			ops[r.Suite] = map[Operator]*Tally{}
		}
		out[j].All.add(r)
		t := ops[r.Suite][r.Mutant.Op]
		if t == nil {
			t = &Tally{}
			ops[r.Suite][r.Mutant.Op] = t
		}
		t.add(r)
		switch r.Status {
		case Survived, Unreached:
			out[j].Survivors = append(out[j].Survivors, *r)
		case Runaway:
			out[j].Runaways = append(out[j].Runaways, *r)
		}
	}
	for j := range out {
		for _, op := range Operators {
			if t := ops[out[j].Suite][op]; t != nil {
				out[j].Ops = append(out[j].Ops, OpTally{Op: op, Tally: *t})
			}
		}
	}
	return out
}
