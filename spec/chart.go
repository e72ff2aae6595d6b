package spec

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/scxml"
)

// ChartFile is the machine file of an SCXML suite, read instead of
// machine.yaml when a suite folder holds it. Such a suite loads as any
// other (Load): its chart is compiled onto an engine.Definition with the
// ECMAScript data model, and every command runs it on the one engine.
const ChartFile = "machine.scxml"

// IsChartSuite reports whether dir holds a machine.scxml.
func IsChartSuite(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ChartFile))
	return err == nil
}

// LoadChart reads and loads a machine.scxml the way every command does
// (run, lint, explore and the conformance harness): src attributes name
// files beside it, each read as carefully as the machine. An error of the
// document is a *scxml.Error (Unsupported set for a feature simctl
// lacks); reading it fails with an *Error.
func LoadChart(path string) (*scxml.Machine, error) {
	src, err := ReadFile(path, "machine file", MaxFileSize)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	return scxml.Load(path, src, scxml.Options{ReadFile: func(name string) ([]byte, error) {
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
}

// loadChartMachine loads machine.scxml as a suite's machine: the chart
// compiled onto the engine (scxml.Machine.Definition), one variant, the
// document's warnings (an expression that does not compile, which raises
// error.execution when evaluated) kept in Suite.Warnings. Every position
// points into machine.scxml.
func loadChartMachine(file string) (*Suite, error) {
	cm, err := LoadChart(file)
	if err != nil {
		return nil, chartError(file, err)
	}
	def, _, err := cm.Definition()
	if err != nil {
		return nil, chartError(file, err)
	}
	def.Pos = engine.Pos(cm.Chart.States[0].Pos)
	m, diags := engine.Build(def)
	if err := diags.Err(); err != nil {
		first := err.(*engine.BuildError).First()
		return nil, &Error{Pos: first.Pos, Msg: first.Msg}
	}
	dir := filepath.Dir(file)
	s := &Suite{Name: cm.Chart.Name, Def: def, Machine: m, MaxTurns: DefaultMaxTurns, Tags: map[string]bool{},
		SourceDir: dir, ExploreDepth: DefaultExploreDepth}
	if s.Name == "" {
		s.Name = filepath.Base(dir)
	}
	s.Variants = []*Variant{{Name: "default", Pos: def.Pos, Machine: m}}
	// The document's warnings first (simctl lint printed them before the
	// chart ran on the engine); the engine's own only when they say
	// something else, as an expression that does not compile is both.
	seen := map[engine.Pos]bool{}
	for _, w := range cm.Warnings {
		seen[engine.Pos(w.Pos)] = true
		s.Warnings = append(s.Warnings, &engine.Error{Pos: engine.Pos(w.Pos), Msg: w.Msg, Warning: true})
	}
	for _, d := range diags {
		if !seen[d.Pos] {
			s.Warnings = append(s.Warnings, d)
		}
	}
	for _, t := range BuiltinTags {
		s.Tags[t] = true
	}
	s.aliases = chartAliases(cm, m)
	return s, nil
}

// chartAliases maps each SCXML id that does not name its state on the
// engine (the compiler names a state whose id is no identifier, such as
// "asking-city", otherwise) to the state's path, found by its position.
func chartAliases(cm *scxml.Machine, m *engine.Machine) map[string]string {
	at := map[engine.Pos]engine.StateID{}
	for i := 0; i < m.NumStates(); i++ {
		at[m.StatePos(engine.StateID(i))] = engine.StateID(i)
	}
	var out map[string]string
	for _, st := range cm.Chart.States[1:] {
		id, ok := at[engine.Pos(st.Pos)]
		if !ok || st.ID == "" {
			continue
		}
		if x, named := m.StateID(st.ID); named && x == id {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[st.ID] = m.StateName(id)
	}
	return out
}

// chartError is an error of loading or compiling machine.scxml as an
// *Error with its position.
func chartError(file string, err error) error {
	var se *scxml.Error
	var fe *Error
	switch {
	case errors.As(err, &se):
		return &Error{Pos: engine.Pos(se.Pos), Msg: se.Msg}
	case errors.As(err, &fe):
		return err
	}
	return &Error{Pos: engine.Pos{File: file}, Msg: err.Error()}
}

// eventData is an SCXML event's data (data: in a scenario) as the JSON
// text the ECMAScript data model reads as _event.data: numbers and
// booleans as written become numbers and booleans, anything else text.
func eventData(data Entries[Str]) string {
	if len(data) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, d := range data {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(d.Key)
		b.Write(k)
		b.WriteByte(':')
		v := d.Value.Value
		if f, err := strconv.ParseFloat(v, 64); err == nil && !strings.ContainsAny(v, "xXnN_") {
			b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		} else if v == "true" || v == "false" {
			b.WriteString(v)
		} else {
			t, _ := json.Marshal(v)
			b.Write(t)
		}
	}
	b.WriteByte('}')
	return b.String()
}
