package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/simctl/simctl/sim"
)

// tally counts what a run found, as its last line says it and as
// summary.json's "failed" counts it: scripted scenarios by verdict, then
// the other checks that can fail a run.
type tally struct {
	pass, known, fail int // scripted scenarios
	genFail, genKnown int // findings of generated conversations: not known, known (a note names them)
	findings          int // exploration findings no note names
	sloFail           int // latency objectives judged and not met
	citations         int // notes whose seed citation does not hold
}

func (t *tally) add(s sim.Status) {
	switch s {
	case sim.Pass:
		t.pass++
	case sim.Known:
		t.known++
	default:
		t.fail++
	}
}

func (t *tally) merge(o tally) {
	t.pass, t.known, t.fail = t.pass+o.pass, t.known+o.known, t.fail+o.fail
	t.genFail, t.genKnown = t.genFail+o.genFail, t.genKnown+o.genKnown
	t.findings, t.sloFail = t.findings+o.findings, t.sloFail+o.sloFail
	t.citations += o.citations
}

// n counts the scripted scenarios.
func (t tally) n() int { return t.pass + t.known + t.fail }

// failed reports whether anything failed the run.
func (t tally) failed() bool { return t.fail+t.genFail+t.findings+t.sloFail+t.citations > 0 }

func (t tally) String() string {
	s := fmt.Sprintf("%d passed, %d failed", t.pass, t.fail)
	if t.known > 0 {
		s = fmt.Sprintf("%d passed, %s, %d failed", t.pass, count(t.known, "known", "known"), t.fail)
	}
	var more []string
	if t.genFail > 0 {
		more = append(more, count(t.genFail, "finding", "findings")+" of generated conversations")
	}
	if t.genKnown > 0 {
		more = append(more, count(t.genKnown, "known finding", "known findings")+" in generated conversations")
	}
	if t.findings > 0 {
		more = append(more, count(t.findings, "exploration finding", "exploration findings"))
	}
	if t.citations > 0 {
		more = append(more, count(t.citations, "citation", "citations")+" not in the seed")
	}
	if t.sloFail > 0 {
		more = append(more, count(t.sloFail, "latency objective", "latency objectives")+" not met")
	}
	if len(more) > 0 {
		s += "; " + strings.Join(more, ", ")
	}
	return s
}

// count is "1 scenario", "2 scenarios".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
