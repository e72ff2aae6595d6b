// Package shorttext looks short texts up with integer comparisons: a
// text of 1 to Max bytes is read as two little-endian words (Words) that,
// with its length, are the text, and a Table keeps such keys in an
// open-addressed table, most often found or refused in one probe, with no
// pass over a stored text. The stub NLU's exact phrases (lower-cased word
// by word) and the one_of validators are looked up with it on every turn.
package shorttext

// Max is the length in bytes up to which two words hold a text.
const Max = 16

// Words reads text s of 1 to Max bytes as two little-endian words: its
// first and last eight bytes (four when it is shorter than eight), which
// overlap when it is shorter than sixteen, or its bytes one by one in lo
// when it is shorter than four. With the length they give back the text.
func Words(s string) (lo, hi uint64) {
	switch n := len(s); {
	case n >= 8:
		lo, hi = Load8(s, 0), Load8(s, n-8)
	case n >= 4:
		lo, hi = load4(s, 0), load4(s, n-4)
	default:
		for i := 0; i < n; i++ {
			lo |= uint64(s[i]) << (8 * i)
		}
	}
	return lo, hi
}

// Load8 reads s[i:i+8] as a little-endian word, which the compiler makes
// one load.
func Load8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

func load4(s string, i int) uint64 {
	_ = s[i+3]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24
}

// Table maps the keys of distinct short texts to values. Make one with
// NewTable: Find is small enough to be inlined, and checks for no zero
// Table.
type Table struct {
	e []entry // a power of two of them, at most a quarter used
}

// entry is a key; n is 0 in a free one.
type entry struct {
	lo, hi uint64
	n      int32
	v      int32
}

// NewTable returns a table for n keys: four times as many entries, so
// that a key it does not hold most often meets a free one at once.
func NewTable(n int) Table {
	size := 2
	for size < 4*n {
		size *= 2
	}
	return Table{e: make([]entry, size)}
}

// slot is where the probe for a key starts, before masking.
func slot(lo, hi uint64, n int) int {
	return int((lo^hi*0x9e3779b97f4a7c15^uint64(n))*0xbf58476d1ce4e5b9) >> 40
}

// Add maps the key of a text of n bytes (1 to Max) to v. The table must
// have been made for at least as many keys, and not hold this one.
func (t *Table) Add(lo, hi uint64, n, v int) {
	mask := len(t.e) - 1
	i := slot(lo, hi, n) & mask
	for t.e[i].n != 0 {
		i = (i + 1) & mask
	}
	t.e[i] = entry{lo: lo, hi: hi, n: int32(n), v: int32(v)}
}

// Find returns the value of the key of a text of n bytes (1 to Max).
func (t *Table) Find(lo, hi uint64, n int) (int, bool) {
	mask := len(t.e) - 1
	for i := slot(lo, hi, n) & mask; ; i = (i + 1) & mask {
		p := &t.e[i]
		if p.n == 0 {
			return 0, false
		}
		if p.lo == lo && p.hi == hi && int(p.n) == n {
			return int(p.v), true
		}
	}
}

// HighBits has the top bit of every byte of a word set.
const HighBits = 0x8080808080808080

// LowerASCII lower-cases the eight ASCII bytes of w: a byte from A to Z
// gains 0x20. Adding 0x80-'A' (0x80-'Z'-1) to a byte below 0x80 sets its
// top bit when it is at least 'A' (past 'Z'), with no carry into the next.
func LowerASCII(w uint64) uint64 {
	const ones = 0x0101010101010101
	geA := w + (0x80-'A')*ones
	gtZ := w + (0x80-'Z'-1)*ones
	return w | (geA&^gtZ&HighBits)>>2
}
