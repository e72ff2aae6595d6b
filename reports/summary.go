package reports

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"

	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/version"
)

// More report files.
const (
	SummaryJSON  = "summary.json"
	GeneratedCSV = "generated.csv"
	FailuresDir  = "failures"
)

// FailureFile is where a generated failure's scenario is written, relative
// to the output folder.
func FailureFile(name string) string {
	return filepath.Join(FailuresDir, name+".scenario.yaml")
}

// GeneratedRow is one line of generated.csv: the outcomes of the generated
// conversations of one suite and variant.
type GeneratedRow struct {
	Suite         string `csv:"suite" json:"suite"`
	Variant       string `csv:"variant" json:"variant"`
	Conversations int    `csv:"conversations" json:"conversations"`
	Successes     int    `csv:"successes" json:"successes"`
	// SuccessRate and MeanTurnsToDone are undefined (empty, null) where
	// the users had no goal to reach (generate.SuccessNone).
	SuccessRate      OptRate `csv:"success_rate" json:"success_rate"`
	MeanTurnsToDone  OptRate `csv:"mean_turns_to_completion" json:"mean_turns_to_completion"`
	MeanTurns        float64 `csv:"mean_turns" json:"mean_turns"`
	Escalations      int     `csv:"escalations" json:"escalations"`
	EscalationRate   float64 `csv:"escalation_rate" json:"escalation_rate"`
	Cancellations    int     `csv:"cancellations" json:"cancellations"`
	CancellationRate float64 `csv:"cancellation_rate" json:"cancellation_rate"`
	Violating        int     `csv:"violating_conversations" json:"violating_conversations"`
	Violations       int     `csv:"violations" json:"violations"`
}

// round keeps four decimals, so that rates print the same everywhere.
func round(x float64) float64 {
	return float64(int64(x*10000+0.5)) / 10000
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return round(float64(a) / float64(b))
}

func generatedRows(run *Run) ([]GeneratedRow, error) {
	suites, err := ordered(run)
	if err != nil {
		return nil, err
	}
	rows := []GeneratedRow{}
	for _, s := range suites {
		for _, m := range s.Generated {
			rows = append(rows, generatedRow(m))
		}
	}
	return rows, nil
}

// generatedRow is the generated.csv row of one suite and variant.
func generatedRow(m generate.Metrics) GeneratedRow {
	r := GeneratedRow{Suite: m.Suite, Variant: m.Variant, Conversations: m.Conversations,
		Successes: m.Successes, MeanTurns: ratio(m.Turns, m.Conversations),
		Escalations: m.Escalations, EscalationRate: ratio(m.Escalations, m.Conversations),
		Cancellations: m.Cancellations, CancellationRate: ratio(m.Cancellations, m.Conversations),
		Violating: m.Violating, Violations: m.Violations}
	goal := m.SuccessBy != generate.SuccessNone
	r.SuccessRate = OptRate{Value: ratio(m.Successes, m.Conversations), OK: goal}
	r.MeanTurnsToDone = OptRate{Value: ratio(m.TurnsToCompletion, m.Successes), OK: goal}
	return r
}

// WriteGeneratedCSV writes generated.csv.
func WriteGeneratedCSV(w io.Writer, run *Run) error {
	rows, err := generatedRows(run)
	if err != nil {
		return err
	}
	return marshalCSV(w, &rows)
}

// Summary is summary.json: the run's verdict and totals for machines.
type Summary struct {
	// Version is simctl's version (not the build's revision, so that the
	// same release writes the same bytes).
	Version string `json:"simctl_version"`
	Seed    int64  `json:"seed"`
	Status  string `json:"status"` // pass, fail or inconclusive
	// Incomplete is true when a signal stopped the run before it finished.
	Incomplete bool `json:"incomplete,omitempty"`
	// Bot is the live bot's faults (simctl run --bot only).
	Bot      *BotFaults `json:"bot,omitempty"`
	Generate int        `json:"generate"`
	Totals   Tally      `json:"totals"`
	// Failed counts what failed the run, as simctl run's last line does:
	// status is fail exactly when one of them is not 0.
	Failed FailedCounts   `json:"failed"`
	Suites []SuiteSummary `json:"suites"`
	// EngineWallClock sums the suites' engine_wall_clock; present only
	// with simctl run --measure-engine.
	EngineWallClock *engineWallJSON `json:"engine_wall_clock,omitempty"`
}

// FailedCounts counts, over the run, the checks that failed it: scripted
// scenarios, invariants broken by generated conversations (known
// contradictions aside), exploration findings (likewise) and latency
// objectives judged and not met (an objective without samples is not
// judged).
type FailedCounts struct {
	Scenarios int `json:"scenarios"`
	Generated int `json:"generated"`
	Explored  int `json:"explored"`
	SLO       int `json:"slo"`
}

// Tally counts scenario verdicts.
type Tally struct {
	Scenarios int `json:"scenarios"`
	Pass      int `json:"pass"`
	Known     int `json:"known"`
	Fail      int `json:"fail"`
}

// SuiteSummary is one suite in summary.json.
type SuiteSummary struct {
	Name               string           `json:"name"`
	Dir                string           `json:"dir"`
	Scenarios          Tally            `json:"scenarios"`
	TransitionsCovered int              `json:"transitions_covered"`
	Transitions        int              `json:"transitions"`
	Generated          []GeneratedRow   `json:"generated,omitempty"`
	GeneratedFailures  []FailureSummary `json:"generated_failures,omitempty"`
	Explored           []Exploration    `json:"explored,omitempty"`
	// StaleNotes are the notes of machine.yaml nothing in the run reached
	// (Stale): a warning, not a failure.
	StaleNotes []string `json:"stale_notes,omitempty"`
	// Latency, SLOs and EngineWallClock: see reports/latency.go.
	Latency         []LatencySummary `json:"latency,omitempty"`
	SLOs            []SLOSummary     `json:"slo,omitempty"`
	EngineWallClock *engineWallJSON  `json:"engine_wall_clock,omitempty"`
	// Noise is the NLU noise sweep, by variant then rate (noise.go).
	Noise []NoiseRow `json:"noise,omitempty"`
}

// FailureSummary is one generated failure in summary.json.
type FailureSummary struct {
	Variant     string `json:"variant"`
	Invariant   string `json:"invariant"`
	Where       string `json:"where"`
	Known       string `json:"known,omitempty"`
	Index       int    `json:"conversation"`
	Turns       int    `json:"turns"`
	ShrunkTurns int    `json:"shrunk_turns"`
	File        string `json:"file"`
}

// WriteSummaryJSON writes summary.json.
func WriteSummaryJSON(w io.Writer, run *Run) error {
	suites, err := ordered(run)
	if err != nil {
		return err
	}
	sum := Summary{Version: version.Version, Seed: run.Seed, Status: "pass", Generate: run.Generate, Incomplete: run.Incomplete, Bot: run.Bot, Suites: []SuiteSummary{}}
	gen, err := generatedRows(run)
	if err != nil {
		return err
	}
	var wall *EngineWall
	for _, s := range suites {
		ss := SuiteSummary{Name: s.Name, Dir: filepath.ToSlash(s.Dir), Transitions: len(s.Coverage.Trans)}
		for _, n := range played(s).Trans {
			if n > 0 {
				ss.TransitionsCovered++
			}
		}
		for _, r := range s.Scenarios {
			ss.Scenarios.Scenarios++
			switch r.Status {
			case sim.Pass:
				ss.Scenarios.Pass++
			case sim.Known:
				ss.Scenarios.Known++
			default:
				ss.Scenarios.Fail++
				sum.Status = "fail"
			}
		}
		for _, g := range gen {
			if g.Suite == s.Name {
				ss.Generated = append(ss.Generated, g)
			}
		}
		for _, f := range s.Failures {
			ss.GeneratedFailures = append(ss.GeneratedFailures, FailureSummary{Variant: f.Variant, Invariant: f.Invariant, Where: f.Violation.Where(), Known: f.Known,
				Index: f.Index, Turns: f.Turns, ShrunkTurns: f.ShrunkTurns, File: filepath.ToSlash(FailureFile(f.Name))})
			if f.Known == "" {
				sum.Status = "fail"
				sum.Failed.Generated++
			}
		}
		ss.Explored = s.Explored
		ss.StaleNotes = Stale(s)
		for _, e := range s.Explored {
			for _, f := range e.Findings {
				if f.Known == "" {
					sum.Status = "fail"
					sum.Failed.Explored++
				}
			}
		}
		var sloFailed int
		ss.Latency, ss.SLOs, sloFailed = latencySummaries(s)
		if sloFailed > 0 {
			sum.Status = "fail"
			sum.Failed.SLO += sloFailed
		}
		if s.EngineWall != nil {
			ss.EngineWallClock = s.EngineWall.json()
			if wall == nil {
				wall = &EngineWall{}
			}
			wall.Steps += s.EngineWall.Steps
			wall.NS += s.EngineWall.NS
		}
		ss.Noise = suiteNoiseRows(s)
		sum.Totals.Scenarios += ss.Scenarios.Scenarios
		sum.Totals.Pass += ss.Scenarios.Pass
		sum.Totals.Known += ss.Scenarios.Known
		sum.Totals.Fail += ss.Scenarios.Fail
		sum.Failed.Scenarios += ss.Scenarios.Fail
		sum.Suites = append(sum.Suites, ss)
	}
	sum.EngineWallClock = wall.json()
	if sum.Status == "pass" && run.Bot != nil && run.Bot.Inconclusive != "" {
		sum.Status = "inconclusive"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sum); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}
