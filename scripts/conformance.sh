#!/bin/sh
# conformance: installs @scion-scxml/test-framework (pinned in
# conformance/npm/package-lock.json) with npm into a cache git ignores and
# runs all its tests through simctl's SCXML loader and engine, writing
# $OUT/conformance/conformance.csv. `make conformance` runs it; .ci/run
# calls make conformance. Node.js and npm come from Debian (apt-get, as
# root) when missing.
set -eu
cd "$(dirname "$0")/.."

GO=${GO:-go}
OUT=${OUT:-out}
CACHE=${CONFORMANCE_CACHE:-.cache/conformance}
SUITE="$CACHE/node_modules/@scion-scxml/test-framework/test"

if [ ! -d "$SUITE" ] || ! cmp -s conformance/npm/package-lock.json "$CACHE/package-lock.json"; then
	if ! command -v npm >/dev/null 2>&1; then
		echo "conformance: installing npm (apt-get)"
		apt-get update
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends npm
	fi
	mkdir -p "$CACHE"
	cp conformance/npm/package.json conformance/npm/package-lock.json "$CACHE/"
	(cd "$CACHE" && timeout 600 npm ci --no-audit --no-fund --ignore-scripts)
fi
# The floors: at least 100 of the 127 SCION tests and 50 of the W3C ones.
exec "$GO" run ./cmd/conformance "$SUITE" --out "$OUT/conformance" --min-scion 100 --min-w3c 50
