package spec

import (
	"fmt"
	"regexp"

	"github.com/simctl/simctl/engine"
)

// BotFile is the name of a suite's reply-matching rules for simctl run
// --bot (docs/bot-check.md).
const BotFile = "bot.yaml"

// Bot is a suite's bot.yaml: which variant of the machine the live bot
// implements, and how its replies are compared with the model's where the
// wording may vary. Without bot.yaml a live bot runs the first variant and
// every reply must equal the model's exactly.
type Bot struct {
	File string
	Pos  engine.Pos
	// Variant names the variant the bot implements ("": the first).
	Variant Str `yaml:"variant"`
	// Replies are tried in order on each message of the model; the first
	// whose prompt fits says how the bot's message is judged.
	Replies []ReplyRule `yaml:"replies"`
}

// ReplyRule judges the bot's message where the model says Prompt (exactly)
// or a text matching PromptMatches (as a whole): the bot's message must
// match Matches (as a whole), or be one of Accept.
type ReplyRule struct {
	Pos           engine.Pos
	Prompt        *Str    `yaml:"prompt"`
	PromptMatches *Str    `yaml:"prompt_matches"`
	Matches       *Str    `yaml:"matches"`
	Accept        StrList `yaml:"accept"`
	// Compiled: PromptMatches and Matches, anchored at both ends (nil when
	// absent).
	PromptRe, MatchesRe *regexp.Regexp `yaml:"-"`
}

// LoadBot parses bot.yaml and checks its variant against the suite's.
func LoadBot(file string, data []byte, variants []*Variant) (*Bot, error) {
	b := &Bot{File: file}
	if err := decodeFile(file, data, b); err != nil {
		return nil, err
	}
	if b.Variant.Value != "" {
		found := false
		var names []string
		for _, v := range variants {
			found = found || v.Name == b.Variant.Value
			names = append(names, v.Name)
		}
		if !found {
			return nil, &Error{Pos: b.Variant.Pos, Msg: fmt.Sprintf("variant: unknown variant %q (the suite has: %s)", b.Variant.Value, joinNames(names))}
		}
	}
	for i := range b.Replies {
		r := &b.Replies[i]
		if (r.Prompt == nil) == (r.PromptMatches == nil) {
			return nil, &Error{Pos: r.Pos, Msg: "a reply rule needs exactly one of prompt or prompt_matches"}
		}
		if (r.Matches == nil) == (len(r.Accept) == 0) {
			return nil, &Error{Pos: r.Pos, Msg: "a reply rule needs exactly one of matches or accept"}
		}
		var err error
		if r.PromptMatches != nil {
			if r.PromptRe, err = wholeRegexp(r.PromptMatches); err != nil {
				return nil, err
			}
		}
		if r.Matches != nil {
			if r.MatchesRe, err = wholeRegexp(r.Matches); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

// wholeRegexp compiles a pattern that must match a whole message.
func wholeRegexp(s *Str) (*regexp.Regexp, error) {
	re, err := regexp.Compile(`^(?:` + s.Value + `)$`)
	if err != nil {
		return nil, &Error{Pos: s.Pos, Msg: fmt.Sprintf("bad regular expression: %v", err)}
	}
	return re, nil
}
