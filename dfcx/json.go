package dfcx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
)

// An exported agent is JSON, and encoding/json keeps no positions. A node
// tree built from the decoder's tokens and offsets does: every value
// remembers where it starts, so a dangling reference or an unsupported
// function is reported at its file:line:col.

type kind uint8

const (
	jNull kind = iota
	jBool
	jNum
	jStr
	jArr
	jObj
)

type node struct {
	kind   kind
	str    string // jStr; jNum as written
	b      bool
	items  []*node
	keys   []string
	vals   []*node
	pos    engine.Pos
	ptr    string // the JSON pointer of this value
	absent bool   // a key that is not there: every accessor gives zero values
}

var missing = &node{absent: true}

// get returns the value of key k of an object, or an absent node.
func (n *node) get(k string) *node {
	if n == nil || n.kind != jObj {
		return missing
	}
	for i, key := range n.keys {
		if key == k {
			return n.vals[i]
		}
	}
	return missing
}

func (n *node) path(ks ...string) *node {
	for _, k := range ks {
		n = n.get(k)
	}
	return n
}

func (n *node) s() string {
	if n == nil || n.kind != jStr {
		return ""
	}
	return n.str
}

func (n *node) arr() []*node {
	if n == nil || n.kind != jArr {
		return nil
	}
	return n.items
}

func (n *node) truth() bool { return n != nil && n.kind == jBool && n.b }

// where is the position of the node for an error: its line and column,
// and its JSON pointer when the position is not known.
func (n *node) where() string {
	if n == nil || n.absent {
		return "?"
	}
	return n.pos.String()
}

// scalar renders a scalar the way a test case's session parameters are
// compared: strings as they are, numbers without a trailing .0.
func (n *node) scalar() (string, bool) {
	switch n.kind {
	case jStr:
		return n.str, true
	case jNum:
		if f, err := strconv.ParseFloat(n.str, 64); err == nil {
			return strconv.FormatFloat(f, 'f', -1, 64), true
		}
		return n.str, true
	case jBool:
		return strconv.FormatBool(n.b), true
	}
	return "", false
}

// parseJSON reads one JSON document into a positioned tree. A syntax
// error is one line at its position.
func parseJSON(file string, data []byte) (*node, error) {
	lines := []int{0}
	for i, c := range data {
		if c == '\n' {
			lines = append(lines, i+1)
		}
	}
	posAt := func(off int) engine.Pos {
		l := sort.Search(len(lines), func(i int) bool { return lines[i] > off }) - 1
		if l < 0 {
			l = 0
		}
		return engine.Pos{File: file, Line: l + 1, Col: off - lines[l] + 1}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// start finds where the next token begins: after white space and the
	// separators the decoder consumes silently.
	start := func() int {
		off := int(dec.InputOffset())
		for off < len(data) && strings.IndexByte(" \t\r\n:,", data[off]) >= 0 {
			off++
		}
		return off
	}
	fail := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("%s: malformed JSON: %s", posAt(int(se.Offset)), se.Error())
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%s: malformed JSON: unexpected end of file", posAt(len(data)))
		}
		return fmt.Errorf("%s: malformed JSON: %v", posAt(int(dec.InputOffset())), err)
	}
	depth := 0
	var value func(ptr string) (*node, error)
	value = func(ptr string) (*node, error) {
		off := start()
		tok, err := dec.Token()
		if err != nil {
			return nil, fail(err)
		}
		n := &node{pos: posAt(off), ptr: ptr}
		switch t := tok.(type) {
		case json.Delim:
			depth++
			if depth > 200 {
				return nil, fmt.Errorf("%s: JSON nested more than 200 levels deep", n.pos)
			}
			defer func() { depth-- }()
			if t == '[' {
				n.kind = jArr
				for dec.More() {
					it, err := value(ptr + "/" + strconv.Itoa(len(n.items)))
					if err != nil {
						return nil, err
					}
					n.items = append(n.items, it)
				}
			} else if t == '{' {
				n.kind = jObj
				for dec.More() {
					kt, err := dec.Token()
					if err != nil {
						return nil, fail(err)
					}
					k, _ := kt.(string)
					v, err := value(ptr + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
					if err != nil {
						return nil, err
					}
					n.keys = append(n.keys, k)
					n.vals = append(n.vals, v)
				}
			} else {
				return nil, fmt.Errorf("%s: malformed JSON: unexpected %q", n.pos, string(t))
			}
			if _, err := dec.Token(); err != nil {
				return nil, fail(err)
			}
		case string:
			n.kind, n.str = jStr, t
		case json.Number:
			n.kind, n.str = jNum, string(t)
		case bool:
			n.kind, n.b = jBool, t
		case nil:
			n.kind = jNull
		}
		return n, nil
	}
	root, err := value("")
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: malformed JSON: more than one value in the file", posAt(start()))
	}
	return root, nil
}
