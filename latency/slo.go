package latency

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// Stat is the statistic an SLO bounds.
type Stat uint8

const (
	// Percentile is the nearest-rank percentile SLO.P.
	Percentile Stat = iota
	// Max is the largest sample.
	Max
	// Mean is the arithmetic mean.
	Mean
)

// Scope is the set of samples an SLO reads; the names are the scope
// column of latency.csv.
type Scope uint8

const (
	// ScopeTurn: every user turn's latency.
	ScopeTurn Scope = iota
	// ScopeState: the turns that ended in a state (or a state inside it).
	ScopeState
	// ScopeTransition: the latency attributed to each taking of a
	// transition.
	ScopeTransition
	// ScopeTurnIndex: the latency of turn N of every conversation.
	ScopeTurnIndex
)

// ScopeNames names the scopes as latency.csv writes them.
var ScopeNames = []string{"turn", "state", "transition", "turn_index"}

func (s Scope) String() string { return ScopeNames[s] }

// SLO is one parsed service-level objective of machine.yaml's slo: list:
//
//	STAT SCOPE latency OP DURATION
//	STAT  = pN (0 < N <= 100: p50, p95, p99.9) | max | mean
//	SCOPE = turn | turn N | state STATE | transition ID
//	OP    = <= | <
type SLO struct {
	// Text is the objective as written, spaces trimmed.
	Text string
	Pos  engine.Pos
	Stat Stat
	P    float64 // Percentile: 0 < P <= 100
	// Scope, with the state, transition or turn number it names.
	Scope Scope
	State engine.StateID
	Trans engine.TransID
	Turn  int
	// Strict is true for "<", false for "<=".
	Strict  bool
	LimitMS int64
}

// SyntaxError is an SLO that does not parse; Offset is the byte offset in
// the text of the token at fault.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return e.Msg }

// sloForm is appended to syntax errors, so the reader sees the grammar.
const sloForm = "an SLO reads STAT SCOPE latency OP DURATION, such as \"p95 turn latency <= 1500ms\""

type token struct {
	text string
	off  int
}

func tokens(s string) []token {
	var out []token
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		if j > i {
			out = append(out, token{s[i:j], i})
		}
		i = j
	}
	return out
}

// ParseSLO parses one objective and resolves the state or transition it
// names in m.
func ParseSLO(text string, m *engine.Machine) (SLO, error) {
	slo := SLO{Text: strings.TrimSpace(text), State: engine.NoID, Trans: engine.NoID}
	toks := tokens(text)
	i := 0
	errAt := func(off int, format string, args ...any) error {
		return &SyntaxError{Offset: off, Msg: fmt.Sprintf("slo %q: ", slo.Text) + fmt.Sprintf(format, args...)}
	}
	next := func(what string) (token, error) {
		if i >= len(toks) {
			return token{}, errAt(len(strings.TrimRight(text, " \t")), "missing %s (%s)", what, sloForm)
		}
		i++
		return toks[i-1], nil
	}
	t, err := next("statistic")
	if err != nil {
		return slo, err
	}
	switch {
	case t.text == "max":
		slo.Stat = Max
	case t.text == "mean":
		slo.Stat = Mean
	case strings.HasPrefix(t.text, "p"):
		p, perr := strconv.ParseFloat(t.text[1:], 64)
		if perr != nil || !(p > 0 && p <= 100) || strings.ContainsAny(t.text[1:], "eEnNxX+-_") {
			return slo, errAt(t.off, "percentile %q: expected p followed by a number above 0 and at most 100, such as p95", t.text)
		}
		slo.Stat, slo.P = Percentile, p
	default:
		return slo, errAt(t.off, "expected a statistic (pN such as p95, max or mean), got %q (%s)", t.text, sloForm)
	}
	if t, err = next("scope (turn, turn N, state NAME or transition ID)"); err != nil {
		return slo, err
	}
	switch t.text {
	case "turn":
		slo.Scope = ScopeTurn
		if i < len(toks) && toks[i].text != "latency" {
			n, nerr := strconv.Atoi(toks[i].text)
			if nerr != nil || n < 1 {
				return slo, errAt(toks[i].off, "expected \"latency\" or a turn number (1 or more) after turn, got %q", toks[i].text)
			}
			slo.Scope, slo.Turn = ScopeTurnIndex, n
			i++
		}
	case "state":
		if t, err = next("state name"); err != nil {
			return slo, err
		}
		id, ok := m.StateID(t.text)
		if !ok {
			return slo, errAt(t.off, "unknown state %q (states: %s)", t.text, stateList(m))
		}
		slo.Scope, slo.State = ScopeState, id
	case "transition":
		if t, err = next("transition id"); err != nil {
			return slo, err
		}
		n, nerr := strconv.Atoi(t.text)
		if nerr != nil || n < 0 || n >= m.NumTransitions() {
			return slo, errAt(t.off, "expected a transition id from 0 to %d (the transition column of transitions.csv), got %q", m.NumTransitions()-1, t.text)
		}
		slo.Scope, slo.Trans = ScopeTransition, engine.TransID(n)
	default:
		return slo, errAt(t.off, "expected a scope (turn, turn N, state NAME or transition ID), got %q (%s)", t.text, sloForm)
	}
	if t, err = next("\"latency\""); err != nil {
		return slo, err
	}
	if t.text != "latency" {
		return slo, errAt(t.off, "expected \"latency\" after the scope, got %q (%s)", t.text, sloForm)
	}
	if t, err = next("comparison (<= or <)"); err != nil {
		return slo, err
	}
	switch t.text {
	case "<=":
	case "<":
		slo.Strict = true
	default:
		return slo, errAt(t.off, "expected <= or <, got %q (an SLO is an upper bound)", t.text)
	}
	if t, err = next("duration"); err != nil {
		return slo, err
	}
	ms, derr := ParseMS(t.text)
	if derr != nil {
		return slo, errAt(t.off, "%v", derr)
	}
	slo.LimitMS = ms
	if i < len(toks) {
		return slo, errAt(toks[i].off, "unexpected %q after the duration (%s)", toks[i].text, sloForm)
	}
	return slo, nil
}

func stateList(m *engine.Machine) string {
	names := make([]string, m.NumStates())
	for i := range names {
		names[i] = m.StateName(engine.StateID(i))
	}
	// Sorted, at most ten, as the other unknown-state errors list them.
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && names[j] < names[j-1]; j-- {
			names[j], names[j-1] = names[j-1], names[j]
		}
	}
	if len(names) > 10 {
		names = append(names[:10], "…")
	}
	return strings.Join(names, ", ")
}

// ParseMS reads a duration of virtual time as machine.yaml writes it
// (1500ms, 1.5s, 2m, or a bare number of milliseconds) in whole
// milliseconds; a negative one is an error that says so.
func ParseMS(s string) (int64, error) {
	bad := fmt.Errorf("expected a duration such as 250ms, 1.5s or 2m, got %q", s)
	if rest, neg := strings.CutPrefix(s, "-"); neg {
		if _, err := ParseMS(rest); err == nil {
			return 0, fmt.Errorf("duration %s is negative", s)
		}
		return 0, bad
	}
	if strings.HasPrefix(s, "+") {
		return 0, bad
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, bad
	}
	return d.Milliseconds(), nil
}

// Verdict is an SLO judged over a run.
type Verdict struct {
	SLO     *SLO
	Variant string
	Pass    bool
	// Samples is how many samples the SLO read. With none the objective
	// is not judged (Status "not judged"): neither met nor failed, since a
	// run of part of the scenarios (--only) may play no turn it reads.
	Samples int64
	// Got is the statistic, in milliseconds (fractional only for a mean).
	Got float64
}

// Verdict statuses.
const (
	StatusPass      = "pass"
	StatusFail      = "fail"
	StatusNotJudged = "not judged"
)

// Status is pass, fail, or not judged when the objective read no sample.
func (v Verdict) Status() string {
	switch {
	case v.Samples == 0:
		return StatusNotJudged
	case v.Pass:
		return StatusPass
	}
	return StatusFail
}

// Failed reports whether the objective was judged and not met.
func (v Verdict) Failed() bool { return v.Status() == StatusFail }

// GotText writes the statistic the way the objective does: 1720ms.
func (v Verdict) GotText() string {
	if v.Samples == 0 {
		return "no samples"
	}
	return strconv.FormatFloat(float64(int64(v.Got*10+0.5))/10, 'f', -1, 64) + "ms"
}

// Check judges the SLO on the aggregate l of machine m (nil: no samples).
func (s *SLO) Check(m *engine.Machine, l *eval.Latency) Verdict {
	v := Verdict{SLO: s}
	h := s.samples(m, l)
	if h == nil || h.Count() == 0 {
		return v
	}
	v.Samples = h.Count()
	limit := s.LimitMS
	switch s.Stat {
	case Mean:
		// Exact: compare sums, not a rounded mean.
		v.Got = float64(h.Sum()) / float64(h.Count())
		total := limit * h.Count()
		v.Pass = h.Sum() < total || (!s.Strict && h.Sum() == total)
		return v
	case Max:
		v.Got = float64(h.Max())
	default:
		v.Got = float64(h.Percentile(s.P))
	}
	got := int64(v.Got)
	v.Pass = got < limit || (!s.Strict && got == limit)
	return v
}

// samples returns the histogram the SLO reads.
func (s *SLO) samples(m *engine.Machine, l *eval.Latency) *eval.Hist {
	if l == nil {
		return nil
	}
	switch s.Scope {
	case ScopeTurn:
		return &l.Turn
	case ScopeTurnIndex:
		if s.Turn-1 < len(l.ByTurnIndex) {
			return l.ByTurnIndex[s.Turn-1]
		}
	case ScopeTransition:
		return l.ByTransition[s.Trans]
	case ScopeState:
		var h eval.Hist
		for id, sh := range l.ByState {
			if m.InState(id, s.State) {
				h.Merge(sh)
			}
		}
		return &h
	}
	return nil
}
