package explore_test

// FuzzPart feeds arbitrary bytes to what simctl report merge reads of a
// shard's exploration: the JSON of a Part, packed nodes included. Whatever
// the input, decoding gives a Part or an error, and merging the Part
// (alone, or beside a sound part of the same search) gives a Result or an
// error: never a panic, a hang or a huge allocation. The seed corpus is the
// sound parts of the planted-faults machine, and testdata/fuzz/FuzzPart.

import (
	"encoding/json"
	"testing"

	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/spec"
)

func FuzzPart(f *testing.F) {
	s, err := spec.Load("testdata/planted")
	if err != nil {
		f.Fatal(err)
	}
	v := s.Variants[0]
	var sound []*explore.Part
	for i := 0; i < 2; i++ {
		r, err := explore.Explore(s, v, explore.Options{Depth: 10, Part: i, Parts: 2})
		if err != nil {
			f.Fatal(err)
		}
		data, err := json.Marshal(r.Part())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		sound = append(sound, r.Part())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		var p explore.Part
		if json.Unmarshal(data, &p) != nil {
			return
		}
		explore.Merge(s, v, []*explore.Part{&p})
		for i := range sound {
			parts := []*explore.Part{sound[0], sound[1]}
			parts[i] = &p
			explore.Merge(s, v, parts)
		}
	})
}
