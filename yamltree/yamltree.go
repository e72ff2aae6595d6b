// Package yamltree builds the YAML files an importer writes (machine.yaml,
// nlu.yaml, scenarios) as yaml.v3 node trees, so keys keep the order they
// are written in and the encoder quotes what needs quoting. The Rasa and
// the Dialogflow CX importers share it.
package yamltree

import (
	"bytes"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Map builds a mapping of key, value pairs; a nil value (or an empty list)
// leaves its key out. Values are nodes, strings, bools, ints or lists of
// nodes.
func Map(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		v := Node(kv[i+1])
		if v == nil {
			continue
		}
		n.Content = append(n.Content, Str(kv[i].(string)), v)
	}
	return n
}

// Add appends key k with value v to mapping m, unless v is nil or empty.
func Add(m *yaml.Node, k string, v any) {
	if n := Node(v); n != nil {
		m.Content = append(m.Content, Str(k), n)
	}
}

// Seq builds a block sequence.
func Seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}

// FlowSeq builds a sequence of strings written on one line.
func FlowSeq(items ...string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range items {
		n.Content = append(n.Content, Str(s))
	}
	return n
}

// Str is a string scalar (quoted by the encoder where YAML would read it
// as something else).
func Str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// Node turns a value into a node; nil for nil and for an empty list.
func Node(v any) *yaml.Node {
	switch x := v.(type) {
	case nil:
		return nil
	case *yaml.Node:
		return x
	case string:
		return Str(x)
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(x)}
	case []*yaml.Node:
		if len(x) == 0 {
			return nil
		}
		return Seq(x...)
	}
	panic("yamltree: unexpected node value")
}

// Generated encodes root as a file an import writes. Its first line is
// marker, which a re-import looks for before it overwrites the file, then
// where the file was imported from.
func Generated(marker, from string, root *yaml.Node) []byte {
	return Encode(marker+" from "+from+"; re-importing overwrites this file.\n", root)
}

// Encode writes the comment, then the tree, indented by two spaces.
func Encode(comment string, root *yaml.Node) []byte {
	var b bytes.Buffer
	b.WriteString(comment)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		panic("yamltree: encoding a generated file: " + err.Error())
	}
	enc.Close()
	return b.Bytes()
}
