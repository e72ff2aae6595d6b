package generate_test

import (
	"testing"

	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/spec"
)

// BenchmarkGenerated plays generated conversations on the Soni suite with
// every invariant checked on every step (shrinking excluded: conversations
// after the first violation of an invariant only count).
func BenchmarkGenerated(b *testing.B) {
	for _, dir := range []string{"../scenarios/soni", "../scenarios/bench-soni"} {
		b.Run(dir[len("../scenarios/"):], func(b *testing.B) {
			s, err := spec.Load(dir)
			if err != nil {
				b.Fatal(err)
			}
			// Warm up, and let the shrinking of the suite's known failures
			// happen outside the timed loop.
			if _, _, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 200}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			met, _, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 200, To: 200 + b.N})
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			b.ReportMetric(float64(met.Conversations)/b.Elapsed().Seconds(), "conv/s")
		})
	}
}
