package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/mdfence"
)

// Docs as tests, in the manner of Go's testscript: every command a page
// of README.md or docs/ shows with its output runs, and its output must be
// the page's. A page is read top to bottom in a folder of its own, where
// the repository's folders (scenarios/, docs/, examples/, cli/...) are
// linked in:
//
//   - a ```yaml block whose first line is "# file: PATH" is written to
//     PATH (the walkthrough's files);
//   - a ```yaml block whose first line is "# edit: PATH" replaces, in PATH,
//     the block of the key its second line opens (that line, and the
//     lines after it indented deeper), as a reader edits the file;
//   - a plain ``` block whose first line starts with "$ " is a transcript:
//     each "$ " line is a command (bin/simctl or simctl, run as the
//     binary make build makes, in the page's folder), the lines up to the
//     next one its stdout, then its stderr but for the "progress:" lines
//     (a live line on a terminal). A line "..." stands for any number of
//     lines; durations (78ms, 1.2s) are not compared. The exit status is
//     not shown, so any is accepted.
//
// A page that shows a command's output in another form is not checked:
// write it as a transcript.

var docPages = func() []string {
	pages, _ := filepath.Glob("../docs/*.md")
	return append([]string{"../README.md"}, pages...)
}()

var _ = Describe("the commands the docs show", func() {
	var entries []TableEntry
	for _, page := range docPages {
		data, err := os.ReadFile(page)
		if err != nil || !bytes.Contains(data, []byte("\n```\n$ ")) {
			continue
		}
		entries = append(entries, Entry(strings.TrimPrefix(page, "../"), page))
	}

	DescribeTable("print what the page says they print",
		func(page string) {
			data, err := os.ReadFile(page)
			Expect(err).NotTo(HaveOccurred())
			blocks, err := docBlocks(page, string(data))
			Expect(err).NotTo(HaveOccurred())
			dir := docFolder()
			for _, b := range blocks {
				switch b.kind {
				case "file":
					Expect(os.MkdirAll(filepath.Dir(filepath.Join(dir, b.path)), 0o755)).To(Succeed())
					Expect(os.WriteFile(filepath.Join(dir, b.path), []byte(b.body), 0o644)).To(Succeed(), "%s:%d", page, b.line)
				case "edit":
					file := filepath.Join(dir, b.path)
					old, err := os.ReadFile(file)
					Expect(err).NotTo(HaveOccurred(), "%s:%d: # edit: %s, a file the page has not written", page, b.line, b.path)
					edited, err := editKeyBlock(string(old), b.body)
					Expect(err).NotTo(HaveOccurred(), "%s:%d", page, b.line)
					Expect(os.WriteFile(file, []byte(edited), 0o644)).To(Succeed())
				case "transcript":
					for _, c := range b.commands {
						got := runDocCommand(dir, c.args)
						Expect(matchTranscript(c.want, got)).To(BeTrue(),
							"%s:%d: $ %s\nthe page says:\n%s\nsimctl printed:\n%s\n(update the page, or simctl)", page, c.line, strings.Join(c.args, " "), strings.Join(c.want, "\n"), got)
					}
				}
			}
		},
		entries,
	)

	It("fails when an output line of docs/first-suite.md is changed", func() {
		data, err := os.ReadFile("../docs/first-suite.md")
		Expect(err).NotTo(HaveOccurred())
		const line = "lint: 1 suite, 0 errors, 0 warnings\n"
		Expect(string(data)).To(ContainSubstring(line))
		blocks, err := docBlocks("first-suite.md", strings.Replace(string(data), line, "lint: 1 suite, 1 errors, 0 warnings\n", 1))
		Expect(err).NotTo(HaveOccurred())
		dir := docFolder()
		for _, b := range blocks {
			if b.kind == "file" {
				Expect(os.MkdirAll(filepath.Dir(filepath.Join(dir, b.path)), 0o755)).To(Succeed())
				Expect(os.WriteFile(filepath.Join(dir, b.path), []byte(b.body), 0o644)).To(Succeed())
			}
			if b.kind == "transcript" {
				c := b.commands[0]
				Expect(c.args).To(Equal([]string{"bin/simctl", "lint", "greeter"}))
				Expect(matchTranscript(c.want, runDocCommand(dir, c.args))).To(BeFalse())
				return
			}
		}
		Fail("no transcript in docs/first-suite.md")
	})
})

// docBlock is one block of a page that the docs spec acts on.
type docBlock struct {
	kind     string // file, edit or transcript
	line     int    // of the opening fence
	path     string // file and edit: the file, relative to the page's folder
	body     string // file: the content; edit: the replacement block
	commands []docCommand
}

// docCommand is one "$ " line of a transcript and the output shown under it.
type docCommand struct {
	line int
	args []string
	want []string
}

// docBlocks reads the blocks of a Markdown page that the spec acts on, in
// order.
func docBlocks(page, text string) ([]docBlock, error) {
	fenced, err := mdfence.Blocks(page, text)
	if err != nil {
		return nil, err
	}
	var out []docBlock
	for _, f := range fenced {
		open, body := f.Open, f.Body
		b := docBlock{line: f.Line}
		switch {
		case open == "```yaml" && len(body) > 0 && strings.HasPrefix(body[0], "# file: "):
			b.kind, b.path = "file", strings.TrimSpace(strings.TrimPrefix(body[0], "# file: "))
			b.body = strings.Join(body[1:], "")
		case open == "```yaml" && len(body) > 1 && strings.HasPrefix(body[0], "# edit: "):
			b.kind, b.path = "edit", strings.TrimSpace(strings.TrimPrefix(body[0], "# edit: "))
			b.body = strings.Join(body[1:], "")
		case open == "```" && len(body) > 0 && strings.HasPrefix(body[0], "$ "):
			b.kind = "transcript"
			for k, l := range body {
				l = strings.TrimSuffix(l, "\n")
				if cmd, ok := strings.CutPrefix(l, "$ "); ok {
					b.commands = append(b.commands, docCommand{line: f.Line + 1 + k, args: strings.Fields(cmd)})
					continue
				}
				c := &b.commands[len(b.commands)-1]
				c.want = append(c.want, l)
			}
		default:
			continue
		}
		out = append(out, b)
	}
	return out, nil
}

// docFolder is a fresh folder holding the repository's top-level folders
// (scenarios/, docs/, examples/, cli/...) as real folders whose entries
// are links to the repository's, so that the docs' paths (scenarios/soni,
// docs/examples/pizza, cli/testdata/...) work from it, and a suite a page
// writes (simctl import rasa pay --out scenarios/pay) lands in it.
func docFolder() string {
	dir := GinkgoT().TempDir()
	top, err := os.ReadDir("..")
	Expect(err).NotTo(HaveOccurred())
	for _, t := range top {
		if !t.IsDir() || strings.HasPrefix(t.Name(), ".") || t.Name() == "bin" || t.Name() == "out" {
			continue
		}
		Expect(os.Mkdir(filepath.Join(dir, t.Name()), 0o755)).To(Succeed())
		entries, err := os.ReadDir(filepath.Join("..", t.Name()))
		Expect(err).NotTo(HaveOccurred())
		for _, e := range entries {
			abs, err := filepath.Abs(filepath.Join("..", t.Name(), e.Name()))
			Expect(err).NotTo(HaveOccurred())
			Expect(os.Symlink(abs, filepath.Join(dir, t.Name(), e.Name()))).To(Succeed())
		}
	}
	return dir
}

// runDocCommand runs a transcript's command in dir and returns what it
// printed, stdout then stderr.
func runDocCommand(dir string, args []string) string {
	Expect(args).NotTo(BeEmpty())
	Expect(args[0]).To(BeElementOf("bin/simctl", "simctl"), "a docs transcript runs simctl only")
	ctxArgs := args[1:]
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(simctlBinary(), ctxArgs...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	Expect(cmd.Start()).To(Succeed())
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Minute):
		cmd.Process.Kill()
		<-done
		Fail("simctl " + strings.Join(ctxArgs, " ") + " did not end within 5 minutes")
	}
	var errLines []string
	for _, l := range strings.SplitAfter(stderr.String(), "\n") {
		if !strings.HasPrefix(l, "progress:") {
			errLines = append(errLines, l)
		}
	}
	return stdout.String() + strings.Join(errLines, "")
}

// durationRe matches a wall-clock duration in output, which the docs
// spec does not compare.
var durationRe = regexp.MustCompile(`\b\d+(\.\d+)?(ms|µs|s)\b`)

// matchTranscript says whether output got is the lines want, where a
// line "..." stands for any number of lines.
func matchTranscript(want []string, got string) bool {
	gotLines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if got == "" {
		gotLines = nil
	}
	norm := func(s string) string { return durationRe.ReplaceAllString(s, "DURATION") }
	var match func(w, g []string) bool
	match = func(w, g []string) bool {
		if len(w) == 0 {
			return len(g) == 0
		}
		if w[0] == "..." {
			for k := 0; k <= len(g); k++ {
				if match(w[1:], g[k:]) {
					return true
				}
			}
			return false
		}
		return len(g) > 0 && norm(w[0]) == norm(g[0]) && match(w[1:], g[1:])
	}
	return match(want, gotLines)
}

// editKeyBlock replaces in text the block of the YAML key that block's
// first line opens: that line and the lines after it indented deeper
// (blank lines included).
func editKeyBlock(text, block string) (string, error) {
	first, _, _ := strings.Cut(block, "\n")
	lines := strings.SplitAfter(text, "\n")
	indent := len(first) - len(strings.TrimLeft(first, " "))
	for i, l := range lines {
		if strings.TrimSuffix(l, "\n") != first {
			continue
		}
		end := i + 1
		for end < len(lines) {
			t := strings.TrimSuffix(lines[end], "\n")
			if strings.TrimSpace(t) != "" && len(t)-len(strings.TrimLeft(t, " ")) <= indent {
				break
			}
			end++
		}
		return strings.Join(lines[:i], "") + block + strings.Join(lines[end:], ""), nil
	}
	return "", fmt.Errorf("no line %q to replace", first)
}
