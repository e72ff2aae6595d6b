package generate

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// Options control a generated run of one suite and variant.
type Options struct {
	Seed int64
	// From and To give the range of conversation indices to play,
	// [From, To); a shard plays a slice of the whole stream.
	From, To int
	// FailuresDir is where failure scenarios will be written; their suite
	// path is made relative to it.
	FailuresDir string
	// MaxShrinks bounds the conversations tried while shrinking one
	// failure.
	MaxShrinks int
	// Observers see every step of every conversation (coverage); with
	// more than one worker, use Fork instead.
	Observers []sim.Observer
	// Workers plays the range on this many goroutines; results are the same
	// as with one (conversations are independent, and each is a function of
	// the seed and its index).
	Workers int
	// Fork, with Workers > 1, gives each worker its own observers, and a
	// join that folds them into the caller's; joins run in worker order
	// after every worker has finished.
	Fork func() (observers []sim.Observer, join func())
	// Stop, when it returns true, stops the run before the next
	// conversation; the metrics then cover the conversations played.
	Stop func() bool
	// NLU chooses the cassette or the stub, and the NLU noise; each
	// conversation reseeds the noise from its own seed (noise.go).
	NLU sim.NLUOptions
	// Progress, when set, hears of every finished conversation (from any
	// worker's goroutine).
	Progress func(conversations, violating int)
	// Wall, when set, times the engine's steps with the wall clock.
	Wall *sim.WallClock
}

// Metrics are the outcomes of the generated conversations of one suite
// and variant.
type Metrics struct {
	Suite, Variant    string
	Conversations     int
	Successes         int
	TurnsToCompletion int // summed over successful conversations
	Turns             int
	Escalations       int
	Cancellations     int
	Violating         int // conversations that broke at least one invariant
	Violations        int
	// Cooperative counts the conversations in which the user cooperated on
	// every turn, CooperativeSuccesses those of them that succeeded.
	Cooperative          int
	CooperativeSuccesses int
	// SuccessBy says which definition of success counted (SuccessCompleted,
	// SuccessCondition or SuccessMixed).
	SuccessBy string
	// Latency aggregates the turns' latencies under the suite's latency
	// model; nil when the suite has none. Shrinking replays add nothing.
	Latency *eval.Latency
}

// Add folds another slice of the same suite and variant into m.
func (m *Metrics) Add(o Metrics) {
	if m.SuccessBy == "" {
		m.SuccessBy = o.SuccessBy
	}
	m.Conversations += o.Conversations
	m.Successes += o.Successes
	m.TurnsToCompletion += o.TurnsToCompletion
	m.Turns += o.Turns
	m.Escalations += o.Escalations
	m.Cancellations += o.Cancellations
	m.Violating += o.Violating
	m.Violations += o.Violations
	m.Cooperative += o.Cooperative
	m.CooperativeSuccesses += o.CooperativeSuccesses
	if o.Latency != nil {
		if m.Latency == nil {
			m.Latency = eval.NewLatency()
		}
		m.Latency.Merge(o.Latency)
	}
}

// Failure is the first conversation that broke an invariant, shrunk.
type Failure struct {
	Suite, Variant string
	Invariant      string
	Index          int
	Turns          int // before shrinking
	ShrunkTurns    int
	Violation      eval.Violation
	// Name and Scenario are the scenario file's name and content.
	Name     string
	Scenario []byte
	// Ord is the position among its conversation's violations, which orders
	// failures of one conversation as a single pass finds them.
	Ord int
	// Replays: simctl replay of Scenario makes the same finding (a file
	// that does not is a bug of simctl).
	Replays bool
}

// ShrunkFrom says how the failure was shrunk: "shrunk from 12 to 3
// turns", or "not shrunk (50 turns)" when no turn could go.
func (f *Failure) ShrunkFrom() string {
	if f.ShrunkTurns == 1 && f.Turns > 1 {
		return fmt.Sprintf("shrunk from %d turns to 1", f.Turns)
	}
	if f.ShrunkTurns < f.Turns {
		return fmt.Sprintf("shrunk from %d to %d turns", f.Turns, f.ShrunkTurns)
	}
	if f.ShrunkTurns == 1 {
		return "not shrunk (1 turn)"
	}
	return fmt.Sprintf("not shrunk (%d turns)", f.ShrunkTurns)
}

// Run plays conversations From..To-1 of suite s in variant v, checking
// every invariant on every step. For each invariant broken, the first
// conversation that broke it is shrunk and returned as a scenario.
func Run(s *spec.Suite, v *spec.Variant, opts Options) (Metrics, []Failure, error) {
	if opts.Workers <= 1 || opts.To-opts.From < 2 {
		return runRange(s, v, opts, opts.Observers)
	}
	// Contiguous index ranges, one per worker; merged below exactly as one
	// worker would have produced them.
	w := min(opts.Workers, opts.To-opts.From)
	type part struct {
		met   Metrics
		fails []Failure
		err   error
		join  func()
	}
	parts := make([]part, w)
	done := make(chan struct{})
	for i := 0; i < w; i++ {
		o := opts
		o.From = opts.From + (opts.To-opts.From)*i/w
		o.To = opts.From + (opts.To-opts.From)*(i+1)/w
		var obs []sim.Observer
		if opts.Fork != nil {
			obs, parts[i].join = opts.Fork()
		}
		go func(i int, o Options, obs []sim.Observer) {
			defer func() { done <- struct{}{} }()
			parts[i].met, parts[i].fails, parts[i].err = runRange(s, v, o, obs)
		}(i, o, obs)
	}
	for i := 0; i < w; i++ {
		<-done
	}
	met := Metrics{Suite: s.Name, Variant: v.Name}
	var failures []Failure
	for _, p := range parts {
		if p.err != nil {
			return met, nil, p.err
		}
		if p.join != nil {
			p.join()
		}
		met.Add(p.met)
		failures = append(failures, p.fails...)
	}
	return met, firstPerInvariant(failures), nil
}

// firstPerInvariant keeps, per finding (an invariant's move, or its state
// and slot: eval.Violation.Key), the failure of the lowest conversation
// index, ordered as one pass over the indices finds them.
func firstPerInvariant(fs []Failure) []Failure {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Index != fs[j].Index {
			return fs[i].Index < fs[j].Index
		}
		return fs[i].Ord < fs[j].Ord
	})
	seen := map[string]bool{}
	var out []Failure
	for _, f := range fs {
		if key := f.Violation.Key(); !seen[key] {
			seen[key] = true
			out = append(out, f)
		}
	}
	return out
}

// stopped reports whether the run was asked to stop.
func (o Options) stopped() bool {
	return o.Stop != nil && o.Stop()
}

func runRange(s *spec.Suite, v *spec.Variant, opts Options, observers []sim.Observer) (Metrics, []Failure, error) {
	met := Metrics{Suite: s.Name, Variant: v.Name}
	mo, err := NewModel(s, v.Machine)
	if err != nil {
		return met, nil, err
	}
	met.SuccessBy = mo.SuccessBy()
	stub := sim.NewStub(s.NLU, v.Machine)
	p := NewPlayer(mo, stub, observers...)
	p.useNLU(opts.NLU.For(s, v.Machine, stub, 0))
	p.d.Latency, p.d.Wall = s.Latency, opts.Wall
	if s.Latency != nil {
		met.Latency = eval.NewLatency()
	}
	var failures []Failure
	seen := map[string]bool{}
	for k := opts.From; k < opts.To; k++ {
		if opts.stopped() {
			break
		}
		conv := mo.Sample(opts.Seed, k)
		seed := ConversationSeed(opts.Seed, k)
		p.d.LatencyOut = met.Latency
		out := p.Play(conv, seed)
		p.d.LatencyOut = nil
		count(&met, out)
		if opts.Progress != nil {
			v := 0
			if out.ViolationCount > 0 {
				v = 1
			}
			opts.Progress(1, v)
		}
		for i, viol := range out.Violations {
			if seen[viol.Key()] {
				continue
			}
			seen[viol.Key()] = true
			ord := 0
			for _, w := range out.Violations[:i] {
				if w.Invariant == viol.Invariant {
					ord++
				}
			}
			f := shrink(p, s, v, opts, conv, seed, k, out.Turns, viol, ord)
			f.Ord = i
			failures = append(failures, f)
		}
	}
	return met, failures, nil
}

// breaks plays conv and reports its violation with key (the finding
// eval.Violation.Key names), if any.
func breaks(p *Player, conv Conversation, seed uint64, key string) (Outcome, *eval.Violation) {
	out := p.Play(conv, seed)
	for i := range out.Violations {
		if out.Violations[i].Key() == key {
			return out, &out.Violations[i]
		}
	}
	return out, nil
}

// shrink looks for the smallest conversation that still makes the same
// finding: it takes the first candidate of gopter's shrinker that does,
// and starts over from it, until none does. Then it simplifies the turns
// themselves (simplify.go), each candidate judged by replaying the
// scenario file it would write, and keeps the file only once its replay
// makes the finding.
func shrink(p *Player, s *spec.Suite, v *spec.Variant, opts Options, conv Conversation, seed uint64, k, turns int, viol eval.Violation, ord int) Failure {
	limit := opts.MaxShrinks
	if limit <= 0 {
		limit = 5000
	}
	p.quiet(true)
	defer p.quiet(false)
	best := conv
	// Acts after the last turn played cannot matter.
	if turns < len(best.Acts) {
		best.Acts = best.Acts[:turns]
	}
	tries := 0
	// A stop (SIGINT, SIGTERM) ends the shrinking where it is: on a big
	// machine thousands of candidates take minutes.
	for improved := true; improved && tries < limit && !opts.stopped(); {
		improved = false
		next := shrinkConversation(best)
		for tries < limit && !opts.stopped() {
			cand, ok := next()
			if !ok {
				break
			}
			tries++
			c := cand.(Conversation)
			if viol.Invariant == eval.Liveness && len(c.Acts) < p.mo.maxTurns {
				// Bounded liveness is judged on conversations of the full
				// turn bound only: a shorter candidate cannot make the
				// finding, and playing thousands of them was most of a
				// run on a large agent (qatar-airways: hours).
				continue
			}
			if _, hit := breaks(p, c, seed, viol.Key()); hit != nil {
				best, improved = c, true
				break
			}
		}
	}
	p.Record = true
	out, hit := breaks(p, best, seed, viol.Key())
	p.Record = false
	f := Failure{Suite: s.Name, Variant: v.Name, Invariant: viol.Invariant, Index: k, Turns: turns, Violation: viol}
	if hit != nil {
		f.Violation = *hit
	}
	f.Name = fmt.Sprintf("gen-%s-%s-%s-%d", s.Name, v.Name, viol.Invariant, k)
	if ord > 0 {
		// A second finding of the same invariant in the same conversation.
		f.Name += fmt.Sprintf("-%d", ord)
	}
	r := replayer{p: p, s: s, v: v, opts: opts, f: &f, key: viol.Key()}
	recorded := out.Recorded
	simple := r.simplify(recorded)
	f.ShrunkTurns = len(simple)
	if r.replays(simple) {
		// The description names the turn the replay makes the finding at.
		f.Violation, f.Replays = r.hit, true
		f.Scenario = scenarioYAML(s, v, opts, f, simple)
		return f
	}
	// The simplified file does not replay the finding: keep the recorded
	// turns (a file that does not replay is a bug of simctl, which specs
	// test against, and is said so in the file).
	f.ShrunkTurns = len(recorded)
	f.Scenario = scenarioYAML(s, v, opts, f, recorded)
	f.Replays = r.replays(recorded)
	if !f.Replays {
		f.Scenario = append([]byte("# simctl bug: this file does not replay the finding it was shrunk from.\n"), f.Scenario...)
	}
	return f
}

// scenarioYAML writes the shrunk conversation as a scenario that simctl
// replay runs against the suite (named by a path relative to where the file
// is written), in the same variant, with the same branch schedule.
func scenarioYAML(s *spec.Suite, v *spec.Variant, opts Options, f Failure, turns []Turn) []byte {
	var b strings.Builder
	suite := s.Dir
	if opts.FailuresDir != "" {
		if abs, err := filepath.Abs(s.Dir); err == nil {
			if base, err := filepath.Abs(opts.FailuresDir); err == nil {
				if rel, err := filepath.Rel(base, abs); err == nil {
					suite = rel
				}
			}
		}
	}
	fmt.Fprintf(&b, "# Generated by simctl run --generate (seed %d, conversation %d), %s.\n", opts.Seed, f.Index, f.ShrunkFrom())
	fmt.Fprintf(&b, "# Replay: simctl replay <this file>\n")
	fmt.Fprintf(&b, "name: %s\n", f.Name)
	fmt.Fprintf(&b, "suite: %s\n", strconv.Quote(filepath.ToSlash(suite)))
	fmt.Fprintf(&b, "description: %s\n", strconv.Quote(fmt.Sprintf("breaks %s at turn %d: %s", f.Invariant, f.Violation.Turn, f.Violation.Msg)))
	fmt.Fprintf(&b, "tags: [generated]\n")
	if f.Invariant == eval.Liveness {
		// The replay checks that the turns, all cooperative, end the task.
		b.WriteString("liveness: true\n")
	}
	// Pin every parameter, so that the scenario runs in this variant only.
	if len(s.Def.Params) > 0 {
		b.WriteString("parameters:\n")
		for _, p := range s.Def.Params {
			val, _ := v.Machine.Param(p.Name)
			fmt.Fprintf(&b, "  %s: %s\n", p.Name, strconv.Quote(val.String()))
		}
	}
	b.WriteString("turns:\n")
	after := false
	for _, t := range turns {
		if t.After && !after {
			after = true
			b.WriteString("  # The task has ended; the user goes on.\n")
		}
		switch {
		case t.IsWait:
			fmt.Fprintf(&b, "  - wait: %dms\n", t.WaitMS)
		case t.Parsed != nil:
			writeParsed(&b, v.Machine, t.Parsed, t.Noise)
		case t.Intent != "":
			fmt.Fprintf(&b, "  - event: {intent: %s}\n", strconv.Quote(t.Intent))
		default:
			fmt.Fprintf(&b, "  - user: %s\n", strconv.Quote(t.User))
		}
		if len(t.Fail) > 0 {
			fmt.Fprintf(&b, "    fail: [%s]\n", strings.Join(t.Fail, ", "))
		}
		if len(t.Schedule) > 0 {
			parts := make([]string, len(t.Schedule))
			for i, x := range t.Schedule {
				parts[i] = strconv.Itoa(x)
			}
			fmt.Fprintf(&b, "    schedule: [%s]\n", strings.Join(parts, ", "))
		}
	}
	if len(turns) == 0 {
		// A violation at the start: one turn that waits for nothing.
		b.WriteString("  - wait: 0ms\n")
	}
	return []byte(b.String())
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// ConversationSeed is the seed Run plays conversation k with (its fork
// schedule and NLU noise), for callers replaying the same stream.
func ConversationSeed(seed int64, k int) uint64 { return mix(uint64(seed), uint64(k)^0xa5a5) }
