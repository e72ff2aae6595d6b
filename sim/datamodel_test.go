package sim_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"os"
	"path/filepath"
	"strings"

	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// dataChart, an SCXML chart with the ECMAScript data model, reads its
// events' data: inform's _event.data picks the
// target; skip enters a parallel state of two regions that go completes
// together; urgent sends itself a delayed escalate.
const dataChart = `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript" initial="asking">
  <datamodel><data id="city" expr="''"/></datamodel>
  <state id="asking">
    <transition event="inform" cond="_event.data.city === 'Lisbon'" target="lisbon">
      <assign location="city" expr="_event.data.city"/>
    </transition>
    <transition event="inform" cond="_event.data.n === 3" target="three"/>
    <transition event="inform" cond="_event.data.urgent === true" target="urgent"/>
    <transition event="skip" target="both"/>
  </state>
  <state id="lisbon">
    <transition event="check" cond="city === 'Lisbon'" target="over"/>
  </state>
  <state id="three"><transition event="check" target="over"/></state>
  <state id="urgent">
    <onentry><send event="escalate" delay="30s"/></onentry>
    <transition event="escalate" target="over"/>
  </state>
  <parallel id="both">
    <state id="left">
      <state id="l1"><transition event="go" target="l2"/></state>
      <final id="l2"/>
    </state>
    <state id="right">
      <state id="r1"><transition event="go" target="r2"/></state>
      <final id="r2"/>
    </state>
    <transition event="done.state.both" target="over"/>
  </parallel>
  <final id="over"/>
</scxml>`

type scenarioCase struct {
	turns    string
	failures []string // Failure.String() without the file
}

// An SCXML suite runs on the engine as any suite: its scenarios send
// events by name with their data (_event.data) and may expect the
// configuration, the active states and done.
var _ = Describe("RunScenario on an SCXML suite", func() {
	DescribeTable("sends events by name with data and checks the configuration as a set",
		func(c scenarioCase) {
			dir := GinkgoT().TempDir()
			Expect(os.WriteFile(filepath.Join(dir, "machine.scxml"), []byte(dataChart), 0o644)).To(Succeed())
			file := filepath.Join(dir, "s.scenario.yaml")
			Expect(os.WriteFile(file, []byte("turns:\n"+c.turns), 0o644)).To(Succeed())
			s, err := spec.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			r := sim.RunScenario(s, s.Scenarios[0], sim.Options{})
			var got []string
			for _, f := range r.Failures {
				got = append(got, strings.TrimPrefix(f.String(), dir+string(filepath.Separator)))
			}
			Expect(got).To(Equal(c.failures))
			Expect(r.Violations).To(BeEmpty())
			if len(c.failures) == 0 {
				Expect(r.Status).To(Equal(sim.Pass))
			} else {
				Expect(r.Status).To(Equal(sim.Fail))
			}
		},
		Entry("text data reaches _event.data and the data model", scenarioCase{turns: `
  - event: {name: inform, data: {city: Lisbon}}
    expect: {configuration: [lisbon]}
  - event: {name: check}
    expect: {configuration: [over], done: true}
`}),
		Entry("data that reads as a number is one", scenarioCase{turns: `
  - event: {name: inform, data: {n: 3}}
    expect: {configuration: [three], done: false}
`}),
		Entry("data that reads as a boolean is one", scenarioCase{turns: `
  - event: {name: inform, data: {urgent: true}}
    expect: {configuration: [urgent]}
`}),
		Entry("other data takes no transition", scenarioCase{turns: `
  - event: {name: inform, data: {city: Porto, n: 4, urgent: "yes"}}
    expect: {configuration: [asking]}
`}),
		Entry("the configuration is a set: any order", scenarioCase{turns: `
  - event: {name: skip}
    expect: {configuration: [r1, l1], active: [both, left, right]}
  - event: {name: go}
    expect: {configuration: [over], done: true}
`}),
		Entry("a wait delivers a delayed send at its deadline", scenarioCase{turns: `
  - event: {name: inform, data: {urgent: true}}
  - wait: 29s
    expect: {configuration: [urgent]}
  - wait: 1s
    expect: {configuration: [over], done: true}
`}),
		Entry("a configuration that differs fails with both sets, sorted", scenarioCase{
			turns: `
  - event: {name: skip}
    expect: {configuration: [l1]}
`,
			failures: []string{"s.scenario.yaml:4:13: turn 1: configuration: got [l1 r1], want [l1]"}}),
		Entry("a state that is not active fails", scenarioCase{
			turns: `
  - event: {name: inform, data: {n: 3}}
    expect: {active: [both], done: true}
`,
			failures: []string{"s.scenario.yaml:4:23: turn 1: active: got [three], want both",
				"s.scenario.yaml:4:36: turn 1: done: got false, want true"}}),
	)

})
