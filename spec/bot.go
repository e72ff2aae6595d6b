package spec

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/jsonpath"
)

// BotFile is the name of a suite's reply-matching rules for simctl run
// --bot (docs/bot-check.md).
const BotFile = "bot.yaml"

// Bot is a suite's bot.yaml: which variants of the machine the live bot
// serves, how simctl talks to it, how its state and the events without
// text reach it, and how its replies are compared with the model's where
// the wording may vary. Without bot.yaml a live bot speaks Rasa's REST
// channel, runs the first variant, and every reply must equal the model's
// exactly (docs/bot-check.md).
type Bot struct {
	File string
	Pos  engine.Pos
	// Variant names the variant the bot implements ("": the first).
	Variant Str `yaml:"variant"`
	// Variants, instead of Variant, lists every variant played, each with
	// the bot that serves it (the --bot URL unless URL is set) and the
	// metadata sent with its messages (a variant selector).
	Variants []BotVariant `yaml:"variants"`
	// Replies are tried in order on each message of the model; the first
	// whose prompt fits says how the bot's message is judged.
	Replies   []ReplyRule   `yaml:"replies"`
	Connector *BotConnector `yaml:"connector"`
	State     *BotState     `yaml:"state"`
	Events    *BotEvents    `yaml:"events"`
	Clock     *BotClock     `yaml:"clock"`
}

// BotVariant is one variant a live bot serves.
type BotVariant struct {
	Pos      engine.Pos
	Name     Str          `yaml:"name,required"`
	URL      Str          `yaml:"url"`
	Metadata Entries[Str] `yaml:"metadata"`
}

// Connector shapes.
const (
	ShapeRest       = "rest"
	ShapeSimpleRest = "simplerest"
	ShapeLangGraph  = "langgraph"
)

// BotConnector says how messages reach the bot: Rasa's REST channel
// (rest, the default), any JSON API configured as Botium's generic HTTP
// connector is (simplerest, with Botium's SIMPLEREST_* names), or
// LangGraph's server API (langgraph).
type BotConnector struct {
	Pos   engine.Pos
	Shape Str `yaml:"shape"`
	// simplerest.
	Method       Str          `yaml:"SIMPLEREST_METHOD"`
	Headers      Entries[Str] `yaml:"SIMPLEREST_HEADERS_TEMPLATE"`
	Body         Str          `yaml:"SIMPLEREST_BODY_TEMPLATE"`
	BodyPath     Str          `yaml:"SIMPLEREST_BODY_JSONPATH"`
	ResponsePath Str          `yaml:"SIMPLEREST_RESPONSE_JSONPATH"`
	// langgraph: the assistant (graph) id, the input key the user's
	// message goes in, and where the reply is in the run's output.
	AssistantID Str `yaml:"assistant_id"`
	InputKey    Str `yaml:"input_key"`
	ReplyPath   Str `yaml:"reply_jsonpath"`

	// Compiled: the body template as decoded JSON, the paths.
	BodyJSON                    any               `yaml:"-"`
	BodyRe, ResponseRe, ReplyRe *jsonpath.Path    `yaml:"-"`
	HeaderMap                   map[string]string `yaml:"-"`
}

// BotState says where the bot's state is read after each turn and how its
// JSON maps onto the model's slots, waiting slot, state and active flow.
type BotState struct {
	Pos engine.Pos
	// URL, resolved against the --bot URL; {sender} is the conversation's
	// sender id. Rasa's tracker: /conversations/{sender}/tracker.
	URL Str `yaml:"url"`
	// Slots maps a model slot to the JSON path of its value; an empty path
	// is the slot's name under the shape's root ($.slots for Rasa's
	// tracker, $.values for LangGraph, $ otherwise).
	Slots   Entries[Str] `yaml:"slots"`
	Waiting Str          `yaml:"waiting"`
	State   Str          `yaml:"state"`
	Flow    Str          `yaml:"flow"`
	// States maps a value of the bot's state to the model's state name
	// (absent: the same name).
	States Entries[Str] `yaml:"states"`

	// Compiled paths, in Slots order.
	SlotPaths                        []*jsonpath.Path `yaml:"-"`
	WaitingPath, StatePath, FlowPath *jsonpath.Path   `yaml:"-"`
}

// BotEvents says how a model event without text (an intent, with its
// entities) reaches the bot: as Rasa's payload message
// /intent{"entity": "value"} (payload), or as an empty message with the
// event in a metadata field (metadata); Messages gives the exact message
// for an intent (a button's payload).
type BotEvents struct {
	Pos      engine.Pos
	As       Str          `yaml:"as"`
	Field    Str          `yaml:"field"`
	Messages Entries[Str] `yaml:"messages"`
}

// BotClock is the bot's clock endpoint: POST {"sender", "advance_ms"}
// advances that conversation's clock, answered as a message is.
type BotClock struct {
	Pos engine.Pos
	URL Str `yaml:"url,required"`
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

// LoadBot parses bot.yaml and checks it against the suite's variants and
// machine.
func LoadBot(file string, data []byte, variants []*Variant) (*Bot, error) {
	b := &Bot{File: file}
	if err := decodeFile(file, data, b); err != nil {
		return nil, err
	}
	var names []string
	for _, v := range variants {
		names = append(names, v.Name)
	}
	known := func(s Str) error {
		for _, n := range names {
			if n == s.Value {
				return nil
			}
		}
		return &Error{Pos: s.Pos, Msg: fmt.Sprintf("variant: unknown variant %q (the suite has: %s)", s.Value, joinNames(names))}
	}
	if b.Variant.Value != "" {
		if err := known(b.Variant); err != nil {
			return nil, err
		}
		if len(b.Variants) > 0 {
			return nil, &Error{Pos: b.Variant.Pos, Msg: "variant and variants: give one of them"}
		}
	}
	seen := map[string]bool{}
	for _, v := range b.Variants {
		if err := known(v.Name); err != nil {
			return nil, err
		}
		if seen[v.Name.Value] {
			return nil, &Error{Pos: v.Name.Pos, Msg: fmt.Sprintf("variant %q is listed twice", v.Name.Value)}
		}
		seen[v.Name.Value] = true
		if err := checkURL(v.URL); err != nil {
			return nil, err
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
	var m *engine.Machine
	if len(variants) > 0 {
		m = variants[0].Machine
	}
	if err := b.Connector.check(); err != nil {
		return nil, err
	}
	if err := b.State.check(m, b.Connector.shape()); err != nil {
		return nil, err
	}
	if err := b.Events.check(m); err != nil {
		return nil, err
	}
	if b.Clock != nil {
		if err := checkURL(b.Clock.URL); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// shape is the connector's shape, rest by default.
func (c *BotConnector) shape() string {
	if c == nil || c.Shape.Value == "" {
		return ShapeRest
	}
	return c.Shape.Value
}

// Shape is the connector's shape (rest when there is no connector).
func (b *Bot) Shape() string {
	if b == nil {
		return ShapeRest
	}
	return b.Connector.shape()
}

func (c *BotConnector) check() error {
	if c == nil {
		return nil
	}
	var err error
	switch c.shape() {
	case ShapeRest:
	case ShapeSimpleRest:
		if c.ResponsePath.Value == "" {
			return &Error{Pos: c.Pos, Msg: "a simplerest connector needs SIMPLEREST_RESPONSE_JSONPATH"}
		}
		switch c.Method.Value {
		case "", "POST", "PUT", "PATCH", "GET":
		default:
			return &Error{Pos: c.Method.Pos, Msg: fmt.Sprintf("SIMPLEREST_METHOD: expected GET, POST, PUT or PATCH, got %q", c.Method.Value)}
		}
		if c.Body.Value != "" {
			if e := json.Unmarshal([]byte(c.Body.Value), &c.BodyJSON); e != nil {
				return &Error{Pos: c.Body.Pos, Msg: "SIMPLEREST_BODY_TEMPLATE: expected a JSON document: " + e.Error()}
			}
		}
		c.HeaderMap = map[string]string{}
		for _, h := range c.Headers {
			c.HeaderMap[h.Key] = h.Value.Value
		}
		if c.BodyRe, err = compilePath(c.BodyPath); err != nil {
			return err
		}
		if c.ResponseRe, err = compilePath(c.ResponsePath); err != nil {
			return err
		}
	case ShapeLangGraph:
		if c.ReplyRe, err = compilePath(c.ReplyPath); err != nil {
			return err
		}
	default:
		return &Error{Pos: c.Shape.Pos, Msg: fmt.Sprintf("shape: expected rest, simplerest or langgraph, got %q", c.Shape.Value)}
	}
	return nil
}

func (st *BotState) check(m *engine.Machine, shape string) error {
	if st == nil {
		return nil
	}
	if st.URL.Value == "" && shape != ShapeLangGraph {
		return &Error{Pos: st.Pos, Msg: "state needs url (Rasa's tracker: /conversations/{sender}/tracker)"}
	}
	if err := checkURL(st.URL); err != nil {
		return err
	}
	root := "$"
	switch {
	case shape == ShapeLangGraph:
		root = "$.values"
	case strings.Contains(st.URL.Value, "/tracker"):
		root = "$.slots"
	}
	for _, e := range st.Slots {
		if m != nil {
			if _, ok := m.SlotID(e.Key); !ok {
				return &Error{Pos: e.KeyPos, Msg: fmt.Sprintf("slots: unknown slot %q", e.Key)}
			}
		}
		src := e.Value
		if src.Value == "" {
			src = Str{Value: root + "['" + e.Key + "']", Pos: e.KeyPos}
		}
		p, err := compilePath(src)
		if err != nil {
			return err
		}
		st.SlotPaths = append(st.SlotPaths, p)
	}
	var err error
	if st.WaitingPath, err = compilePath(st.Waiting); err != nil {
		return err
	}
	if st.StatePath, err = compilePath(st.State); err != nil {
		return err
	}
	if st.FlowPath, err = compilePath(st.Flow); err != nil {
		return err
	}
	if m != nil {
		for _, e := range st.States {
			if _, ok := m.StateID(e.Value.Value); !ok {
				return &Error{Pos: e.Value.Pos, Msg: fmt.Sprintf("states: unknown state %q", e.Value.Value)}
			}
		}
	}
	return nil
}

func (ev *BotEvents) check(m *engine.Machine) error {
	if ev == nil {
		return nil
	}
	switch ev.As.Value {
	case "payload", "":
	case "metadata":
		if ev.Field.Value == "" {
			ev.Field.Value = "event"
		}
	default:
		return &Error{Pos: ev.As.Pos, Msg: fmt.Sprintf("as: expected payload or metadata, got %q", ev.As.Value)}
	}
	if m != nil {
		for _, e := range ev.Messages {
			if _, ok := m.IntentID(e.Key); !ok {
				return &Error{Pos: e.KeyPos, Msg: fmt.Sprintf("messages: unknown intent %q", e.Key)}
			}
		}
	}
	return nil
}

// checkURL accepts an absolute http(s) URL or a reference resolved
// against the --bot URL ("": none).
func checkURL(s Str) error {
	if s.Value == "" {
		return nil
	}
	u, err := url.Parse(strings.ReplaceAll(s.Value, "{sender}", "x"))
	if err != nil || (u.IsAbs() && u.Scheme != "http" && u.Scheme != "https") {
		return &Error{Pos: s.Pos, Msg: fmt.Sprintf("expected an http(s) URL or a path, got %q", s.Value)}
	}
	return nil
}

// compilePath compiles a JSON path ("": nil).
func compilePath(s Str) (*jsonpath.Path, error) {
	if s.Value == "" {
		return nil, nil
	}
	p, err := jsonpath.Compile(s.Value)
	if err != nil {
		return nil, &Error{Pos: s.Pos, Msg: err.Error()}
	}
	return p, nil
}

// wholeRegexp compiles a pattern that must match a whole message.
func wholeRegexp(s *Str) (*regexp.Regexp, error) {
	re, err := regexp.Compile(`^(?:` + s.Value + `)$`)
	if err != nil {
		return nil, &Error{Pos: s.Pos, Msg: fmt.Sprintf("bad regular expression: %v", err)}
	}
	return re, nil
}
