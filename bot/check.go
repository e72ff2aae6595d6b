package bot

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// PlayAll plays convs on workers goroutines and returns their results in
// the order of convs: which worker played what changes nothing but the
// time taken. done, when set, hears of each finished conversation (one
// call at a time); when it returns true no further conversation is
// started, and those not started are Skipped with NotPlayed set.
func (p *Player) PlayAll(ctx context.Context, convs []*Conversation, workers int, done func(*Result) bool) []*Result {
	out := make([]*Result, len(convs))
	next := make(chan int)
	var mu sync.Mutex
	var stopped atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = p.Play(ctx, convs[i])
				if done != nil {
					mu.Lock()
					if done(out[i]) {
						stopped.Store(true)
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := range convs {
		if ctx.Err() != nil || stopped.Load() {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for i, r := range out {
		if r == nil {
			why := "not played: the run was interrupted"
			if ctx.Err() == nil {
				why = "not played: the run was already inconclusive"
			}
			out[i] = &Result{Conv: convs[i], Verdict: Skipped, Why: why, NotPlayed: true}
		}
	}
	return out
}

// Signature identifies a divergence for deduplication: the model's and the
// bot's messages at the divergent turn, or, when the replies agreed, what
// of their states differed (the slot, not its values or the turn: one
// wrongly stored slot is one divergence).
func (r *Result) Signature() string {
	t := r.Turns[r.At]
	if t.StateWhy != "" {
		what, _, _ := strings.Cut(t.StateWhy, ":")
		return "state\x00" + what
	}
	return Join(t.Model) + "\x00" + Join(t.Bot)
}

// FailureName is the scenario name of a shrunk divergence. A failure file
// played again keeps its name: it is not prefixed twice.
func FailureName(suite, variant string, c *Conversation) string {
	prefix := fmt.Sprintf("bot-%s-%s-", suite, variant)
	name := strings.ReplaceAll(c.Name, "/", "-")
	if strings.HasPrefix(name, prefix) {
		return name
	}
	return prefix + name
}

// ScenarioYAML writes a shrunk divergence as a scenario: each turn a user
// message expecting the model's reply (so simctl replay of it passes, the
// model agreeing with itself), the bot's reply at the divergent turn in a
// comment; simctl run FILE --bot URL plays it against the bot again.
// suiteDir is the suite folder relative to where the file is written. It
// also returns the line of the divergent turn's expectation.
func ScenarioYAML(name, suiteDir string, params [][2]string, seed int64, sh *Shrunk) ([]byte, int) {
	var b strings.Builder
	r := sh.Result
	what := "reply"
	if r.Turns[r.At].StateWhy != "" {
		what = "state"
	}
	fmt.Fprintf(&b, "# Written by simctl run --bot (seed %d): the live bot's %s differs from the model's at turn %d.\n", seed, what, r.At+1)
	fmt.Fprintf(&b, "# Found in %s conversation %s, shrunk from %d to %d turns against the live bot.\n", r.Conv.Source, r.Conv.Name, sh.From, len(r.Turns))
	b.WriteString("# Play it against the bot again: simctl run <this file> --bot URL\n")
	fmt.Fprintf(&b, "name: %s\n", name)
	fmt.Fprintf(&b, "suite: %s\n", strconv.Quote(filepath.ToSlash(suiteDir)))
	fmt.Fprintf(&b, "description: %s\n", strconv.Quote("the bot diverges from the model: "+r.Why))
	if len(params) > 0 {
		b.WriteString("parameters:\n")
		for _, p := range params {
			fmt.Fprintf(&b, "  %s: %s\n", p[0], strconv.Quote(p[1]))
		}
	}
	b.WriteString("turns:\n")
	line := 0
	for i, t := range r.Turns {
		switch t.Kind {
		case Wait:
			fmt.Fprintf(&b, "  - wait: %dms\n", t.WaitMS)
		case Event:
			fmt.Fprintf(&b, "  - event: {intent: %s", strconv.Quote(t.Intent))
			if t.Confidence != 0 {
				fmt.Fprintf(&b, ", confidence: %s", strconv.FormatFloat(t.Confidence, 'f', -1, 64))
			}
			if len(t.Entities) > 0 {
				b.WriteString(", entities: {")
				for j, e := range t.Entities {
					if j > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, "%s: %s", strconv.Quote(e[0]), strconv.Quote(e[1]))
				}
				b.WriteString("}")
			}
			b.WriteString("}\n")
		default:
			fmt.Fprintf(&b, "  - user: %s\n", strconv.Quote(t.Text))
		}
		if i == r.At {
			if t.StateWhy != "" {
				fmt.Fprintf(&b, "    # the bot's state differs: %s\n", t.StateWhy)
			} else {
				fmt.Fprintf(&b, "    # the bot said: %s\n", strconv.Quote(Join(t.Bot)))
			}
			line = strings.Count(b.String(), "\n") + 1
		}
		fmt.Fprintf(&b, "    expect: {bot: %s}\n", strconv.Quote(Join(t.Model)))
	}
	return []byte(b.String()), line
}
