package engine

// This file holds the short way through Start that a machine with a quiet
// start takes: no start actions, no entry action, parallel state or final
// state on the way down to the initial leaf, and no eventless transition
// there. Such a start does nothing but put the Config in the initial leaf,
// so the general start (micro.go), which runs the entries, the eventless
// round and their bookkeeping, is skipped: on the WORKLOAD machine, whose
// every conversation starts afresh, it was a tenth of the driver's time.
// fast_test.go plays every bundled suite on both and compares them.

// prepareStart finds, once the tables are built, whether the machine's
// start is quiet.
func (m *Machine) prepareStart() {
	if len(m.startActs) > 0 || len(m.initPath) == 0 || m.initPath[len(m.initPath)-1] != m.initial {
		return
	}
	for _, s := range m.initPath {
		st := &m.states[s]
		if len(st.entry) > 0 || st.fork != nil || st.final {
			return
		}
	}
	m.quietStart = len(m.alwaysTab[m.initial]) == 0
}

// startQuiet is start for a machine whose start is quiet: the same
// Config and Result, one trace step entering the initial leaf.
func (m *Machine) startQuiet(c *Config, at int64, r *Result) {
	c.clear(at)
	c.State = m.initial
	// r.reset, clearing what only the general algorithm fills only when
	// it holds something, as step does.
	r.clear()
	if r.rare() {
		r.clearRare()
	}
	r.Handled = true
	r.Steps = append(r.Steps, TraceStep{From: NoID, To: m.initial, Trans: NoID, Overrode: NoID})
}

// noFlows is the flow stack of a Config with no flow: every position free.
var noFlows = func() (f [MaxFlowDepth]FlowID) {
	for i := range f {
		f[i] = NoID
	}
	return f
}()

// clear makes c the Config before any state is entered, at virtual time
// at: no state, no slot waited for, nothing said, every flow position
// free, the rest zero. It assigns field by field: assigning a whole Config
// literal compiles to a string store over its 1.7 KB that takes twice as
// long. A spec fills every field of a Config and checks that Start clears
// it (start_test.go), so a field added to Config and forgotten here fails.
func (c *Config) clear(at int64) {
	c.Now, c.State, c.Waiting, c.LastSay = at, NoID, NoID, NoID
	c.FlowDepth, c.Final, c.TimerSeq = 0, false, 0
	c.Flows = noFlows
	c.Counters = [MaxCounters]int32{}
	clear(c.Timers[:])
	c.moreTimers = ""
	clear(c.slots[:])
	c.more, c.texts = "", ""
	c.NBranch, c.Finished = 0, 0
	clear(c.Branches[:])
	c.Hist = [InlineHistory]StateID{}
	c.moreHist = ""
}
