#!/bin/sh
# Runs ../shared/peers/run-all.sh from a writable copy (shared/ is read-only)
# and simctl's own WORKLOAD runner, RUNS times each, printing the RESULT
# lines and the peers' summary table. Usage: sh scripts/peers.sh [N] [N_LANGGRAPH]
set -eu
N=${1:-100000}
NLG=${2:-300}
RUNS=${RUNS:-3}
here=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r ../shared/peers "$work/peers"
chmod -R u+w "$work/peers"
go build -o "$work/workload" ./cmd/workload
for w in ${WORKLOADS:-mix}; do
  for m in ${MODES:-fresh}; do
    for r in $(seq 1 "$RUNS"); do
      "$work/workload" -suite "$here/scenarios/bench-soni" -workload "$w" -mode "$m" "$N"
    done
  done
done
(cd "$work/peers" && RUNS=$RUNS ./run-all.sh "$N" "$NLG")
