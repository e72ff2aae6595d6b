package cli_test

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/simctl/simctl/cli"
)

// benchRun runs simctl with args and fails the benchmark on bad input.
func benchRun(b *testing.B, args ...string) time.Duration {
	b.Helper()
	start := time.Now()
	if code := cli.Main(args, io.Discard, io.Discard); code == cli.ExitBadInput {
		b.Fatalf("simctl %v: bad input", args)
	}
	return time.Since(start)
}

var benchSuites = []string{"../scenarios/soni", "../scenarios/thea", "../scenarios/hfsm"}

func benchArgs(extra ...string) []string {
	a := append([]string{"run"}, benchSuites...)
	return append(append(a, "--generate", "2000", "--seed", "1", "--quiet"), extra...)
}

// BenchmarkWorkers times simctl run on the seed suites with 2,000
// generated conversations per variant, on 1 and 2 goroutines; the ratio of
// the two is the speed-up of --workers 2.
//
//	go test -run '^$' -bench Workers ./cli
func BenchmarkWorkers(b *testing.B) {
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			out := b.TempDir()
			for b.Loop() {
				benchRun(b, benchArgs("--explore-depth", "0", "--workers", fmt.Sprint(w), "--out", out)...)
			}
		})
	}
}

// BenchmarkShardMerge times one process against n shards run one after
// another and their merge, on the seed suites with 2,000 generated
// conversations per variant and exploration to depth 5. It reports the
// slowest shard (what a run on n machines waits for), the merge, and the
// overhead: slowest shard plus merge over one process.
//
//	go test -run '^$' -bench ShardMerge ./cli
func BenchmarkShardMerge(b *testing.B) {
	base := b.TempDir()
	one := benchRun(b, benchArgs("--explore-depth", "5", "--out", filepath.Join(base, "one"))...)
	for _, n := range []int{2, 4} {
		b.Run(fmt.Sprintf("shards=%d", n), func(b *testing.B) {
			var slowest, merge time.Duration
			for b.Loop() {
				slowest = 0
				var dirs []string
				for i := 0; i < n; i++ {
					dir := filepath.Join(base, fmt.Sprintf("shard-%d-%d", n, i))
					dirs = append(dirs, dir)
					slowest = max(slowest, benchRun(b, benchArgs("--explore-depth", "5", "--shard", fmt.Sprintf("%d/%d", i, n), "--out", dir)...))
				}
				merge = benchRun(b, append(append([]string{"report", "merge"}, dirs...), "--out", filepath.Join(base, "merged"))...)
			}
			b.ReportMetric(float64(one.Milliseconds()), "one-ms")
			b.ReportMetric(float64(slowest.Milliseconds()), "slowest-shard-ms")
			b.ReportMetric(float64(merge.Milliseconds()), "merge-ms")
			b.ReportMetric(float64(slowest+merge)/float64(one), "vs-one")
		})
	}
}

// BenchmarkMutate times simctl mutate on one suite: every mutant of
// bench-soni's machine judged by its scenarios, 100 generated
// conversations and its exploration, and the survivors' equivalence
// searched.
//
//	go test -run '^$' -bench Mutate ./cli
func BenchmarkMutate(b *testing.B) {
	for b.Loop() {
		benchRun(b, "mutate", "../scenarios/bench-soni", "--out", "")
	}
}
