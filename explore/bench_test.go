package explore_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/spec"
)

// benchCase is one search to time: a seed suite's folder or a generated
// machine, the variant, and the depth (for the seed suites, one whose
// search takes about a second; the generated machines are searched to
// the end).
type benchCase struct {
	name    string
	dir     string
	yaml    string
	variant int
	depth   int
}

var benchCases = []benchCase{
	{name: "soni", dir: seedSuite("soni"), depth: 6},
	{name: "bench-soni", dir: seedSuite("bench-soni"), depth: 1000},
	{name: "thea", dir: seedSuite("thea"), depth: 5},
	{name: "formfill", dir: seedSuite("formfill"), depth: 4},
	{name: "hfsm", dir: seedSuite("hfsm"), depth: 1000},
	{name: "chain:50", yaml: chainYAML(50), depth: 1000},
	{name: "chain:200", yaml: chainYAML(200), depth: 1000},
	{name: "grid:5x10", yaml: gridYAML(5, 10), depth: 1000},
	{name: "grid:4x50", yaml: gridYAML(4, 50), depth: 1000},
	{name: "counters:100x100", yaml: countersYAML(100), depth: 1000},
}

// BenchmarkExplore reports, for each search, the distinct configurations
// it finds and how many it finds per second on one core (states/s), and
// the successors it computes per second (generated/s).
//
//	go test -run '^$' -bench Explore -cpu 1 ./explore
func BenchmarkExplore(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			s := benchSuite(b, c)
			v := s.Variants[c.variant]
			var res *explore.Result
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			for b.Loop() {
				var err error
				res, err = explore.Explore(s, v, explore.Options{Depth: c.depth})
				if err != nil {
					b.Fatal(err)
				}
			}
			per := time.Since(start).Seconds() / float64(b.N)
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(res.Distinct), "distinct")
			b.ReportMetric(float64(res.Distinct)/per, "states/s")
			b.ReportMetric(float64(res.Generated)/per, "generated/s")
			b.ReportMetric(per*1000, "ms/search")
			// Bytes allocated per distinct configuration (an upper bound on
			// what each keeps: the search frees its scratch as it goes).
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(res.Distinct), "B/config")
		})
	}
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

// BenchmarkExploreWorkers times one search on one goroutine and on two
// (explore.Parallel) and reports the speed-up (wall time of one over wall
// time of two). On a machine with two idle cores it shows what a second
// core buys; with the cores shared, less.
//
//	go test -run '^$' -bench ExploreWorkers -benchtime 3x ./explore
func BenchmarkExploreWorkers(b *testing.B) {
	for _, c := range []benchCase{
		{name: "soni", dir: seedSuite("soni"), depth: 1000},
		{name: "thea", dir: seedSuite("thea"), depth: 1000},
		{name: "formfill", dir: seedSuite("formfill"), depth: 5},
		{name: "counters:300x300", yaml: countersYAML(300), depth: 1000},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := benchSuite(b, c)
			v := s.Variants[c.variant]
			var secs [2]float64
			var res *explore.Result
			for b.Loop() {
				for w := range 2 {
					start := time.Now()
					var err error
					res, err = explore.Explore(s, v, explore.Options{Depth: c.depth, Workers: w + 1})
					if err != nil {
						b.Fatal(err)
					}
					secs[w] += time.Since(start).Seconds()
				}
			}
			b.ReportMetric(float64(res.Distinct), "distinct")
			b.ReportMetric(secs[0]/float64(b.N)*1000, "ms/1-worker")
			b.ReportMetric(secs[1]/float64(b.N)*1000, "ms/2-workers")
			b.ReportMetric(secs[0]/secs[1], "speed-up")
		})
	}
}
