package spec_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

var _ = Describe("an SCXML suite", func() {
	It("loads as any suite: the chart compiled onto the engine, one variant, positions in machine.scxml", func() {
		s, err := spec.Load("../docs/examples/research")
		Expect(err).NotTo(HaveOccurred())
		file := filepath.Join("..", "docs", "examples", "research", "machine.scxml")
		Expect(s.Name).To(Equal("research"))
		Expect(s.Def).NotTo(BeNil())
		Expect(s.Def.DataModel).NotTo(BeNil())
		Expect(s.Variants).To(HaveLen(1))
		Expect(s.Machine).To(BeIdenticalTo(s.Variants[0].Machine))
		Expect(s.Machine.NewData("x")).NotTo(BeNil(), "an ECMAScript heap per conversation")
		Expect(s.Users).NotTo(BeNil())
		Expect(s.Scenarios).To(HaveLen(3))
		id, ok := s.Machine.StateID("docs_searching")
		Expect(ok).To(BeTrue())
		Expect(s.Machine.StateName(id)).To(Equal("research.docs.docs_searching"))
		Expect(s.Machine.StatePos(id)).To(Equal(engine.Pos{File: file, Line: 33, Col: 7}))
		t := s.Machine.Transition(0)
		Expect(t.Pos.File).To(Equal(file))
	})

	It("maps a chart scenario onto the one scenario type: events by name with data, configuration, active, done", func() {
		s, err := spec.Load("../docs/examples/research")
		Expect(err).NotTo(HaveOccurred())
		sc := s.Scenarios[0]
		Expect(sc.Name).To(Equal("both_branches"))
		first := sc.Turns[0]
		Expect(first.Event.Intent.Value).To(Equal("ask"))
		Expect(first.Event.EventData()).To(Equal(`{"q":"what is SCXML?"}`))
		Expect(first.Expect.Configuration).NotTo(BeNil())
		Expect(first.Expect.Active).To(HaveLen(1))
		last := sc.Turns[len(sc.Turns)-1]
		Expect(last.Expect.Done).To(HaveValue(BeTrue()))
	})

	It("reads a number or a boolean in data as one, anything else as text", func() {
		e := spec.EventSpec{Data: spec.Entries[spec.Str]{
			{Key: "n", Value: spec.Str{Value: "3"}}, {Key: "b", Value: spec.Str{Value: "true"}},
			{Key: "t", Value: spec.Str{Value: "Lisbon"}}, {Key: "hex", Value: spec.Str{Value: "0x10"}}}}
		Expect(e.EventData()).To(Equal(`{"n":3,"b":true,"t":"Lisbon","hex":"0x10"}`))
	})

	It("names a state by its SCXML id where that is no engine name (asking-city)", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "machine.scxml"), []byte(`<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="null">
  <state id="asking-city"><transition event="go" target="done.here"/></state>
  <final id="done.here"/>
</scxml>
`), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "go.scenario.yaml"), []byte(
			"turns:\n  - event: {name: go}\n    expect: {configuration: [done.here], done: true}\n"), 0o644)).To(Succeed())
		s, err := spec.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		name := (*s.Scenarios[0].Turns[0].Expect.Configuration)[0].Value
		id, ok := s.Machine.StateID(name)
		Expect(ok).To(BeTrue(), name)
		Expect(s.Machine.StatePos(id).Line).To(Equal(3))
	})
})
