package explore_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// seedSuite is the folder of one of the repository's seed suites.
func seedSuite(name string) string { return filepath.Join("..", "scenarios", name) }

// load loads a suite folder.
func load(dir string) *spec.Suite {
	GinkgoHelper()
	s, err := spec.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	return s
}

// suiteOf writes machine.yaml text into a fresh folder and loads it, so
// that scenarios emitted for it can be replayed.
func suiteOf(yaml string) *spec.Suite {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	Expect(os.WriteFile(filepath.Join(dir, spec.MachineFile), []byte(yaml), 0o644)).To(Succeed())
	return load(dir)
}

// search explores the first variant of s.
func search(s *spec.Suite, opts explore.Options) *explore.Result {
	GinkgoHelper()
	res, err := explore.Explore(s, s.Variants[0], opts)
	Expect(err).NotTo(HaveOccurred())
	return res
}

// finding returns the finding of kind, or nil.
func finding(res *explore.Result, kind string) *explore.Finding {
	for i := range res.Findings {
		if res.Findings[i].Kind == kind {
			return &res.Findings[i]
		}
	}
	return nil
}

// kinds returns the kinds of res's findings, sorted.
func kinds(res *explore.Result) []string {
	out := []string{}
	for _, f := range res.Findings {
		out = append(out, f.Kind)
	}
	sort.Strings(out)
	return out
}

// emit writes res's scenarios into a fresh folder and returns their files
// by scenario name.
func emit(res *explore.Result) map[string]string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	_, err := explore.EmitScenarios(dir, []*explore.Result{res})
	Expect(err).NotTo(HaveOccurred())
	files, err := filepath.Glob(filepath.Join(dir, "*"+spec.ScenarioSuffix))
	Expect(err).NotTo(HaveOccurred())
	out := map[string]string{}
	for _, f := range files {
		out[strings.TrimSuffix(filepath.Base(f), spec.ScenarioSuffix)] = f
	}
	return out
}

// replay plays an emitted scenario in the variant res explored, feeding
// cov (nil: no coverage).
func replay(res *explore.Result, file string, cov *eval.Coverage) *sim.ScenarioResult {
	GinkgoHelper()
	s, sc, err := spec.LoadScenarioFile(file)
	Expect(err).NotTo(HaveOccurred())
	var v *spec.Variant
	for _, x := range s.Variants {
		if x.Name == res.Variant {
			v = x
		}
	}
	Expect(v).NotTo(BeNil(), "variant %s", res.Variant)
	opts := sim.Options{Variant: v}
	if cov != nil {
		opts.Observers = []sim.Observer{cov}
	}
	return sim.RunScenario(s, sc, opts)
}

// violated returns the invariants a replay broke.
func violated(r *sim.ScenarioResult) []string {
	out := []string{}
	for _, v := range r.Violations {
		out = append(out, v.Invariant)
	}
	return out
}

// taken returns the names of the transitions a coverage counted.
func taken(m *engine.Machine, cov *eval.Coverage) []string {
	out := []string{}
	for t, n := range cov.Trans {
		if n > 0 {
			out = append(out, transName(m, engine.TransID(t)))
		}
	}
	return out
}

func transName(m *engine.Machine, t engine.TransID) string {
	info := m.Transition(t)
	to := "(internal)"
	if info.Target != engine.NoID {
		to = m.StateName(info.Target)
	}
	return fmt.Sprintf("#%d %s --%s--> %s", t, m.StateName(info.Source), info.Trigger, to)
}

// keys returns the sorted keys of res's findings (Finding.Key).
func keys(res *explore.Result) []string {
	out := []string{}
	for _, f := range res.Findings {
		out = append(out, f.Key())
	}
	sort.Strings(out)
	return out
}
