package scxml

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// NS is the SCXML namespace.
const NS = "http://www.w3.org/2005/07/scxml"

// SimctlNS is the namespace of simctl's own executable content, which the
// recommendation (4.10, Extensibility of Executable Content) lets a
// platform add in a namespace of its own:
// <escalate reason="..."/>, the escalate action of a YAML machine.
const SimctlNS = "https://github.com/simctl/simctl"

// node is an element with its position.
type node struct {
	name     string
	space    string
	pos      Pos
	attrs    []xml.Attr
	children []*node
	text     strings.Builder
}

// positions turns byte offsets into line:col (columns count bytes, from 1).
type positions struct {
	file  string
	lines []int64
}

func newPositions(file string, src []byte) positions {
	p := positions{file: file, lines: []int64{0}}
	for i, b := range src {
		if b == '\n' {
			p.lines = append(p.lines, int64(i+1))
		}
	}
	return p
}

func (p positions) at(off int64) Pos {
	l := sort.Search(len(p.lines), func(i int) bool { return p.lines[i] > off }) - 1
	if l < 0 {
		l = 0
	}
	return Pos{File: p.file, Line: l + 1, Col: int(off-p.lines[l]) + 1}
}

// MaxDepth bounds element nesting, so that a hostile file cannot exhaust
// the stack of the recursive conversion.
const MaxDepth = 100

// parseXML reads the document into a tree of positioned elements.
func parseXML(file string, src []byte) (*node, positions, error) {
	pos := newPositions(file, src)
	d := xml.NewDecoder(bytes.NewReader(src))
	d.Strict = true
	var root *node
	var stack []*node
	for {
		off := d.InputOffset()
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, pos, &Error{Pos: pos.at(syntaxOffset(err, d, pos)), Msg: "malformed XML: " + xmlMessage(err)}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &node{name: t.Name.Local, space: t.Name.Space, pos: pos.at(off), attrs: t.Attr}
			if len(stack) == 0 {
				if root != nil {
					return nil, pos, &Error{Pos: n.pos, Msg: "a second root element; a document holds one <scxml>"}
				}
				root = n
			} else if p := stack[len(stack)-1]; !foreign(p, n) {
				p.children = append(p.children, n)
			}
			stack = append(stack, n)
			if len(stack) > MaxDepth {
				return nil, pos, &Error{Pos: n.pos, Msg: fmt.Sprintf("elements nested deeper than %d", MaxDepth)}
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text.Write(t)
			} else if len(bytes.TrimSpace(t)) > 0 {
				return nil, pos, &Error{Pos: pos.at(off), Msg: "text outside the <scxml> element"}
			}
		}
	}
	if root == nil {
		return nil, pos, &Error{Pos: pos.at(0), Msg: "expected an <scxml> element"}
	}
	return root, pos, nil
}

// syntaxOffset finds where the decoder stopped: xml.SyntaxError gives a
// line only, so the column is that of the decoder's offset when it lies on
// that line.
func syntaxOffset(err error, d *xml.Decoder, pos positions) int64 {
	off := d.InputOffset()
	var se *xml.SyntaxError
	if errors.As(err, &se) && se.Line >= 1 && se.Line <= len(pos.lines) {
		start := pos.lines[se.Line-1]
		if off < start || se.Line < len(pos.lines) && off >= pos.lines[se.Line] {
			return start
		}
	}
	return off
}

func xmlMessage(err error) string {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return se.Msg
	}
	return err.Error()
}

// foreign reports whether n, a child of p, is an element of another
// namespace (not SCXML's, nor simctl's own) that the recommendation's
// schema lets an SCXML element hold and simctl ignores: an editor's
// layout data (Qt Creator's qt:editorinfo, in states and transitions).
// In an executable block (onentry, onexit, if, foreach) it would be
// executable content simctl cannot run, and inside content, data and
// assign it is the document's data: the loader judges both.
func foreign(p, n *node) bool {
	if p.space != NS || n.space == "" || n.space == NS || n.space == SimctlNS {
		return false
	}
	switch p.name {
	case "onentry", "onexit", "if", "foreach", "content", "data", "assign":
		return false
	}
	return true
}
