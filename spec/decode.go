package spec

// A strict YAML decoder over go.yaml.in/yaml/v3 nodes. yaml.v3 can reject
// unknown fields only through Decoder.KnownFields, which custom unmarshalers
// silently lose (go-yaml issue #460), and it keeps no positions in decoded
// structs. This decoder walks the node tree itself, so every value can carry
// its line and column and every unknown key is an error naming the keys that
// were expected.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/engine"
)

// Limits on what a spec file may hold, so that malformed or hostile input
// gives an error instead of exhausting memory.
const (
	MaxFileSize = 4 << 20
	MaxDepth    = 64
	maxNodes    = 1 << 20
	// maxAliasValues bounds the values that aliases (*name) add to a file
	// when they are expanded: a few lines of anchors that alias each other
	// would otherwise stand for billions of values.
	maxAliasValues = 1 << 16
)

// Error is a problem in a file simctl reads, with its position.
type Error struct {
	Pos engine.Pos
	Msg string
}

func (e *Error) Error() string {
	if e.Pos == (engine.Pos{}) {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// Note is a construct of an imported project (a Rasa project, a
// Dialogflow CX agent) that the generated suite does not keep, or keeps
// only approximately, at its position: named in import.md and on stderr,
// never dropped silently.
type Note struct {
	Pos  engine.Pos
	What string
}

func (n Note) String() string { return n.Pos.String() + ": " + n.What }

// SortNotes orders notes by file, then line, then column (numerically:
// line 9 before line 10), keeping the order of notes at one position.
func SortNotes(ns []Note) {
	sort.SliceStable(ns, func(i, j int) bool {
		a, b := ns[i].Pos, ns[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// unmarshaler is implemented by types that decode themselves from a node.
type unmarshaler interface {
	decodeYAML(d *decoder, n *yaml.Node) error
}

type decoder struct {
	file  string
	nodes int
}

func (d *decoder) pos(n *yaml.Node) engine.Pos {
	return engine.Pos{File: d.file, Line: n.Line, Col: n.Column}
}

func (d *decoder) errf(n *yaml.Node, format string, args ...any) error {
	return &Error{Pos: d.pos(n), Msg: fmt.Sprintf(format, args...)}
}

var (
	yamlLineRe = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)
	// yaml.v3 reports parser errors (unlike scanner errors) with the 0-based
	// line of their mark; these are the parser's messages.
	yamlParserErrRe = regexp.MustCompile(`^did not find expected (key|node content|'-' indicator|',' or|<)`)
)

// parse checks size and encoding, then parses data into a document node.
func parse(file string, data []byte) (*yaml.Node, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{Pos: engine.Pos{File: file, Line: 1, Col: 1}, Msg: fmt.Sprintf("file is %d bytes, more than the %d allowed", len(data), MaxFileSize)}
	}
	if !utf8.Valid(data) {
		line, col := 1, 1
		for i := 0; i < len(data); {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
			i += size
		}
		return nil, &Error{Pos: engine.Pos{File: file, Line: line, Col: col}, Msg: "file is not valid UTF-8"}
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, &Error{Pos: engine.Pos{File: file, Line: 1, Col: 1}, Msg: "file contains a NUL byte"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlError(file, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &Error{Pos: engine.Pos{File: file, Line: 1, Col: 1}, Msg: "file is empty"}
	}
	// A second document (after ---) would otherwise be ignored silently.
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, yamlError(file, err)
	default:
		return nil, &Error{Pos: engine.Pos{File: file, Line: max(next.Line, 1), Col: max(next.Column, 1)},
			Msg: "a second YAML document starts here; a file holds one"}
	}
	w := shapeWalker{file: file, sizes: map[*yaml.Node]shape{}, open: map[*yaml.Node]bool{}}
	if _, err := w.walk(doc.Content[0], 1); err != nil {
		return nil, err
	}
	return &doc, nil
}

// ParseYAML parses one YAML document with the limits and positioned errors
// of every simctl file (size, UTF-8, one document, depth, aliases), for
// readers of other formats (the Rasa importer) that walk the nodes
// themselves.
func ParseYAML(file string, data []byte) (*yaml.Node, error) { return parse(file, data) }

// shape is the size (values) and height (levels) of a node with its
// aliases expanded.
type shape struct{ size, height int }

// shapeWalker checks the node graph before it is decoded: no alias may
// refer to a value that contains it (decoding it would never end), nesting
// may not be deeper than MaxDepth levels counting what aliases bring in,
// and aliases may not add more than maxAliasValues values. Anchored nodes
// are measured once, so the walk is linear in the file.
type shapeWalker struct {
	file    string
	sizes   map[*yaml.Node]shape // of anchored nodes walked
	open    map[*yaml.Node]bool  // anchored nodes being walked
	aliased int
}

func (w *shapeWalker) errf(n *yaml.Node, format string, args ...any) error {
	return &Error{Pos: engine.Pos{File: w.file, Line: max(n.Line, 1), Col: max(n.Column, 1)}, Msg: fmt.Sprintf(format, args...)}
}

func (w *shapeWalker) walk(n *yaml.Node, depth int) (shape, error) {
	if n.Kind == yaml.AliasNode {
		t := n.Alias
		if t == nil {
			return shape{1, 1}, nil // the decoder reports the unknown alias
		}
		if w.open[t] {
			return shape{}, w.errf(n, "alias *%s refers to a value that contains it", n.Value)
		}
		s, ok := w.sizes[t]
		if !ok {
			var err error
			if s, err = w.walk(t, depth); err != nil {
				return shape{}, err
			}
		}
		if depth+s.height-1 > MaxDepth {
			return shape{}, w.errf(n, "nesting is deeper than %d levels (counting what alias *%s stands for)", MaxDepth, n.Value)
		}
		w.aliased += s.size
		if w.aliased > maxAliasValues {
			return shape{}, w.errf(n, "aliases expand to more than %d values", maxAliasValues)
		}
		return s, nil
	}
	if depth > MaxDepth {
		return shape{}, w.errf(n, "nesting is deeper than %d levels", MaxDepth)
	}
	if n.Anchor != "" {
		w.open[n] = true
	}
	s := shape{size: 1, height: 1}
	for _, c := range n.Content {
		cs, err := w.walk(c, depth+1)
		if err != nil {
			return shape{}, err
		}
		s.size += cs.size
		s.height = max(s.height, cs.height+1)
	}
	if n.Anchor != "" {
		delete(w.open, n)
		w.sizes[n] = s
	}
	return s, nil
}

// yamlError turns a yaml.v3 syntax error into a positioned one-line error.
func yamlError(file string, err error) error {
	msg := strings.SplitN(err.Error(), "\n", 2)[0]
	line := 1
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		msg = m[2]
		if m[1] != "" {
			line, _ = strconv.Atoi(m[1])
			if yamlParserErrRe.MatchString(msg) {
				line++
			}
		}
	}
	return &Error{Pos: engine.Pos{File: file, Line: line, Col: 1}, Msg: "invalid YAML: " + msg}
}

// decodeFile parses data and decodes its single document into v.
func decodeFile(file string, data []byte, v any) error {
	doc, err := parse(file, data)
	if err != nil {
		return err
	}
	d := &decoder{file: file}
	return d.decode(doc.Content[0], reflect.ValueOf(v).Elem(), 0)
}

var (
	posType         = reflect.TypeOf(engine.Pos{})
	unmarshalerType = reflect.TypeOf((*unmarshaler)(nil)).Elem()
)

func (d *decoder) decode(n *yaml.Node, v reflect.Value, depth int) error {
	if depth > MaxDepth {
		return d.errf(n, "nesting is deeper than %d levels", MaxDepth)
	}
	d.nodes++
	if d.nodes > maxNodes {
		return d.errf(n, "file has more than %d values", maxNodes)
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return d.errf(n, "unknown alias")
		}
		return d.decode(n.Alias, v, depth+1)
	}
	if v.CanAddr() && v.Addr().Type().Implements(unmarshalerType) {
		return v.Addr().Interface().(unmarshaler).decodeYAML(d, n)
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return d.decode(n, v.Elem(), depth+1)
	case reflect.Struct:
		return d.decodeStruct(n, v, depth)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return d.errf(n, "expected a list, got %s", DescribeNode(n))
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			if err := d.decode(c, s.Index(i), depth+1); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.String:
		s, err := d.scalar(n, "text")
		if err != nil {
			return err
		}
		v.SetString(s)
		return nil
	case reflect.Bool:
		s, err := d.scalar(n, "true or false")
		if err != nil {
			return err
		}
		b, ok := map[string]bool{"true": true, "false": false, "yes": true, "no": false}[s]
		if !ok {
			return d.errf(n, "expected true or false, got %s", Quote(s))
		}
		v.SetBool(b)
		return nil
	case reflect.Int, reflect.Int64, reflect.Int32:
		s, err := d.scalar(n, "an integer")
		if err != nil {
			return err
		}
		i, perr := strconv.ParseInt(s, 10, 64)
		if perr != nil || v.OverflowInt(i) {
			return d.errf(n, "expected an integer, got %s", Quote(s))
		}
		v.SetInt(i)
		return nil
	case reflect.Float64:
		s, err := d.scalar(n, "a number")
		if err != nil {
			return err
		}
		f, perr := strconv.ParseFloat(s, 64)
		if perr != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return d.errf(n, "expected a number, got %s", Quote(s))
		}
		v.SetFloat(f)
		return nil
	}
	return d.errf(n, "internal: cannot decode into %s", v.Type())
}

func (d *decoder) scalar(n *yaml.Node, want string) (string, error) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", d.errf(n, "expected %s, got %s", want, DescribeNode(n))
	}
	return n.Value, nil
}

// DescribeNode says what a YAML node is, for "expected X, got Y" errors;
// a scalar is quoted to at most 80 characters (Quote).
func DescribeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return Quote(n.Value)
	}
	return "an unexpected node"
}

type fieldInfo struct {
	index    int
	posIndex int // index of the <Field>Pos companion, or -1
	required bool
}

// decodeStruct maps keys to fields by their yaml tags. A field named Pos of
// type engine.Pos receives the mapping's position; a field FooPos receives
// the position of Foo's value.
func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, depth int) error {
	t := v.Type()
	if n.Kind != yaml.MappingNode {
		return d.errf(n, "expected a mapping with keys %s, got %s", strings.Join(fieldNames(t), ", "), DescribeNode(n))
	}
	fields := map[string]fieldInfo{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if f.Type == posType && f.Name == "Pos" {
			v.Field(i).Set(reflect.ValueOf(d.pos(n)))
			continue
		}
		if tag == "" || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fi := fieldInfo{index: i, posIndex: -1, required: opts == "required"}
		if pf, ok := t.FieldByName(f.Name + "Pos"); ok && pf.Type == posType {
			fi.posIndex = pf.Index[0]
		}
		fields[name] = fi
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		key := k.Value
		fi, ok := fields[key]
		if !ok {
			return d.errf(k, "unknown field %s (expected one of: %s)", Quote(key), strings.Join(fieldNames(t), ", "))
		}
		if seen[key] {
			return d.errf(k, "duplicate field %s", Quote(key))
		}
		seen[key] = true
		if fi.posIndex >= 0 {
			v.Field(fi.posIndex).Set(reflect.ValueOf(d.pos(val)))
		}
		if err := d.decode(val, v.Field(fi.index), depth+1); err != nil {
			return err
		}
	}
	for _, name := range sortedFieldNames(fields) {
		if fields[name].required && !seen[name] {
			return d.errf(n, "missing required field %q", name)
		}
	}
	return nil
}

func refl(p any) reflect.Value { return reflect.ValueOf(p).Elem() }

func fieldNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("yaml")
		if tag == "" || tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		out = append(out, name)
	}
	return out
}

func sortedFieldNames(m map[string]fieldInfo) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Entries is a mapping whose key order matters (states, transitions, slots):
// it decodes into a slice, keeping each key's position.
type Entries[T any] []Entry[T]

// Entry is one key of an Entries mapping.
type Entry[T any] struct {
	Key    string
	KeyPos engine.Pos
	Value  T
}

func (e *Entries[T]) decodeYAML(d *decoder, n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return d.errf(n, "expected a mapping, got %s", DescribeNode(n))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return d.errf(k, "expected a name as key, got %s", DescribeNode(k))
		}
		if seen[k.Value] {
			return d.errf(k, "duplicate key %s", Quote(k.Value))
		}
		seen[k.Value] = true
		var item Entry[T]
		item.Key, item.KeyPos = k.Value, d.pos(k)
		if err := d.decode(val, reflect.ValueOf(&item.Value).Elem(), 1); err != nil {
			return err
		}
		*e = append(*e, item)
	}
	return nil
}

// Str is a text value with its position.
type Str struct {
	Value string
	Pos   engine.Pos
}

func (s *Str) decodeYAML(d *decoder, n *yaml.Node) error {
	v, err := d.scalar(n, "text")
	s.Value, s.Pos = v, d.pos(n)
	return err
}

// StrList is a list of positioned texts; a single text counts as a list of
// one.
type StrList []Str

func (l *StrList) decodeYAML(d *decoder, n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var s Str
		if err := s.decodeYAML(d, n); err != nil {
			return err
		}
		*l = StrList{s}
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return d.errf(n, "expected a name or a list of names, got %s", DescribeNode(n))
	}
	for _, c := range n.Content {
		var s Str
		if err := s.decodeYAML(d, c); err != nil {
			return err
		}
		*l = append(*l, s)
	}
	return nil
}

// Duration is a length of virtual time: "30m", "1500ms", "2h", or a bare
// number of milliseconds.
type Duration int64

func (t *Duration) decodeYAML(d *decoder, n *yaml.Node) error {
	s, err := d.scalar(n, "a duration such as 30s, 5m or 1500ms")
	if err != nil {
		return err
	}
	ms, ok := parseDuration(s)
	if !ok {
		return d.errf(n, "expected a duration such as 30s, 5m or 1500ms, got %s", Quote(s))
	}
	*t = Duration(ms)
	return nil
}

// parseDuration reads "30m", "1.5s", "250ms" or a bare millisecond count.
func parseDuration(s string) (int64, bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil && i >= 0 {
		return i, true
	}
	dur, err := time.ParseDuration(s)
	if err != nil || dur < 0 {
		return 0, false
	}
	return dur.Milliseconds(), true
}
