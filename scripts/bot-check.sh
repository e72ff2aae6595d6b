#!/bin/sh
# make bot-check: the reference LangGraph.js bot of examples/formfill-langgraph
# (seed 002's form-filler) checked live against scenarios/formfill.
# Installs Node.js and npm from Debian's packages when missing, installs the
# bot's locked dependencies (npm ci), starts it on a free loopback port,
# runs simctl run --bot against it, stops it whatever happens (trap), and
# exits with simctl's status. BOT names another copy of the bot (as
# scripts/bot-planted.sh does, NPM_CI=0 when it has its node_modules),
# EXPLORE the exploration depth (empty: the suite's).
set -eu
SIMCTL=${SIMCTL:-bin/simctl}
OUT=${OUT:-out/bot-check}
GENERATE=${GENERATE:-1000}
WORKERS=${WORKERS:-4}
BOT=${BOT:-examples/formfill-langgraph}
EXPLORE=${EXPLORE:-}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq nodejs npm >/dev/null
fi
# @langchain/langgraph 1.x declares Node.js 20 or later; Debian 12's own
# nodejs is 18 (this machine's apt has NodeSource's 20).
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
	echo "bot-check: warning: Node.js $(node --version) is older than the 20 the bot's dependencies declare" >&2
fi
if [ "${NPM_CI:-1}" = 1 ]; then
	(cd "$BOT" && npm ci --no-audit --no-fund --loglevel=error)
fi

log=$(mktemp)
pid=""
stop() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -f "$log"
}
trap stop EXIT
trap 'exit 130' INT TERM

PORT=0 node "$BOT/server.mjs" >"$log" 2>&1 &
pid=$!
url=""
i=0
while [ -z "$url" ]; do
	if ! kill -0 "$pid" 2>/dev/null || [ $i -ge 300 ]; then
		echo "bot-check: the bot did not start:" >&2
		cat "$log" >&2
		exit 2
	fi
	sleep 0.1
	i=$((i + 1))
	url=$(sed -n 's/^listening on //p' "$log")
done

status=0
"$SIMCTL" run scenarios/formfill --bot "$url" --generate "$GENERATE" --workers "$WORKERS" --out "$OUT" --quiet \
	${EXPLORE:+--explore-depth "$EXPLORE"} || status=$?
exit $status
