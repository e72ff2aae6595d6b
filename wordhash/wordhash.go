// Package wordhash is the 64-bit hash the explorer's fingerprints and the
// ECMAScript data model's heap hashes are built from: words mixed in one
// at a time, cheap enough for a search's hot path and free of
// allocation, with murmur3's finaliser at the end.
package wordhash

// Hash mixes 64-bit words: each is xored in, then multiplied and
// xor-shifted (a bijection, so two words after the same prefix differ).
type Hash uint64

// Word mixes w in.
func (h *Hash) Word(w uint64) {
	x := uint64(*h) ^ w
	x *= 0xbf58476d1ce4e5b9
	*h = Hash(x ^ x>>31)
}

// Str mixes in s's length, then its bytes eight at a time (little
// endian), the last partial word zero-padded.
func (h *Hash) Str(s string) {
	h.Word(uint64(len(s)))
	for len(s) >= 8 {
		h.Word(uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56)
		s = s[8:]
	}
	var w uint64
	for i := 0; i < len(s); i++ {
		w |= uint64(s[i]) << (8 * i)
	}
	h.Word(w)
}

// Sum finishes the hash (murmur3's fmix64).
func (h Hash) Sum() uint64 {
	x := uint64(h)
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	return x ^ x>>33
}
