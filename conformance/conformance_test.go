package conformance_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/conformance"
)

// testdata/suite mimics the test framework's layout with tests of our own:
// SCION-style scripts checked configuration by configuration, W3C-style
// tests that must stop in "pass" on the virtual clock, loaded as simctl
// run loads a machine.scxml.
var _ = Describe("RunDir", func() {
	It("runs each test and gives every non-pass a reason", func() {
		rs, err := conformance.RunDir("testdata/suite")
		Expect(err).NotTo(HaveOccurred())
		Expect(rs).To(Equal([]conformance.Result{
			{Group: "basic", Test: "delayed", Result: "pass"},
			{Group: "basic", Test: "wrong", Result: "fail", Reason: "after event 1 (t): got [b], want [a]"},
			{Group: "w3c-ecma", Test: "test1.txml", Result: "pass"},
			// A document that loads but that the engine cannot build fails.
			{Group: "w3c-ecma", Test: "test10.txml", Result: "fail", Reason: `build: testdata/suite/w3c-ecma/test10.txml.scxml:1:85: parallel state "p" has 65 regions, more than 64`},
			{Group: "w3c-ecma", Test: "test2.txml", Result: "pass"},
			{Group: "w3c-ecma", Test: "test3.txml", Result: "unsupported", Reason: "1:100: <invoke> is not supported"},
			// An expression that does not compile and a send type no
			// processor has load, and raise error.execution when run.
			{Group: "w3c-ecma", Test: "test4.txml", Result: "pass"},
			{Group: "w3c-ecma", Test: "test5.txml", Result: "pass"},
			// Nothing leads to pass: rejecting the document is the pass.
			{Group: "w3c-ecma", Test: "test6.txml", Result: "pass", Reason: `rejected, and no transition of the document reaches pass: 1:85: src "missing.js": cannot read src file: no such file or directory`},
			// A document that should load and is rejected fails.
			{Group: "w3c-ecma", Test: "test7.txml", Result: "fail", Reason: `load: 1:100: target "nowhere" is not a state`},
			{Group: "w3c-ecma", Test: "test8sub1", Result: "unsupported", Reason: "no pass state to reach: a manual test, or a document another test invokes"},
			// A target inside a parallel state nested in another's
			// region, from that other's other region.
			{Group: "w3c-ecma", Test: "test9.txml", Result: "pass"},
		}))
		Expect(conformance.Count(rs)).To(Equal([]conformance.Tally{
			{Group: "basic", Pass: 1, Fail: 1},
			{Group: "w3c-ecma", Pass: 6, Fail: 2, Unsupported: 2},
			{Group: "total", Pass: 7, Fail: 3, Unsupported: 2},
		}))
	})
})
