package mutate

import "github.com/simctl/simctl/engine"

// NewMutant makes a mutant with any edit, for tests of what the runner
// does with mutants no operator makes (one that does not build).
func NewMutant(id int, op Operator, desc string, edit func(d *engine.Definition)) *Mutant {
	return &Mutant{ID: id, Op: op, Desc: desc, edit: edit}
}
