// Package conformance runs the public SCXML conformance suite of
// @scion-scxml/test-framework through simctl's one loader (spec.LoadChart,
// as simctl run and lint load a machine.scxml) and its one interpreter:
// the engine.Definition scxml.Machine.Definition compiles, stepped by
// engine.StartWith and StepWith. A SCION test is a machine and a JSON
// script of events, each with the configuration expected after it; a W3C
// test (group w3c-ecma) must stop in its final state "pass". Time is
// virtual: an event's "after" advances the clock, delivering the delayed
// events due on the way, and a W3C test runs its delayed events to the
// end. A document the loader rejects is unsupported when the loader says
// so (<invoke>), a pass when nothing in it leads to "pass" (the test asks
// for its rejection), and otherwise a failure, as is one the engine
// rejects.
package conformance

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/scxml"
	"github.com/simctl/simctl/spec"
)

// Result of one test.
type Result struct {
	Group  string `csv:"group"`
	Test   string `csv:"test"`
	Result string `csv:"result"` // pass, fail or unsupported
	Reason string `csv:"reason"`
}

// W3CGroup is the group of the W3C IRP tests.
const W3CGroup = "w3c-ecma"

type script struct {
	Initial []string `json:"initialConfiguration"`
	Events  []struct {
		After int64 `json:"after"`
		Event struct {
			Name string `json:"name"`
			Data any    `json:"data"`
		} `json:"event"`
		Next []string `json:"nextConfiguration"`
	} `json:"events"`
}

// RunDir runs every test under dir (the package's test/ folder), sorted by
// group and name.
func RunDir(dir string) ([]Result, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.scxml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no tests (expected <group>/<test>.scxml)", dir)
	}
	sort.Strings(files)
	out := make([]Result, 0, len(files))
	for _, f := range files {
		out = append(out, RunTest(f))
	}
	return out, nil
}

// RunTest runs one test: path is its .scxml, the .json beside it holds the
// script. A panic is caught and reported as the test's failure.
func RunTest(path string) (r Result) {
	r.Group = filepath.Base(filepath.Dir(path))
	r.Test = strings.TrimSuffix(filepath.Base(path), ".scxml")
	defer func() {
		if p := recover(); p != nil {
			r.Result, r.Reason = "fail", fmt.Sprintf("crash: %v %s", p, firstFrames(debug.Stack()))
		}
	}()
	var sc script
	b, err := os.ReadFile(strings.TrimSuffix(path, ".scxml") + ".json")
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &sc); err != nil {
			return fail(r, "bad script: "+err.Error())
		}
	case r.Group != W3CGroup:
		return fail(r, "no script: "+err.Error())
	}
	// The document is loaded as simctl run and lint load a machine.scxml:
	// one loader, the recommendation's (an expression that does not
	// compile raises error.execution when evaluated).
	m, err := spec.LoadChart(path)
	if err != nil {
		msg := err.Error()
		var se *scxml.Error
		if errors.As(err, &se) {
			msg = fmt.Sprintf("%d:%d: %s", se.Pos.Line, se.Pos.Col, se.Msg)
			if se.Unsupported {
				r.Result, r.Reason = "unsupported", msg
				return r
			}
		}
		if r.Group == W3CGroup && !passReachable(path) {
			// Nothing in the document leads to "pass": run, it can only
			// fail, so rejecting it is what the test asks (test301: "the
			// processor should reject this document").
			r.Result, r.Reason = "pass", "rejected, and no transition of the document reaches pass: "+msg
			return r
		}
		return fail(r, "load: "+msg)
	}
	if _, ok := m.Chart.Lookup("pass"); r.Group == W3CGroup && !ok {
		r.Result, r.Reason = "unsupported", "no pass state to reach: a manual test, or a document another test invokes"
		return r
	}
	// The chart runs on the one interpreter, as simctl run runs it: the
	// Definition its loader compiles, built by engine.Build, stepped by
	// StartWith and StepWith on the virtual clock.
	def, _, err := m.Definition()
	if err != nil {
		return fail(r, "compile: "+err.Error())
	}
	mach, diags := engine.Build(def)
	if err := diags.Err(); err != nil {
		return fail(r, "build: "+err.Error())
	}
	s := &session{m: m, mach: mach, d: mach.NewData("conformance")}
	if err := mach.StartWith(&s.c, s.d, 0, &s.r); err != nil {
		return fail(r, "start: "+err.Error())
	}
	if r.Group == W3CGroup {
		for _, ev := range sc.Events {
			if err := s.send(ev.After, ev.Event.Name, ev.Event.Data); err != nil {
				return fail(r, err.Error())
			}
		}
		// Delayed events are delivered in deadline order until the chart
		// stops (a bound against a chart that sends for ever).
		for i := 0; i < 1000 && !s.c.Final; i++ {
			t, ok := mach.NextTimer(&s.c)
			if !ok {
				break
			}
			if err := s.advance(t.Deadline - s.c.Now); err != nil {
				return fail(r, err.Error())
			}
		}
		switch {
		case s.c.Final && mach.StateName(s.c.State) == "pass":
			r.Result = "pass"
			return r
		case s.c.Final:
			return fail(r, "stopped in "+mach.StateName(s.c.State))
		}
		return fail(r, fmt.Sprintf("did not stop; active %v", m.Active(mach, &s.c)))
	}
	if msg := compare("initial configuration", m.Active(mach, &s.c), sc.Initial); msg != "" {
		return fail(r, msg)
	}
	for i, ev := range sc.Events {
		when := fmt.Sprintf("after event %d (%s)", i+1, ev.Event.Name)
		if err := s.send(ev.After, ev.Event.Name, ev.Event.Data); err != nil {
			return fail(r, when+": "+err.Error())
		}
		if msg := compare(when, m.Active(mach, &s.c), ev.Next); msg != "" {
			return fail(r, msg)
		}
	}
	r.Result = "pass"
	return r
}

// session is one run of a chart on the engine: its configuration, its
// ECMAScript heap and the result of the last step.
type session struct {
	m    *scxml.Machine
	mach *engine.Machine
	d    engine.Data
	c    engine.Config
	r    engine.Result
}

// advance moves the virtual clock ms milliseconds on, delivering each
// delayed event that falls due on the way at its deadline.
func (s *session) advance(ms int64) error {
	end := s.c.Now + ms
	for !s.c.Final {
		t, ok := s.mach.NextTimer(&s.c)
		if !ok || t.Deadline > end {
			break
		}
		ev := engine.Event{Kind: engine.TimerEvent, Timer: t.ID, At: t.Deadline, Intent: engine.NoID, Ext: engine.NoID}
		if err := s.mach.StepWith(&s.c, s.d, &ev, &s.r); err != nil {
			return err
		}
	}
	return nil
}

// send delivers an external event after ms milliseconds, its data as
// JSON.
func (s *session) send(ms int64, name string, data any) error {
	at := s.c.Now + ms
	if err := s.advance(ms); err != nil {
		return err
	}
	ev, err := s.m.Event(s.mach, name, at)
	if errors.Is(err, scxml.ErrUnhandled) {
		return nil
	}
	if err != nil {
		return err
	}
	if data != nil {
		b, err := json.Marshal(data)
		if err != nil {
			return err
		}
		ev.Value = string(b)
	}
	return s.mach.StepWith(&s.c, s.d, &ev, &s.r)
}

// passReachable reports whether some transition or initial attribute of
// the document at path targets the state "pass" (a document that cannot
// be read or parsed counts as reaching it, so that its rejection is a
// failure).
func passReachable(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	d := xml.NewDecoder(f)
	for {
		tok, err := d.Token()
		if err != nil {
			return err != io.EOF
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		for _, a := range el.Attr {
			if a.Name.Local != "target" && a.Name.Local != "initial" {
				continue
			}
			for _, id := range strings.Fields(a.Value) {
				if id == "pass" {
					return true
				}
			}
		}
	}
}

func compare(when string, got, want []string) string {
	w := append([]string(nil), want...)
	sort.Strings(w)
	g := append([]string(nil), got...)
	sort.Strings(g)
	if strings.Join(g, " ") != strings.Join(w, " ") {
		return fmt.Sprintf("%s: got %v, want %v", when, g, w)
	}
	return ""
}

func fail(r Result, reason string) Result {
	r.Result, r.Reason = "fail", reason
	return r
}

func firstFrames(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	if len(lines) > 12 {
		lines = lines[:12]
	}
	return strings.Join(lines, " | ")
}

// Tally counts results per group and overall.
type Tally struct {
	Group                   string
	Pass, Fail, Unsupported int
}

// Count tallies results by group (sorted), then the total.
func Count(rs []Result) []Tally {
	by := map[string]*Tally{}
	var names []string
	total := &Tally{Group: "total"}
	for _, r := range rs {
		t := by[r.Group]
		if t == nil {
			t = &Tally{Group: r.Group}
			by[r.Group] = t
			names = append(names, r.Group)
		}
		for _, x := range []*Tally{t, total} {
			switch r.Result {
			case "pass":
				x.Pass++
			case "fail":
				x.Fail++
			default:
				x.Unsupported++
			}
		}
	}
	sort.Strings(names)
	out := make([]Tally, 0, len(names)+1)
	for _, n := range names {
		out = append(out, *by[n])
	}
	return append(out, *total)
}
