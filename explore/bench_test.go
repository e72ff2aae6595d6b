package explore_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/spec"
)

// benchCase is one search to time: a seed suite's folder or a generated
// machine, the variant, and the depth (1000: to the end; formfill's
// complete search takes 15 to 30 s, too long to repeat, so it is bounded
// where it takes about a second).
type benchCase struct {
	name    string
	dir     string
	yaml    string
	variant int
	depth   int
}

var benchCases = []benchCase{
	{name: "soni", dir: seedSuite("soni"), depth: 1000},
	{name: "bench-soni", dir: seedSuite("bench-soni"), depth: 1000},
	{name: "thea", dir: seedSuite("thea"), depth: 1000},
	{name: "hfsm", dir: seedSuite("hfsm"), depth: 1000},
	{name: "formfill:depth6", dir: seedSuite("formfill"), depth: 6},
	// The machines of the xstate graph peer (machines_test.go).
	{name: "chain:50", yaml: chainYAML(50), depth: 1000},
	{name: "chain:200", yaml: chainYAML(200), depth: 1000},
	{name: "grid:5x10", yaml: gridYAML(5, 10), depth: 1000},
	{name: "grid:4x50", yaml: gridYAML(4, 50), depth: 1000},
	{name: "grid:10x20", yaml: gridYAML(10, 20), depth: 1000},
	// Wide enough for the workers and the memory figures to mean
	// something: 90,000 and 1,000,000 configurations.
	{name: "counters:300x300", yaml: countersYAML(300), depth: 1000},
	{name: "cube:6x10", yaml: cubeYAML(6, 10), depth: 1000},
	// Past the old caps (wide_test.go): 300 slots, 3,000 states, a
	// parallel state nested in another's region.
	{name: "wide:300x3000", yaml: wideMachineYAML(300, 3000), depth: 10000},
}

// BenchmarkExplore searches each case on one goroutine and on two
// (Options.Workers) and reports per search: the distinct configurations
// (distinct) and successors computed (generated), each per second of
// wall time (distinct/s, generated/s), the bytes allocated per distinct
// configuration (alloc-B/config), and the peak of the live heap during
// the search, less the live heap before it, per distinct configuration
// (peak-B/config: what holding a configuration costs; for searches of a
// few thousand configurations the machine's own tables dominate it).
//
//	go test -run '^$' -bench 'Explore$' ./explore
func BenchmarkExplore(b *testing.B) {
	for _, c := range benchCases {
		s := benchSuite(b, c)
		v := s.Variants[c.variant]
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", c.name, w), func(b *testing.B) {
				opts := explore.Options{Depth: c.depth, Workers: w}
				// Untimed: the peak of the live heap, with the collector
				// made to run often enough to see it.
				var res *explore.Result
				peak := peakLive(func() { res = benchSearch(b, s, v, opts) })
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for b.Loop() {
					res = benchSearch(b, s, v, opts)
				}
				runtime.ReadMemStats(&after)
				secs := b.Elapsed().Seconds() / float64(b.N)
				d := float64(res.Distinct)
				b.ReportMetric(d, "distinct")
				b.ReportMetric(float64(res.Generated), "generated")
				b.ReportMetric(d/secs, "distinct/s")
				b.ReportMetric(float64(res.Generated)/secs, "generated/s")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/d, "alloc-B/config")
				b.ReportMetric(float64(peak)/d, "peak-B/config")
			})
		}
	}
}

// BenchmarkExploreWorkers times each search on one goroutine and on two,
// in turn, and reports the speed-up (wall time of one over wall time of
// two). On a machine with two idle cores it shows what a second core
// buys; with the cores shared, less: run it several times and take the
// best.
//
//	go test -run '^$' -bench ExploreWorkers -benchtime 3x ./explore
func BenchmarkExploreWorkers(b *testing.B) {
	for _, c := range []benchCase{
		{name: "soni", dir: seedSuite("soni"), depth: 1000},
		{name: "thea", dir: seedSuite("thea"), depth: 1000},
		{name: "formfill:depth6", dir: seedSuite("formfill"), depth: 6},
		{name: "counters:300x300", yaml: countersYAML(300), depth: 1000},
		{name: "cube:6x10", yaml: cubeYAML(6, 10), depth: 1000},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := benchSuite(b, c)
			v := s.Variants[c.variant]
			var secs [2]float64
			var res *explore.Result
			for b.Loop() {
				for w := range 2 {
					res = benchSearch(b, s, v, explore.Options{Depth: c.depth, Workers: w + 1})
					secs[w] += res.Seconds
				}
			}
			b.ReportMetric(float64(res.Distinct), "distinct")
			b.ReportMetric(secs[0]/float64(b.N)*1000, "ms/1-worker")
			b.ReportMetric(secs[1]/float64(b.N)*1000, "ms/2-workers")
			b.ReportMetric(secs[0]/secs[1], "speed-up")
		})
	}
}

// benchSearch explores v and sets Result.Seconds.
func benchSearch(b *testing.B, s *spec.Suite, v *spec.Variant, opts explore.Options) *explore.Result {
	b.Helper()
	start := time.Now()
	res, err := explore.Explore(s, v, opts)
	if err != nil {
		b.Fatal(err)
	}
	res.Seconds = time.Since(start).Seconds()
	return res
}

func benchSuite(b *testing.B, c benchCase) *spec.Suite {
	b.Helper()
	dir := c.dir
	if c.yaml != "" {
		dir = b.TempDir()
		if err := os.WriteFile(filepath.Join(dir, spec.MachineFile), []byte(c.yaml), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	s, err := spec.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// peakLive runs f and returns the highest live heap (as the collector
// measured it at the end of each cycle) while f ran, less the live heap
// before. The collector runs when the heap has grown by a tenth, so the
// figure is within about a tenth of the true peak.
func peakLive(f func()) uint64 {
	runtime.GC()
	base := liveHeap()
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	var (
		mu   sync.Mutex
		peak = base
		done bool
	)
	// A finalizer runs after each cycle that found its object garbage:
	// re-armed each time, it sees every cycle.
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new([16]byte), func(*[16]byte) {
			mu.Lock()
			defer mu.Unlock()
			peak = max(peak, liveHeap())
			if !done {
				arm()
			}
		})
	}
	arm()
	f()
	runtime.GC()
	mu.Lock()
	done = true
	p := max(peak, liveHeap())
	mu.Unlock()
	return p - base
}

// liveHeap is the heap the last cycle of the collector found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// BenchmarkExploreChart explores SCXML charts with ECMAScript data on one
// goroutine: explore/testdata/charts/order.scxml to its first 20,000
// configurations, the bundled SCXML suites completely, and each chart
// file listed in $SIMCTL_BENCH_CHARTS (separated by commas; a public
// project's chart, measured and never committed) to its first 20,000. It
// reports the distinct configurations and the successors computed
// (generated) per second of wall time and per second of this process's
// CPU time.
//
//	go test -run '^$' -bench 'ExploreChart$' ./explore
func BenchmarkExploreChart(b *testing.B) {
	type chartCase struct {
		name string
		load func() *spec.Suite
		max  int
	}
	cases := []chartCase{
		{"order", func() *spec.Suite { return chartSuiteOf(b, "testdata/charts/order.scxml") }, 20000},
		{"research", func() *spec.Suite {
			return benchSuite(b, benchCase{dir: filepath.Join("..", "docs", "examples", "research")})
		}, 0},
		{"booking-scxml", func() *spec.Suite {
			return benchSuite(b, benchCase{dir: filepath.Join("..", "examples", "booking-scxml")})
		}, 0},
	}
	if env := os.Getenv("SIMCTL_BENCH_CHARTS"); env != "" {
		for _, path := range strings.Split(env, ",") {
			name := strings.TrimSuffix(filepath.Base(path), ".scxml")
			if name == "machine" {
				name = filepath.Base(filepath.Dir(path))
			}
			cases = append(cases, chartCase{name, func() *spec.Suite { return chartSuiteOf(b, path) }, 20000})
		}
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			s := c.load()
			var res *explore.Result
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var err error
				res, err = explore.Explore(s, s.Variants[0], explore.Options{Depth: 1000, MaxStates: c.max})
				if err != nil {
					b.Fatal(err)
				}
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			cpu := (cpuTime() - cpu0).Seconds() / float64(b.N)
			b.ReportMetric(float64(res.Distinct), "distinct")
			b.ReportMetric(float64(res.Distinct)/sec, "distinct/s")
			b.ReportMetric(float64(res.Generated)/sec, "generated/s")
			// On a loaded machine wall time says little: per second of
			// this process's CPU time (one goroutine does the work).
			b.ReportMetric(float64(res.Distinct)/cpu, "distinct/cpu-s")
			b.ReportMetric(float64(res.Generated)/cpu, "generated/cpu-s")
		})
	}
}

// cpuTime is the CPU time this process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
