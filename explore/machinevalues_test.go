package explore_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/spec"
)

// agendaMachine is thea's agenda entry in small: the delegated request
// decides at once by the entities the NLU found in it.
const agendaMachine = `machine: agenda
intents: [agenda, plan]
initial: idle
states:
  idle:
    waits: true
    on:
      agenda: date_time
      plan:
        - guard: event.text == "premium"
          target: done
  date_time:
    always:
      - guard: event.entities.fecha != "" and event.entities.hora != ""
        target: confirm
      - guard: event.entities.fecha != ""
        target: need_time
      - target: need_date
  confirm: {final: true}
  need_time: {final: true}
  need_date: {final: true}
  done: {final: true}
`

// The NLU knows "agendar" and the entities; it has no fallback, so a text
// with no rule ("premium") is no user act at all.
const agendaNLU = `intents:
  agenda: {keywords: [agendar]}
  plan: {exact: [plan it]}
entities:
  fecha:
    values:
      mañana: []
  hora:
    pattern: '\ba las ([0-9]{1,2})\b'
`

// The only scenario says neither a date nor a time.
const agendaScenario = `name: bare
turns:
  - user: quiero agendar
    expect: {state: need_date}
`

var _ = Describe("the alphabet from the machine", func() {
	var s *spec.Suite
	BeforeEach(func() {
		dir := GinkgoT().TempDir()
		for name, text := range map[string]string{spec.MachineFile: agendaMachine, spec.NLUFile: agendaNLU, "bare" + spec.ScenarioSuffix: agendaScenario} {
			Expect(os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)).To(Succeed())
		}
		s = load(dir)
	})

	It("adds the NLU's entities to its intents, so the search takes a branch no scenario says", func() {
		res := search(s, explore.Options{Depth: 4})
		Expect(res.Complete).To(BeTrue())
		m := res.Machine()
		cov := eval.NewCoverage(m)
		for _, f := range emit(res) {
			r := replay(res, f, cov)
			Expect(r.Failures).To(BeEmpty())
		}
		// One entity at a time: "agendar mañana" takes need_time; both
		// entities together are left to the scenarios.
		Expect(taken(m, cov)).To(ContainElement(ContainSubstring("date_time --always--> need_time")))
		Expect(taken(m, cov)).NotTo(ContainElement(ContainSubstring("date_time --always--> confirm")))
	})

	It("qualifies complete by the guards no value of its alphabet makes true", func() {
		res := search(s, explore.Options{Depth: 4})
		Expect(res.Complete).To(BeTrue())
		var unreached []string
		for _, t := range res.GuardsUnreached() {
			unreached = append(unreached, res.Machine().Transition(t).Guard)
		}
		Expect(unreached).To(Equal([]string{`event.text == "premium"`}))
		Expect(res.AlphabetLacks(engine.TransID(res.GuardsUnreached()[0]))).To(Equal([]string{"premium"}))
	})
})
