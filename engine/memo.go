package engine

import (
	"regexp"
	"sync"
	"sync/atomic"
)

// matchMemo is a regular expression that remembers its verdict on the
// texts it has seen. Guards test the same few texts again and again (a
// conversation's slots and states, an explorer's alphabet), and a match
// costs far more than a map look-up. Machines are shared by goroutines
// (generate's workers), so readers load an immutable map and a writer
// replaces it with a copy; it stops learning at memoTexts texts, and does
// not keep long ones, so its memory stays small.
type matchMemo struct {
	re   *regexp.Regexp
	mu   sync.Mutex
	seen atomic.Pointer[map[string]bool]
}

const (
	memoTexts   = 1024
	memoTextLen = 4096
)

func newMatchMemo(re *regexp.Regexp) *matchMemo { return &matchMemo{re: re} }

func (mm *matchMemo) MatchString(s string) bool {
	p := mm.seen.Load()
	if p != nil {
		if v, ok := (*p)[s]; ok {
			return v
		}
	}
	v := mm.re.MatchString(s)
	if len(s) <= memoTextLen && (p == nil || len(*p) < memoTexts) {
		mm.learn(s, v)
	}
	return v
}

func (mm *matchMemo) learn(s string, v bool) {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	old := mm.seen.Load()
	next := map[string]bool{}
	if old != nil {
		if len(*old) >= memoTexts {
			return
		}
		for k, x := range *old {
			next[k] = x
		}
	}
	next[s] = v
	mm.seen.Store(&next)
}
