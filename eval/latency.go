package eval

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/simctl/simctl/engine"
)

// Hist is an exact histogram of latencies in whole milliseconds: a count
// per distinct value. Percentiles read from it are exact (the same as
// sorting every sample), while memory grows with the number of distinct
// values, not of samples, so aggregates over any number of conversations
// stay small.
type Hist struct {
	counts map[int64]int64
	n      int64
	sum    int64
	max    int64
}

// Add records one sample.
func (h *Hist) Add(ms int64) {
	if h.counts == nil {
		h.counts = map[int64]int64{}
	}
	h.counts[ms]++
	h.n++
	h.sum += ms
	if ms > h.max || h.n == 1 {
		h.max = ms
	}
}

// Merge adds every sample of o.
func (h *Hist) Merge(o *Hist) {
	for v, c := range o.counts {
		if h.counts == nil {
			h.counts = map[int64]int64{}
		}
		h.counts[v] += c
	}
	if o.n > 0 && (o.max > h.max || h.n == 0) {
		h.max = o.max
	}
	h.n += o.n
	h.sum += o.sum
}

// Count, Sum and Max describe the samples.
func (h *Hist) Count() int64 { return h.n }
func (h *Hist) Sum() int64   { return h.sum }
func (h *Hist) Max() int64   { return h.max }

// Values returns the distinct values in increasing order with their counts.
func (h *Hist) Values() (vals, counts []int64) {
	for v := range h.counts {
		vals = append(vals, v)
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	counts = make([]int64, len(vals))
	for i, v := range vals {
		counts[i] = h.counts[v]
	}
	return vals, counts
}

// Percentile returns the nearest-rank p-th percentile (0 < p <= 100): the
// smallest value with at least p% of the samples at or below it. It is
// what sorting all samples and taking element ceil(p/100*n)-1 gives.
func (h *Hist) Percentile(p float64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := Rank(p, h.n)
	vals, counts := h.Values()
	seen := int64(0)
	for i, v := range vals {
		seen += counts[i]
		if seen >= rank {
			return v
		}
	}
	return h.max
}

// Latency aggregates the simulated latencies of one suite and variant:
// per turn, per state the turn ended in, per transition (the effects its
// actions set off), and per turn index; and what direct slot mapping saved
// by skipping NLU calls.
type Latency struct {
	Turn         Hist
	ByState      map[engine.StateID]*Hist
	ByTransition map[engine.TransID]*Hist
	ByTurnIndex  []*Hist
	// NLUSkipped counts NLU calls skipped by direct slot mapping, and
	// NLUSavedMS the latency they would have cost (sampled).
	NLUSkipped int64
	NLUSavedMS int64
}

// histJSON is how a Hist travels between processes (a shard's result): its
// distinct values with their counts, in increasing order, so that merging
// shards gives exactly the histogram one process would have built.
type histJSON struct {
	Values []int64 `json:"values"`
	Counts []int64 `json:"counts"`
}

// MarshalJSON implements json.Marshaler.
func (h Hist) MarshalJSON() ([]byte, error) {
	vals, counts := h.Values()
	return json.Marshal(histJSON{Values: vals, Counts: counts})
}

// UnmarshalJSON implements json.Unmarshaler.
func (h *Hist) UnmarshalJSON(data []byte) error {
	var j histJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	if len(j.Values) != len(j.Counts) {
		return fmt.Errorf("histogram: %d values but %d counts", len(j.Values), len(j.Counts))
	}
	*h = Hist{}
	for i, v := range j.Values {
		if j.Counts[i] < 0 {
			return fmt.Errorf("histogram: negative count for %d", v)
		}
		if h.counts == nil {
			h.counts = map[int64]int64{}
		}
		h.counts[v] += j.Counts[i]
		if h.n == 0 || v > h.max {
			h.max = v
		}
		h.n += j.Counts[i]
		h.sum += v * j.Counts[i]
	}
	return nil
}
