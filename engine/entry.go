package engine

// Start puts c into the machine's initial configuration at virtual time at:
// it enters the initial states, runs their entry actions, then follows
// eventless transitions. The entry is recorded as a trace step with
// Trans == NoID and From == NoID.
func (m *Machine) Start(c *Config, at int64, r *Result) error {
	return m.StartWith(c, nil, at, r)
}

// NewData returns a fresh Data for one conversation, to hand to StartWith
// and StepWith, or nil when the machine's data lives in the Config (the
// expression language of machine.yaml): every caller can then take the
// same path, StartWith and StepWith with a nil Data being Start and Step.
func (m *Machine) NewData(session string) Data {
	if m.dm == nil {
		return nil
	}
	return m.dm.NewData(m, session)
}

// StartWith is Start for a machine whose data model keeps its data
// outside the Config (Definition.DataModel): d is the conversation's,
// initialised by the data model.
func (m *Machine) StartWith(c *Config, d Data, at int64, r *Result) error {
	r.data = d
	if m.quietStart && !m.general {
		m.startQuiet(c, at, r)
		return nil
	}
	if err := m.start(c, at, r); err != nil {
		return err
	}
	return r.exprError()
}

// Step advances c by one event, in place. Copy c first to keep the
// configuration before the step. r is reset and then filled with the trace
// and effects; r.Handled is false when no transition took the event and
// none of the eventless transitions then selected again did, which leaves c
// unchanged apart from the clock and what the event itself consumes or
// delivers: a timer that fell due is no longer pending, a fork branch's
// awaited result is consumed, and an action's outputs land in their slots.
//
// A timer event must carry the timer's deadline as At; a timer that is not
// pending (cancelled, or already fired) is ignored.
//
// An expression that fails while the step runs (number() of text that is
// not a number, arithmetic whose result is NaN or infinite) does not stop it, as a guard has no way to; the step's
// first such failure is returned once it ends, as a *RuntimeError.
//
// Step is small enough to be inlined into its caller's loop: step returns
// the expression's failure itself.
func (m *Machine) Step(c *Config, ev *Event, r *Result) error {
	r.data = nil
	return m.step(c, ev, r)
}

// StepWith is Step for a machine whose data model keeps its data outside
// the Config: d is the conversation's, in the state that goes with c
// (Data.Restore it first when c was kept).
func (m *Machine) StepWith(c *Config, d Data, ev *Event, r *Result) error {
	r.data = d
	return m.step(c, ev, r)
}

// stepErr is what a step that ran its transitions returns: err, or else
// its first expression failure.
func (r *Result) stepErr(err error) error {
	if err != nil {
		return err
	}
	return r.exprError()
}

func (r *Result) exprError() error {
	if r.exprErr != nil {
		return r.exprErr
	}
	return nil
}
