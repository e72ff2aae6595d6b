package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/spec"
)

// reportCmd dispatches "simctl report merge".
func reportCmd(args []string, w io.Writer) (int, error) {
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
		return mergeCmd([]string{"--help"}, w)
	}
	if len(args) == 0 || args[0] != "merge" {
		return 0, &usageError{"report: expected merge (simctl report merge DIR... --out DIR; simctl help report merge)"}
	}
	return mergeCmd(args[1:], w)
}

// mergeCmd combines the shard results of one run (the folders shards
// wrote, each holding shard.json) into the reports one process would have
// written for the same seed and budget: identical summary.json, CSVs and
// JUnit whatever the number of shards.
func mergeCmd(args []string, w io.Writer) (int, error) {
	fs := newFlags("report merge")
	out := fs.String("out", "out", "folder for the merged reports (without --out, out/ only if it holds no report yet)")
	quiet := fs.BoolP("quiet", "q", false, "print only the merged verdict, not a line per suite")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if !fs.Changed("out") {
		// The default must not replace a report a run wrote there: only a
		// folder given on purpose is overwritten.
		if _, err := os.Stat(filepath.Join(*out, reports.SummaryJSON)); err == nil {
			return 0, &usageError{fmt.Sprintf("report merge: %s already holds a report; say where the merged reports go with --out DIR", *out)}
		}
	}
	if err := checkWritable(*out); err != nil {
		return 0, err
	}
	if fs.NArg() == 0 {
		return 0, &usageError{"report merge: give the shard folders (simctl report merge out/shard-* --out out/merged)"}
	}
	if isMutateShard(fs.Arg(0)) {
		return mergeMutants(fs.Args(), *out, w)
	}
	shards, err := readShards(fs.Args())
	if err != nil {
		return 0, err
	}
	first := shards[0]
	run := &reports.Run{Seed: first.Seed, Generate: first.Generate}
	o := runOptions{seed: first.Seed, generate: first.Generate, out: *out}
	var total tally
	for k, ss0 := range first.Suites {
		s, err := spec.Load(ss0.Dir)
		if err != nil {
			return 0, err
		}
		rs := &reports.Suite{Name: s.Name, Dir: s.Dir, Machine: s.Machine, Coverage: eval.NewCoverage(s.Machine)}
		_ = prepareLatency(s, rs, o)
		describeSuite(s, rs)
		var t tally
		var scs []shardScenario
		for _, sh := range shards {
			ss := sh.Suites[k]
			scs = append(scs, ss.Scenarios...)
			rs.Coverage.Add(ss.Coverage)
			if ss.GeneratedCoverage != nil {
				generatedCoverage(s, rs).Add(ss.GeneratedCoverage)
			}
			for v, l := range ss.Latency {
				if rs.Latency[v] != nil && l != nil {
					rs.Latency[v].Merge(l)
				}
			}
		}
		addScenarios(rs, scs, &t)
		if err := mergeExplored(s, rs, shards, k, &t); err != nil {
			return 0, err
		}
		var variants []string
		for _, v := range s.Variants {
			variants = append(variants, v.Name)
		}
		mergeGenerated(s.Dir, variants, rs, shards, k, *out, &t)
		latencyReport(s, rs, o, io.Discard, &t)
		if !*quiet {
			fmt.Fprintf(w, "%s: %s\n", s.Name, t)
		}
		total.merge(t)
		run.Suites = append(run.Suites, rs)
		run.Incomplete = run.Incomplete || anyIncomplete(shards)
	}
	release, err := reports.Lock(*out)
	if err != nil {
		return 0, err
	}
	defer release()
	if err := reports.WriteAll(*out, run); err != nil {
		return 0, err
	}
	fmt.Fprintf(w, "merged %d shards (seed %d): %s\nreports written to %s\n", len(shards), first.Seed, total, *out)
	if total.failed() {
		return ExitFailed, nil
	}
	return ExitOK, nil
}

// addScenarios adds the shards' scenario results to rs in the order one
// process runs them: by scenario file, then by variant.
func addScenarios(rs *reports.Suite, scs []shardScenario, t *tally) {
	sort.SliceStable(scs, func(i, j int) bool {
		if scs[i].Index != scs[j].Index {
			return scs[i].Index < scs[j].Index
		}
		return scs[i].Variant < scs[j].Variant
	})
	for _, sc := range scs {
		rs.Scenarios = append(rs.Scenarios, sc.Result)
		t.add(sc.Result.Status)
	}
}

// mergeExplored rebuilds each variant's search from the shards' parts.
func mergeExplored(s *spec.Suite, rs *reports.Suite, shards []*shardResult, k int, t *tally) error {
	explored := false
	for _, sh := range shards {
		explored = explored || len(sh.Suites[k].ExploreParts) > 0
	}
	if !explored {
		return nil
	}
	for vi, v := range s.Variants {
		var parts []*explore.Part
		for _, sh := range shards {
			ps := sh.Suites[k].ExploreParts
			if len(ps) != len(s.Variants) || ps[vi] == nil {
				if sh.Incomplete {
					return nil // interrupted before it explored: the report says it is incomplete
				}
				return &spec.Error{Msg: fmt.Sprintf("%s: the exploration of suite %s [%s] is missing", sh.path, s.Name, v.Name)}
			}
			parts = append(parts, ps[vi])
		}
		res, err := explore.Merge(s, v, parts)
		if err != nil {
			return &spec.Error{Msg: fmt.Sprintf("%s: suite %s [%s]: the explorations do not merge: %v", shards[0].path, s.Name, v.Name, err)}
		}
		addExploration(s, rs, res, parts[0].Depth, io.Discard, t, 40)
	}
	return nil
}

func anyIncomplete(shards []*shardResult) bool {
	for _, s := range shards {
		if s.Incomplete {
			return true
		}
	}
	return false
}

var suiteLine = regexp.MustCompile(`(?m)^suite: ".*"$`)

// mergeGenerated sums the generated metrics of every shard, variant by
// variant, and keeps for each invariant the failure of the lowest
// conversation index, as one pass over the whole stream finds it.
func mergeGenerated(dir string, variants []string, rs *reports.Suite, shards []*shardResult, k int, out string, t *tally) {
	for _, v := range variants {
		found := false
		for _, sh := range shards {
			for _, m := range sh.Suites[k].Generated {
				if m.Variant != v {
					continue
				}
				if !found {
					rs.Generated = append(rs.Generated, m)
					found = true
					continue
				}
				rs.Generated[len(rs.Generated)-1].Add(m)
			}
		}
		var fails []reports.GenFailure
		for _, sh := range shards {
			for _, f := range sh.Suites[k].Failures {
				if f.Variant == v {
					fails = append(fails, f)
				}
			}
		}
		sort.SliceStable(fails, func(i, j int) bool {
			if fails[i].Index != fails[j].Index {
				return fails[i].Index < fails[j].Index
			}
			return fails[i].Ord < fails[j].Ord
		})
		seen := map[string]bool{}
		for _, f := range fails {
			key := f.Violation.Key()
			if seen[key] {
				continue
			}
			seen[key] = true
			// The scenario names its suite relative to where it is
			// written: here, the merged failures folder.
			f.Scenario = suiteLine.ReplaceAll(f.Scenario, []byte("suite: "+strconv.Quote(relSuite(dir, out))))
			rs.Failures = append(rs.Failures, f)
			if f.Known == "" {
				t.genFail++
			} else {
				t.genKnown++
			}
		}
	}
}

func relSuite(dir, out string) string {
	abs, err1 := filepath.Abs(dir)
	base, err2 := filepath.Abs(filepath.Join(out, reports.FailuresDir))
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(dir)
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil {
		return filepath.ToSlash(dir)
	}
	return filepath.ToSlash(rel)
}

// maxShardSize bounds a shard.json: a shard keeps its part of each
// exploration packed, a few bytes a configuration, so even the 2,000,000
// configurations of --max-states' default stay far below it.
const maxShardSize = 1 << 30

// readShards reads and checks the shard results: one run (same seed,
// budget and shard count), every shard exactly once, same suites.
func readShards(dirs []string) ([]*shardResult, error) {
	var shards []*shardResult
	for _, d := range dirs {
		path := filepath.Join(d, ShardFile)
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			return nil, &spec.Error{Msg: path + ": no shard result here (run simctl run --shard i/n --out DIR first)"}
		}
		data, err := spec.ReadFile(path, "shard result", maxShardSize)
		if err != nil {
			return nil, err
		}
		var sh shardResult
		if err := json.Unmarshal(data, &sh); err != nil {
			return nil, &spec.Error{Msg: fmt.Sprintf("%s: not a shard result: %v", path, err)}
		}
		if sh.Format != shardFormat {
			return nil, &spec.Error{Msg: fmt.Sprintf("%s: shard format %d, want %d", path, sh.Format, shardFormat)}
		}
		sh.path = path
		shards = append(shards, &sh)
	}
	sort.SliceStable(shards, func(i, j int) bool { return shards[i].Shard < shards[j].Shard })
	first := shards[0]
	// Shards are numbered from 0 (--shard 0/4 … 3/4): name those given
	// twice and those missing.
	var problems []string
	for i := 1; i < len(shards); i++ {
		if shards[i].Shard == shards[i-1].Shard {
			problems = append(problems, fmt.Sprintf("shard %d/%d given twice (%s and %s)", shards[i].Shard, first.Of,
				shards[i-1].path, shards[i].path))
		}
	}
	have := map[int]bool{}
	for _, sh := range shards {
		have[sh.Shard] = true
	}
	for i := range min(first.Of, 1<<20) {
		if !have[i] {
			problems = append(problems, fmt.Sprintf("shard %d/%d is missing", i, first.Of))
		}
	}
	if len(problems) > 0 {
		if len(problems) > 4 {
			problems = append(problems[:4], "…")
		}
		return nil, &usageError{fmt.Sprintf("report merge: %s (shards are numbered 0 to %d)", strings.Join(problems, "; "), first.Of-1)}
	}
	for _, sh := range shards {
		switch {
		case sh.Seed != first.Seed || sh.Generate != first.Generate || sh.Of != first.Of ||
			sh.ExploreDepth != first.ExploreDepth || sh.MaxStates != first.MaxStates:
			return nil, &usageError{"report merge: the shards come from different runs (seed, --generate, --shard n or exploration differ)"}
		case len(sh.Suites) != len(first.Suites):
			return nil, &usageError{"report merge: the shards ran different suites"}
		}
		for k := range sh.Suites {
			if sh.Suites[k].Name != first.Suites[k].Name {
				return nil, &usageError{"report merge: the shards ran different suites"}
			}
		}
	}
	if len(shards) != first.Of {
		return nil, &usageError{fmt.Sprintf("report merge: %d shard results for a run of %d shards", len(shards), first.Of)}
	}
	return shards, nil
}
