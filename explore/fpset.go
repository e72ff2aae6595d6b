package explore

// fpSet is the visited set: 64-bit fingerprints, each with its node, in
// one open-addressed table (linear probing, at most three quarters full):
// ten million take 191 MB, where a Go map took 288 MB (measured with Go
// 1.24), and the search of ten million configurations (make explore-big)
// has to fit in 2 GB. Fingerprint 0 is stored apart, since 0 marks a free
// slot.
type fpSet struct {
	keys  []uint64
	nodes []int32
	n     int
	zero  int32 // the node of fingerprint 0, or -1
}

func newFPSet() *fpSet {
	return &fpSet{keys: make([]uint64, 1024), nodes: make([]int32, 1024), zero: -1}
}

// get returns the node of fingerprint fp and whether it was seen.
func (s *fpSet) get(fp uint64) (int32, bool) {
	if fp == 0 {
		return s.zero, s.zero >= 0
	}
	mask := uint64(len(s.keys) - 1)
	for i := fp & mask; ; i = (i + 1) & mask {
		switch s.keys[i] {
		case fp:
			return s.nodes[i], true
		case 0:
			return -1, false
		}
	}
}

// put records fingerprint fp, not seen before, as node n.
func (s *fpSet) put(fp uint64, n int32) {
	if fp == 0 {
		s.zero = n
		return
	}
	if (s.n+1)*4 > len(s.keys)*3 {
		s.grow()
	}
	s.insert(fp, n)
	s.n++
}

func (s *fpSet) insert(fp uint64, n int32) {
	mask := uint64(len(s.keys) - 1)
	i := fp & mask
	for s.keys[i] != 0 {
		i = (i + 1) & mask
	}
	s.keys[i], s.nodes[i] = fp, n
}

func (s *fpSet) grow() {
	keys, nodes := s.keys, s.nodes
	s.keys, s.nodes = make([]uint64, 2*len(keys)), make([]int32, 2*len(keys))
	for i, k := range keys {
		if k != 0 {
			s.insert(k, nodes[i])
		}
	}
}
