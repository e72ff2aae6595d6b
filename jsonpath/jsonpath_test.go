package jsonpath_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/jsonpath"
)

const doc = `{"replies": [{"text": "uno"}, {"image": "x.png"}, {"text": "dos"}], "values": {"nombre": "Juan", "n": 3}, "a b": true}`

var _ = Describe("Path", func() {
	var v any
	BeforeEach(func() { Expect(json.Unmarshal([]byte(doc), &v)).To(Succeed()) })

	DescribeTable("selects",
		func(path string, want []any) {
			p, err := jsonpath.Compile(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(p.Select(v)).To(Equal(want))
		},
		Entry("every reply's text, skipping those without", "$.replies[*].text", []any{"uno", "dos"}),
		Entry("the last reply", "$.replies[-1].text", []any{"dos"}),
		Entry("an index out of range", "$.replies[7]", []any(nil)),
		Entry("a member", "$.values.nombre", []any{"Juan"}),
		Entry("a quoted member", "$['a b']", []any{true}),
		Entry("every member, by name", "$.values.*", []any{float64(3), "Juan"}),
		Entry("a missing member", "$.values.email", []any(nil)),
	)

	DescribeTable("refuses",
		func(path, want string) {
			_, err := jsonpath.Compile(path)
			Expect(err).To(MatchError(want))
		},
		Entry("no root", "replies", `a JSON path starts with $, got "replies"`),
		Entry("an empty name", "$..x", `JSON path "$..x": a member name expected at byte 2`),
		Entry("an open bracket", "$.a[0", `JSON path "$.a[0": ] expected after byte 3`),
		Entry("a bad index", "$.a[x]", `JSON path "$.a[x]": an index, * or a quoted name expected in [x]`),
	)
})
