package engine_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
	"github.com/simctl/simctl/spec"
)

// parallelYAML is a parallel state p with two regions, r1 and r2, each
// two states and a final one; every state says when it is entered and
// exited, so the order of actions shows SCXML's exit and entry order.
// go moves both regions; x leaves p from both regions to different
// targets (a conflict); y is r1's own transition and, in r2, p's.
const parallelYAML = `machine: par
initial: idle
intents: [start, go, x, y, leave, fin1, fin2, nothing]
states:
  idle:
    waits: true
    on: {start: p}
  p:
    parallel: true
    entry: [{say: "enter p"}]
    exit: [{say: "exit p"}]
    on:
      leave: {target: out, actions: [{say: "leave"}]}
      y: {target: out, actions: [{say: "p y"}]}
      done.state.p: {target: done, actions: [{say: "p done"}]}
    states:
      r1:
        initial: a1
        entry: [{say: "enter r1"}]
        exit: [{say: "exit r1"}]
        on:
          done.state.p.r1: {actions: [{say: "r1 done"}]}
        states:
          a1:
            entry: [{say: "enter a1"}]
            exit: [{say: "exit a1"}]
            on:
              go: {target: r1.a2, actions: [{say: "go a"}]}
              x: {target: out, actions: [{say: "x r1"}]}
              y: {target: r1.a2, actions: [{say: "y r1"}]}
          a2:
            initial: deep
            entry: [{say: "enter a2"}]
            exit: [{say: "exit a2"}]
            on: {fin1: r1.af}
            states:
              deep:
                entry: [{say: "enter deep"}]
                exit: [{say: "exit deep"}]
          af: {final: true, entry: [{say: "r1 final"}]}
      r2:
        initial: b1
        entry: [{say: "enter r2"}]
        exit: [{say: "exit r2"}]
        states:
          b1:
            entry: [{say: "enter b1"}]
            exit: [{say: "exit b1"}]
            on:
              go: {target: r2.b2, actions: [{say: "go b"}]}
              x: {target: done, actions: [{say: "x r2"}]}
          b2:
            entry: [{say: "enter b2"}]
            exit: [{say: "exit b2"}]
            on: {fin2: r2.bf}
          bf: {final: true, entry: [{say: "r2 final"}]}
  out: {waits: true}
  done: {waits: true}
`

// historyYAML is a compound state s (children a and b; b has b1 and b2)
// left by out and resumed by back (shallow history), deep (deep history)
// or fresh (no history); i and e go to s.b as an internal and an external
// transition of s.
const historyYAML = `machine: hist
initial: s
intents: [next, out, back, deep, fresh, i, e, fin]
states:
  s:
    initial: a
    entry: [{say: "enter s"}]
    exit: [{say: "exit s"}]
    on:
      out: o
      i: {target: s.b, type: internal}
      e: s.b
      done.state.s: {target: o, actions: [{say: "s done"}]}
    states:
      a:
        entry: [{say: "enter a"}]
        exit: [{say: "exit a"}]
        on: {next: s.b, fin: s.end}
      b:
        initial: b1
        entry: [{say: "enter b"}]
        exit: [{say: "exit b"}]
        states:
          b1:
            entry: [{say: "enter b1"}]
            exit: [{say: "exit b1"}]
            on: {next: s.b.b2}
          b2:
            entry: [{say: "enter b2"}]
            exit: [{say: "exit b2"}]
      end: {final: true}
  o:
    waits: true
    on:
      back: {target: s, history: shallow}
      deep: {target: s, history: deep}
      fresh: s
`

// regionHistoryYAML resumes a compound state inside a region of a parallel
// state by its shallow history, while the other region stays where it is.
const regionHistoryYAML = `machine: regionhist
initial: p
intents: [next, help, back]
states:
  p:
    parallel: true
    states:
      r1:
        initial: form
        states:
          form:
            initial: q1
            on: {help: r1.explaining}
            states:
              q1:
                entry: [{say: "q1"}]
                on: {next: r1.form.q2}
              q2:
                entry: [{say: "q2"}]
          explaining:
            entry: [{say: "help"}]
            on: {back: {target: r1.form, history: shallow}}
      r2:
        initial: b1
        states:
          b1:
            on: {next: r2.b2}
          b2:
            entry: [{say: "b2"}]
`

// wrappedParallelYAML holds parallel state p inside compound states s and
// t, and parallel state a2 inside p's region r1: out leaves s, and deep
// and shallow come back to it by its history. go moves both of p's
// regions, in moves a2's region q1; again, from inside p, resumes t's
// deep history without leaving t.
const wrappedParallelYAML = `machine: wrapped
initial: idle
intents: [start, go, in, leave, deep, shallow, again]
states:
  idle:
    waits: true
    on: {start: s}
  s:
    initial: t
    entry: [{say: "enter s"}]
    exit: [{say: "exit s"}]
    on: {leave: out}
    states:
      t:
        initial: p
        entry: [{say: "enter t"}]
        states:
          p:
            parallel: true
            entry: [{say: "enter p"}]
            exit: [{say: "exit p"}]
            states:
              r1:
                initial: a1
                states:
                  a1: {entry: [{say: "enter a1"}], on: {go: r1.a2}}
                  a2:
                    parallel: true
                    entry: [{say: "enter a2"}]
                    states:
                      q1:
                        initial: x1
                        states:
                          x1: {entry: [{say: "enter x1"}], on: {in: q1.x2}}
                          x2: {entry: [{say: "enter x2"}]}
                      q2: {initial: y1, states: {y1: {entry: [{say: "enter y1"}]}}}
              r2:
                initial: b1
                states:
                  b1: {entry: [{say: "enter b1"}], on: {go: r2.b2}}
                  b2: {entry: [{say: "enter b2"}], on: {again: {target: s.t, history: deep}}}
  out:
    waits: true
    on:
      deep: {target: s, history: deep}
      shallow: {target: s, history: shallow}
`

// chartCase is a machine, the events fed to it after its start, what it
// says in response (all events together, in order) and the atomic states
// active at the end.
type chartCase struct {
	yaml   string
	events []string
	says   []string
	leaves []string
}

// activeLeaves lists the active atomic states: the main machine's, or each
// region's, in region order (a position that a parallel state nested in a
// region holds only while it is active is skipped while empty).
func activeLeaves(m *engine.Machine, c *engine.Config) []string {
	if c.NBranch == 0 {
		return []string{m.StateName(c.State)}
	}
	var out []string
	for i := 0; i < int(c.NBranch); i++ {
		if s := c.Branches[i].State; s != engine.NoID {
			out = append(out, m.StateName(s))
		}
	}
	return out
}

// startChart loads a machine from YAML and starts it.
func startChart(yaml string) (*engine.Machine, *engine.Config, *engine.Result) {
	GinkgoHelper()
	s, err := spec.LoadMachine("chart.yaml", []byte(yaml))
	Expect(err).NotTo(HaveOccurred())
	var c engine.Config
	var r engine.Result
	Expect(s.Machine.Start(&c, 0, &r)).To(Succeed())
	return s.Machine, &c, &r
}

var _ = Describe("statechart semantics (SCXML's microstep)", func() {
	DescribeTable("over small YAML machines, observed through the order of their actions",
		func(tc chartCase) {
			m, c, r := startChart(tc.yaml)
			var says []string
			for _, s := range tc.events {
				ev, err := et.ParseEvent(m, c, s)
				Expect(err).NotTo(HaveOccurred())
				Expect(m.Step(c, &ev, r)).To(Succeed())
				says = append(says, et.Says(r)...)
			}
			Expect(says).To(Equal(tc.says))
			Expect(activeLeaves(m, c)).To(Equal(tc.leaves))
		},
		Entry("entering a parallel state enters it, then each region outermost first, in document order", chartCase{
			yaml: parallelYAML, events: []string{"start"},
			says:   []string{"enter p", "enter r1", "enter a1", "enter r2", "enter b1"},
			leaves: []string{"p.r1.a1", "p.r2.b1"},
		}),
		Entry("an event moves every region that has a transition for it, several leaves active at once", chartCase{
			yaml: parallelYAML, events: []string{"start", "go"},
			says: []string{"enter p", "enter r1", "enter a1", "enter r2", "enter b1",
				// One microstep: exits in reverse document order, the
				// transitions' actions in document order, then entries.
				"exit b1", "exit a1", "go a", "go b", "enter a2", "enter deep", "enter b2"},
			leaves: []string{"p.r1.a2.deep", "p.r2.b2"},
		}),
		Entry("of two transitions leaving the parallel state, the first in document order is taken", chartCase{
			yaml: parallelYAML, events: []string{"start", "x"},
			says: []string{"enter p", "enter r1", "enter a1", "enter r2", "enter b1",
				"exit b1", "exit r2", "exit a1", "exit r1", "exit p", "x r1"},
			leaves: []string{"out"},
		}),
		Entry("a region's own transition preempts its parallel state's, which another region selected", chartCase{
			yaml: parallelYAML, events: []string{"start", "y"},
			says: []string{"enter p", "enter r1", "enter a1", "enter r2", "enter b1",
				"exit a1", "y r1", "enter a2", "enter deep"},
			leaves: []string{"p.r1.a2.deep", "p.r2.b1"},
		}),
		Entry("leaving a parallel state exits its active states deepest first, the last region first, then the parallel state", chartCase{
			yaml: parallelYAML, events: []string{"start", "go", "leave"},
			says: []string{"enter p", "enter r1", "enter a1", "enter r2", "enter b1",
				"exit b1", "exit a1", "go a", "go b", "enter a2", "enter deep", "enter b2",
				"exit b2", "exit r2", "exit deep", "exit a2", "exit r1", "exit p", "leave"},
			leaves: []string{"out"},
		}),
		Entry("a region entering its final child raises its own done.state, not the parallel state's", chartCase{
			yaml: parallelYAML, events: []string{"start", "go", "fin1"},
			says: []string{"enter p", "enter r1", "enter a1", "enter r2", "enter b1",
				"exit b1", "exit a1", "go a", "go b", "enter a2", "enter deep", "enter b2",
				"exit deep", "exit a2", "r1 final", "r1 done"},
			leaves: []string{"p.r1.af", "p.r2.b2"},
		}),
		Entry("done.state.p is raised once every region is final, and its transition leaves p", chartCase{
			yaml: parallelYAML, events: []string{"start", "go", "fin1", "fin2"},
			says: []string{"enter p", "enter r1", "enter a1", "enter r2", "enter b1",
				"exit b1", "exit a1", "go a", "go b", "enter a2", "enter deep", "enter b2",
				"exit deep", "exit a2", "r1 final", "r1 done",
				"exit b2", "r2 final", "exit r2", "exit r1", "exit p", "p done"},
			leaves: []string{"done"},
		}),
		Entry("done.state.s is raised when a compound state's final child is entered", chartCase{
			yaml: historyYAML, events: []string{"fin"},
			says:   []string{"exit a", "exit s", "s done"},
			leaves: []string{"o"},
		}),
		Entry("an external transition exits deepest first and enters outermost first", chartCase{
			yaml: historyYAML, events: []string{"next", "next", "out"},
			says: []string{"exit a", "enter b", "enter b1", "exit b1", "enter b2",
				"exit b2", "exit b", "exit s"},
			leaves: []string{"o"},
		}),
		Entry("a shallow history resumes the child that was active, entering its initial states", chartCase{
			yaml: historyYAML, events: []string{"next", "next", "out", "back"},
			says: []string{"exit a", "enter b", "enter b1", "exit b1", "enter b2",
				"exit b2", "exit b", "exit s", "enter s", "enter b", "enter b1"},
			leaves: []string{"s.b.b1"},
		}),
		Entry("a deep history resumes the atomic state that was active", chartCase{
			yaml: historyYAML, events: []string{"next", "next", "out", "deep"},
			says: []string{"exit a", "enter b", "enter b1", "exit b1", "enter b2",
				"exit b2", "exit b", "exit s", "enter s", "enter b", "enter b2"},
			leaves: []string{"s.b.b2"},
		}),
		Entry("a history never recorded enters the initial states", chartCase{
			yaml: strings.Replace(historyYAML, "initial: s\n", "initial: o\n", 1), events: []string{"deep"},
			says:   []string{"enter s", "enter a"},
			leaves: []string{"s.a"},
		}),
		Entry("a history records the state it was left from, a final one included", chartCase{
			yaml: historyYAML, events: []string{"fin", "deep"},
			// s.end is resumed, and done.state.s raised again.
			says:   []string{"exit a", "exit s", "s done", "enter s", "exit s", "s done"},
			leaves: []string{"o"},
		}),
		Entry("a transition without history enters afresh, whatever was recorded", chartCase{
			yaml: historyYAML, events: []string{"next", "next", "out", "fresh"},
			says: []string{"exit a", "enter b", "enter b1", "exit b1", "enter b2",
				"exit b2", "exit b", "exit s", "enter s", "enter a"},
			leaves: []string{"s.a"},
		}),
		Entry("a parallel state's deep history resumes every region where it was", chartCase{
			yaml:   strings.Replace(parallelYAML, "  out: {waits: true}", "  out: {waits: true, on: {start: {target: p, history: deep}}}", 1),
			events: []string{"start", "go", "leave", "start"},
			says: []string{"enter p", "enter r1", "enter a1", "enter r2", "enter b1",
				"exit b1", "exit a1", "go a", "go b", "enter a2", "enter deep", "enter b2",
				"exit b2", "exit r2", "exit deep", "exit a2", "exit r1", "exit p", "leave",
				"enter p", "enter r1", "enter a2", "enter deep", "enter r2", "enter b2"},
			leaves: []string{"p.r1.a2.deep", "p.r2.b2"},
		}),
		// SCXML's deep history records every active atomic state below its
		// parent: one over a parallel state, at any depth, resumes each
		// region (and each region of a parallel state nested in one) at
		// the leaf it was left in.
		Entry("a compound state's deep history resumes every region of the parallel state below it", chartCase{
			yaml:   wrappedParallelYAML,
			events: []string{"start", "go", "in", "leave", "deep"},
			says: []string{"enter s", "enter t", "enter p", "enter a1", "enter b1",
				"enter a2", "enter x1", "enter y1", "enter b2",
				"enter x2",
				"exit p", "exit s",
				"enter s", "enter t", "enter p", "enter a2", "enter x2", "enter y1", "enter b2"},
			leaves: []string{"s.t.p.r1.a2.q1.x2", "s.t.p.r1.a2.q2.y1", "s.t.p.r2.b2"},
		}),
		Entry("a compound state's deep history over a parallel state resumes what it recorded when it was last exited, not since", chartCase{
			yaml:   wrappedParallelYAML,
			events: []string{"start", "leave", "deep", "go", "again"},
			// again, from b2 to t's history, does not exit t: t resumes
			// where it was as it was left by leave, though p was exited
			// since, in a2 and b2.
			says: []string{"enter s", "enter t", "enter p", "enter a1", "enter b1",
				"exit p", "exit s",
				"enter s", "enter t", "enter p", "enter a1", "enter b1",
				"enter a2", "enter x1", "enter y1", "enter b2",
				"exit p", "enter p", "enter a1", "enter b1"},
			leaves: []string{"s.t.p.r1.a1", "s.t.p.r2.b1"},
		}),
		Entry("a compound state's shallow history over a parallel state enters its regions afresh", chartCase{
			yaml:   wrappedParallelYAML,
			events: []string{"start", "go", "in", "leave", "shallow"},
			says: []string{"enter s", "enter t", "enter p", "enter a1", "enter b1",
				"enter a2", "enter x1", "enter y1", "enter b2",
				"enter x2",
				"exit p", "exit s",
				"enter s", "enter t", "enter p", "enter a1", "enter b1"},
			leaves: []string{"s.t.p.r1.a1", "s.t.p.r2.b1"},
		}),
		Entry("a compound state's deep history over a parallel state, never recorded, enters the initial states", chartCase{
			yaml:   strings.Replace(wrappedParallelYAML, "initial: idle\n", "initial: out\n", 1),
			events: []string{"deep"},
			says:   []string{"enter s", "enter t", "enter p", "enter a1", "enter b1"},
			leaves: []string{"s.t.p.r1.a1", "s.t.p.r2.b1"},
		}),
		Entry("a history inside a region resumes there, the other region untouched", chartCase{
			yaml: regionHistoryYAML, events: []string{"next", "help", "back"},
			says:   []string{"q2", "b2", "help", "q2"},
			leaves: []string{"p.r1.form.q2", "p.r2.b2"},
		}),
		Entry("an internal transition to a descendant does not exit its source", chartCase{
			yaml: historyYAML, events: []string{"i"},
			says:   []string{"exit a", "enter b", "enter b1"},
			leaves: []string{"s.b.b1"},
		}),
		Entry("an external one exits and re-enters its source", chartCase{
			yaml: historyYAML, events: []string{"e"},
			says:   []string{"exit a", "exit s", "enter s", "enter b", "enter b1"},
			leaves: []string{"s.b.b1"},
		}),
	)

	DescribeTable("an event no transition takes starts no microstep: no step, no action, the configuration as it was",
		func(yaml string, events []string, ignored string) {
			m, c, r := startChart(yaml)
			for _, s := range events {
				ev, err := et.ParseEvent(m, c, s)
				Expect(err).NotTo(HaveOccurred())
				Expect(m.Step(c, &ev, r)).To(Succeed())
			}
			before := *c
			ev, err := et.ParseEvent(m, c, ignored)
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Step(c, &ev, r)).To(Succeed())
			Expect(r.Handled).To(BeFalse())
			Expect(r.Steps).To(BeEmpty())
			Expect(r.Actions).To(BeEmpty())
			Expect(r.Effects).To(BeEmpty())
			Expect(*c).To(Equal(before))
		},
		Entry("in the regions of a parallel state", parallelYAML, []string{"start"}, "nothing"),
		Entry("in a compound state", historyYAML, nil, "deep"),
	)

	DescribeTable("Build rejects what the semantics cannot run, with a position",
		func(yaml, want string) {
			_, err := spec.LoadMachine("bad.yaml", []byte(yaml))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("history of an atomic state", `machine: h
initial: a
intents: [go]
states:
  a: {on: {go: {target: b, history: deep}}}
  b: {waits: true}
`, `bad.yaml:5:37: history: state "b" has no child states, so it has no history to resume`),
		Entry("an unknown history kind", `machine: h
initial: a
intents: [go]
states:
  a: {on: {go: {target: b, history: deepest}}}
  b:
    initial: c
    states: {c: {waits: true}}
`, `bad.yaml:5:37: history "deepest": expected shallow or deep`),
		Entry("an internal transition to a state outside its source", `machine: h
initial: a
intents: [go]
states:
  a: {on: {go: {target: b, type: internal}}}
  b: {waits: true}
`, `bad.yaml:5:34: an internal transition of state "a" needs a target inside it, not "b"`),
		Entry("an unknown transition type", `machine: h
initial: a
intents: [go]
states:
  a: {on: {go: {target: b, type: sideways}}}
  b: {waits: true}
`, `bad.yaml:5:34: transition type "sideways": expected internal or external`),
		Entry("a parallel state with an initial state", `machine: h
initial: p
states:
  p:
    parallel: true
    initial: r1
    states:
      r1: {initial: x, states: {x: {waits: true}}}
`, `parallel state "p" starts all its regions, so it cannot have an initial state`),
		Entry("done.state of an atomic state", `machine: h
initial: a
states:
  a: {on: {done.state.a: b}}
  b: {waits: true}
`, `done.state.a: state "a" has no child states, so it is never done`),
	)
})
