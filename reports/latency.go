package reports

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/latency"
)

// LatencyCSV is written when a suite has a latency model.
const LatencyCSV = "latency.csv"

// LatencyRow is one line of latency.csv: the percentiles of one set of
// latencies of a suite and variant. docs/reports.md documents each column.
type LatencyRow struct {
	Suite   string `csv:"suite"`
	Variant string `csv:"variant"`
	// Scope is turn, state, transition or turn_index; Key names the state
	// (full path), the transition (its id in transitions.csv) or the turn
	// (from 1); "all" for scope turn.
	Scope string  `csv:"scope"`
	Key   string  `csv:"key"`
	Count int64   `csv:"count"`
	P50   int64   `csv:"p50_ms"`
	P90   int64   `csv:"p90_ms"`
	P95   int64   `csv:"p95_ms"`
	P99   int64   `csv:"p99_ms"`
	Max   int64   `csv:"max_ms"`
	Mean  float64 `csv:"mean_ms"`
}

// EngineWall is the engine's own cost measured with the wall clock
// (simctl run --measure-engine): steps timed and their total duration. It
// is the host's speed, not the simulation, and differs from run to run.
type EngineWall struct {
	Steps int64
	NS    int64
}

// engineWallJSON is how summary.json writes an EngineWall.
type engineWallJSON struct {
	Note      string  `json:"note"`
	Steps     int64   `json:"steps"`
	TotalNS   int64   `json:"total_ns"`
	NSPerStep float64 `json:"ns_per_step"`
}

const engineWallNote = "wall-clock time of the engine's own steps on this host (--measure-engine); not simulated latency, not reproducible"

func (e *EngineWall) json() *engineWallJSON {
	if e == nil {
		return nil
	}
	out := &engineWallJSON{Note: engineWallNote, Steps: e.Steps, TotalNS: e.NS}
	if e.Steps > 0 {
		out.NSPerStep = round(float64(e.NS) / float64(e.Steps))
	}
	return out
}

// LatencySummary is one suite and variant's latency in summary.json.
type LatencySummary struct {
	Variant string  `json:"variant"`
	Turns   int64   `json:"turns"`
	P50     int64   `json:"p50_ms"`
	P90     int64   `json:"p90_ms"`
	P95     int64   `json:"p95_ms"`
	P99     int64   `json:"p99_ms"`
	Max     int64   `json:"max_ms"`
	Mean    float64 `json:"mean_ms"`
	// NLUSkipped counts the NLU calls direct slot mapping skipped, and
	// NLUSavedMS the latency they would have cost.
	NLUSkipped int64 `json:"nlu_calls_skipped"`
	NLUSavedMS int64 `json:"nlu_saved_ms"`
}

// SLOSummary is one objective judged on one variant, in summary.json.
type SLOSummary struct {
	Variant string `json:"variant"`
	SLO     string `json:"slo"`
	Spec    string `json:"spec"` // file:line:col in machine.yaml
	Status  string `json:"status"`
	// Got is the statistic in milliseconds; absent when there were no
	// samples (which fails).
	Got     *float64 `json:"got_ms,omitempty"`
	Samples int64    `json:"samples"`
}

// hasLatency reports whether any suite of run has latency data.
func hasLatency(run *Run) bool {
	if run == nil {
		return false
	}
	for _, s := range run.Suites {
		if s != nil && len(s.Latency) > 0 {
			return true
		}
	}
	return false
}

// latencyVariants returns the variants of s with latency data: in the
// suite's variant order, then any others by name.
func latencyVariants(s *Suite) []string {
	var out []string
	for _, v := range s.Variants {
		if s.Latency[v] != nil && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	var rest []string
	for v, l := range s.Latency {
		if l != nil && !slices.Contains(out, v) {
			rest = append(rest, v)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func latencyRow(s *Suite, variant string, scope latency.Scope, key string, h *eval.Hist) LatencyRow {
	sum := h.Summary()
	return LatencyRow{Suite: s.Name, Variant: variant, Scope: scope.String(), Key: key, Count: sum.Count,
		P50: sum.P50, P90: sum.P90, P95: sum.P95, P99: sum.P99, Max: sum.Max, Mean: round(sum.Mean)}
}

func latencyRows(suites []*Suite) []LatencyRow {
	rows := []LatencyRow{}
	for _, s := range suites {
		for _, v := range latencyVariants(s) {
			l := s.Latency[v]
			rows = append(rows, latencyRow(s, v, latency.ScopeTurn, "all", &l.Turn))
			for i := range s.Machine.NumStates() {
				if h := l.ByState[engine.StateID(i)]; h != nil && h.Count() > 0 {
					rows = append(rows, latencyRow(s, v, latency.ScopeState, s.Machine.StateName(engine.StateID(i)), h))
				}
			}
			for i := range s.Machine.NumTransitions() {
				if h := l.ByTransition[engine.TransID(i)]; h != nil && h.Count() > 0 {
					rows = append(rows, latencyRow(s, v, latency.ScopeTransition, strconv.Itoa(i), h))
				}
			}
			for i, h := range l.ByTurnIndex {
				if h != nil && h.Count() > 0 {
					rows = append(rows, latencyRow(s, v, latency.ScopeTurnIndex, strconv.Itoa(i+1), h))
				}
			}
		}
	}
	return rows
}

// WriteLatencyCSV writes latency.csv: a header, then for each suite (by
// name) and variant (in machine.yaml order) the row of all its turns, then
// the states turns ended in (by state id), the transitions (by id) and the
// turn numbers (from 1) that have samples.
func WriteLatencyCSV(w io.Writer, run *Run) error {
	suites, err := ordered(run)
	if err != nil {
		return err
	}
	return marshalCSV(w, latencyRows(suites))
}

// latencySummaries returns a suite's latency and SLO verdicts for
// summary.json, and how many objectives failed.
func latencySummaries(s *Suite) ([]LatencySummary, []SLOSummary, int) {
	var lat []LatencySummary
	for _, v := range latencyVariants(s) {
		l := s.Latency[v]
		sum := l.Turn.Summary()
		lat = append(lat, LatencySummary{Variant: v, Turns: sum.Count, P50: sum.P50, P90: sum.P90, P95: sum.P95,
			P99: sum.P99, Max: sum.Max, Mean: round(sum.Mean), NLUSkipped: l.NLUSkipped, NLUSavedMS: l.NLUSavedMS})
	}
	var slos []SLOSummary
	failed := 0
	for _, v := range s.SLOs {
		o := SLOSummary{Variant: v.Variant, SLO: v.SLO.Text, Spec: v.SLO.Pos.String(), Status: v.Status(), Samples: v.Samples}
		if v.Samples > 0 {
			got := v.Got
			o.Got = &got
		}
		if v.Failed() {
			failed++
		}
		slos = append(slos, o)
	}
	return lat, slos, failed
}

// removeStaleLatency deletes a latency.csv an earlier run left when this
// one has no latency data, so that it cannot be read as this run's.
func removeStaleLatency(dir string, run *Run) error {
	if hasLatency(run) {
		return nil
	}
	if err := os.Remove(filepath.Join(dir, LatencyCSV)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
