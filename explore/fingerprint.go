package explore

import (
	"math"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/wordhash"
)

// fingerprint hashes a configuration without its absolute time: timers
// count from now and are ranked by firing order; the last utterance does
// not matter to what can happen next; a counter's values from where the
// machine reads them alike count as one (counterTops). The checker's armed within-bounds
// count from turn, the turn of the step that led to the configuration (its
// depth), for the same reason. Only what the machine uses is read (its
// slots and counters, the flow stack up to its depth, the fork's branches),
// a 64-bit word at a time; it neither copies the configuration nor
// allocates.
func (x *explorer) fingerprint(c *engine.Config, ps eval.PathState, turn int) uint64 {
	h := wordhash.Hash(0x9E3779B97F4A7C15)
	h.Word(uint64(c.State) | uint64(c.Waiting)<<16 | uint64(c.FlowDepth)<<32 | uint64(c.NBranch)<<40 | uint64(c.Finished)<<48 | flag(c.Final)<<56)
	for i := 0; i < int(c.FlowDepth); i++ {
		h.Word(uint64(c.Flows[i]))
	}
	for i := 0; i < x.nCounters; i++ {
		h.Word(uint64(uint32(min(c.Counters[i], x.ctrTop[i]))))
	}
	// Pending timers, those beyond the inline ones too, in firing order
	// (deadline, sequence).
	var ts [engine.MaxTimers]engine.Timer
	n := 0
	for _, t := range c.Timers {
		if t.Active {
			n = rankTimer(&ts, n, t)
		}
	}
	for i := engine.InlineTimers; i < c.TimerSlots(); i++ {
		n = rankTimer(&ts, n, c.TimerAt(i))
	}
	h.Word(uint64(n))
	for _, t := range ts[:n] {
		h.Word(uint64(t.Deadline - c.Now))
		h.Word(uint64(t.ID))
	}
	for i := 0; i < x.m.NumHistories(); i++ {
		h.Word(uint64(c.HistAt(i)))
	}
	for i := 0; i < int(c.NBranch); i++ {
		b := &c.Branches[i]
		h.Word(uint64(b.State) | uint64(b.Pending)<<16 | uint64(b.Status)<<32 | uint64(b.Order)<<40)
		in, res := c.BranchInput(i), c.BranchResult(i)
		h.Str(in)
		h.Str(res)
	}
	var dead uint64
	if x.reduce && c.NBranch == 0 {
		dead = x.m.DeadSlots(c.State)
	}
	for i := 0; i < x.nSlots; i++ {
		if x.hidden[i] || dead&engine.SlotMask(engine.SlotID(i)) != 0 {
			continue
		}
		v := c.Slot(engine.SlotID(i))
		h.Word(uint64(v.Kind))
		if v.Kind != engine.Empty {
			h.Str(v.Str)
			h.Word(math.Float64bits(v.Num))
		}
	}
	for _, s := range ps.Last {
		h.Word(uint64(s))
	}
	for _, d := range ps.Due {
		rel := -1
		if d >= 0 {
			rel = d - turn
		}
		h.Word(uint64(rel))
	}
	return h.Sum()
}

// rankTimer inserts t among the n timers ts holds in firing order
// (deadline, then sequence) and returns how many it holds.
func rankTimer(ts *[engine.MaxTimers]engine.Timer, n int, t engine.Timer) int {
	j := n
	for ; j > 0 && (t.Deadline < ts[j-1].Deadline || (t.Deadline == ts[j-1].Deadline && t.Seq < ts[j-1].Seq)); j-- {
		ts[j] = ts[j-1]
	}
	ts[j] = t
	return n + 1
}

func flag(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
