#!/bin/sh
# bigmachine.sh DIR: writes a suite of 300 states into DIR (machine.yaml
# only), for make e2e's check that a big machine's report stays legible:
# 12 departments, each a compound state holding 3 groups of 7 steps (25
# states a department), walked with next and back, a jump to the next
# department from anywhere in one; the very last step is a top-level
# final state instead, so 300 states in all.
set -eu
dir=$1
mkdir -p "$dir"
awk 'BEGIN {
	D = 12; G = 3; S = 7
	print "# A generated machine of 300 states (scripts/bigmachine.sh)."
	print "machine: big300"
	print "initial: d0"
	print "max_turns: 400"
	print "intents: [next, back, jump]"
	print "states:"
	for (d = 0; d < D; d++) {
		printf "  d%d:\n    initial: d%d_g0\n", d, d
		if (d + 1 < D) printf "    on:\n      jump: d%d\n", d + 1
		print "    states:"
		for (g = 0; g < G; g++) {
			printf "      d%d_g%d:\n        initial: d%d_g%d_s0\n        states:\n", d, g, d, g
			last = (d + 1 == D && g + 1 == G)
			for (s = 0; s < S - last; s++) {
				name = sprintf("d%d_g%d_s%d", d, g, s)
				if (s + 1 < S - last) nxt = sprintf("d%d_g%d_s%d", d, g, s + 1)
				else if (g + 1 < G) nxt = sprintf("d%d_g%d", d, g + 1)
				else if (d + 1 < D) nxt = sprintf("d%d", d + 1)
				else nxt = "done"
				printf "          %s:\n            waits: true\n            on:\n              next: %s\n", name, nxt
				if (s > 0) printf "              back: d%d_g%d_s%d\n", d, g, s - 1
			}
		}
	}
	print "  done:\n    final: true"
}' >"$dir/machine.yaml"
