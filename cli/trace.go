package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/sim"
)

// printTrace prints a scenario turn by turn, as simctl run -v and simctl
// replay show it: what the user said (or the wait, or the event) and the
// intent it was read as, the transitions it set off, what the bot
// replied; a transition that broke an invariant is marked with ✗ and the
// invariant's name.
func printTrace(w io.Writer, r *sim.ScenarioResult) {
	const indent = "         "
	broke := func(l sim.TraceLine) []eval.Violation {
		var out []eval.Violation
		for _, v := range r.Violations {
			if v.Turn == l.Turn && v.To == l.To && v.From == l.From && v.From+v.To != "" {
				out = append(out, v)
			}
		}
		return out
	}
	marked := map[int]bool{} // violations shown beside their transition
	step := func(l sim.TraceLine) {
		vs := broke(l)
		mark := "  "
		if len(vs) > 0 {
			mark = "✗ "
		}
		fmt.Fprintf(w, "%s  %s%s\n", indent, mark, terminalText(l.Step()))
		for _, v := range vs {
			for k := range r.Violations {
				if r.Violations[k].Invariant == v.Invariant && r.Violations[k].Turn == v.Turn {
					marked[k] = true
				}
			}
			fmt.Fprintf(w, "%s      breaks %s: %s\n", indent, v.Invariant, oneLineText(v.Msg))
		}
	}
	next := 0
	for next < len(r.Trace) && r.Trace[next].Turn == 0 {
		if next == 0 {
			fmt.Fprintf(w, "%sstart\n", indent)
		}
		step(r.Trace[next])
		next++
	}
	for _, t := range r.TurnLog {
		fmt.Fprintf(w, "%sturn %d  %s\n", indent, t.Turn, turnInput(t))
		for next < len(r.Trace) && r.Trace[next].Turn == t.Turn {
			step(r.Trace[next])
			next++
		}
		for _, line := range strings.Split(t.Said, "\n") {
			if line != "" {
				fmt.Fprintf(w, "%s    bot: %s\n", indent, terminalText(line))
			}
		}
		for k, v := range r.Violations {
			if v.Turn == t.Turn && !marked[k] {
				fmt.Fprintf(w, "%s  ✗ breaks %s: %s\n", indent, v.Invariant, oneLineText(v.Msg))
				marked[k] = true
			}
		}
	}
	for ; next < len(r.Trace); next++ {
		step(r.Trace[next])
	}
}

// turnInput says what a turn was: `user: "text" → intent`, `wait 1500ms`,
// `event: intent`.
func turnInput(t sim.TurnRecord) string {
	switch t.Kind {
	case "user":
		s := "user: " + strconv.Quote(t.Input)
		switch {
		case t.Intent != "":
			s += " → " + t.Intent
		default:
			s += " → (not understood)"
		}
		if t.NLU == "skipped" {
			s += " (direct slot mapping, no NLU call)"
		}
		return s
	case "wait":
		return "wait " + t.Input
	}
	s := "event: " + t.Intent
	if t.Input != "" {
		s += " " + strconv.Quote(t.Input)
	}
	return s
}

// oneLineText collapses a message's line breaks and runs of spaces, and
// escapes control characters.
func oneLineText(s string) string { return terminalText(strings.Join(strings.Fields(s), " ")) }

// terminalText escapes, as Go does in a quoted string (\x1b, \x00, \t),
// the control characters and invalid UTF-8 of text from a suite or a bot,
// so that an ESC in a bot's reply cannot drive the reader's terminal.
func terminalText(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				fmt.Fprintf(&b, "\\x%02x", s[i])
				continue
			}
			b.WriteRune(r)
		case unicode.IsControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
