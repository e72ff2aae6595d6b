// Package jsonpath selects values from decoded JSON by the subset of
// JSONPath that bot connectors use to find reply texts and state: a root
// `$`, then member names (`.name` or `['name']`), array indexes (`[0]`,
// `[-1]` counting from the end) and wildcards (`[*]`, `.*`). Compile
// checks a path once, when bot.yaml is read; Select runs it on each reply.
package jsonpath

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// step is one selector: a member name, an index, or every child.
type step struct {
	name  string
	index int
	kind  byte // 'n' name, 'i' index, '*' every child
}

// Path is a compiled JSONPath.
type Path struct {
	src   string
	steps []step
}

func (p *Path) String() string { return p.src }

// Compile parses src; the error says at which byte it went wrong.
func Compile(src string) (*Path, error) {
	p := &Path{src: src}
	if !strings.HasPrefix(src, "$") {
		return nil, fmt.Errorf("a JSON path starts with $, got %q", src)
	}
	for i := 1; i < len(src); {
		switch {
		case strings.HasPrefix(src[i:], ".*"):
			p.steps = append(p.steps, step{kind: '*'})
			i += 2
		case src[i] == '.':
			j := i + 1
			for j < len(src) && src[j] != '.' && src[j] != '[' {
				j++
			}
			if j == i+1 {
				return nil, fmt.Errorf("JSON path %q: a member name expected at byte %d", src, i+1)
			}
			p.steps = append(p.steps, step{kind: 'n', name: src[i+1 : j]})
			i = j
		case src[i] == '[':
			end := strings.IndexByte(src[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("JSON path %q: ] expected after byte %d", src, i)
			}
			in := src[i+1 : i+end]
			switch {
			case in == "*":
				p.steps = append(p.steps, step{kind: '*'})
			case len(in) >= 2 && (in[0] == '\'' || in[0] == '"') && in[len(in)-1] == in[0]:
				p.steps = append(p.steps, step{kind: 'n', name: in[1 : len(in)-1]})
			default:
				n, err := strconv.Atoi(in)
				if err != nil {
					return nil, fmt.Errorf("JSON path %q: an index, * or a quoted name expected in [%s]", src, in)
				}
				p.steps = append(p.steps, step{kind: 'i', index: n})
			}
			i += end + 1
		default:
			return nil, fmt.Errorf("JSON path %q: . or [ expected at byte %d", src, i)
		}
	}
	return p, nil
}

// Select returns the values p selects in v (decoded by encoding/json), in
// document order (an object's members by name).
func (p *Path) Select(v any) []any {
	cur := []any{v}
	for _, s := range p.steps {
		var next []any
		for _, x := range cur {
			switch s.kind {
			case 'n':
				if m, ok := x.(map[string]any); ok {
					if y, ok := m[s.name]; ok {
						next = append(next, y)
					}
				}
			case 'i':
				if a, ok := x.([]any); ok {
					i := s.index
					if i < 0 {
						i += len(a)
					}
					if i >= 0 && i < len(a) {
						next = append(next, a[i])
					}
				}
			case '*':
				switch c := x.(type) {
				case []any:
					next = append(next, c...)
				case map[string]any:
					keys := make([]string, 0, len(c))
					for k := range c {
						keys = append(keys, k)
					}
					sort.Strings(keys)
					for _, k := range keys {
						next = append(next, c[k])
					}
				}
			}
		}
		cur = next
	}
	return cur
}
