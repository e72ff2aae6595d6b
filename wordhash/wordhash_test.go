package wordhash_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/wordhash"
)

func strSum(s string) uint64 {
	var h wordhash.Hash
	h.Str(s)
	return h.Sum()
}

var _ = Describe("Hash", func() {
	It("hashes a string as its length, then its bytes eight at a time, little endian, the last word zero-padded", func() {
		var h wordhash.Hash
		h.Word(10)
		h.Word(0x3837363534333231) // "12345678"
		h.Word(0x3039)             // "90"
		Expect(strSum("1234567890")).To(Equal(h.Sum()))
	})

	DescribeTable("tells apart strings a plain concatenation of words would not",
		func(a, b string) { Expect(strSum(a)).NotTo(Equal(strSum(b))) },
		Entry("a trailing NUL", "ab", "ab\x00"),
		Entry("the empty string and one NUL", "", "\x00"),
		Entry("one byte apart", "confirming", "confirminh"),
	)
})
