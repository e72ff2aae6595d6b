package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/spec"
)

// graphCmd writes a suite's machine as a DOT or Mermaid graph to stdout,
// optionally with the transition counts of an earlier run's
// transitions.csv or coverage.csv: counts on the labels, untaken
// transitions dashed and red.
func graphCmd(ctx context.Context, args []string, w io.Writer) (int, error) {
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
	suites, err := loadSuites(ctx, "graph", fs.Args())
	if err != nil {
		return 0, err
	}
	if len(suites) != 1 {
		return 0, &usageError{fmt.Sprintf("%s holds %d suites; graph takes one suite folder", fs.Arg(0), len(suites))}
	}
	name, m := suites[0].Name, suites[0].Machine
	var counts []int64
	if *coverage != "" {
		data, err := spec.ReadFile(*coverage, "coverage file", maxCoverageSize)
		if err != nil {
			return 0, fmt.Errorf("--coverage: %w", err)
		}
		if counts, err = reports.ReadCoverageCounts(bytes.NewReader(data), *coverage, name, m); err != nil {
			return 0, fmt.Errorf("--coverage: %w", err)
		}
	}
	// Render in memory, so that an error leaves stdout empty.
	var b strings.Builder
	if err := reports.WriteGraph(&b, *format, m, counts); err != nil {
		return 0, err
	}
	_, err = io.WriteString(w, b.String())
	return ExitOK, err
}

// maxCoverageSize bounds the --coverage file: a transitions.csv has a row
// per transition of each suite, and a machine has at most a few thousand.
const maxCoverageSize = 64 << 20
