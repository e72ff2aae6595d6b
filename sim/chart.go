package sim

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
	"github.com/simctl/simctl/statechart"
)

// ChartResult is the outcome of one scenario of an SCXML suite.
type ChartResult struct {
	Scenario    string
	File        string
	Status      Status
	Turns       int
	Transitions int
	Failures    []Failure
	// Trace lists each microstep's transitions ("s1 -> s2 on e"), when asked.
	Trace []string
	// Taken names the transitions taken (ChartTransitionName), for coverage.
	Taken []string
}

// ChartTransitionName names a transition by its position in machine.scxml.
func ChartTransitionName(t *statechart.Transition) string { return t.Pos.String() }

// ChartTransitions counts a chart suite's transitions.
func ChartTransitions(cs *spec.ChartSuite) int {
	n := 0
	for i := range cs.Machine.Chart.States {
		n += len(cs.Machine.Chart.States[i].Trans)
	}
	return n
}

// RunChartScenario plays a chart scenario on a fresh session: each turn
// sends its event (or moves the virtual clock, delivering the delayed
// events that fall due), then checks its expectations.
func RunChartScenario(cs *spec.ChartSuite, sc *spec.ChartScenario, trace bool) *ChartResult {
	r := &ChartResult{Scenario: sc.Name, File: sc.File, Status: Pass}
	c := cs.Machine.Chart
	s := cs.Machine.NewSession()
	s.Trace = func(ts []*statechart.Transition) {
		r.Transitions += len(ts)
		for _, t := range ts {
			r.Taken = append(r.Taken, ChartTransitionName(t))
		}
		if trace {
			for _, t := range ts {
				r.Trace = append(r.Trace, describeChartTransition(c, t))
			}
		}
	}
	s.Start()
	for i, t := range sc.Turns {
		r.Turns = i + 1
		if t.Wait != nil {
			s.Advance(int64(*t.Wait))
		} else {
			s.Send(statechart.Event{Name: t.Event.Name.Value, Data: t.Event.EventData()})
		}
		if h := s.Halted(); h != "" {
			r.fail(t.Pos, i+1, h, "", "")
			break
		}
		if e := t.Expect; e != nil {
			checkChart(r, s, e, i+1)
		}
	}
	return r
}

func (r *ChartResult) fail(pos engine.Pos, turn int, what, got, want string) {
	r.Status = Fail
	r.Failures = append(r.Failures, Failure{Pos: pos, Turn: turn, What: what, Got: got, Want: want})
}

func checkChart(r *ChartResult, s *statechart.Session, e *spec.ChartExpect, turn int) {
	if e.Configuration != nil {
		var want []string
		for _, x := range *e.Configuration {
			want = append(want, x.Value)
		}
		got := append([]string(nil), s.Active()...)
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			r.fail(e.Pos, turn, "configuration", "["+strings.Join(got, " ")+"]", "["+strings.Join(want, " ")+"]")
		}
	}
	for _, x := range e.Active {
		if !s.In(x.Value) {
			r.fail(x.Pos, turn, "active", "["+strings.Join(s.Active(), " ")+"]", x.Value)
		}
	}
	if e.Done != nil && *e.Done == s.Running() {
		r.fail(e.DonePos, turn, "done", fmt.Sprint(!s.Running()), fmt.Sprint(*e.Done))
	}
}

func describeChartTransition(c *statechart.Chart, t *statechart.Transition) string {
	var targets []string
	for _, x := range t.Targets {
		targets = append(targets, c.States[x].ID)
	}
	to := strings.Join(targets, " ")
	if to == "" {
		to = "(targetless)"
	}
	on := strings.Join(t.Events, " ")
	if on == "" {
		on = "(eventless)"
	}
	return fmt.Sprintf("%s -> %s on %s", c.States[t.Source].ID, to, on)
}

// ChartGenerated sums up generated runs of a chart.
type ChartGenerated struct {
	Runs, Done, Halted, Turns int
	Covered, Total            int
	// FirstHalt is the first run whose session halted (a macrostep that
	// did not settle): its events, for a scenario to replay.
	FirstHalt []string
	HaltMsg   string
}

// GenerateChart plays n runs of at most maxTurns events each, drawn from
// the chart's event alphabet (and, when events are delayed, waits to the
// next deadline). Run k draws from its own stream of (seed, k), so a run
// is the same whoever plays it.
func GenerateChart(cs *spec.ChartSuite, alphabet []string, n int, seed uint64, maxTurns int) ChartGenerated {
	g := ChartGenerated{Runs: n}
	covered := map[*statechart.Transition]bool{}
	c := cs.Machine.Chart
	for i := range c.States {
		g.Total += len(c.States[i].Trans)
	}
	for k := 0; k < n; k++ {
		rng := rand.New(rand.NewPCG(seed, uint64(k)))
		s := cs.Machine.NewSession()
		s.Trace = func(ts []*statechart.Transition) {
			for _, t := range ts {
				covered[t] = true
			}
		}
		s.Start()
		var played []string
		for turn := 0; turn < maxTurns && s.Running(); turn++ {
			choices := len(alphabet)
			due, delayed := s.NextDue()
			if delayed {
				choices++
			}
			if choices == 0 {
				break
			}
			x := rng.IntN(choices)
			if x == len(alphabet) {
				s.Advance(due - s.Now())
				played = append(played, "wait")
			} else {
				s.Send(statechart.Event{Name: alphabet[x]})
				played = append(played, alphabet[x])
			}
			g.Turns++
		}
		switch {
		case s.Halted() != "":
			g.Halted++
			if g.FirstHalt == nil {
				g.FirstHalt, g.HaltMsg = played, s.Halted()
			}
		case !s.Running():
			g.Done++
		}
	}
	g.Covered = len(covered)
	return g
}
