// Package mdfence reads the fenced code blocks of a Markdown page. The
// specs that hold the docs to the code (package cli's transcripts, package
// spec's example files) find their blocks with it, so that both read a
// page by the same rule.
package mdfence

import (
	"fmt"
	"strings"
)

// Block is one fenced code block of a page.
type Block struct {
	Line int      // of the opening fence, counted from 1
	Open string   // the opening fence line, such as "```yaml"
	Body []string // the lines between the fences, each with its "\n"
}

// Blocks returns the fenced code blocks of text, the Markdown page named
// page, in order. A fence counts only at the start of a line (indented
// code blocks are left alone), and a block ends at the first line that is
// only ```; a block that never ends is an error at its opening fence.
func Blocks(page, text string) ([]Block, error) {
	lines := strings.SplitAfter(text, "\n")
	var out []Block
	for i := 0; i < len(lines); i++ {
		open := strings.TrimSuffix(lines[i], "\n")
		if !strings.HasPrefix(open, "```") {
			continue
		}
		end := i + 1
		for end < len(lines) && strings.TrimSuffix(lines[end], "\n") != "```" {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("%s:%d: code block is not closed", page, i+1)
		}
		out = append(out, Block{Line: i + 1, Open: open, Body: lines[i+1 : end]})
		i = end
	}
	return out, nil
}
