#!/bin/sh
# The xstate graph peer (../shared/peers/js-xstate-graph) beside simctl's
# explorer on the same machines: soni (xstate's machine; simctl's
# bench-soni is the same WORKLOAD machine with its own alphabet), chain:K,
# grid:RxC and counters:300x300 (scripts/xstate-counters.mjs), RUNS times
# each. The peer runs from a copy (shared/ is read-only); simctl's side is
# BenchmarkExplore on one goroutine. Usage: sh scripts/peers-graph.sh
set -eu
RUNS=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for p in js-xstate-graph js-xstate js-harness; do
  cp -r "../shared/peers/$p" "$work/$p"
done
chmod -R u+w "$work"
cp scripts/xstate-counters.mjs "$work/js-xstate-graph/"
(cd "$work/js-xstate-graph" && npm ci --no-audit --no-fund >/dev/null)
for r in $(seq 1 "$RUNS"); do
  node "$work/js-xstate-graph/graph-bench.mjs" soni:shortest soni-ctx:shortest chain:50:shortest chain:200:shortest \
    grid:5x10:shortest grid:4x50:shortest grid:10x20:shortest
  node "$work/js-xstate-graph/xstate-counters.mjs" 300
done
go test -run '^$' -bench 'Explore$/(bench-soni|chain|grid|counters).*/workers=1' -count "$RUNS" ./explore
