package scxml_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/scxml"
)

// Each script below asked goja, before the bounds, for gigabytes at once
// (a Go out-of-memory fatal that no recover catches) or ran a Go loop for
// minutes past the one-second limit. Now each raises error.execution
// within a few seconds.
var _ = Describe("Scripts are bounded in memory as in time", func() {
	chart := func(content string) string {
		return `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0">
<datamodel><data id="x"/></datamodel>
<state id="a"><onentry>` + content + `</onentry>
<transition event="error.execution" target="caught"/></state>
<final id="caught"/></scxml>`
	}
	DescribeTable("a hostile script ends in error.execution or a halt, never a fatal error",
		func(content, want string) {
			m, err := scxml.Load("m.scxml", []byte(chart(content)), scxml.Options{})
			Expect(err).NotTo(HaveOccurred())
			// On the one interpreter, the script's error (a bound passed
			// included) is error.execution, which the chart takes, and the
			// heap's fingerprint and saved copy do not render the array.
			def, _, err := m.Definition()
			Expect(err).NotTo(HaveOccurred())
			mach, diags := engine.Build(def)
			Expect(diags.Err()).NotTo(HaveOccurred())
			d := mach.NewData("s1")
			var c engine.Config
			var r engine.Result
			start := time.Now()
			Expect(mach.StartWith(&c, d, 0, &r)).To(Succeed())
			Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second))
			Expect(m.Active(mach, &c)).To(Equal([]string{"caught"}))
			d.Fingerprint()
			_, _ = d.Save()
		},
		Entry("a foreach over new Array(4294967295)", `<foreach array="new Array(4294967295)" item="i"/>`, "caught"),
		Entry("fill of a huge array", `<script>new Array(4294967295).fill(0)</script>`, "caught"),
		Entry("map of a huge array", `<script>new Array(1e9).map(function (v) { return 1 })</script>`, "caught"),
		Entry("join of a huge array", `<script>new Array(1e9).join(",")</script>`, "caught"),
		Entry("join of many huge strings", `<script>var s = 'x'.repeat(1 &lt;&lt; 20); new Array(17).fill(s).join('')</script>`, "caught"),
		Entry("a huge array as a string", `<script>String(new Array(1e9))</script>`, "caught"),
		Entry("a huge string repeat", `<script>'x'.repeat(2147483647)</script>`, "caught"),
		Entry("padStart", `<script>'x'.padStart(1e9)</script>`, "caught"),
		Entry("Array.from a huge length", `<script>Array.from({length: 1e9})</script>`, "caught"),
		Entry("spread of a huge array", `<script>[...new Array(1e9)]</script>`, "caught"),
		Entry("apply with a huge argument list", `<script>Math.max.apply(null, new Array(1e9))</script>`, "caught"),
		Entry("JSON.stringify of a huge array", `<script>JSON.stringify(new Array(1e9))</script>`, "caught"),
		Entry("a typed array of 16 GB", `<script>new Float64Array(2147483648)</script>`, "caught"),
		Entry("a declared variable holding a huge array", `<assign location="x" expr="new Array(4294967295)"/><raise event="error.execution"/>`, "caught"),
		Entry("strings doubled in a loop", `<script>var s = 'x'; while (true) s = s + s + 'y'</script>`, "a script"),
		Entry("a loop that never ends", `<script>while (true) {}</script>`, "longer than 1s"),
	)

	It("leaves ordinary arrays and strings alone", func() {
		m, err := scxml.Load("m.scxml", []byte(`<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0">
<datamodel><data id="x"/></datamodel>
<state id="a"><onentry><assign location="x" expr="[[1, 2].map(function (v) { return v * 2 }).join('-'), 'ab'.repeat(2), Array.from('xy'), Math.max.apply(null, [3, 4]), String([1, [2, 3]]), JSON.stringify({a: [1]})]"/></onentry>
<transition cond="JSON.stringify(x) === '[&quot;2-4&quot;,&quot;abab&quot;,[&quot;x&quot;,&quot;y&quot;],4,&quot;1,2,3&quot;,&quot;{\\&quot;a\\&quot;:[1]}&quot;]'" target="ok"/></state>
<final id="ok"/></scxml>`), scxml.Options{})
		Expect(err).NotTo(HaveOccurred())
		mach, c, _ := started(m)
		Expect(m.Active(mach, c)).To(Equal([]string{"ok"}))
	})
})
