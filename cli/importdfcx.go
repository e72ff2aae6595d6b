package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/simctl/simctl/dfcx"
)

// importDfcxCmd is `simctl import dfcx AGENT --out SUITE [--force]`: it
// reads an agent exported in Dialogflow CX's JSON package format (a folder
// or a .zip), translates it into a suite, checks that the suite loads, and
// only then writes it. A suite folder holding a machine.yaml the import
// did not write is refused without --force.
func importDfcxCmd(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("import dfcx")
	out := fs.String("out", "", "the suite folder to write")
	force := fs.Bool("force", false, "overwrite a suite folder the import did not write")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if fs.NArg() != 2 || fs.Arg(0) != "dfcx" {
		return 0, &usageError{"usage: simctl import dfcx AGENT_DIR|AGENT.zip --out SUITE_DIR [--force]"}
	}
	if *out == "" {
		return 0, &usageError{"import: --out SUITE_DIR is required"}
	}
	started := time.Now()
	a, err := dfcx.Read(fs.Arg(1))
	if err != nil {
		return 0, err
	}
	s, err := dfcx.Translate(a, filepath.Base(filepath.Clean(*out)))
	if err != nil {
		return 0, err
	}
	machine, err := os.ReadFile(filepath.Join(*out, "machine.yaml"))
	if err == nil && !*force && !bytes.HasPrefix(machine, []byte(dfcx.GeneratedMarker)) {
		return 0, fmt.Errorf("%s: holds a machine.yaml that simctl import dfcx did not write; import into another folder, or give --force to overwrite it", *out)
	}
	if err := checkImported(s.Files); err != nil {
		return 0, err
	}
	if err := writeImport(*out, s.Files, dfcx.GeneratedMarker); err != nil {
		return 0, err
	}
	for _, n := range s.Notes {
		fmt.Fprintf(stderr, "%s: not kept: %s\n", n.Pos, n.What)
	}
	fmt.Fprintf(stdout, "imported %s into %s: %d flows (%d pages), %d scenarios from %d test cases, %d constructs not kept (import.md) in %s\n",
		a.Dir, *out, s.Flows, s.Pages, s.Scenarios, len(a.Tests), len(s.Notes), time.Since(started).Round(time.Millisecond))
	return ExitOK, nil
}
