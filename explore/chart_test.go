package explore_test

import (
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/scxml"
	"github.com/simctl/simctl/spec"
)

func loadChart(name string) *scxml.Machine {
	m, err := spec.LoadChart("testdata/charts/" + name)
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

	It("finds a region stuck behind cancel and timeout escapes, and a delayed send left pending (pizza.scxml)", func() {
		res := explore.Chart(loadChart("pizza.scxml"), explore.ChartOptions{})
		Expect(res.Complete).To(BeTrue())
		var kinds []string
		for _, f := range res.Findings {
			kinds = append(kinds, f.Kind)
		}
		Expect(kinds).To(Equal([]string{"stuck", "leaked_timer"}))
		Expect(res.Findings[0]).To(Equal(explore.ChartFinding{
			Kind:   "stuck",
			Active: []string{"charging", "waiting_stock"},
			Msg:    "a top-level final state can be reached from here only through an escape (cancel, session.timeout, the delayed session.timeout): the task cannot complete by itself",
			Path:   steps("add.cheese", "checkout", "stock.unknown"),
		}))
		Expect(res.Findings[1]).To(Equal(explore.ChartFinding{
			Kind:   "leaked_timer",
			Active: []string{"confirmed"},
			Msg:    "delayed event session.timeout fell due in confirmed and no active state took it, although a transition of the chart handles it: it was sent, then left pending when the states that handle it were exited (a <cancel> missing from an <onexit>)",
			Path:   []explore.ChartStep{{Event: "add.cheese"}, {Event: "checkout"}, {Event: "card.ok"}, {Event: "stock.ok"}, {Wait: true, MS: 300000}},
		}))
	})

	It("steps from stored configurations as replaying every path from the start does", func() {
		// A function in a variable cannot be stored as plain data, so
		// that chart is explored by replaying each path on a fresh
		// session: the reference the stored configurations must match.
		for _, name := range []string{"pizza.scxml", "order.scxml"} {
			src, err := os.ReadFile("testdata/charts/" + name)
			Expect(err).NotTo(HaveOccurred())
			replayed := strings.Replace(string(src), "<datamodel>", `<datamodel><data id="f" expr="function () { return 1 }"/>`, 1)
			m, err := scxml.Load(name, []byte(replayed), scxml.Options{})
			Expect(err).NotTo(HaveOccurred())
			opt := explore.ChartOptions{MaxStates: 400}
			want := explore.Chart(m, opt)
			got := explore.Chart(loadChart(name), opt)
			Expect(got.Distinct).To(Equal(want.Distinct), name)
			Expect(got.Generated).To(Equal(want.Generated), name)
			Expect(got.Findings).To(Equal(want.Findings), name)
			Expect(got.Coverage).To(Equal(want.Coverage), name)
		}
	})

	It("stops when Stop says so, without findings from stopping", func() {
		res := explore.Chart(loadChart("stuck.scxml"), explore.ChartOptions{Stop: func() bool { return true }})
		Expect(res.Interrupted).To(BeTrue())
		Expect(res.Complete).To(BeFalse())
		Expect(res.Findings).To(BeEmpty())
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

// race is a parallel state whose second region reads the first (In()):
// when a arrives before b, region right moves to lost, from which it can
// only go round between lost and lost_again; b before a completes.
const race = `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="null" initial="p">
  <parallel id="p">
    <state id="left">
      <state id="a1"><transition event="a" target="a_done"/></state>
      <final id="a_done"/>
    </state>
    <state id="right">
      <state id="b1">
        <transition event="b" cond="In('a1')" target="b_done"/>
        <transition event="b" cond="In('a_done')" target="lost"/>
      </state>
      <state id="lost"><transition event="retry" target="lost_again"/></state>
      <state id="lost_again"><transition event="retry" target="lost"/></state>
      <final id="b_done"/>
    </state>
    <transition event="done.state.p" target="over"/>
  </parallel>
  <final id="over"/>
</scxml>`

func loadSource(src string) *scxml.Machine {
	m, err := scxml.Load("m.scxml", []byte(src), scxml.Options{})
	Expect(err).NotTo(HaveOccurred())
	return m
}

var _ = Describe("Chart's interleavings and findings", func() {
	It("explores both orders of two regions' events and reports the one that strands a region", func() {
		// Once a has come first, b can only take right to lost: the
		// shortest path is the first configuration the region cannot
		// complete from, not the one where it moves there.
		res := explore.Chart(loadSource(race), explore.ChartOptions{})
		Expect(res.Complete).To(BeTrue())
		// a1·b1, a_done·b1, a1·b_done (b first), a_done·lost,
		// a_done·lost_again, over: b then a completes.
		Expect(res.Distinct).To(Equal(6))
		Expect(res.Findings).To(Equal([]explore.ChartFinding{{
			Kind:   "stuck_region",
			Active: []string{"a_done", "b1"},
			Msg:    "parallel state p can never complete: region right cannot reach its final state, and no transition leaves p",
			Path:   steps("a"),
		}}), "a stuck region that keeps moving is no dead end, and it explains the livelock")
		Expect(res.Unreached).To(BeEmpty())
	})

	It("passes the race without its flaw", func() {
		fixed := strings.Replace(race, `<transition event="b" cond="In('a_done')" target="lost"/>`, `<transition event="b" target="b_done"/>`, 1)
		res := explore.Chart(loadSource(fixed), explore.ChartOptions{})
		Expect(res.Complete).To(BeTrue())
		Expect(res.Findings).To(BeEmpty())
	})

	It("reports a livelock outside parallel states with its shortest path", func() {
		res := explore.Chart(loadSource(`<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="null" initial="start">
  <state id="start">
    <transition event="go" target="ping"/>
    <transition event="end" target="over"/>
  </state>
  <state id="ping"><transition event="tick" target="pong"/></state>
  <state id="pong"><transition event="tick" target="ping"/></state>
  <final id="over"/>
</scxml>`), explore.ChartOptions{})
		Expect(res.Findings).To(Equal([]explore.ChartFinding{{
			Kind: "livelock", Active: []string{"ping"}, Msg: "no top-level final state can be reached from here", Path: steps("go"),
		}}))
	})
})
