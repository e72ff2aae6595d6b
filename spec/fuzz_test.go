package spec_test

// Native Go fuzz targets for every file loader. The property is the same for
// each: any bytes give either a loaded value or a *spec.Error whose position
// names the file and a line (>= 1), never a panic, a hang or an unbounded
// allocation. The seed corpus lives in testdata/fuzz/FuzzXxx: the real
// suites' files and hand-written tricky inputs (anchors and aliases, deep
// nesting, tabs, NUL bytes, invalid UTF-8, duplicate keys, huge numbers).
// `go test` runs the seeds; `make fuzz-short` and `make fuzz` mutate them.

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// fuzzSuiteDirs are the suites whose machines the scenario, NLU, users and
// cassette targets check their input against; the input's first byte picks
// one, so seeds taken from a suite's own files load and reach the deep
// checks.
var fuzzSuiteDirs = []string{
	"../docs/examples/pizza",
	"../scenarios/bench-soni",
	"../scenarios/soni",
	"../scenarios/formfill",
	"../scenarios/thea",
	"../scenarios/hfsm",
}

var fuzzSuites = sync.OnceValues(func() ([]*spec.Suite, error) {
	var out []*spec.Suite
	for _, d := range fuzzSuiteDirs {
		s, err := spec.Load(d)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
})

func fuzzSuite(t *testing.T, which uint8) *spec.Suite {
	t.Helper()
	suites, err := fuzzSuites()
	if err != nil {
		t.Fatalf("loading the fuzz suites: %v", err)
	}
	return suites[int(which)%len(suites)]
}

// checkLoad asserts the loaders' contract: exactly one of a value and an
// error, and an error is a *spec.Error positioned in file.
func checkLoad(t *testing.T, file string, data []byte, loaded bool, err error) {
	t.Helper()
	if err == nil {
		if !loaded {
			t.Fatalf("got neither a value nor an error")
		}
		return
	}
	if loaded {
		t.Fatalf("got a value and the error %v", err)
	}
	var se *spec.Error
	if !errors.As(err, &se) || se != err {
		t.Fatalf("got error %T %q, want a *spec.Error", err, err)
	}
	if len(data) == 0 || len(data) > spec.MaxFileSize {
		return
	}
	if se.Pos.Line < 1 || se.Pos.Col < 1 {
		t.Fatalf("error %q: got position line %d col %d, want both >= 1", err, se.Pos.Line, se.Pos.Col)
	}
	if se.Pos.File != file {
		t.Fatalf("error %q: got file %q, want %q", err, se.Pos.File, file)
	}
	if se.Msg == "" || strings.Contains(se.Msg, "\n") {
		t.Fatalf("error %q: want a one-line message", err)
	}
}

// startAndPoke starts a conversation on m and sends it each intent once, so
// that a machine that builds cannot panic on its first steps either
// (configuration errors belong in Build, not at run time).
func startAndPoke(m *engine.Machine) {
	var (
		cfg engine.Config
		res engine.Result
	)
	if m.Start(&cfg, 0, &res) != nil {
		return
	}
	for i := range min(len(m.Intents()), 8) {
		ev := engine.Event{Kind: engine.UserEvent, Intent: engine.IntentID(i), At: int64(i + 1), Text: "x", Value: "x", Confidence: 1}
		if m.Step(&cfg, &ev, &res) != nil || cfg.Final {
			return
		}
	}
}

func FuzzMachine(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "fuzz/machine.yaml"
		s, err := spec.LoadMachine(file, data)
		checkLoad(t, file, data, s != nil, err)
		// lint reads every problem, not only the first.
		for _, d := range spec.Diagnostics(file, data) {
			if err == nil && !d.Warning {
				t.Fatalf("Diagnostics reports error %v for a machine that loads", d)
			}
			if len(data) > 0 && d.Pos.Line < 1 {
				t.Fatalf("diagnostic %v: got line %d, want >= 1", d, d.Pos.Line)
			}
		}
		if s == nil {
			return
		}
		if err == nil && s.Machine == nil {
			t.Fatalf("loaded suite has no machine")
		}
		for _, v := range s.Variants {
			startAndPoke(v.Machine)
		}
	})
}

func FuzzScenario(f *testing.F) {
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		s := fuzzSuite(t, which)
		file := filepath.Join(s.Dir, "fuzz.scenario.yaml")
		invs := map[string]bool{}
		for _, n := range spec.BuiltinInvariants {
			invs[n] = true
		}
		for _, inv := range s.Machine.Invariants() {
			invs[inv.Name] = true
		}
		sc, err := spec.LoadScenario(file, data, s.Machine, s.Tags, invs)
		checkLoad(t, file, data, sc != nil, err)
		if sc == nil {
			return
		}
		// A scenario that loads must also play without a panic or a hang;
		// what it finds is its result, not the fuzzer's business.
		sim.RunScenario(s, sc, sim.Options{Seed: 1})
	})
}

func FuzzNLU(f *testing.F) {
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		s := fuzzSuite(t, which)
		file := filepath.Join(s.Dir, "fuzz-nlu.yaml")
		n, err := spec.LoadNLU(file, data, s.Machine)
		checkLoad(t, file, data, n != nil, err)
		if n == nil {
			return
		}
		stub := sim.NewStub(n, s.Machine)
		for _, text := range []string{"", "hello", "I want a large pizza, call +34 600 123 456", "YES!! no. ÁÉÍ 12:30 2024-01-01"} {
			var ev engine.Event
			_ = stub.Parse(text, s.Machine.Initial(), &ev)
			stub.HasMarker(text)
		}
	})
}

func FuzzUsers(f *testing.F) {
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		s := fuzzSuite(t, which)
		file := filepath.Join(s.Dir, "fuzz-users.yaml")
		u, err := spec.LoadUsers(file, data, s.Machine)
		checkLoad(t, file, data, u != nil, err)
		if u == nil {
			return
		}
		var (
			cfg engine.Config
			res engine.Result
		)
		if s.Machine.Start(&cfg, 0, &res) != nil {
			return
		}
		for _, g := range u.Goals {
			if g.Check != nil {
				g.Check(&cfg)
			}
		}
		// The simulated users the file describes must be playable: a few
		// generated conversations, without a panic or a hang.
		withUsers := *s
		withUsers.Users = u
		_, _, _ = generate.Run(&withUsers, withUsers.Variants[0], generate.Options{Seed: 1, From: 0, To: 3, MaxShrinks: 5})
	})
}

// FuzzCassette checks the cassette loader (JSON Lines) like the YAML ones,
// and that what it loads survives being written back: encoding the records
// and loading them again gives the same encoding. The same bytes also go
// to DecodeReply, which reads a live NLU server's reply.
func FuzzCassette(f *testing.F) {
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		s := fuzzSuite(t, which)
		file := filepath.Join(s.Dir, "fuzz"+spec.CassetteSuffix)
		c, err := spec.LoadCassette(file, data, s.Machine)
		if err != nil && len(bytes.TrimSpace(data)) == 0 {
			t.Fatalf("a blank cassette gives error %v", err)
		}
		checkLoad(t, file, data, c != nil, err)
		if r, err := spec.DecodeReply(data, "text"); err == nil {
			_ = spec.CheckReply(&r, s.Machine)
		}
		if c == nil {
			return
		}
		once, err := spec.EncodeCassette(c.Records)
		if err != nil {
			t.Fatalf("encoding loaded records: %v", err)
		}
		again, err := spec.LoadCassette(file, once, s.Machine)
		if err != nil {
			t.Fatalf("loading written records: %v\n%s", err, once)
		}
		twice, err := spec.EncodeCassette(again.Records)
		if err != nil {
			t.Fatalf("encoding reloaded records: %v", err)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("written records changed on reload:\n%s\nthen\n%s", once, twice)
		}
	})
}
