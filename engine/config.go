package engine

import (
	"math"
	"strconv"
)

// Ids are small integers; names live in the compiled Machine.
type (
	StateID   uint16
	TransID   uint16
	SlotID    uint16
	IntentID  uint16
	TimerID   uint16
	FlowID    uint16
	EntityID  uint16
	ExtID     uint16
	CounterID uint16
)

// NoID marks the absence of an id (no waiting slot, no transition).
const NoID = 0xFFFF

// Capacity of a Config. A Config stays a small fixed-size value that can be
// copied, compared with == and used as a map key, whatever the caps: the
// first InlineSlots slots are held in it, the others (rare: only machines
// with more slots have them) in an immutable encoded string, which Go
// compares by content; Build rejects machines that need more.
const (
	MaxSlots     = 1024
	InlineSlots  = 32
	MaxCounters  = 16
	MaxFlowDepth = 8
	MaxEntities  = 4
	MaxBranches  = 64
	// MaxTimers bounds the timers and delayed sends pending at once;
	// the first InlineTimers are held in Config.Timers, the others in an
	// encoded string, as slots beyond InlineSlots are (TimerAt).
	MaxTimers    = 64
	InlineTimers = 8
	// MaxHistory bounds the histories of a machine (a state's shallow and
	// deep count apart); the first InlineHistory are in Config.Hist, the
	// others in an encoded string (HistAt).
	MaxHistory    = 256
	InlineHistory = 8
)

// ValueKind says which field of a Value holds its content.
type ValueKind uint8

const (
	Empty ValueKind = iota
	Text
	Number
	Bool
)

// Value is a slot value: empty, or a text, number or boolean.
type Value struct {
	Str  string
	Num  float64
	Kind ValueKind
}

// TextValue, NumberValue and BoolValue build values.
func TextValue(s string) Value    { return Value{Str: s, Kind: Text} }
func NumberValue(n float64) Value { return Value{Num: n, Kind: Number} }
func BoolValue(b bool) Value {
	if b {
		return Value{Num: 1, Kind: Bool}
	}
	return Value{Kind: Bool}
}

// IsEmpty reports whether the value is unset.
func (v Value) IsEmpty() bool { return v.Kind == Empty }

// String renders the value as a user would write it.
func (v Value) String() string { return string(v.AppendTo(nil)) }

// AppendTo appends the rendering of v to b without allocating beyond b.
func (v Value) AppendTo(b []byte) []byte {
	switch v.Kind {
	case Text:
		return append(b, v.Str...)
	case Number:
		if v.Num == math.Trunc(v.Num) && math.Abs(v.Num) < 1e15 {
			return strconv.AppendInt(b, int64(v.Num), 10)
		}
		return strconv.AppendFloat(b, v.Num, 'g', -1, 64)
	case Bool:
		return strconv.AppendBool(b, v.Num != 0)
	}
	return b
}

// Timer is a pending timer: an absolute deadline on the virtual clock and the
// sequence number that orders timers sharing a deadline.
type Timer struct {
	Deadline int64
	Seq      uint32
	ID       TimerID
	Active   bool
}

// BranchStatus is where a region of the active parallel state is.
type BranchStatus uint8

const (
	BranchRunning BranchStatus = iota + 1
	BranchDone
	BranchFailed
)

// Branch is one region of the active parallel state (a fork's branch is
// one): its active leaf state and the external action whose result it
// awaits (NoID when none). Status is BranchDone or BranchFailed while the
// region is in a final state. A fork branch's texts (its input and the
// contract it returned) are kept apart (Config.BranchInput, BranchResult),
// so that a Branch is six bytes.
type Branch struct {
	State   StateID
	Pending ExtID
	Status  BranchStatus
	// Order is the position in which the region finished (1 = first).
	Order uint8
}

// Config is the whole state of one conversation. It is a plain value: copy
// it to keep it, compare it with ==, hash it with Hash.
type Config struct {
	// Now is the virtual time in milliseconds of the last event.
	Now int64
	// State is the active leaf state of the main machine; its ancestors
	// are implied. While a parallel state is active, State is that parallel
	// state and its regions' leaves are in Branches.
	State StateID
	// Waiting is the slot the machine is asking for, or NoID.
	Waiting SlotID
	// LastSay is the template of the last bot utterance, or NoID.
	LastSay   uint16
	FlowDepth uint8
	Final     bool
	TimerSeq  uint32
	Flows     [MaxFlowDepth]FlowID
	Counters  [MaxCounters]int32
	// Timers holds pending timers 0 to InlineTimers-1 (TimerAt gives
	// every one); moreTimers the others, active ones only.
	Timers     [InlineTimers]Timer
	moreTimers string
	// slots holds slots 0 to InlineSlots-1; more the others that are not
	// the zero Value (see Slot and SetSlot).
	slots [InlineSlots]Value
	more  string
	// texts holds the fork branches' inputs and contracts (see
	// BranchInput).
	texts string
	// NBranch is the number of regions of the active parallel state (0:
	// none); Finished counts those in a final state.
	NBranch  uint8
	Finished uint8
	Branches [MaxBranches]Branch
	// Hist is what the history of a state recorded when the state was last
	// exited: per shallow or deep history the machine uses, the id of the
	// child or atomic state that was active, plus one (0: never exited).
	// It holds histories 0 to InlineHistory-1 (HistAt gives every one);
	// moreHist the others, two bytes each.
	Hist     [InlineHistory]StateID
	moreHist string
}

// timerRec is the size of a timer beyond InlineTimers in moreTimers:
// deadline (8 bytes), sequence (4), id (2).
const timerRec = 14

// TimerSlots is how many timer positions c has: InlineTimers, and one
// per pending timer beyond them.
func (c *Config) TimerSlots() int { return InlineTimers + len(c.moreTimers)/timerRec }

// TimerAt returns timer position i (below TimerSlots); an inactive one
// is free.
func (c *Config) TimerAt(i int) Timer {
	if i < InlineTimers {
		return c.Timers[i]
	}
	o := (i - InlineTimers) * timerRec
	r := c.moreTimers[o : o+timerRec]
	return Timer{Deadline: int64(le64s(r)), Seq: le32(r[8:]), ID: TimerID(uint16(r[12]) | uint16(r[13])<<8), Active: true}
}

// setTimer puts t at position i, i == TimerSlots() adding one beyond
// the inline timers. An inactive timer beyond them is removed, which
// moves the later ones down a position: callers that go on iterating
// go backwards.
func (c *Config) setTimer(i int, t Timer) {
	if i < InlineTimers {
		c.Timers[i] = t
		return
	}
	o := (i - InlineTimers) * timerRec
	var rec string
	if t.Active {
		var b [timerRec]byte
		u := uint64(t.Deadline)
		for k := 0; k < 8; k++ {
			b[k] = byte(u >> (8 * k))
		}
		for k := 0; k < 4; k++ {
			b[8+k] = byte(t.Seq >> (8 * k))
		}
		b[12], b[13] = byte(t.ID), byte(t.ID>>8)
		rec = string(b[:])
	}
	if o >= len(c.moreTimers) {
		c.moreTimers += rec
		return
	}
	c.moreTimers = c.moreTimers[:o] + rec + c.moreTimers[o+timerRec:]
}

// freeTimer returns a free timer position (TimerSlots() when the inline
// ones are taken), or -1 when MaxTimers are pending.
func (c *Config) freeTimer() int {
	for i := range c.Timers {
		if !c.Timers[i].Active {
			return i
		}
	}
	if n := c.TimerSlots(); n < MaxTimers {
		return n
	}
	return -1
}

// HistAt returns what history i recorded (see Hist).
func (c *Config) HistAt(i int) StateID {
	if i < InlineHistory {
		return c.Hist[i]
	}
	o := (i - InlineHistory) * 2
	if o >= len(c.moreHist) {
		return 0
	}
	return StateID(uint16(c.moreHist[o]) | uint16(c.moreHist[o+1])<<8)
}

// SetHist records v for history i.
func (c *Config) SetHist(i int, v StateID) {
	if i < InlineHistory {
		c.Hist[i] = v
		return
	}
	if c.HistAt(i) == v {
		return
	}
	o := (i - InlineHistory) * 2
	b := []byte(c.moreHist)
	for len(b) < o+2 {
		b = append(b, 0)
	}
	b[o], b[o+1] = byte(v), byte(v>>8)
	c.moreHist = string(b)
}

// Awaiting returns a bit mask of the regions waiting for the result of an
// action they invoked: the results a caller may deliver next, in any order.
func (c *Config) Awaiting() uint64 {
	var mask uint64
	for i := 0; i < int(c.NBranch); i++ {
		if c.Branches[i].Pending != NoID {
			mask |= 1 << i
		}
	}
	return mask
}

// Flow returns the current (top) flow, or NoID.
func (c *Config) Flow() FlowID {
	if c.FlowDepth == 0 {
		return NoID
	}
	return c.Flows[c.FlowDepth-1]
}

// Hash returns a 64-bit FNV-1a hash of the configuration. Equal
// configurations hash equally; the explorer uses it for its visited set.
func (c *Config) Hash() uint64 {
	h := uint64(14695981039346656037)
	mix := func(x uint64) {
		for i := 0; i < 8; i++ {
			h ^= x & 0xff
			h *= 1099511628211
			x >>= 8
		}
	}
	mixs := func(s string) {
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= 1099511628211
		}
		mix(uint64(len(s)))
	}
	mix(uint64(c.Now))
	mix(uint64(c.State) | uint64(c.Waiting)<<16 | uint64(c.LastSay)<<32 | uint64(c.FlowDepth)<<48)
	if c.Final {
		mix(1)
	}
	mix(uint64(c.TimerSeq))
	for i := 0; i < int(c.FlowDepth); i++ {
		mix(uint64(c.Flows[i]))
	}
	for _, n := range c.Counters {
		mix(uint64(uint32(n)))
	}
	for _, t := range c.Timers {
		if t.Active {
			mix(uint64(t.Deadline))
			mix(uint64(t.Seq)<<16 | uint64(t.ID))
		}
	}
	mixs(c.moreTimers)
	mixs(c.moreHist)
	for i := 0; i < int(c.NBranch); i++ {
		b := &c.Branches[i]
		mix(uint64(b.State) | uint64(b.Pending)<<16 | uint64(b.Status)<<32 | uint64(b.Order)<<40)
	}
	mixs(c.texts)
	for _, h := range c.Hist {
		mix(uint64(h))
	}
	for i := range c.slots {
		v := &c.slots[i]
		mix(uint64(v.Kind))
		if v.Kind != Empty {
			mixs(v.Str)
			mix(math.Float64bits(v.Num))
		}
	}
	mixs(c.more)
	return h
}

// EventKind says what an event is.
type EventKind uint8

const (
	// UserEvent is a parsed user turn: an intent with entities.
	UserEvent EventKind = iota
	// TimerEvent fires a pending timer at its deadline.
	TimerEvent
	// DoneEvent reports that an external action succeeded.
	DoneEvent
	// FailedEvent reports that an external action failed.
	FailedEvent
)

// doneStateKind is the trigger kind of done.state.<path> transitions: an
// internal event the engine raises itself (a compound state's final child
// was entered, or every region of a parallel state is final); no caller
// sends it.
const doneStateKind EventKind = 100

var eventKindNames = [...]string{"user", "timer", "done", "failed"}

func (k EventKind) String() string { return eventKindNames[k] }

// Entity is one extracted entity (or one output of an external action).
type Entity struct {
	ID    EntityID
	Value Value
}

// Event is one input to Step. At is the virtual time in milliseconds; it may
// not go backwards.
type Event struct {
	Kind   EventKind
	Intent IntentID // UserEvent
	Timer  TimerID  // TimerEvent
	Ext    ExtID    // DoneEvent, FailedEvent
	// Branch is 0 for the main machine, i+1 for the result of an action
	// that region i of the active parallel state invoked: only that region
	// sees it.
	Branch     uint8
	At         int64
	Confidence float64
	Text       string
	// Value is the event's main value: the text mapped into a slot, or the
	// first entity. Guards and actions read it as event.value.
	Value    string
	NEnt     uint8
	Entities [MaxEntities]Entity
	// Payload, when not 0, names the data a raise or send gave the event,
	// held by the machine's Data (Data.Take) until the event is taken.
	Payload uint32
	// Source says where the event came from, for data models that tell
	// (SCXML's _event.type); Done is, for a done.state event (Source
	// SourceInternal, Intent NoID), the state that is done.
	Source EventSource
	Done   StateID
}

// EventSource is where an event came from.
type EventSource uint8

const (
	// SourceCaller: the caller stepped it (a user turn, a timer, an
	// action's result).
	SourceCaller EventSource = iota
	// SourceInternal: a raise, or a done.state event.
	SourceInternal
	// SourcePlatform: an error the engine raised (error.execution).
	SourcePlatform
	// SourceSend: a send of the machine fell due; Timer is its timer.
	SourceSend
)

// Entity returns the value of entity id and whether the event carries it.
func (e *Event) Entity(id EntityID) (Value, bool) {
	for i := 0; i < int(e.NEnt); i++ {
		if e.Entities[i].ID == id {
			return e.Entities[i].Value, true
		}
	}
	return Value{}, false
}

// AddEntity appends an entity; extra entities beyond MaxEntities are dropped.
func (e *Event) AddEntity(id EntityID, v Value) {
	if int(e.NEnt) < MaxEntities {
		e.Entities[e.NEnt] = Entity{ID: id, Value: v}
		e.NEnt++
	}
}
