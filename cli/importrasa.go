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

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/rasa"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/sim"
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
	if len(s.Recorded) > 0 {
		cas, err := llmCassette(files, s.Recorded)
		if err != nil {
			return 0, err
		}
		files[rasa.LLMCassette] = cas
		if err := checkImported(files); err != nil {
			return 0, err
		}
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
	_, err := loadImported(files, func(*spec.Suite) error { return nil })
	return err
}

// loadImported loads the suite of files from a temporary folder and hands
// it to use before the folder goes.
func loadImported(files map[string][]byte, use func(*spec.Suite) error) (*spec.Suite, error) {
	dir, err := os.MkdirTemp("", "simctl-import-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	for n, data := range files {
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			return nil, err
		}
	}
	s, err := spec.Load(dir)
	if err != nil {
		msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
		return nil, fmt.Errorf("the imported suite does not load (a limit of simctl, or a bug of the import): %s", msg)
	}
	return s, use(s)
}

// llmCassette is the cassette of the recorded LLM replies: each recorded
// turn's scenario is played (in every variant it runs in) with an NLU
// that answers its recorded texts with their replies, and each reply is
// kept for the state the conversation was in when the text was said, as
// simctl record keeps a live NLU's. Replayed strictly, the cassette is
// the parse of those messages. A text said in the same state with two
// different replies keeps the first.
func llmCassette(files map[string][]byte, recorded []rasa.RecordedTurn) ([]byte, error) {
	replies := map[string]map[string]spec.ParseReply{} // scenario file -> text -> reply
	for _, r := range recorded {
		if replies[r.Scenario] == nil {
			replies[r.Scenario] = map[string]spec.ParseReply{}
		}
		if _, ok := replies[r.Scenario][r.Reply.Text]; !ok {
			replies[r.Scenario][r.Reply.Text] = r.Reply
		}
	}
	recs := map[[2]string]spec.CassetteRecord{}
	var order [][2]string
	_, err := loadImported(files, func(s *spec.Suite) error {
		for _, sc := range s.Scenarios {
			own := replies[filepath.Base(sc.File)]
			if own == nil {
				continue
			}
			for _, v := range s.VariantsFor(sc) {
				custom := func(m *engine.Machine, _ *sim.Stub) sim.NLU {
					return &recordedLLM{m: m, fallback: sim.FallbackIntent(s.NLU, m), own: own, recs: recs, order: &order}
				}
				sim.RunScenario(s, sc, sim.Options{Variant: v, Seed: 1, NLU: sim.NLUOptions{Custom: custom}})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]spec.CassetteRecord, 0, len(order))
	for _, k := range order {
		out = append(out, recs[k])
	}
	spec.SortRecords(out)
	return spec.EncodeCassette(out)
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

// recordedLLM answers a scenario's recorded texts with their recorded
// replies and keeps each for the state it was said in.
type recordedLLM struct {
	m        *engine.Machine
	fallback engine.IntentID
	own      map[string]spec.ParseReply
	recs     map[[2]string]spec.CassetteRecord
	order    *[][2]string
}

func (r *recordedLLM) Parse(text string, state engine.StateID, ev *engine.Event) error {
	reply, ok := r.own[text]
	if !ok {
		return fmt.Errorf("%q has no recorded reply", text)
	}
	k := [2]string{r.m.StateName(state), text}
	if _, seen := r.recs[k]; !seen {
		r.recs[k] = spec.CassetteRecord{State: k[0], ParseReply: reply}
		*r.order = append(*r.order, k)
	}
	reply = r.recs[k].ParseReply
	sim.EventFromReply(r.m, &reply, text, r.fallback, ev)
	return nil
}
