package explore

import (
	"fmt"
	"math"

	"github.com/simctl/simctl/engine"
)

// perClass is how many user acts of one class the explorer offers: two, so
// that a slot refilled with another text of its class (slot_overwrite) is
// still seen; one would only ever refill the same text.
const perClass = 2

// classes keeps perClass user acts of each class of alpha (engine.ValueKey:
// acts whose texts no expression of the machine can tell apart, with the
// same intent, confidence and entities), in alphabet order. note says what
// was done, for the output: how many acts stand for how many, or why every
// text is kept.
func classes(m *engine.Machine, alpha []engine.Event) (kept []engine.Event, note string) {
	if why := m.ValuesDistinct(); why != "" {
		return alpha, fmt.Sprintf("value classes: none, every text is told apart: %s", why)
	}
	seen := map[string]int{}
	var key []byte
	for _, e := range alpha {
		key = actKey(m, &e, key[:0])
		if seen[string(key)] >= perClass {
			continue
		}
		seen[string(key)]++
		kept = append(kept, e)
	}
	return kept, fmt.Sprintf("value classes: %d user acts in %d classes, %d explored", len(alpha), len(seen), len(kept))
}

// actKey is the class of a user act: everything but its texts, and the
// class of each text.
func actKey(m *engine.Machine, e *engine.Event, b []byte) []byte {
	b = le.AppendUint16(b, uint16(e.Kind))
	b = le.AppendUint16(b, uint16(e.Intent))
	b = le.AppendUint64(b, math.Float64bits(e.Confidence))
	b = append(b, e.NEnt)
	b = m.ValueKey(e.Text, b)
	b = m.ValueKey(e.Value, b)
	for i := 0; i < int(e.NEnt); i++ {
		en := &e.Entities[i]
		b = le.AppendUint16(b, uint16(en.ID))
		b = append(b, byte(en.Value.Kind))
		b = le.AppendUint64(b, math.Float64bits(en.Value.Num))
		b = m.ValueKey(en.Value.Str, b)
	}
	return b
}
