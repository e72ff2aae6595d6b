package enginetest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
)

// ParseEvent reads one event of a script, relative to configuration c:
//
//	greet                 user event, intent greet, at c.Now
//	inform=alice@b.co     user event whose Value and Text are "alice@b.co"
//	greet@1500            at 1500ms
//	timer:idle            timer idle, at its pending deadline (c.Now if none)
//	done:lookup@20        external action lookup succeeded
//	failed:lookup         external action lookup failed
//	done:lookup/1         its result, routed back to region 1 (0-based, as
//	                      branch_index) of the parallel state
//
// The time is the last "@" followed only by digits, so values may hold "@".
func ParseEvent(m *engine.Machine, c *engine.Config, s string) (engine.Event, error) {
	ev := engine.Event{At: c.Now, Confidence: 1}
	s, at, hasAt := splitAt(s)
	if hasAt {
		ev.At = at
	}
	head, value, _ := strings.Cut(s, "=")
	kind, name, found := strings.Cut(head, ":")
	if !found {
		id, ok := m.IntentID(head)
		if !ok {
			return ev, fmt.Errorf("event %q: unknown intent %q", s, head)
		}
		ev.Kind, ev.Intent, ev.Value, ev.Text = engine.UserEvent, id, value, value
		return ev, nil
	}
	switch kind {
	case "timer":
		id, ok := m.TimerID(name)
		if !ok {
			return ev, fmt.Errorf("event %q: unknown timer %q", s, name)
		}
		ev.Kind, ev.Timer = engine.TimerEvent, id
		if !hasAt {
			for _, t := range c.Timers {
				if t.Active && t.ID == id {
					ev.At = t.Deadline
				}
			}
		}
	case "done", "failed":
		name, br, routed := strings.Cut(name, "/")
		if routed {
			i, err := strconv.Atoi(br)
			if err != nil || i < 0 || i >= engine.MaxBranches {
				return ev, fmt.Errorf("event %q: branch %q is not from 0 to %d", s, br, engine.MaxBranches-1)
			}
			ev.Branch = uint8(i + 1)
		}
		id, ok := m.ExtID(name)
		if !ok {
			return ev, fmt.Errorf("event %q: unknown action %q", s, name)
		}
		ev.Kind, ev.Ext = engine.DoneEvent, id
		if kind == "failed" {
			ev.Kind = engine.FailedEvent
		}
	default:
		return ev, fmt.Errorf("event %q: unknown kind %q", s, kind)
	}
	return ev, nil
}

// splitAt splits a trailing "@MS" off a scripted event.
func splitAt(s string) (string, int64, bool) {
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		if at, err := strconv.ParseInt(s[i+1:], 10, 64); err == nil {
			return s[:i], at, true
		}
	}
	return s, 0, false
}

// Run starts m at time 0, feeds it the events of script (see ParseEvent)
// and returns the rendered trace, one block per event. Errors of the machine
// (a runaway chain, a timer fired off its deadline) are written into the
// trace, where a reviewer sees them; the error return is for mistakes in the
// script itself.
func Run(m *engine.Machine, script ...string) (string, error) {
	var (
		c   engine.Config
		r   engine.Result
		out strings.Builder
	)
	out.WriteString("* start @0\n")
	if err := m.Start(&c, 0, &r); err != nil {
		fmt.Fprintf(&out, "  error: %v\n", err)
		return out.String(), nil
	}
	out.WriteString(Format(m, &r))
	for _, s := range script {
		ev, err := ParseEvent(m, &c, s)
		if err != nil {
			return out.String(), err
		}
		name, _, _ := splitAt(s)
		fmt.Fprintf(&out, "> %s @%d\n", name, ev.At)
		if err := m.Step(&c, &ev, &r); err != nil {
			fmt.Fprintf(&out, "  error: %v\n", err)
			continue
		}
		out.WriteString(Format(m, &r))
	}
	return out.String(), nil
}

// Format renders one Result: each transition taken with the guards
// evaluated to choose it and the actions it ran, then the forks joined, then
// the effects, or "ignored" when no transition took the event. A fork
// branch's step starts with its index ("b1: "), and a transition an override
// replaced follows the override's trigger ("instead of always -> tool").
func Format(m *engine.Machine, r *engine.Result) string {
	if !r.Handled {
		return "  ignored\n"
	}
	var b strings.Builder
	for _, st := range r.Steps {
		b.WriteString("  ")
		if st.Branch > 0 {
			fmt.Fprintf(&b, "b%d: ", st.Branch-1)
		}
		switch {
		case st.Trans == engine.NoID:
			fmt.Fprintf(&b, "-> %s", m.StateName(st.To))
		case m.Transition(st.Trans).Internal:
			fmt.Fprintf(&b, "%s (%s, internal)", m.StateName(st.From), m.Transition(st.Trans).Trigger)
		default:
			fmt.Fprintf(&b, "%s -> %s (%s", m.StateName(st.From), m.StateName(st.To), m.Transition(st.Trans).Trigger)
			if st.Overrode != engine.NoID {
				o := m.Transition(st.Overrode)
				fmt.Fprintf(&b, " instead of %s", o.Trigger)
				if !o.Internal {
					fmt.Fprintf(&b, " -> %s", m.StateName(o.Target))
				}
			}
			b.WriteString(")")
		}
		for _, g := range r.Guards[st.GuardLo:st.GuardHi] {
			fmt.Fprintf(&b, " [%s]=%t", m.Transition(g.Trans).Guard, g.Pass)
		}
		b.WriteString("\n")
		for _, a := range r.Actions[st.ActLo:st.ActHi] {
			kind, name, _ := m.ActionInfo(a)
			fmt.Fprintf(&b, "    %s", kind)
			if name != "" {
				fmt.Fprintf(&b, " %s", name)
			}
			b.WriteString("\n")
		}
	}
	for _, j := range r.Joins {
		fmt.Fprintf(&b, "  join %s: %d branches, %d finished, %d failed, %d delivered\n",
			m.StateName(j.Fork), j.Branches, j.Finished, j.Failed, j.Delivered)
	}
	for i := range r.Effects {
		e := &r.Effects[i]
		switch e.Kind {
		case engine.EffSay, engine.EffEscalate:
			fmt.Fprintf(&b, "  %s %q\n", e.Kind, r.EffectText(e))
		case engine.EffInvoke:
			fmt.Fprintf(&b, "  %s %s", e.Kind, m.ExtName(e.Ext))
			if e.Branch > 0 {
				fmt.Fprintf(&b, " for b%d", e.Branch-1)
			}
			b.WriteString("\n")
		case engine.EffStartTimer:
			fmt.Fprintf(&b, "  %s %s @%d\n", e.Kind, m.TimerName(e.Timer), e.Deadline)
		case engine.EffCancelTimer:
			fmt.Fprintf(&b, "  %s %s\n", e.Kind, m.TimerName(e.Timer))
		}
	}
	return b.String()
}

// Says returns the texts of a Result's say effects, in order.
func Says(r *engine.Result) []string { return texts(r, engine.EffSay) }

// Logs returns the texts of a Result's log effects, in order.
func Logs(r *engine.Result) []string { return texts(r, engine.EffLog) }

func texts(r *engine.Result, kind engine.EffectKind) []string {
	var out []string
	for i := range r.Effects {
		if r.Effects[i].Kind == kind {
			out = append(out, string(r.EffectText(&r.Effects[i])))
		}
	}
	return out
}
