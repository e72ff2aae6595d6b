package explore

import (
	"math"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/wordhash"
)

// The digest of a complete search stands for its reachable labelled
// graph: the multiset of every edge (source configuration, event, which
// external actions failed, how many alphabet events the step stands for,
// target configuration or an engine failure) with what an observer sees on
// it (the states left and entered, the bot's words, the actions invoked,
// the timers started and cancelled, escalations and fork joins). Two
// machines over the same states, slots and alphabet whose complete
// searches have equal digests answer every sequence of events alike, so
// simctl mutate calls such a mutant equivalent. Configurations are
// compared by fingerprint, so a difference that no observer could see but
// that the configuration keeps (a counter the mutant no longer counts)
// still tells the two apart: the test errs on the side of "not
// equivalent". Edge hashes are summed, so the order the search emits them
// in does not matter.

// stepObs hashes what an observer sees of the step just taken (x.r), for
// event ev.
func (x *explorer) stepObs(ev *engine.Event) uint64 {
	r := &x.r
	h := wordhash.Hash(0x6A09E667F3BCC908)
	h.Word(uint64(ev.Kind) | flag(r.Handled)<<8)
	for i := range r.Steps {
		s := &r.Steps[i]
		h.Word(uint64(uint16(s.From)) | uint64(uint16(s.To))<<16 | uint64(s.Branch)<<32)
	}
	for i := range r.Effects {
		e := &r.Effects[i]
		h.Word(uint64(e.Kind) | uint64(e.Branch)<<8 | uint64(uint16(e.Ext))<<16 | uint64(uint16(e.Timer))<<32)
		switch e.Kind {
		case engine.EffStartTimer:
			h.Word(uint64(e.Deadline - ev.At))
		case engine.EffSay, engine.EffEscalate:
			h.Str(string(r.EffectText(e)))
		}
	}
	for _, j := range r.Joins {
		h.Word(uint64(j.Branches) | uint64(j.Finished)<<16 | uint64(j.Failed)<<32 | uint64(j.Delivered)<<48)
	}
	return h.Sum()
}

// thenObs is what the steps of one event show so far, level after level.
func thenObs(before, step uint64) uint64 {
	h := wordhash.Hash(before)
	h.Word(step)
	return h.Sum()
}

// digestEdge adds an edge of the search to the digest.
//
// The fingerprint leaves out slots the machine never reads (the
// reductions), but a scenario can still check them: every slot's value
// after the edge is hashed too, so such a slot left otherwise tells the
// two machines apart.
func (x *explorer) digestEdge(e edge, target uint64, stop bool, obs uint64, after *engine.Config) {
	h := wordhash.Hash(0xBB67AE8584CAA73B)
	for i := 0; i < x.nSlots; i++ {
		v := after.Slot(engine.SlotID(i))
		h.Word(uint64(v.Kind))
		if v.Kind != engine.Empty {
			h.Str(v.Str)
			h.Word(math.Float64bits(v.Num))
		}
	}
	h.Word(x.srcFP)
	h.Word(uint64(uint32(e.event)) | uint64(e.fails)<<32)
	h.Word(uint64(x.weight) | flag(stop)<<63)
	h.Word(target)
	h.Word(obs)
	sum := h.Sum()
	x.res.Digest += sum
	x.res.nodeSums[x.srcFP] += sum
}

// NodeDigests returns, for each configuration the search expanded (by
// fingerprint), the sum of the hashes of its outgoing edges; with
// Options.Digest only.
func (r *Result) NodeDigests() map[uint64]uint64 { return r.nodeSums }

// FirstDifference returns the first node, in breadth-first order, whose
// configuration the other search (its NodeDigests) expanded too but with
// other outgoing edges: the shortest path to it leads both machines to the
// same configuration, and some event from there makes them differ. ok is
// false when there is none (the searches agree wherever both went).
func (r *Result) FirstDifference(other map[uint64]uint64) (node int32, ok bool) {
	for n, fp := range r.nodeFP {
		if fp == 0 {
			continue
		}
		if sum, seen := other[fp]; seen && sum != r.nodeSums[fp] {
			return int32(n), true
		}
	}
	return 0, false
}
