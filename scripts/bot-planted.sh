#!/bin/sh
# make bot-planted: copies of the reference bot (examples/formfill-langgraph)
# with one bug planted in each, every copy checked as make bot-check checks
# the bot (scripts/bot-check.sh). Each bug must be found: simctl exits 1
# and writes the shrunk divergence to OUT/<bug>/failures/. Prints, per bug,
# the shortest divergence written; exits 1 if a bug went unnoticed.
set -eu
SIMCTL=${SIMCTL:-bin/simctl}
OUT=${OUT:-out/bot-planted}
GENERATE=${GENERATE:-200}
EXPLORE=${EXPLORE:-0}
src=examples/formfill-langgraph
(cd "$src" && npm ci --no-audit --no-fund --loglevel=error)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# plant NAME FILE FROM TO: a copy of the bot whose FILE has FROM replaced
# by TO (FROM must be there).
missed=0
plant() {
	name=$1
	cp -r "$src" "$tmp/$name"
	node -e '
		const fs = require("fs");
		const [f, from, to] = process.argv.slice(1);
		const s = fs.readFileSync(f, "utf8");
		if (!s.includes(from)) { console.error("bot-planted: not in " + f + ": " + from); process.exit(2); }
		fs.writeFileSync(f, s.replace(from, to));
	' "$tmp/$name/$2" "$3" "$4"
	status=0
	BOT="$tmp/$name" NPM_CI=0 OUT="$OUT/$name" GENERATE="$GENERATE" EXPLORE="$EXPLORE" SIMCTL="$SIMCTL" \
		sh scripts/bot-check.sh >"$tmp/$name.log" 2>&1 || status=$?
	if [ "$status" != 1 ]; then
		echo "$name: NOT FOUND (simctl exit status $status)"
		tail -5 "$tmp/$name.log"
		missed=1
		return
	fi
	best=""
	n=1000
	for f in "$OUT/$name"/failures/bot-*.scenario.yaml; do
		t=$(grep -c '^  - ' "$f")
		if [ "$t" -lt "$n" ]; then n=$t; best=$f; fi
	done
	echo "$name: found, $(ls "$OUT/$name"/failures/bot-*.scenario.yaml | wc -l) divergence(s); shortest $n turns: $best"
	grep -m1 '^# the bot' "$best" 2>/dev/null || grep -m1 '    # the bot' "$best"
}

# A correction after the form is complete is routed to extract_field
# instead of the completion escalation.
plant routing-after-completion graph.mjs \
	"  if (state.should_escalate) return 'escalate';" \
	"  if (state.should_escalate && !(state.escalation_reason === 'completion' && state.metadata.nlu.intent === 'corregir')) return 'escalate';"
# The phone number is stored without its spaces; every reply is unchanged.
plant wrong-stored-slot graph.mjs \
	"values: { ...state.conversation.values, [f.name]: v }" \
	"values: { ...state.conversation.values, [f.name]: f.type === 'phone' ? v.replace(/ /g, '') : v }"
# Negative sentiment outranks the escalation keywords; the escalation
# message is the same, only the recorded reason differs.
plant escalation-priority graph.mjs \
	"  if (ESCALATION_KEYWORDS.test(state.user_message.toLowerCase())) reason = 'keyword';
  else if (state.metadata.timer) reason = 'timeout';
  else if (sentiment <= -0.7) reason = 'sentiment';" \
	"  if (sentiment <= -0.7) reason = 'sentiment';
  else if (ESCALATION_KEYWORDS.test(state.user_message.toLowerCase())) reason = 'keyword';
  else if (state.metadata.timer) reason = 'timeout';"
# The number validator takes thousands separators and a euro sign.
plant validator-accepts-bad-value rules.mjs \
	"return /^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?\$/.test(t) && Number.isFinite(Number(t));" \
	"return /^[+-]?\\d[\\d.,]*€?\$/.test(t);"
exit $missed
