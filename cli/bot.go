package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gocarina/gocsv"
	"github.com/spf13/pflag"

	"github.com/simctl/simctl/bot"
	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// botFlags are simctl run's options for checking a live bot
// (docs/bot-check.md).
type botFlags struct {
	url      string
	timeout  time.Duration
	retries  int
	shrinks  int
	failures int
	// maxFaults is the share of conversations, in percent, that may fault
	// before a run is inconclusive.
	maxFaults float64
}

func (b *botFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&b.url, "bot", "", "play the conversations against a live bot at this URL (Rasa REST channel shape) and compare its replies with the model's")
	fs.DurationVar(&b.timeout, "bot-timeout", 5*time.Second, "time-out of one exchange with the bot")
	fs.IntVar(&b.retries, "bot-retries", 2, "play a conversation again from the start this many times after a bot fault")
	fs.IntVar(&b.shrinks, "bot-shrinks", 200, "conversations played against the bot while shrinking one divergence, at most")
	fs.IntVar(&b.failures, "bot-failures", 10, "distinct divergences shrunk and written per suite, at most")
	fs.Float64Var(&b.maxFaults, "bot-max-faults", 1, "percent of the conversations to play that may still fault after their retries; more, or a bot that stops answering, makes the run inconclusive (exit status 3)")
}

func (b *botFlags) check(o runOptions) error {
	switch {
	case b.url == "":
		return nil
	case !strings.HasPrefix(b.url, "http://") && !strings.HasPrefix(b.url, "https://"):
		return &usageError{fmt.Sprintf("--bot takes an http:// or https:// URL, got %q", b.url)}
	case b.timeout <= 0 || b.retries < 0 || b.shrinks < 0 || b.failures < 0:
		return &usageError{"--bot-timeout must be positive; --bot-retries, --bot-shrinks and --bot-failures 0 or more"}
	case b.maxFaults < 0 || b.maxFaults > 100:
		return &usageError{"--bot-max-faults is a percentage, from 0 to 100"}
	case len(o.nlu.sweep) > 0 || o.nlu.sweepArg != nil:
		return &usageError{"--bot plays no NLU noise sweep"}
	}
	return nil
}

// BotCSV lists every conversation played against a live bot.
const BotCSV = "bot.csv"

type botRow struct {
	Suite        string `csv:"suite"`
	Variant      string `csv:"variant"`
	Source       string `csv:"source"`
	Conversation string `csv:"conversation"`
	Verdict      string `csv:"verdict"`
	Turns        int    `csv:"turns"`
	Attempts     int    `csv:"attempts"`
	Reason       string `csv:"reason"`
}

// botTally counts verdicts by source.
type botTally map[string]*[4]int

func (t botTally) add(r *bot.Result) {
	if t[r.Conv.Source] == nil {
		t[r.Conv.Source] = &[4]int{}
	}
	t[r.Conv.Source][r.Verdict]++
}

// runBot plays the suites' scripted, generated and explored conversations
// against the live bot at o.bot.url and compares its replies with the
// model's, turn by turn. Divergences fail the run and are shrunk against
// the bot; bot faults are counted, never failures.
func runBot(suites []*spec.Suite, o runOptions, w io.Writer) (int, error) {
	ctx := o.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	client := bot.NewClient(o.bot.url, o.bot.timeout)
	if err := client.Reachable(ctx); err != nil {
		return 0, fmt.Errorf("bot %s is unreachable: %v", o.bot.url, err)
	}
	var nonce [6]byte
	rand.Read(nonce[:])
	prefix := "simctl-" + hex.EncodeToString(nonce[:])
	if o.files != nil {
		o.generate, o.exploreDepth = 0, 0
	}
	run := &reports.Run{Seed: o.seed, Bot: &reports.BotFaults{Faults: map[string]int{}, MaxFaultsPercent: o.bot.maxFaults}}
	var total tally
	var rows []botRow
	type file struct {
		name, path string
		data       []byte
	}
	var files []file
	for _, s := range suites {
		served := servedVariants(s)
		rs := &reports.Suite{Name: s.Name, Dir: s.Dir, Machine: served[0].v.Machine, Coverage: eval.NewCoverage(served[0].v.Machine),
			Latency: map[string]*eval.Latency{}}
		for _, sv := range served {
			rs.Variants = append(rs.Variants, sv.v.Name)
			rs.Latency[sv.v.Name] = eval.NewLatency()
		}
		describeSuite(s, rs)
		var t tally
		for vi, sv := range served {
			v := sv.v
			url := o.bot.url
			if sv.url != "" {
				url = sv.url
			}
			fmt.Fprintf(w, "suite %s (%s) against the bot at %s, variant %s\n", s.Name, s.Dir, url, v.Name)
			var convs []*bot.Conversation
			for _, sc := range s.Scenarios {
				if !selected(sc, o) || !o.shard.owns(s.Name, v.Name, sc.Name) {
					continue
				}
				c := bot.FromScenario(bot.Scripted, sc)
				switch in := servedFor(s, sc, served); {
				case in == nil && vi == 0:
					c.Skip = fmt.Sprintf("runs in other variants than the bot's (%s)", servedNames(served))
				case in == nil || !in[v.Name]:
					continue
				}
				convs = append(convs, c)
			}
			if o.generate > 0 {
				from, to := o.shard.span(o.generate)
				gen, err := bot.FromGenerated(s, v, o.seed, from, to)
				if err != nil {
					return 0, err
				}
				convs = append(convs, gen...)
			}
			depth := o.exploreDepth
			if depth < 0 {
				depth = s.ExploreDepth
			}
			if depth > 0 {
				// The run's one search of this variant (run.go), whole:
				// shards split the conversations it gives, by name.
				res, err := search(s, v, depth, o, false)
				if err != nil {
					return 0, err
				}
				ex, err := bot.FromExploration(s, v, res)
				if err != nil {
					return 0, err
				}
				for _, c := range ex {
					if o.shard.owns(s.Name, v.Name, c.Name) {
						convs = append(convs, c)
					}
				}
			}
			p := &bot.Player{Suite: s, Variant: v, Client: client.For(s.Bot, sv.url), Match: bot.NewMatcher(s.Bot), Seed: o.seed,
				Retries: o.bot.retries, Prefix: prefix + "-" + s.Name + "-" + v.Name, Meta: sv.meta}
			prog := newProgress(o.stderr, int64(len(convs)), o.quiet)
			// Once more conversations have faulted than the share allowed of
			// all to play, the run is inconclusive whatever the rest does:
			// playing them would only wait on a bot that is not there.
			budget := faultBudget(p, convs, o.bot.maxFaults)
			faulted := 0
			results := p.PlayAll(ctx, convs, o.workers, func(r *bot.Result) bool {
				prog.add(1, 0)
				if r.Verdict == bot.Faulted {
					faulted++
				}
				return faulted > budget
			})
			prog.finish(o.interrupted())

			counts := botTally{}
			faults := map[bot.FaultKind]int{}
			gaveUp := 0
			seen := map[string]bool{}
			var shrink []*bot.Result
			for _, r := range results {
				counts.add(r)
				for k, n := range r.Faults {
					faults[k] += n
					run.Bot.Faults[string(k)] += n
				}
				switch {
				case r.NotPlayed:
					run.Bot.NotPlayed++
					run.Bot.Conversations++
				case r.Verdict == bot.Faulted:
					run.Bot.Faulted++
					run.Bot.Conversations++
				case r.Verdict != bot.Skipped:
					run.Bot.Conversations++
				}
				rows = append(rows, botRow{Suite: s.Name, Variant: v.Name, Source: r.Conv.Source, Conversation: r.Conv.Name,
					Verdict: r.Verdict.String(), Turns: len(r.Turns), Attempts: r.Attempts, Reason: r.Why})
				for i, tn := range r.Turns {
					rs.Latency[v.Name].AddTurn(tn.MS, tn.State, i+1)
				}
				switch r.Verdict {
				case bot.Conforms:
					botCoverage(rs, r).Add(r.Coverage)
				case bot.Faulted:
					gaveUp++
				case bot.Diverges:
					t.fail++
					if sig := r.Signature(); !seen[sig] && len(shrink) < o.bot.failures {
						seen[sig] = true
						shrink = append(shrink, r)
					}
				}
				if r.Conv.Source == bot.Scripted {
					printBotScenario(w, r)
					if r.Verdict == bot.Conforms {
						t.pass++
						rs.Scenarios = append(rs.Scenarios, &sim.ScenarioResult{Suite: s.Name, Variant: v.Name, Scenario: r.Conv.Name,
							File: r.Conv.File, Status: sim.Pass, Turns: len(r.Turns)})
					}
				}
			}
			for _, src := range []string{bot.Scripted, bot.Generated, bot.Explored} {
				c := counts[src]
				if c == nil || src == bot.Scripted {
					continue
				}
				fmt.Fprintf(w, "  %-10s %5d conversations: %d conform, %d diverge, %d bot faults, %d skipped\n",
					src, c[0]+c[1]+c[2]+c[3], c[bot.Conforms], c[bot.Diverges], c[bot.Faulted], c[bot.Skipped])
			}
			printSkips(w, results)
			failDir := filepath.Join(o.out, reports.FailuresDir)
			for _, r := range shrink {
				sh := p.Shrink(ctx, r, o.bot.shrinks)
				name := bot.FailureName(s.Name, v.Name, r.Conv)
				path := filepath.Join(failDir, name+spec.ScenarioSuffix)
				rel := s.Dir
				if a, err := filepath.Abs(s.Dir); err == nil {
					if b, err := filepath.Abs(failDir); err == nil {
						if x, err := filepath.Rel(b, a); err == nil {
							rel = x
						}
					}
				}
				data, line := bot.ScenarioYAML(name, rel, params(s, v), o.seed, sh)
				files = append(files, file{name: name, path: path, data: data})
				at := sh.Turns[sh.At]
				replay := fmt.Sprintf("simctl run %s --bot %s", path, o.bot.url)
				fmt.Fprintf(w, "  DIVERGE %s %s, %s; shrunk from %d to %d turns (re-played against the bot)\n", r.Conv.Source, r.Conv.Name, sh.Why, sh.From, len(sh.Turns))
				for i, tn := range sh.Turns {
					fmt.Fprintf(w, "         %d user:  %q\n", i+1, tn.User)
					if i == sh.At && at.StateWhy != "" {
						fmt.Fprintf(w, "           said:  %q (both)\n", bot.Join(at.Model))
						fmt.Fprintf(w, "           state: %s\n", at.StateWhy)
					} else if i == sh.At {
						fmt.Fprintf(w, "           model: %q\n", bot.Join(at.Model))
						fmt.Fprintf(w, "           bot:   %q\n", bot.Join(at.Bot))
					}
				}
				fmt.Fprintf(w, "         replay: %s\n", replay)
				fail := sim.Failure{Pos: engine.Pos{File: path, Line: line, Col: 5}, Turn: sh.At + 1, What: "bot said (got: the live bot, want: the model)",
					Got: fmt.Sprintf("%q", bot.Join(at.Bot)), Want: fmt.Sprintf("%q", bot.Join(at.Model))}
				desc := "the live bot's reply differs from the model's"
				if at.StateWhy != "" {
					fail.What, fail.Got, fail.Want = "bot state: "+at.StateWhy, "the live bot's state", "the model's"
					desc = "the live bot's state differs from the model's"
				}
				rs.Scenarios = append(rs.Scenarios, &sim.ScenarioResult{Suite: s.Name, Variant: v.Name, Scenario: name, File: path,
					Description: desc, Status: sim.Fail, Turns: len(sh.Turns), Replay: replay, Failures: []sim.Failure{fail}})
			}
			if n := counts.total(bot.Diverges); n > len(shrink) {
				fmt.Fprintf(w, "  %d more diverging conversations repeat a divergence shown above (all in %s)\n", n-len(shrink), filepath.Join(o.out, BotCSV))
			}
			if len(faults) > 0 {
				var parts []string
				n := 0
				for _, k := range bot.FaultKinds {
					if faults[k] > 0 {
						parts = append(parts, fmt.Sprintf("%s %d", k, faults[k]))
						n += faults[k]
					}
				}
				fmt.Fprintf(w, "  bot faults (not conformance failures): %d (%s); %d conversations still faulted after %d retries\n",
					n, strings.Join(parts, ", "), gaveUp, o.bot.retries)
			}
		}
		cov, all := 0, 0
		merged := eval.NewCoverage(rs.Machine)
		for _, c := range []*eval.Coverage{rs.Coverage, rs.GeneratedCoverage, rs.ExploredCoverage} {
			if c != nil {
				merged.Add(c)
			}
		}
		for _, n := range merged.Trans {
			all++
			if n > 0 {
				cov++
			}
		}
		fmt.Fprintf(w, "  model transitions taken by conforming conversations: %d of %d\n", cov, all)
		latencyReport(s, rs, o, w, &t)
		fmt.Fprintf(w, "%s: %s\n\n", s.Name, t)
		total.merge(t)
		run.Suites = append(run.Suites, rs)
	}
	run.Incomplete = o.interrupted()
	if !run.Incomplete {
		judgeBot(ctx, client, run.Bot)
	}
	if o.out != "" {
		if err := reports.WriteAll(o.out, run); err != nil {
			return 0, err
		}
		var b bytes.Buffer
		if err := gocsv.Marshal(&rows, &b); err != nil {
			return 0, err
		}
		files = append(files, file{path: filepath.Join(o.out, BotCSV), data: b.Bytes()})
		for _, f := range files {
			if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
				return 0, err
			}
			tmp, err := reports.WriteTemp(filepath.Dir(f.path), f.path, f.data)
			if err != nil {
				return 0, err
			}
			if err := os.Rename(tmp, f.path); err != nil {
				os.Remove(tmp)
				return 0, err
			}
		}
	}
	if o.interrupted() {
		fmt.Fprintf(w, "interrupted: the report covers only the work finished before the signal\n")
		return ExitInterrupted, nil
	}
	fmt.Fprintf(w, "seed %d: the bot at %s against %d %s: %s\n", o.seed, o.bot.url, len(suites), plural(len(suites), "suite", "suites"), total)
	if o.out != "" {
		fmt.Fprintf(w, "reports written to %s (every conversation in %s)\n", o.out, BotCSV)
	}
	if b := run.Bot; b.Faulted > 0 || b.Inconclusive != "" {
		fmt.Fprintf(w, "bot faults: %d of %d conversations faulted on every attempt (at most %g%% may), %d not played; faults met: %s\n",
			b.Faulted, b.Conversations, b.MaxFaultsPercent, b.NotPlayed, b.Kinds())
	}
	switch {
	case total.fail > 0:
		return ExitFailed, nil
	case run.Bot.Inconclusive != "":
		fmt.Fprintf(w, "inconclusive: %s\n", run.Bot.Inconclusive)
		return ExitInconclusive, nil
	}
	return ExitOK, nil
}

// faultBudget is how many of convs may fault, maxPercent percent of those
// p is to play (not skipped).
func faultBudget(p *bot.Player, convs []*bot.Conversation, maxPercent float64) int {
	n := 0
	for _, c := range convs {
		if c.Skip == "" && p.Cannot(c) == "" {
			n++
		}
	}
	return int(float64(n) * maxPercent / 100)
}

// judgeBot decides whether the run could judge the bot: not when more
// conversations faulted than --bot-max-faults allows, nor when the bot no
// longer answers once they are played.
func judgeBot(ctx context.Context, client *bot.Client, b *reports.BotFaults) {
	if err := client.Reachable(ctx); err != nil {
		b.StoppedAnswering = true
	}
	var why []string
	if float64(b.Faulted+b.NotPlayed) > float64(b.Conversations)*b.MaxFaultsPercent/100 {
		why = append(why, fmt.Sprintf("%d of %d conversations faulted or were not played, more than the %g%% --bot-max-faults allows",
			b.Faulted+b.NotPlayed, b.Conversations, b.MaxFaultsPercent))
	}
	if b.StoppedAnswering {
		why = append(why, "the bot stopped answering")
	}
	b.Inconclusive = strings.Join(why, "; ")
}

func (t botTally) total(v bot.Verdict) int {
	n := 0
	for _, c := range t {
		n += c[v]
	}
	return n
}

// botCoverage is the coverage aggregate of r's source.
func botCoverage(rs *reports.Suite, r *bot.Result) *eval.Coverage {
	switch r.Conv.Source {
	case bot.Generated:
		if rs.GeneratedCoverage == nil {
			rs.GeneratedCoverage = eval.NewCoverage(rs.Machine)
		}
		return rs.GeneratedCoverage
	case bot.Explored:
		if rs.ExploredCoverage == nil {
			rs.ExploredCoverage = eval.NewCoverage(rs.Machine)
		}
		return rs.ExploredCoverage
	}
	return rs.Coverage
}

// servedVariant is a variant a live bot serves: the bot's URL ("": the
// --bot URL) and the metadata sent with its messages.
type servedVariant struct {
	v    *spec.Variant
	url  string
	meta map[string]any
}

// servedVariants lists the variants bot.yaml says the bot serves, in its
// order: variants:, else variant:, else the suite's first.
func servedVariants(s *spec.Suite) []servedVariant {
	byName := map[string]*spec.Variant{}
	for _, v := range s.Variants {
		byName[v.Name] = v
	}
	b := s.Bot
	switch {
	case b != nil && len(b.Variants) > 0:
		var out []servedVariant
		for _, bv := range b.Variants {
			sv := servedVariant{v: byName[bv.Name.Value], url: bv.URL.Value}
			if len(bv.Metadata) > 0 {
				sv.meta = map[string]any{}
				for _, e := range bv.Metadata {
					sv.meta[e.Key] = e.Value.Value
				}
			}
			out = append(out, sv)
		}
		return out
	case b != nil && b.Variant.Value != "":
		return []servedVariant{{v: byName[b.Variant.Value]}}
	}
	return []servedVariant{{v: s.Variants[0]}}
}

// servedFor is the set of served variants scenario sc runs in (nil: none).
func servedFor(s *spec.Suite, sc *spec.Scenario, served []servedVariant) map[string]bool {
	var in map[string]bool
	for _, x := range s.VariantsFor(sc) {
		for _, sv := range served {
			if sv.v == x {
				if in == nil {
					in = map[string]bool{}
				}
				in[x.Name] = true
			}
		}
	}
	return in
}

func servedNames(served []servedVariant) string {
	names := make([]string, len(served))
	for i, sv := range served {
		names[i] = sv.v.Name
	}
	return strings.Join(names, ", ")
}

// params pins every parameter of the suite to v's value.
func params(s *spec.Suite, v *spec.Variant) [][2]string {
	var out [][2]string
	for _, p := range s.Def.Params {
		val, _ := v.Machine.Param(p.Name)
		out = append(out, [2]string{p.Name, val.String()})
	}
	return out
}

func printBotScenario(w io.Writer, r *bot.Result) {
	switch r.Verdict {
	case bot.Conforms:
		fmt.Fprintf(w, "  PASS  %-40s %3d turns\n", r.Conv.Name, len(r.Turns))
	case bot.Diverges:
		fmt.Fprintf(w, "  FAIL  %-40s %s\n", r.Conv.Name, r.Why)
	case bot.Faulted:
		fmt.Fprintf(w, "  FAULT %-40s %s (not a conformance failure)\n", r.Conv.Name, r.Why)
	case bot.Skipped:
		fmt.Fprintf(w, "  SKIP  %-40s %s\n", r.Conv.Name, r.Why)
	}
}

// printSkips sums up why generated and explored conversations were
// skipped (bot.csv lists each).
func printSkips(w io.Writer, results []*bot.Result) {
	why := map[string]int{}
	for _, r := range results {
		if r.Verdict == bot.Skipped && r.Conv.Source != bot.Scripted {
			reason := r.Why
			if i := strings.Index(reason, ": "); i >= 0 && strings.HasPrefix(reason, "turn ") {
				reason = reason[i+2:]
			}
			if strings.Contains(reason, "waits") || strings.Contains(reason, "virtual clock") {
				reason = "it needs the virtual clock (wait:)"
			}
			why[r.Conv.Source+": "+reason]++
		}
	}
	keys := make([]string, 0, len(why))
	for k := range why {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  skipped %d %s\n", why[k], k)
	}
}
