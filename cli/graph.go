package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/simctl/simctl/reports"
)

// graphCmd writes a suite's machine as a DOT or Mermaid graph to stdout,
// optionally with the transition counts of an earlier run's
// transitions.csv or coverage.csv: counts on the labels, untaken
// transitions dashed and red.
func graphCmd(args []string, w io.Writer) (int, error) {
	fs := newFlags("graph")
	format := fs.String("format", reports.FormatDOT, "graph format: "+strings.Join(reports.GraphFormats, ", "))
	coverage := fs.String("coverage", "", "transitions.csv or coverage.csv of an earlier run: overlay its counts")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	known := false
	for _, f := range reports.GraphFormats {
		known = known || f == *format
	}
	if !known {
		return 0, &usageError{fmt.Sprintf("--format: unknown format %q (want %s)", *format, strings.Join(reports.GraphFormats, ", "))}
	}
	if fs.NArg() != 1 {
		return 0, &usageError{"graph takes one suite folder (simctl graph scenarios/soni --format dot)"}
	}
	suites, err := loadSuites(fs.Args())
	if err != nil {
		return 0, err
	}
	if len(suites) != 1 {
		return 0, &usageError{fmt.Sprintf("%s holds %d suites; graph takes one suite folder", fs.Arg(0), len(suites))}
	}
	s := suites[0]
	var counts []int64
	if *coverage != "" {
		f, err := os.Open(*coverage)
		if err != nil {
			return 0, fmt.Errorf("--coverage: %s: cannot read it (%v)", *coverage, unwrapPath(err))
		}
		defer f.Close()
		if counts, err = reports.ReadCoverageCounts(f, *coverage, s.Name, s.Machine); err != nil {
			return 0, fmt.Errorf("--coverage: %w", err)
		}
	}
	// Render in memory, so that an error leaves stdout empty.
	var b strings.Builder
	if err := reports.WriteGraph(&b, *format, s.Machine, counts); err != nil {
		return 0, err
	}
	_, err = io.WriteString(w, b.String())
	return ExitOK, err
}

// unwrapPath drops the operation and path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
