package explore_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/scxml"
)

func loadChart(name string) *scxml.Machine {
	m, err := scxml.LoadFile("testdata/charts/"+name, scxml.Options{})
	Expect(err).NotTo(HaveOccurred())
	return m
}

func steps(names ...string) []explore.ChartStep {
	out := make([]explore.ChartStep, len(names))
	for i, n := range names {
		out[i] = explore.ChartStep{Event: n, Wait: n == "wait"}
	}
	return out
}

var _ = Describe("Chart", func() {
	It("reports a stuck region of a parallel state with its shortest path", func() {
		res := explore.Chart(loadChart("stuck.scxml"), explore.ChartOptions{})
		Expect(res.Complete).To(BeTrue())
		Expect(res.Alphabet).To(Equal([]string{"answer", "ask", "docs.failed", "docs.result", "web.failed", "web.result"}))
		Expect(res.Findings).To(Equal([]explore.ChartFinding{{
			Kind:   "dead_end",
			Active: []string{"web_done", "docs_waiting_quota"},
			Msg:    "no event changes this configuration and nothing is delayed",
			Path:   steps("ask", "docs.failed", "web.failed"),
		}, {
			Kind:   "stuck_region",
			Active: []string{"web_searching", "docs_waiting_quota"},
			Msg:    "parallel state research can never complete: region docs cannot reach its final state, and no transition leaves research",
			Path:   steps("ask", "docs.failed"),
		}}))
	})

	It("passes the same machine without the flaw", func() {
		res := explore.Chart(loadChart("fixed.scxml"), explore.ChartOptions{})
		Expect(res.Complete).To(BeTrue())
		Expect(res.Findings).To(BeEmpty())
		Expect(res.Unreached).To(BeEmpty())
		Expect(res.Covered).To(Equal(res.Total))
		// idle; web (searching, done) x docs (searching, waiting, done)
		// less done/done, which completes at once; synthesis; answered.
		Expect(res.Distinct).To(Equal(8))
	})

	It("stops at the depth bound without findings from the bound", func() {
		res := explore.Chart(loadChart("stuck.scxml"), explore.ChartOptions{Depth: 1})
		Expect(res.Complete).To(BeFalse())
		Expect(res.Findings).To(BeEmpty())
	})
})

var _ = Describe("Chart on a chart that does not settle", func() {
	It("reports the halt with its shortest path", func() {
		m, err := scxml.Load("loop.scxml", []byte(`<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="null">
			<state id="a"><transition event="go" target="b"/></state>
			<state id="b"><transition target="c"/></state><state id="c"><transition target="b"/></state></scxml>`), scxml.Options{})
		Expect(err).NotTo(HaveOccurred())
		res := explore.Chart(m, explore.ChartOptions{})
		Expect(res.Findings).NotTo(BeEmpty())
		Expect(res.Findings[0].Kind).To(Equal("halted"))
		Expect(res.Findings[0].Path).To(Equal(steps("go")))
	})
})
