// Command workload runs ../shared/peers/WORKLOAD.md on simctl's driver and
// prints the same RESULT line as the peers, so that simctl drops into the
// table of ../shared/peers/run-all.sh. Usage: workload [-workload mix|happy]
// [-mode fresh|reuse] [-suite DIR] N
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

type script struct {
	name    string
	turns   []string
	outcome string
}

func main() {
	workload := flag.String("workload", "mix", "happy | mix")
	mode := flag.String("mode", "fresh", "fresh (new configuration per conversation) | reuse (one configuration)")
	suiteDir := flag.String("suite", "scenarios/bench-soni", "the WORKLOAD suite")
	flag.Parse()
	n := 100000
	if flag.NArg() > 0 {
		v, err := strconv.Atoi(flag.Arg(0))
		if err != nil || v <= 0 {
			fail("bad N %q", flag.Arg(0))
		}
		n = v
	}
	if *workload != "mix" && *workload != "happy" || *mode != "fresh" && *mode != "reuse" {
		fail("bad -workload or -mode")
	}
	s, err := spec.Load(*suiteDir)
	if err != nil {
		fail("%v", err)
	}
	// Verify: every script replays with the traces and outcomes WORKLOAD.md
	// gives (the bench-soni scenarios assert them) before timing.
	outcomes := map[string]string{"happy": "booked", "retry": "booked", "deny": "cancelled", "cancel": "cancelled", "error": "failed"}
	var scripts []script
	for _, name := range []string{"happy", "retry", "deny", "cancel", "error"} {
		for _, sc := range s.Scenarios {
			if sc.Name != name {
				continue
			}
			if r := sim.RunScenario(s, sc, sim.Options{}); r.Status != sim.Pass {
				fail("script %s does not match WORKLOAD.md: %s", name, r.Status)
			}
			w := script{name: name, outcome: outcomes[name]}
			for _, t := range sc.Turns {
				w.turns = append(w.turns, t.User.Value)
			}
			scripts = append(scripts, w)
		}
	}
	if len(scripts) != 5 {
		fail("suite %s lacks the five WORKLOAD scripts", *suiteDir)
	}
	m := s.Machine
	stub := sim.NewStub(s.NLU, m)
	d := sim.NewDriver(m, stub, stub)
	last, _ := m.SlotID("last_outcome")
	var turns, booked, cancelled, failed int
	// The options are read once: the peers' harness does not compare
	// strings per conversation either.
	mix, fresh := *workload == "mix", *mode == "fresh"
	k := 0 // i%len(scripts), without a division per conversation
	conv := func(i int, count bool) {
		w := &scripts[0]
		if mix {
			w = &scripts[k]
			if k++; k == len(scripts) {
				k = 0
			}
		}
		if fresh || i == 0 {
			if err := d.Start(0); err != nil {
				fail("%v", err)
			}
		}
		for _, u := range w.turns {
			if err := d.User(u); err != nil {
				fail("%v", err)
			}
		}
		got := d.Cfg.Slot(last).Str
		if got != w.outcome {
			fail("conversation %d (%s) ended %q, want %q", i, w.name, got, w.outcome)
		}
		if !count {
			return
		}
		turns += len(w.turns)
		switch got {
		case "booked":
			booked++
		case "cancelled":
			cancelled++
		default:
			failed++
		}
	}
	for i := 0; i < max(1, n/10); i++ {
		conv(i, false)
	}
	d.Transitions, k = 0, 0
	start := time.Now()
	for i := 0; i < n; i++ {
		conv(i, true)
	}
	el := time.Since(start).Seconds()
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	tr := d.Transitions
	fmt.Printf("RESULT peer=simctl lib=simctl runtime=%s workload=%s mode=%s n=%d turns=%d transitions=%d booked=%d cancelled=%d failed=%d elapsed_s=%.6f conv_per_s=%.0f turns_per_s=%.0f trans_per_s=%.0f ns_per_transition=%.1f peak_rss_kb=%d\n",
		runtime.Version(), *workload, *mode, n, turns, tr, booked, cancelled, failed, el,
		float64(n)/el, float64(turns)/el, float64(tr)/el, el*1e9/float64(tr), ru.Maxrss)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "workload: "+format+"\n", args...)
	os.Exit(1)
}
