package shorttext_test

import (
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/shorttext"
)

var _ = Describe("Words", func() {
	DescribeTable("reads a text as its first and last bytes, little endian",
		func(s string, lo, hi uint64) {
			gotLo, gotHi := shorttext.Words(s)
			Expect([2]uint64{gotLo, gotHi}).To(Equal([2]uint64{lo, hi}))
		},
		Entry("one byte", "a", uint64(0x61), uint64(0)),
		Entry("three bytes, one by one", "abc", uint64(0x636261), uint64(0)),
		Entry("four bytes, twice", "abcd", uint64(0x64636261), uint64(0x64636261)),
		Entry("six bytes, overlapping", "abcdef", uint64(0x64636261), uint64(0x66656463)),
		Entry("nine bytes, overlapping", "123456789", uint64(0x3837363534333231), uint64(0x3938373635343332)),
		Entry("sixteen bytes, apart", "12345678abcdefgh", uint64(0x3837363534333231), uint64(0x6867666564636261)),
	)
})

var _ = Describe("Table", func() {
	It("finds every text it holds and no other, whatever their lengths", func() {
		rnd := rand.New(rand.NewPCG(20261127, 2))
		text := func() string {
			b := make([]byte, 1+rnd.IntN(shorttext.Max))
			for i := range b {
				b[i] = "ab\x00\xff"[rnd.IntN(4)]
			}
			return string(b)
		}
		held := map[string]int{}
		for len(held) < 300 {
			if s := text(); held[s] == 0 {
				held[s] = len(held) + 1
			}
		}
		t := shorttext.NewTable(len(held))
		for s, v := range held {
			lo, hi := shorttext.Words(s)
			t.Add(lo, hi, len(s), v)
		}
		for k := 0; k < 20000; k++ {
			s := text()
			lo, hi := shorttext.Words(s)
			v, ok := t.Find(lo, hi, len(s))
			Expect(ok).To(Equal(held[s] != 0), "%q", s)
			Expect(v).To(Equal(held[s]), "%q", s)
		}
	})

	It("holds nothing when made for nothing", func() {
		t := shorttext.NewTable(0)
		_, ok := t.Find(0x61, 0, 1)
		Expect(ok).To(BeFalse())
	})
})
