package reports

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/version"
)

//go:embed report.html.tmpl mutation.html.tmpl
var templates embed.FS

// page is parsed once; html/template escapes every string it prints for
// its context (text, attributes, the inline SVG of the state graph), so
// names, descriptions, utterances and bot text taken from user files
// cannot inject markup. Only the gonum charts reach the page as markup
// (template.HTML), and svgo escapes their text (charts.go).
var page = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
	// pct prints a rate (0.835) as a percentage with one decimal (83.5%).
	"pct": func(rate float64) string { return strconv.FormatFloat(100*rate, 'f', 1, 64) + "%" },
	// breakpath lets a path break after each '/' (and nowhere else).
	"breakpath": breakPath,
	// dict passes several values to a sub-template: dict "K" v "L" w.
	"dict": func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	},
}).ParseFS(templates, "report.html.tmpl", "mutation.html.tmpl"))

// WriteHTML writes report.html for run: one self-contained page (inline
// CSS and SVG, a small inline script to zoom and unfold the state graphs,
// nothing fetched) with an overview, and for each
// suite its scenarios, its failures with their turns, traces and replay
// commands, its state graph, its coverage, its invariants, its generated
// conversations, its exploration and its latency. docs/reports.md lists the
// sections and their ids.
func WriteHTML(w io.Writer, run *Run) error {
	suites, err := ordered(run)
	if err != nil {
		return err
	}
	p, err := newPageView(run, suites)
	if err != nil {
		return err
	}
	if err := page.Execute(w, p); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}

// The *View types hold what the template prints, computed and ordered
// here so that the template only walks slices.

type pageView struct {
	Version    string
	Seed       int64
	Verdict    string // pass, fail or inconclusive
	Incomplete bool
	// Bot and BotFaults: a live bot's faults (nil: no live bot), the
	// counts by kind as one line.
	Bot       *BotFaults
	BotFaults string
	Generate  int
	Totals    tally
	Suites    []suiteView
	Rows      []overviewRow
	// Failed is what failed the run, over every suite, for the first
	// screen: each suite's attention items of class fail.
	Failed []attentionItem
	// Mutation is simctl mutate's section (mutation.go); its page has no
	// suites of its own.
	Mutation *mutationView
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

// overviewRow is one suite and variant in the overview.
type overviewRow struct {
	Suite, Variant, Dir string
	Link, FailuresLink  string
	Tally               tally
	Generated           string // success rate of generated conversations, or ""
	GeneratedFailures   int    // not known
	Findings            int    // exploration findings not known
	SLOFailed           int    // latency objectives not met
	Holds, Known, Broke int    // invariants
	Verdict             string
}

type suiteView struct {
	Name, Dir string
	ID, FailuresID, CoverageID, GraphID, InvariantsID,
	GeneratedID, ExploredID, LatencyID string
	Tally                 tally
	Verdict               string          // pass or fail, over its variants
	Attention             []attentionItem // what needs a look first, most pressing first
	Scenarios             []scenarioView
	Failing               []failingView
	Transitions           []transitionView
	Uncovered             []transitionView
	Covered               int
	Percent               string
	StatesEntered, States int
	// Unscripted are the states something entered but no scripted
	// scenario did: what a suite's own tests (an imported project's e2e
	// tests) never reach.
	Unscripted      []attentionLink
	HasGenerated    bool // the run generated or explored: show the per-source columns
	HasExplored     bool
	Items           []coverageTable
	Graph           *graphView
	Invariants      []InvariantRow
	Generated       []GeneratedRow
	GenNotes        []string // which invariants the violating conversations broke, and whether known
	InvariantTotals string   // the invariants table's summary when folded
	GenFailures     []genFailureView
	Explored        []exploreView
	Findings        int // exploration findings, over all variants
	FindingsKnown   int // of them, those a note names
	GenKnown        int // generated failures a note names
	Latency         []latencyView
	SLOs            []sloView
}

// attentionItem is one line of a suite's "needs attention" list: a count
// of something to look at, linked to where it is, and the items by name
// when there are few.
type attentionItem struct {
	Class string // fail (the run failed on it), known or note
	Text  string
	Link  string
	Items []attentionLink
}

type attentionLink struct{ Text, Link string }

// openRows is the length up to which a table is shown open; a longer one
// is folded in a <details> whose summary gives its totals.
const openRows = 12

type scenarioView struct {
	Name, Description, File string
	Status                  string // pass, known or fail: the badge's class
	Tags                    []string
	Turns, Transitions      int
	Problem                 string
	Anchor                  string // id of its entry under Failures, if it has one
}

type failingView struct {
	ID                      string
	Name, Description, File string
	Variant                 string
	Status                  string
	Failures                []failureView
	Violations              []violationView
	Error                   string
	Replay                  string
	Turns                   []turnView
	Later                   []failureView // failed expectations on the whole conversation
	Trace                   []sim.TraceLine
}

type turnView struct {
	sim.TurnRecord
	Failed []failureView
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
	Known          string // the note that makes it known, or ""
}

type transitionView struct {
	ID                    int
	From, To              string // To is empty for an internal transition
	Trigger, Guard, Spec  string
	Note                  string // why a transition whose guard held was not taken
	Count                 int64
	GuardTrue, GuardFalse int64
	Scripted, Generated   int64
	Explored              int64
	Sources               string
}

// coverageTable is the coverage of one kind of item besides transitions.
type coverageTable struct {
	Kind, Title     string
	Verb            string // what an uncovered item never was: entered, received, …
	ShowExplored    bool   // the exploration ran and counts such items (not tags)
	Covered, Total  int
	Percent         string
	Rows, Uncovered []CoverageRow
}

type genFailureView struct {
	ID                        string
	Variant, Invariant        string
	Known                     string
	Message                   string
	Turn, Index               int
	Turns, ShrunkTurns        int
	File, Href, Replay        string
	Violation                 string
	Before, After, Transition string
}

type exploreView struct {
	Exploration
	How    string
	Replay string
}

func newPageView(run *Run, suites []*Suite) (*pageView, error) {
	p := &pageView{Version: version.Version, Seed: run.Seed, Verdict: "pass", Incomplete: run.Incomplete, Generate: run.Generate}
	ids := newIDs()
	// Section ids first, so that they keep their documented form whatever
	// the scenario names are.
	p.Suites = make([]suiteView, len(suites))
	for i, s := range suites {
		slug := slugify(s.Name)
		p.Suites[i] = suiteView{Name: s.Name, Dir: s.Dir, ID: ids.take("suite-" + slug),
			FailuresID: ids.take("failures-" + slug), CoverageID: ids.take("coverage-" + slug),
			GraphID: ids.take("graph-" + slug), InvariantsID: ids.take("invariants-" + slug),
			GeneratedID: ids.take("generated-" + slug), ExploredID: ids.take("explored-" + slug),
			LatencyID: ids.take("latency-" + slug)}
	}
	for i, s := range suites {
		v := &p.Suites[i]
		several := len(variants(s)) > 1
		for _, r := range s.Scenarios {
			name := r.Scenario
			if several || (r.Variant != "" && r.Variant != "default") {
				name += " [" + r.Variant + "]"
			}
			sv := scenarioView{Name: name, Description: r.Description, File: r.File, Status: statusClass(r.Status),
				Tags: r.Tags, Turns: r.Turns, Transitions: r.Transitions, Problem: firstProblem(r)}
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
		g, err := newGraphView(s, v.GraphID+"-svg")
		if err != nil {
			return nil, err
		}
		v.Graph = g
		v.Invariants = invariantRows(s)
		for _, m := range s.Generated {
			v.Generated = append(v.Generated, generatedRow(m))
			if note := violatingNote(s, m.Variant, m.Violating, m.Conversations); note != "" {
				v.GenNotes = append(v.GenNotes, note)
			}
		}
		v.InvariantTotals = invariantTotals(v.Invariants)
		for _, f := range s.Failures {
			v.GenFailures = append(v.GenFailures, newGenFailureView(run, f, ids.take("failure-"+slugify(f.Name))))
			if f.Known != "" {
				v.GenKnown++
			}
		}
		for _, e := range s.Explored {
			how := fmt.Sprintf("to depth %d", e.Depth)
			if e.Complete {
				how = "completely"
			}
			v.Explored = append(v.Explored, exploreView{Exploration: e, How: how, Replay: replayExplore(s, e)})
			v.Findings += len(e.Findings)
			for _, f := range e.Findings {
				if f.Known != "" {
					v.FindingsKnown++
				}
			}
		}
		lat, err := suiteLatencyViews(s)
		if err != nil {
			return nil, err
		}
		v.Latency = lat
		v.SLOs = suiteSLOViews(s)
		rows := overviewRows(s, v)
		p.Rows = append(p.Rows, rows...)
		v.Verdict = "pass"
		for _, r := range rows {
			if r.Verdict == "fail" {
				v.Verdict = "fail"
			}
		}
		v.Attention = attention(s, v)
		for _, a := range v.Attention {
			if a.Class == "fail" {
				a.Text = s.Name + ": " + a.Text
				p.Failed = append(p.Failed, a)
			}
		}
	}
	for _, r := range p.Rows {
		if r.Verdict == "fail" {
			p.Verdict = "fail"
		}
	}
	if b := run.Bot; b != nil {
		p.Bot, p.BotFaults = b, b.Kinds()
		if p.Verdict == "pass" && b.Inconclusive != "" {
			p.Verdict = "inconclusive"
		}
	}
	return p, nil
}

// overviewRows gives one line per variant of suite s, with its verdict:
// fail when a scenario failed, generated conversations or the exploration
// made a finding no note names, or a latency objective was not met.
func overviewRows(s *Suite, v *suiteView) []overviewRow {
	var rows []overviewRow
	vs := variants(s)
	for _, name := range vs {
		r := overviewRow{Suite: s.Name, Dir: s.Dir, Link: v.ID, FailuresLink: v.FailuresID, Verdict: "pass"}
		if len(vs) > 1 || name != "default" {
			r.Variant = name
		}
		for _, sc := range s.Scenarios {
			if sc.Variant == name || (sc.Variant == "" && name == vs[0]) {
				r.Tally.add(sc.Status)
			}
		}
		for _, g := range s.Generated {
			if g.Variant == name {
				r.Generated = strconv.FormatFloat(100*ratio(g.Successes, g.Conversations), 'f', 1, 64) + "%"
				if g.SuccessBy == generate.SuccessNone {
					r.Generated = "no goal"
				}
			}
		}
		for _, f := range s.Failures {
			if f.Variant == name && f.Known == "" {
				r.GeneratedFailures++
			}
		}
		for _, e := range s.Explored {
			if e.Variant != name {
				continue
			}
			for _, f := range e.Findings {
				if f.Known == "" {
					r.Findings++
				}
			}
		}
		for _, inv := range v.Invariants {
			if inv.Variant != name {
				continue
			}
			switch inv.Status {
			case InvHolds:
				r.Holds++
			case InvKnown:
				r.Known++
			default:
				r.Broke++
			}
		}
		for _, slo := range v.SLOs {
			if slo.Variant == name && slo.Status == "fail" {
				r.SLOFailed++
			}
		}
		if r.Tally.Fail > 0 || r.GeneratedFailures > 0 || r.Findings > 0 || r.SLOFailed > 0 {
			r.Verdict = "fail"
		}
		rows = append(rows, r)
	}
	return rows
}

func newFailingView(r *sim.ScenarioResult) failingView {
	f := failingView{Name: r.Scenario, Description: r.Description, File: r.File, Variant: r.Variant, Status: statusClass(r.Status),
		Error: r.Error, Replay: scenarioReplay(r), Trace: r.Trace}
	for _, t := range r.TurnLog {
		f.Turns = append(f.Turns, turnView{TurnRecord: t})
	}
	// A failure belongs to the row of its turn, unless it is about the
	// whole conversation (final state, max turns, a listed violation that
	// did not happen), which is checked after the last turn.
	for _, x := range r.Failures {
		fv := failureView{Pos: x.Pos.String(), Turn: x.Turn, What: x.What, Got: x.Got, Want: x.Want, HasGotWant: x.Got != "" || x.Want != ""}
		f.Failures = append(f.Failures, fv)
		if isConversationCheck(x) || x.Turn < 1 || x.Turn > len(f.Turns) {
			f.Later = append(f.Later, fv)
			continue
		}
		f.Turns[x.Turn-1].Failed = append(f.Turns[x.Turn-1].Failed, fv)
	}
	for i, x := range r.Violations {
		vv := violationView{Invariant: x.Invariant, Turn: x.Turn, Msg: x.Msg, Before: x.Before, After: x.After,
			Known: noteOf(r, i)}
		if x.Pos != (engine.Pos{}) {
			vv.Pos = x.Pos.String()
		}
		vv.FromTo = fromTo(x.From, x.To)
		f.Violations = append(f.Violations, vv)
		// package sim reports a runtime error as a violation of the
		// built-in runtime_error invariant too; say it once.
		if x.Invariant == "runtime_error" && x.Msg == r.Error {
			f.Error = ""
		}
	}
	return f
}

// fromTo describes where a violation happened: "a → b", "in b", or "".
func fromTo(from, to string) string {
	switch {
	case from != "":
		return from + " → " + to
	case to != "":
		return "in " + to
	}
	return ""
}

// isConversationCheck reports whether a failed expectation is about the
// whole conversation rather than one turn.
func isConversationCheck(f sim.Failure) bool {
	return f.What == "final state" || f.What == "max turns" || strings.HasPrefix(f.What, "known violation ")
}

func newGenFailureView(run *Run, f GenFailure, id string) genFailureView {
	g := genFailureView{ID: id, Variant: f.Variant, Invariant: f.Invariant, Known: f.Known, Message: f.Violation.Msg,
		Turn: f.Violation.Turn, Index: f.Index, Turns: f.Turns, ShrunkTurns: f.ShrunkTurns,
		File: filepath.ToSlash(FailureFile(f.Name)), Href: filepath.ToSlash(FailureFile(f.Name)),
		Replay: replayGenerated(f), Violation: f.Violation.String(), Before: f.Violation.Before, After: f.Violation.After}
	g.Transition = fromTo(f.Violation.From, f.Violation.To)
	return g
}

func addCoverage(v *suiteView, s *Suite) {
	rows := coverageRows(s)
	v.HasGenerated = s.GeneratedCoverage != nil
	v.HasExplored = s.ExploredCoverage != nil
	byID := map[int]CoverageRow{}
	for _, c := range rows {
		if c.Kind == KindTransition {
			byID[c.ID] = c
		}
	}
	for _, row := range transitionRows([]*Suite{s}) {
		c := byID[row.Transition]
		t := transitionView{ID: row.Transition, From: row.From, To: row.To, Trigger: row.Trigger, Guard: row.Guard,
			Spec: row.Spec, Count: row.Count, GuardTrue: row.GuardTrue, GuardFalse: row.GuardFalse,
			Scripted: c.Scripted, Generated: c.Generated, Explored: c.Explored, Sources: c.Sources}
		if t.From == "" {
			t.From = anyState
		}
		t.Note = overriddenNote(s, t)
		v.Transitions = append(v.Transitions, t)
		if t.Count == 0 {
			v.Uncovered = append(v.Uncovered, t)
		} else {
			v.Covered++
		}
	}
	v.Percent = percent(v.Covered, len(v.Transitions))
	for _, kind := range []struct{ kind, title, verb string }{
		{KindState, "States entered", "entered"}, {KindIntent, "Intents received", "received"},
		{KindSlot, "Slots filled", "filled"}, {KindGuardTrue, "Guards seen true", "true"},
		{KindGuardFalse, "Guards seen false", "false"}, {KindTag, "Scenario tags", "carried by a scenario run"},
	} {
		t := coverageTable{Kind: kind.kind, Title: kind.title, Verb: kind.verb,
			ShowExplored: v.HasExplored && kind.kind != KindTag}
		for _, c := range rows {
			if c.Kind != kind.kind {
				continue
			}
			t.Rows = append(t.Rows, c)
			t.Total++
			switch {
			case c.Count > 0:
				t.Covered++
			case kind.kind != KindTag:
				// Tags are declared nowhere in particular: the table's
				// red rows say enough.
				t.Uncovered = append(t.Uncovered, c)
			}
		}
		t.Percent = percent(t.Covered, t.Total)
		if kind.kind == KindState {
			v.StatesEntered, v.States = t.Covered, t.Total
			for _, c := range t.Rows {
				if c.Scripted == 0 && c.Covered {
					v.Unscripted = append(v.Unscripted, attentionLink{Text: c.Item, Link: v.CoverageID + "-states"})
				}
			}
		}
		v.Items = append(v.Items, t)
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

// overriddenNote says why a transition was taken fewer times than its
// guard held: an override (which applies only once a transition's guard
// has passed) took its place.
func overriddenNote(s *Suite, t transitionView) string {
	if t.Guard == "" || t.GuardTrue <= t.Count || !hasOverrides(s.shape()) {
		return ""
	}
	n := t.GuardTrue - t.Count
	return fmt.Sprintf("its guard held %s, but an override took its place %s", times(t.GuardTrue), times(n))
}

// times is "once", "twice" or "N times".
func times(n int64) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return strconv.FormatInt(n, 10) + " times"
}

// plural is "1 scenario", "2 scenarios".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// attention lists what in suite s needs a look, most pressing first: what
// failed the run, then what the run did not reach, then the known
// contradictions it let pass.
func attention(s *Suite, v *suiteView) []attentionItem {
	var out []attentionItem
	if n := v.Tally.Fail; n > 0 {
		a := attentionItem{Class: "fail", Text: plural(n, "failing scenario", "failing scenarios"), Link: v.FailuresID}
		for _, f := range v.Failing {
			if f.Status == "fail" {
				a.Items = append(a.Items, attentionLink{Text: f.Name, Link: f.ID})
			}
		}
		out = append(out, a)
	}
	var gen, genKnown []attentionLink
	for _, f := range v.GenFailures {
		l := attentionLink{Text: f.Invariant + " [" + f.Variant + "]", Link: f.ID}
		if f.Known == "" {
			gen = append(gen, l)
		} else {
			genKnown = append(genKnown, l)
		}
	}
	if len(gen) > 0 {
		out = append(out, attentionItem{Class: "fail", Text: plural(len(gen), "invariant broken by generated conversations", "invariants broken by generated conversations"),
			Link: v.FailuresID, Items: gen})
	}
	findings, known := 0, 0
	for _, e := range s.Explored {
		for _, f := range e.Findings {
			if f.Known == "" {
				findings++
			} else {
				known++
			}
		}
	}
	if findings > 0 {
		out = append(out, attentionItem{Class: "fail", Text: plural(findings, "exploration finding", "exploration findings"), Link: v.FailuresID + "-explored"})
	}
	slo := 0
	for _, x := range v.SLOs {
		if x.Status == "fail" {
			slo++
		}
	}
	if slo > 0 {
		out = append(out, attentionItem{Class: "fail", Text: plural(slo, "latency objective not met", "latency objectives not met"), Link: v.LatencyID})
	}
	if n := len(v.Uncovered); n > 0 {
		out = append(out, attentionItem{Class: "note", Text: fmt.Sprintf("%s of %d never taken", plural(n, "transition", "transitions"), len(v.Transitions)),
			Link: v.CoverageID + "-uncovered"})
	}
	if n := v.States - v.StatesEntered; n > 0 {
		out = append(out, attentionItem{Class: "note", Text: fmt.Sprintf("%s of %d never entered", plural(n, "state", "states"), v.States), Link: v.CoverageID + "-states"})
	}
	if n := len(v.Unscripted); n > 0 && v.Tally.Scenarios > 0 {
		out = append(out, attentionItem{Class: "note", Text: fmt.Sprintf("%s of %d entered by generated or explored conversations but by no scripted scenario",
			plural(n, "state", "states"), v.States), Link: v.CoverageID + "-states", Items: v.Unscripted})
	}
	if n := v.Tally.Known; n > 0 {
		out = append(out, attentionItem{Class: "known", Text: plural(n, "scenario passes", "scenarios pass") + " only because notes name their violations (known: a contradiction of the seeds, or a modelling choice)", Link: v.FailuresID})
	}
	if len(genKnown) > 0 {
		out = append(out, attentionItem{Class: "known", Text: plural(len(genKnown), "known finding", "known findings") + " of generated conversations", Link: v.FailuresID, Items: genKnown})
	}
	if known > 0 {
		out = append(out, attentionItem{Class: "known", Text: plural(known, "known exploration finding", "known exploration findings"), Link: v.FailuresID + "-explored"})
	}
	return out
}

// breakPath escapes a path and lets it break after each '/', so that a
// long path wraps at its folders, never inside a name.
func breakPath(path string) template.HTML {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		parts[i] = template.HTMLEscapeString(p)
	}
	return template.HTML(strings.Join(parts, "/<wbr>")) // each part escaped above
}

// violatingNote says, for one variant's generated conversations, which
// invariants the violating ones broke and whether that is known: a count
// of violations beside a passing verdict must say why it passes.
func violatingNote(s *Suite, variant string, violating, conversations int) string {
	if violating == 0 {
		return ""
	}
	var known, notKnown []string
	for _, f := range s.Failures {
		if f.Variant != variant {
			continue
		}
		if f.Known != "" {
			known = append(known, f.Violation.Key())
		} else {
			notKnown = append(notKnown, f.Violation.Key())
		}
	}
	head := fmt.Sprintf("%s: %d of %d conversations broke an invariant", variant, violating, conversations)
	switch {
	case len(notKnown) == 0 && len(known) > 0:
		return head + fmt.Sprintf(": only %s, known: notes name them (see Generated failures), so they do not fail the run.", strings.Join(known, ", "))
	case len(known) == 0:
		return head + fmt.Sprintf(": %s, which fails the run.", strings.Join(notKnown, ", "))
	}
	return head + fmt.Sprintf(": %s, which fails the run; and %s, known: notes name them.", strings.Join(notKnown, ", "), strings.Join(known, ", "))
}

// invariantTotals is the invariants table's summary line.
func invariantTotals(rows []InvariantRow) string {
	holds, known, broken := 0, 0, 0
	for _, r := range rows {
		switch r.Status {
		case InvHolds:
			holds++
		case InvKnown:
			known++
		default:
			broken++
		}
	}
	return fmt.Sprintf("%s checked, by variant: %d hold, %d broken only in known findings, %d broken", plural(len(rows), "invariant", "invariants"), holds, known, broken)
}
