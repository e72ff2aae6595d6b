package spec

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/engine"
)

// Users is a suite's users.yaml: the goals simulated users pursue and how
// often they stray. docs/users-format.md documents it. Without users.yaml a
// suite still gets generated conversations, from defaults derived from the
// machine (package generate).
type Users struct {
	File        string `yaml:"-"`
	Pos         engine.Pos
	Goals       []Goal       `yaml:"goals"`
	Behaviour   Behaviour    `yaml:"behaviour"`
	Phrases     Entries[Str] `yaml:"phrases"`
	MaxTurns    int          `yaml:"max_turns"`
	MaxTurnsPos engine.Pos   `yaml:"-"`
	// Personas gives the chance of each persona (PersonaNames) per
	// conversation; empty: the defaults of package generate.
	Personas Entries[Prob] `yaml:"personas"`
	// AfterCompletion is the number of turns a user goes on for once its
	// task has ended (nil: the default of package generate).
	AfterCompletion    *int       `yaml:"after_completion"`
	AfterCompletionPos engine.Pos `yaml:"-"`
}

// PersonaNames are the kinds of simulated user a conversation is drawn
// as (docs/users-format.md#personas).
var PersonaNames = []string{"cooperative", "correcting", "silent", "impatient", "off_topic", "noisy"}

// Goal is what one simulated user wants: the intent that starts the task
// and, per slot, the values it may give (one is drawn per conversation),
// plus values that the machine should reject.
type Goal struct {
	Pos    engine.Pos
	Name   string `yaml:"name"`
	Intent Str    `yaml:"intent,required"`
	// Say is how the user asks for the task; default: a phrase the NLU maps
	// to the intent.
	Say     string            `yaml:"say"`
	Weight  float64           `yaml:"weight"`
	Slots   Entries[[]string] `yaml:"slots"`
	Invalid Entries[[]string] `yaml:"invalid"`
	// Lists gives, per slot the machine asks for again and again (a list:
	// toppings), the items the user gives one after the other before
	// saying the done phrase.
	Lists Entries[[]string] `yaml:"lists"`
	// Success, when given, is the condition (an expression over the
	// machine, like a guard) that says the task is done; by default every
	// goal slot must have been filled with the goal's value and, if the
	// machine has external actions, one of them done.
	Success Expr `yaml:"success"`
	// Variants limits the goal to these variants (all when empty).
	Variants StrList `yaml:"variants"`
	// Check is Success compiled against the default variant.
	Check func(*engine.Config) bool `yaml:"-"`
}

// Behaviour gives, for each way a user strays from the agenda, the chance
// that a turn does so. The rest of the time the user cooperates.
type Behaviour struct {
	Pos        engine.Pos
	Correct    *Prob `yaml:"correct"`
	Invalid    *Prob `yaml:"invalid"`
	OffTopic   *Prob `yaml:"off_topic"`
	Silence    *Prob `yaml:"silence"`
	ChangeMind *Prob `yaml:"change_mind"`
	Human      *Prob `yaml:"human"`
	Cancel     *Prob `yaml:"cancel"`
	Deny       *Prob `yaml:"deny"`
	// ActionFailure is the chance that the external actions a turn sets
	// off fail (it is not a way of straying: the backend fails).
	ActionFailure *Prob `yaml:"action_failure"`
}

// Prob is a probability with its position.
type Prob struct {
	Value float64
	Pos   engine.Pos
}

func (p *Prob) decodeYAML(d *decoder, n *yaml.Node) error {
	var f float64
	if err := d.decode(n, refl(&f), 1); err != nil {
		return err
	}
	p.Value, p.Pos = f, d.pos(n)
	if f < 0 || f > 1 {
		return d.errf(n, "probability %v is outside [0,1]", f)
	}
	return nil
}

// PhraseRoles are the things a simulated user may need to say besides slot
// values; users.yaml phrases: gives them words.
var PhraseRoles = []string{"affirm", "deny", "cancel", "human", "off_topic", "correction", "thanks", "done"}

// LoadUsers parses users.yaml and checks it against the machine.
func LoadUsers(file string, data []byte, m *engine.Machine) (*Users, error) {
	u := &Users{File: file}
	if err := decodeFile(file, data, u); err != nil {
		return nil, err
	}
	if err := checkMaxTurns(u.MaxTurns, u.MaxTurnsPos); err != nil {
		return nil, err
	}
	total := 0.0
	for _, p := range []*Prob{u.Behaviour.Correct, u.Behaviour.Invalid, u.Behaviour.OffTopic, u.Behaviour.Silence,
		u.Behaviour.ChangeMind, u.Behaviour.Human, u.Behaviour.Cancel, u.Behaviour.Deny} {
		if p != nil {
			total += p.Value
		}
	}
	if total > 1 {
		return nil, &Error{Pos: u.Behaviour.Pos, Msg: fmt.Sprintf("behaviour probabilities add up to %v, more than 1", total)}
	}
	if u.AfterCompletion != nil && (*u.AfterCompletion < 0 || *u.AfterCompletion > 100) {
		return nil, &Error{Pos: u.AfterCompletionPos, Msg: "after_completion must be from 0 to 100"}
	}
	if len(u.Personas) > 0 {
		sum := 0.0
		for _, p := range u.Personas {
			if !slices.Contains(PersonaNames, p.Key) {
				return nil, &Error{Pos: p.KeyPos, Msg: fmt.Sprintf("unknown persona %q (expected one of: %s)", p.Key, strings.Join(PersonaNames, ", "))}
			}
			sum += p.Value.Value
		}
		if math.Abs(sum-1) > 1e-9 {
			return nil, &Error{Pos: u.Personas[0].KeyPos, Msg: fmt.Sprintf("persona probabilities add up to %v, not 1", sum)}
		}
	}
	for i := range u.Goals {
		g := &u.Goals[i]
		if _, ok := m.IntentID(g.Intent.Value); !ok {
			return nil, unknownIntent(g.Intent, m)
		}
		if g.Weight < 0 {
			return nil, &Error{Pos: g.Pos, Msg: "weight must not be negative"}
		}
		if g.Weight == 0 {
			g.Weight = 1
		}
		if g.Name == "" {
			g.Name = g.Intent.Value
		}
		if g.Success.Src != "" {
			check, err := m.Condition(g.Success.engine())
			if err != nil {
				return nil, toSpecError(err)
			}
			g.Check = check
		}
		for _, set := range []Entries[[]string]{g.Slots, g.Invalid, g.Lists} {
			for _, e := range set {
				if _, ok := m.SlotID(e.Key); !ok {
					return nil, unknownSlot(Str{Value: e.Key, Pos: e.KeyPos}, m)
				}
				if len(e.Value) == 0 {
					return nil, &Error{Pos: e.KeyPos, Msg: fmt.Sprintf("slot %q needs at least one value", e.Key)}
				}
			}
		}
	}
	for _, p := range u.Phrases {
		known := false
		for _, r := range PhraseRoles {
			known = known || r == p.Key
		}
		if !known {
			return nil, &Error{Pos: p.KeyPos, Msg: fmt.Sprintf("unknown phrase %q (expected one of: %s)", p.Key, strings.Join(PhraseRoles, ", "))}
		}
	}
	return u, nil
}

func toSpecError(err error) error {
	if e, ok := err.(*engine.Error); ok {
		return &Error{Pos: e.Pos, Msg: e.Msg}
	}
	return err
}
