package spec_test

import (
	"fmt"
	"os"
)

func inflight(data []byte) func() {
	dir := os.Getenv("FUZZ_INFLIGHT")
	if dir == "" {
		return func() {}
	}
	p := fmt.Sprintf("%s/%d", dir, os.Getpid())
	os.WriteFile(p, data, 0o644)
	return func() { os.Remove(p) }
}
