package sim

import (
	"sync/atomic"
	"time"
)

// WallClock measures the engine's own cost: the wall-clock time of every
// engine step (Machine.Start and Machine.Step) a Driver takes, for simctl
// run --measure-engine. It is the only wall clock on simctl's run path and
// is off unless asked for: what it measures is the host's speed, not the
// simulated conversation, and differs from run to run. It is safe for
// drivers on several goroutines to share one.
type WallClock struct {
	steps atomic.Int64
	ns    atomic.Int64
}

func (w *WallClock) start() time.Time { return time.Now() }

func (w *WallClock) stop(start time.Time) {
	w.ns.Add(int64(time.Since(start)))
	w.steps.Add(1)
}

// Steps is the number of engine steps timed, and NS their total duration
// in nanoseconds.
func (w *WallClock) Steps() int64 { return w.steps.Load() }
func (w *WallClock) NS() int64    { return w.ns.Load() }

// NSPerStep is the mean wall-clock duration of an engine step (0 when none
// was timed).
func (w *WallClock) NSPerStep() float64 {
	if n := w.Steps(); n > 0 {
		return float64(w.NS()) / float64(n)
	}
	return 0
}
