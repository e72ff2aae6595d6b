package spec

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/engine"
)

// Noise is nlu.yaml's noise: how the suite's NLU goes wrong when simctl run
// injects NLU errors (--nlu-noise, --nlu-noise-sweep). The run gives the
// error rate; each factor scales it for one kind of error, and confusion
// says which wrong intent each intent becomes. docs/nlu-format.md
// documents it.
type Noise struct {
	Pos engine.Pos
	// Intent, Confidence, Entities and Text scale the error rate for
	// intent confusion, confidence jitter, entity errors and text
	// perturbation; nil means 1.
	Intent     *Factor `yaml:"intent"`
	Confidence *Factor `yaml:"confidence"`
	Entities   *Factor `yaml:"entities"`
	Text       *Factor `yaml:"text"`
	// Confusion gives, per true intent, the relative weights of the wrong
	// intents it is confused with; an intent not listed is confused with
	// any other intent, uniformly.
	Confusion Entries[Entries[Factor]] `yaml:"confusion"`
}

// Factor is a non-negative number with its position.
type Factor struct {
	Value float64
	Pos   engine.Pos
}

func (f *Factor) decodeYAML(d *decoder, n *yaml.Node) error {
	var x float64
	if err := d.decode(n, refl(&x), 1); err != nil {
		return err
	}
	f.Value, f.Pos = x, d.pos(n)
	if x < 0 {
		return d.errf(n, "expected a number 0 or more, got %v", x)
	}
	return nil
}

// Scale returns the factor's value, 1 when it is not given.
func (f *Factor) Scale() float64 {
	if f == nil {
		return 1
	}
	return f.Value
}

// checkNoise checks the confusion matrix against the machine's intents.
func checkNoise(n *Noise, m *engine.Machine) error {
	if n == nil {
		return nil
	}
	for _, row := range n.Confusion {
		if _, ok := m.IntentID(row.Key); !ok {
			return &Error{Pos: row.KeyPos, Msg: fmt.Sprintf("noise: confusion: unknown intent %q (the machine declares: %s)", row.Key, joinNames(m.Intents()))}
		}
		total := 0.0
		for _, c := range row.Value {
			if _, ok := m.IntentID(c.Key); !ok {
				return &Error{Pos: c.KeyPos, Msg: fmt.Sprintf("noise: confusion: unknown intent %q (the machine declares: %s)", c.Key, joinNames(m.Intents()))}
			}
			if c.Key == row.Key {
				return &Error{Pos: c.KeyPos, Msg: fmt.Sprintf("noise: confusion: %s cannot be confused with itself", row.Key)}
			}
			total += c.Value.Value
		}
		if total <= 0 {
			return &Error{Pos: row.KeyPos, Msg: fmt.Sprintf("noise: confusion: %s needs at least one intent with a weight above 0", row.Key)}
		}
	}
	return nil
}
