package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/simctl/simctl/latency"
	"github.com/simctl/simctl/sim"
)

// JUnitXML is the JUnit report's file name.
const JUnitXML = "junit.xml"

// The JUnit* types are the schema of junit.xml: the subset of the JUnit XML
// format that CI systems (Jenkins, GitLab, GitHub test reporters, Azure
// DevOps) read. NewJUnitReport builds them from a Run; tests decode the file
// back into them.

// JUnitTestSuites is the document: one testsuite per suite and variant.
type JUnitTestSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	// Time is the simulated time of the scripted conversations on the
	// virtual clock (waits, and turn latencies under each suite's latency
	// model), never the wall clock: a run's bytes do not depend on the
	// machine.
	Time       float64          `xml:"time,attr"`
	TestSuites []JUnitTestSuite `xml:"testsuite"`
}

// JUnitTestSuite is one suite in one variant.
type JUnitTestSuite struct {
	Name       string          `xml:"name,attr"`
	Package    string          `xml:"package,attr,omitempty"` // the suite folder
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       float64         `xml:"time,attr"`
	Properties JUnitProperties `xml:"properties"`
	TestCases  []JUnitTestCase `xml:"testcase"`
}

// JUnitProperties holds a testsuite's properties: the seed and what the run
// was asked to do.
type JUnitProperties struct {
	Properties []JUnitProperty `xml:"property"`
}

// JUnitProperty is one name and value.
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitTestCase is a scripted scenario, an invariant check, a generated
// failure, or an exploration finding.
type JUnitTestCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Time      float64       `xml:"time,attr"`
	Failure   *JUnitFailure `xml:"failure,omitempty"`
	Skipped   *JUnitSkipped `xml:"skipped,omitempty"`
	// SystemOut carries notes for a passing case: why a known
	// contradiction passes, the metrics of generated conversations.
	SystemOut string `xml:"system-out,omitempty"`
}

// JUnitFailure says why a testcase failed: Message is one line, the body
// the details and the command that replays it.
type JUnitFailure struct {
	Message     string `xml:"message,attr"`
	Type        string `xml:"type,attr"`
	Description string `xml:",chardata"`
}

// JUnitSkipped marks a skipped testcase: simctl writes one for a latency
// objective not judged (no samples). Known
// contradictions pass, with a note.
type JUnitSkipped struct {
	Message string `xml:"message,attr"`
}

// A failure's body keeps the first junitTraceHead and the last
// junitTraceTail lines of a longer trace.
const (
	junitTraceHead = 10
	junitTraceTail = 30
)

// Testcase name prefixes, for the cases that are not scenarios.
const (
	junitInvariant = "invariant "
	junitGenerated = "generated "
	junitExplored  = "explored "
	junitSLO       = "slo "
)

// WriteJUnitXML writes junit.xml for run.
func WriteJUnitXML(w io.Writer, run *Run) error {
	doc, err := NewJUnitReport(run)
	if err != nil {
		return err
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	if _, err := w.Write(append(out, '\n')); err != nil {
		return err
	}
	return nil
}

// NewJUnitReport builds the junit.xml document of run: by suite name, one
// testsuite per variant holding its scripted scenarios in file order, then
// a check of every invariant (built-in first), then its generated failures,
// exploration findings and latency objectives. A known finding passes, with a
// system-out note saying which invariant it breaks and why that is known.
func NewJUnitReport(run *Run) (*JUnitTestSuites, error) {
	suites, err := ordered(run)
	if err != nil {
		return nil, err
	}
	doc := &JUnitTestSuites{Name: "simctl", TestSuites: []JUnitTestSuite{}}
	for _, s := range suites {
		vs := variants(s)
		for _, v := range vs {
			ts := junitSuite(run, s, v, len(vs) > 1)
			doc.TestSuites = append(doc.TestSuites, ts)
			doc.Tests += ts.Tests
			doc.Failures += ts.Failures
			doc.Skipped += ts.Skipped
			doc.Time += ts.Time
		}
	}
	return doc, nil
}

func junitSuite(run *Run, s *Suite, variant string, several bool) JUnitTestSuite {
	name := s.Name
	if several {
		name += " [" + variant + "]"
	}
	ts := JUnitTestSuite{Name: name, Package: s.Dir}
	ts.Properties.Properties = []JUnitProperty{
		{"seed", strconv.FormatInt(run.Seed, 10)},
		{"suite", s.Name},
		{"variant", variant},
		{"dir", s.Dir},
		{"generate", strconv.Itoa(run.Generate)},
		{"incomplete", strconv.FormatBool(run.Incomplete)},
	}
	add := func(c JUnitTestCase) {
		c.Classname = name
		ts.TestCases = append(ts.TestCases, c)
	}
	for _, r := range s.Scenarios {
		if r.Variant == variant || (r.Variant == "" && variant == "default") {
			add(scenarioCase(r))
		}
	}
	for _, inv := range invariantList(s) {
		add(invariantCase(invariantRow(s, variant, inv)))
	}
	for _, m := range s.Generated {
		if m.Variant == variant {
			row := generatedRow(m)
			success := "no goal to reach"
			if row.SuccessRate.OK {
				success = fmt.Sprint("success ", row.SuccessRate.Value)
			}
			add(JUnitTestCase{Name: "generated conversations", SystemOut: fmt.Sprintf(
				"%d conversations: %s, mean turns %v, escalation %v, cancellation %v, %d violating, %d violations",
				row.Conversations, success, row.MeanTurns, row.EscalationRate, row.CancellationRate, row.Violating, row.Violations)})
		}
	}
	for _, f := range s.Failures {
		if f.Variant != variant {
			continue
		}
		c := JUnitTestCase{Name: junitGenerated + f.Name, File: FailureFile(f.Name)}
		body := fmt.Sprintf("%s\nconversation %d, shrunk from %d to %d turns\nreplay: %s\n",
			f.Violation, f.Index, f.Turns, f.ShrunkTurns, replayGenerated(f))
		if f.Known != "" {
			c.SystemOut = "known: " + f.Known + "\n" + body
		} else {
			c.Failure = &JUnitFailure{Message: f.Violation.String(), Type: "invariant", Description: body}
		}
		add(c)
	}
	for _, e := range s.Explored {
		if e.Variant != variant {
			continue
		}
		for _, f := range e.Findings {
			c := JUnitTestCase{Name: junitExplored + f.Kind, File: s.Dir}
			body := fmt.Sprintf("%s: shortest path %d events: %s\nsee it: %s\n", f.Kind, f.Path, f.Message, replayExplore(s, e))
			if f.Known != "" {
				c.SystemOut = "known: " + f.Known + "\n" + body
			} else {
				c.Failure = &JUnitFailure{Message: fmt.Sprintf("%s: %s", f.Kind, f.Message), Type: "explore", Description: body}
			}
			add(c)
		}
	}
	for _, v := range s.SLOs {
		if v.Variant != variant || v.SLO == nil {
			continue
		}
		c := JUnitTestCase{Name: junitSLO + v.SLO.Text, File: v.SLO.Pos.File}
		body := fmt.Sprintf("%s: got %s over %d samples\ndeclared at %s\n", v.SLO.Text, v.GotText(), v.Samples, v.SLO.Pos)
		switch v.Status() {
		case latency.StatusPass:
			c.SystemOut = body
		case latency.StatusNotJudged:
			c.Skipped = &JUnitSkipped{Message: "not judged: no samples"}
			c.SystemOut = body
		default:
			c.Failure = &JUnitFailure{Message: fmt.Sprintf("%s: got %s", v.SLO.Text, v.GotText()), Type: "slo", Description: body}
		}
		add(c)
	}
	for _, c := range ts.TestCases {
		ts.Tests++
		ts.Time += c.Time
		switch {
		case c.Failure != nil:
			ts.Failures++
		case c.Skipped != nil:
			ts.Skipped++
		}
	}
	return ts
}

// scenarioCase is a scripted scenario's testcase: failed with its
// expectations, violations, replay command and trace; or passed, with a
// note when it passed only because its violations are known.
func scenarioCase(r *sim.ScenarioResult) JUnitTestCase {
	c := JUnitTestCase{Name: r.Scenario, File: r.File, Time: simulatedSeconds(r)}
	switch r.Status {
	case sim.Pass:
		return c
	case sim.Known:
		var b strings.Builder
		for i := range r.Violations {
			fmt.Fprintf(&b, "known: breaks %s: %s\n", r.Violations[i].Key(), noteOf(r, i))
		}
		for _, v := range r.Violations {
			fmt.Fprintf(&b, "%s\n", v)
		}
		c.SystemOut = b.String()
		return c
	}
	var b strings.Builder
	typ := "expectation"
	if len(r.Failures) == 0 {
		typ = "invariant"
		if r.Error != "" {
			typ = "runtime_error"
		}
	}
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "%s\n", f)
	}
	for _, v := range r.Violations {
		known := ""
		if isKnown(r, v.Invariant) {
			known = "(known) "
		}
		fmt.Fprintf(&b, "%s%s\n", known, v)
		if v.Before != "" {
			fmt.Fprintf(&b, "  before: %s\n", v.Before)
		}
		if v.After != "" {
			fmt.Fprintf(&b, "  after:  %s\n", v.After)
		}
	}
	fmt.Fprintf(&b, "replay: %s\n", scenarioReplay(r))
	if len(r.Trace) > 0 {
		b.WriteString("trace:\n")
		// A runaway chain can take thousands of transitions: keep the
		// start and the end, where the failure is.
		head, tail := len(r.Trace), 0
		if len(r.Trace) > junitTraceHead+junitTraceTail {
			head, tail = junitTraceHead, junitTraceTail
		}
		for _, l := range r.Trace[:head] {
			b.WriteString("  " + l.String() + "\n")
		}
		if tail > 0 {
			fmt.Fprintf(&b, "  … %d transitions not shown (report.html has them all)\n", len(r.Trace)-head-tail)
			for _, l := range r.Trace[len(r.Trace)-tail:] {
				b.WriteString("  " + l.String() + "\n")
			}
		}
	}
	c.Failure = &JUnitFailure{Message: firstProblem(r), Type: typ, Description: b.String()}
	return c
}

// invariantCase is the check of one invariant in one variant: it fails
// when anything broke the invariant unexpectedly.
func invariantCase(row InvariantRow) JUnitTestCase {
	c := JUnitTestCase{Name: junitInvariant + row.Invariant}
	if row.DeclaredAt != "" {
		c.File = strings.SplitN(row.DeclaredAt, ":", 2)[0]
	}
	what := fmt.Sprintf("violations: %d in scripted scenarios, %d in generated conversations, %d found by the exploration",
		row.Scenarios, row.Generated, row.Explored)
	switch row.Status {
	case InvBroken:
		c.Failure = &JUnitFailure{Message: fmt.Sprintf("invariant %s broken", row.Invariant), Type: "invariant",
			Description: what + "\n" + declaredLine(row)}
	case InvKnown:
		c.SystemOut = "known: each violation matched a note (" + row.Notes + ")\n" + what + "\n" + declaredLine(row)
	}
	return c
}

func declaredLine(row InvariantRow) string {
	if row.DeclaredAt == "" {
		return "built-in invariant\n"
	}
	return "declared at " + row.DeclaredAt + "\n"
}

// simulatedSeconds is a scripted conversation's simulated duration in
// seconds: its waits and its turns' latencies under the suite's latency
// model, on the virtual clock.
func simulatedSeconds(r *sim.ScenarioResult) float64 {
	return float64(r.DurationMS) / 1000
}
