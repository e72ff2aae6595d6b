package cli

import "sync"

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
