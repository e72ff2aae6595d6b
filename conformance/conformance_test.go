package conformance_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/conformance"
)

// testdata/suite mimics the test framework's layout with tests of our own:
// SCION-style scripts checked configuration by configuration, W3C-style
// tests that must stop in "pass" on the virtual clock.
var _ = Describe("RunDir", func() {
	It("runs each test and gives every non-pass a reason", func() {
		rs, err := conformance.RunDir("testdata/suite")
		Expect(err).NotTo(HaveOccurred())
		Expect(rs).To(Equal([]conformance.Result{
			{Group: "basic", Test: "delayed", Result: "pass"},
			{Group: "basic", Test: "wrong", Result: "fail", Reason: "after event 1 (t): got [b], want [a]"},
			{Group: "w3c-ecma", Test: "test1.txml", Result: "pass"},
			{Group: "w3c-ecma", Test: "test2.txml", Result: "pass"},
			{Group: "w3c-ecma", Test: "test3.txml", Result: "unsupported", Reason: "1:100: <invoke> is not supported"},
		}))
		Expect(conformance.Count(rs)).To(Equal([]conformance.Tally{
			{Group: "basic", Pass: 1, Fail: 1},
			{Group: "w3c-ecma", Pass: 2, Unsupported: 1},
			{Group: "total", Pass: 3, Fail: 1, Unsupported: 1},
		}))
	})
})
