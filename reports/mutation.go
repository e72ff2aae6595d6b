package reports

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gocarina/gocsv"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/mutate"
)

// MutantsCSV is simctl mutate's list of mutants and what became of each.
const MutantsCSV = "mutants.csv"

// MutantRow is one line of mutants.csv (after the seed column);
// docs/reports.md documents each column.
type MutantRow struct {
	Suite    string `csv:"suite"`
	Mutant   int    `csv:"mutant"`
	Operator string `csv:"operator"`
	File     string `csv:"file"`
	Line     int    `csv:"line"`
	Col      int    `csv:"col"`
	Status   string `csv:"status"`
	Source   string `csv:"source"`
	// Pinned: killed only by pin: true scenarios ("pin"; else empty), so
	// that the merge of shards gives the score without pins too.
	Pinned      string `csv:"pinned"`
	Description string `csv:"description"`
	Detail      string `csv:"detail"`
}

// WriteMutantsCSV writes mutants.csv (without the seed column), one row
// per mutant in the order given (suite, then mutant).
func WriteMutantsCSV(w io.Writer, results []mutate.Result) error {
	rows := make([]MutantRow, len(results))
	for i, r := range results {
		m := r.Mutant
		rows[i] = MutantRow{Suite: r.Suite, Mutant: m.ID, Operator: string(m.Op), File: m.Pos.File, Line: m.Pos.Line, Col: m.Pos.Col,
			Status: string(r.Status), Source: string(r.Source), Description: m.Desc, Detail: r.Detail}
		if r.Pinned {
			rows[i].Pinned = "pin"
		}
	}
	return gocsv.Marshal(rows, w)
}

// ReadMutantsCSV reads a mutants.csv that simctl mutate wrote (for
// merging shards): its seed and its results. A malformed file is an
// error naming it and the line.
func ReadMutantsCSV(path string) (int64, []mutate.Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: cannot read", path)
	}
	r := csv.NewReader(bytes.NewReader(data))
	recs, err := r.ReadAll()
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %v", path, err)
	}
	want := []string{"seed", "suite", "mutant", "operator", "file", "line", "col", "status", "source", "pinned", "description", "detail"}
	if len(recs) == 0 || fmt.Sprint(recs[0]) != fmt.Sprint(want) {
		return 0, nil, fmt.Errorf("%s:1:1: expected the header of mutants.csv (%v)", path, want)
	}
	var seed int64
	var out []mutate.Result
	for i, rec := range recs[1:] {
		line := i + 2
		bad := func(col int, what string) error {
			return fmt.Errorf("%s:%d:%d: expected %s", path, line, col, what)
		}
		s, err := strconv.ParseInt(rec[0], 10, 64)
		if err != nil {
			return 0, nil, bad(1, "a seed")
		}
		if i > 0 && s != seed {
			return 0, nil, bad(1, fmt.Sprintf("the seed of the rows above, %d", seed))
		}
		seed = s
		var n [3]int
		for k, col := range []int{2, 5, 6} {
			if n[k], err = strconv.Atoi(rec[col]); err != nil || n[k] < 0 {
				return 0, nil, bad(col+1, "a number")
			}
		}
		st := mutate.Status(rec[7])
		switch st {
		case mutate.Killed, mutate.Runaway, mutate.Survived, mutate.Unreached, mutate.Equivalent, mutate.Invalid:
		default:
			return 0, nil, bad(8, "killed, runaway, survived, unreached, equivalent or invalid")
		}
		if rec[9] != "" && (rec[9] != "pin" || st != mutate.Killed) {
			return 0, nil, bad(10, "pin (only for a killed mutant) or nothing")
		}
		m := &mutate.Mutant{ID: n[0], Op: mutate.Operator(rec[3]), Pos: engine.Pos{File: rec[4], Line: n[1], Col: n[2]}, Desc: rec[10]}
		out = append(out, mutate.Result{Suite: rec[1], Mutant: m, Status: st, Source: mutate.Source(rec[8]), Pinned: rec[9] == "pin", Detail: rec[11]})
	}
	return seed, out, nil
}

// WriteMutation writes simctl mutate's reports to dir: mutants.csv and a
// report.html holding the mutation section, each rendered in memory and
// installed as WriteAll installs its reports.
func WriteMutation(dir string, seed int64, results []mutate.Result) error {
	var c bytes.Buffer
	if err := WriteMutantsCSV(&c, results); err != nil {
		return err
	}
	data, err := withSeed(c.Bytes(), seed)
	if err != nil {
		return err
	}
	var h bytes.Buffer
	if err := page.Execute(&h, &pageView{Seed: seed, Verdict: "pass", Mutation: newMutationView(results)}); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	made, err := mkdirAll(dir)
	if err == nil {
		err = install(dir, []output{{MutantsCSV, data}, {ReportHTML, h.Bytes()}})
	}
	if err != nil {
		for i := len(made) - 1; i >= 0; i-- {
			os.Remove(made[i])
		}
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}

// mutationView is the mutation section of report.html.
type mutationView struct {
	Suites []mutationSuiteView
}

type mutationSuiteView struct {
	Name      string
	ID        string
	Rows      []mutationRow // per operator, then "all"
	Survivors []survivorRow
	// Runaways are killed mutants whose exploration ran away; Detail
	// says how far.
	Runaways []survivorRow
}

type mutationRow struct {
	Op                                             string
	Mutants, Killed, Scripted, Generated, Explored int
	Survived, Equivalent, Invalid                  int
	Score                                          float64
	All                                            bool
}

type survivorRow struct {
	Spec, Op, Desc, Detail string
}

func newMutationView(results []mutate.Result) *mutationView {
	v := &mutationView{}
	ids := newIDs()
	for _, s := range mutate.Summarize(results) {
		sv := mutationSuiteView{Name: s.Suite, ID: ids.take("mutation-" + slugify(s.Suite))}
		for _, o := range s.Ops {
			sv.Rows = append(sv.Rows, newMutationRow(string(o.Op), o.Tally, false))
		}
		sv.Rows = append(sv.Rows, newMutationRow("all", s.All, true))
		for _, r := range s.Survivors {
			sv.Survivors = append(sv.Survivors, survivorRow{Spec: r.Mutant.Pos.String(), Op: string(r.Mutant.Op), Desc: r.Mutant.Desc, Detail: r.Detail})
		}
		for _, r := range s.Runaways {
			sv.Runaways = append(sv.Runaways, survivorRow{Spec: r.Mutant.Pos.String(), Op: string(r.Mutant.Op), Desc: r.Mutant.Desc, Detail: r.Detail})
		}
		v.Suites = append(v.Suites, sv)
	}
	return v
}

func newMutationRow(op string, t mutate.Tally, all bool) mutationRow {
	return mutationRow{Op: op, Mutants: t.Mutants, Killed: t.Killed, Scripted: t.BySource[mutate.Scripted],
		Generated: t.BySource[mutate.Generated], Explored: t.BySource[mutate.Explored], Survived: t.Survived,
		Equivalent: t.Equivalent, Invalid: t.Invalid, Score: t.Score(), All: all}
}

// MutantsPath is where mutants.csv lies in a folder.
func MutantsPath(dir string) string { return filepath.Join(dir, MutantsCSV) }
