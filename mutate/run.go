package mutate

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// Status is what became of a mutant.
type Status string

const (
	// Killed: the suite's verdict on the mutant is worse than on the
	// original machine.
	Killed Status = "killed"
	// Survived: no test told the mutant from the original.
	Survived Status = "survived"
	// Equivalent: complete searches of both show the same reachable
	// behaviour, so no test could tell them apart.
	Equivalent Status = "equivalent"
	// Invalid: the mutant does not build (or the engine gave up on it).
	Invalid Status = "invalid"
	// Unreached: no test told the mutant from the original, and the
	// original's complete search never exercised what it changed (reach.go);
	// it counts against the score.
	Unreached Status = "unreached"
	// Runaway: the mutant's exploration passed many times the
	// configurations the original's whole search has (Options.Runaway
	// Factor and Floor), so its reachable behaviour differs from the
	// original's; it counts as killed (PIT's TIMED_OUT), by the explored
	// source.
	Runaway Status = "runaway"
)

// Source is the part of the suite that killed a mutant.
type Source string

// The sources, in the order they are tried.
const (
	Scripted  Source = "scripted"
	Generated Source = "generated"
	Explored  Source = "explored"
)

// Sources lists the sources in the order they are tried.
var Sources = []Source{Scripted, Generated, Explored}

// Options say how a suite is run against each mutant; the original
// machine is run the same way.
type Options struct {
	Seed int64
	// Generate is the number of generated conversations per variant (0:
	// none).
	Generate int
	// ExploreDepth is the depth of the exploration (-1: the suite's
	// explore_depth; 0: none), MaxStates its cap: as in simctl run, a
	// search that passes it is judged at the deepest level it completed.
	// With SuiteCap, a suite's explore_max_states replaces MaxStates.
	ExploreDepth int
	MaxStates    int
	SuiteCap     bool
	// EquivStates caps the complete searches of the equivalence test; a
	// search it stops proves nothing.
	EquivStates int
	// RunawayFactor and RunawayFloor stop a mutant's exploration early:
	// when the original's search of a variant finished its bound with N
	// configurations, the mutant's search of that variant stops past
	// max(RunawayFactor*N, RunawayFloor), and the mutant is Runaway
	// unless the levels it completed show a finding. A cap at or above
	// the search's own (MaxStates) is not applied. RunawayFactor 0: none.
	RunawayFactor, RunawayFloor int
	// Known says whether a generated failure is a known one (its
	// invariant's note), as simctl run judges it; nil: none is.
	Known func(s *spec.Suite, f generate.Failure) bool
	// Stop, when set, is asked between scenarios and, inside generated
	// runs and searches, every few steps; once it returns true every
	// search and run gives up soon, and a verdict reached after that is
	// not to be trusted (the caller drops it).
	Stop func() bool
}

// Result is the verdict on one mutant.
type Result struct {
	Suite  string
	Mutant *Mutant
	Status Status
	Source Source // the source that killed it; empty otherwise
	// Detail says what killed it (the first failure the original did not
	// have), why it is invalid, or why it is not proved equivalent.
	Detail string
	// Pinned: killed only by pin: true scenarios, which pin the machine's
	// behaviour as it is rather than what the seed says.
	Pinned bool
}

// Runner judges the mutants of one suite against its original verdict.
type Runner struct {
	s    *spec.Suite
	o    Options
	base map[Source]*baseline
	// runaway holds, per variant, the cap past which a mutant's
	// exploration runs away, set with the explored baseline.
	runaway []runawayCap

	once     sync.Once
	digests  []uint64 // per variant; nil: some search was incomplete
	digestOK bool
	covs     []*eval.Coverage // per variant, of the complete searches
}

// baseline is what one source finds wrong with the original machine,
// found the first time a mutant needs it.
type baseline struct {
	once  sync.Once
	fails map[string]bool
}

// NewRunner prepares to judge the mutants of suite s against its original
// machine. The original is run by each source only when a mutant first
// reaches that source: a suite whose scenarios kill every mutant is never
// explored.
func NewRunner(s *spec.Suite, o Options) *Runner {
	r := &Runner{s: s, o: o, base: map[Source]*baseline{}}
	for _, src := range Sources {
		r.base[src] = &baseline{}
	}
	return r
}

// baseFails returns what source src finds wrong with the original.
func (r *Runner) baseFails(src Source) map[string]bool {
	b := r.base[src]
	b.once.Do(func() {
		fails, sp := failures(r.s, r.o, src, nil)
		b.fails = map[string]bool{}
		for _, k := range fails {
			b.fails[k] = true
		}
		if src == Explored {
			r.runaway = runawayCaps(r.s, r.o, sp.finished)
		}
		if sp.known() {
			// The exploration was the original's complete search (or
			// showed that none completes): it is not made again.
			r.once.Do(func() { r.digests, r.covs, r.digestOK = sp.digests, sp.covs, sp.complete })
		}
	})
	return b.fails
}

// Judge builds mutant m of the runner's suite and runs the suite against
// it, source by source, stopping at the first source that kills it. A
// survivor is tested for equivalence.
func (r *Runner) Judge(m *Mutant) (res Result) {
	res = Result{Suite: r.s.Name, Mutant: m}
	defer func() {
		// An engine that panics on a mutant is a bug of simctl, but one
		// mutant must not take the others down: it is reported.
		if p := recover(); p != nil {
			res.Status, res.Source, res.Detail = Invalid, "", fmt.Sprintf("simctl panicked on the mutant: %v", p)
		}
	}()
	ms, err := Build(r.s, m.Apply(r.s.Def))
	if err != nil {
		res.Status, res.Detail = Invalid, err.Error()
		return res
	}
	pinned := ""
	var sp space
	for _, src := range Sources {
		// The original first: its exploration sets the runaway caps of
		// the mutant's.
		base := r.baseFails(src)
		var caps []runawayCap
		if src == Explored {
			caps = r.runaway
		}
		fails, ssp := failures(ms, r.o, src, caps)
		if src == Explored {
			sp = ssp
		}
		for _, k := range fails {
			if base[k] {
				continue
			}
			if strings.HasPrefix(k, pinnedScenario) {
				// Go on: another source may kill it without the pins.
				if pinned == "" {
					pinned = k
				}
				continue
			}
			res.Status, res.Source, res.Detail = Killed, src, k
			return res
		}
		if sp.runaway != "" {
			res.Status, res.Source, res.Detail = Runaway, Explored, sp.runaway
			return res
		}
	}
	if pinned != "" {
		res.Status, res.Source, res.Detail, res.Pinned = Killed, Scripted, pinned, true
		return res
	}
	res.Status = Survived
	if pos := changedTransitions(r.s.Def, ms.Def); len(pos) > 0 && !r.reached(pos) {
		res.Status = Unreached
		res.Detail = "the original's complete search never took the changed transition nor saw its guard both ways"
		return res
	}
	if ok, why := r.equivalent(ms, sp); ok {
		res.Status = Equivalent
	} else {
		res.Detail = why
	}
	return res
}

// Build makes the suite that runs def in place of s's machine: the same
// scenarios, NLU, users and variants, each variant's machine rebuilt from
// def. The mutants change no declaration (no state, slot, intent or
// timer), so what was resolved against the original machine holds. Each
// variant's machine compiles into a data model of its own (fresher).
func Build(s *spec.Suite, def *engine.Definition) (*spec.Suite, error) {
	ms := *s
	ms.Def = def
	ms.Variants = make([]*spec.Variant, len(s.Variants))
	for i, v := range s.Variants {
		vdef := *def
		vdef.Assign = v.Assign
		if f, ok := def.DataModel.(fresher); ok {
			vdef.DataModel = f.Fresh()
		}
		m, diags := engine.Build(&vdef)
		if err := diags.Err(); err != nil {
			first := err.(*engine.BuildError).First()
			return nil, fmt.Errorf("%s: %s", first.Pos, first.Msg)
		}
		nv := *v
		nv.Machine = m
		ms.Variants[i] = &nv
	}
	ms.Machine = ms.Variants[0].Machine
	return &ms, nil
}

// fresher is a data model that compiles a machine's expressions into
// itself (an SCXML chart's: the ECMAScript or null data model), which
// the conversations of every machine built with it read: Fresh gives a
// build one with nothing compiled, so that building a mutant never
// writes what the original's or another mutant's conversations read, and
// mutants are judged on workers whatever the suite's kind.
type fresher interface{ Fresh() engine.DataModel }

// pinnedScenario begins the failure of a pin: true scenario.
const pinnedScenario = "pinned scenario"

// space is what the explored source learnt of the reachable graph of
// every variant: the equivalence test's searches, when it made them.
type space struct {
	digests []uint64
	covs    []*eval.Coverage
	// complete: every variant's search completed, and digests and covs
	// are those of the complete searches.
	complete bool
	// tooBig: a variant's search saw more than EquivStates
	// configurations without completing, so no equivalence search
	// completes.
	tooBig bool
	// finished holds, per variant, the configurations of a search that
	// finished its bound (completely, or to the explore depth), -1 for
	// one a cap or a stop cut short.
	finished []int
	// runaway says which variant's search passed its runaway cap; empty:
	// none did.
	runaway string
}

// known reports whether sp settles the equivalence test's searches.
func (sp space) known() bool { return sp.complete || sp.tooBig }

// failures lists, sorted, what the source finds wrong with suite s that
// fails a run: scenarios that fail, invariants generated conversations
// break (not known ones), exploration findings (not known ones). The
// explored source's searches hash the reachable graph as they go, so that
// a complete one serves the equivalence test as well (space); a
// variant's search stops past runaway[i] configurations (nil or 0: its
// cap alone), and space.runaway then says so.
func failures(s *spec.Suite, o Options, src Source, runaway []runawayCap) ([]string, space) {
	var out []string
	var sp space
	switch src {
	case Scripted:
		for _, sc := range s.Scenarios {
			if o.stopped() {
				break
			}
			for _, v := range s.VariantsFor(sc) {
				res := sim.RunScenario(s, sc, sim.Options{Variant: v, Seed: o.Seed})
				if res.Status == sim.Fail {
					what := "scenario"
					if sc.Pin {
						what = pinnedScenario
					}
					out = append(out, fmt.Sprintf("%s %s%s fails", what, sc.Name, variant(s, v)))
				}
			}
		}
	case Generated:
		if o.Generate <= 0 {
			return nil, sp
		}
		for _, v := range s.Variants {
			_, fails, err := generate.Run(s, v, generate.Options{Seed: o.Seed, To: o.Generate, MaxShrinks: 1, Stop: o.Stop})
			if err != nil {
				out = append(out, fmt.Sprintf("generated conversations%s: %s", variant(s, v), firstLine(err.Error())))
				continue
			}
			for _, f := range fails {
				if o.Known == nil || !o.Known(s, f) {
					out = append(out, fmt.Sprintf("a generated conversation%s breaks %s", variant(s, v), f.Invariant))
				}
			}
		}
	case Explored:
		depth := o.ExploreDepth
		if depth < 0 {
			depth = s.ExploreDepth
		}
		if depth == 0 {
			return nil, sp
		}
		limit := o.maxStates(s)
		sp.complete = true
		for i, v := range s.Variants {
			opts := explore.Options{Depth: depth, MaxStates: limit, Stop: o.Stop, Digest: true}
			if runaway != nil && runaway[i].max > 0 {
				opts.MaxStates = runaway[i].max
			}
			res, err := explore.Explore(s, v, opts)
			n := -1
			if err == nil && res.Stopped == "" {
				n = res.Distinct
			}
			sp.finished = append(sp.finished, n)
			if err == nil && res.Stopped != "" && res.Stopped != explore.Interrupted && opts.MaxStates < limit && sp.runaway == "" {
				sp.runaway = fmt.Sprintf("the exploration%s reaches more than %d distinct configurations; the original's finishes with %d",
					variant(s, v), opts.MaxStates, runaway[i].orig)
			}
			if err == nil && res.Complete {
				sp.digests = append(sp.digests, res.Digest)
				sp.covs = append(sp.covs, res.Coverage)
			} else {
				sp.complete = false
				if err == nil && res.Stopped != explore.Interrupted && o.EquivStates > 0 && res.Distinct > o.EquivStates {
					sp.tooBig = true
				}
			}
			if err == nil && res.Stopped != "" && res.Depth > 0 {
				// As simctl run does: the cap cut a level short, so the
				// search is judged whole at the deepest level it
				// completed, not by the part of a level it reached.
				opts.Depth = res.Depth
				res, err = explore.Explore(s, v, opts)
			}
			if err != nil {
				out = append(out, fmt.Sprintf("exploration%s: %s", variant(s, v), firstLine(err.Error())))
				continue
			}
			for _, f := range res.Findings {
				if f.Known == "" {
					out = append(out, fmt.Sprintf("exploration%s finds %s", variant(s, v), f.Kind))
				}
			}
		}
	}
	sort.Strings(out)
	if !sp.complete {
		sp.digests, sp.covs = nil, nil
	}
	return out, sp
}

// runawayCap is where a mutant's exploration of a variant stops as a
// runaway: past max configurations, when the original's finishes with
// orig (max 0: no such cap).
type runawayCap struct{ orig, max int }

// runawayCaps gives the runaway cap of each variant whose original
// search finished with finished[i] configurations: max(factor*N, floor),
// kept only below the search's own cap, where passing it is a result and
// not the search giving up.
func runawayCaps(s *spec.Suite, o Options, finished []int) []runawayCap {
	limit := o.maxStates(s)
	out := make([]runawayCap, len(finished))
	for i, n := range finished {
		if o.RunawayFactor <= 0 || n < 0 {
			continue
		}
		c := max(o.RunawayFactor*n, o.RunawayFloor)
		if c < limit {
			out[i] = runawayCap{orig: n, max: c}
		}
	}
	return out
}

// equivalent searches every variant of ms completely and compares the
// digests of the reachable labelled graphs with the original's.
func (r *Runner) equivalent(ms *spec.Suite, sp space) (bool, string) {
	r.once.Do(r.search)
	if !r.digestOK {
		return false, fmt.Sprintf("not proved equivalent: the original's search does not complete within %d configurations", r.o.EquivStates)
	}
	d, ok := sp.digests, sp.complete
	if !sp.known() {
		d, _, ok = digests(ms, r.o.EquivStates, r.o.Stop)
	}
	if !ok {
		return false, fmt.Sprintf("not proved equivalent: the mutant's search does not complete within %d configurations", r.o.EquivStates)
	}
	for i := range d {
		if d[i] != r.digests[i] {
			return false, "reachable behaviour differs from the original's (complete search)"
		}
	}
	return true, ""
}

// search makes the original's complete searches once: their digests and
// their coverage.
func (r *Runner) search() {
	r.digests, r.covs, r.digestOK = digests(r.s, r.o.EquivStates, r.o.Stop)
}

// reached reports whether some variant's complete search of the original
// exercised a transition at positions; with a search that did not
// complete, nothing is claimed unreached.
func (r *Runner) reached(positions []engine.Pos) bool {
	r.once.Do(r.search)
	if !r.digestOK {
		return true
	}
	for i, v := range r.s.Variants {
		if reached(v.Machine, r.covs[i], positions) {
			return true
		}
	}
	return false
}

// digests returns the digest and coverage of a complete search of each
// variant, and false when one does not complete (stop ended it, or the
// cap).
func digests(s *spec.Suite, maxStates int, stop func() bool) ([]uint64, []*eval.Coverage, bool) {
	var out []uint64
	var covs []*eval.Coverage
	for _, v := range s.Variants {
		res, err := explore.Explore(s, v, explore.Options{Depth: 1 << 30, MaxStates: maxStates, Digest: true, Stop: stop})
		if err != nil || !res.Complete {
			return nil, nil, false
		}
		out = append(out, res.Digest)
		covs = append(covs, res.Coverage)
	}
	return out, covs, true
}

// maxStates is the cap of suite s's exploration: its explore_max_states
// with SuiteCap, else MaxStates.
func (o Options) maxStates(s *spec.Suite) int {
	if o.SuiteCap && s.ExploreMaxStates > 0 {
		return s.ExploreMaxStates
	}
	return o.MaxStates
}

// stopped reports whether Stop asked the run to give up.
func (o Options) stopped() bool { return o.Stop != nil && o.Stop() }

func variant(s *spec.Suite, v *spec.Variant) string {
	if len(s.Variants) > 1 {
		return " [" + v.Name + "]"
	}
	return ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
