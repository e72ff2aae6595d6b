package engine_test

// The short way through a step (fast.go) must be the general algorithm
// (micro.go) where it applies: these specs play the same random
// conversations on a machine and on its engine.GeneralOnly copy, in
// lockstep, and compare the Config, the Result (every exported field,
// element by element), the error and the data model's fingerprint after
// every event, on every bundled suite and on random machines.

import (
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// lockstep is one conversation played on both machines.
type lockstep struct {
	fast, gen *engine.Machine
	fc, gc    engine.Config
	fr, gr    engine.Result
	fd, gd    engine.Data
	gerr      error // the last step's
	// pending are the actions the main machine invoked whose results
	// were not handed back yet.
	pending []engine.ExtID
	// taken marks the transitions the conversations took; errs counts
	// the steps that ended a conversation with a runtime error.
	taken map[engine.TransID]bool
	errs  int
}

func (l *lockstep) start() error {
	l.fd, l.gd = l.fast.NewData("fast"), l.gen.NewData("fast")
	l.pending = l.pending[:0]
	ferr := l.fast.StartWith(&l.fc, l.fd, 0, &l.fr)
	gerr := l.gen.StartWith(&l.gc, l.gd, 0, &l.gr)
	return l.compare("start", ferr, gerr)
}

// step hands ev to both machines (each its own copy: a step may rewrite
// the event it is given) and compares what they made of it.
func (l *lockstep) step(what string, ev engine.Event) error {
	fev, gev := ev, ev
	ferr := l.fast.StepWith(&l.fc, l.fd, &fev, &l.fr)
	gerr := l.gen.StepWith(&l.gc, l.gd, &gev, &l.gr)
	l.gerr = gerr
	for _, st := range l.gr.Steps {
		if st.Trans != engine.NoID {
			l.taken[st.Trans] = true
		}
	}
	return l.compare(what, ferr, gerr)
}

func (l *lockstep) compare(what string, ferr, gerr error) error {
	if fmt.Sprint(ferr) != fmt.Sprint(gerr) {
		return fmt.Errorf("%s: got error %v, want %v", what, ferr, gerr)
	}
	if l.fc != l.gc {
		return fmt.Errorf("%s: got configuration %s, want %s\n%+v\n%+v", what, l.fast.Describe(&l.fc), l.gen.Describe(&l.gc), l.fc, l.gc)
	}
	if l.fd != nil && l.fd.Fingerprint() != l.gd.Fingerprint() {
		return fmt.Errorf("%s: the data model's data differ", what)
	}
	f, g := &l.fr, &l.gr
	if f.Handled != g.Handled || f.ReadEvent != g.ReadEvent {
		return fmt.Errorf("%s: got handled %t, read event %t; want %t, %t", what, f.Handled, f.ReadEvent, g.Handled, g.ReadEvent)
	}
	if !slices.Equal(f.Steps, g.Steps) || !slices.Equal(f.Guards, g.Guards) || !slices.Equal(f.Actions, g.Actions) ||
		!slices.Equal(f.Effects, g.Effects) || !slices.Equal(f.Joins, g.Joins) || !slices.Equal(f.Text, g.Text) {
		return fmt.Errorf("%s: got result\n%s%+v\nwant\n%s%+v", what, et.Format(l.fast, f), *f, et.Format(l.gen, g), *g)
	}
	for _, e := range g.Effects {
		if e.Kind == engine.EffInvoke && e.Branch == 0 {
			l.pending = append(l.pending, e.Ext)
		}
	}
	return nil
}

// play plays n events drawn with rnd: user events from alpha (at a
// random delay, cut short at the next timer's deadline), the timer due
// next, an action's result (done, or failed whatever its stub says) for
// the main machine or a region. A conversation that ends (a final
// configuration, an error) starts again.
func (l *lockstep) play(rnd *rand.Rand, alpha []engine.Event, n int) error {
	if err := l.start(); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if l.fc.Final && rnd.Intn(4) == 0 {
			if err := l.start(); err != nil {
				return err
			}
			continue
		}
		ev, ok := l.draw(rnd, alpha)
		if !ok {
			continue
		}
		if err := l.step(fmt.Sprintf("event %d (%+v)", i, ev), ev); err != nil {
			return err
		}
		if l.gerr != nil {
			l.errs++
			if err := l.start(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (l *lockstep) draw(rnd *rand.Rand, alpha []engine.Event) (engine.Event, bool) {
	m, c := l.gen, &l.gc
	switch k := rnd.Intn(10); {
	case k < 6 && len(alpha) > 0:
		ev := alpha[rnd.Intn(len(alpha))]
		ev.At = c.Now + int64(rnd.Intn(3))*int64(rnd.Intn(60_000))
		if t, ok := m.NextTimer(c); ok && t.Deadline < ev.At {
			ev.At = t.Deadline
		}
		return ev, true
	case k < 8:
		t, ok := m.NextTimer(c)
		if !ok {
			return engine.Event{}, false
		}
		return engine.Event{Kind: engine.TimerEvent, Timer: t.ID, At: t.Deadline, Confidence: 1, Intent: engine.NoID, Ext: engine.NoID}, true
	default:
		var opts []uint8 // 0: the main machine, i+1: region i
		if len(l.pending) > 0 {
			opts = append(opts, 0)
		}
		for i := 0; i < int(c.NBranch); i++ {
			if c.Branches[i].Pending != engine.NoID {
				opts = append(opts, uint8(i+1))
			}
		}
		if len(opts) == 0 {
			return engine.Event{}, false
		}
		br := opts[rnd.Intn(len(opts))]
		var x engine.ExtID
		if br == 0 {
			j := rnd.Intn(len(l.pending))
			x = l.pending[j]
			l.pending = append(l.pending[:j], l.pending[j+1:]...)
		} else {
			x = c.Branches[br-1].Pending
		}
		var ev engine.Event
		m.InvokeIn(c, x, br, c.Now, &ev)
		if rnd.Intn(4) == 0 {
			ev = engine.Event{Kind: engine.FailedEvent, Ext: x, Branch: br, At: c.Now, Confidence: 1, Intent: engine.NoID, Timer: engine.NoID}
		}
		return ev, true
	}
}

// suiteAlphabet is every event the suite's scenarios deliver (user turns
// through the stub NLU, event: turns as written), and every intent with
// each of a few plain values.
func suiteAlphabet(s *spec.Suite, m *engine.Machine) []engine.Event {
	var out []engine.Event
	var stub *sim.Stub
	if s.NLU != nil {
		stub = sim.NewStub(s.NLU, m)
	}
	for _, sc := range s.Scenarios {
		for _, t := range sc.Turns {
			switch {
			case t.Event != nil:
				out = append(out, sim.EventOf(m, t.Event))
			case t.User != nil && stub != nil:
				var ev engine.Event
				if stub.Parse(t.User.Value, engine.NoID, &ev) == nil {
					out = append(out, ev)
				}
			}
		}
	}
	return append(out, intentEvents(m)...)
}

func intentEvents(m *engine.Machine) []engine.Event {
	var out []engine.Event
	for i := range m.Intents() {
		for _, v := range et.RandomUserValues {
			out = append(out, engine.Event{Kind: engine.UserEvent, Intent: engine.IntentID(i), Value: v, Text: v, Confidence: 1, Timer: engine.NoID, Ext: engine.NoID})
		}
	}
	return out
}

// bundledSuites lists every suite folder of the repository holding a
// machine, and testdata/lockstep's machines, which take the general path
// where the suites do not: histories recorded and resumed outside a
// parallel state, nested final states with done data, raised events,
// error.execution, delayed sends, In() in exit actions.
func bundledSuites() []TableEntry {
	var out []TableEntry
	for _, glob := range []string{"../scenarios/*/machine.*", "../examples/*/machine.*", "../docs/examples/*/machine.*", "testdata/lockstep/*/machine.*"} {
		files, err := filepath.Glob(glob)
		if err != nil {
			panic(err)
		}
		for _, f := range files {
			out = append(out, Entry(filepath.Dir(f), filepath.Dir(f)))
		}
	}
	return out
}

var _ = Describe("the short way through a step (fast.go)", func() {
	DescribeTable("steps every bundled suite as the general algorithm does: Config, Result, errors and data byte for byte",
		func(dir string) {
			s, err := spec.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			for _, v := range s.Variants {
				l := &lockstep{fast: v.Machine, gen: engine.GeneralOnly(v.Machine), taken: map[engine.TransID]bool{}}
				alpha := suiteAlphabet(s, v.Machine)
				rnd := rand.New(rand.NewSource(20261127))
				for conv := 0; conv < 200; conv++ {
					Expect(l.play(rnd, alpha, 40)).To(Succeed(), "variant %s, conversation %d", v.Name, conv)
				}
				// Not a vacuous comparison: the conversations go places.
				GinkgoWriter.Printf("%s %s: %d of %d transitions taken, %d errors\n", dir, v.Name, len(l.taken), v.Machine.NumTransitions(), l.errs)
				Expect(3*len(l.taken)).To(BeNumerically(">=", v.Machine.NumTransitions()), "variant %s: transitions taken", v.Name)
			}
		},
		bundledSuites())

	It("steps random machines as the general algorithm does", func() {
		var errs []error
		taken, all, stepErrs := 0, 0, 0
		for seed := int64(1); seed <= 300; seed++ {
			c := et.DrawCase(lawSeed + seed)
			m, diags := engine.Build(c.Def)
			Expect(diags.Err()).NotTo(HaveOccurred())
			l := &lockstep{fast: m, gen: engine.GeneralOnly(m), taken: map[engine.TransID]bool{}}
			if err := l.play(rand.New(rand.NewSource(seed)), intentEvents(m), 60); err != nil {
				errs = append(errs, fmt.Errorf("case %d: %w\n%s", c.Seed, err, c.Explain()))
			}
			taken, all, stepErrs = taken+len(l.taken), all+m.NumTransitions(), stepErrs+l.errs
		}
		Expect(errors.Join(errs...)).NotTo(HaveOccurred())
		GinkgoWriter.Printf("random machines: %d of %d transitions taken, %d errors\n", taken, all, stepErrs)
		Expect(4 * taken).To(BeNumerically(">=", all))
	})

	It("starts the WORKLOAD machine the short way (start.go)", func() {
		s, err := spec.Load("../scenarios/bench-soni")
		Expect(err).NotTo(HaveOccurred())
		Expect(engine.QuietStart(s.Machine)).To(BeTrue())
	})

	It("takes every transition of the WORKLOAD machine the short way", func() {
		s, err := spec.Load("../scenarios/bench-soni")
		Expect(err).NotTo(HaveOccurred())
		m := s.Machine
		for t := 0; t < m.NumTransitions(); t++ {
			Expect(engine.Plain(m, engine.TransID(t))).To(BeTrue(), "transition %+v", m.Transition(engine.TransID(t)))
		}
	})
})
