package rasa

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/engine"
)

// A custom action is Python code the import cannot run. Where a test
// stubs it, the stub is its result. Where none does, the import reads the
// action's code under actions/ for what it does unconditionally: a run
// method without if, for, while or try whose responses are static
// (utter_message(response="utter_x") or text="...") and whose slot
// events are literals (SlotSet("slot", True)) stands for the action, as a
// stub would. Anything computed is left out and the action named in
// import.md.

var (
	pyClassRe    = regexp.MustCompile(`(?m)^class\s+\w+\s*\([^)]*\)\s*:`)
	pyNameRe     = regexp.MustCompile(`def\s+name\s*\([^)]*\)[^:]*:\s*return\s+"([^"]+)"`)
	pyRunRe      = regexp.MustCompile(`(?s)def\s+run\s*\(.*`)
	pyBranchRe   = regexp.MustCompile(`(?m)^\s+(if|for|while|try|elif|else)\b`)
	pyResponseRe = regexp.MustCompile(`utter_message\(\s*(?:response|template)\s*=\s*"(utter_\w+)"`)
	pyTextRe     = regexp.MustCompile(`utter_message\(\s*(?:text\s*=\s*)?"([^"{}\\]*)"\s*[,)]`)
	pySlotSetRe  = regexp.MustCompile(`SlotSet\(\s*"(\w+)"\s*,\s*([^)]*)\)`)
	pyLiteralRe  = regexp.MustCompile(`^(True|False|None|-?\d+(?:\.\d+)?|"[^"]*"|'[^']*')$`)
)

// readActionCode reads the project's actions/ folder, if it has one.
func (p *Project) readActionCode() error {
	root := filepath.Join(p.Dir, "actions")
	if !exists(root) {
		return nil
	}
	var files []string
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasSuffix(path, ".py") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: cannot read it (%v)", root, err)
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("%s: cannot read it (%v)", f, err)
		}
		src := string(data)
		starts := pyClassRe.FindAllStringIndex(src, -1)
		for i, st := range starts {
			end := len(src)
			if i+1 < len(starts) {
				end = starts[i+1][0]
			}
			p.readActionClass(f, src, st[0], src[st[0]:end])
		}
	}
	return nil
}

func (p *Project) readActionClass(file, src string, off int, body string) {
	m := pyNameRe.FindStringSubmatch(body)
	if m == nil {
		return
	}
	name := m[1]
	pos := engine.Pos{File: file, Line: strings.Count(src[:off], "\n") + 1, Col: 1}
	run := pyRunRe.FindString(body)
	if run == "" {
		return
	}
	if pyBranchRe.MatchString(run) {
		p.CodeNotes[name] = Note{Pos: pos, What: fmt.Sprintf("custom action %s decides what it does in code (if, for, while or try); only a test's stub can stand for it", name)}
		return
	}
	st := &Stub{Action: name, Pos: pos, File: file}
	for _, r := range pyResponseRe.FindAllStringSubmatch(run, -1) {
		st.Said = append(st.Said, r[1])
	}
	for _, r := range pyTextRe.FindAllStringSubmatch(run, -1) {
		st.Responses = append(st.Responses, r[1])
	}
	for _, s := range pySlotSetRe.FindAllStringSubmatch(run, -1) {
		lit := strings.TrimSpace(s[2])
		if !pyLiteralRe.MatchString(lit) {
			p.CodeNotes[name] = Note{Pos: pos, What: fmt.Sprintf("custom action %s sets slot %s to a computed value; only a test's stub can stand for it", name, s[1])}
			return
		}
		v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.Trim(lit, `"'`)}
		switch lit {
		case "True", "False":
			v.Tag, v.Value = "!!bool", strings.ToLower(lit)
		case "None":
			v.Tag, v.Value = "!!null", ""
		}
		st.Slots = append(st.Slots, SlotValue{Slot: s[1], Value: v, Pos: pos})
	}
	if len(st.Said)+len(st.Responses)+len(st.Slots) > 0 {
		p.Code[name] = st
	}
}
