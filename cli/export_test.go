package cli

import (
	"strings"
	"sync"
	"time"
)

// Estimate exposes the progress line's time-left estimate to the tests.
var Estimate = estimate

// CountSearches counts the explorer's searches, by suite and variant,
// until restore is called.
func CountSearches() (counts map[string]int, restore func()) {
	counts = map[string]int{}
	var mu sync.Mutex
	searched = func(suite, variant string) {
		mu.Lock()
		defer mu.Unlock()
		counts[suite+"/"+variant]++
	}
	return counts, func() { searched = nil }
}

// ProgressLines is what the progress reporter's ticks print on a
// non-terminal, n ticks after done of total conversations finished.
func ProgressLines(total, done int64, n int) []string {
	var b strings.Builder
	p := &progress{w: &b, total: total, start: time.Now()}
	p.done.Store(done)
	for i := 0; i < n; i++ {
		p.print()
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}
