package statechart_test

// Laws of Appendix D, checked with gopter on random event sequences over
// small charts: after every macrostep the configuration is legal (one
// top-level state and the parents of active states are active, an active
// compound state has exactly one active child, an active parallel state
// all its children), and a session is a function of its events (replaying them
// gives the same Key).

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/scxml"
	"github.com/simctl/simctl/statechart"
)

const lawSeed = 14

// lawCharts have parallel states, history, done events, delays and
// eventless transitions; their alphabets are the events they name.
var lawCharts = map[string]string{
	"parallel+history": `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="null" initial="p">
		<parallel id="p">
			<history id="ph" type="deep"><transition target="r1"/></history>
			<state id="r1"><state id="a1"><transition event="x" target="a2"/></state>
				<state id="a2"><transition event="y" target="a3"/><transition event="z" target="a1"/></state><final id="a3"/></state>
			<state id="r2"><history id="h2"><transition target="b1"/></history>
				<state id="b1"><transition event="x" target="b2"/></state>
				<state id="b2"><state id="b21"><transition event="y" target="b22"/></state><state id="b22"><transition target="bf" cond="In('a3')"/></state></state>
				<final id="bf"/></state>
			<transition event="done.state.p" target="out"/>
			<transition event="leave" target="out"/>
		</parallel>
		<state id="out"><transition event="back" target="ph"/><transition event="x" target="h2"/></state></scxml>`,
	"delays+internal": `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript">
		<datamodel><data id="n" expr="0"/></datamodel>
		<state id="s"><onentry><send id="t" event="tick" delay="1s"/></onentry><onexit><cancel sendid="t"/></onexit>
			<transition event="tick" target="s"><assign location="n" expr="n + 1"/></transition>
			<transition event="x" type="internal" target="s2"><raise event="y"/></transition>
			<state id="s1"/><state id="s2"><transition event="y" target="s1"/></state>
			<transition event="go" cond="n &gt; 1" target="f"/></state>
		<final id="f"/></scxml>`,
}

var lawEvents = []string{"x", "y", "z", "leave", "back", "go", "wait"}

func play(s *statechart.Session, events []string) {
	for _, e := range events {
		if e == "wait" {
			s.Advance(1000)
		} else {
			s.Send(statechart.Event{Name: e})
		}
	}
}

// legal returns what is wrong with the session's configuration, or "".
func legal(s *statechart.Session) string {
	c, cfg := s.Chart(), s.Configuration()
	// The <scxml> root is not a state of the configuration, but it holds
	// exactly one active child, as a compound state does.
	top := 0
	for _, ch := range c.States[0].Children {
		if cfg.Has(ch) {
			top++
		}
	}
	if top != 1 {
		return fmt.Sprintf("%d top-level states are active", top)
	}
	for i := cfg.Next(1); i >= 0; i = cfg.Next(i + 1) {
		st := &c.States[i]
		if st.Parent != 0 && !cfg.Has(st.Parent) {
			return fmt.Sprintf("%s is active without its parent", st.ID)
		}
		active := 0
		for _, ch := range st.Children {
			if k := c.States[ch].Kind; k != statechart.HistoryShallow && k != statechart.HistoryDeep && cfg.Has(ch) {
				active++
			}
		}
		switch st.Kind {
		case statechart.Compound:
			if active != 1 {
				return fmt.Sprintf("compound %s has %d active children", st.ID, active)
			}
		case statechart.Parallel:
			if active != len(st.Children)-len(st.History) {
				return fmt.Sprintf("parallel %s has %d active regions", st.ID, active)
			}
		case statechart.HistoryShallow, statechart.HistoryDeep:
			return fmt.Sprintf("history %s is active", st.ID)
		}
	}
	return ""
}

var _ = Describe("Appendix D laws", func() {
	for name, src := range lawCharts {
		It("keeps "+name+" legal and deterministic on random events", func() {
			m, err := scxml.Load(name+".scxml", []byte(src), scxml.Options{})
			Expect(err).NotTo(HaveOccurred())
			params := gopter.DefaultTestParametersWithSeed(lawSeed)
			params.MinSuccessfulTests = 300
			props := gopter.NewProperties(params)
			props.Property(name, prop.ForAll(func(events []string) string {
				s := m.NewSession()
				s.Start()
				if msg := legal(s); msg != "" && s.Running() {
					return "at the start: " + msg
				}
				for i, e := range events {
					play(s, []string{e})
					if !s.Running() {
						break
					}
					if msg := legal(s); msg != "" {
						return fmt.Sprintf("after %s: %s", strings.Join(events[:i+1], " "), msg)
					}
				}
				again := m.NewSession()
				again.Start()
				play(again, events)
				if again.Key() != s.Key() {
					return "replaying the events gave another session"
				}
				return ""
			}, gen.SliceOf(gen.OneConstOf(toAny(lawEvents)...))))
			var out bytes.Buffer
			if !props.Run(gopter.NewFormatedReporter(true, 1<<16, &out)) {
				Fail(fmt.Sprintf("law broken; gopter seed %d\n%s", lawSeed, out.String()))
			}
		})
	}
})

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
