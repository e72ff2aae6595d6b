package spec_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/mdfence"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// The format pages in docs/ print a complete example suite. These specs keep
// them honest: the example suite under docs/examples must load cleanly,
// every scenario in it must pass, its simulated users (users.yaml) must
// reach their goal in generated conversations, and every ```yaml block of a
// page whose first line is "# file: NAME" must be the example file NAME,
// byte for byte.

const (
	docsDir    = "../docs"
	exampleDir = docsDir + "/examples/pizza"
)

// shownFiles names a format page and the example files it prints in full.
type shownFiles struct {
	page  string
	files []string
}

var _ = Describe("the format documentation", func() {
	It("has an example suite that loads and whose scenarios all pass", func() {
		s, err := spec.Load(exampleDir)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Warnings).To(BeEmpty())
		Expect(s.NLU).NotTo(BeNil())
		Expect(s.Scenarios).NotTo(BeEmpty())
		for _, sc := range s.Scenarios {
			r := sim.RunScenario(s, sc, sim.Options{})
			Expect(r.Status).To(Equal(sim.Pass), "scenario %s:\n%s", sc.Name, explain(r))
		}
	})

	It("has a statechart example (parallel state, history, done.state) that loads and whose scenarios all pass", func() {
		s, err := spec.Load(docsDir + "/examples/checkout")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Warnings).To(BeEmpty())
		Expect(s.Scenarios).To(HaveLen(2))
		for _, sc := range s.Scenarios {
			r := sim.RunScenario(s, sc, sim.Options{})
			Expect(r.Status).To(Equal(sim.Pass), "scenario %s:\n%s", sc.Name, explain(r))
		}
	})

	It("has simulated users that reach their goal without breaking an invariant", func() {
		s, err := spec.Load(exampleDir)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Users).NotTo(BeNil(), "%s has no users.yaml", exampleDir)
		met, fails, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 200})
		Expect(err).NotTo(HaveOccurred())
		Expect(met.Conversations).To(Equal(200))
		Expect(met.Successes).To(BeNumerically(">", 0))
		// docs/users-format.md says the example breaks no invariant.
		for _, f := range fails {
			Expect(f.Invariant).To(BeEmpty(), "conversation %d: %s\n%s", f.Index, f.Violation, f.Scenario)
		}
	})

	DescribeTable("prints the example files verbatim",
		func(c shownFiles) {
			page := filepath.Join(docsDir, c.page)
			blocks, err := fileBlocks(page)
			Expect(err).NotTo(HaveOccurred())
			for _, f := range c.files {
				Expect(blocks).To(HaveKey(f), "%s has no ```yaml block starting with # file: %s", page, f)
			}
			for _, name := range sortedKeys(blocks) {
				want, err := os.ReadFile(filepath.Join(exampleDir, name))
				Expect(err).NotTo(HaveOccurred(), "%s prints %s, which is not an example file", page, name)
				for _, got := range blocks[name] {
					Expect(got).To(Equal(string(want)), "%s: the block of %s differs from %s", page, name, filepath.Join(exampleDir, name))
				}
			}
		},
		Entry("machine-format.md", shownFiles{page: "machine-format.md", files: []string{"machine.yaml"}}),
		Entry("nlu-format.md", shownFiles{page: "nlu-format.md", files: []string{"nlu.yaml"}}),
		Entry("scenario-format.md", shownFiles{page: "scenario-format.md",
			files: []string{"happy.scenario.yaml", "retry.scenario.yaml", "interruptions.scenario.yaml"}}),
		Entry("users-format.md", shownFiles{page: "users-format.md", files: []string{"users.yaml"}}),
	)

	It("prints every example file on some page", func() {
		shown := map[string]bool{}
		for _, page := range []string{"machine-format.md", "nlu-format.md", "scenario-format.md", "users-format.md"} {
			blocks, err := fileBlocks(filepath.Join(docsDir, page))
			Expect(err).NotTo(HaveOccurred())
			for name := range blocks {
				shown[name] = true
			}
		}
		files, err := filepath.Glob(filepath.Join(exampleDir, "*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(files).NotTo(BeEmpty())
		for _, f := range files {
			Expect(shown).To(HaveKey(filepath.Base(f)), "no page prints %s", f)
		}
	})
})

// fileBlocks returns, by file name, the bodies of the ```yaml blocks of a
// Markdown page whose first line is "# file: NAME".
func fileBlocks(page string) (map[string][]string, error) {
	data, err := os.ReadFile(page)
	if err != nil {
		return nil, err
	}
	fenced, err := mdfence.Blocks(page, string(data))
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, f := range fenced {
		body := strings.Join(f.Body, "")
		if f.Open == "```yaml" {
			first, _, _ := strings.Cut(body, "\n")
			if name, ok := strings.CutPrefix(first, "# file: "); ok {
				out[name] = append(out[name], body)
			}
		}
	}
	return out, nil
}

func sortedKeys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// explain lists why a scenario did not pass.
func explain(r *sim.ScenarioResult) string {
	var b strings.Builder
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	if r.Error != "" {
		fmt.Fprintf(&b, "  error: %s\n", r.Error)
	}
	return b.String()
}
