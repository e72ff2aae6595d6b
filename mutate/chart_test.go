package mutate_test

import (
	"path/filepath"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/mutate"
)

// The tally (testdata/tally) is an SCXML chart whose <data> and document
// <script> run as the machine starts (engine.Definition.StartActions).
const tally = "testdata/tally"

var _ = Describe("a chart's start actions", func() {
	It("are mutated as actions, each at its <data> or <script> in machine.scxml, the bare declarations left alone", func() {
		ms := mutate.Enumerate(load(tally).Def, 1)
		var start []string
		for _, m := range ms {
			Expect(m.Pos.File).To(Equal(filepath.Join(tally, "machine.scxml")))
			if m.Op == mutate.DropAction && m.Pos.Line < 12 {
				start = append(start, m.Pos.String()+" "+m.Desc)
			}
		}
		Expect(start).To(Equal([]string{
			"testdata/tally/machine.scxml:8:5 machine start: action script n = (0); dropped",
			`testdata/tally/machine.scxml:9:5 machine start: action script unit = JSON.parse("{\"name\": \"cup\"... dropped`,
			"testdata/tally/machine.scxml:11:3 machine start: action script var limit = 2; dropped",
		}))
	})

	It("are judged as any mutant: dropping a value the chart reads is killed, one it never reads survives", func() {
		s := load(tally)
		status := map[string]mutate.Status{}
		for _, r := range judgeAll(s, opts) {
			status[r.Mutant.Desc] = r.Status
		}
		Expect(status).To(HaveKeyWithValue("machine start: action script n = (0); dropped", mutate.Killed))
		Expect(status).To(HaveKeyWithValue("machine start: action script var limit = 2; dropped", mutate.Killed))
		Expect(status).To(HaveKeyWithValue(`machine start: action script unit = JSON.parse("{\"name\": \"cup\"... dropped`, mutate.Survived))
	})

	It("are none on a YAML machine, which compiles nothing into them", func() {
		for _, dir := range []string{lamp, "testdata/door", "testdata/switchboard"} {
			Expect(load(dir).Def.StartActions).To(BeEmpty(), dir)
		}
	})
})

var _ = Describe("a chart's mutants on several goroutines", func() {
	// Each mutant's machine compiles into a data model of its own, so
	// judging mutants at once races on nothing (run under -race) and gives
	// the verdicts of one goroutine.
	It("get the verdicts they get one at a time", func() {
		s := load(filepath.Join("..", "docs", "examples", "research"))
		// Small searches: a mutant that keeps adding to findings has no
		// complete one, and a chart's heap is searched slowly.
		o := opts
		o.MaxStates, o.EquivStates = 2_000, 2_000
		want := judgeAll(s, o)
		r := mutate.NewRunner(s, o)
		ms := mutate.Enumerate(s.Def, o.Seed)
		got := make([]mutate.Result, len(ms))
		var wg sync.WaitGroup
		next := make(chan int)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					got[i] = r.Judge(ms[i])
				}
			}()
		}
		for i := range ms {
			next <- i
		}
		close(next)
		wg.Wait()
		Expect(got).To(HaveLen(len(want)))
		for i := range want {
			Expect(got[i].Status).To(Equal(want[i].Status), "mutant %d: %s", i, ms[i].Desc)
			Expect(got[i].Source).To(Equal(want[i].Source), "mutant %d: %s", i, ms[i].Desc)
			Expect(got[i].Detail).To(Equal(want[i].Detail), "mutant %d: %s", i, ms[i].Desc)
		}
	})
})
