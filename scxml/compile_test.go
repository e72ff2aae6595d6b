package scxml_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/scxml"
)

// started compiles a loaded chart onto the engine and starts it, as simctl
// run does.
func started(m *scxml.Machine) (*engine.Machine, *engine.Config, engine.Data) {
	GinkgoHelper()
	def, _, err := m.Definition()
	Expect(err).NotTo(HaveOccurred())
	mach, diags := engine.Build(def)
	Expect(diags.Err()).NotTo(HaveOccurred())
	d := mach.NewData("s1")
	c := &engine.Config{}
	var r engine.Result
	Expect(mach.StartWith(c, d, 0, &r)).To(Succeed())
	return mach, c, d
}

// runToEnd compiles a chart onto the engine, starts it and delivers its
// delayed events until it ends, and returns the final state's name.
func runToEnd(src string) string {
	GinkgoHelper()
	m, err := scxml.Load("t.scxml", []byte(src), scxml.Options{})
	Expect(err).NotTo(HaveOccurred())
	def, dm, err := m.Definition()
	Expect(err).NotTo(HaveOccurred())
	mach, diags := engine.Build(def)
	Expect(diags.Err()).NotTo(HaveOccurred())
	d := dm.NewData(mach, "s1")
	var c engine.Config
	var r engine.Result
	Expect(mach.StartWith(&c, d, 0, &r)).To(Succeed())
	for n := 0; !c.Final && n < 100; n++ {
		t, ok := mach.NextTimer(&c)
		if !ok {
			break
		}
		ev := engine.Event{Kind: engine.TimerEvent, Timer: t.ID, At: t.Deadline, Intent: engine.NoID, Ext: engine.NoID}
		Expect(mach.StepWith(&c, d, &ev, &r)).To(Succeed())
	}
	Expect(c.Final).To(BeTrue())
	return mach.StateName(c.State)
}

const chartHead = `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript" initial="s0">`

var _ = Describe("charts compiled onto the engine", func() {
	It("runs a chart of more states than the old interpreter's 255", func() {
		// 1,501 states in one, each left for the next by an eventless
		// transition, the last for pass: the loader has no cap of its own below the
		// engine's (engine.MaxStates).
		var b strings.Builder
		b.WriteString(`<state id="s0">`)
		for i := range 1500 {
			fmt.Fprintf(&b, `<state id="c%d"><transition target="c%d"/></state>`, i, i+1)
		}
		b.WriteString(`<state id="c1500"><transition target="pass"/></state></state>`)
		src := strings.Replace(chartHead, `initial="s0"`, `initial="c0"`, 1) + b.String() + `<final id="pass"/></scxml>`
		Expect(runToEnd(src)).To(Equal("pass"))
	})

	DescribeTable("run to their pass state",
		func(body string) {
			Expect(runToEnd(chartHead + body + `<final id="pass"/><final id="fail"/></scxml>`)).To(Equal("pass"))
		},
		Entry("data, assign, raise with params, _event.type internal", `
<datamodel><data id="n" expr="1"/></datamodel>
<state id="s0">
  <onentry><assign location="n" expr="n + 1"/><raise event="go"/></onentry>
  <transition event="go" cond="n === 2 &amp;&amp; _event.type === 'internal'" target="s1"/>
  <transition event="*" target="fail"/>
</state>
<state id="s1">
  <onentry><send event="later" delay="1s"><param name="k" expr="n * 10"/></send></onentry>
  <transition event="later" cond="_event.data.k === 20 &amp;&amp; _event.type === 'external'" target="pass"/>
  <transition event="*" target="fail"/>
</state>`),
		Entry("an error stops its block and raises error.execution, a platform event", `
<datamodel><data id="x" expr="0"/></datamodel>
<state id="s0">
  <onentry><assign location="x" expr="undefined.y"/><assign location="x" expr="5"/></onentry>
  <transition event="error.execution" cond="x === 0 &amp;&amp; _event.type === 'platform'" target="pass"/>
  <transition event="*" target="fail"/>
</state>`),
		Entry("foreach, cancel and donedata", `
<datamodel><data id="sum" expr="0"/><data id="arr" expr="[1,2,3]"/></datamodel>
<state id="s0" initial="a">
  <onentry><send event="never" id="t" delay="1s"/><cancel sendid="t"/><send event="tick" delay="2s"/></onentry>
  <state id="a">
    <onentry><foreach array="arr" item="v" index="i"><assign location="sum" expr="sum + v * i"/></foreach></onentry>
    <transition target="b"/>
  </state>
  <final id="b"><donedata><param name="s" expr="sum"/></donedata></final>
  <transition event="done.state.s0" cond="_event.data.s === 8" target="s1"/>
  <transition event="done.state.s0" target="fail"/>
</state>
<state id="s1">
  <transition event="tick" target="pass"/>
  <transition event="never" target="fail"/>
</state>`),
		Entry("each onentry a block of its own; a descriptor matching its dotted events", `
<datamodel><data id="x" expr="0"/></datamodel>
<state id="s0">
  <onentry><send target="nowhere" event="e"/><assign location="x" expr="1"/></onentry>
  <onentry><assign location="x" expr="x + 2"/><raise event="foo.zoo"/></onentry>
  <transition event="error.execution"/>
  <transition event="foo" cond="x === 2" target="pass"/>
  <transition event="*" target="fail"/>
</state>`),
		Entry("computed event, target, type and sendid; idlocation", `
<datamodel><data id="ev" expr="'ping'"/><data id="id"/></datamodel>
<state id="s0">
  <onentry>
    <send eventexpr="ev" targetexpr="'#_internal'" typeexpr="'scxml'"/>
    <send event="never" delay="1s" idlocation="id"/>
    <cancel sendidexpr="id"/>
    <send event="tick" delay="2s"/>
  </onentry>
  <transition event="ping" cond="typeof id === 'string'" target="s1"/>
  <transition event="*" target="fail"/>
</state>
<state id="s1">
  <transition event="tick" target="pass"/>
  <transition event="*" target="fail"/>
</state>`),
		Entry("<initial> with content and a deeper target, run after the parent's onentry", `
<datamodel><data id="log" expr="''"/></datamodel>
<state id="s0">
  <onentry><assign location="log" expr="log + 'e'"/></onentry>
  <initial><transition target="b"><assign location="log" expr="log + 'i'"/></transition></initial>
  <state id="a"><state id="b"><onentry><assign location="log" expr="log + 'b'"/></onentry></state></state>
  <transition cond="log === 'eib' &amp;&amp; In('b')" target="pass"/>
  <transition target="fail"/>
</state>`),
		Entry("a history's default transition, elsewhere than the initial state and with content, then what it recorded", `
<datamodel><data id="n" expr="0"/></datamodel>
<state id="s0">
  <transition target="h"/>
</state>
<state id="p">
  <history id="h"><transition target="b"><assign location="n" expr="n + 1"/></transition></history>
  <state id="a"/>
  <state id="b">
    <transition cond="n === 1" target="c"/>
    <transition cond="n === 2" target="fail"/>
  </state>
  <state id="c">
    <transition cond="n === 1" target="s1"/>
    <transition cond="n === 10" target="pass"/>
  </state>
</state>
<state id="s1"><transition target="h"><assign location="n" expr="10"/></transition></state>`),
		Entry("a computed event name the chart does not know, taken by * alone, with its name and data", `
<datamodel><data id="ev" expr="'un' + 'known'"/></datamodel>
<state id="s0">
  <onentry><send eventexpr="ev" delay="1s"><param name="k" expr="7"/></send></onentry>
  <transition event="unknowable" target="fail"/>
  <transition event="*" cond="_event.name === 'unknown' &amp;&amp; _event.data.k === 7" target="pass"/>
  <transition event="*" target="fail"/>
</state>`),
		Entry("the document's data bound once, not again when the initial state is entered again", `
<datamodel><data id="n" expr="0"/></datamodel>
<state id="s0">
  <onentry><assign location="n" expr="n + 1"/></onentry>
  <transition cond="n === 1" target="s1"/>
  <transition cond="n === 2" target="pass"/>
  <transition target="fail"/>
</state>
<state id="s1"><transition target="s0"/></state>`),
		Entry("more delayed sends pending than Config holds inline, delivered in order", `
<datamodel><data id="n" expr="0"/></datamodel>
<state id="s0">
  <onentry><foreach array="[1,2,3,4,5,6,7,8,9,10,11,12]" item="i"><send event="tick" delayexpr="i + 's'"><param name="i" expr="i"/></send></foreach></onentry>
  <transition event="tick" cond="_event.data.i === n + 1 &amp;&amp; n &lt; 11"><assign location="n" expr="n + 1"/></transition>
  <transition event="tick" cond="_event.data.i === 12 &amp;&amp; n === 11" target="pass"/>
  <transition event="tick" target="fail"/>
</state>`),
		Entry("a parallel state's deep history resumes every region", `
<datamodel><data id="k" expr="0"/></datamodel>
<state id="s0"><transition target="p"/></state>
<parallel id="p">
  <history id="h" type="deep"><transition target="a1"/></history>
  <state id="ra"><state id="a1"><transition cond="k === 0" target="a2"/></state><state id="a2"/></state>
  <state id="rb"><state id="b1"><transition cond="k === 0" target="b2"/></state><state id="b2"/></state>
  <transition cond="k === 0 &amp;&amp; In('a2') &amp;&amp; In('b2')" target="out"><assign location="k" expr="1"/></transition>
  <transition cond="k === 1 &amp;&amp; In('a2') &amp;&amp; In('b2')" target="pass"/>
  <transition cond="k === 1" target="fail"/>
</parallel>
<state id="out"><transition target="h"/></state>`),
		Entry("a region's history with default content, entered from outside the parallel state: the content right after its parent's onentry", `
<datamodel><data id="log" expr="''"/></datamodel>
<state id="s0"><transition target="h"/></state>
<parallel id="p">
  <onentry><assign location="log" expr="log + 'p'"/></onentry>
  <state id="r1">
    <onentry><assign location="log" expr="log + 'r1'"/></onentry>
    <history id="h"><transition target="b"><assign location="log" expr="log + 'h'"/></transition></history>
    <state id="a"/>
    <state id="b"><onentry><assign location="log" expr="log + 'b'"/></onentry></state>
  </state>
  <state id="r2"><onentry><assign location="log" expr="log + 'r2'"/></onentry></state>
  <transition cond="log === 'pr1hbr2' &amp;&amp; In('b')" target="pass"/>
  <transition target="fail"/>
</parallel>`),
		Entry("a compound state's deep history over a parallel state resumes every region at its leaf", `
<datamodel><data id="k" expr="0"/></datamodel>
<state id="s0"><transition target="o"/></state>
<state id="o">
  <history id="h" type="deep"><transition target="p"/></history>
  <parallel id="p">
    <state id="ra"><state id="a1"><transition cond="k === 0" target="a2"/></state><state id="a2"/></state>
    <state id="rb"><state id="b1"><transition cond="k === 0" target="b2"/></state><state id="b2"/></state>
  </parallel>
  <transition cond="k === 0 &amp;&amp; In('a2') &amp;&amp; In('b2')" target="out"><assign location="k" expr="1"/></transition>
  <transition cond="k === 1 &amp;&amp; In('p') &amp;&amp; In('a2') &amp;&amp; In('b2')" target="pass"/>
  <transition cond="k === 1" target="fail"/>
</state>
<state id="out"><transition target="h"/></state>`),
	)

	It("delivers an event the chart does not name to the descriptors that are prefixes of it, and to *", func() {
		src := chartHead + `
<state id="s0">
  <transition event="foo" cond="_event.name === 'foo.bar.baz'" target="s1"/>
</state>
<state id="s1">
  <transition event="*" cond="_event.name === 'other'" target="pass"/>
</state>
<final id="pass"/></scxml>`
		m, err := scxml.Load("t.scxml", []byte(src), scxml.Options{})
		Expect(err).NotTo(HaveOccurred())
		def, _, err := m.Definition()
		Expect(err).NotTo(HaveOccurred())
		mach, diags := engine.Build(def)
		Expect(diags.Err()).NotTo(HaveOccurred())
		d := mach.NewData("s1")
		var c engine.Config
		var r engine.Result
		Expect(mach.StartWith(&c, d, 0, &r)).To(Succeed())
		for _, name := range []string{"foo.bar.baz", "other"} {
			ev, err := m.Event(mach, name, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(mach.StepWith(&c, d, &ev, &r)).To(Succeed())
		}
		Expect(m.Active(mach, &c)).To(Equal([]string{"pass"}))
	})

	It("starts at a history state the document's initial attribute names: its default, nothing being recorded", func() {
		src := `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="null" initial="h">
<state id="b">
  <history id="h"><transition target="b2"/></history>
  <state id="b1"><transition target="fail"/></state>
  <state id="b2"><transition target="pass"/></state>
</state>
<final id="pass"/><final id="fail"/></scxml>`
		Expect(runToEnd(src)).To(Equal("pass"))
	})

	It("places an event name the engine refuses where the chart names it", func() {
		m, err := scxml.Load("t.scxml", []byte(chartHead+`
<state id="s0"><onentry><send event="in valid"/></onentry></state></scxml>`), scxml.Options{})
		Expect(err).NotTo(HaveOccurred())
		def, _, err := m.Definition()
		Expect(err).NotTo(HaveOccurred())
		_, diags := engine.Build(def)
		Expect(diags.Err()).To(MatchError(ContainSubstring(`t.scxml:2:25: intent name "in valid" must not contain white space`)))
	})

	It("binds a state's data late, on its first entry, when the document says so", func() {
		src := `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript" initial="s0" binding="late">
<state id="s0">
  <transition cond="typeof x === 'undefined'" target="s1"/>
  <transition target="fail"/>
</state>
<state id="s1">
  <datamodel><data id="x" expr="7"/></datamodel>
  <transition cond="x === 7" target="pass"/>
  <transition target="fail"/>
</state>
<final id="pass"/><final id="fail"/></scxml>`
		Expect(runToEnd(src)).To(Equal("pass"))
	})

	It("names what the engine cannot run yet", func() {
		m, err := scxml.Load("t.scxml", []byte(chartHead+`<state id="s0"><transition event="e" target="h y"/></state>
<parallel id="p">
  <state id="r1"><history id="h"><transition target="a"><log expr="1"/></transition></history><state id="a"/></state>
  <state id="r2"><state id="x"/><state id="y"/></state>
</parallel></scxml>`), scxml.Options{})
		Expect(err).NotTo(HaveOccurred())
		_, _, err = m.Definition()
		Expect(err).To(MatchError(ContainSubstring("a history whose default transition has content, one of several targets (not supported on the engine yet)")))
	})
})
