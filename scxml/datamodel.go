package scxml

// Event is an SCXML event as the data model sees it in _event.
type Event struct {
	Name       string
	Type       string // "platform", "internal" or "external"
	SendID     string
	Origin     string
	OriginType string
	InvokeID   string
	Data       any // the data model's own value; nil when none
}

// Datamodel holds a session's variables and evaluates its expressions. The
// engine calls it and never looks inside its values: an ECMAScript heap
// cannot be a comparable value, so it stays behind this interface, owned by
// one Session. Errors returned are reported as error.execution.
type Datamodel interface {
	// Init declares the <data> elements of a state (late binding) or of the
	// whole document (early binding, states in document order).
	Init(data []Data) error
	// SetEvent binds _event.
	SetEvent(ev Event)
	Cond(e Expr) (bool, error)
	Value(e Expr) (any, error)
	// Text evaluates e and renders it as a string (event names, targets,
	// delays, log output).
	Text(e Expr) (string, error)
	// Literal turns inline content (<content> or <data> text) into a value.
	Literal(s string) any
	// Assign stores v at a location; declare lets it create a variable
	// that does not exist yet (a <foreach> item or index).
	Assign(loc Expr, v any, declare bool) error
	Script(e Expr) error
	// Iterate evaluates a <foreach> array as a shallow copy of its items.
	Iterate(e Expr) ([]any, error)
	// Object builds event data from <param> names and values.
	Object(names []string, values []any) any
	// Snapshot renders the declared variables canonically (the null data
	// model: ""), so that two sessions with equal snapshots and equal
	// configurations behave alike as far as the chart's data goes.
	Snapshot() string
	// Save returns the variables' values as a value Restore takes back,
	// or false when one cannot be copied that way (a function, an object
	// two variables share); the caller then replays from the start.
	Save() (any, bool)
	// Restore sets the variables back to a value of Save, or reports
	// false when it cannot (a variable a script made that cannot be
	// deleted).
	Restore(v any) bool
}

// Compiler compiles a chart's expressions once and makes a fresh data model
// for each session.
type Compiler interface {
	// Compile compiles the chart's Exprs; an expression that does not
	// compile is an *Error at its position.
	Compile(c *Chart) (Program, error)
}

// Program is a chart's compiled expressions: the loader's check that
// they compile (its warnings); the engine's data models compile them
// again for the Definition.
type Program any

// HaltError is returned by a data model to stop the run rather than
// raise error.execution (a script that ran past its time bound).
type HaltError struct{ Msg string }

func (e *HaltError) Error() string { return e.Msg }
