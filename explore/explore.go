// Package explore model-checks a dialogue machine: a breadth-first search
// over its configurations up to a depth, in the manner of TLC. The events
// at each configuration are the suite's finite user-act alphabet (every
// intent, bare or carrying each known value or an invalid one), the next
// pending timer firing, and, while a fork's branches can step, each
// runnable branch (so every order in which branches take turns and finish is
// enumerated); every external action an event sets off may succeed or fail.
// Events are stepped as a driver (package sim) would: a timer or an
// action's result that no transition takes still falls due or lands; a
// step the engine fails on, or that breaks a driver's limits, ends its path
// with a runtime error. Every invariant is checked on every step, also on
// steps back to configurations seen before; the shortest path to each
// violation, dead end and livelock is kept and can be written as a
// replayable scenario; coverage of transitions and guard outcomes is
// counted. Explore is the entry point.
package explore

import (
	"errors"
	"fmt"
	"math"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/machinevalues"
	"github.com/simctl/simctl/spec"
)

// Options bound a search.
type Options struct {
	Depth     int // the deepest level explored
	MaxStates int // distinct configurations at most; 0: DefaultMaxStates
	// Part of Parts: search one shard's slice (see part.go) and keep what
	// Merge needs. Parts 0: an ordinary search.
	Part, Parts int
	// Digest computes Result.Digest (digest.go), for simctl mutate's
	// equivalence test.
	Digest bool
	// Stop, if set, is asked every few configurations whether to give up
	// (the command line answers yes after SIGINT or SIGTERM); the search
	// then ends as the state cap ends it, with what it found so far and
	// Result.Stopped saying why. The package itself knows nothing of
	// signals.
	Stop func() bool
	// NoReduce offers every user act of the alphabet instead of a few of
	// each value class (classes.go).
	NoReduce bool
	// Workers expand each level on this many goroutines (workers.go);
	// the result is the one goroutine's, to the byte. 0 or 1: one.
	Workers int
	// QueueMemory bounds the bytes the frontier (the level being
	// expanded and the next) keeps in memory; past it, levels spill to a
	// temporary file in SpillDir ("": os.TempDir) and are read back in
	// order (frontier.go). 0: DefaultQueueMemory; below 0: no bound.
	QueueMemory int64
	SpillDir    string
}

// DefaultQueueMemory is the frontier's default memory budget: no bundled
// suite comes near it, and a search of tens of millions of
// configurations keeps its 2 GB for the visited set, the nodes and the
// edges.
const DefaultQueueMemory = 256 << 20

// stopEvery is how many configurations are expanded between two calls of
// Options.Stop. Expanding one of formfill's takes most of a millisecond
// (several under -race): the answer must come within a second.
const stopEvery = 16

// Interrupted is Result.Stopped when Options.Stop ended the search.
const Interrupted = "interrupted: the search stopped before its bound; what it found so far is incomplete"

// DefaultMaxStates caps a search that no option bounds. A configuration
// costs a few hundred bytes while the search runs (its fingerprint, its
// node, its edges and, while queued, its packed configuration: about 300
// on formfill), so the cap keeps the heap under a gigabyte.
const DefaultMaxStates = 2_000_000

// Edge kinds below 0; 0 and up index the user alphabet.
const (
	edgeTimer  = -1 // the next pending timer fires
	edgeBranch = -2 // -2-i: fork branch i steps
	edgeStart  = -1000
	// edgeStartResults: the results of the actions the start invoked.
	edgeStartResults = -999
)

// edge is how a node was reached from its parent: the event, and which of
// the external actions it set off failed (bit k: the k-th invocation).
type edge struct {
	event int32
	fails uint32
}

type node struct {
	parent int32
	depth  int32
	in     edge
	good   bool // final, or idle (back at the start with nothing under way)
	// dead: a dead end; fails: some event from here makes the engine fail
	// (a runtime error ends the conversation). Either way the
	// conversation does not go round from here.
	dead, fails bool
	// skipped: at the level a sharded search splits, left to another
	// shard's part (so it may well lead somewhere good).
	skipped bool
	// witness: not a configuration of its own but an edge into one seen
	// before, kept because it broke an invariant or took a transition for
	// the first time, so that its path can be written out.
	witness bool
}

// Finding is a violation, dead end or livelock with the node it was first
// seen at (the shortest path to it).
type Finding struct {
	Kind      string // an invariant name, "dead_end" or "livelock"
	Node      int32
	Violation eval.Violation
	Known     string // the note that makes it known (eval.Note.String), if any
	Note      engine.Pos
}

// Key identifies the finding: a violation's Key, or the kind of a dead
// end or livelock (one of each is kept).
func (f *Finding) Key() string {
	if f.Kind == eval.DeadEnd || f.Kind == eval.RuntimeError || f.Kind == livelock || f.Kind == Stuck || f.Violation.Invariant == "" {
		return f.Kind
	}
	return f.Violation.Key()
}

// Result is what a search found.
type Result struct {
	Suite, Variant string
	suiteDir       string
	assign         map[string]string
	m              *engine.Machine
	alpha          []engine.Event
	nodes          []node
	// userSlots are the slots that hold what the user said
	// (machinevalues.UserSlots).
	userSlots map[string]bool

	Generated int // successors computed
	Distinct  int
	Depth     int // deepest level reached
	Queue     int // frontier size when the search stopped
	// Spilled is how many bytes the frontier wrote to disk (0: it stayed
	// in memory).
	Spilled  int64
	Complete bool
	Stopped  string // why the search stopped early, if it did
	// Values says how the user acts were reduced to value classes, or why
	// they were not.
	Values string
	// Seconds is the wall time taken, measured by the caller.
	Seconds float64

	Findings []Finding
	Coverage *eval.Coverage
	// Digest, with Options.Digest, hashes the reachable labelled graph
	// (digest.go); it stands for the machine's behaviour only when the
	// search is Complete. nodeSums and nodeFP break it down by node
	// (digest.go).
	Digest   uint64
	nodeSums map[uint64]uint64
	nodeFP   []uint64
	// firstTaken is, per transition, the node at which it was first taken
	// (-1: never), for shortest covering paths.
	firstTaken []int32
	part       *Part
	// startInv are the actions the machine's start invoked, whose results
	// node 0's expansion delivers.
	startInv []pending
	// par are the configurations with a parallel state active, in node
	// order (regions.go).
	par []parNode
}

// Machine returns the machine explored.
func (r *Result) Machine() *engine.Machine { return r.m }

// searchState is what the visited set keys: the configuration with time
// made relative, and the checker's path state.
type searchState struct {
	cfg  engine.Config
	path eval.PathState
	// own holds the arrays path points to once a step has saved it here
	// (path may also point to another state's, after a copy).
	own eval.PathState
	// For a machine with Data (data.go): the stored data, or (fresh) the
	// data the explorer's Data holds, not stored yet, with its
	// fingerprint once computed (dfpOK).
	data         *dataSnap
	fresh, dfpOK bool
	dfp          uint64
}

// Explore searches machine v of suite s breadth-first.
func Explore(s *spec.Suite, v *spec.Variant, opts Options) (*Result, error) {
	m := v.Machine
	if opts.MaxStates <= 0 {
		opts.MaxStates = DefaultMaxStates
	}
	x := newExplorer(s, m, !opts.NoReduce)
	res := &Result{Suite: s.Name, Variant: v.Name, suiteDir: s.Dir, assign: v.Assign, m: m, alpha: x.alpha, Coverage: eval.NewCoverage(m),
		userSlots: machinevalues.UserSlots(s.Def), Values: x.values}
	res.firstTaken = make([]int32, m.NumTransitions())
	for i := range res.firstTaken {
		res.firstTaken[i] = -1
	}
	x.res, x.paths = res, res

	var root searchState
	var r engine.Result
	if x.data != nil {
		root.fresh = true
	}
	if err := m.StartWith(&root.cfg, x.data, 0, &r); err != nil {
		return nil, fmt.Errorf("%s: the machine fails at its start: %v", s.Name, err)
	}
	x.checker.Reset()
	// Before the start nothing is waited for (a zero Config would wait for
	// slot 0, which a machine without slots cannot describe).
	before := engine.Config{State: engine.NoID, Waiting: engine.NoID, LastSay: engine.NoID}
	x.observe(0, nil, &before, &root.cfg, &r)
	root.path = x.checker.Save()
	x.rootPath = root.path
	// The actions the start invoked have not answered yet: node 0 is
	// expanded by their outcomes alone, each way (see expandStart), and
	// is no resting place of the conversation.
	res.startInv = startInvokes(r.Effects)
	x.startInv = res.startInv
	if len(res.startInv) > maxInvokes {
		return nil, fmt.Errorf("%s: the machine fails at its start: more than %d external actions invoked in one step", s.Name, maxInvokes)
	}
	res.nodes = append(res.nodes, node{parent: -1, depth: 0, in: edge{event: edgeStart}, good: len(res.startInv) == 0 && x.isGood(&root.cfg)})
	x.notePar(0, &root.cfg)
	// The transitions of the start (entries, the first eventless chain)
	// are taken by every path; node 0 stands for them.
	for _, st := range r.Steps {
		if st.Trans != engine.NoID && res.firstTaken[st.Trans] < 0 {
			res.firstTaken[st.Trans] = 0
		}
	}
	for _, v := range x.checker.Violations {
		f := x.finding(v)
		f.Node = 0
		res.add(f)
	}
	rootFP := x.key(&root, 0)
	x.store(&root, 0, edge{}, -1)
	if len(res.startInv) > 0 {
		// Awaiting the start's results is not the configuration an
		// unhandled failure leaves, though the two are equal as Configs.
		rootFP ^= 0x5bd1e9955bd1e995
	}
	x.visited = newFPSet()
	x.visited.put(rootFP, 0)
	if opts.Digest {
		x.digest = true
		res.nodeSums = map[uint64]uint64{}
		ev := engine.Event{Kind: engine.UserEvent}
		res.Digest = thenObs(rootFP, x.stepObs(&ev))
	}
	if opts.Parts > 0 {
		x.startPart(rootFP)
	}
	x.distinct, x.maxStates = 1, opts.MaxStates
	budget := opts.QueueMemory
	if budget == 0 {
		budget = DefaultQueueMemory
	}
	// The level being expanded and the next share the budget.
	half := 0
	if budget > 0 {
		half = int(max(budget/2, 1))
	}
	frontier := &queue{budget: half, dir: opts.SpillDir}
	next := &queue{budget: frontier.budget, dir: opts.SpillDir}
	defer frontier.close()
	defer next.close()
	x.push(frontier, &root, 0)
	var ws *workers
	if opts.Workers > 1 && opts.Parts == 0 && !opts.Digest {
		ws = x.workers(opts.Workers)
	}
	var cur searchState
	full := true
	for depth := 0; frontier.len() > 0; depth++ {
		res.Depth = depth
		if depth >= opts.Depth {
			full = false
			res.Queue = frontier.len()
			break
		}
		// Split at the first level wide enough, or else at the last level
		// expanded, whose successors are most of a bounded search's work.
		if opts.Parts > 1 && !x.split && (frontier.len() >= splitWidth*opts.Parts || (depth == opts.Depth-1 && frontier.len() >= opts.Parts)) {
			x.split = true
			frontier.keep(func(i int, n int32) bool {
				mine := i%opts.Parts == opts.Part
				res.nodes[n].skipped = !mine
				return mine
			})
		}
		next.reset()
		x.next = next
		frontier.rewind()
		if ws != nil && frontier.len() >= minParallel {
			x.levelParallel(ws, frontier, depth, opts.Stop)
		} else {
			x.level1(frontier, depth, opts.Stop, &cur)
		}
		if err := errors.Join(frontier.err, next.err); err != nil {
			return nil, fmt.Errorf("%s: %v", s.Name, err)
		}
		if x.stopped {
			break
		}
		frontier, next = next, frontier
	}
	res.Spilled = frontier.disk + next.disk
	res.Distinct = x.distinct
	res.Complete = full && !x.stopped
	// The visited set is done with: the livelock analysis below needs
	// its room (a tenth of the peak on a search of ten million).
	x.visited, ws = nil, nil
	res.livelocks(&x.edges, opts.Depth)
	if opts.Parts > 0 {
		res.part = x.makePart(opts)
	}
	return res, nil
}

// level1 expands the level in frontier on this goroutine, in order.
func (x *explorer) level1(frontier *queue, depth int, stop func() bool, cur *searchState) {
	for fi := 0; fi < frontier.len(); fi++ {
		if stop != nil && fi%stopEvery == 0 && stop() {
			x.res.Stopped, x.stopped = Interrupted, true
			x.res.Queue = frontier.len() - fi + x.next.len()
			return
		}
		ci := x.next1(frontier, cur)
		if ci < 0 {
			return // an I/O error, in frontier.err
		}
		x.targets = x.targets[:0]
		x.beginNode()
		n := x.expand(cur, ci, depth)
		x.endNode(n)
		x.expanded1(ci, n, n == 0 && !cur.cfg.Final && !hasTimer(x.m, &cur.cfg), cur, depth, nil)
		if x.stopped {
			x.res.Queue = frontier.len() - fi + x.next.len()
			return
		}
	}
}

// expanded1 ends the expansion of node ci (cur), which had n successors
// (dead: none, and it is not final and has no timer pending): a dead end
// is marked and, the first time, found (found: the finding a worker
// prepared, or nil to describe cur), and its edges are kept.
func (x *explorer) expanded1(ci int32, n int, dead bool, cur *searchState, depth int, found *Finding) {
	res := x.res
	// Nothing moves it and it is not final: a dead end (also when fork
	// branches wait for something that never comes). A node whose
	// successors the state cap cut off is not one.
	if dead && n == 0 && !x.stopped {
		res.nodes[ci].dead = true
		if !res.has(eval.DeadEnd) {
			if found == nil {
				f := x.deadEnd(cur, ci, depth)
				found = &f
			}
			res.add(*found)
		}
	}
	if x.stopped {
		// The cap (or a stop) cut this node's successors off: it counts
		// as unexpanded, as the livelock analysis needs.
		return
	}
	x.edges.add(ci, x.targets)
}

// deadEnd is the finding of dead end cur, node ci.
func (x *explorer) deadEnd(cur *searchState, ci int32, depth int) Finding {
	return Finding{Kind: eval.DeadEnd, Node: ci, Violation: eval.Violation{Invariant: eval.DeadEnd, Turn: depth,
		Msg:   fmt.Sprintf("%s is not final, and no intent, timer or branch can move the conversation on", x.m.StateName(cur.cfg.State)),
		After: x.m.Describe(&cur.cfg)}}
}

// emit takes successor st of node x.ci, reached by edge e (stop: the
// engine failed on the way): a new configuration becomes a node and is
// queued; an edge into one seen before, or to a failure, is kept as a
// witness node when it broke an invariant or took a transition first. A
// worker (workers.go) records it for the merge instead.
func (x *explorer) emit(st *searchState, e edge, stop bool) {
	if x.stopped {
		return
	}
	if x.out != nil {
		x.record(st, e, stop)
		return
	}
	x.res.Generated += x.weight
	x.count += x.weight
	// The configuration an engine failure leaves is no configuration of
	// the conversation: the edge is kept only for what it found.
	j, seen := int32(-1), stop
	var fp uint64
	if stop {
		x.res.nodes[x.ci].fails = true
	} else {
		fp = x.key(st, x.depth+1)
		j, seen = x.visited.get(fp)
	}
	if x.digest {
		x.digestEdge(e, fp, stop, x.curObs, &st.cfg)
	}
	if ni := x.commit(e, fp, j, seen); ni >= 0 {
		x.res.nodes[ni].good = x.isGood(&st.cfg)
		x.notePar(ni, &st.cfg)
		x.store(st, ni, edge{}, -1)
		x.push(x.next, st, ni)
	}
}

// commit takes a successor of node x.ci reached by edge e, with
// fingerprint fp, seen before as node j (-1: a failure) or not: a new one
// becomes node ni, which commit returns for the caller to queue (else -1);
// an edge into one seen before is kept as a witness node when the path
// (x.findings, x.taken) broke an invariant or took a transition first.
func (x *explorer) commit(e edge, fp uint64, j int32, seen bool) int32 {
	res := x.res
	depth := x.depth + 1
	if seen {
		if j >= 0 {
			x.targets = append(x.targets, x.target(j))
		}
		if x.novelPath() {
			wi := int32(len(res.nodes))
			res.nodes = append(res.nodes, node{parent: x.ci, depth: int32(depth), in: e, good: true, witness: true})
			x.keep(wi)
		}
		return -1
	}
	if x.distinct >= x.maxStates {
		res.Stopped = fmt.Sprintf("stopped at %d distinct configurations (--max-states); raise it or lower --depth", x.maxStates)
		x.stopped = true
		return -1
	}
	ni := int32(len(res.nodes))
	res.nodes = append(res.nodes, node{parent: x.ci, depth: int32(depth), in: e})
	x.noteFP(ni, fp)
	x.distinct++
	x.visited.put(fp, ni)
	x.targets = append(x.targets, x.target(ni))
	x.keep(ni)
	return ni
}

// target is successor j as the graph takes it: marked when an escape
// event led to it.
func (x *explorer) target(j int32) int32 {
	if x.esc {
		return escapeTarget(j)
	}
	return j
}

// has reports whether a finding with key (Finding.Key) is kept.
func (r *Result) has(key string) bool {
	for i := range r.Findings {
		if r.Findings[i].Key() == key {
			return true
		}
	}
	return false
}

// add keeps the first (shallowest) finding of each kind.
func (r *Result) add(f Finding) {
	if !r.has(f.Key()) {
		r.Findings = append(r.Findings, f)
	}
}

// Path returns the edges from the root to node n.
func (r *Result) path(n int32) []edge {
	var out []edge
	for ; n > 0; n = r.nodes[n].parent {
		out = append(out, r.nodes[n].in)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// PathLen returns the number of events on the shortest path to node n.
func (r *Result) PathLen(n int32) int { return int(r.nodes[n].depth) }

// Covered returns how many transitions were taken, and how many there are.
func (r *Result) Covered() (int, int) {
	n := 0
	for _, c := range r.Coverage.Trans {
		if c > 0 {
			n++
		}
	}
	return n, len(r.Coverage.Trans)
}

// Collision returns the probability that two of the distinct
// configurations share a 64-bit fingerprint, so that one of them (and
// what lies beyond it) went unexplored: n²/2⁶⁵ for n configurations, the
// birthday bound TLC also reports.
func (r *Result) Collision() float64 {
	n := float64(r.Distinct)
	return n * n / math.Exp2(65)
}

// Rate returns distinct configurations per second.
func (r *Result) Rate() float64 {
	if r.Seconds <= 0 {
		return math.Inf(1)
	}
	return float64(r.Distinct) / r.Seconds
}

func hasTimer(m *engine.Machine, c *engine.Config) bool {
	_, ok := m.NextTimer(c)
	return ok
}
