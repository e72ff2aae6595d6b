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
# The floors are today's passes (of 127 SCION and 208 W3C tests), so that a
# regression fails make conformance.
exec "$GO" run ./cmd/conformance "$SUITE" --out "$OUT/conformance" --min-scion 124 --min-w3c 149
