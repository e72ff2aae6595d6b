package spec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/scxml"
	"github.com/simctl/simctl/statechart"
)

// ChartFile is the machine file of an SCXML suite, read instead of
// machine.yaml when a suite folder holds it.
const ChartFile = "machine.scxml"

// ChartSuite is a suite whose machine is an SCXML chart, run by package
// statechart with the recommendation's semantics.
type ChartSuite struct {
	Name      string
	Dir       string
	Machine   *scxml.Machine
	Scenarios []*ChartScenario
}

// ChartScenario is a scripted run of a chart: named events with data, and
// waits on the virtual clock, each with expectations.
type ChartScenario struct {
	File string `yaml:"-"`
	Pos  engine.Pos
	Name string `yaml:"name"`
	// Suite names the suite folder, relative to this file, for a scenario
	// kept outside it (an explored finding); empty: the file's folder.
	Suite       Str         `yaml:"suite"`
	Description string      `yaml:"description"`
	Tags        StrList     `yaml:"tags"`
	Turns       []ChartTurn `yaml:"turns,required"`
}

// ChartTurn is one event or wait, with expectations after it.
type ChartTurn struct {
	Pos    engine.Pos
	Event  *ChartEvent  `yaml:"event"`
	Wait   *Duration    `yaml:"wait"`
	Expect *ChartExpect `yaml:"expect"`
}

// ChartEvent is an external event: a name and optional data (_event.data).
type ChartEvent struct {
	Pos  engine.Pos
	Name Str          `yaml:"name,required"`
	Data Entries[Str] `yaml:"data"`
}

// ChartExpect lists what must hold after a turn.
type ChartExpect struct {
	Pos engine.Pos
	// Configuration is the exact set of active atomic states, in any order.
	Configuration *StrList `yaml:"configuration"`
	// Active lists states (of any kind) that must be active.
	Active StrList `yaml:"active"`
	// Done: whether the chart has reached a top-level final state.
	Done    *bool      `yaml:"done"`
	DonePos engine.Pos `yaml:"-"`
}

// IsChartSuite reports whether dir holds a machine.scxml.
func IsChartSuite(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ChartFile))
	return err == nil
}

// LoadChartSuite loads machine.scxml and the *.scenario.yaml beside it.
func LoadChartSuite(dir string) (*ChartSuite, error) {
	path := filepath.Join(dir, ChartFile)
	src, err := ReadFile(path, "machine file", MaxFileSize)
	if err != nil {
		return nil, err
	}
	m, err := scxml.Load(path, src, scxml.Options{ReadFile: func(name string) ([]byte, error) {
		// src attributes name files beside machine.scxml, read as
		// carefully as the machine itself.
		name = strings.TrimPrefix(name, "file:")
		if filepath.IsAbs(name) || strings.Contains(name, "://") {
			return nil, errors.New("only a relative file name can be read")
		}
		b, err := ReadFile(filepath.Join(dir, name), "src file", MaxFileSize)
		var se *Error
		if errors.As(err, &se) {
			return nil, errors.New(se.Msg)
		}
		return b, err
	}})
	if err != nil {
		var se *statechart.Error
		if errors.As(err, &se) {
			return nil, &Error{Pos: engine.Pos(se.Pos), Msg: se.Msg}
		}
		return nil, &Error{Pos: engine.Pos{File: path}, Msg: err.Error()}
	}
	s := &ChartSuite{Name: m.Chart.Name, Dir: dir, Machine: m}
	if s.Name == "" {
		s.Name = filepath.Base(dir)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*"+ScenarioSuffix))
	if err != nil {
		return nil, &Error{Pos: engine.Pos{File: dir}, Msg: err.Error()}
	}
	sort.Strings(files)
	// As Load does, every bad scenario file is an error of its own (lint
	// lists them all; the other commands print the first).
	names := map[string]string{}
	var bad []error
	for _, f := range files {
		data, err := ReadFile(f, "scenario file", MaxFileSize)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		sc, err := LoadChartScenario(f, data, m)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		if prev, dup := names[sc.Name]; dup {
			bad = append(bad, &Error{Pos: sc.Pos, Msg: fmt.Sprintf("duplicate scenario name %q (also in %s)", sc.Name, prev)})
			continue
		}
		names[sc.Name] = f
		s.Scenarios = append(s.Scenarios, sc)
	}
	if len(bad) > 0 {
		return nil, errors.Join(bad...)
	}
	return s, nil
}

// LoadChartScenarioFile loads the chart suite a scenario file belongs to
// (its folder, or the folder its suite: names) and the scenario.
func LoadChartScenarioFile(file string) (*ChartSuite, *ChartScenario, error) {
	data, err := ReadFile(file, "scenario file", MaxFileSize)
	if err != nil {
		return nil, nil, err
	}
	var head ChartScenario
	if err := decodeFile(file, data, &head); err != nil {
		return nil, nil, err
	}
	dir := filepath.Dir(file)
	if head.Suite.Value != "" {
		dir = suiteDir(dir, head.Suite.Value)
		if !IsChartSuite(dir) {
			return nil, nil, &Error{Pos: head.Suite.Pos, Msg: fmt.Sprintf("suite: no machine.scxml in %s", dir)}
		}
	}
	s, err := LoadChartSuite(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, sc := range s.Scenarios {
		if filepath.Clean(sc.File) == filepath.Clean(file) {
			return s, sc, nil
		}
	}
	sc, err := LoadChartScenario(file, data, s.Machine)
	if err != nil {
		return nil, nil, err
	}
	return s, sc, nil
}

// ScenarioFileIsChart reports whether a scenario file belongs to a chart
// suite: its folder, or the one its suite: key names, holds machine.scxml.
func ScenarioFileIsChart(file string) bool {
	data, err := ReadFile(file, "scenario file", MaxFileSize)
	if err != nil {
		// LoadScenarioFile reports it.
		return false
	}
	dir := filepath.Dir(file)
	// Only the suite key matters here; the other keys are checked when
	// the scenario loads.
	if doc, err := parse(file, data); err == nil && len(doc.Content) > 0 {
		n := doc.Content[0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "suite" {
				dir = filepath.Join(dir, filepath.FromSlash(n.Content[i+1].Value))
			}
		}
	}
	return IsChartSuite(dir)
}

// LoadChartScenario parses a scenario of a chart suite and checks every
// event and state it names against the chart.
func LoadChartScenario(file string, data []byte, m *scxml.Machine) (*ChartScenario, error) {
	s := &ChartScenario{File: file}
	if err := decodeFile(file, data, s); err != nil {
		return nil, err
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(file), ScenarioSuffix)
	}
	if len(s.Turns) == 0 {
		return nil, &Error{Pos: s.Pos, Msg: "scenario has no turns"}
	}
	for _, t := range s.Tags {
		if !isBuiltinTag(t.Value) {
			return nil, &Error{Pos: t.Pos, Msg: fmt.Sprintf("unknown tag %q (known tags: %s)", t.Value, strings.Join(BuiltinTags, ", "))}
		}
	}
	state := func(x Str) error {
		if _, ok := m.Chart.Lookup(x.Value); !ok || x.Value == "" {
			return &Error{Pos: x.Pos, Msg: fmt.Sprintf("unknown state %q", x.Value)}
		}
		return nil
	}
	for _, t := range s.Turns {
		if (t.Event == nil) == (t.Wait == nil) {
			return nil, &Error{Pos: t.Pos, Msg: "a turn of a chart scenario is exactly one of event or wait"}
		}
		if t.Event != nil && t.Event.Name.Value == "" {
			return nil, &Error{Pos: t.Event.Name.Pos, Msg: "empty event name"}
		}
		// As an unknown intent is for a YAML suite: an event no
		// descriptor matches changes nothing, and is most likely a typo.
		if t.Event != nil && !m.Chart.Handles(t.Event.Name.Value) {
			return nil, &Error{Pos: t.Event.Name.Pos, Msg: fmt.Sprintf("unknown event %q: no transition's event descriptor matches it (the chart's events: %s)",
				t.Event.Name.Value, joinNames(m.Chart.Alphabet()))}
		}
		if e := t.Expect; e != nil {
			if e.Configuration != nil {
				for _, x := range *e.Configuration {
					if err := state(x); err != nil {
						return nil, err
					}
				}
			}
			for _, x := range e.Active {
				if err := state(x); err != nil {
					return nil, err
				}
			}
		}
	}
	return s, nil
}

func isBuiltinTag(t string) bool {
	for _, b := range BuiltinTags {
		if b == t {
			return true
		}
	}
	return false
}

// EventData converts an event's data: numbers and booleans as written
// become numbers and booleans, anything else text.
func (e *ChartEvent) EventData() any {
	if len(e.Data) == 0 {
		return nil
	}
	out := make(map[string]any, len(e.Data))
	for _, d := range e.Data {
		v := d.Value.Value
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			out[d.Key] = f
		} else if v == "true" || v == "false" {
			out[d.Key] = v == "true"
		} else {
			out[d.Key] = v
		}
	}
	return out
}
