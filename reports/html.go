package reports

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/sim"
)

//go:embed report.html.tmpl
var templates embed.FS

// page is parsed once; html/template escapes every string it prints for
// its context, so names, descriptions, utterances and bot text taken from
// user files cannot inject markup.
var page = template.Must(template.ParseFS(templates, "report.html.tmpl"))

// WriteHTML writes report.html for run: one self-contained page (inline
// CSS, no scripts, nothing fetched) with an overview, and for each suite its
// scenarios, its failures with replay commands, and its transition
// coverage. docs/reports.md lists the sections and their ids.
func WriteHTML(w io.Writer, run *Run) error {
	suites, err := ordered(run)
	if err != nil {
		return err
	}
	if err := page.Execute(w, newPageView(run.Seed, suites)); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}

// The *View types hold what the template prints, computed and ordered
// here so that the template only walks slices.

type pageView struct {
	Seed    int64
	Verdict string // pass or fail
	Totals  tally
	Suites  []suiteView
}

type tally struct {
	Scenarios, Pass, Known, Fail int
}

func (t *tally) add(s sim.Status) {
	t.Scenarios++
	switch s {
	case sim.Pass:
		t.Pass++
	case sim.Known:
		t.Known++
	default:
		t.Fail++
	}
}

type suiteView struct {
	Name, Dir                  string
	ID, FailuresID, CoverageID string
	Tally                      tally
	Scenarios                  []scenarioView
	Failing                    []failingView
	Transitions                []transitionView
	Uncovered                  []transitionView
	Covered                    int
	Percent                    string
	StatesEntered, States      int
}

type scenarioView struct {
	Name, Description, File string
	Status                  string // pass, known or fail: the badge's class
	Tags                    string
	Turns, Transitions      int
	Problem                 string
	Anchor                  string // id of its entry under Failures, if it has one
}

type failingView struct {
	ID                      string
	Name, Description, File string
	Status                  string
	Failures                []failureView
	Violations              []violationView
	Error                   string
	Replay                  string
	Trace                   []sim.TraceLine
}

type failureView struct {
	Pos        string
	Turn       int
	What       string
	Got, Want  string
	HasGotWant bool
}

type violationView struct {
	Invariant, Pos string
	Turn           int
	Msg            string
	FromTo         string
	Before, After  string
	Known          bool
}

type transitionView struct {
	ID                    int
	From, To              string // To is empty for an internal transition
	Trigger, Guard, Spec  string
	Count                 int64
	GuardTrue, GuardFalse int64
}

func newPageView(seed int64, suites []*Suite) *pageView {
	p := &pageView{Seed: seed, Verdict: "pass"}
	ids := newIDs()
	// Section ids first, so that they keep their documented form whatever
	// the scenario names are.
	p.Suites = make([]suiteView, len(suites))
	for i, s := range suites {
		slug := slugify(s.Name)
		p.Suites[i] = suiteView{Name: s.Name, Dir: s.Dir, ID: ids.take("suite-" + slug),
			FailuresID: ids.take("failures-" + slug), CoverageID: ids.take("coverage-" + slug)}
	}
	for i, s := range suites {
		v := &p.Suites[i]
		for _, r := range s.Scenarios {
			name := r.Scenario
			if r.Variant != "" && r.Variant != "default" {
				name += " [" + r.Variant + "]"
			}
			sv := scenarioView{Name: name, Description: r.Description, File: r.File, Status: statusClass(r.Status),
				Tags: strings.Join(r.Tags, " "), Turns: r.Turns, Transitions: r.Transitions, Problem: firstProblem(r)}
			if r.Status == sim.Fail {
				f := newFailingView(r)
				f.ID = ids.take("failure-" + slugify(s.Name) + "-" + slugify(name))
				sv.Anchor = f.ID
				v.Failing = append(v.Failing, f)
			}
			v.Scenarios = append(v.Scenarios, sv)
			v.Tally.add(r.Status)
			p.Totals.add(r.Status)
		}
		addCoverage(v, s)
	}
	if p.Totals.Fail > 0 {
		p.Verdict = "fail"
	}
	return p
}

func newFailingView(r *sim.ScenarioResult) failingView {
	f := failingView{Name: r.Scenario, Description: r.Description, File: r.File, Status: statusClass(r.Status),
		Error: r.Error, Replay: "simctl replay " + shellQuote(r.File), Trace: r.Trace}
	for _, x := range r.Failures {
		f.Failures = append(f.Failures, failureView{Pos: x.Pos.String(), Turn: x.Turn, What: x.What,
			Got: x.Got, Want: x.Want, HasGotWant: x.Got != "" || x.Want != ""})
	}
	for _, x := range r.Violations {
		vv := violationView{Invariant: x.Invariant, Turn: x.Turn, Msg: x.Msg, Before: x.Before, After: x.After,
			Known: isKnown(r, x.Invariant)}
		if x.Pos != (engine.Pos{}) {
			vv.Pos = x.Pos.String()
		}
		if x.From != "" || x.To != "" {
			vv.FromTo = x.From + " → " + x.To
		}
		f.Violations = append(f.Violations, vv)
		// package sim reports a runtime error as a violation of the
		// built-in runtime_error invariant too; say it once.
		if x.Invariant == "runtime_error" && x.Msg == r.Error {
			f.Error = ""
		}
	}
	return f
}

func addCoverage(v *suiteView, s *Suite) {
	for _, row := range transitionRows([]*Suite{s}) {
		t := transitionView{ID: row.Transition, From: row.From, To: row.To, Trigger: row.Trigger, Guard: row.Guard,
			Spec: row.Spec, Count: row.Count, GuardTrue: row.GuardTrue, GuardFalse: row.GuardFalse}
		v.Transitions = append(v.Transitions, t)
		if t.Count == 0 {
			v.Uncovered = append(v.Uncovered, t)
		} else {
			v.Covered++
		}
	}
	v.Percent = percent(v.Covered, len(v.Transitions))
	v.States = len(s.Coverage.States)
	for _, n := range s.Coverage.States {
		if n > 0 {
			v.StatesEntered++
		}
	}
}

// percent formats part/whole with one decimal, or "–" when whole is 0.
func percent(part, whole int) string {
	if whole == 0 {
		return "–"
	}
	return strconv.FormatFloat(100*float64(part)/float64(whole), 'f', 1, 64) + "%"
}

// statusClass maps a status to one of the badge classes.
func statusClass(s sim.Status) string {
	switch s {
	case sim.Pass, sim.Known:
		return string(s)
	}
	return string(sim.Fail)
}

// ids hands out unique element ids. Asked twice for the same id, it adds
// -2, -3, … to the later ones; the page is built in a fixed order, so the
// ids are stable from run to run.
type ids struct{ used map[string]bool }

func newIDs() *ids { return &ids{used: map[string]bool{}} }

func (s *ids) take(id string) string {
	out := id
	for n := 2; s.used[out]; n++ {
		out = id + "-" + strconv.Itoa(n)
	}
	s.used[out] = true
	return out
}

// slugify keeps letters, digits, '-', '_' and '.', and turns every other
// rune into '-', so that a name can sit in an id and a URL fragment.
func slugify(name string) string {
	if name == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '-'
	}, name)
}

// shellQuote returns s as one POSIX shell word, so that a replay command
// can be pasted even when the path holds spaces or quotes.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./+:@%,=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
