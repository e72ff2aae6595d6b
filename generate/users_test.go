package generate_test

import (
	"os"
	"path/filepath"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// replayFile writes a failure's scenario where it says it was written and
// plays it as simctl replay does, returning the findings it makes.
func replayFile(dir string, f generate.Failure) []string {
	GinkgoHelper()
	file := filepath.Join(dir, f.Name+".scenario.yaml")
	Expect(os.WriteFile(file, f.Scenario, 0o644)).To(Succeed())
	rs, sc, err := spec.LoadScenarioFile(file)
	Expect(err).NotTo(HaveOccurred())
	var v *spec.Variant
	for _, x := range rs.Variants {
		if x.Name == f.Variant {
			v = x
		}
	}
	r := sim.RunScenario(rs, sc, sim.Options{Variant: v})
	var keys []string
	for i := range r.Violations {
		keys = append(keys, r.Violations[i].Key())
	}
	return keys
}

type correctBot struct {
	dir string
}

var _ = Describe("goal-directed simulated users", func() {
	DescribeTable("reach their goal on a correct bot, with no finding and no false liveness",
		func(b correctBot) {
			s := load(b.dir)
			for seed := int64(1); seed <= 3; seed++ {
				met, fails, err := generate.Run(s, s.Variants[0], generate.Options{Seed: seed, From: 0, To: 500})
				Expect(err).NotTo(HaveOccurred())
				Expect(fails).To(BeEmpty(), "seed %d", seed)
				Expect(met.Cooperative).To(BeNumerically(">", 100))
				Expect(float64(met.CooperativeSuccesses)).To(BeNumerically(">=", 0.95*float64(met.Cooperative)), "seed %d", seed)
			}
		},
		Entry("a pizza bot with a list of toppings, derived users (they say that's all)", correctBot{"testdata/pizzalist"}),
		Entry("the same bot, users.yaml lists: three toppings", correctBot{"testdata/pizzalist-users"}),
		Entry("a coffee bot as docs/first-suite.md builds one (a confirmation that takes corrections)", correctBot{"testdata/coffee"}),
		Entry("a money transfer confirmed with yes or corrected with the value", correctBot{"testdata/transfer"}),
		Entry("a transfer whose confirmation is a slot of the flow, as Rasa imports write it (answered yes, not with a name)", correctBot{"testdata/rasatransfer"}),
		Entry("a checkout of two parallel regions (docs/examples/checkout)", correctBot{"../docs/examples/checkout"}),
		Entry("an SCXML chart: the research fork of docs/examples/research, its users.yaml", correctBot{"../docs/examples/research"}),
		Entry("an SCXML form of two regions that help leaves and back restarts, cancel ending in a final state (users head for booked, not round help)", correctBot{"testdata/helpform"}),
		Entry("a ticket bot whose every state has a catch-all, as Dialogflow CX imports write them (yes is said, not the no-match)", correctBot{"testdata/catchall"}),
		Entry("a counter that asks anything else after each item (yes once, then no), then thanks the user, whom a greeting takes home", correctBot{"testdata/anythingelse"}),
		Entry("a ticket bot as a Dialogflow CX import writes it: goals from the start page (the initial state's parent), a shared phrase routed by a text test (no menu), a no-match that leaves it to that route", correctBot{"testdata/dfscope"}),
		Entry("a plan slot with no validator, whose guard names the plans it takes (derived users answer with one: the alphabet from the machine)", correctBot{"testdata/plans"}),
		Entry("a wizard of pages with a back move and no slots (users head for the end: never back where they have been)", correctBot{"testdata/wizard"}),
	)

	It("answer an SCXML form's regions, never straying into help: a final state only cancel reaches is no end they head for", func() {
		s := load("testdata/helpform")
		mo, err := generate.NewModel(s, s.Machine)
		Expect(err).NotTo(HaveOccurred())
		p := generate.NewPlayer(mo, sim.NewStub(s.NLU, s.Machine))
		p.Record = true
		out := p.Play(generate.Conversation{Persona: generate.Cooperative, Acts: make([]generate.Act, 6)}, 1)
		var said []string
		for _, t := range out.Recorded {
			said = append(said, t.User)
		}
		Expect(said).NotTo(ContainElement("help"))
		Expect(said).To(ContainElements("book", "inform.city", "inform.date", "affirm"))
		Expect(out.Success).To(BeTrue())
	})

	It("answer a confirmation whose summary differs from what they want with a correction carrying the value, then yes", func() {
		s := load("testdata/coffee")
		mo, err := generate.NewModel(s, s.Machine)
		Expect(err).NotTo(HaveOccurred())
		p := generate.NewPlayer(mo, sim.NewStub(s.NLU, s.Machine))
		p.Record = true
		acts := []generate.Act{{}, {}, {}, {Kind: generate.Correct}, {}, {}}
		out := p.Play(generate.Conversation{Persona: generate.Correcting, Acts: acts}, 1)
		var said []string
		for _, t := range out.Recorded {
			said = append(said, t.User)
		}
		// The user changes its mind about the drink at the confirmation,
		// corrects it with the value, and confirms the new summary.
		Expect(said).To(Equal([]string{"coffee", "espresso", "large", "actually, change the drink to latte", "yes"}))
		Expect(out.Success).To(BeTrue())
	})
})

func must(b []byte, err error) []byte {
	Expect(err).NotTo(HaveOccurred())
	return b
}

var _ = Describe("turns past completion", func() {
	It("let a timer left running fall due, found within 500 conversations and shrunk", func() {
		s := load("testdata/clinic")
		dir := GinkgoT().TempDir()
		_, fails, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 500, FailuresDir: dir})
		Expect(err).NotTo(HaveOccurred())
		Expect(fails).To(HaveLen(1))
		f := fails[0]
		Expect(f.Violation.Key()).To(Equal("leaked_timer: timer idle in idle"))
		// book, the day, yes, then silence past completion.
		Expect(f.ShrunkTurns).To(Equal(4))
		Expect(string(f.Scenario)).To(ContainSubstring("  # The task has ended; the user goes on.\n  - wait: 300000ms\n"))
		Expect(replayFile(dir, f)).To(ContainElement(f.Violation.Key()))
	})

	It("correct a value once the task is done, and find the planted bug in that correction, shrunk to one turn", func() {
		s := load("testdata/transferbug")
		dir := GinkgoT().TempDir()
		_, fails, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 500, FailuresDir: dir})
		Expect(err).NotTo(HaveOccurred())
		Expect(fails).To(HaveLen(1))
		f := fails[0]
		Expect(f.Violation.Key()).To(Equal("only_confirmed_transfers: in sending"))
		Expect(f.ShrunkTurns).To(Equal(1))
		Expect(string(f.Scenario)).To(ContainSubstring(`- user: "actually, change the amount to `))
		Expect(replayFile(dir, f)).To(ContainElement(f.Violation.Key()))
	})

	It("are not played with after_completion: 0", func() {
		s := suiteOf(map[string]string{
			spec.MachineFile: string(must(os.ReadFile("testdata/clinic/machine.yaml"))),
			"nlu.yaml":       string(must(os.ReadFile("testdata/clinic/nlu.yaml"))),
			"users.yaml":     "after_completion: 0\n",
		})
		_, fails, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 500})
		Expect(err).NotTo(HaveOccurred())
		Expect(fails).To(BeEmpty(), "nobody waits after the booking, so the leaked timer never falls due")
	})
})

// corpus is every suite of the package's test data and the bundled ones
// that generated conversations break something in.
var corpus = []string{"testdata/planted", "testdata/noisy", "testdata/clinic", "testdata/transferbug", "../docs/examples/booking", "../scenarios/soni", "../scenarios/thea", "../scenarios/hfsm"}

var _ = Describe("every shrunk failure of the test corpus", func() {
	It("replays to the same finding, says honestly how it was shrunk, and labels NLU noise only under noise", func() {
		sameCount := regexp.MustCompile(`shrunk from (\d+) to (\d+) turns`)
		n := 0
		for _, dir := range corpus {
			s := load(dir)
			out := GinkgoT().TempDir()
			for _, v := range s.Variants {
				_, fails, err := generate.Run(s, v, generate.Options{Seed: 1, From: 0, To: 300, FailuresDir: out})
				Expect(err).NotTo(HaveOccurred())
				for _, f := range fails {
					n++
					Expect(f.Replays).To(BeTrue(), "%s %s", dir, f.Name)
					Expect(replayFile(out, f)).To(ContainElement(f.Violation.Key()), "%s: %s", dir, f.Scenario)
					Expect(string(f.Scenario)).NotTo(ContainSubstring("NLU noise"))
					if m := sameCount.FindStringSubmatch(string(f.Scenario)); m != nil {
						Expect(m[1]).NotTo(Equal(m[2]), "nothing shrank, and the file says it did")
					}
				}
			}
		}
		Expect(n).To(BeNumerically(">", 5))
	})
})

var _ = Describe("liveness", func() {
	It("is reported once per distinct cycle", func() {
		s := suiteOf(map[string]string{spec.MachineFile: `
machine: loops
initial: idle
intents: [a, b, inform]
slots:
  x: {validator: never}
  y: {validator: never}
validators:
  never: {one_of: [zzz]}
flows:
  fa: [x]
  fb: [y]
states:
  idle:
    waits: true
    on:
      a: {target: ask_x, actions: [{push: fa}, {ask: x}]}
      b: {target: ask_y, actions: [{push: fb}, {ask: y}]}
  ask_x:
    waits: true
    direct: inform
    on:
      inform: {actions: [{say: "Again?"}]}
  ask_y:
    waits: true
    direct: inform
    on:
      inform: {actions: [{say: "Again?"}]}
`, "users.yaml": "goals:\n  - intent: a\n    slots: {x: [zzz]}\n  - intent: b\n    slots: {y: [zzz]}\nmax_turns: 8\n"})
		_, fails, err := generate.Run(s, s.Variants[0], generate.Options{Seed: 1, From: 0, To: 100})
		Expect(err).NotTo(HaveOccurred())
		var keys []string
		for _, f := range fails {
			Expect(f.Invariant).To(Equal(eval.Liveness))
			keys = append(keys, f.Violation.Key())
		}
		Expect(keys).To(ConsistOf("liveness: in {ask_x}", "liveness: in {ask_y}"))
	})
})
