package eval

import "github.com/simctl/simctl/engine"

// Step is what an observer sees of one engine step: the turn it belongs
// to, the event (nil for the conversation's start), the configuration before
// and after, and what the step produced.
type Step struct {
	Turn   int
	Event  *engine.Event
	Before *engine.Config
	After  *engine.Config
	Result *engine.Result
}
