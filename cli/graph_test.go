package cli_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

// door is a small suite with a compound state, a guard, a targetless
// transition, an override and a final state.
const door = "testdata/graph/door"

var _ = Describe("simctl graph", func() {
	var out string

	BeforeEach(func() {
		out = filepath.Join(GinkgoT().TempDir(), "out")
	})

	It("writes the machine as DOT, clusters for compound states, sorted by id", func() {
		code, stdout, stderr := run(out, "graph", door)
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		golden("graph-door.dot", []byte(stdout))
	})

	It("writes the machine as SVG laid out by dot, the same bytes every time", func() {
		code, stdout, stderr := run(out, "graph", door, "--format", "svg")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring("<svg "))
		golden("graph-door.svg", []byte(stdout))
	})

	It("writes the machine as a Mermaid flowchart, subgraphs for compound states", func() {
		code, stdout, stderr := run(out, "graph", door, "--format", "mermaid")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		golden("graph-door.mmd", []byte(stdout))
	})

	It("draws a YAML parallel state's regions as an SCXML chart's: dashed, the state labelled (parallel); a fork as before", func() {
		code, stdout, stderr := run(out, "graph", "../docs/examples/checkout")
		Expect(stderr).To(BeEmpty())
		Expect(code).To(Equal(cli.ExitOK))
		Expect(stdout).To(ContainSubstring(`label="checkout (parallel)";`))
		for _, region := range []string{"checkout.payment", "checkout.delivery"} {
			Expect(stdout).To(ContainSubstring(`subgraph "cluster_` + region + `" {` + "\n      label=\"" + region + "\";\n      style=dashed;"))
		}
		Expect(stdout).To(ContainSubstring("subgraph \"cluster_checkout.delivery.form\" {\n        label=\"checkout.delivery.form\";\n        \""), "a compound state inside a region is not one")
		code, stdout, _ = run(out, "graph", "../docs/examples/checkout", "--format", "mermaid")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(strings.Count(stdout, "stroke-dasharray: 5 5")).To(Equal(2))
		_, stdout, _ = run(out, "graph", "../scenarios/hfsm")
		Expect(stdout).NotTo(ContainSubstring("dashed"), "a fork's children are its branch's states, not regions")
	})

	Describe("with --coverage", func() {
		BeforeEach(func() {
			code, _, stderr := run(out, "run", door, "--out", out, "--explore-depth", "0")
			Expect(stderr).To(BeEmpty())
			Expect(code).To(Equal(cli.ExitOK))
		})

		It("overlays the counts of a transitions.csv and marks untaken transitions", func() {
			code, stdout, stderr := run(out, "graph", door, "--coverage", filepath.Join(out, "transitions.csv"))
			Expect(stderr).To(BeEmpty())
			Expect(code).To(Equal(cli.ExitOK))
			golden("graph-door-coverage.dot", []byte(stdout))
		})

		It("reads a coverage.csv to the same effect", func() {
			_, fromTransitions, _ := run(out, "graph", door, "--format", "mermaid", "--coverage", filepath.Join(out, "transitions.csv"))
			code, stdout, stderr := run(out, "graph", door, "--format", "mermaid", "--coverage", filepath.Join(out, "coverage.csv"))
			Expect(stderr).To(BeEmpty())
			Expect(code).To(Equal(cli.ExitOK))
			Expect(stdout).To(Equal(fromTransitions))
			golden("graph-door-coverage.mmd", []byte(stdout))
		})
	})

	Describe("bad input", func() {
		type badGraph struct {
			args []string
			csv  string // written to FILE when set
			want string // the error line, FILE and DIR replaced
		}

		DescribeTable("prints one line and exits 2, writing nothing to stdout",
			func(c badGraph) {
				dir := GinkgoT().TempDir()
				file := filepath.Join(dir, "coverage.csv")
				if c.csv != "" {
					Expect(os.WriteFile(file, []byte(c.csv), 0o644)).To(Succeed())
				}
				args := make([]string, len(c.args))
				for i, a := range c.args {
					args[i] = strings.ReplaceAll(a, "FILE", file)
				}
				code, stdout, stderr := run(out, args...)
				Expect(code).To(Equal(cli.ExitBadInput))
				Expect(stdout).To(BeEmpty())
				Expect(strings.ReplaceAll(stderr, file, "FILE")).To(Equal(c.want + "\n"))
			},
			Entry("an unknown format", badGraph{
				args: []string{"graph", door, "--format", "png"},
				want: `simctl: --format: unknown format "png" (want dot, mermaid, svg)`,
			}),
			Entry("no suite", badGraph{
				args: []string{"graph"},
				want: "simctl: graph takes one suite folder (simctl graph scenarios/soni --format dot)",
			}),
			Entry("a folder of several suites", badGraph{
				args: []string{"graph", "../reports/testdata/suites"},
				want: "simctl: ../reports/testdata/suites holds 2 suites; graph takes one suite folder",
			}),
			Entry("a missing coverage file", badGraph{
				args: []string{"graph", door, "--coverage", "FILE"},
				want: "simctl: --coverage: FILE: cannot read coverage file: no such file or directory",
			}),
			Entry("a file that is no coverage report", badGraph{
				args: []string{"graph", door, "--coverage", "FILE"},
				csv:  "suite,scenario,status\ndoor,open,pass\n",
				want: `simctl: --coverage: FILE:1: expected the header of a transitions.csv or coverage.csv, got "suite,scenario,status"`,
			}),
			Entry("the coverage of another suite", badGraph{
				args: []string{"graph", door, "--coverage", "FILE"},
				csv:  "suite,transition,from,to,trigger,guard,spec,count,guard_true,guard_false\ngreeter,0,idle,asking,hello,,m.yaml:1:1,3,0,0\n",
				want: "simctl: --coverage: FILE: no transitions of suite door (the file covers greeter)",
			}),
			Entry("the coverage of another version of the machine", badGraph{
				args: []string{"graph", door, "--coverage", "FILE"},
				csv:  "suite,transition,from,to,trigger,guard,spec,count,guard_true,guard_false\ndoor,0,closed,opened,knock,,m.yaml:1:1,3,0,0\n",
				want: `simctl: --coverage: FILE:2: transition 0 is "closed -> opened on knock" in the file but "closed -> (internal) on knock" in suite door: a file of another version of the machine?`,
			}),
			Entry("a count that is not a number", badGraph{
				args: []string{"graph", door, "--coverage", "FILE"},
				csv:  "suite,kind,id,item,count\ndoor,transition,0,closed -> (internal) on knock,many\n",
				want: `simctl: --coverage: FILE:2: count: expected a whole number, got "many"`,
			}),
		)
	})
})
