package dfcx

import (
	"bytes"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// The suite's files are built as yaml.v3 node trees, so keys keep the
// order they are written in and the encoder quotes what needs quoting.

func mapping(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		v := ynode(kv[i+1])
		if v == nil {
			continue
		}
		n.Content = append(n.Content, str(kv[i].(string)), v)
	}
	return n
}

func add(m *yaml.Node, k string, v any) {
	if n := ynode(v); n != nil {
		m.Content = append(m.Content, str(k), n)
	}
}

func seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}

func flowSeq(items ...string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range items {
		n.Content = append(n.Content, str(s))
	}
	return n
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func ynode(v any) *yaml.Node {
	switch x := v.(type) {
	case nil:
		return nil
	case *yaml.Node:
		return x
	case string:
		return str(x)
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(x)}
	case []*yaml.Node:
		if len(x) == 0 {
			return nil
		}
		return seq(x...)
	}
	panic("dfcx: unexpected node value")
}

func encode(comment string, root *yaml.Node) []byte {
	var b bytes.Buffer
	b.WriteString(comment)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		panic("dfcx: encoding a generated file: " + err.Error())
	}
	enc.Close()
	return b.Bytes()
}
