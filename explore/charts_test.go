package explore_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/scxml"
	"github.com/simctl/simctl/spec"
)

// SCXML charts are explored by the one search YAML suites have: compiled
// onto the engine (scxml.Machine.Definition), their ECMAScript data kept
// beside each stored configuration, every built-in finding judged alike.

// raceSrc is a parallel state whose second region reads the first (In()):
// when a arrives before b, region right moves to lost, from which it can
// only go round between lost and lost_again; b before a completes.
const raceSrc = `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="null" initial="p">
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

// pingPong goes round for ever once go is taken.
const pingPong = `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="null" initial="start">
  <state id="start">
    <transition event="go" target="ping"/>
    <transition event="end" target="over"/>
  </state>
  <state id="ping"><transition event="tick" target="pong"/></state>
  <state id="pong"><transition event="tick" target="ping"/></state>
  <final id="over"/>
</scxml>`

// unsettled never settles once go is taken: its eventless transitions go
// round.
const unsettled = `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="null">
  <state id="a"><transition event="go" target="b"/></state>
  <state id="b"><transition target="c"/></state>
  <state id="c"><transition target="b"/></state>
</scxml>`

// chart makes a suite of a chart file under testdata/charts, or of SCXML
// text.
func chart(nameOrSrc string) *spec.Suite {
	GinkgoHelper()
	if !strings.HasPrefix(nameOrSrc, "<") {
		return chartSuiteOf(GinkgoT(), filepath.Join("testdata", "charts", nameOrSrc))
	}
	cm, err := scxml.Load("chart.scxml", []byte(nameOrSrc), scxml.Options{})
	Expect(err).NotTo(HaveOccurred())
	return chartSuite(GinkgoT(), cm, "chart", GinkgoT().TempDir())
}

// findingIn returns res's finding of kind whose state is in, or nil.
func findingIn(res *explore.Result, kind, in string) *explore.Finding {
	for i := range res.Findings {
		if f := &res.Findings[i]; f.Kind == kind && (in == "" || f.Violation.State == in) {
			return f
		}
	}
	return nil
}

var _ = Describe("Explore on SCXML charts", func() {
	type found struct {
		chart, kind, in string
		path            []string
		msg             string
	}
	DescribeTable("finds every built-in finding with its shortest path",
		func(c found) {
			res := search(chart(c.chart), explore.Options{Depth: 50})
			Expect(res.Complete).To(BeTrue())
			f := findingIn(res, c.kind, c.in)
			Expect(f).NotTo(BeNil(), "findings: %v", kinds(res))
			Expect(res.PathEvents(f.Node)).To(Equal(c.path))
			Expect(f.Violation.Msg).To(ContainSubstring(c.msg))
		},
		Entry("a region stuck behind cancel and the session timeout (pizza)", found{chart: "pizza.scxml", kind: explore.Stuck,
			path: []string{"add.cheese", "checkout", "stock.unknown"},
			msg:  "the task can end only through an escape (cancel, session.timeout, timer:send.session.timeout#session)"}),
		Entry("a delayed send left pending when its states were exited (pizza)", found{chart: "pizza.scxml", kind: "leaked_timer", in: "confirmed",
			path: []string{"add.cheese", "checkout", "card.ok", "stock.ok", "wait 300000ms (send.session.timeout#session)"},
			msg:  "timer send.session.timeout#session fell due at 300000ms in confirmed, which does not handle it"}),
		Entry("a dead end", found{chart: "stuck.scxml", kind: "dead_end",
			path: []string{"ask", "docs.failed", "web.failed"}, msg: "research is not final"}),
		Entry("a stuck region", found{chart: "stuck.scxml", kind: explore.StuckRegion,
			path: []string{"ask", "docs.failed"},
			msg:  "parallel state research can never complete: region research.docs cannot reach its final state, and no transition leaves research"}),
		Entry("a region stranded by the order of two regions' events", found{chart: raceSrc, kind: explore.StuckRegion,
			path: []string{"a"}, msg: "region p.right cannot reach its final state"}),
		Entry("a livelock", found{chart: pingPong, kind: "livelock",
			path: []string{"go"}, msg: "no final or idle state can be reached"}),
		Entry("a runtime error: eventless transitions that do not settle", found{chart: unsettled, kind: "runtime_error",
			path: []string{"go"}, msg: "eventless transitions did not settle"}),
	)

	It("passes the chart without the flaws, covering every transition", func() {
		res := search(chart("fixed.scxml"), explore.Options{Depth: 50})
		Expect(res.Complete).To(BeTrue())
		Expect(res.Findings).To(BeEmpty())
		// idle; web (searching, done) x docs (searching, waiting, done)
		// less done/done, which completes at once; synthesis; answered.
		Expect(res.Distinct).To(Equal(8))
		n, total := res.Covered()
		Expect(n).To(Equal(total))
	})

	It("passes the race without its flaw", func() {
		fixed := strings.Replace(raceSrc, `<transition event="b" cond="In('a_done')" target="lost"/>`, `<transition event="b" target="b_done"/>`, 1)
		res := search(chart(fixed), explore.Options{Depth: 50})
		Expect(res.Complete).To(BeTrue())
		Expect(res.Findings).To(BeEmpty())
	})

	It("offers the events the chart's transitions name, bare, and no platform event", func() {
		res := search(chart("stuck.scxml"), explore.Options{Depth: 50})
		var names []string
		for _, t := range res.AlphabetTurns() {
			names = append(names, strings.TrimSpace(t))
		}
		Expect(names).To(Equal([]string{`- event: {intent: "answer"}`, `- event: {intent: "ask"}`, `- event: {intent: "docs.failed"}`,
			`- event: {intent: "docs.result"}`, `- event: {intent: "web.failed"}`, `- event: {intent: "web.result"}`}))
	})

	It("offers the events the suite's scenarios send, with their data", func() {
		s := chart(`<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript" initial="a">
  <state id="a">
    <transition event="pick" cond="_event.data &amp;&amp; _event.data.size == 'l'" target="large"/>
    <transition event="pick" target="small"/>
  </state>
  <final id="large"/><final id="small"/>
</scxml>`)
		// Without a scenario, pick comes bare: large is never reached.
		res := search(s, explore.Options{Depth: 5})
		Expect(res.Coverage.States[stateID(res, "large")]).To(BeZero())
		s.Scenarios = []*spec.Scenario{{Name: "large", Turns: []spec.Turn{{Event: &spec.EventSpec{Intent: spec.Str{Value: "pick"}, Value: `{"size": "l"}`}}}}}
		res = search(s, explore.Options{Depth: 5})
		Expect(res.Coverage.States[stateID(res, "large")]).NotTo(BeZero())
		Expect(res.AlphabetTurns()).To(ContainElement("  - event: {intent: \"pick\", value: \"{\\\"size\\\": \\\"l\\\"}\"}\n"))
	})

	It("reports no finding of a search the depth bound stopped", func() {
		res := search(chart("stuck.scxml"), explore.Options{Depth: 1})
		Expect(res.Complete).To(BeFalse())
		Expect(res.Findings).To(BeEmpty())
	})

	It("steps from stored configurations as replaying every path from the start does", func() {
		// A function in a variable cannot be saved as plain data, so
		// that chart's configurations are rebuilt by replaying their
		// paths on a fresh heap: the reference the stored ones must
		// match.
		for _, name := range []string{"pizza.scxml", "order.scxml", "heap.scxml", "mirror.scxml", "declare.scxml"} {
			src, err := os.ReadFile(filepath.Join("testdata", "charts", name))
			Expect(err).NotTo(HaveOccurred())
			replayed := strings.Replace(string(src), "<datamodel>", `<datamodel><data id="f" expr="function () { return 1 }"/>`, 1)
			opts := explore.Options{Depth: 50, MaxStates: 400}
			want := search(chart(replayed), opts)
			got := search(chart(name), opts)
			Expect(got.Distinct).To(Equal(want.Distinct), name)
			Expect(got.Generated).To(Equal(want.Generated), name)
			Expect(kindsInOrder(got)).To(Equal(kindsInOrder(want)), name)
			for i, f := range got.Findings {
				Expect(got.PathEvents(f.Node)).To(Equal(want.PathEvents(want.Findings[i].Node)), name)
			}
			for _, c := range [][2][]int64{{got.Coverage.Trans, want.Coverage.Trans}, {got.Coverage.States, want.Coverage.States},
				{got.Coverage.GuardTrue, want.Coverage.GuardTrue}, {got.Coverage.GuardFalse, want.Coverage.GuardFalse}} {
				Expect(c[0]).To(Equal(c[1]), name)
			}
		}
	})

	It("stores data holding undefined, and steps from it as replaying does", func() {
		src, err := os.ReadFile(filepath.Join("testdata", "charts", "order.scxml"))
		Expect(err).NotTo(HaveOccurred())
		withUndefined := strings.Replace(string(src), "</datamodel>", `<data id="note" expr="{text: undefined, seen: [undefined]}"/></datamodel>`, 1)
		s := chart(withUndefined)
		m := s.Variants[0].Machine
		d := m.NewData("spec")
		var c engine.Config
		var r engine.Result
		Expect(m.StartWith(&c, d, 0, &r)).To(Succeed())
		_, ok := d.Save()
		Expect(ok).To(BeTrue())
		replayed := strings.Replace(withUndefined, "<datamodel>", `<datamodel><data id="f" expr="function () { return 1 }"/>`, 1)
		opts := explore.Options{Depth: 50, MaxStates: 300}
		got, want := search(s, opts), search(chart(replayed), opts)
		Expect(got.Distinct).To(Equal(want.Distinct))
		Expect(got.Generated).To(Equal(want.Generated))
		Expect(got.Coverage.Trans).To(Equal(want.Coverage.Trans))
	})

	It("does not store variables that share an object, which copies would part", func() {
		s := chart(`<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript" initial="a">
  <datamodel><data id="x" expr="{n: 1}"/><data id="y" expr="x"/></datamodel>
  <state id="a"><transition event="go" target="a"><assign location="x.n" expr="x.n + 1"/></transition></state>
</scxml>`)
		m := s.Variants[0].Machine
		d := m.NewData("spec")
		var c engine.Config
		var r engine.Result
		Expect(m.StartWith(&c, d, 0, &r)).To(Succeed())
		_, ok := d.Save()
		Expect(ok).To(BeFalse())
	})

	It("gives the one goroutine's search on several", func() {
		defer explore.SetParallel(1, 3)()
		for _, name := range []string{"pizza.scxml", "order.scxml", "stuck.scxml"} {
			s := chart(name)
			Expect(sameAs(s, s.Variants[0], explore.Options{Depth: 8}, workers(2))).To(Succeed(), name)
		}
	})

	It("gives the one search's result in shards", func() {
		defer explore.SetSplitWidth(explore.SetSplitWidth(1))
		for _, name := range []string{"order.scxml", "stuck.scxml"} {
			s := chart(name)
			one := search(s, explore.Options{Depth: 6})
			merged, err := sharded(s, s.Variants[0], 6, 3, one)
			Expect(err).NotTo(HaveOccurred(), name)
			Expect(sameSearch(one, merged)).To(Succeed(), name)
		}
	})

	It("digests a chart's reachable graph alike, search after search", func() {
		s := chart("pizza.scxml")
		a := search(s, explore.Options{Depth: 50, Digest: true})
		b := search(chart("pizza.scxml"), explore.Options{Depth: 50, Digest: true})
		Expect(a.Digest).NotTo(BeZero())
		Expect(a.Digest).To(Equal(b.Digest))
	})

	It("writes each finding's path as a scenario of event turns", func() {
		res := search(chart("pizza.scxml"), explore.Options{Depth: 50})
		files := emit(res)
		Expect(files).To(HaveKey("explore-pizza-default-stuck"))
		b, err := os.ReadFile(files["explore-pizza-default-stuck"])
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(ContainSubstring("turns:\n  - event: {intent: \"add.cheese\"}\n  - event: {intent: \"checkout\"}\n  - event: {intent: \"stock.unknown\"}\n"))
	})
})

// stateID is the id of the state named name in res's machine.
func stateID(res *explore.Result, name string) engine.StateID {
	GinkgoHelper()
	id, ok := res.Machine().StateID(name)
	Expect(ok).To(BeTrue(), name)
	return id
}
