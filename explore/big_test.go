package explore_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/explore"
)

// A search of ten million configurations, complete, within 2 GB: too long
// for make test, run by make explore-big (SIMCTL_BIG=1; SIMCTL_BIG_WORKERS,
// the goroutines, default 1). It prints the time, the rates and the peak
// resident memory. Its queue spills to disk past 8 MB.
var _ = Describe("a big search", func() {
	It("explores 10 million configurations completely within 2 GB", func() {
		if os.Getenv("SIMCTL_BIG") == "" {
			Skip("set SIMCTL_BIG=1 (make explore-big)")
		}
		workers, _ := strconv.Atoi(os.Getenv("SIMCTL_BIG_WORKERS"))
		s := suiteOf(cubeYAML(7, 10))
		start := time.Now()
		// Its widest level, about 500,000 configurations, would stay in
		// memory under the default budget: a small one makes it spill.
		res := search(s, explore.Options{Depth: 1000, MaxStates: 20_000_000, Workers: workers, QueueMemory: 8 << 20})
		secs := time.Since(start).Seconds()
		rss := peakRSS()
		line := fmt.Sprintf("cube 7x10, %d worker(s): %d distinct, %d generated, complete %v, %.1f s, %.0f distinct/s, %.0f generated/s, peak RSS %d MB, %.0f bytes per configuration, queue spilled %d MB",
			max(workers, 1), res.Distinct, res.Generated, res.Complete, secs, float64(res.Distinct)/secs, float64(res.Generated)/secs, rss>>20, float64(rss)/float64(res.Distinct), res.Spilled>>20)
		fmt.Fprintln(GinkgoWriter, line)
		AddReportEntry("big search", line)
		Expect(res.Complete).To(BeTrue())
		Expect(res.Distinct).To(Equal(10_000_000))
		Expect(rss).To(BeNumerically("<", int64(2)<<30))
		Expect(res.Spilled).To(BeNumerically(">", 0))
	})
})

// peakRSS reads the process's peak resident set size (VmHWM) from Linux's
// /proc; elsewhere it returns 0.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb << 10
		}
	}
	return 0
}
