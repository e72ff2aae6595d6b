package eval

import (
	"math"

	"github.com/simctl/simctl/engine"
)

// Rank is the nearest rank of the p-th percentile of n samples: the
// 1-based position, in sorted order, of the smallest sample with at least
// p% of the samples at or below it, ceil(p/100·n), within [1, n] (0 when
// n is 0). p·n/100 is computed so that a whole number stays whole
// (p = 99, n = 100 gives 99, not the 100 that 0.99·100 rounds up to).
func Rank(p float64, n int64) int64 {
	if n <= 0 {
		return 0
	}
	x := p * float64(n) / 100
	r := math.Round(x)
	if math.Abs(x-r) > 1e-9*math.Max(1, math.Abs(x)) {
		r = math.Ceil(x)
	}
	switch {
	case r < 1:
		return 1
	case r > float64(n):
		return n
	}
	return int64(r)
}

// Percentiles returns the nearest-rank percentile of each p, sorting the
// distinct values once.
func (h *Hist) Percentiles(ps ...float64) []int64 {
	out := make([]int64, len(ps))
	if h.n == 0 {
		return out
	}
	vals, counts := h.Values()
	for k, p := range ps {
		rank, seen := Rank(p, h.n), int64(0)
		out[k] = h.max
		for i, v := range vals {
			seen += counts[i]
			if seen >= rank {
				out[k] = v
				break
			}
		}
	}
	return out
}

// Mean is the arithmetic mean of the samples (0 without samples).
func (h *Hist) Mean() float64 {
	if h.n == 0 {
		return 0
	}
	return float64(h.sum) / float64(h.n)
}

// Summary is what reports say of a histogram.
type Summary struct {
	Count                   int64
	P50, P90, P95, P99, Max int64
	Mean                    float64
}

// Summary returns the count, the percentiles reports print, the maximum
// and the mean.
func (h *Hist) Summary() Summary {
	p := h.Percentiles(50, 90, 95, 99)
	return Summary{Count: h.n, P50: p[0], P90: p[1], P95: p[2], P99: p[3], Max: h.max, Mean: h.Mean()}
}

// TransCost is the latency attributed to one taking of a transition: the
// costs of what happened during it (the states it entered, the actions it
// invoked, and, for a turn's first transition, the NLU call).
type TransCost struct {
	Trans engine.TransID
	MS    int64
}

// NewLatency returns an empty aggregate.
func NewLatency() *Latency {
	return &Latency{ByState: map[engine.StateID]*Hist{}, ByTransition: map[engine.TransID]*Hist{}}
}

func histAt[K comparable](m *map[K]*Hist, k K) *Hist {
	if *m == nil {
		*m = map[K]*Hist{}
	}
	h := (*m)[k]
	if h == nil {
		h = &Hist{}
		(*m)[k] = h
	}
	return h
}

// AddTurn records one user turn: its latency, the leaf state it ended in
// and its number in the conversation (from 1).
func (l *Latency) AddTurn(ms int64, state engine.StateID, turn int) {
	l.Turn.Add(ms)
	histAt(&l.ByState, state).Add(ms)
	if turn >= 1 {
		for len(l.ByTurnIndex) < turn {
			l.ByTurnIndex = append(l.ByTurnIndex, nil)
		}
		if l.ByTurnIndex[turn-1] == nil {
			l.ByTurnIndex[turn-1] = &Hist{}
		}
		l.ByTurnIndex[turn-1].Add(ms)
	}
}

// AddTransition records the latency attributed to one taking of
// transition t (0 when none of the turn's costs fell to it).
func (l *Latency) AddTransition(t engine.TransID, ms int64) {
	histAt(&l.ByTransition, t).Add(ms)
}

// AddSkippedNLU records an NLU call that direct slot mapping skipped and
// the latency it would have cost.
func (l *Latency) AddSkippedNLU(ms int64) {
	l.NLUSkipped++
	l.NLUSavedMS += ms
}

// Merge folds o into l; merging is exact, so aggregates of slices of a run
// (shards, workers) merge into the aggregate of the whole.
func (l *Latency) Merge(o *Latency) {
	if o == nil {
		return
	}
	l.Turn.Merge(&o.Turn)
	for k, h := range o.ByState {
		histAt(&l.ByState, k).Merge(h)
	}
	for k, h := range o.ByTransition {
		histAt(&l.ByTransition, k).Merge(h)
	}
	for i, h := range o.ByTurnIndex {
		if h == nil {
			continue
		}
		for len(l.ByTurnIndex) <= i {
			l.ByTurnIndex = append(l.ByTurnIndex, nil)
		}
		if l.ByTurnIndex[i] == nil {
			l.ByTurnIndex[i] = &Hist{}
		}
		l.ByTurnIndex[i].Merge(h)
	}
	l.NLUSkipped += o.NLUSkipped
	l.NLUSavedMS += o.NLUSavedMS
}
