package explore

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sync"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// queue holds one level of the search's frontier. A Config is a fixed
// 1.7 KB value (32 slots inline, the others in one string); a queued one
// keeps only what the machine uses (its slots and counters, the flow
// stack to its depth, the pending timers, the fork's branches and their
// texts, the checker's path state), packed into one byte buffer with its
// texts interned, so its size follows the machine, not engine's caps. That keeps a
// frontier of a million configurations in a few hundred megabytes, and
// gives the garbage collector nothing to scan.
//
// Past its budget of memory, a queue spills, as TLC's disk-backed queue
// does: the entries it holds are written to a temporary file as one
// segment and memory starts again; a level is written whole before it is
// read, so reading takes the segments in the order they were written, then
// what is still in memory. The file is removed as soon as it is created
// (where the system allows an open file to be removed), so that nothing is
// left behind however the process ends; close removes it otherwise.
type queue struct {
	mem    block // the newest entries, in memory
	n      int   // entries in all, spilled ones included
	budget int   // bytes mem may hold; 0: no limit
	dir    string
	file   *os.File
	name   string // the file's name while it still has one
	segs   []int  // the entries in each spilled segment, in order
	// Reading: the segment read back, the segment being read (rd or
	// mem), the next segment to read and the next entry of cur.
	rd   block
	cur  *block
	seg  int
	ri   int
	scr  []byte // scratch for a segment's header and tables
	err  error  // the first I/O error, which ends the search
	disk int64  // bytes written to the file, for tests and reports
	// data holds, for a machine whose data lives outside the Config,
	// each entry's stored data, in order (they stay in memory when the
	// entries spill); taken is how many entries take has returned.
	data  []*dataSnap
	taken int
}

// block is a run of encoded entries: the bytes, where each entry starts,
// the node each entry is and, for a machine with Data, its stored data.
type block struct {
	buf  []byte
	offs []uint32
	node []int32
	data []*dataSnap
}

func (b *block) len() int { return len(b.node) }

func (b *block) reset() { b.buf, b.offs, b.node = b.buf[:0], b.offs[:0], b.node[:0] }

// bytes is what the block holds in memory.
func (b *block) bytes() int { return len(b.buf) + 8*len(b.node) }

// entry returns the bytes of entry i.
func (b *block) entry(i int) []byte {
	end := len(b.buf)
	if i+1 < len(b.offs) {
		end = int(b.offs[i+1])
	}
	return b.buf[b.offs[i]:end]
}

func (q *queue) len() int { return q.n }

// reset empties q for the next level (keeping its file, emptied, for the
// next spill).
func (q *queue) reset() {
	q.mem.reset()
	q.n, q.segs, q.cur, q.seg, q.ri = 0, q.segs[:0], nil, 0, 0
	clear(q.data)
	q.data, q.taken = q.data[:0], 0
	if q.file != nil && q.err == nil {
		if err := q.file.Truncate(0); err != nil {
			q.err = err
		} else if _, err := q.file.Seek(0, io.SeekStart); err != nil {
			q.err = err
		}
	}
}

// close removes q's file, if it has one.
func (q *queue) close() {
	if q.file == nil {
		return
	}
	q.file.Close()
	if q.name != "" {
		os.Remove(q.name)
	}
	q.file = nil
}

// push queues st as node n.
func (x *explorer) push(q *queue, st *searchState, n int32) {
	q.mem.offs = append(q.mem.offs, uint32(len(q.mem.buf)))
	q.mem.node = append(q.mem.node, n)
	q.mem.buf = x.encode(q.mem.buf, st)
	q.n++
	if x.data != nil {
		q.data = append(q.data, st.data)
	}
	q.check()
}

// pushBytes queues an entry encoded already as node n, with its stored
// data d (nil for a machine without Data).
func (q *queue) pushBytes(b []byte, n int32, d *dataSnap) {
	q.mem.offs = append(q.mem.offs, uint32(len(q.mem.buf)))
	q.mem.node = append(q.mem.node, n)
	q.mem.buf = append(q.mem.buf, b...)
	q.n++
	if d != nil {
		q.data = append(q.data, d)
	}
	q.check()
}

// check spills what q holds in memory once it passes the budget.
func (q *queue) check() {
	if q.budget > 0 && q.mem.bytes() > q.budget && q.err == nil {
		q.err = q.spill()
	}
}

// spill writes mem to the file as one segment: the number of entries and
// of bytes, each entry's node and start, then the bytes.
func (q *queue) spill() error {
	if q.file == nil {
		f, err := os.CreateTemp(q.dir, "simctl-queue-*")
		if err != nil {
			return fmt.Errorf("the search's queue cannot spill to disk: %v", err)
		}
		q.file, q.name = f, f.Name()
		// An open file can be removed on Unix: it goes when closed, also
		// when the process is killed.
		if os.Remove(f.Name()) == nil {
			q.name = ""
		}
	}
	m := &q.mem
	h := le.AppendUint32(q.scr[:0], uint32(m.len()))
	h = le.AppendUint32(h, uint32(len(m.buf)))
	for i, n := range m.node {
		h = le.AppendUint32(h, uint32(n))
		h = le.AppendUint32(h, m.offs[i])
	}
	q.scr = h
	for _, b := range [][]byte{h, m.buf} {
		if _, err := q.file.Write(b); err != nil {
			return fmt.Errorf("the search's queue cannot spill to disk: %v", err)
		}
	}
	q.disk += int64(len(h) + len(m.buf))
	q.segs = append(q.segs, m.len())
	m.reset()
	return nil
}

// rewind starts reading q from its first entry.
func (q *queue) rewind() {
	q.cur, q.seg, q.ri, q.taken = nil, 0, 0, 0
	if len(q.segs) > 0 && q.err == nil {
		if _, err := q.file.Seek(0, io.SeekStart); err != nil {
			q.err = err
		}
	}
}

// take returns the next run of at most max entries, in order, as a block
// valid until the next call (empty at the end, or on an I/O error, which
// q.err then holds).
func (q *queue) take(max int) block {
	for q.cur == nil || q.ri >= q.cur.len() {
		switch {
		case q.err != nil:
			return block{}
		case q.seg < len(q.segs):
			q.err = q.readSeg()
			q.cur, q.ri = &q.rd, 0
			q.seg++
		case q.cur != &q.mem:
			q.cur, q.ri = &q.mem, 0
		default:
			return block{}
		}
	}
	b, lo := q.cur, q.ri
	hi := min(lo+max, b.len())
	q.ri = hi
	end := len(b.buf)
	if hi < b.len() {
		end = int(b.offs[hi])
	}
	// Entry starts stay relative to the whole buffer.
	out := block{buf: b.buf[:end], offs: b.offs[lo:hi], node: b.node[lo:hi]}
	if len(q.data) > 0 {
		out.data = q.data[q.taken : q.taken+hi-lo]
	}
	q.taken += hi - lo
	return out
}

// readSeg reads the next spilled segment into rd.
func (q *queue) readSeg() error {
	fail := func(err error) error {
		return fmt.Errorf("the search's queue cannot read back what it spilled: %v", err)
	}
	var h [8]byte
	if _, err := io.ReadFull(q.file, h[:]); err != nil {
		return fail(err)
	}
	n, size := int(le.Uint32(h[:])), int(le.Uint32(h[4:]))
	q.scr = slices.Grow(q.scr[:0], 8*n)[:8*n]
	if _, err := io.ReadFull(q.file, q.scr); err != nil {
		return fail(err)
	}
	r := &q.rd
	r.reset()
	for i := range n {
		r.node = append(r.node, int32(le.Uint32(q.scr[8*i:])))
		r.offs = append(r.offs, le.Uint32(q.scr[8*i+4:]))
	}
	r.buf = slices.Grow(r.buf, size)[:size]
	if _, err := io.ReadFull(q.file, r.buf); err != nil {
		return fail(err)
	}
	return nil
}

// next decodes q's next entry into st and returns its node (-1 at the
// end). The path state st gets is the explorer's scratch, valid until the
// next load.
func (x *explorer) next1(q *queue, st *searchState) int32 {
	b := q.take(1)
	if b.len() == 0 {
		return -1
	}
	x.decode(b.entry(0), st)
	if b.data != nil {
		st.data = b.data[0]
	}
	return b.node[0]
}

// Slot flags in an encoded configuration.
const (
	slotStr = 1 << 2 // a text follows (its interned id)
	slotNum = 1 << 3 // a number follows
)

// moreTimers flags, in an encoded configuration's Final byte, that timers
// beyond engine.InlineTimers follow the inline ones: their count, then
// the engine's string of them (engine.Config.MoreTimers).
const moreTimers = 1 << 1

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
	more := c.MoreTimers()
	fin := byte(flag(c.Final))
	if more != "" {
		fin |= moreTimers
	}
	b = append(b, c.FlowDepth, fin, c.NBranch, c.Finished, active)
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
	if more != "" {
		b = binary.AppendUvarint(b, uint64(len(more)))
		b = append(b, more...)
	}
	for i := 0; i < x.nSlots; i++ {
		v := c.Slot(engine.SlotID(i))
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
	for i := 0; i < x.m.NumHistories(); i++ {
		b = le.AppendUint16(b, uint16(c.HistAt(i)))
	}
	for i := 0; i < int(c.NBranch); i++ {
		br := &c.Branches[i]
		b = le.AppendUint16(b, uint16(br.State))
		b = le.AppendUint16(b, uint16(br.Pending))
		b = append(b, byte(br.Status), br.Order)
	}
	if c.NBranch > 0 {
		b = le.AppendUint32(b, x.intern(c.Texts()))
	}
	if !x.pathFixed {
		for _, s := range st.path.Last {
			b = le.AppendUint16(b, uint16(s))
		}
		for _, d := range st.path.Due {
			b = le.AppendUint32(b, uint32(int32(d)))
		}
		// Via names findings only: queued, not fingerprinted.
		for i := range x.via {
			v := engine.StateID(engine.NoID)
			if i < len(st.path.Via) {
				v = st.path.Via[i]
			}
			b = le.AppendUint16(b, uint16(v))
		}
	}
	return b
}

func (x *explorer) decode(b []byte, st *searchState) {
	c := &st.cfg
	*c = engine.Config{}
	st.data, st.fresh = nil, false
	c.Now = int64(le.Uint64(b))
	c.TimerSeq = le.Uint32(b[8:])
	c.State = engine.StateID(le.Uint16(b[12:]))
	c.Waiting = engine.SlotID(le.Uint16(b[14:]))
	c.LastSay = le.Uint16(b[16:])
	c.FlowDepth, c.Final, c.NBranch, c.Finished = b[18], b[19]&1 != 0, b[20], b[21]
	fin := b[19]
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
	if fin&moreTimers != 0 {
		n, k := binary.Uvarint(b)
		c.SetMoreTimers(string(b[k : k+int(n)]))
		b = b[k+int(n):]
	}
	vals := x.slotBuf
	for i := 0; i < x.nSlots; i++ {
		f := b[0]
		b = b[1:]
		v := &vals[i]
		*v = engine.Value{}
		v.Kind = engine.ValueKind(f & 3)
		if f&slotStr != 0 {
			v.Str = x.text(le.Uint32(b))
			b = b[4:]
		}
		if f&slotNum != 0 {
			v.Num = math.Float64frombits(le.Uint64(b))
			b = b[8:]
		}
	}
	c.LoadSlots(vals)
	for i := 0; i < x.m.NumHistories(); i++ {
		c.SetHist(i, engine.StateID(le.Uint16(b)))
		b = b[2:]
	}
	for i := 0; i < int(c.NBranch); i++ {
		br := &c.Branches[i]
		br.State = engine.StateID(le.Uint16(b))
		br.Pending = engine.ExtID(le.Uint16(b[2:]))
		br.Status, br.Order = engine.BranchStatus(b[4]), b[5]
		b = b[6:]
	}
	if c.NBranch > 0 {
		c.SetTexts(x.text(le.Uint32(b)))
		b = b[4:]
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
	for i := range x.via {
		x.via[i] = engine.StateID(le.Uint16(b))
		b = b[2:]
	}
	st.path = eval.PathState{Last: x.last, Due: x.due, Via: x.via}
}

// texts interns the texts of queued configurations for every worker of
// a search. Each explorer keeps a copy of what it has looked up, so that
// the lock is taken only for a text it has not met before.
type texts struct {
	mu   sync.Mutex
	strs []string
	ids  map[string]uint32
}

func newTexts() *texts { return &texts{strs: []string{""}, ids: map[string]uint32{}} }

// intern returns the id of text s; "" is 0.
func (x *explorer) intern(s string) uint32 {
	if s == "" {
		return 0
	}
	if id, ok := x.strID[s]; ok {
		return id
	}
	t := x.texts
	t.mu.Lock()
	id, ok := t.ids[s]
	if !ok {
		id = uint32(len(t.strs))
		t.strs = append(t.strs, s)
		t.ids[s] = id
	}
	t.mu.Unlock()
	x.strID[s] = id
	return id
}

// text returns the text of id.
func (x *explorer) text(id uint32) string {
	if int(id) >= len(x.strs) {
		t := x.texts
		t.mu.Lock()
		x.strs = append(x.strs, t.strs[len(x.strs):]...)
		t.mu.Unlock()
	}
	return x.strs[id]
}

// keep drops the entries for which want is false (called with each
// entry's index and node), keeping the others in order.
func (q *queue) keep(want func(i int, n int32) bool) {
	kept := &queue{budget: q.budget, dir: q.dir}
	q.rewind()
	i := 0
	for b := q.take(1 << 12); b.len() > 0; b = q.take(1 << 12) {
		for k, n := range b.node {
			if want(i, n) {
				var d *dataSnap
				if b.data != nil {
					d = b.data[k]
				}
				kept.pushBytes(b.entry(k), n, d)
			}
			i++
		}
	}
	if q.err == nil {
		q.err = kept.err
	}
	err := q.err
	q.close()
	*q = *kept
	if q.err == nil {
		q.err = err
	}
}
