package engine

// GeneralOnly returns a copy of m whose every step takes the general
// algorithm (micro.go), never the short way of fast.go, so that specs can
// compare the two on the same conversation.
func GeneralOnly(m *Machine) *Machine {
	g := *m
	g.general = true
	return &g
}

// Plain reports whether transition t, taken alone from a configuration
// without a parallel state, is one settle fires itself (fast.go).
func Plain(m *Machine, t TransID) bool { return m.plans[t].plain }

// QuietStart reports whether m starts the short way (start.go).
func QuietStart(m *Machine) bool { return m.quietStart }
