package explore_test

import (
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/explore"
)

var _ = Describe("a counter without bound", func() {
	// testdata/counting counts hellos for ever; its one guard on the count
	// compares it with 2, and a fork branch there waits for nothing.
	It("is saturated, so the search is complete and finds the branch stuck behind the escapes", func() {
		res := search(load("testdata/counting"), explore.Options{Depth: 8})
		Expect(res.Complete).To(BeTrue())
		Expect(res.Values).To(ContainSubstring("counters saturated (larger values read alike): hellos from 3"))
		Expect(kinds(res)).To(Equal([]string{explore.Stuck}))
		f := finding(res, explore.Stuck)
		Expect(res.PathLen(f.Node)).To(Equal(1))
		Expect(f.Violation.State).To(Equal("looking"))
		Expect(emit(res)).To(HaveKey("explore-counting-default-" + explore.Stuck))
	})

	It("stays exact where a reply says the count, and the search then decides nothing at its bound", func() {
		text, err := os.ReadFile("testdata/counting/machine.yaml")
		Expect(err).NotTo(HaveOccurred())
		yaml := strings.Replace(string(text), `{say: "Still looking."}`, `{say: "Still looking ({hellos} hellos)."}`, 1)
		res := search(suiteOf(yaml), explore.Options{Depth: 8})
		Expect(res.Values).NotTo(ContainSubstring("saturated"))
		Expect(res.Complete).To(BeFalse())
		Expect(kinds(res)).To(BeEmpty())
	})
})

var _ = Describe("a search the state cap stops", func() {
	// go leads into ping and pong, which only lead to each other (a
	// livelock two events deep); count says the count, so the other side
	// of the machine never ends and the cap stops the search.
	const yaml = `
machine: capped
initial: idle
intents: [go, next, count]
counters:
  n: {}
states:
  idle:
    waits: true
    on:
      go: ping
      count: {actions: [{incr: n}, {say: "{n}"}]}
  ping:
    waits: true
    on: {next: pong}
  pong:
    waits: true
    on: {next: ping}
`
	It("still finds a livelock whose every configuration it expanded", func() {
		res := search(suiteOf(yaml), explore.Options{Depth: 100, MaxStates: 20})
		Expect(res.Stopped).NotTo(BeEmpty())
		Expect(res.Complete).To(BeFalse())
		f := finding(res, eval.Livelock)
		Expect(f).NotTo(BeNil(), "got %v", kinds(res))
		Expect(res.PathLen(f.Node)).To(Equal(1))
	})

	It("concludes nothing of configurations it did not expand", func() {
		// Cut before pong is expanded: ping may yet lead somewhere.
		res := search(suiteOf(yaml), explore.Options{Depth: 100, MaxStates: 3})
		Expect(res.Stopped).NotTo(BeEmpty())
		Expect(kinds(res)).To(BeEmpty())
	})
})
