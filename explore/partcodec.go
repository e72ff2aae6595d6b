package explore

import (
	"encoding/binary"
	"encoding/json"
	"errors"
)

// A part lists every configuration its shard saw, so shard.json would be
// mostly its nodes: they travel packed (varints, fingerprints as 8 bytes;
// base64 in JSON), which makes them several times smaller and quicker to
// read than JSON objects.

// partJSON is a Part as JSON: its own fields, but the nodes packed (the
// outer Nodes hides the Part's; partFields drops Part's JSON methods).
type partJSON struct {
	*partFields
	Nodes []byte `json:"nodes"`
}

type partFields Part

// Node flags in the packed form.
const (
	flagGood = 1 << iota
	flagDead
	flagFails
	flagExpanded
	flagPar
)

// MarshalJSON packs the nodes.
func (p *Part) MarshalJSON() ([]byte, error) {
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(p.Nodes)))
	for i := range p.Nodes {
		n := &p.Nodes[i]
		b = binary.LittleEndian.AppendUint64(b, n.FP)
		b = binary.AppendVarint(b, int64(n.Parent))
		b = binary.AppendVarint(b, int64(n.In.Event))
		b = binary.AppendUvarint(b, uint64(n.In.Fails))
		var f byte
		for _, x := range []struct {
			on  bool
			bit byte
		}{{n.Good, flagGood}, {n.Dead, flagDead}, {n.Fails, flagFails}, {n.Expanded, flagExpanded}, {n.Par != nil, flagPar}} {
			if x.on {
				f |= x.bit
			}
		}
		b = append(b, f)
		if n.Par != nil {
			b = binary.AppendUvarint(b, uint64(n.Par.State))
			b = binary.AppendUvarint(b, n.Par.Meant)
			b = binary.AppendUvarint(b, n.Par.Done)
		}
		if !n.Expanded {
			continue
		}
		b = binary.AppendUvarint(b, uint64(n.Succ))
		b = binary.AppendUvarint(b, uint64(len(n.To)))
		for _, t := range n.To {
			b = binary.LittleEndian.AppendUint64(b, t)
		}
		b = binary.AppendUvarint(b, uint64(len(n.Esc)))
		for _, k := range n.Esc {
			b = binary.AppendUvarint(b, uint64(k))
		}
		b = binary.AppendUvarint(b, uint64(len(n.Cov)))
		for _, c := range n.Cov {
			b = append(b, c.Of)
			b = binary.AppendVarint(b, int64(c.Index))
			b = binary.AppendVarint(b, c.N)
		}
	}
	return json.Marshal(partJSON{partFields: (*partFields)(p), Nodes: b})
}

var errPacked = errors.New("the packed configurations are cut short or damaged")

// UnmarshalJSON unpacks the nodes; damaged ones give an error, never a
// panic or a huge allocation.
func (p *Part) UnmarshalJSON(data []byte) error {
	*p = Part{}
	j := partJSON{partFields: (*partFields)(p)}
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	r := packed{b: j.Nodes}
	n := r.uvarint()
	// Each node takes at least 12 bytes, which bounds what a count may ask.
	if r.err != nil || n > uint64(len(r.b))/12 {
		return errPacked
	}
	p.Nodes = make([]PartNode, n)
	for i := range p.Nodes {
		nd := &p.Nodes[i]
		nd.FP = r.u64()
		nd.Parent = int32(r.varint())
		nd.In = Edge{Event: int32(r.varint()), Fails: uint32(r.uvarint())}
		f := r.byte()
		nd.Good, nd.Dead, nd.Fails, nd.Expanded = f&flagGood != 0, f&flagDead != 0, f&flagFails != 0, f&flagExpanded != 0
		if f&flagPar != 0 {
			st := r.uvarint()
			if st > 1<<31 {
				return errPacked
			}
			nd.Par = &PartPar{State: int32(st), Meant: r.uvarint(), Done: r.uvarint()}
		}
		if !nd.Expanded {
			continue
		}
		nd.Succ = int(r.uvarint())
		k := r.uvarint()
		if k > uint64(len(r.b))/8 {
			return errPacked
		}
		for ; k > 0; k-- {
			nd.To = append(nd.To, r.u64())
		}
		k = r.uvarint()
		if k > uint64(len(nd.To)) {
			return errPacked
		}
		for ; k > 0; k-- {
			e := r.uvarint()
			if e >= uint64(len(nd.To)) || (len(nd.Esc) > 0 && int32(e) <= nd.Esc[len(nd.Esc)-1]) {
				return errPacked
			}
			nd.Esc = append(nd.Esc, int32(e))
		}
		k = r.uvarint()
		if k > uint64(len(r.b))/3 {
			return errPacked
		}
		for ; k > 0; k-- {
			nd.Cov = append(nd.Cov, CovCount{Of: r.byte(), Index: int32(r.varint()), N: r.varint()})
		}
		if r.err != nil {
			return r.err
		}
	}
	if r.err != nil || len(r.b) != 0 {
		return errPacked
	}
	return nil
}

// packed reads the packed form, remembering the first error.
type packed struct {
	b   []byte
	err error
}

func (r *packed) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err, r.b = errPacked, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *packed) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err, r.b = errPacked, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *packed) u64() uint64 {
	if len(r.b) < 8 {
		r.err, r.b = errPacked, nil
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *packed) byte() byte {
	if len(r.b) < 1 {
		r.err = errPacked
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}
