package sim

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/spec"
	"github.com/simctl/simctl/statechart"
)

// SCXML suites give their results the shapes YAML suites give theirs
// (ScenarioResult, eval.Coverage), so that reports, shards and the merge
// read both alike. A chart's ids in a Coverage: state k is the chart's
// state k+1 (the <scxml> root is left out), transition k is
// Chart.Transitions()[k].

// ChartCoverage returns zeroed coverage counters for a chart.
func ChartCoverage(c *statechart.Chart) *eval.Coverage {
	return eval.NewCoverageSized(len(c.Transitions()), len(c.States)-1)
}

// CountChart makes session s count into cov: every transition taken,
// every cond's outcome each time it is evaluated, and every state entered. A history pseudo-state counts as entered when a
// transition to it is taken (no configuration ever holds it). Trace, when
// set, is called after counting.
func CountChart(s *statechart.Session, cov *eval.Coverage, trace func([]*statechart.Transition)) {
	c := s.Chart()
	s.Trace = func(ts []*statechart.Transition) {
		for _, t := range ts {
			if cov != nil && t.ID < len(cov.Trans) {
				cov.Trans[t.ID]++
				for _, tg := range t.Targets {
					if k := c.States[tg].Kind; k == statechart.HistoryShallow || k == statechart.HistoryDeep {
						cov.States[tg-1]++
					}
				}
			}
		}
		if trace != nil {
			trace(ts)
		}
	}
	s.Guard = func(t *statechart.Transition, ok bool) {
		if cov == nil || t.ID >= len(cov.Trans) {
			return
		}
		if ok {
			cov.GuardTrue[t.ID]++
		} else {
			cov.GuardFalse[t.ID]++
		}
	}
	s.Entered = func(i int) {
		if cov != nil && i > 0 {
			cov.States[i-1]++
		}
	}
}

// RunChartScenario plays a chart scenario on a fresh session: each turn
// sends its event (or moves the virtual clock, delivering the delayed
// events that fall due), then checks its expectations. It counts into cov
// (nil: nowhere) and keeps the trace when asked.
func RunChartScenario(cs *spec.ChartSuite, sc *spec.ChartScenario, cov *eval.Coverage, trace bool) *ScenarioResult {
	r := &ScenarioResult{Suite: cs.Name, Scenario: sc.Name, File: sc.File, Description: sc.Description, Status: Pass}
	for _, t := range sc.Tags {
		r.Tags = append(r.Tags, t.Value)
	}
	c := cs.Machine.Chart
	s := cs.Machine.NewSession()
	turn, steps, kept := 0, 0, 0
	CountChart(s, cov, func(ts []*statechart.Transition) {
		r.Transitions += len(ts)
		steps += len(ts)
		for _, t := range ts {
			if trace && kept < MaxChartTrace {
				r.Trace = append(r.Trace, chartTraceLine(c, t, turn))
				kept++
			}
		}
	})
	// elide ends a turn's trace that passed MaxChartTrace with one line
	// saying how many transitions it left out.
	elide := func() {
		if trace && steps > kept {
			r.Trace = append(r.Trace, TraceLine{Turn: turn, Branch: -1, From: "…", Trigger: "…",
				To: fmt.Sprintf("(%d more transitions in this turn)", steps-kept)})
		}
	}
	s.Start()
	elide()
	for i, t := range sc.Turns {
		turn, steps, kept = i+1, 0, 0
		r.Turns = i + 1
		rec := TurnRecord{Turn: i + 1}
		if t.Wait != nil {
			s.Advance(int64(*t.Wait))
			r.DurationMS += int64(*t.Wait)
			rec.Kind, rec.Input = TurnWait, fmt.Sprintf("%dms", int64(*t.Wait))
		} else {
			s.Send(statechart.Event{Name: t.Event.Name.Value, Data: t.Event.EventData()})
			rec.Kind, rec.Input, rec.Intent = TurnEvent, chartEventData(t.Event), t.Event.Name.Value
		}
		elide()
		rec.State, rec.Transitions = strings.Join(s.Active(), " "), steps
		r.TurnLog = append(r.TurnLog, rec)
		if h := s.Halted(); h != "" {
			r.fail(t.Pos, i+1, h, "", "")
			break
		}
		if e := t.Expect; e != nil {
			checkChart(r, s, e, i+1)
		}
	}
	r.FinalState = strings.Join(s.Active(), " ")
	return r
}

// MaxChartTrace bounds the trace lines kept per turn of a chart scenario:
// a macrostep that does not settle takes 10,000 transitions.
const MaxChartTrace = 100

// chartEventData is an event's data as a turn's input ("{q: what}"), or
// "" when it has none; the event's name is the turn's intent.
func chartEventData(e *spec.ChartEvent) string {
	if len(e.Data) == 0 {
		return ""
	}
	parts := make([]string, len(e.Data))
	for i, d := range e.Data {
		parts[i] = d.Key + ": " + d.Value.Value
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (r *ScenarioResult) fail(pos engine.Pos, turn int, what, got, want string) {
	r.Status = Fail
	r.Failures = append(r.Failures, Failure{Pos: pos, Turn: turn, What: what, Got: got, Want: want})
}

func checkChart(r *ScenarioResult, s *statechart.Session, e *spec.ChartExpect, turn int) {
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

// chartTraceLine is a transition as a trace line: its source, its targets
// ("(targetless)" for none), its events ("(eventless)") and its cond.
func chartTraceLine(c *statechart.Chart, t *statechart.Transition, turn int) TraceLine {
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
	l := TraceLine{Turn: turn, Branch: -1, From: c.States[t.Source].ID, To: to, Trigger: on}
	if t.Cond != statechart.NoExpr {
		l.Guards = c.Exprs[t.Cond].Src
	}
	return l
}

// ChartMetrics sums up generated runs of a chart: Done reached a
// top-level final state (TurnsToDone sums their steps), Halted stopped on
// a macrostep that did not settle.
type ChartMetrics struct {
	Runs, Done, Halted, Turns, TurnsToDone int
}

// ChartRun is one generated run that halted: its index, the steps it
// played ("wait" moves the clock to the next delayed event) and why.
type ChartRun struct {
	Index int
	Steps []string
	Msg   string
}

// GenerateChart plays runs from..to-1 of at most maxTurns events each,
// drawn from the chart's event alphabet (and, when events are delayed,
// waits to the next deadline), counting into cov. Run k draws from its own
// stream of (seed, k), so a run is the same whoever plays it (a shard, or
// one process). Success is a run that reached a top-level final state; a
// run whose macrostep did not settle violates the chart (halted), and the
// first such run is returned.
func GenerateChart(cs *spec.ChartSuite, alphabet []string, from, to int, seed uint64, maxTurns int, cov *eval.Coverage) (ChartMetrics, *ChartRun) {
	var m ChartMetrics
	var first *ChartRun
	for k := from; k < to; k++ {
		rng := rand.New(rand.NewPCG(seed, uint64(k)))
		s := cs.Machine.NewSession()
		CountChart(s, cov, nil)
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
				ms := due - s.Now()
				s.Advance(ms)
				played = append(played, fmt.Sprintf("wait %dms", ms))
			} else {
				s.Send(statechart.Event{Name: alphabet[x]})
				played = append(played, alphabet[x])
			}
			if s.Halted() != "" {
				break
			}
		}
		m.Runs++
		m.Turns += len(played)
		switch {
		case s.Halted() != "":
			m.Halted++
			if first == nil {
				first = &ChartRun{Index: k, Steps: played, Msg: s.Halted()}
			}
		case !s.Running():
			m.Done++
			m.TurnsToDone += len(played)
		}
	}
	return m, first
}
