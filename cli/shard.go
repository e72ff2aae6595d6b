package cli

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// shardSpec is --shard i/n: this process runs slice i of n of the work.
// The zero value (and 0/1) is the whole run.
type shardSpec struct {
	i, n int
	set  bool // --shard was given (even 0/1): write shard.json
}

func (sh shardSpec) on() bool { return sh.set }

// parseShard reads "i/n" with 0 <= i < n.
func parseShard(s string) (shardSpec, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return shardSpec{}, &usageError{fmt.Sprintf("--shard: expected i/n with 0 <= i < n (shards count from 0, as Kubernetes numbers Indexed Jobs: 0/4 … 3/4), got %q", s)}
	}
	return shardSpec{i: i, n: n, set: true}, nil
}

// owns reports whether this shard runs a scripted scenario in a variant:
// by a stable hash of their names, so any shard computes the same slices.
func (sh shardSpec) owns(suite, variant, scenario string) bool {
	if sh.n <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(suite + "\x00" + variant + "\x00" + scenario))
	return int(h.Sum64()%uint64(sh.n)) == sh.i
}

// span is this shard's range of generated conversation indices: a
// contiguous slice of the seeded stream, so conversation k is the same
// whichever shard plays it.
func (sh shardSpec) span(total int) (from, to int) {
	if sh.n <= 1 {
		return 0, total
	}
	return total * sh.i / sh.n, total * (sh.i + 1) / sh.n
}

// ShardFile is shard.json: everything a shard found, in mergeable form.
// simctl report merge combines the shards of one run into the reports one
// process would have written.
const ShardFile = "shard.json"

const shardFormat = 2

type shardResult struct {
	Format       int          `json:"format"`
	Seed         int64        `json:"seed"`
	Generate     int          `json:"generate"`
	Shard        int          `json:"shard"`
	Of           int          `json:"of"`
	ExploreDepth int          `json:"explore_depth"`
	MaxStates    int          `json:"max_states"`
	Incomplete   bool         `json:"incomplete,omitempty"`
	Suites       []shardSuite `json:"suites"`
	path         string       // where it was read from
}

type shardSuite struct {
	Name              string                `json:"name"`
	Dir               string                `json:"dir"`
	Scenarios         []shardScenario       `json:"scenarios"`
	Coverage          *eval.Coverage        `json:"coverage"`
	GeneratedCoverage *eval.Coverage        `json:"generated_coverage,omitempty"`
	ExploredCoverage  *eval.Coverage        `json:"explored_coverage,omitempty"`
	Generated         []generate.Metrics    `json:"generated,omitempty"`
	Failures          []reports.GenFailure  `json:"failures,omitempty"`
	Explored          []reports.Exploration `json:"explored,omitempty"`
	// ExploreParts holds, per variant, this shard's part of the search,
	// for the merge to rebuild the whole.
	ExploreParts []*explore.Part          `json:"explore_parts,omitempty"`
	Latency      map[string]*eval.Latency `json:"latency,omitempty"`
}

// shardScenario places a scenario result in the order one process runs
// them: by scenario file, then by variant.
type shardScenario struct {
	Index   int                 `json:"index"`
	Variant int                 `json:"variant"`
	Result  *sim.ScenarioResult `json:"result"`
}

// scenarioOrder finds the position of a result among the suite's
// scenarios and variants.
func scenarioOrder(s *spec.Suite, r *sim.ScenarioResult) (int, int) {
	idx, vi := -1, -1
	for i, sc := range s.Scenarios {
		if filepath.Clean(sc.File) == filepath.Clean(r.File) {
			idx = i
		}
	}
	for i, v := range s.Variants {
		if v.Name == r.Variant {
			vi = i
		}
	}
	return idx, vi
}

// writeShard writes shard.json into the output folder, atomically, without
// indentation: it is for simctl report merge, and an exploration part lists
// every configuration the shard saw.
func writeShard(out string, o runOptions, depth int, suites []*spec.Suite, run *reports.Run, parts [][]*explore.Part) error {
	sf := shardResult{Format: shardFormat, Seed: run.Seed, Generate: run.Generate, Shard: o.shard.i, Of: o.shard.n,
		ExploreDepth: depth, MaxStates: o.maxStates, Incomplete: run.Incomplete}
	for k, rs := range run.Suites {
		ss := shardSuite{Name: rs.Name, Dir: rs.Dir, Coverage: rs.Coverage, GeneratedCoverage: rs.GeneratedCoverage,
			ExploredCoverage: rs.ExploredCoverage, Generated: rs.Generated, Failures: rs.Failures, Explored: rs.Explored,
			Latency: rs.Latency, Scenarios: []shardScenario{}}
		if k < len(parts) {
			ss.ExploreParts = parts[k]
		}
		for _, r := range rs.Scenarios {
			i, v := scenarioOrder(suites[k], r)
			ss.Scenarios = append(ss.Scenarios, shardScenario{Index: i, Variant: v, Result: r})
		}
		sf.Suites = append(sf.Suites, ss)
	}
	data, err := json.Marshal(sf)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(out, ShardFile), data)
}

// writeFileAtomic writes data and a final newline to a temporary file
// beside path and renames it into place (see reports.WriteTemp).
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := reports.WriteTemp(filepath.Dir(path), path, append(data, '\n'))
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
