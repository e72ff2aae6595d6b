// Package latency is simctl's latency model: how long the effects of a
// conversation take on the virtual clock, and the service-level objectives
// (SLOs) a suite asserts about it.
//
// A Model gives a distribution per kind of effect — an NLU call, the entry
// into a validation state, an external action, an LLM call, a speech
// synthesis — with overrides per state and per action, already resolved to
// the machine's state and action ids. Package spec builds it from the
// latency: section of machine.yaml; the driver in package sim samples it
// from the conversation's seeded source, so a run stays a function of its
// seed. Nothing here reads the wall clock or a global random source.
//
// An SLO ("p95 turn latency <= 1500ms") is parsed by ParseSLO and judged by
// SLO.Check against the aggregate eval.Latency of a suite and variant.
package latency

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
)

// DistKind says how a distribution draws.
type DistKind uint8

const (
	// Fixed always gives A.
	Fixed DistKind = iota
	// Uniform draws a whole number of milliseconds from [A, B].
	Uniform
	// Normal draws around mean A with standard deviation B, clamped at 0.
	Normal
	// LogNormal draws Median·e^(Sigma·N(0,1)): a long right tail, as
	// network and model calls have.
	LogNormal
	// Empirical draws one of Values, each equally likely.
	Empirical
)

// DistKinds names the kinds in the order machine.yaml documents them.
var DistKinds = []string{"fixed", "uniform", "normal", "lognormal", "empirical"}

func (k DistKind) String() string { return DistKinds[k] }

// MaxMS bounds a sample (about 31 years), so that a lognormal tail cannot
// overflow the clock.
const MaxMS = int64(1e12)

// Dist is a distribution of durations in whole milliseconds.
type Dist struct {
	Kind DistKind
	Pos  engine.Pos
	// A and B: fixed A; uniform [A, B]; normal mean A, standard deviation
	// B; lognormal median A.
	A, B   int64
	Sigma  float64 // lognormal
	Values []int64 // empirical
}

// Sample draws one duration from r. A nil distribution costs nothing and
// draws nothing, so a model that leaves a kind out does not shift the
// draws of the others.
func (d *Dist) Sample(r *rand.Rand) int64 {
	if d == nil {
		return 0
	}
	switch d.Kind {
	case Fixed:
		return d.A
	case Uniform:
		if d.B <= d.A {
			return d.A
		}
		return d.A + r.Int64N(d.B-d.A+1)
	case Normal:
		return clampRound(float64(d.A) + float64(d.B)*r.NormFloat64())
	case LogNormal:
		return clampRound(float64(d.A) * math.Exp(d.Sigma*r.NormFloat64()))
	case Empirical:
		if len(d.Values) == 0 {
			return 0
		}
		return d.Values[r.IntN(len(d.Values))]
	}
	return 0
}

// clampRound rounds x to whole milliseconds within [0, MaxMS].
func clampRound(x float64) int64 {
	switch {
	case !(x > 0): // negative, zero or NaN
		return 0
	case x >= float64(MaxMS):
		return MaxMS
	}
	return int64(math.Round(x))
}

// Check reports what is wrong with d, or nil: a negative duration, a
// uniform range whose minimum is above its maximum, a negative or
// non-finite sigma, an empty empirical list.
func (d *Dist) Check() error {
	neg := func(what string, v int64) error {
		if v < 0 {
			return fmt.Errorf("%s %s: %s is negative", d.Kind, what, FormatMS(v))
		}
		return nil
	}
	switch d.Kind {
	case Fixed:
		return neg("duration", d.A)
	case Uniform:
		if err := neg("minimum", d.A); err != nil {
			return err
		}
		if err := neg("maximum", d.B); err != nil {
			return err
		}
		if d.A > d.B {
			return fmt.Errorf("uniform: minimum %s is more than maximum %s", FormatMS(d.A), FormatMS(d.B))
		}
	case Normal:
		if err := neg("mean", d.A); err != nil {
			return err
		}
		return neg("sd", d.B)
	case LogNormal:
		if err := neg("median", d.A); err != nil {
			return err
		}
		if !(d.Sigma >= 0) || math.IsInf(d.Sigma, 0) {
			return fmt.Errorf("lognormal sigma: %v is not a finite number, 0 or more", d.Sigma)
		}
	case Empirical:
		if len(d.Values) == 0 {
			return fmt.Errorf("empirical: needs at least one duration")
		}
		for _, v := range d.Values {
			if err := neg("duration", v); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("unknown distribution kind %d", d.Kind)
	}
	return nil
}

// String writes d the way machine.yaml does.
func (d *Dist) String() string {
	switch d.Kind {
	case Fixed:
		return "fixed: " + FormatMS(d.A)
	case Uniform:
		return fmt.Sprintf("uniform: [%s, %s]", FormatMS(d.A), FormatMS(d.B))
	case Normal:
		return fmt.Sprintf("normal: {mean: %s, sd: %s}", FormatMS(d.A), FormatMS(d.B))
	case LogNormal:
		return fmt.Sprintf("lognormal: {median: %s, sigma: %s}", FormatMS(d.A), strconv.FormatFloat(d.Sigma, 'g', -1, 64))
	case Empirical:
		parts := make([]string, len(d.Values))
		for i, v := range d.Values {
			parts[i] = FormatMS(v)
		}
		return "empirical: [" + strings.Join(parts, ", ") + "]"
	}
	return "?"
}

// FormatMS writes a duration in milliseconds as machine.yaml would: 250ms.
func FormatMS(ms int64) string { return strconv.FormatInt(ms, 10) + "ms" }

// ActionKind is what an external action stands for, which chooses its
// default distribution.
type ActionKind uint8

const (
	// KindAction is a tool or API call (the default).
	KindAction ActionKind = iota
	// KindLLM is a call to a language model.
	KindLLM
	// KindSynthesis is speech or text synthesis.
	KindSynthesis
)

// ActionKinds names the kinds as machine.yaml writes them.
var ActionKinds = []string{"action", "llm", "synthesis"}

func (k ActionKind) String() string { return ActionKinds[k] }

// Model is a machine's latency model, resolved to its ids. A nil
// distribution costs nothing.
type Model struct {
	// NLU is the cost of one NLU call. A call that direct slot mapping
	// skips costs nothing, but is still drawn, to say what it saved.
	NLU *Dist
	// Validation, Action, LLM and Synthesis are the defaults by kind, kept
	// for reports; State and Ext hold what applies.
	Validation, Action, LLM, Synthesis *Dist
	// State gives, by state id, the cost of each entry into the state:
	// its override under states:, else Validation for a state marked
	// cost: validation, else nil.
	State []*Dist
	// Ext gives, by external action id, the cost of each invocation: its
	// override under actions:, else the default of its kind.
	Ext []*Dist
}

// StateCost returns the distribution of an entry into state s, or nil.
func (m *Model) StateCost(s engine.StateID) *Dist {
	if m == nil || int(s) >= len(m.State) {
		return nil
	}
	return m.State[s]
}

// ExtCost returns the distribution of an invocation of action x, or nil.
func (m *Model) ExtCost(x engine.ExtID) *Dist {
	if m == nil || int(x) >= len(m.Ext) {
		return nil
	}
	return m.Ext[x]
}
