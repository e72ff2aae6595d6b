package statechart_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/scxml"
	"github.com/simctl/simctl/statechart"
)

// step is one event sent to a session (after advancing the virtual clock
// by After milliseconds) and the active atomic states expected after it.
type step struct {
	After int64
	Event string
	Want  string // active atomic states, space-separated, document order
}

type semanticsCase struct {
	Body    string // the <scxml> element's content
	Initial string
	Steps   []step
	// Log, when set, is the session's <log> output at the end, joined by "|".
	Log string
}

// machine wraps a body into an ecmascript SCXML document.
func machine(body string) []byte {
	return []byte(`<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript">` + body + `</scxml>`)
}

func start(body string) *statechart.Session {
	m, err := scxml.Load("m.scxml", machine(body), scxml.Options{})
	Expect(err).NotTo(HaveOccurred())
	s := m.NewSession()
	s.Start()
	return s
}

var _ = Describe("Appendix D semantics", func() {
	DescribeTable("configurations after each event",
		func(c semanticsCase) {
			s := start(c.Body)
			Expect(strings.Join(s.Active(), " ")).To(Equal(c.Initial), "initial configuration")
			for i, st := range c.Steps {
				s.Advance(st.After)
				s.Send(statechart.Event{Name: st.Event})
				Expect(strings.Join(s.Active(), " ")).To(Equal(st.Want), "after event %d (%s)", i+1, st.Event)
			}
			if c.Log != "" {
				Expect(strings.Join(s.Log, "|")).To(Equal(c.Log))
			}
		},
		Entry("parallel regions are active together and move independently", semanticsCase{
			Body: `<parallel id="p">
				<state id="r1"><state id="a1"><transition event="x" target="a2"/></state><state id="a2"/></state>
				<state id="r2"><state id="b1"><transition event="y" target="b2"/></state><state id="b2"/></state>
			</parallel>`,
			Initial: "a1 b1",
			Steps:   []step{{Event: "x", Want: "a2 b1"}, {Event: "y", Want: "a2 b2"}},
		}),
		Entry("one event moves both regions in one microstep (optimal enabled set)", semanticsCase{
			Body: `<parallel id="p">
				<state id="r1"><state id="a1"><transition event="go" target="a2"/></state><state id="a2"/></state>
				<state id="r2"><state id="b1"><transition event="go" target="b2"/></state><state id="b2"/></state>
			</parallel>`,
			Initial: "a1 b1",
			Steps:   []step{{Event: "go", Want: "a2 b2"}},
		}),
		Entry("conflicting transitions: the first region's in document order wins", semanticsCase{
			Body: `<parallel id="p">
				<state id="r1"><state id="a1"><transition event="go" target="out1"/></state></state>
				<state id="r2"><state id="b1"><transition event="go" target="out2"/></state></state>
			</parallel><state id="out1"/><state id="out2"/>`,
			Initial: "a1 b1",
			Steps:   []step{{Event: "go", Want: "out1"}},
		}),
		Entry("a descendant's transition preempts its ancestor's", semanticsCase{
			Body: `<state id="outer"><transition event="go" target="x"/>
				<state id="inner"><transition event="go" target="y"/></state></state>
				<state id="x"/><state id="y"/>`,
			Initial: "inner",
			Steps:   []step{{Event: "go", Want: "y"}},
		}),
		Entry("exit deepest first, entry outermost first", semanticsCase{
			Body: `<state id="a"><onexit><log label="exit" expr="'a'"/></onexit>
				<state id="a1"><onexit><log label="exit" expr="'a1'"/></onexit><transition event="go" target="b1"/></state></state>
				<state id="b"><onentry><log label="entry" expr="'b'"/></onentry>
				<state id="b1"><onentry><log label="entry" expr="'b1'"/></onentry></state></state>`,
			Initial: "a1",
			Steps:   []step{{Event: "go", Want: "b1"}},
			Log:     "exit: a1|exit: a|entry: b|entry: b1",
		}),
		Entry("leaving a parallel state exits every region's active states deepest first", semanticsCase{
			Body: `<parallel id="p"><onexit><log label="exit" expr="'p'"/></onexit>
				<state id="r1"><onexit><log label="exit" expr="'r1'"/></onexit><state id="a1"><onexit><log label="exit" expr="'a1'"/></onexit></state></state>
				<state id="r2"><onexit><log label="exit" expr="'r2'"/></onexit><state id="b1"><onexit><log label="exit" expr="'b1'"/></onexit></state></state>
				<transition event="leave" target="done"/>
			</parallel><state id="done"/>`,
			Initial: "a1 b1",
			Steps:   []step{{Event: "leave", Want: "done"}},
			Log:     "exit: b1|exit: r2|exit: a1|exit: r1|exit: p",
		}),
		Entry("the internal queue is drained before the next external event", semanticsCase{
			Body: `<state id="a"><transition event="t" target="b"><raise event="s"/></transition></state>
				<state id="b"><transition event="s" target="c"/></state><state id="c"/>`,
			Initial: "a",
			Steps:   []step{{Event: "t", Want: "c"}},
		}),
		Entry("done.state.ID when a compound state's final child is entered", semanticsCase{
			Body: `<state id="s"><state id="s1"><transition event="fin" target="f"/></state><final id="f"/>
				<transition event="done.state.s" target="after"/></state><state id="after"/>`,
			Initial: "s1",
			Steps:   []step{{Event: "fin", Want: "after"}},
		}),
		Entry("done.state of a parallel state when every region is final", semanticsCase{
			Body: `<parallel id="p">
				<state id="r1"><state id="a"><transition event="x" target="af"/></state><final id="af"/></state>
				<state id="r2"><state id="b"><transition event="y" target="bf"/></state><final id="bf"/></state>
				<transition event="done.state.p" target="joined"/>
			</parallel><state id="joined"/>`,
			Initial: "a b",
			Steps:   []step{{Event: "x", Want: "af b"}, {Event: "y", Want: "joined"}},
		}),
		Entry("donedata reaches the done event's data", semanticsCase{
			Body: `<datamodel><data id="got" expr="0"/></datamodel>
				<state id="s"><final id="f"><donedata><param name="n" expr="42"/></donedata></final>
				<transition event="done.state.s" cond="_event.data.n === 42" target="ok"/>
				<transition event="done.state.s" target="bad"/></state>
				<state id="ok"/><state id="bad"/>`,
			Initial: "ok",
		}),
		Entry("shallow history restores the child, deep history the leaves", semanticsCase{
			Body: `<state id="s"><history id="h" type="shallow"><transition target="s1"/></history>
				<history id="hd" type="deep"><transition target="s1"/></history>
				<state id="s1"><transition event="next" target="s2"/></state>
				<state id="s2"><state id="s2a"><transition event="deeper" target="s2b"/></state><state id="s2b"/></state>
				<transition event="out" target="o"/></state>
				<state id="o"><transition event="back" target="h"/><transition event="backdeep" target="hd"/></state>`,
			Initial: "s1",
			Steps: []step{{Event: "next", Want: "s2a"}, {Event: "deeper", Want: "s2b"},
				{Event: "out", Want: "o"}, {Event: "back", Want: "s2a"},
				{Event: "out", Want: "o"}, {Event: "backdeep", Want: "s2a"},
				{Event: "deeper", Want: "s2b"}, {Event: "out", Want: "o"}, {Event: "backdeep", Want: "s2b"}},
		}),
		Entry("an internal transition does not exit its source; an external one does", semanticsCase{
			Body: `<datamodel><data id="n" expr="0"/></datamodel>
				<state id="s"><onexit><assign location="n" expr="n + 1"/></onexit>
				<transition event="int" type="internal" target="s2"/>
				<transition event="ext" target="s2"/>
				<transition event="check" cond="n === 1" target="one"/>
				<state id="s1"/><state id="s2"/></state><state id="one"/>`,
			Initial: "s1",
			Steps:   []step{{Event: "int", Want: "s2"}, {Event: "ext", Want: "s2"}, {Event: "check", Want: "one"}},
		}),
		Entry("a targetless transition runs its actions and exits nothing", semanticsCase{
			Body: `<datamodel><data id="n" expr="0"/></datamodel>
				<state id="s"><onexit><assign location="n" expr="99"/></onexit>
				<transition event="bump"><assign location="n" expr="n + 1"/></transition>
				<transition event="check" cond="n === 2" target="two"/></state><state id="two"/>`,
			Initial: "s",
			Steps:   []step{{Event: "bump", Want: "s"}, {Event: "bump", Want: "s"}, {Event: "check", Want: "two"}},
		}),
		Entry("event descriptors match by prefix and *", semanticsCase{
			Body: `<state id="a"><transition event="foo" target="b"/></state>
				<state id="b"><transition event="bar.*" target="c"/></state>
				<state id="c"><transition event="*" target="d"/></state><state id="d"/>`,
			Initial: "a",
			Steps:   []step{{Event: "foobar", Want: "a"}, {Event: "foo.x.y", Want: "b"}, {Event: "bar.baz", Want: "c"}, {Event: "anything", Want: "d"}},
		}),
		Entry("send with a delay waits on the virtual clock; cancel removes it", semanticsCase{
			Body: `<state id="a"><onentry><send event="late" delay="1s"/><send id="c" event="cancelled" delay="500ms"/><cancel sendid="c"/></onentry>
				<transition event="cancelled" target="wrong"/><transition event="late" target="b"/></state>
				<state id="b"/><state id="wrong"/>`,
			Initial: "a",
			Steps:   []step{{After: 999, Event: "noop", Want: "a"}, {After: 1, Event: "noop", Want: "b"}},
		}),
		Entry("a failing expression raises error.execution", semanticsCase{
			Body: `<state id="a"><onentry><assign location="undeclared" expr="1"/></onentry>
				<transition event="error.execution" target="b"/></state><state id="b"/>`,
			Initial: "b",
		}),
		Entry("eventless transitions run until the configuration settles", semanticsCase{
			Body: `<datamodel><data id="n" expr="0"/></datamodel>
				<state id="loop"><transition cond="n &lt; 3" target="loop"><assign location="n" expr="n + 1"/></transition>
				<transition cond="n === 3" target="end"/></state><state id="end"/>`,
			Initial: "end",
		}),
		Entry("In() sees the other region", semanticsCase{
			Body: `<parallel id="p">
				<state id="r1"><state id="a1"><transition event="go" cond="In('b2')" target="a2"/></state><state id="a2"/></state>
				<state id="r2"><state id="b1"><transition event="flip" target="b2"/></state><state id="b2"/></state>
			</parallel>`,
			Initial: "a1 b1",
			Steps:   []step{{Event: "go", Want: "a1 b1"}, {Event: "flip", Want: "a1 b2"}, {Event: "go", Want: "a2 b2"}},
		}),
	)

	It("keeps a configuration a comparable value", func() {
		s := start(`<state id="a"><transition event="go" target="b"/></state><state id="b"><transition event="go" target="a"/></state>`)
		first := s.Configuration()
		s.Send(statechart.Event{Name: "go"})
		Expect(s.Configuration()).NotTo(Equal(first))
		s.Send(statechart.Event{Name: "go"})
		Expect(s.Configuration() == first).To(BeTrue())
	})

	DescribeTable("stops a macrostep that never settles instead of looping",
		func(body string) {
			s := start(body)
			Expect(s.Halted()).To(ContainSubstring("did not settle"))
			Expect(s.Running()).To(BeFalse())
		},
		Entry("a cycle of eventless transitions", `<state id="a"><transition target="b"/></state><state id="b"><transition target="a"/></state>`),
		Entry("a failing condition raising error.execution on every round", `<state id="a"><transition cond="nope.x" target="b"/></state><state id="b"/>`),
		Entry("raised events that raise each other", `<state id="a"><onentry><raise event="e"/></onentry><transition event="e"><raise event="e"/></transition></state>`),
	)

	It("is deterministic: Date and Math.random do not depend on the run", func() {
		body := `<datamodel><data id="r" expr="Math.random()"/><data id="t" expr="Date.now()"/></datamodel>
			<state id="a"><onentry><log label="r" expr="r"/><log label="t" expr="t"/></onentry></state>`
		Expect(start(body).Log).To(Equal(start(body).Log))
		Expect(start(body).Log[1]).To(Equal("t: 0"))
	})
})

var _ = Describe("a runaway script", func() {
	It("halts the session after the script time bound", func() {
		s := start(`<state id="a"><transition cond="(function(){ while (true) {} })()" target="b"/></state><state id="b"/>`)
		Expect(s.Halted()).To(ContainSubstring("script ran longer than"))
		Expect(s.Running()).To(BeFalse())
	})
})
