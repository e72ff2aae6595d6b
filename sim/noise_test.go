package sim_test

import (
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// noisyNLU loads soni's nlu.yaml with extra noise settings appended.
func noisyNLU(s *spec.Suite, noise string) *spec.NLU {
	data, err := os.ReadFile("../scenarios/soni/nlu.yaml")
	Expect(err).NotTo(HaveOccurred())
	n, err := spec.LoadNLU("nlu.yaml", append(data, []byte(noise)...), s.Machine)
	Expect(err).NotTo(HaveOccurred())
	return n
}

func parseAll(nlu sim.NLU, texts []string) []engine.Event {
	out := make([]engine.Event, len(texts))
	for i, t := range texts {
		Expect(nlu.Parse(t, 0, &out[i])).To(Succeed())
	}
	return out
}

var _ = Describe("the NLU noise model", func() {
	var s *spec.Suite
	var stub *sim.Stub
	var texts []string

	BeforeEach(func() {
		s = load("../scenarios/soni")
		stub = sim.NewStub(s.NLU, s.Machine)
		texts = utterances(s)
	})

	It("changes nothing at rate 0", func() {
		z := sim.NewNoisy(stub, stub, s.NLU, s.Machine, 0)
		Expect(parseAll(z, texts)).To(Equal(parseAll(stub, texts)))
	})

	It("is a function of the seed: the same seed gives the same errors, another seed others", func() {
		run := func(seed uint64) []engine.Event {
			z := sim.NewNoisy(stub, stub, s.NLU, s.Machine, 0.3)
			z.Reset(seed)
			return parseAll(z, texts)
		}
		Expect(run(7)).To(Equal(run(7)))
		Expect(run(7)).NotTo(Equal(run(8)))
		Expect(run(7)).NotTo(Equal(parseAll(stub, texts)))
	})

	It("confuses an intent as the suite's confusion matrix says", func() {
		n := noisyNLU(s, "noise:\n  text: 0\n  confusion:\n    book_flight: {inform: 3, cancel: 1}\n")
		z := sim.NewNoisy(stub, stub, n, s.Machine, 1)
		counts := map[string]int{}
		for i := 0; i < 4000; i++ {
			var ev engine.Event
			Expect(z.Parse("I want to book a flight", 0, &ev)).To(Succeed())
			counts[s.Machine.Intents()[ev.Intent]]++
		}
		Expect(counts).To(HaveLen(2))
		Expect(counts["inform"]).To(BeNumerically("~", 3000, 150))
		Expect(counts["cancel"]).To(BeNumerically("~", 1000, 150))
	})

	It("confuses an intent with any other, uniformly, without a matrix, and with the intent's own chance", func() {
		n := noisyNLU(s, "noise: {text: 0, intent: 0.5, confidence: 0, entities: 0}\n")
		z := sim.NewNoisy(stub, stub, n, s.Machine, 0.4)
		var clean engine.Event
		Expect(stub.Parse("yes", 0, &clean)).To(Succeed())
		wrong := 0
		seen := map[engine.IntentID]bool{}
		for i := 0; i < 5000; i++ {
			var ev engine.Event
			Expect(z.Parse("yes", 0, &ev)).To(Succeed())
			Expect(ev.Confidence).To(Equal(clean.Confidence), "confidence: 0 turns jitter off")
			if ev.Intent != clean.Intent {
				wrong++
				seen[ev.Intent] = true
			}
		}
		Expect(float64(wrong) / 5000).To(BeNumerically("~", 0.2, 0.02))
		Expect(seen).To(HaveLen(len(s.Machine.Intents()) - 1))
	})

	It("jitters the confidence within [0,1] by at most the rate", func() {
		n := noisyNLU(s, "noise: {text: 0, intent: 0, entities: 0}\n")
		z := sim.NewNoisy(stub, stub, n, s.Machine, 0.2)
		for i := 0; i < 1000; i++ {
			var ev engine.Event
			Expect(z.Parse("yes", 0, &ev)).To(Succeed())
			Expect(ev.Confidence).To(BeNumerically("<=", 1))
			Expect(ev.Confidence).To(BeNumerically(">=", 0.95-0.2))
		}
	})

	It("drops entities or gives them wrong values, and event.value follows", func() {
		n := noisyNLU(s, "noise: {text: 0, intent: 0, confidence: 0}\n")
		z := sim.NewNoisy(stub, stub, n, s.Machine, 1)
		const text = "Actually, change the origin to Boston"
		dropped, wrong := 0, 0
		for i := 0; i < 400; i++ {
			var ev engine.Event
			Expect(z.Parse(text, 0, &ev)).To(Succeed())
			Expect(z.Changed).To(BeTrue())
			switch ev.NEnt {
			case 0:
				dropped++
				Expect(ev.Value).To(BeEmpty())
			case 1:
				wrong++
				Expect(ev.Entities[0].Value.String()).NotTo(Equal("Boston"))
				Expect(ev.Value).To(Equal(ev.Entities[0].Value.String()))
			}
		}
		Expect(dropped).To(BeNumerically(">", 100))
		Expect(wrong).To(BeNumerically(">", 100))
	})

	It("perturbs the text before the stub parses it, and not before a cassette", Label("race"), func() {
		n := noisyNLU(s, "noise: {intent: 0, confidence: 0, entities: 0}\n")
		z := sim.NewNoisy(stub, stub, n, s.Machine, 1)
		var ev engine.Event
		Expect(z.Parse("I want to book a flight", 0, &ev)).To(Succeed())
		Expect(ev.Text).NotTo(Equal("I want to book a flight"))
		Expect(z.Changed).To(BeTrue())

		c := recordFromStub(s)
		replay := sim.NewReplay(c, s.NLU, s.Machine)
		z = sim.NewNoisy(replay, stub, n, s.Machine, 1)
		idle, _ := s.Machine.StateID("idle")
		Expect(z.Parse("I want to book a flight", idle, &ev)).To(Succeed())
		Expect(ev.Text).To(Equal("I want to book a flight"))
	})
})

var _ = Describe("nlu.yaml noise", func() {
	It("rejects an intent the machine does not declare, and an intent confused with itself", func() {
		s := load("../scenarios/soni")
		_, err := spec.LoadNLU("nlu.yaml", []byte("noise:\n  confusion:\n    book: {inform: 1}\n"), s.Machine)
		Expect(err).To(MatchError(ContainSubstring(`nlu.yaml:3:5: noise: confusion: unknown intent "book"`)))
		_, err = spec.LoadNLU("nlu.yaml", []byte("noise:\n  confusion:\n    inform: {inform: 1}\n"), s.Machine)
		Expect(err).To(MatchError("nlu.yaml:3:14: noise: confusion: inform cannot be confused with itself"))
		_, err = spec.LoadNLU("nlu.yaml", []byte("noise: {text: -1}\n"), s.Machine)
		Expect(err).To(MatchError("nlu.yaml:1:15: expected a number 0 or more, got -1"))
	})
})
