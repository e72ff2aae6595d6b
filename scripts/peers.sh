#!/bin/sh
# Runs ../shared/peers/run-all.sh from a writable copy (shared/ is read-only)
# with simctl's own WORKLOAD runner beside the peers, and prints one table
# of them all: run-all.sh's summary (median of RUNS runs, spread, and its
# check of every peer's transition, turn and outcome counts) over the
# RESULT lines of simctl and of the peers together.
#
# simctl is measured as the peers are: RUNS runs, interleaved with theirs
# (simctl, then one run of every peer, RUNS times), the median shown.
# Like go-switch (N_SWITCH), it runs 10 x N conversations (N_SIMCTL): at N
# a run lasts under a tenth of a second, at the mercy of whatever else the
# machine runs in that moment; 10 x N lasts about a second, as the peers'
# runs do. Usage: sh scripts/peers.sh [N] [N_LANGGRAPH]
set -eu
N=${1:-100000}
NLG=${2:-300}
RUNS=${RUNS:-3}
N_SIMCTL=${N_SIMCTL:-$((N * 10))}
here=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r ../shared/peers "$work/peers"
chmod -R u+w "$work/peers"
go build -o "$work/workload" ./cmd/workload
all="$work/peers/results/all-runs.txt"
mkdir -p "$work/peers/results"
: >"$all"
for r in $(seq 1 "$RUNS"); do
  echo "== simctl, run $r/$RUNS" >&2
  for w in ${WORKLOADS:-mix}; do
    for m in ${MODES:-fresh}; do
      "$work/workload" -suite "$here/scenarios/bench-soni" -workload "$w" -mode "$m" "$N_SIMCTL" >>"$all"
    done
  done
  # One run of every peer; its own one-run summary is shown only if it
  # fails (a count WORKLOAD.md does not predict).
  (cd "$work/peers" && RUNS=1 OUT="results/run-$r.txt" ./run-all.sh "$N" "$NLG") >"$work/round.txt" ||
    { cat "$work/round.txt"; exit 1; }
  cat "$work/peers/results/run-$r.txt" >>"$all"
done
# The summary fails on a count that WORKLOAD.md does not predict: its
# status is the script's, once everything is printed.
status=0
(cd "$work/peers" && SUMMARY_ONLY=1 OUT=results/all-runs.txt ./run-all.sh "$N" "$NLG") >"$work/summary.txt" || status=$?
sed '/^raw RESULT lines/d' "$work/summary.txt"
echo
echo "raw RESULT lines of the runtime peers, simctl's first in each run:"
grep -v 'peer=js-xstate-graph' "$all"
exit "$status"
