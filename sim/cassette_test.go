package sim_test

import (
	"encoding/json"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/sim/nlutest"
	"github.com/simctl/simctl/spec"
)

// seedSuites are the bundled suites the cassette specs run on.
var seedSuites = []string{"../scenarios/soni", "../scenarios/bench-soni", "../scenarios/thea", "../scenarios/formfill", "../scenarios/hfsm", "../docs/examples/pizza"}

// recordFromStub records suite s from a server that answers as its stub
// rules do, and returns the cassette, loaded as simctl run loads it.
func recordFromStub(s *spec.Suite) *spec.Cassette {
	server := nlutest.FromStub(sim.NewStub(s.NLU, s.Machine), s.Machine)
	defer server.Close()
	rec := sim.NewRecorder(&sim.HTTPNLU{URL: server.URL, Retries: 0}, s.NLU, nil)
	for _, sc := range s.Scenarios {
		for _, v := range s.VariantsFor(sc) {
			sim.RunScenario(s, sc, sim.Options{Variant: v, Seed: 1, NLU: sim.NLUOptions{Custom: rec.For}})
			Expect(rec.Err()).NotTo(HaveOccurred())
		}
	}
	data, err := spec.EncodeCassette(rec.Records())
	Expect(err).NotTo(HaveOccurred())
	c, err := spec.LoadCassette(filepath.Join(s.Dir, spec.CassetteFile), data, s.Machine)
	Expect(err).NotTo(HaveOccurred())
	return c
}

// utterances returns every user turn of a suite's scenarios.
func utterances(s *spec.Suite) []string {
	var out []string
	for _, sc := range s.Scenarios {
		for _, t := range sc.Turns {
			if t.User != nil {
				out = append(out, t.User.Value, "  "+t.User.Value+" ")
			}
		}
	}
	return out
}

var _ = Describe("the stub's Rasa-shaped reply", func() {
	It("gives, through JSON and back, the event the stub gives, for every utterance of the bundled suites", func() {
		for _, dir := range seedSuites {
			s := load(dir)
			stub := sim.NewStub(s.NLU, s.Machine)
			fb := sim.FallbackIntent(s.NLU, s.Machine)
			for _, u := range utterances(s) {
				var want, got engine.Event
				Expect(stub.Parse(u, 0, &want)).To(Succeed())
				data, err := json.Marshal(stub.Reply(s.Machine, u))
				Expect(err).NotTo(HaveOccurred())
				reply, err := spec.DecodeReply(data, u)
				Expect(err).NotTo(HaveOccurred(), "%s: %q: %s", dir, u, data)
				sim.EventFromReply(s.Machine, &reply, u, fb, &got)
				Expect(got).To(Equal(want), "%s: %q: %s", dir, u, data)
			}
		}
	})

	It("gives the entities' positions in the text, in characters", func() {
		s := load("../scenarios/soni")
		r := sim.NewStub(s.NLU, s.Machine).Reply(s.Machine, " Actually, change the origin to Boston")
		Expect(r.Intent).To(Equal(spec.ReplyIntent{Name: "correct", Confidence: 0.95}))
		Expect(r.Entities).To(HaveLen(1))
		e := r.Entities[0]
		Expect(e.Entity).To(Equal("origin"))
		Expect(e.Text()).To(Equal("Boston"))
		Expect([]rune(" Actually, change the origin to Boston")[e.Start:e.End]).To(Equal([]rune("Boston")))
	})
})

// Labelled race, as every spec recording from nlutest's HTTP server (its
// handlers run on goroutines of their own): make test runs them under the
// race detector, sim's other specs without it.
var _ = Describe("cassette replay", Label("race"), func() {
	It("reproduces the stub's statuses and traces on the bundled suites when recorded from a server that answers like the stub", func() {
		for _, dir := range seedSuites {
			s := load(dir)
			c := recordFromStub(s)
			Expect(c.Records).NotTo(BeEmpty())
			for _, sc := range s.Scenarios {
				for _, v := range s.VariantsFor(sc) {
					s.Cassette = nil
					want := sim.RunScenario(s, sc, sim.Options{Variant: v, Seed: 1, Trace: true})
					s.Cassette = c
					got := sim.RunScenario(s, sc, sim.Options{Variant: v, Seed: 1, Trace: true})
					Expect(got.Status).To(Equal(want.Status), "%s: %s", dir, sc.Name)
					Expect(got.Error).To(Equal(want.Error), "%s: %s", dir, sc.Name)
					Expect(got.Failures).To(Equal(want.Failures), "%s: %s", dir, sc.Name)
					Expect(traceText(got)).To(Equal(traceText(want)), "%s: %s", dir, sc.Name)
					Expect(got.NLUCalls).To(Equal(want.NLUCalls))
				}
			}
		}
	})

	It("fails a scenario in strict mode with one line naming the suite, scenario, turn and utterance when a record is missing", func() {
		s := load("../scenarios/bench-soni")
		c := recordFromStub(s)
		var kept []spec.CassetteRecord
		for _, r := range c.Records {
			if r.Text != "Barcelona" {
				kept = append(kept, r)
			}
		}
		s.Cassette = &spec.Cassette{File: c.File, Records: kept}
		r := sim.RunScenario(s, scenario(s, "happy"), sim.Options{})
		Expect(r.Status).To(Equal(sim.Fail))
		Expect(r.Error).To(Equal(`suite bench-soni: scenario happy: turn 3: no cassette record for "Barcelona" in state waiting_for_slot (../scenarios/bench-soni/nlu.cassette.jsonl; record it with simctl record, or run with --nlu-fallback stub)`))
		Expect(r.Violations[len(r.Violations)-1].Invariant).To(Equal("runtime_error"))

		By("falling back to the stub rules with --nlu-fallback stub")
		r = sim.RunScenario(s, scenario(s, "happy"), sim.Options{NLU: sim.NLUOptions{Fallback: true}})
		Expect(r.Status).To(Equal(sim.Pass))
	})

	It("gives each record's latency, and the suite's as a list", func() {
		s := load("../scenarios/bench-soni")
		c := recordFromStub(s)
		Expect(c.Latencies()).To(HaveLen(len(c.Records)))
		r := sim.NewReplay(c, s.NLU, s.Machine)
		idle, _ := s.Machine.StateID("idle")
		ms, ok := r.Latency("book a flight", idle)
		Expect(ok).To(BeTrue())
		Expect(ms).To(BeNumerically(">=", 0))
		_, ok = r.Latency("never said", idle)
		Expect(ok).To(BeFalse())
	})

	It("still maps answers straight into the waiting slot without asking the cassette", func() {
		s := load("../scenarios/soni")
		s.Cassette = &spec.Cassette{File: "empty.cassette.jsonl"}
		stub := sim.NewStub(s.NLU, s.Machine)
		d := sim.NewDriver(s.Machine, sim.NewReplay(s.Cassette, s.NLU, s.Machine), stub)
		Expect(d.Start(0)).To(Succeed())
		err := d.User("I want to book a flight")
		Expect(err).To(MatchError(ContainSubstring(`no cassette record for "I want to book a flight" in state idle`)))
	})
})
