package explore

import (
	"sync"
	"sync/atomic"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// A search on several goroutines (Options.Workers) stays level by level
// and gives the one goroutine's result, to the byte. It takes the level
// in batches. The workers expand a batch's configurations, a chunk at a
// time, each worker into its own buffers: the successors with their
// fingerprints, whether the visited set held them when the batch began,
// the new ones encoded for the queue, and what each path broke or took
// first. Nothing is shared that anyone writes while they run. Then this
// goroutine merges the chunks in the order of the frontier, as the one
// goroutine would have emitted them: it looks up the fingerprints the
// visited set did not hold, numbers the new nodes, keeps the first finding
// of each kind and the witnesses, and queues the encoded configurations.
//
// A worker's view of what was found is the batch's start, so it may note
// a finding or a transition as new that an earlier chunk has since found;
// the merge judges each against what is found by then, as the one
// goroutine did. Coverage is a sum, so each worker counts its own and the
// merge adds them; when the state cap stops the search in a batch, the
// batch's counts are dropped and its nodes up to the stop are counted
// again, as the one goroutine counted them.
//
// An earlier design split the search into parts (part.go), one per
// goroutine, each with its own visited set: on machines whose paths
// rejoin, two parts did nearly twice the work, and two goroutines took
// 1.7 to 3.7 times as long as one.

// minParallel is the narrowest level the workers take; narrower ones are
// expanded on one goroutine, as starting the workers would cost more.
// Tests lower it, and fix the batch size (fixedBatch, 0: adapt), to take
// small machines through every path of the merge.
var minParallel, fixedBatch = 32, 0

// batchSuccessors is about how many successors a batch has: enough that
// starting and merging a batch costs little beside expanding it, few
// enough that its buffers stay small and Options.Stop is asked often.
const batchSuccessors = 1 << 15

// workers are the explorers of a parallel search, and the chunks of the
// batch under way.
type workers struct {
	ws    []*explorer
	outs  []*chunk
	batch int // nodes in the next batch
}

// succ is one successor a worker computed.
type succ struct {
	fp     uint64
	e      edge
	j      int32 // the node the visited set held it as when the batch began, or -1
	weight int32
	// Its encoded configuration (when j < 0) in chunk.buf[off:end], and
	// what its path broke and took first in chunk.findings[f0:f1] and
	// chunk.taken[t0:t1].
	off, end, f0, f1, t0, t1 uint32
	stop, esc, good          bool
	// data: its stored data, for a machine with Data (data.go); par:
	// its parallel state and regions, when one is active (regions.go).
	data *dataSnap
	par  parNode
}

// expansion of one node by a worker: its successors end at end in
// chunk.succs; dead: it has none, is not final and has no timer
// pending; found: its dead_end finding in chunk.deads, or -1.
type nodeOut struct {
	ci, end, found int32
	dead           bool
}

// chunk is the expansion of batch entries lo to hi.
type chunk struct {
	lo, hi   int
	nodes    []nodeOut
	succs    []succ
	buf      []byte
	findings []Finding
	taken    []engine.TransID
	deads    []Finding
}

func (c *chunk) reset(lo, hi int) {
	c.lo, c.hi = lo, hi
	c.nodes, c.succs, c.buf = c.nodes[:0], c.succs[:0], c.buf[:0]
	c.findings, c.taken, c.deads = c.findings[:0], c.taken[:0], c.deads[:0]
}

// workers makes n explorers that share x's machine, alphabet, visited set
// and texts, each with its own scratch and its own view of the result.
func (x *explorer) workers(n int) *workers {
	ws := &workers{batch: 64 * n}
	if fixedBatch > 0 {
		ws.batch = fixedBatch
	}
	for range n {
		w := &explorer{s: x.s, m: x.m, alpha: x.alpha, values: x.values, hidden: x.hidden, slotBuf: make([]engine.Value, x.nSlots), reduce: x.reduce, groups: x.groups,
			checker: eval.NewChecker(x.m), known: x.known, pathFixed: x.pathFixed, nSlots: x.nSlots, nCounters: x.nCounters, ctrTop: x.ctrTop,
			visited: x.visited, startInv: x.startInv, escIntent: x.escIntent, texts: x.texts, strs: []string{""}, strID: map[string]uint32{},
			last: make([]engine.StateID, len(x.last)), due: make([]int, len(x.due)), via: make([]engine.StateID, len(x.via)), rootPath: x.rootPath}
		w.res = &Result{m: x.m, Coverage: eval.NewCoverage(x.m), firstTaken: x.res.firstTaken}
		// Its own Data (a heap is not shared), stepping from the stored
		// data every explorer reads and none writes.
		w.setData(x.m.NewData(sessionID))
		w.paths = x.res
		ws.ws = append(ws.ws, w)
	}
	return ws
}

// levelParallel expands the level in frontier with the workers.
func (x *explorer) levelParallel(ws *workers, frontier *queue, depth int, stop func() bool) {
	for fi := 0; fi < frontier.len(); {
		if stop != nil && stop() {
			x.res.Stopped, x.stopped = Interrupted, true
			x.res.Queue = frontier.len() - fi + x.next.len()
			return
		}
		b := frontier.take(ws.batch)
		if b.len() == 0 {
			return // an I/O error, in frontier.err
		}
		nch := ws.expand(b, depth, x.res.Findings, 0, b.len())
		k := x.merge(ws.outs[:nch], depth)
		if x.stopped {
			// The batch's coverage counts nodes after the stop: count
			// again up to it.
			for _, w := range ws.ws {
				zero(w.res.Coverage)
			}
			ws.expand(b, depth, x.res.Findings, 0, k+1)
			x.res.Queue = frontier.len() - (fi + k) + x.next.len()
		}
		for _, w := range ws.ws {
			x.res.Coverage.Add(w.res.Coverage)
			zero(w.res.Coverage)
		}
		if x.stopped {
			return
		}
		fi += b.len()
		n := 0
		for _, o := range ws.outs[:nch] {
			n += len(o.succs)
		}
		ws.batch = min(max(batchSuccessors*b.len()/max(n, 1), 16*len(ws.ws)), 1<<14)
		if fixedBatch > 0 {
			ws.batch = fixedBatch
		}
	}
}

// expand has the workers expand entries lo to hi of batch b, in chunks,
// and returns how many chunks there are (ws.outs[:n]). found is what the
// search has found so far.
func (ws *workers) expand(b block, depth int, found []Finding, lo, hi int) int {
	size := max((hi-lo+8*len(ws.ws)-1)/(8*len(ws.ws)), 1)
	n := (hi - lo + size - 1) / size
	for len(ws.outs) < n {
		ws.outs = append(ws.outs, &chunk{})
	}
	for i := range n {
		ws.outs[i].reset(lo+i*size, min(lo+(i+1)*size, hi))
	}
	var next atomic.Int32
	run := func(w *explorer) {
		// Its own copy: it adds what it finds, as the merge will have by
		// then (record).
		w.res.Findings = append(w.res.Findings[:0], found...)
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			w.expandChunk(b, ws.outs[i], depth)
		}
	}
	var wg sync.WaitGroup
	for _, w := range ws.ws[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(w)
		}()
	}
	run(ws.ws[0])
	wg.Wait()
	return n
}

// expandChunk expands the entries of chunk o into it.
func (x *explorer) expandChunk(b block, o *chunk, depth int) {
	x.out = o
	cur := &x.cur
	for i := o.lo; i < o.hi; i++ {
		x.decode(b.entry(i), cur)
		if b.data != nil {
			cur.data = b.data[i]
		}
		ci := b.node[i]
		n := x.expand(cur, ci, depth)
		nd := nodeOut{ci: ci, end: int32(len(o.succs)), found: -1}
		nd.dead = n == 0 && !cur.cfg.Final && !hasTimer(x.m, &cur.cfg)
		if nd.dead && !x.res.has(eval.DeadEnd) {
			nd.found = int32(len(o.deads))
			o.deads = append(o.deads, x.deadEnd(cur, ci, depth))
			x.res.add(o.deads[nd.found])
		}
		o.nodes = append(o.nodes, nd)
	}
}

// record is a worker's emit: it keeps successor st of node x.ci in the
// chunk for the merge.
func (x *explorer) record(st *searchState, e edge, stop bool) {
	o := x.out
	x.count += x.weight
	s := succ{e: e, j: -1, weight: int32(x.weight), stop: stop, esc: x.esc}
	if !stop {
		s.fp = x.key(st, x.depth+1)
		if j, ok := x.visited.get(s.fp); ok {
			s.j = j
		} else {
			s.good = x.isGood(&st.cfg)
			if c := &st.cfg; c.NBranch > 0 && !c.Final {
				s.par.p = c.State
				s.par.meant, s.par.done = x.regions(c)
			}
			x.store(st, -1, edge{}, -1)
			s.data = st.data
			s.off = uint32(len(o.buf))
			o.buf = x.encode(o.buf, st)
			s.end = uint32(len(o.buf))
		}
	}
	s.f0 = uint32(len(o.findings))
	o.findings = append(o.findings, x.findings...)
	// The merge will have found them by the time it takes the chunk's
	// next successor: the checker need not describe them again.
	for i := range x.findings {
		x.res.add(x.findings[i])
	}
	s.f1, s.t0 = uint32(len(o.findings)), uint32(len(o.taken))
	o.taken = append(o.taken, x.taken...)
	s.t1 = uint32(len(o.taken))
	o.succs = append(o.succs, s)
}

// merge takes the chunks' successors in order, as emit would have taken
// them on one goroutine, and returns how many nodes it took in full (the
// one it stopped at, if the state cap stopped it, is the next).
func (x *explorer) merge(outs []*chunk, depth int) int {
	res := x.res
	findings, taken := x.findings, x.taken
	defer func() { x.findings, x.taken = findings[:0], taken[:0] }()
	k := 0
	for _, o := range outs {
		si := 0
		for _, nd := range o.nodes {
			x.ci, x.depth, x.count = nd.ci, depth, 0
			x.targets = x.targets[:0]
			for ; si < int(nd.end) && !x.stopped; si++ {
				s := &o.succs[si]
				res.Generated += int(s.weight)
				x.count += int(s.weight)
				x.esc = s.esc
				x.findings, x.taken = o.findings[s.f0:s.f1], o.taken[s.t0:s.t1]
				j, seen := s.j, s.stop || s.j >= 0
				if s.stop {
					res.nodes[x.ci].fails = true
				} else if !seen {
					j, seen = x.visited.get(s.fp)
				}
				if ni := x.commit(s.e, s.fp, j, seen); ni >= 0 {
					res.nodes[ni].good = s.good
					if s.par.meant != 0 {
						p := s.par
						p.node = ni
						res.par = append(res.par, p)
					}
					if d := s.data; d != nil && d.saved == nil && d.node < 0 {
						d.node = ni // rebuilt from its own path
					}
					x.next.pushBytes(o.buf[s.off:s.end], ni, s.data)
				}
			}
			si = int(nd.end)
			var found *Finding
			if nd.found >= 0 {
				found = &o.deads[nd.found]
			}
			x.expanded1(nd.ci, x.count, nd.dead, nil, depth, found)
			if x.stopped {
				return k
			}
			k++
		}
	}
	return k
}

// zero clears every count of c.
func zero(c *eval.Coverage) {
	for _, s := range counters(c) {
		clear(s)
	}
}
