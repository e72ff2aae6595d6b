package latency_test

import (
	"math/rand/v2"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/latency"
	"github.com/simctl/simctl/spec"
)

func draws(d *latency.Dist, seed uint64, n int) []int64 {
	r := rand.New(rand.NewPCG(seed, seed))
	out := make([]int64, n)
	for i := range out {
		out[i] = d.Sample(r)
	}
	return out
}

type distCase struct {
	dist     latency.Dist
	min, max int64
	// lo and hi bound the median of the draws.
	lo, hi int64
}

var _ = Describe("distributions", func() {
	DescribeTable("draw whole milliseconds within their range, the same for the same seed",
		func(c distCase) {
			Expect(c.dist.Check()).To(Succeed())
			got := draws(&c.dist, 11, 20000)
			Expect(draws(&c.dist, 11, 20000)).To(Equal(got))
			Expect(draws(&c.dist, 12, 20000)).NotTo(Equal(got), "another seed draws otherwise")
			Expect(slices.Min(got)).To(BeNumerically(">=", c.min))
			Expect(slices.Max(got)).To(BeNumerically("<=", c.max))
			slices.Sort(got)
			Expect(got[len(got)/2]).To(BeNumerically(">=", c.lo))
			Expect(got[len(got)/2]).To(BeNumerically("<=", c.hi))
		},
		Entry("uniform covers both ends", distCase{latency.Dist{Kind: latency.Uniform, A: 200, B: 500}, 200, 500, 330, 370}),
		Entry("normal is clamped at 0", distCase{latency.Dist{Kind: latency.Normal, A: 30, B: 50}, 0, 400, 25, 35}),
		Entry("lognormal has its median", distCase{latency.Dist{Kind: latency.LogNormal, A: 800, Sigma: 0.6}, 0, latency.MaxMS, 770, 830}),
		Entry("empirical draws the listed values", distCase{latency.Dist{Kind: latency.Empirical, Values: []int64{120, 180, 250}}, 120, 250, 180, 180}),
	)

	It("draws every value of a uniform range and of an empirical list", func() {
		u := draws(&latency.Dist{Kind: latency.Uniform, A: 10, B: 14}, 1, 1000)
		Expect(slices.Compact(slices.Sorted(slices.Values(u)))).To(Equal([]int64{10, 11, 12, 13, 14}))
		e := draws(&latency.Dist{Kind: latency.Empirical, Values: []int64{120, 180, 250}}, 1, 1000)
		Expect(slices.Compact(slices.Sorted(slices.Values(e)))).To(Equal([]int64{120, 180, 250}))
	})

	It("gives a fixed value without drawing, and nothing for a missing distribution", func() {
		r := rand.New(rand.NewPCG(5, 5))
		var none *latency.Dist
		Expect(none.Sample(r)).To(BeZero())
		Expect((&latency.Dist{Kind: latency.Fixed, A: 200}).Sample(r)).To(Equal(int64(200)))
		// Neither drew: the source is where a fresh one starts.
		Expect(r.Uint64()).To(Equal(rand.New(rand.NewPCG(5, 5)).Uint64()))
	})

	DescribeTable("are checked",
		func(d latency.Dist, msg string) {
			Expect(d.Check()).To(MatchError(msg))
		},
		Entry("negative fixed", latency.Dist{Kind: latency.Fixed, A: -1}, "fixed duration: -1ms is negative"),
		Entry("minimum above maximum", latency.Dist{Kind: latency.Uniform, A: 500, B: 200}, "uniform: minimum 500ms is more than maximum 200ms"),
		Entry("negative sd", latency.Dist{Kind: latency.Normal, A: 300, B: -5}, "normal sd: -5ms is negative"),
		Entry("negative sigma", latency.Dist{Kind: latency.LogNormal, A: 300, Sigma: -0.5}, "lognormal sigma: -0.5 is not a finite number, 0 or more"),
		Entry("empty empirical list", latency.Dist{Kind: latency.Empirical}, "empirical: needs at least one duration"),
	)
})

const sloMachine = `machine: m
initial: idle
intents: [go]
states:
  idle:
    waits: true
    on: {go: busy}
  busy:
    initial: a
    states:
      a: {on: {go: b}}
      b: {on: {go: idle}}
`

type sloCase struct {
	text  string
	stat  latency.Stat
	p     float64
	scope latency.Scope
	key   string // state path, transition id or turn
	limit int64
	less  bool
}

type sloError struct {
	text   string
	offset int
	msg    string
}

var _ = Describe("SLOs", func() {
	var m *engine.Machine

	BeforeEach(func() {
		s, err := spec.LoadMachine("machine.yaml", []byte(sloMachine))
		Expect(err).NotTo(HaveOccurred())
		m = s.Machine
	})

	DescribeTable("parse",
		func(c sloCase) {
			slo, err := latency.ParseSLO(c.text, m)
			Expect(err).NotTo(HaveOccurred())
			Expect(slo.Stat).To(Equal(c.stat))
			Expect(slo.P).To(Equal(c.p))
			Expect(slo.Scope).To(Equal(c.scope))
			Expect(slo.LimitMS).To(Equal(c.limit))
			Expect(slo.Strict).To(Equal(c.less))
			switch c.scope {
			case latency.ScopeState:
				Expect(m.StateName(slo.State)).To(Equal(c.key))
			case latency.ScopeTransition:
				Expect(int(slo.Trans)).To(Equal(len(c.key) - 1))
			case latency.ScopeTurnIndex:
				Expect(slo.Turn).To(Equal(len(c.key)))
			}
		},
		Entry("a percentile of every turn", sloCase{text: "p95 turn latency <= 1500ms", stat: latency.Percentile, p: 95, scope: latency.ScopeTurn, limit: 1500}),
		Entry("seconds and a strict bound", sloCase{text: "p99 turn latency < 4s", stat: latency.Percentile, p: 99, scope: latency.ScopeTurn, limit: 4000, less: true}),
		Entry("a fractional percentile", sloCase{text: "p99.9 turn latency <= 6s", stat: latency.Percentile, p: 99.9, scope: latency.ScopeTurn, limit: 6000}),
		Entry("the maximum", sloCase{text: "max turn latency <= 6s", stat: latency.Max, scope: latency.ScopeTurn, limit: 6000}),
		Entry("the mean, extra spaces", sloCase{text: "  mean   turn latency <= 250 ", stat: latency.Mean, scope: latency.ScopeTurn, limit: 250}),
		Entry("a state by short name", sloCase{text: "p50 state b latency <= 200ms", stat: latency.Percentile, p: 50, scope: latency.ScopeState, key: "busy.b", limit: 200}),
		Entry("a compound state", sloCase{text: "p50 state busy latency <= 200ms", stat: latency.Percentile, p: 50, scope: latency.ScopeState, key: "busy", limit: 200}),
		Entry("a transition by id (here 2)", sloCase{text: "max transition 2 latency <= 1s", stat: latency.Max, scope: latency.ScopeTransition, key: "xxx", limit: 1000}),
		Entry("a turn number (here 3)", sloCase{text: "p90 turn 3 latency <= 1m", stat: latency.Percentile, p: 90, scope: latency.ScopeTurnIndex, key: "xxx", limit: 60000}),
	)

	DescribeTable("report what is wrong, at the token at fault",
		func(c sloError) {
			_, err := latency.ParseSLO(c.text, m)
			Expect(err).To(HaveOccurred())
			var se *latency.SyntaxError
			Expect(err).To(BeAssignableToTypeOf(se))
			Expect(err.(*latency.SyntaxError).Offset).To(Equal(c.offset))
			Expect(err.Error()).To(Equal(c.msg))
		},
		Entry("an unknown statistic", sloError{"median turn latency <= 1s", 0,
			`slo "median turn latency <= 1s": expected a statistic (pN such as p95, max or mean), got "median" (an SLO reads STAT SCOPE latency OP DURATION, such as "p95 turn latency <= 1500ms")`}),
		Entry("a percentile out of range", sloError{"p101 turn latency <= 1s", 0,
			`slo "p101 turn latency <= 1s": percentile "p101": expected p followed by a number above 0 and at most 100, such as p95`}),
		Entry("an unknown scope", sloError{"p95 turns latency <= 1s", 4,
			`slo "p95 turns latency <= 1s": expected a scope (turn, turn N, state NAME or transition ID), got "turns" (an SLO reads STAT SCOPE latency OP DURATION, such as "p95 turn latency <= 1500ms")`}),
		Entry("an unknown state", sloError{"p95 state nowhere latency <= 1s", 10,
			`slo "p95 state nowhere latency <= 1s": unknown state "nowhere" (states: busy, busy.a, busy.b, idle)`}),
		Entry("a transition out of range", sloError{"p95 transition 9 latency <= 1s", 15,
			`slo "p95 transition 9 latency <= 1s": expected a transition id from 0 to 2 (the transition column of transitions.csv), got "9"`}),
		Entry("turn 0", sloError{"p95 turn 0 latency <= 1s", 9,
			`slo "p95 turn 0 latency <= 1s": expected "latency" or a turn number (1 or more) after turn, got "0"`}),
		Entry("a missing latency keyword", sloError{"p95 turn <= 1s", 9,
			`slo "p95 turn <= 1s": expected "latency" or a turn number (1 or more) after turn, got "<="`}),
		Entry("a lower bound", sloError{"p95 turn latency >= 1s", 17,
			`slo "p95 turn latency >= 1s": expected <= or <, got ">=" (an SLO is an upper bound)`}),
		Entry("a negative duration", sloError{"p95 turn latency <= -1s", 20,
			`slo "p95 turn latency <= -1s": duration -1s is negative`}),
		Entry("a bad duration", sloError{"p95 turn latency <= soon", 20,
			`slo "p95 turn latency <= soon": expected a duration such as 250ms, 1.5s or 2m, got "soon"`}),
		Entry("something after the duration", sloError{"p95 turn latency <= 1s always", 23,
			`slo "p95 turn latency <= 1s always": unexpected "always" after the duration (an SLO reads STAT SCOPE latency OP DURATION, such as "p95 turn latency <= 1500ms")`}),
		Entry("a missing duration", sloError{"p95 turn latency <=", 19,
			`slo "p95 turn latency <=": missing duration (an SLO reads STAT SCOPE latency OP DURATION, such as "p95 turn latency <= 1500ms")`}),
	)

	Describe("judged on an aggregate", func() {
		var l *eval.Latency

		BeforeEach(func() {
			l = eval.NewLatency()
			a, _ := m.StateID("busy.a")
			idle, _ := m.StateID("idle")
			for i, ms := range []int64{100, 200, 300, 400, 1000} {
				st := a
				if i%2 == 1 {
					st = idle
				}
				l.AddTurn(ms, st, i+1)
			}
		})

		check := func(text string) latency.Verdict {
			slo, err := latency.ParseSLO(text, m)
			Expect(err).NotTo(HaveOccurred())
			return slo.Check(m, l)
		}

		It("passes at the bound and fails past it", func() {
			v := check("p80 turn latency <= 400ms")
			Expect(v.Pass).To(BeTrue())
			Expect(v.GotText()).To(Equal("400ms"))
			Expect(check("p80 turn latency < 400ms").Pass).To(BeFalse())
			v = check("max turn latency <= 999ms")
			Expect(v.Pass).To(BeFalse())
			Expect(v.GotText()).To(Equal("1000ms"))
			Expect(v.Samples).To(Equal(int64(5)))
		})

		It("compares a mean exactly", func() {
			v := check("mean turn latency <= 400ms")
			Expect(v.Pass).To(BeTrue())
			Expect(v.GotText()).To(Equal("400ms"))
			Expect(check("mean turn latency < 400ms").Pass).To(BeFalse())
		})

		It("reads the turns that ended in a state or inside it, and one turn number", func() {
			v := check("max state busy latency <= 1s")
			Expect(v.Samples).To(Equal(int64(3)))
			Expect(v.GotText()).To(Equal("1000ms"))
			Expect(check("max state idle latency <= 400ms").Samples).To(Equal(int64(2)))
			v = check("p50 turn 2 latency <= 200ms")
			Expect(v.Pass).To(BeTrue())
			Expect(v.Samples).To(Equal(int64(1)))
		})

		It("fails an objective with no samples", func() {
			v := check("p50 turn 9 latency <= 1s")
			Expect(v.Pass).To(BeFalse())
			Expect(v.GotText()).To(Equal("no samples"))
			Expect(check("p50 transition 1 latency <= 1s").Pass).To(BeFalse())
		})
	})
})
