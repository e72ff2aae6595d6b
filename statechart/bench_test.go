package statechart_test

import (
	"testing"

	"github.com/simctl/simctl/scxml"
	"github.com/simctl/simctl/statechart"
)

// BenchmarkSessionSend: one external event through the Appendix D loop on
// a two-region parallel chart with the null data model (select, conflict
// removal, exit and entry sets), both regions moving on each event.
func BenchmarkSessionSend(b *testing.B) {
	src := []byte(`<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="null">
		<parallel id="p">
			<state id="r1"><state id="a1"><transition event="go" target="a2"/></state><state id="a2"><transition event="go" target="a1"/></state></state>
			<state id="r2"><state id="b1"><transition event="go" target="b2"/></state><state id="b2"><transition event="go" target="b1"/></state></state>
		</parallel></scxml>`)
	m, err := scxml.Load("bench.scxml", src, scxml.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s := m.NewSession()
	s.Start()
	ev := statechart.Event{Name: "go"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Send(ev)
	}
}
