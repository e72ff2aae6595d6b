#!/bin/sh
# e2e: the browser check of report.html. Runs simctl on the bundled suites,
# opens the report in headless Chromium with the network off, and fails
# when the page logs a script error, fetches anything, or misses one of
# its sections; then, at 1400 and 900 px wide, when an element is wider
# than the window (outside a box that scrolls on its own), when a label of
# a state graph overlaps another, or when the sticky navigation is missing
# (scripts/e2e-check.js, run in a copy of the page), when a graph's label
# is under 11 px at its default zoom, or when the overview scrolls
# sideways; the same on a generated 300-state machine. `make e2e` runs it;
# .ci/run calls make e2e.
#
# Chromium comes from Debian (apt-get install chromium, as root) when it is
# not installed. The screenshot, the dumped DOM and the logs stay in
# $E2E_DIR (default out/e2e) for a person to look at.
set -eu
cd "$(dirname "$0")/.."

E2E_DIR=${E2E_DIR:-out/e2e}
SIMCTL=${SIMCTL:-bin/simctl}
mkdir -p "$E2E_DIR"
E2E_DIR=$(cd "$E2E_DIR" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM

# The state graphs are laid out with Helvetica's metrics; Liberation Sans
# has the same metrics, so the label check measures what dot planned.
if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -q "Liberation Sans"; then
	echo "e2e: installing chromium and fonts-liberation (apt-get)"
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-liberation
fi

# chrome FILE PREFIX: loads FILE in a fresh profile with every host
# unresolvable, twice: once to dump the DOM (PREFIX.dom.html) with the
# console (PREFIX.log) and the network log (PREFIX.net.json), once for a
# screenshot (PREFIX.png).
chrome() {
	chrome_run "$1" "$2" --enable-logging=stderr --v=0 --log-net-log="$2.net.json" --dump-dom >"$2.dom.html" &&
		chrome_run "$1" "$2" --window-size=1400,2200 --screenshot="$2.png" >/dev/null
}

# chrome_run FILE PREFIX FLAG...: one headless load of FILE, its stderr
# appended to PREFIX.log.
chrome_run() {
	page=$1 prefix=$2
	shift 2
	rm -rf "$WORK/profile"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-default-apps --disable-extensions --no-default-browser-check \
		--user-data-dir="$WORK/profile" --host-resolver-rules="MAP * ~NOTFOUND" \
		"$@" "file://$page" 2>>"$prefix.log" || {
		echo "e2e: chromium failed on $page (see $prefix.log)" >&2
		return 1
	}
}

# check PREFIX ID...: prints what is wrong with the page loaded by chrome
# and returns 1 if anything is: a script error in the console, a request
# the page made (Chromium's own background requests have another
# network isolation key), a missing section id, no screenshot.
check() {
	prefix=$1
	shift
	bad=0
	if grep -q "Uncaught" "$prefix.log"; then
		echo "e2e: script error: $(grep -m1 "Uncaught" "$prefix.log")"
		bad=1
	fi
	fetched=$(grep '"network_isolation_key":"file://' "$prefix.net.json" | grep -o '"url":"[a-z]*://[^"]*"' | sort -u || true)
	if [ -n "$fetched" ]; then
		echo "e2e: the page fetched: $fetched"
		bad=1
	fi
	for id in "$@"; do
		if ! grep -q "id=\"$id\"" "$prefix.dom.html"; then
			echo "e2e: section #$id missing"
			bad=1
		fi
	done
	if [ ! -s "$prefix.png" ]; then
		echo "e2e: no screenshot"
		bad=1
	fi
	return $bad
}

# First make sure the checks catch what they look for: a page with a script
# error, a fetch and no sections must fail.
cat >"$WORK/broken.html" <<'EOF'
<!DOCTYPE html><html><head><title>broken</title></head>
<body><img src="https://example.invalid/x.png" alt=""><script>undefinedFunction();</script></body></html>
EOF
chrome "$WORK/broken.html" "$WORK/broken"
if check "$WORK/broken" overview >"$WORK/broken.check"; then
	echo "e2e: the checks passed a broken page; they cannot be trusted"
	exit 1
fi
for want in "script error" "fetched" "section #overview missing"; do
	if ! grep -q "$want" "$WORK/broken.check"; then
		echo "e2e: the checks missed '$want' on a broken page:"
		cat "$WORK/broken.check"
		exit 1
	fi
done

# The real report: the bundled suites with generated conversations, so
# every section has something in it. A failed scenario (exit 1) still
# writes the report; bad input (exit 2) does not.
status=0
"$SIMCTL" run scenarios/ --out "$WORK/out" --generate 200 >"$E2E_DIR/run.txt" 2>"$E2E_DIR/run.err" || status=$?
if [ "$status" -gt 1 ]; then
	echo "e2e: simctl run exited $status:"
	cat "$E2E_DIR/run.err"
	exit 1
fi
cp "$WORK/out/report.html" "$E2E_DIR/report.html"
rm -f "$E2E_DIR/report.log"
chrome "$E2E_DIR/report.html" "$E2E_DIR/report"

# Every suite's sections, by the ids docs/reports.md promises.
ids="overview"
for name in $(sed -n 's/^      "name": "\(.*\)",$/\1/p' "$WORK/out/summary.json" | sed 's/[^A-Za-z0-9._-]/-/g'); do
	for section in suite failures graph coverage invariants generated explored latency; do
		ids="$ids $section-$name"
	done
done
if [ "$ids" = overview ]; then
	echo "e2e: no suites found in summary.json"
	exit 1
fi
# shellcheck disable=SC2086 # ids is a list of words
if ! check "$E2E_DIR/report" $ids; then
	exit 1
fi

# layout FILE PREFIX WIDTH: loads a copy of FILE with e2e-check.js at the
# end of its body in a window WIDTH px wide, and prints the problems the
# script found (nothing when there are none); a screenshot of FILE itself
# at that width goes to PREFIX-WIDTH.png.
layout() {
	page=$1 prefix=$2 width=$3
	{
		sed 's#</body>.*##' "$page"
		echo "<script>"
		cat scripts/e2e-check.js
		echo "</script></body></html>"
	} >"$prefix-$width.check.html"
	chrome_run "$prefix-$width.check.html" "$prefix" --window-size="$width",2400 --dump-dom >"$prefix-$width.dom.html" || return 1
	chrome_run "$page" "$prefix" --window-size="$width",2400 --screenshot="$prefix-$width.png" >/dev/null || return 1
	result=$(sed -n '/<pre id="e2e-result">/,/<\/pre>/p' "$prefix-$width.dom.html" | sed 's/<[^>]*>//g; s/&gt;/>/g; s/&lt;/</g; s/&amp;/\&/g')
	if [ -z "$result" ]; then
		echo "e2e: the layout check did not run at $width px"
		return 0
	fi
	if [ "$result" != ok ]; then
		echo "$result" | sed "s/^/e2e: at $width px: /"
	fi
}

# The layout checks must catch what they look for: a page wider than the
# window, a graph with overlapping labels and no navigation.
cat >"$WORK/cramped.html" <<'EOF'
<!DOCTYPE html><html><head><title>cramped</title></head><body>
<div style="width:3000px">wide</div>
<header><div class="scroll" style="overflow-x:auto"><table><tr><td style="min-width:2000px">wide overview</td></tr></table></div></header>
<section id="graph-x"><div class="graph"><svg width="200" height="50" viewBox="0 0 400 100"><text x="10" y="20" font-size="10">overlapping</text><text x="14" y="22" font-size="10">label</text></svg></div></section>
</body></html>
EOF
layout "$WORK/cramped.html" "$WORK/cramped" 900 >"$WORK/cramped.check"
for want in "element wider than the viewport" "overlaps" "no navigation" "under 11" "scrolls sideways"; do
	if ! grep -q "$want" "$WORK/cramped.check"; then
		echo "e2e: the layout check missed '$want' on a cramped page:"
		cat "$WORK/cramped.check"
		exit 1
	fi
done

# A big machine's report: 300 states in folded compound states
# (scripts/bigmachine.sh), laid out and checked as the bundled suites'.
sh scripts/bigmachine.sh "$WORK/big300"
status=0
"$SIMCTL" run "$WORK/big300" --out "$WORK/big-out" --generate 50 >"$E2E_DIR/big-run.txt" 2>"$E2E_DIR/big-run.err" || status=$?
if [ "$status" -gt 1 ]; then
	echo "e2e: simctl run on the 300-state machine exited $status:"
	cat "$E2E_DIR/big-run.err"
	exit 1
fi
cp "$WORK/big-out/report.html" "$E2E_DIR/big300.html"

bad=0
# (layout sets page, prefix and width: sh has no local variables.)
for report in report big300; do
	for w in 1400 900; do
		layout "$E2E_DIR/$report.html" "$E2E_DIR/$report" "$w" >"$E2E_DIR/layout-$report-$w.txt"
		if [ -s "$E2E_DIR/layout-$report-$w.txt" ]; then
			sed "s/^/$report: /" "$E2E_DIR/layout-$report-$w.txt"
			bad=1
		fi
	done
done
if [ "$bad" -ne 0 ]; then
	exit 1
fi
echo "e2e: report.html loads offline without script errors or fetches, with all $(echo "$ids" | wc -w) sections; at 1400 and 900 px, on the bundled suites and on a 300-state machine, nothing is wider than the window, the overview does not scroll sideways, no graph label overlaps another or is under 11 px, the navigation stays; screenshots $E2E_DIR/report-1400.png, $E2E_DIR/report-900.png, $E2E_DIR/big300-1400.png"
