package cli

// Validation shared by every command that takes the same flag, so that
// simctl run and simctl explore accept and refuse the same values with the
// same words.

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Upper bounds on counts. They are far above any useful run, and low
// enough that totals (a count times the variants of every suite) and time
// estimates cannot overflow.
const (
	// MaxGenerate bounds --generate: a billion conversations take hours
	// at the generator's tens of thousands a second.
	MaxGenerate = 1_000_000_000
	// MaxWorkers bounds --workers: each is a goroutine with its own
	// engine buffers, and the machine has far fewer cores.
	MaxWorkers = 1024
	// MaxRetries bounds record --retries: the wait doubles each time.
	MaxRetries = 10
)

// errInterrupted stops a command that a signal interrupted before it had
// anything to report (while loading).
var errInterrupted = errors.New("interrupted")

// interrupted reports whether ctx was cancelled (by SIGINT or SIGTERM).
func interrupted(ctx context.Context) bool { return ctx != nil && ctx.Err() != nil }

func checkDepth(flag string, n int) error {
	if n < 0 {
		return &usageError{fmt.Sprintf("%s takes a depth, 0 or more, got %d", flag, n)}
	}
	return nil
}

// MaxQueueMB bounds --queue-mb (a terabyte).
const MaxQueueMB = 1 << 20

// checkSearch checks the flags of a search that simctl run and simctl
// explore share: --workers and --queue-mb.
func checkSearch(workers, queueMB int) error {
	if workers < 1 || workers > MaxWorkers {
		return &usageError{fmt.Sprintf("--workers takes a number of goroutines from 1 to %d, got %d", MaxWorkers, workers)}
	}
	if queueMB < 0 || queueMB > MaxQueueMB {
		return &usageError{fmt.Sprintf("--queue-mb takes a number of megabytes from 0 to %d, got %d", MaxQueueMB, queueMB)}
	}
	return nil
}

// queueMemory is --queue-mb as explore.Options.QueueMemory: 0, no bound.
func queueMemory(mb int) int64 {
	if mb == 0 {
		return -1
	}
	return int64(mb) << 20
}

func checkMaxStates(n int) error {
	if n < 1 {
		return &usageError{fmt.Sprintf("--max-states takes a number of configurations, 1 or more, got %d", n)}
	}
	return nil
}

func checkGenerate(n int) error {
	if n < 0 || n > MaxGenerate {
		return &usageError{fmt.Sprintf("--generate takes a number of conversations from 0 to %d, got %d", MaxGenerate, n)}
	}
	return nil
}

// checkRate checks an error rate: a finite number from 0 to 1 (NaN
// compares false with everything, so it is named first).
func checkRate(r float64) bool {
	return !math.IsNaN(r) && r >= 0 && r <= 1
}
