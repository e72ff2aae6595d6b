package engine

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strings"
)

// A Config holds its first InlineSlots slots in an array and the others in
// one immutable string: a table of fixed-size records, one per slot whose
// value is not the zero Value, sorted by slot id, then the texts of those
// records one after another. A record is the slot id (2 bytes), the kind
// (1), the number's bits (8) and where its text ends in the text part (4).
// Because the string is canonical (sorted, nothing stored for a zero
// Value), two configurations holding the same values hold equal strings,
// so == and Hash see through it; because it is immutable, copying a Config
// copies only its header. Writing one of these slots builds a new string:
// machines with more than InlineSlots slots pay an allocation per such
// write, every other machine pays nothing.
const moreRec = 15

// moreCount is the number of records in more, held in its first two bytes.
func moreCount(more string) int {
	if more == "" {
		return 0
	}
	return int(more[0]) | int(more[1])<<8
}

// moreFind returns the index of the record of slot s in more, or where it
// would go, and whether it is there.
func moreFind(more string, s SlotID) (int, bool) {
	lo, hi := 0, moreCount(more)
	for lo < hi {
		mid := (lo + hi) / 2
		id := moreID(more, mid)
		switch {
		case id == s:
			return mid, true
		case id < s:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return lo, false
}

func moreID(more string, i int) SlotID {
	o := 2 + i*moreRec
	return SlotID(uint16(more[o]) | uint16(more[o+1])<<8)
}

// moreValue decodes record i of more.
func moreValue(more string, i int) Value {
	n := moreCount(more)
	o := 2 + i*moreRec
	heap := 2 + n*moreRec
	start := 0
	if i > 0 {
		start = int(le32(more[o-4:]))
	}
	end := int(le32(more[o+11:]))
	v := Value{Kind: ValueKind(more[o+2]), Num: math.Float64frombits(le64s(more[o+3:]))}
	if end > start {
		v.Str = more[heap+start : heap+end]
	}
	return v
}

func le32(s string) uint32 {
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

func le64s(s string) uint64 {
	return uint64(le32(s)) | uint64(le32(s[4:]))<<32
}

// Slot returns the value of slot s. (Small enough to be inlined: the
// engine reads slots on every guard.)
func (c *Config) Slot(s SlotID) Value {
	if int(s) < InlineSlots {
		return c.slots[s]
	}
	return c.moreSlot(s)
}

func (c *Config) moreSlot(s SlotID) Value {
	if i, ok := moreFind(c.more, s); ok {
		return moreValue(c.more, i)
	}
	return Value{}
}

// SetSlot sets slot s to v.
func (c *Config) SetSlot(s SlotID, v Value) {
	if int(s) < InlineSlots {
		c.slots[s] = v
		return
	}
	c.setMoreSlot(s, v)
}

func (c *Config) setMoreSlot(s SlotID, v Value) {
	i, ok := moreFind(c.more, s)
	if ok && moreValue(c.more, i) == v || !ok && v == (Value{}) {
		return
	}
	c.rebuildMore(func(id SlotID, old Value) Value {
		if id == s {
			return v
		}
		return old
	}, s)
}

// SameSlots reports whether c and o hold the same value in every slot.
func (c *Config) SameSlots(o *Config) bool { return c.slots == o.slots && c.more == o.more }

// ClearSlots empties every slot.
func (c *Config) ClearSlots() {
	c.slots = [InlineSlots]Value{}
	c.more = ""
}

// rebuildMore rewrites more with f applied to every stored slot and to slot
// extra (NoID: none), which may not be stored yet.
func (c *Config) rebuildMore(f func(SlotID, Value) Value, extra SlotID) {
	n := moreCount(c.more)
	var buf [8]slotRec
	recs := buf[:0]
	added := extra == NoID || int(extra) < InlineSlots
	put := func(id SlotID, v Value) {
		if v != (Value{}) {
			recs = append(recs, slotRec{id, v})
		}
	}
	for i := 0; i < n; i++ {
		id := moreID(c.more, i)
		if !added && extra < id {
			put(extra, f(extra, Value{}))
			added = true
		}
		if id == extra {
			added = true
		}
		put(id, f(id, moreValue(c.more, i)))
	}
	if !added {
		put(extra, f(extra, Value{}))
	}
	c.more = encodeMore(recs)
}

type slotRec struct {
	id SlotID
	v  Value
}

// encodeMore encodes records sorted by id, none of them the zero Value.
func encodeMore(recs []slotRec) string {
	if len(recs) == 0 {
		return ""
	}
	size := 2 + len(recs)*moreRec
	for _, r := range recs {
		size += len(r.v.Str)
	}
	var b strings.Builder
	b.Grow(size)
	var w [moreRec]byte
	b.WriteByte(byte(len(recs)))
	b.WriteByte(byte(len(recs) >> 8))
	end := 0
	for _, r := range recs {
		end += len(r.v.Str)
		binary.LittleEndian.PutUint16(w[0:], uint16(r.id))
		w[2] = byte(r.v.Kind)
		binary.LittleEndian.PutUint64(w[3:], math.Float64bits(r.v.Num))
		binary.LittleEndian.PutUint32(w[11:], uint32(end))
		b.Write(w[:])
	}
	for _, r := range recs {
		b.WriteString(r.v.Str)
	}
	return b.String()
}

// LoadSlots sets slot i to vals[i] for every i, and empties the others, at
// the cost of one allocation at most (for the slots past InlineSlots).
func (c *Config) LoadSlots(vals []Value) {
	c.slots = [InlineSlots]Value{}
	copy(c.slots[:], vals)
	c.more = ""
	if len(vals) <= InlineSlots {
		return
	}
	var buf [8]slotRec
	recs := buf[:0]
	for i := InlineSlots; i < len(vals); i++ {
		if vals[i] != (Value{}) {
			recs = append(recs, slotRec{SlotID(i), vals[i]})
		}
	}
	c.more = encodeMore(recs)
}

// resetSlots empties the inline slots of mask (bit i: slot i) and the
// slots beyond them that keep reports false for.
func (c *Config) resetSlots(mask uint32, keep func(SlotID) bool) {
	for ; mask != 0; mask &= mask - 1 {
		c.slots[bits.TrailingZeros32(mask)] = Value{}
	}
	if c.more != "" {
		c.rebuildMore(func(id SlotID, v Value) Value {
			if keep(id) {
				return v
			}
			return Value{}
		}, NoID)
	}
}

// The fork branches' texts are held in one string too: for each region in
// order, its input and its contract, each as a length (uvarint) and bytes.
// They change only as a fork starts and as a branch returns its contract.

// BranchInput returns the input of fork branch i (its part of the fork's
// inputs slot).
func (c *Config) BranchInput(i int) string { in, _ := c.branchTexts(i); return in }

// BranchResult returns the contract fork branch i returned.
func (c *Config) BranchResult(i int) string { _, res := c.branchTexts(i); return res }

func (c *Config) branchTexts(i int) (input, result string) {
	s := c.texts
	next := func() string {
		var n, shift uint
		k := 0
		for ; ; k++ {
			n |= uint(s[k]&0x7f) << shift
			shift += 7
			if s[k] < 0x80 {
				break
			}
		}
		t := s[k+1 : k+1+int(n)]
		s = s[k+1+int(n):]
		return t
	}
	for j := 0; s != "" && j <= i; j++ {
		input, result = next(), next()
		if j == i {
			return input, result
		}
	}
	return "", ""
}

// SetBranchTexts sets the input and the contract of fork branch i.
func (c *Config) SetBranchTexts(i int, input, result string) {
	n := int(c.NBranch)
	in, res := c.branchTexts(i)
	if in == input && res == result {
		return
	}
	var b []byte
	for j := 0; j < n; j++ {
		x, y := input, result
		if j != i {
			x, y = c.branchTexts(j)
		}
		b = binary.AppendUvarint(b, uint64(len(x)))
		b = append(b, x...)
		b = binary.AppendUvarint(b, uint64(len(y)))
		b = append(b, y...)
	}
	// A configuration whose branches hold no text holds no string, so that
	// it equals one that never had a fork.
	if strings.Trim(string(b), "\x00") == "" {
		c.texts = ""
		return
	}
	c.texts = string(b)
}

// CopyFrom sets *d to *c where the machine's first n slots and c's
// regions are all that can differ from the zero Config: it copies those
// slots and regions only, which is cheaper than the whole Config when
// the machine has few.
func (d *Config) CopyFrom(c *Config, n int) {
	nb := max(d.NBranch, c.NBranch)
	d.Now, d.State, d.Waiting, d.LastSay = c.Now, c.State, c.Waiting, c.LastSay
	d.FlowDepth, d.Final, d.TimerSeq = c.FlowDepth, c.Final, c.TimerSeq
	d.Flows, d.Counters, d.Timers, d.moreTimers = c.Flows, c.Counters, c.Timers, c.moreTimers
	n = min(n, InlineSlots)
	copy(d.slots[:n], c.slots[:n])
	d.more, d.texts = c.more, c.texts
	d.NBranch, d.Finished = c.NBranch, c.Finished
	copy(d.Branches[:nb], c.Branches[:nb])
	d.Hist, d.moreHist = c.Hist, c.moreHist
}

// Texts returns the fork branches' texts in one opaque string, equal for
// equal texts, for callers that store configurations (the explorer
// interns it); SetTexts puts it back.
func (c *Config) Texts() string { return c.texts }

// SetTexts sets the fork branches' texts from what Texts returned.
func (c *Config) SetTexts(s string) { c.texts = s }

// MoreTimers returns the pending timers beyond InlineTimers in one opaque
// string, equal for equal timers, for callers that store configurations
// (the explorer's queue); SetMoreTimers puts it back.
func (c *Config) MoreTimers() string { return c.moreTimers }

// SetMoreTimers sets the timers beyond InlineTimers from what MoreTimers
// returned.
func (c *Config) SetMoreTimers(s string) { c.moreTimers = s }
