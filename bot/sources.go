package bot

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// FromScenario turns a scripted scenario into the steps it plays: a
// user: turn sends its text, an event: turn with text sends that text (the
// model parses it again), an event without text and a wait: are steps the
// Player sends as bot.yaml says (or skips, saying why). A failed external
// action cannot be played over any channel: the conversation is skipped.
// The scenario's expectations are about the model, which simctl run
// checks without --bot; here the replies (and the state) are compared.
func FromScenario(source string, sc *spec.Scenario) *Conversation {
	c := &Conversation{Source: source, Name: sc.Name, File: sc.File}
	for i, t := range sc.Turns {
		switch {
		case len(t.Fail) > 0:
			c.Skip = fmt.Sprintf("turn %d makes %s fail, which a live bot cannot be told to do", i+1, t.Fail[0].Value)
			return c
		case t.Wait != nil:
			c.Steps = append(c.Steps, Step{Kind: Wait, WaitMS: int64(*t.Wait)})
		case t.Event != nil && t.Event.Text == "":
			st := Step{Kind: Event, Intent: t.Event.Intent.Value}
			if t.Event.Confidence != nil {
				st.Confidence = *t.Event.Confidence
			}
			for _, e := range t.Event.Entities {
				st.Entities = append(st.Entities, [2]string{e.Key, e.Value.Value})
			}
			c.Steps = append(c.Steps, st)
		case t.Event != nil:
			c.Steps = append(c.Steps, Step{Text: t.Event.Text})
		default:
			c.Steps = append(c.Steps, Step{Text: t.User.Value})
		}
	}
	return c
}

// FromGenerated draws conversations from..to-1 of the suite's simulated
// users in variant v (the same stream as simctl run --generate with the
// same seed), played against the model to learn what the user says.
func FromGenerated(s *spec.Suite, v *spec.Variant, seed int64, from, to int) ([]*Conversation, error) {
	mo, err := generate.NewModel(s, v.Machine)
	if err != nil {
		return nil, err
	}
	p := generate.NewPlayer(mo, sim.NewStub(s.NLU, v.Machine))
	p.Record = true
	out := make([]*Conversation, 0, to-from)
	for k := from; k < to; k++ {
		o := p.Play(mo.Sample(seed, k), generate.ConversationSeed(seed, k))
		c := &Conversation{Source: Generated, Name: fmt.Sprintf("generated-%d", k), Index: k}
		for i, t := range o.Recorded {
			switch {
			case len(t.Fail) > 0:
				c.Skip = fmt.Sprintf("turn %d makes %s fail, which a live bot cannot be told to do", i+1, t.Fail[0])
			case t.Parsed != nil:
				c.Skip = fmt.Sprintf("turn %d is an event the user's words do not parse to", i+1)
			case t.IsWait:
				c.Steps = append(c.Steps, Step{Kind: Wait, WaitMS: t.WaitMS})
				continue
			case t.Intent != "":
				c.Steps = append(c.Steps, Step{Kind: Event, Intent: t.Intent})
				continue
			default:
				c.Steps = append(c.Steps, Step{Text: t.User})
				continue
			}
			c.Steps = nil
			break
		}
		out = append(out, c)
	}
	return out, nil
}

// FromExploration returns the scenarios that together take every
// transition search res of variant v took (simctl explore
// --emit-scenarios), as conversations. The caller searches, once per
// variant, so that a run's findings and its conversations share it.
func FromExploration(s *spec.Suite, v *spec.Variant, res *explore.Result) ([]*Conversation, error) {
	dir, err := os.MkdirTemp("", "simctl-bot-explore-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if _, err := explore.EmitScenarios(dir, []*explore.Result{res}); err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*"+spec.ScenarioSuffix))
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return coverIndex(files[i]) < coverIndex(files[j]) })
	invs := map[string]bool{}
	for _, n := range spec.BuiltinInvariants {
		invs[n] = true
	}
	for _, inv := range v.Machine.Invariants() {
		invs[inv.Name] = true
	}
	var out []*Conversation
	for _, f := range files {
		if !strings.Contains(filepath.Base(f), "-cover-") {
			continue // the paths to findings: simctl run reports those itself
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		sc, err := spec.LoadScenario(f, data, v.Machine, s.Tags, invs)
		if err != nil {
			return nil, err
		}
		c := FromScenario(Explored, sc)
		c.File = ""
		out = append(out, c)
	}
	return out, nil
}

// coverIndex orders explore-...-cover-N files by N.
func coverIndex(f string) int {
	base := strings.TrimSuffix(filepath.Base(f), spec.ScenarioSuffix)
	n := 0
	if i := strings.LastIndex(base, "-"); i >= 0 {
		fmt.Sscanf(base[i+1:], "%d", &n)
	}
	return n
}
