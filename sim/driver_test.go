package sim_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

func load(dir string) *spec.Suite {
	s, err := spec.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	return s
}

func scenario(s *spec.Suite, name string) *spec.Scenario {
	for _, sc := range s.Scenarios {
		if sc.Name == name {
			return sc
		}
	}
	Fail("no scenario " + name)
	return nil
}

// traceText renders a result's trace, one transition a line.
func traceText(r *sim.ScenarioResult) string {
	var b strings.Builder
	for _, l := range r.Trace {
		fmt.Fprintf(&b, "%d %d %s -%s-> %s {%s}\n", l.Turn, l.Branch, l.From, l.Trigger, l.To, l.Actions)
	}
	return b.String()
}

var _ = Describe("the stub NLU", func() {
	var stub *sim.Stub
	var m *engine.Machine

	BeforeEach(func() {
		s := load("../scenarios/soni")
		m = s.Machine
		stub = sim.NewStub(s.NLU, m)
	})

	type parseCase struct {
		text, intent, value string
	}

	DescribeTable("applies exact phrases, keywords, patterns, entities and the fallback",
		func(c parseCase) {
			var ev engine.Event
			Expect(stub.Parse(c.text, 0, &ev)).To(Succeed())
			got := "none"
			if ev.Intent != engine.NoID {
				got = m.Intents()[ev.Intent]
			}
			Expect(got).To(Equal(c.intent))
			Expect(ev.Value).To(Equal(c.value))
		},
		Entry("an exact phrase, any case", parseCase{"YES", "affirm", ""}),
		Entry("an exact phrase, trimmed", parseCase{" Nope ", "deny", ""}),
		Entry("an exact phrase with a letter outside ASCII, any case", parseCase{"SÍ", "affirm", ""}),
		Entry("text as long as an exact phrase but not one", parseCase{"Lyon", "inform", "Lyon"}),
		Entry("an exact phrase of eight bytes, any case", parseCase{"CorrectO", "affirm", ""}),
		Entry("eight bytes that differ from an exact phrase in the last", parseCase{"correctx", "inform", "correctx"}),
		Entry("a pattern", parseCase{"I want to book a flight", "book_flight", ""}),
		Entry("a keyword, whole words only", parseCase{"quiero reservar un vuelo", "reservar_vuelo", ""}),
		Entry("a keyword inside a word does not match", parseCase{"cancellation policy", "inform", "cancellation policy"}),
		Entry("a pattern entity", parseCase{"Actually, change the origin to Boston", "correct", "Boston"}),
		Entry("a synonym normalised to its value", parseCase{"from Madrid please", "inform", "MAD"}),
		Entry("the fallback with the whole text", parseCase{"  New York ", "inform", "New York"}),
	)

	It("matches exact phrases longer than eight bytes in any case, and only them", func() {
		s := load("../scenarios/bench-soni")
		stub := sim.NewStub(s.NLU, s.Machine)
		book, _ := s.Machine.IntentID("book_flight")
		inform, _ := s.Machine.IntentID("inform")
		for text, want := range map[string]engine.IntentID{
			"book a flight": book, "BOOK A FLIGHT": book, "Book a flighT": book,
			"book a flighx": inform, "xook a flight": inform, "book a flight!": inform, "book a flïght": inform,
		} {
			var ev engine.Event
			Expect(stub.Parse(text, 0, &ev)).To(Succeed())
			Expect(ev.Intent).To(Equal(want), text)
		}
	})

	It("finds exact phrases of every length as strings.ToLower and a lookup would, and nothing else", func() {
		// Phrases of 0 to 24 bytes, some outside ASCII, some that text
		// outside ASCII lower-cases to (the Kelvin sign is a k, İ an i).
		phrases := []string{"", "a", "No", "yes", "ok", "Kit", "four", "Skip!", "cancel", "si", "sí", "Straße",
			"tomorrow", "exactly9", "ninebytes", "book a flight", "fifteen bytes!!", "sixteen bytes !!",
			"seventeen bytes!!", "a phrase of 24 bytes ok."}
		var y strings.Builder
		y.WriteString("intents:\n")
		want := map[string]int{}
		for i, p := range phrases {
			fmt.Fprintf(&y, "  i%d: {exact: [%q]}\n", i, p)
			if _, dup := want[strings.ToLower(p)]; !dup {
				want[strings.ToLower(p)] = i
			}
		}
		intents := make([]string, len(phrases))
		for i := range phrases {
			intents[i] = fmt.Sprintf("i%d", i)
		}
		ms, err := spec.LoadMachine("m.yaml", []byte("machine: m\ninitial: s\nintents: ["+strings.Join(intents, ", ")+"]\nstates:\n  s: {}\n"))
		Expect(err).NotTo(HaveOccurred())
		n, err := spec.LoadNLU("nlu.yaml", []byte(y.String()), ms.Machine)
		Expect(err).NotTo(HaveOccurred())
		stub := sim.NewStub(n, ms.Machine)
		rnd := rand.New(rand.NewPCG(20261127, 1))
		alphabet := []rune("aAbBkKiIoOsS ß!.KİíÍé")
		var texts []string
		for _, p := range phrases {
			r := []rune(p)
			for k := 0; k < 20; k++ {
				t := slices.Clone(r)
				for j := range t {
					switch rnd.IntN(4) {
					case 0:
						t[j] = unicode.ToUpper(t[j])
					case 1:
						if t[j] == 'k' {
							t[j] = '\u212a'
						} else if t[j] == 'i' {
							t[j] = '\u0130'
						}
					}
				}
				switch rnd.IntN(4) {
				case 0:
					t = append(t, alphabet[rnd.IntN(len(alphabet))])
				case 1:
					if len(t) > 0 {
						t[rnd.IntN(len(t))] = alphabet[rnd.IntN(len(alphabet))]
					}
				}
				texts = append(texts, string(t))
			}
		}
		for k := 0; k < 2000; k++ {
			t := make([]rune, rnd.IntN(20))
			for j := range t {
				t[j] = alphabet[rnd.IntN(len(alphabet))]
			}
			texts = append(texts, string(t))
		}
		matched := 0
		for _, text := range texts {
			var ev engine.Event
			Expect(stub.Parse(text, 0, &ev)).To(Succeed())
			w, ok := want[strings.ToLower(strings.TrimSpace(text))]
			if !ok {
				Expect(ev.Intent).To(Equal(engine.IntentID(engine.NoID)), "%q", text)
				continue
			}
			matched++
			Expect(ev.Intent).To(Equal(engine.IntentID(w)), "%q", text)
		}
		Expect(matched).To(BeNumerically(">", 200))
	})

	It("fills an event that held another parse, or anything else, as it fills a fresh one", func() {
		texts := []string{"from Madrid please", "Actually, change the origin to Boston", "YES", "  New York ", "cancellation policy"}
		withEntities := 0
		for _, held := range texts {
			for _, text := range texts {
				var reused, fresh engine.Event
				Expect(stub.Parse(held, 0, &reused)).To(Succeed())
				if reused.NEnt > 0 {
					withEntities++
				}
				reused.Kind, reused.Timer, reused.Ext, reused.Branch, reused.At = engine.TimerEvent, 3, 2, 1, 7
				reused.Payload, reused.Source, reused.Done = 9, engine.SourceSend, 4
				Expect(stub.Parse(text, 0, &reused)).To(Succeed())
				Expect(stub.Parse(text, 0, &fresh)).To(Succeed())
				Expect(reused == fresh).To(BeTrue(), "%q after %q", text, held)
			}
		}
		Expect(withEntities).To(BeNumerically(">", 0))
		// Every field left over, those added after this spec included.
		for _, text := range texts {
			var reused, fresh engine.Event
			et.FillLeftover(&reused)
			Expect(stub.Parse(text, 0, &reused)).To(Succeed())
			Expect(stub.Parse(text, 0, &fresh)).To(Succeed())
			Expect(reused).To(Equal(fresh), "%q", text)
		}
	})

	It("says which texts carry intent markers", func() {
		Expect(stub.HasMarker("Actually, Boston")).To(BeTrue())
		Expect(stub.HasMarker("Boston")).To(BeFalse())
	})

	It("normalises text given for a slot through its entity", func() {
		origin, _ := m.SlotID("origin")
		Expect(stub.Normalize(origin, " madrid ")).To(Equal("MAD"))
		Expect(stub.Normalize(origin, "Lyon")).To(Equal("Lyon"))
	})
})

var _ = Describe("the driver", func() {
	It("maps plain answers straight into the waiting slot and calls the NLU otherwise", func() {
		s := load("../scenarios/soni")
		stub := sim.NewStub(s.NLU, s.Machine)
		d := sim.NewDriver(s.Machine, stub, stub)
		Expect(d.Start(0)).To(Succeed())
		for _, u := range []string{"I want to book a flight", "New York", "Actually, change the origin to Boston", "Los Angeles"} {
			Expect(d.User(u)).To(Succeed())
		}
		Expect(d.NLUCalls).To(Equal(2))
		Expect(d.NLUSkipped).To(Equal(2))
	})

	It("keeps each turn's path of targets when asked to, and counts the transitions either way", func() {
		s := load("../scenarios/bench-soni")
		stub := sim.NewStub(s.NLU, s.Machine)
		for _, keep := range []bool{false, true} {
			d := sim.NewDriver(s.Machine, stub, stub)
			d.KeepPath = keep
			Expect(d.Start(0)).To(Succeed())
			var path []string
			for _, u := range []string{"book a flight", "Madrid", "Barcelona", "tomorrow", "yes"} {
				Expect(d.User(u)).To(Succeed())
				for _, st := range d.Info.Path {
					path = append(path, s.Machine.StateName(st))
				}
			}
			Expect(d.Transitions).To(Equal(11))
			if !keep {
				Expect(path).To(BeEmpty())
				continue
			}
			// WORKLOAD.md's happy trace.
			Expect(strings.Join(path, " ")).To(Equal("understanding waiting_for_slot validating_slot waiting_for_slot " +
				"validating_slot waiting_for_slot validating_slot confirming executing_action completed idle"))
		}
	})

	It("fires a timeout exactly at its deadline, and each retry after another full period", func() {
		s := load("testdata/timeout")
		r := sim.RunScenario(s, scenario(s, "retries"), sim.Options{})
		Expect(r.Failures).To(BeEmpty())
		Expect(r.Status).To(Equal(sim.Pass))
	})

	It("stops a turn of regions whose results keep invoking actions with an error, not a hang", func() {
		s, err := spec.LoadMachine("loop.yaml", []byte(`machine: loop
initial: idle
intents: [go]
actions:
  poll: {never_fails: true}
states:
  idle:
    waits: true
    on: {go: f}
  f:
    fork: {branches: 2, join: [idle]}
    initial: a
    states:
      a:
        entry: [{invoke: poll}]
        on: {done:poll: [a]}
`))
		Expect(err).NotTo(HaveOccurred())
		d := sim.NewDriver(s.Machine, sim.NewStub(nil, s.Machine), nil)
		Expect(d.Start(0)).To(Succeed())
		Expect(d.User("go")).To(MatchError(ContainSubstring("regions awaited more than 10000 results in one turn")))
	})
})

var _ = Describe("forks in scenarios", func() {
	var s *spec.Suite

	BeforeEach(func() {
		s = load("testdata/fork")
	})

	It("merges the same contracts whatever order the regions' results arrive in", func() {
		sc := scenario(s, "three")
		orders := [][]int{{0, 1, 2}, {2, 1, 0}, {1, 0, 2}, {0, 0, 0, 1, 1, 1, 2, 2, 2}, {2, 0, 1, 2, 0, 1, 2, 0, 1}}
		var finals []string
		for _, o := range orders {
			sc.Turns[0].Schedule = o
			r := sim.RunScenario(s, sc, sim.Options{Trace: true})
			Expect(r.Status).To(Equal(sim.Pass), "schedule %v: %v", o, r.Failures)
			finals = append(finals, r.FinalState)
		}
		sc.Turns[0].Schedule = nil
		Expect(finals).To(HaveEach(Equal("idle")))
	})

	It("is deterministic for a seed and delivers the results in other orders for other seeds", func() {
		sc := scenario(s, "three")
		a := traceText(sim.RunScenario(s, sc, sim.Options{Trace: true, Seed: 1}))
		Expect(traceText(sim.RunScenario(s, sc, sim.Options{Trace: true, Seed: 1}))).To(Equal(a))
		distinct := map[string]bool{a: true}
		for seed := int64(2); seed < 12; seed++ {
			distinct[traceText(sim.RunScenario(s, sc, sim.Options{Trace: true, Seed: seed}))] = true
		}
		Expect(len(distinct)).To(BeNumerically(">", 1))
	})
})

var _ = Describe("scenario verdicts", func() {
	It("passes a scenario whose listed violations happen, and names them", func() {
		s := load("../scenarios/soni")
		r := sim.RunScenario(s, scenario(s, "complete_flight_booking"), sim.Options{})
		Expect(r.Status).To(Equal(sim.Known))
		Expect(r.Known).To(Equal([]string{"soni_001_valid_transitions: waiting_for_slot -> validating_slot"}))
	})

	It("fails a scenario when a listed violation does not happen", func() {
		s := load("../scenarios/soni")
		sc := *scenario(s, "cancel_while_collecting")
		sc.KnownViolations = spec.KnownList{{Invariant: spec.Str{Value: "soni_003_transition_matrix"}}}
		r := sim.RunScenario(s, &sc, sim.Options{})
		Expect(r.Status).To(Equal(sim.Fail))
		Expect(r.Failures[0].What).To(ContainSubstring("known violation soni_003_transition_matrix did not happen"))
	})
})
