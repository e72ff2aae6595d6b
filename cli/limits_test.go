package cli_test

import (
	"fmt"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/simctl/simctl/engine"
)

// Inputs that once crashed simctl, ran it out of memory or were accepted
// silently; fuzzing (make fuzz) or its seed corpus found them. Each is now
// one error line with a position. The raw inputs are also regression cases
// of the fuzz targets, under spec/testdata/fuzz.

// deepStates nests n compound states, each holding the next.
func deepStates(n int) string {
	return "  loop: " + strings.Repeat("{initial: s, states: {s: ", n) + "{waits: true}" + strings.Repeat("}}", n) + "\n"
}

// stateLaughs declares levels compound states, each holding four aliases
// of the one before: a few lines that stand for 4^levels states.
func stateLaughs(levels int) string {
	var b strings.Builder
	b.WriteString("  l0: &l0 {initial: x, states: {x: {waits: true}, y: {waits: true}, z: {waits: true}}}\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d {initial: p, states: {p: *l%d, q: *l%d, r: *l%d, s: *l%d}}\n", i, i, i-1, i-1, i-1, i-1)
	}
	return b.String()
}

// manyNames lists n names after first, as in a YAML flow list.
func manyNames(first string, n int) string {
	names := []string{first}
	for i := range n {
		names = append(names, fmt.Sprintf("n%d", i))
	}
	return strings.Join(names, ", ")
}

// manyStates declares n states that nothing enters.
func manyStates(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  s%d: {}\n", i)
	}
	return b.String()
}

var _ = Describe("limits on input", func() {
	var dir, out string

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		out = filepath.Join(dir, "out")
	})

	DescribeTable("reject what would crash simctl or exhaust memory, in one line naming file:line:col",
		func(c badCase) { expectRejected(dir, out, c) },
		Entry("an alias that stands for a value containing it (was a stack overflow)", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "states:\n", "states: &all\n  loop: {initial: idle, states: *all}\n")}),
			want:  `simctl: SUITE/machine.yaml:9:33: alias *all refers to a value that contains it`,
		}),
		Entry("aliases that multiply into millions of states (took 6 s and 350 MB to reject)", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "states:\n", "states:\n"+stateLaughs(10))}),
			want:  `simctl: SUITE/machine.yaml:15:44: aliases expand to more than 65536 values`,
		}),
		Entry("states nested deeper than the nesting limit (was not counted)", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "states:\n", "states:\n"+deepStates(40))}),
			want:  `simctl: SUITE/machine.yaml:9:781: nesting is deeper than 64 levels`,
		}),
		Entry("a second YAML document (was ignored)", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + "---\nmachine: other\n"}),
			want:  `simctl: SUITE/machine.yaml:19:1: a second YAML document starts here; a file holds one`,
		}),
		Entry("a max_chain that lets a loop of always: transitions fill memory", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + "max_chain: 1000000000\n"}),
			want:  `simctl: SUITE/machine.yaml:1:1: max_chain is 1000000000, more than the 10000 allowed`,
		}),
		Entry("a users.yaml max_turns no generated conversation can hold (ran out of memory)", badCase{
			files: suite(map[string]string{"users.yaml": "max_turns: 9223372036854775807\n"}),
			want:  `simctl: SUITE/users.yaml:1:12: max_turns must be from 0 to 10000`,
		}),
		Entry("a machine.yaml max_turns no generated conversation can hold", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + "max_turns: 100000000\n"}),
			want:  `simctl: SUITE/machine.yaml:19:12: max_turns must be from 0 to 10000`,
		}),
		Entry("more intents than the 16-bit ids hold (ids wrapped around)", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "[hello, bye]", "["+manyNames("hello, bye", 70000)+"]")}),
			want:  `simctl: SUITE/machine.yaml:3:6067: too many intents: 70002 (at most 1024)`,
		}),
		Entry("more states than the limit (Build took minutes)", badCase{
			files: suite(map[string]string{"machine.yaml": validMachine + manyStates(engine.MaxStates+76)}),
			want:  fmt.Sprintf("simctl: SUITE/machine.yaml:%d:3: too many states: %d (at most %d)", engine.MaxStates+16, engine.MaxStates+79, engine.MaxStates),
		}),
		Entry("an expression longer than the limit", badCase{
			files: suite(map[string]string{"machine.yaml": replaceIn(validMachine, "bye: done", "bye: {target: done, guard: '"+strings.Repeat("true and ", 500)+"true'}")}),
			want:  `simctl: SUITE/machine.yaml:16:35: expression is 4504 bytes long, more than the 4096 allowed`,
		}),
		Entry("an empty NLU marker (crashed the stub NLU)", badCase{
			files: suite(map[string]string{"nlu.yaml": "markers: ['']\n"}),
			want:  `simctl: SUITE/nlu.yaml:1:10: markers: a marker must not be empty`,
		}),
		Entry("an empty NLU keyword", badCase{
			files: suite(map[string]string{"nlu.yaml": "intents:\n  hello: {keywords: [hi, '']}\n"}),
			want:  `simctl: SUITE/nlu.yaml:2:21: intent "hello": a keyword must not be empty`,
		}),
		Entry("an empty entity synonym", badCase{
			files: suite(map[string]string{"nlu.yaml": "entities:\n  who: {values: {Ana: [ana, ' ']}}\n"}),
			want:  `simctl: SUITE/nlu.yaml:2:18: entity "who": a value or synonym must not be empty`,
		}),
		Entry("an unknown cassette_fallback", badCase{
			files: suite(map[string]string{"nlu.yaml": "cassette_fallback: always\n"}),
			want:  `simctl: SUITE/nlu.yaml:1:20: cassette_fallback: unknown value "always" (want generated)`,
		}),
		Entry("a probability that is not a number (nan was accepted)", badCase{
			files: suite(map[string]string{"users.yaml": "behaviour:\n  cancel: nan\n"}),
			want:  `simctl: SUITE/users.yaml:2:11: expected a number, got "nan"`,
		}),
		Entry("a confidence that is not a number (NaN was accepted)", badCase{
			files: suite(map[string]string{"nlu.yaml": "confidence: NaN\nintents:\n  hello: {exact: [hello]}\n"}),
			want:  `simctl: SUITE/nlu.yaml:1:13: expected a number, got "NaN"`,
		}),
	)
})
