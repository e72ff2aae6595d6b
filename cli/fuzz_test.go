package cli_test

// FuzzCLIArgs drives simctl's argument handling with arbitrary command
// lines: whatever the arguments, Main returns 0, 1 or 2 and reports an
// error as one line, never panics. The input is split at white space into
// arguments. So that the fuzzer can neither read nor write outside a
// temporary folder nor ask for huge work, every argument is confined first
// (fuzzArgs): SUITE and SCEN stand for a copy of the tiny suite in
// testdata/fuzzsuite and its scenario, flags keep their names, numbers stay
// small, and any other word becomes a path inside the temporary folder;
// --out and --emit-scenarios always point into it. The seed corpus is
// testdata/fuzz/FuzzCLIArgs; `make fuzz-short` and `make fuzz` mutate it.

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/simctl/simctl/cli"
	"github.com/simctl/simctl/spec"
)

const fuzzSuiteDir = "testdata/fuzzsuite"

// maxFuzzArgs bounds the arguments taken from one input.
const maxFuzzArgs = 24

var (
	// smallNumber is a number the fuzzer may pass as is, or a short list
	// of them (--nlu-noise-sweep 0,0.1): whole parts of at most two digits
	// keep counts of conversations, depths and workers small.
	smallNumber = regexp.MustCompile(`^[+-]?[0-9]{1,2}(\.[0-9]{1,3})?([eE][+-]?[0-9])?(,[+-]?[0-9]{1,2}(\.[0-9]{1,3})?){0,3}$`)
	// anyInteger is accepted as the value of --seed, which costs nothing.
	anyInteger = regexp.MustCompile(`^[+-]?[0-9]+$`)
	// shortDuration is accepted as a duration flag's value.
	shortDuration = regexp.MustCompile(`^[0-9]{1,2}(ns|us|ms|s|m|h)$`)
	// command is the shape of simctl's commands.
	command = regexp.MustCompile(`^[a-z]{1,12}$`)
)

// words may be passed as flag values: tags (--only), graph formats
// (--format), NLU fallbacks (--nlu-fallback) and non-finite numbers. Any other word could be a
// path relative to the package folder.
var words = func() map[string]bool {
	w := map[string]bool{"dot": true, "mermaid": true, "stub": true, "none": true, "true": true, "false": true, "nope": true,
		// Non-finite numbers, which float flags parse and must refuse.
		"NaN": true, "Inf": true, "+Inf": true, "-Inf": true, "NaN,0": true, "0,-Inf": true}
	for _, t := range spec.BuiltinTags {
		w[t] = true
	}
	return w
}()

// writeFlags name files or folders simctl writes; they always point into
// the temporary folder.
var writeFlags = map[string]bool{"--out": true, "--emit-scenarios": true}

// fuzzArgs turns fuzz input into a confined argument list (see the file
// comment).
func fuzzArgs(input, tmp, suite, scen string) []string {
	fields := strings.Fields(input)
	if len(fields) > maxFuzzArgs {
		fields = fields[:maxFuzzArgs]
	}
	value := func(v, flag string) string {
		switch {
		case v == "SUITE":
			return suite
		case v == "SCEN":
			return scen
		case v == "DIR":
			return tmp
		case flag == "":
			// A positional argument is a path.
		case flag == "--seed" && anyInteger.MatchString(v):
			return v
		case smallNumber.MatchString(v), shortDuration.MatchString(v), words[v]:
			return v
		}
		return filepath.Join(tmp, "p"+strconv.Itoa(len(v)))
	}
	var args []string
	prev := ""
	for i, f := range fields {
		switch {
		case i == 0 && command.MatchString(f):
			args = append(args, f) // the command
			prev = ""
		case strings.HasPrefix(f, "-") && f != "-":
			name, v, hasValue := strings.Cut(f, "=")
			switch {
			case writeFlags[name]:
				// Given with its value, so the next argument is
				// not taken as one.
				args = append(args, name+"="+filepath.Join(tmp, "w"))
				prev = ""
			case hasValue:
				args = append(args, name+"="+value(v, name))
				prev = ""
			default:
				args = append(args, f)
				prev = name
			}
		default:
			args = append(args, value(f, prev))
			prev = ""
		}
	}
	// run writes its reports to out/ unless told otherwise.
	if len(args) > 0 && (args[0] == "run" || args[0] == "replay") {
		args = append([]string{args[0], "--out=" + filepath.Join(tmp, "w")}, args[1:]...)
	}
	return args
}

// copySuite copies the tiny suite into dir, so that a command that writes
// into a suite (simctl record) writes into the copy.
func copySuite(t *testing.T, dir string) string {
	t.Helper()
	files, err := os.ReadDir(fuzzSuiteDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(fuzzSuiteDir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// packageFiles lists the package folder, to catch a write that escaped the
// temporary folder. Go files and hidden files are left out: an editor may
// save them while the fuzzer runs, simctl writes neither. So is cli.test:
// make test runs this package's specs in Ginkgo's CLI, which compiles
// cli.test here and removes it, while this package's race run goes on.
func packageFiles(t *testing.T) string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); !strings.HasSuffix(n, ".go") && !strings.HasPrefix(n, ".") && n != "cli.test" {
			names = append(names, n)
		}
	}
	return strings.Join(names, " ")
}

func FuzzCLIArgs(f *testing.F) {
	f.Fuzz(func(t *testing.T, input string) {
		tmp := t.TempDir()
		suite := filepath.Join(tmp, "suite")
		if err := os.Mkdir(suite, 0o755); err != nil {
			t.Fatal(err)
		}
		copySuite(t, suite)
		args := fuzzArgs(input, tmp, suite, filepath.Join(suite, "greet"+spec.ScenarioSuffix))
		before := packageFiles(t)
		var stdout, stderr bytes.Buffer
		code := cli.Main(args, &stdout, &stderr)
		if after := packageFiles(t); after != before {
			t.Fatalf("simctl %q wrote into the package folder: got files %s, want %s", args, after, before)
		}
		if code != cli.ExitOK && code != cli.ExitFailed && code != cli.ExitBadInput {
			t.Fatalf("simctl %q: got exit status %d, want 0, 1 or 2", args, code)
		}
		// An error is one short line, the last one written to stderr.
		lines := strings.SplitAfter(stderr.String(), "\n")
		for i, l := range lines {
			if len(l) > 1100 {
				t.Fatalf("simctl %q: a stderr line of %d bytes, want at most about 1000", args, len(l))
			}
			if strings.HasPrefix(l, "simctl: ") && (i != len(lines)-2 || code != cli.ExitBadInput) {
				t.Fatalf("simctl %q (exit status %d): error line %q is not the last line of stderr:\n%s", args, code, l, stderr.String())
			}
		}
	})
}
