package enginetest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/simctl/simctl/engine"
)

// GoSource renders a definition as the Builder calls that make it, so that
// a random machine a property found can be pasted into a plain spec and cut
// down by hand. It renders what the Builder can express; parameters,
// validators and invariants are only counted in a comment.
func GoSource(d *engine.Definition) string {
	var b strings.Builder
	fmt.Fprintf(&b, "et.New(%s, %s).\n", quote(d.Name), quote(d.Initial))
	line := func(format string, args ...any) {
		b.WriteString("\t")
		fmt.Fprintf(&b, format, args...)
		b.WriteString(".\n")
	}
	if len(d.Intents) > 0 {
		var names []string
		for _, in := range d.Intents {
			names = append(names, quote(in.Name))
		}
		line("Intents(%s)", strings.Join(names, ", "))
	}
	for _, s := range d.Slots {
		fn := "Slot"
		if s.Persist {
			fn = "PersistentSlot"
		}
		line("%s(%s, engine.Type%s)", fn, quote(s.Name), strings.ToUpper(s.Type.String()[:1])+s.Type.String()[1:])
	}
	for _, c := range d.Counters {
		line("Counter(%s, %d)", quote(c.Name), c.Limit)
	}
	for _, t := range d.Timers {
		line("Timer(%s, %d)", quote(t.Name), t.AfterMS)
	}
	for _, f := range d.Flows {
		line("Flow(%s)", quoteAll(append([]string{f.Name}, f.Slots...)))
	}
	for _, x := range d.Actions {
		line("External(%s, %s)", quote(x.Name), quote(x.Succeeds.Src))
		for _, o := range x.Outputs {
			line("Output(%s, %s, %s)", quote(x.Name), quote(o.Name), quote(o.Expr.Src))
		}
	}
	if d.MaxChain != 0 {
		line("MaxChain(%d)", d.MaxChain)
	}
	for i := range d.States {
		s := &d.States[i]
		path := s.Name
		if s.Parent != "" {
			path = s.Parent + "." + s.Name
		}
		var parts []string
		if s.Initial != "" {
			parts = append(parts, fmt.Sprintf("et.Initial(%s)", quote(s.Initial)))
		}
		if s.Waits {
			parts = append(parts, "et.Waits()")
		}
		if s.Final {
			parts = append(parts, "et.Final()")
		}
		if s.Failed {
			parts = append(parts, "et.Failed()")
		}
		if len(s.Entry) > 0 {
			parts = append(parts, fmt.Sprintf("et.Entry(%s)", actionsSource(s.Entry)))
		}
		if len(s.Exit) > 0 {
			parts = append(parts, fmt.Sprintf("et.Exit(%s)", actionsSource(s.Exit)))
		}
		if f := s.Fork; f != nil {
			var opts []string
			if f.Branches != 0 {
				opts = append(opts, fmt.Sprintf("et.Branches(%d)", f.Branches))
			}
			if f.InputsFrom != "" {
				opts = append(opts, fmt.Sprintf("et.InputsFrom(%s)", quote(f.InputsFrom)))
			}
			if f.Into != "" {
				opts = append(opts, fmt.Sprintf("et.Into(%s)", quote(f.Into)))
			}
			if f.Merge != "" {
				opts = append(opts, fmt.Sprintf("et.MergeBy(%s)", quote(f.Merge)))
			}
			var joins []string
			for _, t := range f.Join {
				joins = append(joins, "\n\t\t\t"+toSource(t))
			}
			opts = append(opts, fmt.Sprintf("et.Join(%s)", strings.Join(joins, ",")))
			parts = append(parts, fmt.Sprintf("et.Fork(%s)", strings.Join(opts, ", ")))
		}
		if to := s.Timeout; to != nil {
			var then []string
			for _, t := range to.Then {
				then = append(then, toSource(t))
			}
			parts = append(parts, fmt.Sprintf("et.Timeout(%d, %s)", to.AfterMS, strings.Join(then, ", ")))
		}
		for _, t := range s.On {
			parts = append(parts, transitionSource(t, "On", t.On))
		}
		for _, t := range s.Always {
			parts = append(parts, transitionSource(t, "Always", ""))
		}
		args := append([]string{quote(path)}, parts...)
		line("State(%s)", strings.Join(args, ",\n\t\t"))
	}
	for _, o := range d.Overrides {
		args := []string{quote(o.Name), quote(o.Target)}
		if o.Guard.Src != "" {
			args = append(args, fmt.Sprintf("et.When(%s)", quote(o.Guard.Src)))
		}
		if len(o.From) > 0 {
			args = append(args, fmt.Sprintf("et.From(%s)", quoteAll(names(o.From))))
		}
		if len(o.To) > 0 {
			args = append(args, fmt.Sprintf("et.Toward(%s)", quoteAll(names(o.To))))
		}
		if len(o.Actions) > 0 {
			args = append(args, fmt.Sprintf("et.Do(%s)", actionsSource(o.Actions)))
		}
		line("Override(%s)", strings.Join(args, ", "))
	}
	for _, t := range d.On {
		args := []string{quote(t.On), quote(t.Guard.Src), quote(t.Target)}
		if len(t.Actions) > 0 {
			args = append(args, actionsSource(t.Actions))
		}
		line("Anywhere(%s)", strings.Join(args, ", "))
	}
	if n := len(d.Params) + len(d.Validators) + len(d.Invariants); n > 0 {
		fmt.Fprintf(&b, "\t// and %d parameters, validators or invariants not rendered\n", n)
	}
	return strings.TrimSuffix(b.String(), ".\n") + "\n"
}

// transitionSource renders a transition as fn (On, Always) or fn+"If".
func transitionSource(t engine.TransitionDef, fn, trigger string) string {
	var args []string
	if trigger != "" {
		args = append(args, quote(trigger))
	}
	if t.Guard.Src != "" {
		fn += "If"
		args = append(args, quote(t.Guard.Src))
	}
	args = append(args, quote(t.Target))
	if len(t.Actions) > 0 {
		args = append(args, actionsSource(t.Actions))
	}
	return fmt.Sprintf("et.%s(%s)", fn, strings.Join(args, ", "))
}

// toSource renders a timeout's or a join's transition.
func toSource(t engine.TransitionDef) string {
	return transitionSource(t, "To", "")
}

func actionsSource(acts []engine.ActionDef) string {
	var out []string
	for _, a := range acts {
		out = append(out, actionSource(a))
	}
	return strings.Join(out, ", ")
}

func actionSource(a engine.ActionDef) string {
	switch a.Kind {
	case engine.ActSet:
		return fmt.Sprintf("et.Set(%s, %s)", quote(a.Slot), quote(a.Expr.Src))
	case engine.ActFill:
		return fmt.Sprintf("et.Fill(%s)", quote(a.Expr.Src))
	case engine.ActContract:
		return fmt.Sprintf("et.Contract(%s)", quote(a.Expr.Src))
	case engine.ActStart:
		if a.Expr.Src != "" {
			return fmt.Sprintf("et.StartAfter(%s, %s)", quote(a.Name), quote(a.Expr.Src))
		}
	case engine.ActSend:
		return fmt.Sprintf("et.Send(%s, %s, %s)", quote(a.Name), quote(a.ID), quote(a.Expr.Src))
	case engine.ActPop:
		return "et.Pop()"
	case engine.ActResetContext:
		return "et.ResetContext()"
	}
	fn := map[engine.ActionKind]string{engine.ActClear: "Clear", engine.ActAsk: "Ask", engine.ActIncr: "Incr",
		engine.ActReset: "Reset", engine.ActPush: "Push", engine.ActSay: "Say", engine.ActInvoke: "Invoke",
		engine.ActStart: "Start", engine.ActCancel: "Cancel", engine.ActEscalate: "Escalate",
		engine.ActRaise: "Raise", engine.ActCancelSend: "CancelSend"}[a.Kind]
	if fn == "" {
		return fmt.Sprintf("/* %s */", a.Kind)
	}
	return fmt.Sprintf("et.%s(%s)", fn, quote(a.Name))
}

// quote renders s as a Go string literal, raw when that reads better.
func quote(s string) string {
	if strings.Contains(s, `"`) && !strings.ContainsAny(s, "`\n") {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

func quoteAll(ss []string) string {
	var out []string
	for _, s := range ss {
		out = append(out, quote(s))
	}
	return strings.Join(out, ", ")
}

func names(ns []engine.NameDef) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Name)
	}
	return out
}
