package dfcx

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

// Note is a construct of the agent that the suite does not keep, or
// keeps approximately, at its position.
type Note = spec.Note

// Agent is an exported agent, read but not yet translated. Its resources
// keep their JSON nodes: the translation reads them where it needs them,
// and every node knows its position.
type Agent struct {
	Dir       string // as given: a folder or a .zip
	Name      string
	Lang      string // the default language code
	StartFlow *Flow
	Flows     []*Flow // the start flow first, then by name
	Intents   map[string]*Intent
	Entities  map[string]*Entity
	Webhooks  map[string]*node // display name -> the webhook's file
	Groups    map[string]*node // "FLOW/GROUP" or "/GROUP" (agent level) -> the group's file
	Tests     []*TestCase
	Notes     []Note
	agentFile *node
}

// Flow is one flow with its pages.
type Flow struct {
	Name  string
	N     *node
	Pages []*Page // by file name
	page  map[string]*Page
}

// Page is one page of a flow.
type Page struct {
	Name string
	Flow *Flow
	N    *node
}

// Intent is an intent with its training phrases in the default language.
type Intent struct {
	Name    string
	N       *node
	Phrases []*node           // trainingPhrases of the default language
	Params  map[string]string // parameter id -> entity type ("@sys.number", "@size")
	Order   []string
}

// Entity is a custom entity type with its entities in the default language.
type Entity struct {
	Name     string
	Kind     string // KIND_MAP, KIND_LIST, KIND_REGEXP
	N        *node
	Entities []*node
}

// TestCase is one file of testCases/.
type TestCase struct {
	Name string
	N    *node
	File string
}

// maxFile is the most one file of an export may hold.
const maxFile = 4 << 20

// source is the files of an export, a folder or a .zip, with the name
// each file's positions carry.
type source struct {
	fsys  fs.FS
	label func(rel string) string
}

// Read reads the agent exported at dir: the folder holding agent.json, or
// a .zip of it (agent.json at its top or one folder down).
func Read(dir string) (*Agent, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read it (%v)", dir, unwrap(err))
	}
	var src source
	switch {
	case st.IsDir():
		src = source{os.DirFS(dir), func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }}
	case st.Mode().IsRegular() && strings.HasSuffix(strings.ToLower(dir), ".zip"):
		if st.Size() > 64<<20 {
			return nil, fmt.Errorf("%s: larger than 64 MiB", dir)
		}
		zr, err := zip.OpenReader(dir)
		if err != nil {
			return nil, fmt.Errorf("%s:1:1: not a readable zip archive (%v)", dir, err)
		}
		defer zr.Close()
		files, err := unzip(dir, &zr.Reader)
		if err != nil {
			return nil, err
		}
		src = source{files, func(rel string) string { return dir + ":" + rel }}
	default:
		return nil, fmt.Errorf("%s: expected the folder of an exported agent (holding agent.json) or a .zip of it", dir)
	}
	root, err := findRoot(src.fsys)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", dir, err)
	}
	if root != "." {
		sub, _ := fs.Sub(src.fsys, root)
		lab := src.label
		src = source{sub, func(rel string) string { return lab(path.Join(root, rel)) }}
	}
	r := &reader{src: src, a: &Agent{Dir: dir, Intents: map[string]*Intent{}, Entities: map[string]*Entity{},
		Webhooks: map[string]*node{}, Groups: map[string]*node{}}}
	if err := r.read(); err != nil {
		return nil, err
	}
	return r.a, nil
}

func unwrap(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// memFS is a zip's regular files in memory, read through the size limit.
type memFS map[string][]byte

func unzip(name string, zr *zip.Reader) (fs.FS, error) {
	m := memFS{}
	total := 0
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || strings.HasPrefix(f.Name, "__MACOSX/") || !strings.HasSuffix(f.Name, ".json") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s:%s: cannot read it (%v)", name, f.Name, err)
		}
		data, err := io.ReadAll(io.LimitReader(rc, maxFile+1))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%s:%s: cannot read it (%v)", name, f.Name, err)
		}
		if len(data) > maxFile {
			return nil, fmt.Errorf("%s:%s: larger than 4 MiB", name, f.Name)
		}
		if total += len(data); total > 256<<20 {
			return nil, fmt.Errorf("%s: holds more than 256 MiB of JSON", name)
		}
		m[path.Clean(f.Name)] = data
	}
	return m, nil
}

func (m memFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (m memFS) ReadFile(name string) ([]byte, error) {
	if d, ok := m[name]; ok {
		return d, nil
	}
	return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
}

func (m memFS) Glob(pattern string) ([]string, error) {
	var out []string
	for k := range m {
		if ok, _ := path.Match(pattern, k); ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

// ReadDir lists the names directly below dir (folders and files).
func (m memFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	seen := map[string]bool{}
	var out []fs.DirEntry
	prefix := dir + "/"
	if dir == "." {
		prefix = ""
	}
	for k := range m {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		rest := k[len(prefix):]
		name, _, isDir := strings.Cut(rest, "/")
		if !seen[name] {
			seen[name] = true
			out = append(out, dirEntry{name, isDir})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

type dirEntry struct {
	name string
	dir  bool
}

func (d dirEntry) Name() string               { return d.name }
func (d dirEntry) IsDir() bool                { return d.dir }
func (d dirEntry) Type() fs.FileMode          { return 0 }
func (d dirEntry) Info() (fs.FileInfo, error) { return nil, fs.ErrInvalid }

func findRoot(fsys fs.FS) (string, error) {
	if _, err := fs.ReadFile(fsys, "agent.json"); err == nil {
		return ".", nil
	}
	ents, _ := fs.ReadDir(fsys, ".")
	for _, e := range ents {
		if e.IsDir() {
			if _, err := fs.ReadFile(fsys, e.Name()+"/agent.json"); err == nil {
				return e.Name(), nil
			}
		}
	}
	return "", fmt.Errorf("no agent.json: expected the folder of an agent exported in the JSON package format")
}

type reader struct {
	src source
	a   *Agent
}

func (r *reader) note(n *node, what string, args ...any) {
	r.a.Notes = append(r.a.Notes, Note{Pos: n.pos, What: fmt.Sprintf(what, args...)})
}

func (r *reader) noteFile(rel, what string, args ...any) {
	r.a.Notes = append(r.a.Notes, Note{Pos: engine.Pos{File: r.src.label(rel)}, What: fmt.Sprintf(what, args...)})
}

// file reads and parses one JSON file; a missing optional file is nil.
func (r *reader) file(rel string, optional bool) (*node, error) {
	if st, err := fs.Stat(r.src.fsys, rel); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", r.src.label(rel))
	} else if err == nil && st.Size() > maxFile {
		return nil, fmt.Errorf("%s: larger than 4 MiB", r.src.label(rel))
	}
	data, err := fs.ReadFile(r.src.fsys, rel)
	if err != nil {
		if optional && os.IsNotExist(unwrap(err)) {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: cannot read it (%v)", r.src.label(rel), unwrap(err))
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("%s: larger than 4 MiB", r.src.label(rel))
	}
	n, err := parseJSON(r.src.label(rel), data)
	if err != nil {
		return nil, err
	}
	if n.kind != jObj {
		return nil, fmt.Errorf("%s: expected a JSON object", n.pos)
	}
	return n, nil
}

// dirs lists the sub-folders of dir, sorted; files lists its .json files.
func (r *reader) list(dir string, wantDir bool) []string {
	ents, err := fs.ReadDir(r.src.fsys, dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() == wantDir && (wantDir || strings.HasSuffix(e.Name(), ".json")) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

func need(n *node, key string) (string, error) {
	v := n.get(key)
	if v.kind != jStr || v.str == "" {
		if v.absent {
			return "", fmt.Errorf("%s: expected a %q string (at %s)", n.pos, key, orRoot(n.ptr))
		}
		return "", fmt.Errorf("%s: expected %q to be a non-empty string", v.pos, key)
	}
	return v.str, nil
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func (r *reader) read() error {
	a := r.a
	ag, err := r.file("agent.json", false)
	if err != nil {
		return err
	}
	a.agentFile = ag
	a.Name = ag.get("displayName").s()
	a.Lang = ag.get("defaultLanguageCode").s()
	if a.Lang == "" {
		a.Lang = "en"
	}
	start := ag.get("startFlow").s()
	if start == "" {
		if pb := ag.get("startPlaybook").s(); pb != "" {
			r.note(ag.get("startPlaybook"), "the agent starts with playbook %q: playbooks are not kept; the flows are imported and the first one starts", pb)
		}
	}
	if langs := ag.get("supportedLanguageCodes").arr(); len(langs) > 0 {
		r.note(ag.get("supportedLanguageCodes"), "languages beyond the default %q are dropped (%d more)", a.Lang, len(langs))
	}
	for _, d := range []struct{ dir, what string }{
		{"playbooks", "playbooks (LLM-driven agents) are not kept"},
		{"generators", "generators (LLM prompts) are not kept"},
		{"tools", "tools (of playbooks) are not kept"},
		{"dataStores", "data stores are not kept"},
		{"generativeSettings", "generative settings are not kept"},
	} {
		for _, name := range append(r.list(d.dir, true), r.list(d.dir, false)...) {
			r.noteFile(d.dir+"/"+name, "%s: %s", d.what, strings.TrimSuffix(name, ".json"))
		}
	}
	// Entity types.
	for _, dn := range r.list("entityTypes", true) {
		n, err := r.file("entityTypes/"+dn+"/"+dn+".json", false)
		if err != nil {
			return err
		}
		name, err := need(n, "displayName")
		if err != nil {
			return err
		}
		e := &Entity{Name: name, Kind: n.get("kind").s(), N: n}
		if en, err := r.file("entityTypes/"+dn+"/entities/"+a.Lang+".json", true); err != nil {
			return err
		} else if en != nil {
			e.Entities = en.get("entities").arr()
		}
		r.otherLangs("entityTypes/"+dn+"/entities", "entity type "+name)
		a.Entities[name] = e
	}
	// Intents.
	for _, dn := range r.list("intents", true) {
		n, err := r.file("intents/"+dn+"/"+dn+".json", false)
		if err != nil {
			return err
		}
		name, err := need(n, "displayName")
		if err != nil {
			return err
		}
		in := &Intent{Name: name, N: n, Params: map[string]string{}}
		for _, p := range n.get("parameters").arr() {
			id, err := need(p, "id")
			if err != nil {
				return err
			}
			et := p.get("entityType").s()
			if err := r.entityRef(p.get("entityType")); err != nil {
				return err
			}
			in.Params[id] = et
			in.Order = append(in.Order, id)
		}
		if tp, err := r.file("intents/"+dn+"/trainingPhrases/"+a.Lang+".json", true); err != nil {
			return err
		} else if tp != nil {
			in.Phrases = tp.get("trainingPhrases").arr()
			for _, ph := range in.Phrases {
				for _, part := range ph.get("parts").arr() {
					if id := part.get("parameterId").s(); id != "" && in.Params[id] == "" && !part.get("parameterId").absent {
						if _, ok := in.Params[id]; !ok {
							return fmt.Errorf("%s: parameter %q is not a parameter of intent %q", part.get("parameterId").pos, id, name)
						}
					}
				}
			}
		}
		r.otherLangs("intents/"+dn+"/trainingPhrases", "intent "+name)
		a.Intents[name] = in
	}
	// Webhooks.
	for _, fn := range r.list("webhooks", false) {
		n, err := r.file("webhooks/"+fn, false)
		if err != nil {
			return err
		}
		name, err := need(n, "displayName")
		if err != nil {
			return err
		}
		a.Webhooks[name] = n
	}
	// Agent-level route groups.
	for _, fn := range r.list("transitionRouteGroups", false) {
		n, err := r.file("transitionRouteGroups/"+fn, false)
		if err != nil {
			return err
		}
		name, err := need(n, "displayName")
		if err != nil {
			return err
		}
		a.Groups["/"+name] = n
	}
	// Flows and their pages.
	for _, dn := range r.list("flows", true) {
		n, err := r.file("flows/"+dn+"/"+dn+".json", false)
		if err != nil {
			return err
		}
		name, err := need(n, "displayName")
		if err != nil {
			return err
		}
		f := &Flow{Name: name, N: n, page: map[string]*Page{}}
		for _, pn := range r.list("flows/"+dn+"/pages", false) {
			pg, err := r.file("flows/"+dn+"/pages/"+pn, false)
			if err != nil {
				return err
			}
			pname, err := need(pg, "displayName")
			if err != nil {
				return err
			}
			if f.page[pname] != nil {
				return fmt.Errorf("%s: a second page named %q in flow %q", pg.get("displayName").pos, pname, name)
			}
			p := &Page{Name: pname, Flow: f, N: pg}
			f.page[pname] = p
			f.Pages = append(f.Pages, p)
		}
		for _, gn := range r.list("flows/"+dn+"/transitionRouteGroups", false) {
			g, err := r.file("flows/"+dn+"/transitionRouteGroups/"+gn, false)
			if err != nil {
				return err
			}
			gname, err := need(g, "displayName")
			if err != nil {
				return err
			}
			a.Groups[name+"/"+gname] = g
		}
		if a.flow(name) != nil {
			return fmt.Errorf("%s: a second flow named %q", n.get("displayName").pos, name)
		}
		a.Flows = append(a.Flows, f)
	}
	if len(a.Flows) == 0 {
		return fmt.Errorf("%s: the agent has no flows (flows/<flow>/<flow>.json): nothing to import", ag.pos)
	}
	if start == "" {
		start = "Default Start Flow"
	}
	a.StartFlow = a.flow(start)
	if a.StartFlow == nil {
		if ag.get("startFlow").absent {
			a.StartFlow = a.Flows[0]
		} else {
			return fmt.Errorf("%s: start flow %q is not a flow of the agent", ag.get("startFlow").pos, start)
		}
	}
	sort.SliceStable(a.Flows, func(i, j int) bool {
		if (a.Flows[i] == a.StartFlow) != (a.Flows[j] == a.StartFlow) {
			return a.Flows[i] == a.StartFlow
		}
		return a.Flows[i].Name < a.Flows[j].Name
	})
	// Test cases.
	for _, fn := range r.list("testCases", false) {
		n, err := r.file("testCases/"+fn, false)
		if err != nil {
			return err
		}
		name := n.get("displayName").s()
		if name == "" {
			name = strings.TrimSuffix(fn, ".json")
		}
		a.Tests = append(a.Tests, &TestCase{Name: name, N: n, File: r.src.label("testCases/" + fn)})
	}
	return r.checkRefs()
}

// otherLangs notes the files of languages other than the default one.
func (r *reader) otherLangs(dir, what string) {
	for _, fn := range r.list(dir, false) {
		if strings.TrimSuffix(fn, ".json") != r.a.Lang {
			r.noteFile(dir+"/"+fn, "%s: language %s dropped (only the default language %s is kept)", what, strings.TrimSuffix(fn, ".json"), r.a.Lang)
		}
	}
}

func (a *Agent) flow(name string) *Flow {
	for _, f := range a.Flows {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func (r *reader) entityRef(n *node) error {
	et := n.s()
	if et == "" || strings.HasPrefix(et, "@sys.") {
		return nil
	}
	if r.a.Entities[strings.TrimPrefix(et, "@")] == nil {
		return fmt.Errorf("%s: entity type %q is not an entity type of the agent", n.pos, et)
	}
	return nil
}

// checkRefs finds every dangling reference: intents, pages, flows, route
// groups, webhooks and entity types named by the flows and pages.
func (r *reader) checkRefs() error {
	a := r.a
	for _, f := range a.Flows {
		scopes := []*node{f.N}
		for _, p := range f.Pages {
			scopes = append(scopes, p.N)
			for _, fp := range p.N.path("form", "parameters").arr() {
				if err := r.entityRef(fp.get("entityType")); err != nil {
					return err
				}
			}
		}
		for _, n := range scopes {
			for _, g := range n.get("transitionRouteGroups").arr() {
				if a.group(f, g.s()) == nil {
					return fmt.Errorf("%s: route group %q is neither a group of flow %q nor of the agent", g.pos, g.s(), f.Name)
				}
			}
		}
	}
	var err error
	walk(a, func(f *Flow, n *node) {
		if err != nil {
			return
		}
		if in := n.get("intent"); !in.absent && in.s() != "" && a.Intents[in.s()] == nil {
			err = fmt.Errorf("%s: intent %q is not an intent of the agent", in.pos, in.s())
		}
		if tp := n.get("targetPage"); !tp.absent && tp.s() != "" && special(tp.s()) == "" && f.page[tp.s()] == nil {
			err = fmt.Errorf("%s: page %q is not a page of flow %q", tp.pos, tp.s(), f.Name)
		}
		if tf := n.get("targetFlow"); !tf.absent && tf.s() != "" && a.flow(tf.s()) == nil {
			err = fmt.Errorf("%s: flow %q is not a flow of the agent", tf.pos, tf.s())
		}
		if wh := n.get("webhook"); !wh.absent && wh.s() != "" && a.Webhooks[wh.s()] == nil {
			err = fmt.Errorf("%s: webhook %q is not a webhook of the agent", wh.pos, wh.s())
		}
	})
	return err
}

// group finds a route group by name: the flow's own, else the agent's.
func (a *Agent) group(f *Flow, name string) *node {
	if g := a.Groups[f.Name+"/"+name]; g != nil {
		return g
	}
	return a.Groups["/"+name]
}

// walk calls fn on every object node of the flows, pages and the route
// groups they use, with the flow it belongs to.
func walk(a *Agent, fn func(*Flow, *node)) {
	var rec func(f *Flow, n *node)
	rec = func(f *Flow, n *node) {
		switch n.kind {
		case jObj:
			fn(f, n)
			for _, v := range n.vals {
				rec(f, v)
			}
		case jArr:
			for _, v := range n.items {
				rec(f, v)
			}
		}
	}
	for _, f := range a.Flows {
		rec(f, f.N)
		for _, p := range f.Pages {
			rec(f, p.N)
		}
		for k, g := range a.Groups {
			if strings.HasPrefix(k, f.Name+"/") || strings.HasPrefix(k, "/") {
				rec(f, g)
			}
		}
	}
}

// special maps the special targets to their canonical name, "" for an
// ordinary page.
func special(target string) string {
	switch strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(target), " ", "_")) {
	case "END_SESSION":
		return "END_SESSION"
	case "END_FLOW":
		return "END_FLOW"
	case "PREVIOUS_PAGE":
		return "PREVIOUS_PAGE"
	case "CURRENT_PAGE":
		return "CURRENT_PAGE"
	case "START_PAGE":
		return "START_PAGE"
	case "END_FLOW_WITH_HUMAN_ESCALATION", "END_FLOW_WITH_CANCELLATION", "END_FLOW_WITH_FAILURE":
		return "END_FLOW"
	}
	return ""
}
