package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/simctl/simctl/spec"
)

// lintCmd prints every problem of each suite's machine.yaml (errors and
// warnings, one per line, file:line:col first), then the first problem of
// its nlu.yaml, cassette and users.yaml, and the problem of every
// scenario file. Exit status 2 when any is an error.
func lintCmd(args []string, w io.Writer) (int, error) {
	fs := newFlags("lint")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if fs.NArg() == 0 {
		return 0, &usageError{"no suite given (simctl lint scenarios/)"}
	}
	dirs, err := spec.Discover(fs.Args())
	if err != nil {
		return 0, err
	}
	nerr, nwarn := 0, 0
	for _, dir := range dirs {
		if spec.IsChartSuite(dir) {
			if _, err := spec.LoadChartSuite(dir); err != nil {
				nerr++
				var se *spec.Error
				if errors.As(err, &se) {
					fmt.Fprintf(w, "%s: error: %s\n", se.Pos, se.Msg)
				} else {
					fmt.Fprintf(w, "%s: error: %s\n", dir, err)
				}
			}
			continue
		}
		mpath := filepath.Join(dir, spec.MachineFile)
		data, err := spec.ReadFile(mpath, "machine file", spec.MaxFileSize)
		if err != nil {
			return 0, err
		}
		bad := false
		for _, d := range spec.Diagnostics(mpath, data) {
			if d.Warning {
				nwarn++
				fmt.Fprintf(w, "%s: warning: %s\n", d.Pos, d.Msg)
			} else {
				nerr++
				bad = true
				fmt.Fprintf(w, "%s: error: %s\n", d.Pos, d.Msg)
			}
		}
		if bad {
			continue
		}
		if _, err := spec.Load(dir); err != nil {
			// Load joins the errors of every bad scenario file.
			errs := []error{err}
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				errs = j.Unwrap()
			}
			for _, err := range errs {
				nerr++
				var se *spec.Error
				if errors.As(err, &se) {
					fmt.Fprintf(w, "%s: error: %s\n", se.Pos, se.Msg)
				} else {
					fmt.Fprintf(w, "%s: error: %s\n", dir, oneLine(err.Error()))
				}
			}
		}
	}
	fmt.Fprintf(w, "lint: %s, %s, %s\n", count(len(dirs), "suite", "suites"), count(nerr, "error", "errors"), count(nwarn, "warning", "warnings"))
	if nerr > 0 {
		return ExitBadInput, nil
	}
	return ExitOK, nil
}
