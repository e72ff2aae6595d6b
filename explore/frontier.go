package explore

import (
	"encoding/binary"
	"math"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// queue holds one level of the search's frontier. A Config is a fixed
// 1.6 KB value sized for the largest machine; a queued one keeps only what
// the machine uses (its slots and counters, the flow stack to its depth,
// the pending timers, the fork's branches, the checker's path state),
// packed into one byte buffer with its texts interned. That keeps a
// frontier of a million configurations in a few hundred megabytes, and
// gives the garbage collector nothing to scan.
type queue struct {
	buf  []byte
	offs []uint32 // where each entry starts in buf
	node []int32  // the node each entry is
}

func (q *queue) len() int { return len(q.node) }

func (q *queue) reset() {
	q.buf, q.offs, q.node = q.buf[:0], q.offs[:0], q.node[:0]
}

// push queues st as node n.
func (x *explorer) push(q *queue, st *searchState, n int32) {
	q.offs = append(q.offs, uint32(len(q.buf)))
	q.node = append(q.node, n)
	q.buf = x.encode(q.buf, st)
}

// load decodes entry i of q into st. The path state it gets is the
// explorer's scratch, valid until the next load.
func (x *explorer) load(q *queue, i int, st *searchState) int32 {
	end := len(q.buf)
	if i+1 < len(q.offs) {
		end = int(q.offs[i+1])
	}
	x.decode(q.buf[q.offs[i]:end], st)
	return q.node[i]
}

// Slot flags in an encoded configuration.
const (
	slotStr = 1 << 2 // a text follows (its interned id)
	slotNum = 1 << 3 // a number follows
)

var le = binary.LittleEndian

func (x *explorer) encode(b []byte, st *searchState) []byte {
	c := &st.cfg
	var active uint8
	for i := range c.Timers {
		if c.Timers[i].Active {
			active |= 1 << i
		}
	}
	b = le.AppendUint64(b, uint64(c.Now))
	b = le.AppendUint32(b, c.TimerSeq)
	b = le.AppendUint16(b, uint16(c.State))
	b = le.AppendUint16(b, uint16(c.Waiting))
	b = le.AppendUint16(b, c.LastSay)
	b = append(b, c.FlowDepth, byte(flag(c.Final)), c.NBranch, c.Finished, active)
	for i := 0; i < int(c.FlowDepth); i++ {
		b = le.AppendUint16(b, uint16(c.Flows[i]))
	}
	for i := 0; i < x.nCounters; i++ {
		b = le.AppendUint32(b, uint32(c.Counters[i]))
	}
	for i := range c.Timers {
		if t := &c.Timers[i]; t.Active {
			b = le.AppendUint64(b, uint64(t.Deadline))
			b = le.AppendUint32(b, t.Seq)
			b = le.AppendUint16(b, uint16(t.ID))
		}
	}
	for i := 0; i < x.nSlots; i++ {
		v := &c.Slots[i]
		f := byte(v.Kind)
		if v.Str != "" {
			f |= slotStr
		}
		if v.Num != 0 {
			f |= slotNum
		}
		b = append(b, f)
		if v.Str != "" {
			b = le.AppendUint32(b, x.intern(v.Str))
		}
		if v.Num != 0 {
			b = le.AppendUint64(b, math.Float64bits(v.Num))
		}
	}
	for i := 0; i < int(c.NBranch); i++ {
		br := &c.Branches[i]
		b = le.AppendUint16(b, uint16(br.State))
		b = le.AppendUint16(b, uint16(br.Pending))
		b = append(b, byte(br.Status), br.Order)
		b = le.AppendUint32(b, x.intern(br.Input))
		b = le.AppendUint32(b, x.intern(br.Result))
	}
	if !x.pathFixed {
		for _, s := range st.path.Last {
			b = le.AppendUint16(b, uint16(s))
		}
		for _, d := range st.path.Due {
			b = le.AppendUint32(b, uint32(int32(d)))
		}
	}
	return b
}

func (x *explorer) decode(b []byte, st *searchState) {
	c := &st.cfg
	*c = engine.Config{}
	c.Now = int64(le.Uint64(b))
	c.TimerSeq = le.Uint32(b[8:])
	c.State = engine.StateID(le.Uint16(b[12:]))
	c.Waiting = engine.SlotID(le.Uint16(b[14:]))
	c.LastSay = le.Uint16(b[16:])
	c.FlowDepth, c.Final, c.NBranch, c.Finished = b[18], b[19] != 0, b[20], b[21]
	active := b[22]
	b = b[23:]
	for i := range c.Flows {
		c.Flows[i] = engine.NoID
		if i < int(c.FlowDepth) {
			c.Flows[i] = engine.FlowID(le.Uint16(b))
			b = b[2:]
		}
	}
	for i := 0; i < x.nCounters; i++ {
		c.Counters[i] = int32(le.Uint32(b))
		b = b[4:]
	}
	for i := range c.Timers {
		if active&(1<<i) != 0 {
			c.Timers[i] = engine.Timer{Deadline: int64(le.Uint64(b)), Seq: le.Uint32(b[8:]), ID: engine.TimerID(le.Uint16(b[12:])), Active: true}
			b = b[14:]
		}
	}
	for i := 0; i < x.nSlots; i++ {
		f := b[0]
		b = b[1:]
		v := &c.Slots[i]
		v.Kind = engine.ValueKind(f & 3)
		if f&slotStr != 0 {
			v.Str = x.strs[le.Uint32(b)]
			b = b[4:]
		}
		if f&slotNum != 0 {
			v.Num = math.Float64frombits(le.Uint64(b))
			b = b[8:]
		}
	}
	for i := 0; i < int(c.NBranch); i++ {
		br := &c.Branches[i]
		br.State = engine.StateID(le.Uint16(b))
		br.Pending = engine.ExtID(le.Uint16(b[2:]))
		br.Status, br.Order = engine.BranchStatus(b[4]), b[5]
		br.Input, br.Result = x.strs[le.Uint32(b[6:])], x.strs[le.Uint32(b[10:])]
		b = b[14:]
	}
	if x.pathFixed {
		st.path = x.rootPath
		return
	}
	for i := range x.last {
		x.last[i] = engine.StateID(le.Uint16(b))
		b = b[2:]
	}
	for i := range x.due {
		x.due[i] = int(int32(le.Uint32(b)))
		b = b[4:]
	}
	st.path = eval.PathState{Last: x.last, Due: x.due}
}

// intern returns the id of text s; "" is 0.
func (x *explorer) intern(s string) uint32 {
	if s == "" {
		return 0
	}
	if id, ok := x.strID[s]; ok {
		return id
	}
	id := uint32(len(x.strs))
	x.strs = append(x.strs, s)
	x.strID[s] = id
	return id
}

// keep drops the entries for which want is false, keeping the others in
// order.
func (q *queue) keep(want func(i int) bool) {
	var buf []byte
	var offs []uint32
	var nodes []int32
	for i := range q.node {
		if !want(i) {
			continue
		}
		end := len(q.buf)
		if i+1 < len(q.offs) {
			end = int(q.offs[i+1])
		}
		offs = append(offs, uint32(len(buf)))
		nodes = append(nodes, q.node[i])
		buf = append(buf, q.buf[q.offs[i]:end]...)
	}
	q.buf, q.offs, q.node = buf, offs, nodes
}
