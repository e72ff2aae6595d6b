package sim_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/scxml"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// dataChart reads its events' data: inform's _event.data picks the
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
  <state id="three"/>
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

type chartScenarioCase struct {
	turns    string
	failures []string // Failure.String() without the file
}

var _ = Describe("RunChartScenario", func() {
	DescribeTable("sends events by name with data and checks the configuration as a set",
		func(c chartScenarioCase) {
			m, err := scxml.Load("m.scxml", []byte(dataChart), scxml.Options{})
			Expect(err).NotTo(HaveOccurred())
			sc, err := spec.LoadChartScenario("s.scenario.yaml", []byte("turns:\n"+c.turns), m)
			Expect(err).NotTo(HaveOccurred())
			cs := &spec.ChartSuite{Name: "data", Machine: m, Scenarios: []*spec.ChartScenario{sc}}
			r := sim.RunChartScenario(cs, sc, nil, false)
			var got []string
			for _, f := range r.Failures {
				got = append(got, f.String())
			}
			Expect(got).To(Equal(c.failures))
			if len(c.failures) == 0 {
				Expect(r.Status).To(Equal(sim.Pass))
			} else {
				Expect(r.Status).To(Equal(sim.Fail))
			}
		},
		Entry("text data reaches _event.data and the data model", chartScenarioCase{turns: `
  - event: {name: inform, data: {city: Lisbon}}
    expect: {configuration: [lisbon]}
  - event: {name: check}
    expect: {configuration: [over], done: true}
`}),
		Entry("data that reads as a number is one", chartScenarioCase{turns: `
  - event: {name: inform, data: {n: 3}}
    expect: {configuration: [three], done: false}
`}),
		Entry("data that reads as a boolean is one", chartScenarioCase{turns: `
  - event: {name: inform, data: {urgent: true}}
    expect: {configuration: [urgent]}
`}),
		Entry("other data takes no transition", chartScenarioCase{turns: `
  - event: {name: inform, data: {city: Porto, n: 4, urgent: "yes"}}
    expect: {configuration: [asking]}
`}),
		Entry("the configuration is a set: any order", chartScenarioCase{turns: `
  - event: {name: skip}
    expect: {configuration: [r1, l1], active: [both, left, right]}
  - event: {name: go}
    expect: {configuration: [over], done: true}
`}),
		Entry("a wait delivers a delayed send at its deadline", chartScenarioCase{turns: `
  - event: {name: inform, data: {urgent: true}}
  - wait: 29s
    expect: {configuration: [urgent]}
  - wait: 1s
    expect: {configuration: [over], done: true}
`}),
		Entry("a configuration that differs fails with both sets, sorted", chartScenarioCase{
			turns: `
  - event: {name: skip}
    expect: {configuration: [l1]}
`,
			failures: []string{"s.scenario.yaml:4:13: turn 1: configuration: got [l1 r1], want [l1]"}}),
		Entry("a state that is not active fails", chartScenarioCase{
			turns: `
  - event: {name: inform, data: {n: 3}}
    expect: {active: [both], done: true}
`,
			failures: []string{"s.scenario.yaml:4:23: turn 1: active: got [three], want both",
				"s.scenario.yaml:4:36: turn 1: done: got false, want true"}}),
	)

	It("counts what a scenario takes into coverage by the chart's transition ids", func() {
		m, err := scxml.Load("m.scxml", []byte(dataChart), scxml.Options{})
		Expect(err).NotTo(HaveOccurred())
		sc, err := spec.LoadChartScenario("s.scenario.yaml", []byte("turns:\n  - event: {name: skip}\n  - event: {name: go}\n"), m)
		Expect(err).NotTo(HaveOccurred())
		cov := sim.ChartCoverage(m.Chart)
		r := sim.RunChartScenario(&spec.ChartSuite{Name: "data", Machine: m}, sc, cov, false)
		Expect(r.Status).To(Equal(sim.Pass))
		var taken []string
		for id, n := range cov.Trans {
			if n > 0 {
				t := m.Chart.Transitions()[id]
				taken = append(taken, m.Chart.States[t.Source].ID+" on "+t.Events[0])
			}
		}
		// skip, go in both regions, done.state.both.
		Expect(taken).To(Equal([]string{"asking on skip", "both on done.state.both", "l1 on go", "r1 on go"}))
	})
})
