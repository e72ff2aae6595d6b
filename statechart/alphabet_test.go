package statechart_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/scxml"
)

func load(src string) *scxml.Machine {
	m, err := scxml.Load("m.scxml", []byte(src), scxml.Options{})
	Expect(err).NotTo(HaveOccurred())
	return m
}

var _ = Describe("Chart.Alphabet and Chart.Handles", func() {
	DescribeTable("the event alphabet is the transitions' descriptors, sorted, without * and the platform's events",
		func(transitions string, want []string) {
			m := load(`<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="null"><state id="s">` +
				transitions + `</state></scxml>`)
			Expect(m.Chart.Alphabet()).To(Equal(want))
		},
		Entry("one event per descriptor, each once", `<transition event="b a"/><transition event="a"/>`, []string{"a", "b"}),
		Entry("a trailing .* or . is the descriptor itself", `<transition event="help.* back."/>`, []string{"back", "help"}),
		Entry("a descriptor and a longer one that it matches are both sent", `<transition event="inform inform.city"/>`, []string{"inform", "inform.city"}),
		Entry("* matches any event and is no event", `<transition event="*"/><transition event="go"/>`, []string{"go"}),
		Entry("done.* and error.* come from the platform", `<transition event="done.state.s error.execution error done ok"/>`, []string{"ok"}),
		Entry("eventless transitions add nothing", `<transition cond="In('s')"/>`, []string{}),
	)

	DescribeTable("Handles is descriptor matching over every transition",
		func(name string, want bool) {
			m := load(`<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="null"><state id="s">` +
				`<transition event="inform help.*"/></state><state id="t"><transition event="done.state.s"/></state></scxml>`)
			Expect(m.Chart.Handles(name)).To(Equal(want))
		},
		Entry("a descriptor itself", "inform", true),
		Entry("a longer name by . tokens", "inform.city", true),
		Entry("a trailing .* is dropped", "help", true),
		Entry("a longer name not by a token", "informal", false),
		Entry("a shorter name", "inf", false),
		Entry("a platform event a transition names", "done.state.s", true),
		Entry("no descriptor", "bye", false),
	)

	It("handles every name when a transition says *", func() {
		m := load(`<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="null"><state id="s"><transition event="*"/></state></scxml>`)
		Expect(m.Chart.Handles("anything.at.all")).To(BeTrue())
	})
})
