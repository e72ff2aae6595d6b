// Package reports writes what a run found for people and machines:
// scenarios.csv and transitions.csv through gocsv, and a self-contained
// report.html. Every file is written to a temporary name and renamed, so an
// interrupted run never leaves a truncated report. Output is a pure function
// of the Run: no wall-clock time, everything ordered by suite, then id.
package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/latency"
	"github.com/simctl/simctl/sim"
)

// Run is everything one `simctl run` produced.
type Run struct {
	Seed int64
	// Incomplete marks a run a signal stopped: the reports cover only the
	// work finished before it.
	Incomplete bool
	// Bot sums up the faults of a simctl run --bot (nil: no live bot).
	Bot *BotFaults
	// Generate is the number of generated conversations per suite and
	// variant (0: none).
	Generate int
	Suites   []*Suite // sorted by name
}

// Suite is one suite's results.
type Suite struct {
	Name      string
	Dir       string
	Machine   *engine.Machine
	Scenarios []*sim.ScenarioResult // in scenario file order
	// Partial marks a run of part of the suite (chosen scenario files,
	// --only tags, or a run a signal stopped): what it did not reach says
	// nothing of the notes.
	Partial  bool
	Coverage *eval.Coverage // transition, state and guard counts over all its scenarios
	// Generated holds the metrics of generated conversations, one per
	// variant; Failures the shrunk conversation of each invariant broken.
	Generated []generate.Metrics
	Failures  []GenFailure
	// Explored summarises the bounded exploration of each variant.
	Explored []Exploration

	// Coverage by source and what coverage.csv, invariants.csv and the
	// page need besides the machine. Coverage above counts the scripted
	// scenarios only; GeneratedCoverage the generated conversations (nil:
	// none), ExploredCoverage the explorations (nil: none). Def gives the
	// positions of intents and slots (nil: unknown), Tags the tags the
	// suite's scenarios may carry, Variants the variant names in
	// machine.yaml order (empty: taken from the results).
	GeneratedCoverage *eval.Coverage
	ExploredCoverage  *eval.Coverage
	Def               *engine.Definition
	Tags              []string
	Variants          []string

	// Latency aggregates, by variant, the turn latencies of the suite's
	// scripted and generated conversations under its latency model (nil:
	// the suite has none); latency.csv is written from it. SLOs are its
	// objectives judged after the run, in machine.yaml order, variant by
	// variant. EngineWall is the engine's measured wall-clock cost (simctl
	// run --measure-engine; nil: not measured).
	Latency    map[string]*eval.Latency
	SLOs       []latency.Verdict
	EngineWall *EngineWall

	// Noise holds an NLU noise sweep's measurements, by variant then rate
	// (simctl run --nlu-noise-sweep; noise.go).
	Noise []NoisePoint
}

// Exploration is one variant's bounded exploration.
type Exploration struct {
	Variant     string           `json:"variant"`
	Depth       int              `json:"depth"`
	Generated   int              `json:"states_generated"`
	Distinct    int              `json:"distinct_states"`
	Complete    bool             `json:"complete"`
	Stopped     string           `json:"stopped,omitempty"`
	Covered     int              `json:"transitions_covered"`
	Transitions int              `json:"transitions"`
	Findings    []ExploreFinding `json:"findings,omitempty"`
}

// ExploreFinding is a violation, dead end or livelock the exploration found,
// with the length of the shortest path to it.
type ExploreFinding struct {
	Kind string `json:"kind"`
	// Where identifies the finding (eval.Violation.Where): a table's move,
	// or the state (and slot) an invariant broke in.
	Where   string `json:"where,omitempty"`
	Path    int    `json:"shortest_path"`
	Message string `json:"message"`
	// Known is the note that names the finding (eval.Note.String), NoteAt
	// where that note is written; both empty for a failure.
	Known  string `json:"known,omitempty"`
	NoteAt string `json:"note_at,omitempty"`
}

// GenFailure is a generated failure with its verdict: Known (and NoteAt)
// when a note of its invariant names its finding, as for ExploreFinding.
type GenFailure struct {
	generate.Failure
	Known  string
	NoteAt string
}

// BotFaults is what went wrong talking to a live bot in a simctl run
// --bot. A run whose Inconclusive is set could not judge the bot: its
// status is inconclusive unless something failed.
type BotFaults struct {
	// Conversations is how many were to be played live (not skipped),
	// Faulted how many still met a fault on their last attempt, NotPlayed
	// how many were left once the run was already inconclusive.
	Conversations int `json:"conversations"`
	Faulted       int `json:"faulted"`
	NotPlayed     int `json:"not_played,omitempty"`
	// Faults counts every fault met, retried or not, by kind.
	Faults map[string]int `json:"faults"`
	// MaxFaultsPercent is --bot-max-faults.
	MaxFaultsPercent float64 `json:"max_faults_percent"`
	// StoppedAnswering is true when the bot did not answer the check made
	// after the last conversation.
	StoppedAnswering bool `json:"stopped_answering,omitempty"`
	// Inconclusive says why the run could not judge the bot ("": it could).
	Inconclusive string `json:"inconclusive,omitempty"`
}

// Kinds lists the faults by kind, in name order: "timeout 3, status 1"
// ("none" when there were none).
func (b *BotFaults) Kinds() string {
	kinds := make([]string, 0, len(b.Faults))
	for k := range b.Faults {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, b.Faults[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
