package explore

import (
	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/wordhash"
)

// A machine whose data lives outside the Config (an SCXML chart's
// ECMAScript heap, engine.Data) is searched from stored configurations, as
// one whose data is in the Config: each configuration the search keeps
// holds its data as Data.Save returned it, and each event tried from it is
// stepped after Data.Restore puts that data back. Only a configuration
// whose data Save cannot copy (a function in a variable) is rebuilt by
// replaying its path from the start, on a fresh Data. The visited set
// keys the Config's fingerprint combined with Data.Fingerprint, so two
// configurations differ when their data does.
//
// Most events change no data (a transition without executable content, an
// event no transition takes): a step the Data reports unchanged (changer)
// leaves its successor sharing the stored data, fingerprint included, and
// the heap as it was, so the next event needs no Restore.

// sessionID is the conversation id (_sessionid) of the search's Data.
const sessionID = "explore"

// dataSnap is a configuration's data as the search keeps it: what Save
// returned, or, when it could not copy the data, where to rebuild it
// from: the path to node, then (k >= 0, an action's results being
// delivered) edge e's event and its first k deliveries; and its
// fingerprint.
type dataSnap struct {
	saved any
	node  int32
	e     edge
	k     int
	fp    uint64
}

// changer is a Data that reports whether a step changed it since it was
// last saved or restored. A Data that does not say is taken to change on
// every step.
type changer interface{ Changed() bool }

// hold makes the explorer's Data hold st's data: a stored one is restored
// (or rebuilt) unless the Data holds it already; a fresh one is there.
func (x *explorer) hold(st *searchState) {
	if x.data == nil || st.fresh || x.heap == st.data {
		return
	}
	s := st.data
	if s.saved == nil || !x.data.Restore(s.saved) {
		x.rebuild(s)
	}
	x.heap = s
}

// rebuild replays s's path from the start on a fresh Data, which becomes
// the explorer's.
func (x *explorer) rebuild(s *dataSnap) {
	var c engine.Config
	var r engine.Result
	d := x.paths.begin(&c, &r)
	for _, e := range x.paths.path(s.node) {
		x.paths.replay(&c, d, e, &r, -1)
	}
	if s.k >= 0 {
		x.paths.replay(&c, d, s.e, &r, s.k)
	}
	x.setData(d)
}

// stepped notes a step taken on st: when it changed the data, st's data
// is fresh (in the Data, not stored yet).
func (x *explorer) stepped(st *searchState) {
	if x.data == nil || (x.track != nil && !x.track.Changed()) {
		return
	}
	st.data, st.fresh, st.dfpOK = nil, true, false
	x.heap = nil
}

// dataFP is the fingerprint of st's data.
func (x *explorer) dataFP(st *searchState) uint64 {
	if !st.fresh {
		return st.data.fp
	}
	if !st.dfpOK {
		st.dfp, st.dfpOK = x.data.Fingerprint(), true
	}
	return st.dfp
}

// key is what the visited set keys st by, reached at depth turn: its
// fingerprint, with its data's.
func (x *explorer) key(st *searchState, turn int) uint64 {
	fp := x.fingerprint(&st.cfg, st.path, turn)
	if x.data == nil {
		return fp
	}
	h := wordhash.Hash(fp)
	h.Word(x.dataFP(st))
	return h.Sum()
}

// store keeps st's fresh data (the Data holds it): saved, or, when Save
// cannot copy it, to be rebuilt from the path to node n (-1: a worker's
// successor, numbered by the merge) and, with k >= 0, edge e's event
// and its first k deliveries after it.
func (x *explorer) store(st *searchState, n int32, e edge, k int) {
	if x.data == nil || !st.fresh {
		return
	}
	s := &dataSnap{fp: x.dataFP(st), node: n, e: e, k: k}
	if saved, ok := x.data.Save(); ok {
		s.saved = saved
	}
	st.data, st.fresh, x.heap = s, false, s
}

// begin starts a replay of the search's paths: c at the machine's start,
// with the fresh Data it runs on (nil for a machine whose data is in the
// Config).
func (r *Result) begin(c *engine.Config, scratch *engine.Result) engine.Data {
	d := r.m.NewData(sessionID)
	r.m.StartWith(c, d, 0, scratch)
	return d
}
