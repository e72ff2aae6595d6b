package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/simctl/simctl/rasa"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/spec"
)

// importCmd is `simctl import rasa PROJECT --out SUITE [--force]`: it reads
// a Rasa CALM project, translates it into a suite, checks that the suite
// loads, and only then writes it. A suite folder holding files the import
// did not write is refused without --force; an nlu.yaml the user edited
// is kept (the fresh rules go to nlu.generated.yaml) unless --force.
func importCmd(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("import rasa")
	out := fs.String("out", "", "the suite folder to write")
	force := fs.Bool("force", false, "overwrite a suite folder the import did not write, and an edited nlu.yaml")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if fs.NArg() != 2 || fs.Arg(0) != "rasa" {
		return 0, &usageError{"usage: simctl import rasa PROJECT_DIR --out SUITE_DIR [--force]"}
	}
	if *out == "" {
		return 0, &usageError{"import: --out SUITE_DIR is required"}
	}
	started := time.Now()
	p, err := rasa.Read(fs.Arg(1))
	if err != nil {
		return 0, err
	}
	name := filepath.Base(filepath.Clean(*out))
	s, err := rasa.Translate(p, name)
	if err != nil {
		return 0, err
	}
	files, kept, err := planImport(*out, s, *force)
	if err != nil {
		return 0, err
	}
	if err := checkImported(files); err != nil {
		return 0, err
	}
	if err := writeImport(*out, files, rasa.GeneratedMarker); err != nil {
		return 0, err
	}
	for _, n := range s.Notes {
		fmt.Fprintf(stderr, "%s: not kept: %s\n", n.Pos, n.What)
	}
	if kept {
		fmt.Fprintf(stderr, "%s: kept: you edited it since the last import; the new rules are in nlu.generated.yaml (--force overwrites it)\n", filepath.Join(*out, "nlu.yaml"))
	}
	fmt.Fprintf(stdout, "imported %s into %s: %d flows (%d steps), %d default patterns, %d scenarios from %d e2e test cases, %d constructs not kept (import.md) in %s\n",
		p.Dir, *out, s.Flows, s.Steps, s.Patterns, s.Scenarios, len(p.Tests), len(s.Notes), time.Since(started).Round(time.Millisecond))
	return ExitOK, nil
}

// planImport decides the files to write over an earlier import.
func planImport(out string, s *rasa.Suite, force bool) (map[string][]byte, bool, error) {
	files := map[string][]byte{}
	for k, v := range s.Files {
		files[k] = v
	}
	machine, err := os.ReadFile(filepath.Join(out, "machine.yaml"))
	if err == nil && !force && !bytes.HasPrefix(machine, []byte(rasa.GeneratedMarker)) {
		return nil, false, fmt.Errorf("%s: holds a machine.yaml that simctl import rasa did not write; import into another folder, or give --force to overwrite it", out)
	}
	old, err := os.ReadFile(filepath.Join(out, "nlu.yaml"))
	if err != nil || force {
		return files, false, nil
	}
	// The hash on the marker line is the generated body's: a different
	// body means the user edited the file.
	i := bytes.Index(old, []byte(rasa.NLUMarker))
	if i >= 0 {
		rest := old[i+len(rasa.NLUMarker):]
		if j := bytes.IndexByte(rest, '\n'); j >= 0 && string(rest[:j]) == rasa.NLUHash(rest[j+1:]) {
			return files, false, nil
		}
	}
	files["nlu.generated.yaml"] = files["nlu.yaml"]
	files["nlu.yaml"] = old
	return files, true, nil
}

// checkImported loads the suite from a temporary folder: an import that
// would not load is an error, and nothing is written.
func checkImported(files map[string][]byte) error {
	dir, err := os.MkdirTemp("", "simctl-import-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for n, data := range files {
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			return err
		}
	}
	if _, err := spec.Load(dir); err != nil {
		msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
		return fmt.Errorf("the imported suite does not load (a limit of simctl, or a bug of the import): %s", msg)
	}
	return nil
}

// writeImport writes an import's files into the suite folder out, each
// to a temporary file renamed into place, after removing the scenarios an
// earlier import wrote (their first line starts with marker) that this one
// does not.
func writeImport(out string, files map[string][]byte, marker string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("%s: cannot create it (%v)", out, unwrapPath(err))
	}
	if err := removeStale(out, files, marker); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		tmp, err := reports.WriteTemp(out, n, files[n])
		if err == nil {
			err = os.Rename(tmp, filepath.Join(out, n))
		}
		if err != nil {
			return fmt.Errorf("%s: cannot write it (%v)", filepath.Join(out, n), unwrapPath(err))
		}
	}
	return nil
}

// removeStale deletes scenarios an earlier import wrote that this one
// does not (a test case removed or renamed).
func removeStale(out string, files map[string][]byte, marker string) error {
	entries, err := os.ReadDir(out)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".scenario.yaml") || files[n] != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(out, n))
		if err == nil && bytes.HasPrefix(data, []byte(marker)) {
			if err := os.Remove(filepath.Join(out, n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// unwrapPath drops the operation and path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
