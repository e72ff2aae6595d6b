package bot

import (
	"fmt"
	"strings"

	"github.com/simctl/simctl/spec"
)

// Matcher judges a bot's messages against the model's, by the suite's
// bot.yaml rules (nil rules: every message exactly).
type Matcher struct {
	rules []spec.ReplyRule
}

// NewMatcher returns the matcher of a suite's bot.yaml (b may be nil).
func NewMatcher(b *spec.Bot) *Matcher {
	if b == nil {
		return &Matcher{}
	}
	return &Matcher{rules: b.Replies}
}

// Turn compares one turn: the model's messages, in order, with the bot's.
// It returns "" when they conform, else why not.
func (mt *Matcher) Turn(model, bot []string) string {
	if len(model) != len(bot) {
		return fmt.Sprintf("the model says %d message(s), the bot %d", len(model), len(bot))
	}
	for i := range model {
		if !mt.message(model[i], bot[i]) {
			if len(model) == 1 {
				return "the bot's message differs from the model's"
			}
			return fmt.Sprintf("message %d of %d differs", i+1, len(model))
		}
	}
	return ""
}

// message judges one message: by the first rule whose prompt fits the
// model's text, else exactly.
func (mt *Matcher) message(model, bot string) bool {
	for i := range mt.rules {
		r := &mt.rules[i]
		switch {
		case r.Prompt != nil && r.Prompt.Value != model:
			continue
		case r.PromptRe != nil && !r.PromptRe.MatchString(model):
			continue
		}
		if r.MatchesRe != nil {
			return r.MatchesRe.MatchString(bot)
		}
		for _, a := range r.Accept {
			if a.Value == bot {
				return true
			}
		}
		return false
	}
	return model == bot
}

// Join is how a turn's messages are shown (and written into a scenario's
// expect: bot:, which compares the model's messages joined the same way).
func Join(msgs []string) string { return strings.Join(msgs, "\n") }
