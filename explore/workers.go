package explore

import (
	"sync"

	"github.com/simctl/simctl/spec"
)

// Parallel searches machine v of suite s with workers goroutines: one
// search split into that many parts (part.go), each searched on its own
// goroutine, then merged. The result is the one search's: the same counts,
// coverage, findings and shortest paths (Merge rebuilds them, and its
// tests check that wherever the split falls), without covering scenarios
// (Merge keeps none; EmitScenarios then writes the findings' only). A part
// that stops early (the state cap, which each part counts on its own, or
// Options.Stop) would not merge into the one search's result, so the one
// search is run instead.
//
// It is not yet faster: a part searches every configuration its slice of
// the split level leads to, and on machines whose paths rejoin (most)
// that is nearly all of them, so two parts do about twice the work
// (BenchmarkExploreWorkers: 0.3 to 0.6 times the speed on two shared
// cores). The command line does not offer it; a level-synchronous search
// sharing one visited set is the way to a speed-up.
func Parallel(s *spec.Suite, v *spec.Variant, opts Options, workers int) (*Result, error) {
	if workers <= 1 || opts.Parts > 0 {
		return Explore(s, v, opts)
	}
	parts := make([]*Part, workers)
	errs := make([]error, workers)
	stopped := make([]bool, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := opts
			o.Part, o.Parts = i, workers
			r, err := Explore(s, v, o)
			if err != nil {
				errs[i] = err
				return
			}
			parts[i], stopped[i] = r.Part(), r.Stopped != ""
		}()
	}
	wg.Wait()
	for i := range workers {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if stopped[i] {
			return Explore(s, v, opts)
		}
	}
	return Merge(s, v, parts)
}
