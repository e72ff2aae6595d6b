// Package spec loads simctl's input files: a suite folder's machine.yaml,
// nlu.yaml and *.scenario.yaml. Every problem is reported as an *Error
// naming file:line:col and what was expected; nothing here panics on bad
// input. Load is the entry point; Discover finds suite folders.
package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/latency"
)

// File names inside a suite folder.
const (
	MachineFile    = "machine.yaml"
	NLUFile        = "nlu.yaml"
	UsersFile      = "users.yaml"
	ScenarioSuffix = ".scenario.yaml"
)

// Suite is a loaded, validated suite folder.
type Suite struct {
	Name        string
	Dir         string
	Description string
	Def         *engine.Definition
	Machine     *engine.Machine // the first variant's, for names and validation
	// Variants are the parameter assignments the suite runs in; without
	// parameters or variants: one, named "default".
	Variants []*Variant
	NLU      *NLU // nil: the suite has no nlu.yaml
	// Cassette holds the recorded replies of a live NLU (*.cassette.jsonl);
	// nil: the suite has none and talks to the stub rules.
	Cassette *Cassette
	Users    *Users // nil: the suite has no users.yaml
	// Bot holds how a live bot's replies are matched (bot.yaml); nil: the
	// suite has none (exact replies, first variant).
	Bot       *Bot
	Scenarios []*Scenario
	MaxTurns  int
	// ExploreDepth is the depth of the exploration simctl run does (0: none).
	ExploreDepth int
	// ExploreMaxStates caps the configurations of that exploration (0:
	// simctl run's default).
	ExploreMaxStates int
	Tags             map[string]bool
	// Sources are machine.yaml's sources: (the seed documents its notes
	// cite), relative to SourceDir, the folder of machine.yaml.
	Sources   []string
	SourceDir string
	// Warnings are non-fatal problems (unreachable states).
	Warnings []*engine.Error
	// Latency is the machine's latency model (nil: turns take no time) and
	// SLOs the objectives judged on it after a run.
	Latency *latency.Model
	SLOs    []latency.SLO
	// aliases name states by what machine.scxml calls them where that is
	// not the engine's name (an id such as "asking-city"): id to path.
	aliases map[string]string
}

// Variant is one assignment of the machine's parameters, built.
type Variant struct {
	Name    string
	Pos     engine.Pos
	Assign  map[string]string
	Machine *engine.Machine
}

// Matches reports whether the variant gives every pinned parameter its
// pinned value.
func (v *Variant) Matches(pins Entries[string]) bool {
	for _, p := range pins {
		val, ok := v.Machine.Param(p.Key)
		if !ok || val.String() != p.Value {
			return false
		}
	}
	return true
}

// DefaultExploreDepth is how deep simctl run explores a suite that does not
// say (machine.yaml explore_depth): without bound, so that the search is
// complete unless it passes the configuration cap (explore_max_states).
const DefaultExploreDepth = math.MaxInt32

// BuiltinInvariants are checked on every suite; scenarios may list them in
// known_violations. Package eval implements them.
var BuiltinInvariants = eval.BuiltinInvariants

// Discover returns the suite folders at or below each path, sorted. A path
// that does not exist, or holds no suite, is an error.
func Discover(paths []string) ([]string, error) {
	var dirs []string
	seen := map[string]bool{}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, &Error{Pos: engine.Pos{File: p}, Msg: "no such file or folder"}
		}
		if !info.IsDir() {
			if b := filepath.Base(p); b == MachineFile || b == ChartFile {
				p = filepath.Dir(p)
			} else {
				return nil, &Error{Pos: engine.Pos{File: p}, Msg: "expected a suite folder (one holding machine.yaml or machine.scxml)"}
			}
		}
		found := 0
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (d.Name() == MachineFile || d.Name() == ChartFile) {
				dir := filepath.Dir(path)
				found++
				if !seen[dir] {
					seen[dir] = true
					dirs = append(dirs, dir)
				}
			}
			return nil
		})
		if err != nil {
			return nil, &Error{Pos: engine.Pos{File: p}, Msg: fmt.Sprintf("cannot read folder: %v", errors.Unwrap(err))}
		}
		if found == 0 {
			return nil, &Error{Pos: engine.Pos{File: p}, Msg: "no suite found (a suite is a folder holding machine.yaml or machine.scxml)"}
		}
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if IsChartSuite(d) {
			if _, err := os.Stat(filepath.Join(d, MachineFile)); err == nil {
				return nil, &Error{Pos: engine.Pos{File: filepath.Join(d, ChartFile)}, Msg: "a suite holds machine.yaml or machine.scxml, not both"}
			}
		}
	}
	return dirs, nil
}

// DefaultMaxTurns bounds a generated conversation of a suite that does
// not say (machine.yaml and users.yaml max_turns).
const DefaultMaxTurns = 50

// Load reads and validates a suite folder: its machine (machine.yaml, or
// machine.scxml compiled onto the same engine), then the files beside it,
// read alike for either.
func Load(dir string) (*Suite, error) {
	var s *Suite
	var err error
	if IsChartSuite(dir) {
		if s, err = loadChartMachine(filepath.Join(dir, ChartFile)); err != nil {
			return nil, err
		}
	} else {
		mpath := filepath.Join(dir, MachineFile)
		data, err := ReadFile(mpath, "machine file", MaxFileSize)
		if err != nil {
			return nil, err
		}
		if s, err = LoadMachine(mpath, data); err != nil {
			return nil, err
		}
	}
	s.Dir = dir
	npath := filepath.Join(dir, NLUFile)
	if data, err := readOptional(npath, "NLU file", MaxFileSize); err != nil {
		return nil, err
	} else if data != nil {
		if s.NLU, err = LoadNLU(npath, data, s.Machine); err != nil {
			return nil, err
		}
	}
	if s.Cassette, err = loadSuiteCassette(dir, s.Machine); err != nil {
		return nil, err
	}
	upath := filepath.Join(dir, UsersFile)
	if data, err := readOptional(upath, "users file", MaxFileSize); err != nil {
		return nil, err
	} else if data != nil {
		if s.Users, err = LoadUsers(upath, data, s.Machine); err != nil {
			return nil, err
		}
		if err := s.checkGoalVariants(); err != nil {
			return nil, err
		}
	}
	bpath := filepath.Join(dir, BotFile)
	if data, err := os.ReadFile(bpath); err == nil {
		if s.Bot, err = LoadBot(bpath, data, s.Variants); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Pos: engine.Pos{File: bpath}, Msg: "cannot read bot file"}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*"+ScenarioSuffix))
	if err != nil {
		return nil, &Error{Pos: engine.Pos{File: dir}, Msg: err.Error()}
	}
	sort.Strings(files)
	invs := map[string]bool{}
	for _, n := range BuiltinInvariants {
		invs[n] = true
	}
	for _, inv := range s.Machine.Invariants() {
		invs[inv.Name] = true
	}
	// Every scenario file is read, and the error of each bad one kept:
	// the returned error joins them in file order, so that simctl lint
	// lists them all and other commands show the first.
	names := map[string]string{}
	var bad []error
	for _, f := range files {
		data, err := ReadFile(f, "scenario file", MaxFileSize)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		sc, err := loadScenario(f, data, s.Machine, s.Tags, invs, s.aliases)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		if err := s.checkPins(sc); err != nil {
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

// LoadMachine parses and builds machine.yaml. Build warnings are kept in
// Suite.Warnings; the first build error is returned.
func LoadMachine(file string, data []byte) (*Suite, error) {
	var mf machineFile
	if err := decodeFile(file, data, &mf); err != nil {
		return nil, err
	}
	def, err := mf.definition(file)
	if err != nil {
		return nil, err
	}
	m, diags := engine.Build(def)
	if err := diags.Err(); err != nil {
		first := err.(*engine.BuildError).First()
		return nil, &Error{Pos: first.Pos, Msg: first.Msg}
	}
	s := &Suite{Name: mf.Machine, Description: mf.Description, Def: def, Machine: m, MaxTurns: mf.MaxTurns,
		Tags: map[string]bool{}, SourceDir: filepath.Dir(file)}
	for _, src := range mf.Sources {
		s.Sources = append(s.Sources, src.Value)
	}
	if s.Latency, s.SLOs, err = mf.latencyModel(m); err != nil {
		return nil, err
	}
	if len(mf.Variants) == 0 {
		s.Variants = []*Variant{{Name: "default", Pos: def.Pos, Machine: m}}
	}
	seen := map[string]bool{}
	for _, vy := range mf.Variants {
		if seen[vy.Name.Value] {
			return nil, &Error{Pos: vy.Name.Pos, Msg: fmt.Sprintf("duplicate variant %q", vy.Name.Value)}
		}
		seen[vy.Name.Value] = true
		v := &Variant{Name: vy.Name.Value, Pos: vy.Pos, Assign: map[string]string{}}
		for _, kv := range vy.Set {
			v.Assign[kv.Key] = kv.Value
		}
		vdef := notesOf(def, v.Name)
		vdef.Assign = v.Assign
		vm, vdiags := engine.Build(vdef)
		if err := vdiags.Err(); err != nil {
			first := err.(*engine.BuildError).First()
			return nil, &Error{Pos: vy.Pos, Msg: fmt.Sprintf("variant %q: %s", v.Name, first.Msg)}
		}
		v.Machine = vm
		s.Variants = append(s.Variants, v)
	}
	s.Machine = s.Variants[0].Machine
	if err := checkNoteScopes(def, s.Variants, len(mf.Variants) > 0); err != nil {
		return nil, err
	}
	for _, d := range diags {
		s.Warnings = append(s.Warnings, d)
	}
	for _, t := range BuiltinTags {
		s.Tags[t] = true
	}
	for _, t := range mf.Tags {
		s.Tags[t.Value] = true
	}
	if err := checkMaxTurns(mf.MaxTurns, mf.MaxTurnsPos); err != nil {
		return nil, err
	}
	if s.MaxTurns == 0 {
		s.MaxTurns = DefaultMaxTurns
	}
	s.ExploreDepth = DefaultExploreDepth
	if mf.ExploreDepth != nil {
		if *mf.ExploreDepth < 0 {
			return nil, &Error{Pos: mf.Pos, Msg: "explore_depth must be 0 (no exploration) or more"}
		}
		s.ExploreDepth = *mf.ExploreDepth
	}
	if mf.ExploreMaxStates < 0 {
		return nil, &Error{Pos: mf.Pos, Msg: "explore_max_states must be 1 or more (0: simctl run's default)"}
	}
	s.ExploreMaxStates = mf.ExploreMaxStates
	return s, nil
}

// MaxTurnsLimit bounds the max_turns of machine.yaml and users.yaml: every
// generated conversation is drawn with that many turns, so an unbounded
// value would let one conversation exhaust memory.
const MaxTurnsLimit = 10_000

func checkMaxTurns(n int, pos engine.Pos) error {
	if n < 0 || n > MaxTurnsLimit {
		return &Error{Pos: pos, Msg: fmt.Sprintf("max_turns must be from 0 to %d", MaxTurnsLimit)}
	}
	return nil
}

// Diagnostics returns every build problem of machine.yaml, errors and
// warnings, for simctl lint. A file that does not parse gives one error.
func Diagnostics(file string, data []byte) []*engine.Error {
	var mf machineFile
	if err := decodeFile(file, data, &mf); err != nil {
		return []*engine.Error{toEngine(err)}
	}
	def, err := mf.definition(file)
	if err != nil {
		return []*engine.Error{toEngine(err)}
	}
	m, diags := engine.Build(def)
	if diags.Err() == nil {
		if _, _, err := mf.latencyModel(m); err != nil {
			diags = append(diags, toEngine(err))
		}
		diags = append(diags, exprProblems(def, m)...)
	}
	return diags
}

func toEngine(err error) *engine.Error {
	var se *Error
	if errors.As(err, &se) {
		return &engine.Error{Pos: se.Pos, Msg: se.Msg}
	}
	return &engine.Error{Msg: err.Error()}
}

// checkPins rejects pinned parameters the machine does not have, and pins
// that no variant satisfies.
func (s *Suite) checkPins(sc *Scenario) error {
	for _, p := range sc.Params {
		if _, ok := s.Machine.Param(p.Key); !ok {
			return &Error{Pos: p.KeyPos, Msg: fmt.Sprintf("parameters: unknown parameter %q", p.Key)}
		}
	}
	if len(sc.Params) == 0 {
		return nil
	}
	for _, v := range s.Variants {
		if v.Matches(sc.Params) {
			return nil
		}
	}
	return &Error{Pos: sc.Params[0].KeyPos, Msg: "parameters: no variant gives these values (declare one under variants: in machine.yaml)"}
}

// checkGoalVariants rejects a users.yaml goal naming a variant the
// machine does not declare: the goal would silently apply nowhere.
func (s *Suite) checkGoalVariants() error {
	for _, g := range s.Users.Goals {
		for _, name := range g.Variants {
			known := false
			for _, v := range s.Variants {
				known = known || v.Name == name.Value
			}
			if !known {
				names := make([]string, len(s.Variants))
				for i, v := range s.Variants {
					names[i] = v.Name
				}
				return &Error{Pos: name.Pos, Msg: fmt.Sprintf("unknown variant %q (variants: %s)", name.Value, joinNames(names))}
			}
		}
	}
	return nil
}

// VariantsFor returns the variants a scenario runs in.
func (s *Suite) VariantsFor(sc *Scenario) []*Variant {
	var out []*Variant
	for _, v := range s.Variants {
		if v.Matches(sc.Params) {
			out = append(out, v)
		}
	}
	return out
}

// LoadScenarioFile loads the suite a scenario file belongs to (its suite:
// key, relative to the file, else the file's folder) and the scenario in
// it, checked against that suite.
func LoadScenarioFile(file string) (*Suite, *Scenario, error) {
	if !strings.HasSuffix(file, ScenarioSuffix) {
		return nil, nil, &Error{Pos: engine.Pos{File: file}, Msg: "expected a file ending in " + ScenarioSuffix}
	}
	data, err := ReadFile(file, "scenario file", MaxFileSize)
	if err != nil {
		return nil, nil, err
	}
	var head Scenario
	if err := decodeFile(file, data, &head); err != nil {
		return nil, nil, err
	}
	dir := filepath.Dir(file)
	if head.Suite.Value != "" {
		dir = suiteDir(dir, head.Suite.Value)
		if _, err := os.Stat(filepath.Join(dir, MachineFile)); err != nil && !IsChartSuite(dir) {
			return nil, nil, &Error{Pos: head.Suite.Pos, Msg: fmt.Sprintf("suite: no machine.yaml or machine.scxml in %s", dir)}
		}
	}
	s, err := Load(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, sc := range s.Scenarios {
		if filepath.Clean(sc.File) == filepath.Clean(file) {
			return s, sc, nil
		}
	}
	invs := map[string]bool{}
	for _, n := range BuiltinInvariants {
		invs[n] = true
	}
	for _, inv := range s.Machine.Invariants() {
		invs[inv.Name] = true
	}
	sc, err := loadScenario(file, data, s.Machine, s.Tags, invs, s.aliases)
	if err != nil {
		return nil, nil, err
	}
	if err := s.checkPins(sc); err != nil {
		return nil, nil, err
	}
	return s, sc, nil
}

// suiteDir is the folder a scenario file's suite: names, from the folder
// the file is in: an absolute path as it is, a relative one joined on.
func suiteDir(from, suite string) string {
	if p := filepath.FromSlash(suite); filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(from, filepath.FromSlash(suite))
}
