package scxml_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/scxml"
)

const head = `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0">`

// simctlHead declares simctl's namespace (scxml.SimctlNS) as simctl.
const simctlHead = `<scxml xmlns="http://www.w3.org/2005/07/scxml" xmlns:simctl="https://github.com/simctl/simctl" version="1.0">`

var _ = Describe("Load", func() {
	DescribeTable("bad documents get one file:line:col error",
		func(src, want string) {
			_, err := scxml.Load("m.scxml", []byte(src), scxml.Options{})
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(Equal(want))
		},
		Entry("malformed XML", head+"\n<state id=\"a\">\n</scxml>",
			"m.scxml:3:9: malformed XML: element <state> closed by </scxml>"),
		Entry("not scxml at the root", `<foo/>`, "m.scxml:1:1: expected <scxml> as the root element, found <foo>"),
		Entry("an unknown element", head+"\n  <state id=\"a\"><bogus/></state></scxml>",
			`m.scxml:2:17: <bogus> is not allowed in <state>`),
		Entry("an unknown attribute", head+"\n<state id=\"a\" colour=\"red\"/></scxml>",
			`m.scxml:2:1: <state> has an unknown attribute "colour" (expected one of: id, initial)`),
		Entry("invoke is not supported", head+"\n<state id=\"a\">\n  <invoke src=\"x.scxml\"/></state></scxml>",
			"m.scxml:3:3: <invoke> is not supported"),
		Entry("the HTTP I/O processor is not supported", head+"\n<state id=\"a\"><onentry>\n<send event=\"e\" type=\"http://www.w3.org/TR/scxml/#BasicHTTPEventProcessor\"/></onentry></state></scxml>",
			`m.scxml:3:1: <send type="http://www.w3.org/TR/scxml/#BasicHTTPEventProcessor"> is not supported (the SCXML event processor only)`),
		Entry("a bad target", head+"\n<state id=\"a\">\n <transition event=\"e\" target=\"nowhere\"/></state></scxml>",
			`m.scxml:3:2: target "nowhere" is not a state`),
		Entry("a duplicate id", head+"\n<state id=\"a\"/>\n<state id=\"a\"/></scxml>",
			`m.scxml:3:1: state id "a" is already used at m.scxml:2:1`),
		Entry("the null datamodel has no expressions", `<scxml xmlns="http://www.w3.org/2005/07/scxml" datamodel="null">`+"\n<state id=\"a\">\n<transition cond=\"1 + 1\" target=\"a\"/></state></scxml>",
			"m.scxml:3:1: the null datamodel evaluates In('state') conditions only, not 1 + 1"),
		Entry("XML content", head+"\n<datamodel><data id=\"d\">\n<books/></data></datamodel><state id=\"a\"/></scxml>",
			"m.scxml:3:1: XML content (<books> in <data>) is not supported"),
		Entry("no state", head+"</scxml>", "m.scxml:1:1: <scxml> holds no state"),
		Entry("a history without a default target (found by FuzzSCXML)", head+"<state><history><transition/></history></state></scxml>",
			"m.scxml:1:78: a history's default transition has a target and neither event nor cond"),
		Entry("an element of another namespace", head+"\n<final id=\"a\"><onentry>\n<x:escalate xmlns:x=\"urn:other\" reason=\"r\"/></onentry></final></scxml>",
			`m.scxml:3:1: <escalate> is not an SCXML element (namespace "urn:other", expected "http://www.w3.org/2005/07/scxml")`),
		Entry("simctl content other than escalate", simctlHead+"\n<final id=\"a\"><onentry>\n<simctl:handover/></onentry></final></scxml>",
			`m.scxml:3:1: <handover> is not simctl executable content (expected escalate, namespace "https://github.com/simctl/simctl")`),
		Entry("an escalate without a reason", simctlHead+"\n<final id=\"a\"><onentry>\n<simctl:escalate reason=\" \"/></onentry></final></scxml>",
			`m.scxml:3:1: <escalate> needs a reason`),
		Entry("an escalate with content", simctlHead+"\n<final id=\"a\"><onentry>\n<simctl:escalate reason=\"r\">why</simctl:escalate></onentry></final></scxml>",
			`m.scxml:3:1: <escalate> has no content`),
		Entry("an escalate with an unknown attribute", simctlHead+"\n<final id=\"a\"><onentry>\n<simctl:escalate reason=\"r\" to=\"desk\"/></onentry></final></scxml>",
			`m.scxml:3:1: <escalate> has an unknown attribute "to" (expected one of: reason)`),
	)

	DescribeTable("what the recommendation lets a document hold but fails when run loads with a warning",
		func(src, want string) {
			m, err := scxml.Load("m.scxml", []byte(src), scxml.Options{})
			Expect(err).NotTo(HaveOccurred())
			var got []string
			for _, w := range m.Warnings {
				got = append(got, w.Error())
			}
			Expect(got).To(Equal([]string{want}))
			mach, c, _ := started(m)
			Expect(m.Active(mach, c)).To(Equal([]string{"pass"}), "error.execution was raised when it ran")
		},
		Entry("an expression that does not compile (W3C test312)", head+"\n<state id=\"a\"><onentry>\n <assign location=\"x\" expr=\"return\"/></onentry>\n<transition event=\"error.execution\" target=\"pass\"/></state><final id=\"pass\"/></scxml>",
			`m.scxml:3:2: expression "return" does not compile: SyntaxError: Unexpected token return (it raises error.execution when evaluated)`),
		Entry("a cond that does not compile counts as false", head+"\n<state id=\"a\">\n <transition cond=\"x ==\" target=\"fail\"/>\n<transition event=\"error.execution\" target=\"pass\"/></state><final id=\"pass\"/><final id=\"fail\"/></scxml>",
			`m.scxml:3:2: expression "x ==" does not compile: SyntaxError: Unexpected token ) (it raises error.execution when evaluated)`),
		Entry("a send type no processor has (W3C test199)", head+"\n<state id=\"a\"><onentry>\n<send event=\"e\" type=\"27\"/></onentry>\n<transition event=\"error.execution\" target=\"pass\"/></state><final id=\"pass\"/></scxml>",
			`m.scxml:3:1: <send type="27"> names no event processor simctl has (the SCXML one only): it raises error.execution when it runs`),
	)

	It("ignores elements and attributes of other namespaces, as the recommendation's schema lets SCXML elements carry them", func() {
		src := `<scxml xmlns="http://www.w3.org/2005/07/scxml" xmlns:ed="urn:example:editor" version="1.0" ed:version="4.9">
<ed:layout><ed:box id="a" x="1"/></ed:layout>
<state id="a" ed:colour="red"><transition event="e" target="b" ed:bend="3"/></state><final id="b"/></scxml>`
		m, err := scxml.Load("m.scxml", []byte(src), scxml.Options{})
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Chart.States).To(HaveLen(3))
	})

	It("runs simctl's <escalate> as a YAML machine's escalate action: an escalation effect with its reason, braces and all", func() {
		m, err := scxml.Load("m.scxml", []byte(simctlHead+`<state id="a"><transition event="deny" target="handed_over"/></state>
			<final id="handed_over"><onentry><simctl:escalate reason="denied {twice}"/></onentry></final></scxml>`), scxml.Options{})
		Expect(err).NotTo(HaveOccurred())
		mach, c, d := started(m)
		var r engine.Result
		Expect(mach.StepWith(c, d, event(mach, "deny", "", 0), &r)).To(Succeed())
		Expect(m.Active(mach, c)).To(Equal([]string{"handed_over"}))
		var esc []string
		for i := range r.Effects {
			if r.Effects[i].Kind == engine.EffEscalate {
				esc = append(esc, string(r.EffectText(&r.Effects[i])))
			}
		}
		Expect(esc).To(Equal([]string{"denied {twice}"}))
	})

	It("loads the null datamodel with In() conditions", func() {
		m, err := scxml.Load("m.scxml", []byte(`<scxml xmlns="http://www.w3.org/2005/07/scxml" datamodel="null">
			<parallel id="p"><state id="a"><transition cond="In('b')" target="done"/></state><state id="b"/></parallel>
			<final id="done"/></scxml>`), scxml.Options{})
		Expect(err).NotTo(HaveOccurred())
		mach, c, _ := started(m)
		Expect(m.Active(mach, c)).To(Equal([]string{"done"}))
		Expect(c.Final).To(BeTrue())
	})
})
