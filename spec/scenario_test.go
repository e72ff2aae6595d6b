package spec_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/spec"
)

var _ = Describe("LoadScenario", func() {
	var suite *spec.Suite

	BeforeEach(func() {
		var err error
		suite, err = spec.LoadMachine("machine.yaml", []byte("machine: m\ninitial: a\nintents: [hi]\nstates:\n  a: {on: {hi: a}}\n"))
		Expect(err).NotTo(HaveOccurred())
	})

	It("reports a negative max_turns at its value", func() {
		_, err := spec.LoadScenario("x.scenario.yaml", []byte("max_turns: -1\nturns:\n  - user: hi\n"), suite.Machine, suite.Tags, nil)
		Expect(err).To(MatchError("x.scenario.yaml:1:12: max_turns must not be negative"))
	})
})
