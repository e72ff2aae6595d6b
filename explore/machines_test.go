package explore_test

import (
	"fmt"
	"strings"
)

// Generated machines: simctl equivalents of the chain and grid machines of
// the xstate graph peer (../shared/peers/js-xstate-graph, graph-bench.mjs),
// and a counter grid with a known number of configurations.

// chainYAML is chain:K: states s0..s(K-1); next moves on only when the
// event carries no value (the peer's NEXT{ok:true}; the alphabet's next
// carrying the invalid value is its NEXT{ok:false}); back moves back;
// reset goes to s0.
func chainYAML(k int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "machine: chain%d\ninitial: s0\nintents: [next, back, reset]\nstates:\n", k)
	for i := 0; i < k; i++ {
		fmt.Fprintf(&b, "  s%d:\n    waits: true\n    on:\n      reset: s0\n", i)
		if i+1 < k {
			fmt.Fprintf(&b, "      next: {guard: 'event.value == \"\"', target: s%d}\n", i+1)
		}
		if i > 0 {
			fmt.Fprintf(&b, "      back: s%d\n", i-1)
		}
	}
	return b.String()
}

// gridYAML is grid:RxC: states cell_r_c; right and down move into the next
// cell unless it is a wall (r > 0, c > 0 and (7r + 3c) mod 10 = 0, the
// peer's "open" guard, decided here when the machine is written); reset
// goes to cell_0_0. Walls are declared but unreachable.
func gridYAML(rows, cols int) string {
	wall := func(r, c int) bool { return r > 0 && c > 0 && (r*7+c*3)%10 == 0 }
	var b strings.Builder
	fmt.Fprintf(&b, "machine: grid%dx%d\ninitial: cell_0_0\nintents: [right, down, reset]\nstates:\n", rows, cols)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			fmt.Fprintf(&b, "  cell_%d_%d:\n    waits: true\n    on:\n      reset: cell_0_0\n", r, c)
			if c+1 < cols && !wall(r, c+1) {
				fmt.Fprintf(&b, "      right: cell_%d_%d\n", r, c+1)
			}
			if r+1 < rows && !wall(r+1, c) {
				fmt.Fprintf(&b, "      down: cell_%d_%d\n", r+1, c)
			}
		}
	}
	return b.String()
}

// countersYAML has one state and two counters x and y, each 0 to n-1:
// right and up count one of them up while it is below n-1, reset sets
// both to 0. Its configurations are the n*n pairs (x, y).
func countersYAML(n int) string {
	return fmt.Sprintf(`machine: counters%d
initial: plane
intents: [right, up, reset]
counters: {x: {}, y: {}}
states:
  plane:
    waits: true
    on:
      right: {guard: x < %d, actions: [{incr: x}]}
      up: {guard: y < %d, actions: [{incr: y}]}
      reset: {actions: [{reset: all}]}
`, n, n-1, n-1)
}

// cubeYAML is a machine with k counters, each counted up to n-1 by its own
// intent (and all reset by one): n^k configurations, every one reachable.
func cubeYAML(k, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "machine: cube%dx%d\ninitial: space\nintents: [reset", k, n)
	for i := 0; i < k; i++ {
		fmt.Fprintf(&b, ", up%d", i)
	}
	b.WriteString("]\ncounters: {")
	for i := 0; i < k; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "c%d: {}", i)
	}
	b.WriteString("}\nstates:\n  space:\n    waits: true\n    on:\n      reset: {actions: [{reset: all}]}\n")
	for i := 0; i < k; i++ {
		fmt.Fprintf(&b, "      up%d: {guard: c%d < %d, actions: [{incr: c%d}]}\n", i, i, n-1, i)
	}
	return b.String()
}
