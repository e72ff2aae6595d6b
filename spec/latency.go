package spec

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/latency"
)

// latencyYAML is machine.yaml's latency: section (docs/machine-format.md,
// "Latency").
type latencyYAML struct {
	Pos        engine.Pos
	NLU        *distYAML         `yaml:"nlu"`
	Validation *distYAML         `yaml:"validation"`
	Action     *distYAML         `yaml:"action"`
	LLM        *distYAML         `yaml:"llm"`
	Synthesis  *distYAML         `yaml:"synthesis"`
	States     Entries[distYAML] `yaml:"states"`
	Actions    Entries[distYAML] `yaml:"actions"`
}

// distYAML is one distribution: a mapping with exactly one key naming its
// kind, such as {uniform: [200ms, 500ms]}.
type distYAML struct {
	Dist latency.Dist
}

// latencyMS is a duration of the latency model, in whole milliseconds;
// negative ones are refused with their own message.
type latencyMS int64

func (t *latencyMS) decodeYAML(d *decoder, n *yaml.Node) error {
	s, err := d.scalar(n, "a duration such as 250ms or 1.5s")
	if err != nil {
		return err
	}
	ms, perr := latency.ParseMS(s)
	if perr != nil {
		return d.errf(n, "%v", perr)
	}
	*t = latencyMS(ms)
	return nil
}

func (x *distYAML) decodeYAML(d *decoder, n *yaml.Node) error {
	kinds := strings.Join(latency.DistKinds, ", ")
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return d.errf(n, "expected a distribution: a mapping with one of %s, such as {uniform: [200ms, 500ms]}, got %s", kinds, DescribeNode(n))
	}
	k, v := n.Content[0], n.Content[1]
	dist := &x.Dist
	dist.Pos = d.pos(k)
	durations := func() ([]int64, error) {
		if v.Kind != yaml.SequenceNode {
			return nil, d.errf(v, "%s: expected a list of durations, got %s", k.Value, DescribeNode(v))
		}
		out := make([]int64, len(v.Content))
		for i, c := range v.Content {
			var ms latencyMS
			if err := ms.decodeYAML(d, c); err != nil {
				return nil, err
			}
			out[i] = int64(ms)
		}
		return out, nil
	}
	switch k.Value {
	case "fixed":
		dist.Kind = latency.Fixed
		var ms latencyMS
		if err := ms.decodeYAML(d, v); err != nil {
			return err
		}
		dist.A = int64(ms)
	case "uniform":
		dist.Kind = latency.Uniform
		vals, err := durations()
		if err != nil {
			return err
		}
		if len(vals) != 2 {
			return d.errf(v, "uniform: expected [MIN, MAX], two durations, got %d", len(vals))
		}
		dist.A, dist.B = vals[0], vals[1]
	case "normal":
		dist.Kind = latency.Normal
		var p struct {
			Mean latencyMS `yaml:"mean,required"`
			SD   latencyMS `yaml:"sd,required"`
		}
		if err := d.decodeStruct(v, refl(&p), 1); err != nil {
			return err
		}
		dist.A, dist.B = int64(p.Mean), int64(p.SD)
	case "lognormal":
		dist.Kind = latency.LogNormal
		var p struct {
			Median latencyMS `yaml:"median,required"`
			Sigma  float64   `yaml:"sigma,required"`
		}
		if err := d.decodeStruct(v, refl(&p), 1); err != nil {
			return err
		}
		dist.A, dist.Sigma = int64(p.Median), p.Sigma
	case "empirical":
		dist.Kind = latency.Empirical
		vals, err := durations()
		if err != nil {
			return err
		}
		dist.Values = vals
	default:
		return d.errf(k, "unknown distribution %q (expected one of: %s)", k.Value, kinds)
	}
	if err := dist.Check(); err != nil {
		return d.errf(v, "%v", err)
	}
	return nil
}

// latencyModel resolves the latency: section, the states marked cost:,
// the kinds of the external actions and the slo: list against machine m.
// Without a latency: section the model is nil (no latency at all); an
// slo: list then is an error, since it would have nothing to measure.
func (f *machineFile) latencyModel(m *engine.Machine) (*latency.Model, []latency.SLO, error) {
	kinds := make([]latency.ActionKind, len(f.Actions))
	for i, a := range f.Actions {
		switch a.Value.Kind.Value {
		case "", "action":
			kinds[i] = latency.KindAction
		case "llm":
			kinds[i] = latency.KindLLM
		case "synthesis":
			kinds[i] = latency.KindSynthesis
		default:
			return nil, nil, &Error{Pos: a.Value.Kind.Pos, Msg: fmt.Sprintf("action %q: unknown kind %q (expected one of: %s)",
				a.Key, a.Value.Kind.Value, strings.Join(latency.ActionKinds, ", "))}
		}
	}
	var marked []engine.StateID
	if err := costStates(f.States, "", m, &marked); err != nil {
		return nil, nil, err
	}
	ly := f.Latency
	if ly == nil {
		if len(f.SLO) > 0 {
			return nil, nil, &Error{Pos: f.SLO[0].Pos, Msg: "slo: needs a latency: section (without a latency model every turn takes no time)"}
		}
		return nil, nil, nil
	}
	dist := func(y *distYAML) *latency.Dist {
		if y == nil {
			return nil
		}
		d := y.Dist
		return &d
	}
	model := &latency.Model{NLU: dist(ly.NLU), Validation: dist(ly.Validation), Action: dist(ly.Action),
		LLM: dist(ly.LLM), Synthesis: dist(ly.Synthesis),
		State: make([]*latency.Dist, m.NumStates()), Ext: make([]*latency.Dist, len(f.Actions))}
	for _, id := range marked {
		model.State[id] = model.Validation
	}
	seen := map[engine.StateID]string{}
	for _, e := range ly.States {
		id, ok := m.StateID(e.Key)
		if !ok {
			return nil, nil, unknownState(Str{Value: e.Key, Pos: e.KeyPos}, m)
		}
		if prev, dup := seen[id]; dup {
			return nil, nil, &Error{Pos: e.KeyPos, Msg: fmt.Sprintf("latency states: %q and %q are the same state %s", prev, e.Key, m.StateName(id))}
		}
		seen[id] = e.Key
		model.State[id] = dist(&e.Value)
	}
	byKind := [...]*latency.Dist{latency.KindAction: model.Action, latency.KindLLM: model.LLM, latency.KindSynthesis: model.Synthesis}
	for i, a := range f.Actions {
		if id, ok := m.ExtID(a.Key); ok {
			model.Ext[id] = byKind[kinds[i]]
		}
	}
	for _, e := range ly.Actions {
		id, ok := m.ExtID(e.Key)
		if !ok {
			names := make([]string, len(f.Actions))
			for i, a := range f.Actions {
				names[i] = a.Key
			}
			return nil, nil, &Error{Pos: e.KeyPos, Msg: fmt.Sprintf("latency actions: unknown action %q (actions: %s)", e.Key, joinNames(names))}
		}
		model.Ext[id] = dist(&e.Value)
	}
	var slos []latency.SLO
	for _, x := range f.SLO {
		slo, err := latency.ParseSLO(x.Src, m)
		if err != nil {
			pos := x.Pos
			if se, ok := err.(*latency.SyntaxError); ok {
				pos.Col += se.Offset
			}
			return nil, nil, &Error{Pos: pos, Msg: err.Error()}
		}
		slo.Pos = x.Pos
		slos = append(slos, slo)
	}
	return model, slos, nil
}

// costStates collects the states marked cost: validation, by their path.
func costStates(states Entries[stateYAML], parent string, m *engine.Machine, out *[]engine.StateID) error {
	for _, e := range states {
		path := e.Key
		if parent != "" {
			path = parent + "." + e.Key
		}
		switch c := e.Value.Cost; c.Value {
		case "":
		case "validation":
			if id, ok := m.StateID(path); ok {
				*out = append(*out, id)
			}
		default:
			return &Error{Pos: c.Pos, Msg: fmt.Sprintf("state %q: unknown cost %q (expected: validation)", e.Key, c.Value)}
		}
		if err := costStates(e.Value.States, path, m, out); err != nil {
			return err
		}
	}
	return nil
}
