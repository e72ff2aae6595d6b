// Package cli is simctl's command line: it parses arguments, loads suites,
// runs them and prints results. Main is the entry point; it returns the
// process exit status instead of exiting, so tests can drive it in-process.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/simctl/simctl/spec"
	"github.com/simctl/simctl/version"
)

// Exit statuses.
const (
	ExitOK       = 0
	ExitFailed   = 1 // a scenario or invariant failed
	ExitBadInput = 2 // bad input: a file, a flag or a path
	// ExitInconclusive: simctl run --bot could not judge the bot (too many
	// conversations faulted, or it stopped answering) and nothing failed.
	ExitInconclusive = 3
	ExitInterrupted  = 130 // SIGINT or SIGTERM stopped the run; the report written is marked incomplete
)

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// helpRequest is --help or -h on a command: not a mistake, the command's
// usage goes to stdout with exit status 0.
type helpRequest struct{ text string }

func (e *helpRequest) Error() string { return e.text }

// command is one simctl command as the help lists it.
type command struct {
	name  string // "report merge" for the one subcommand
	args  string // its arguments, flags aside
	about string // what it does, one line
}

// commands lists every command, in the order the general usage gives them.
var commands = []command{
	{"run", "PATH...", "play each suite's scenarios (and generated conversations, and an exploration), check every invariant, write the reports"},
	{"lint", "PATH...", "check suites without running them: every error of every file"},
	{"replay", "FILE.scenario.yaml", "play one scenario again and print its turns, the bot's replies and its transitions"},
	{"explore", "PATH...", "search each machine breadth-first for violations, dead ends and livelocks (docs/explore.md)"},
	{"record", "PATH... --nlu-url URL", "play the suites against a live NLU server and record its replies to nlu.cassette.jsonl"},
	{"graph", "SUITE", "write a suite's machine as a Graphviz (dot) or Mermaid graph"},
	{"mutate", "PATH...", "make mutants of each suite's machine and count how many its tests kill (docs/mutate.md)"},
	{"report merge", "SHARD_DIR...", "combine the shards of one run into the reports one process writes (docs/sharding.md)"},
	{"import rasa", "PROJECT_DIR --out SUITE_DIR", "turn a Rasa project into a simctl suite"},
	{"import dfcx", "AGENT_DIR|AGENT.zip --out SUITE_DIR", "turn an exported Dialogflow CX agent and its test cases into a simctl suite (docs/dfcx-import.md)"},
	{"help", "[COMMAND]", "print this usage, or a command's usage and every flag it takes"},
	{"version", "", "print simctl's version and the revision it was built from (also simctl --version)"},
}

func usage() string {
	var b strings.Builder
	b.WriteString("simctl: deterministic simulation and evaluation of dialogue state machines\n\nUsage:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  simctl %s\n      %s\n", strings.TrimSpace(c.name+" "+c.args), c.about)
	}
	b.WriteString(`
A PATH is a suite folder (one holding machine.yaml or machine.scxml) or a folder of suites.
simctl help COMMAND (or simctl COMMAND --help) lists the command's flags.
Exit status: 0 all passed, 1 a scenario or invariant failed, 2 bad input,
130 stopped by a signal (the reports written are marked incomplete).
`)
	return b.String()
}

// commandNames lists the names a user may type first.
func commandNames() []string {
	var out []string
	for _, c := range commands {
		name, _, _ := strings.Cut(c.name, " ")
		out = append(out, name)
	}
	return out
}

// Main runs simctl with args (without the program name).
func Main(args []string, stdout, stderr io.Writer) int {
	return MainContext(context.Background(), args, stdout, stderr)
}

// MainContext is Main that stops early, writing what it finished, when
// ctx is cancelled (cmd/simctl cancels it on SIGINT and SIGTERM).
func MainContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage())
		return ExitBadInput
	}
	switch args[0] {
	case "-h", "--help":
		fmt.Fprint(stdout, usage())
		return ExitOK
	case "--version", "version":
		fmt.Fprintf(stdout, "simctl %s (revision %s, %s)\n", version.Version, version.Revision(), runtime.Version())
		return ExitOK
	case "help":
		if len(args) == 1 {
			fmt.Fprint(stdout, usage())
			return ExitOK
		}
		if args[1] == "help" || args[1] == "version" {
			// Commands without flags of their own: their line of the usage.
			fmt.Fprint(stdout, commandHelp(newFlags(args[1])))
			return ExitOK
		}
		// simctl help run is simctl run --help; help report merge too.
		args = append(append([]string{}, args[1:]...), "--help")
	}
	var err error
	status := ExitOK
	switch args[0] {
	case "run":
		status, err = runCmd(ctx, args[1:], stdout, stderr)
	case "lint":
		status, err = lintCmd(args[1:], stdout)
	case "replay":
		status, err = replayCmd(ctx, args[1:], stdout)
	case "explore":
		status, err = exploreCmd(ctx, args[1:], stdout)
	case "report":
		status, err = reportCmd(args[1:], stdout)
	case "record":
		status, err = recordCmd(ctx, args[1:], stdout, stderr)
	case "graph":
		status, err = graphCmd(ctx, args[1:], stdout)
	case "mutate":
		status, err = mutateCmd(ctx, args[1:], stdout)
	case "import":
		if len(args) > 1 && args[1] == "dfcx" {
			status, err = importDfcxCmd(args[1:], stdout, stderr)
		} else {
			status, err = importCmd(args[1:], stdout, stderr)
		}
	default:
		msg := fmt.Sprintf("unknown command %q", args[0])
		if args[0] == "merge" {
			msg += " (did you mean report merge?)"
		} else if near := nearest(args[0], commandNames()); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		err = &usageError{msg + "; simctl help lists the commands"}
	}
	var help *helpRequest
	if errors.As(err, &help) {
		fmt.Fprint(stdout, help.text)
		return ExitOK
	}
	if errors.Is(err, errInterrupted) {
		fmt.Fprintf(stderr, "simctl: interrupted before anything was run\n")
		return ExitInterrupted
	}
	if err != nil {
		fmt.Fprintf(stderr, "simctl: %s\n", oneLine(err.Error()))
		return ExitBadInput
	}
	return status
}

// oneLine keeps error output to a single short line whatever a library
// said: the first line, every quoted value cut to spec.MaxQuoted
// characters (most messages quote with spec.Quote already; this catches
// the rest), and the whole at maxErrorLine bytes.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	s = quotedRe.ReplaceAllStringFunc(s, func(q string) string {
		if len(q) <= spec.MaxQuoted+2 {
			return q
		}
		if v, err := strconv.Unquote(q); err == nil {
			return spec.Quote(v)
		}
		return q
	})
	if len(s) > maxErrorLine {
		cut := maxErrorLine
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// maxErrorLine bounds an error line; the longest that simctl writes itself
// (an unknown tag with the list of known ones) is a few hundred bytes.
const maxErrorLine = 1000

// quotedRe matches a Go-quoted string, as %q writes it.
var quotedRe = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// newFlags returns a flag set that reports errors instead of exiting and
// accepts flags after positional arguments (simctl run scenarios/ --out o).
// name is the command's name as commands lists it.
func newFlags(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SetInterspersed(true)
	fs.SortFlags = true
	fs.BoolP("help", "h", false, "print this help")
	return fs
}

// parseFlags parses args; --help or -h returns the command's usage as a
// helpRequest, a misspelled flag an error naming the nearest flag.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if help, _ := fs.GetBool("help"); help || errors.Is(err, pflag.ErrHelp) {
		return &helpRequest{commandHelp(fs)}
	}
	if err != nil {
		if msg, ok := badFlagValue(fs, err); ok {
			return &usageError{msg}
		}
		msg := fmt.Sprintf("%s: %v", fs.Name(), err)
		if flag, ok := unknownFlag(err); ok {
			var names []string
			fs.VisitAll(func(f *pflag.Flag) { names = append(names, "--"+f.Name) })
			if near := nearest(flag, names); near != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", near)
			}
			msg += fmt.Sprintf("; simctl help %s lists its flags", fs.Name())
		}
		return &usageError{msg}
	}
	return nil
}

// badValueRe matches pflag's error for a value its flag's type cannot
// parse; what follows "flag: " is strconv's wording, not simctl's.
var badValueRe = regexp.MustCompile(`^invalid argument ("(?:[^"\\]|\\.)*") for "(?:-\w, )?(--[\w-]+)" flag: (.*)$`)

// badFlagValue rewords pflag's "invalid argument" error as one line that
// says what the flag expects: "run: --seed: expected an integer, got "abc"".
func badFlagValue(fs *pflag.FlagSet, err error) (string, bool) {
	m := badValueRe.FindStringSubmatch(err.Error())
	if m == nil {
		return "", false
	}
	want := "a value"
	if f := fs.Lookup(strings.TrimPrefix(m[2], "--")); f != nil {
		switch f.Value.Type() {
		case "int", "int64", "int32", "uint", "uint64":
			want = "an integer"
		case "float64", "float32":
			want = "a number"
		case "bool":
			want = "true or false"
		case "duration":
			want = "a duration such as 500ms or 2s"
		}
	}
	if strings.Contains(m[3], "out of range") {
		want += " in range"
	}
	got := m[1]
	if v, uerr := strconv.Unquote(got); uerr == nil {
		got = spec.Quote(v)
	}
	return fmt.Sprintf("%s: %s: expected %s, got %s", fs.Name(), m[2], want, got), true
}

// unknownFlag extracts the flag of pflag's "unknown flag: --x" error.
func unknownFlag(err error) (string, bool) {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "unknown flag: "); ok {
		name, _, _ := strings.Cut(rest, "=")
		return name, true
	}
	return "", false
}

// commandHelp is a command's usage: its line, what it does, every flag.
func commandHelp(fs *pflag.FlagSet) string {
	c := command{name: fs.Name()}
	for _, x := range commands {
		if x.name == fs.Name() {
			c = x
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: simctl %s [flags]\n\n%s.\n\nFlags:\n", strings.TrimSpace(c.name+" "+c.args), upperFirst(c.about))
	b.WriteString(fs.FlagUsagesWrapped(80))
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// nearest returns the candidate closest to word, when it is close enough
// to be the one meant (at most 2 edits, or a third of the word), else "".
// Ties go to the first in sorted order, so the suggestion is stable.
func nearest(word string, candidates []string) string {
	sorted := append([]string{}, candidates...)
	sort.Strings(sorted)
	best, bestD := "", -1
	for _, c := range sorted {
		d := editDistance(word, c)
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	limit := max(2, len([]rune(word))/3)
	if bestD < 0 || bestD > limit || bestD == 0 {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
