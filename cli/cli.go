// Package cli is simctl's command line: it parses arguments, loads suites,
// runs them and prints results. Main is the entry point; it returns the
// process exit status instead of exiting, so tests can drive it in-process.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// Exit statuses.
const (
	ExitOK          = 0
	ExitFailed      = 1   // a scenario or invariant failed
	ExitBadInput    = 2   // bad input: a file, a flag or a path
	ExitInterrupted = 130 // SIGINT or SIGTERM stopped the run; the report written is marked incomplete
)

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

const usage = `simctl: deterministic simulation and evaluation of dialogue state machines

Usage:
  simctl run PATH... [--seed N] [--out DIR] [--only TAG] [-v]
  simctl lint PATH...
  simctl replay FILE.scenario.yaml [-v]
  simctl explore PATH... [--depth D] [--max-states N] [--emit-scenarios DIR]
  simctl record PATH... --nlu-url URL [--overwrite] [--generate N] [--timeout 5s] [--retries 3]
  simctl graph SUITE [--format dot|mermaid] [--coverage FILE]
  simctl mutate PATH... [--seed N] [--generate N] [--workers W] [--shard i/n] [--out DIR] [--min-score P]
  simctl report merge DIR... --out DIR

A PATH is a suite folder (one holding machine.yaml) or a folder of suites.
Exit status: 0 all passed, 1 a scenario or invariant failed, 2 bad input.
`

// Main runs simctl with args (without the program name).
func Main(args []string, stdout, stderr io.Writer) int {
	return MainContext(context.Background(), args, stdout, stderr)
}

// MainContext is Main that stops early, writing what it finished, when
// ctx is cancelled (cmd/simctl cancels it on SIGINT and SIGTERM).
func MainContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, usage)
		if len(args) == 0 {
			return ExitBadInput
		}
		return ExitOK
	}
	var err error
	status := ExitOK
	switch args[0] {
	case "run":
		status, err = runCmd(ctx, args[1:], stdout, stderr)
	case "lint":
		status, err = lintCmd(args[1:], stdout)
	case "replay":
		status, err = replayCmd(args[1:], stdout)
	case "explore":
		status, err = exploreCmd(args[1:], stdout)
	case "report":
		status, err = reportCmd(args[1:], stdout)
	case "record":
		status, err = recordCmd(args[1:], stdout)
	case "graph":
		status, err = graphCmd(args[1:], stdout)
	case "mutate":
		status, err = mutateCmd(ctx, args[1:], stdout)
	default:
		err = &usageError{fmt.Sprintf("unknown command %q (want run, lint, replay, explore, mutate, graph or record; see simctl help)", args[0])}
	}
	if err != nil {
		fmt.Fprintf(stderr, "simctl: %s\n", oneLine(err.Error()))
		return ExitBadInput
	}
	return status
}

// oneLine keeps error output to a single line whatever a library said.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// newFlags returns a flag set that reports errors instead of exiting and
// accepts flags after positional arguments (simctl run scenarios/ --out o).
func newFlags(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SetInterspersed(true)
	return fs
}

func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return &usageError{"usage: " + strings.TrimSpace(fs.FlagUsages())}
		}
		return &usageError{fmt.Sprintf("%s: %v", fs.Name(), err)}
	}
	return nil
}
