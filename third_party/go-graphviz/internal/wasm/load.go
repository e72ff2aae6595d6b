package wasm

import (
	"fmt"
	"sync"
)

// simctl's patch (see SIMCTL.md at the module's root): upstream compiled
// and instantiated the module in this package's init, so at the start of
// every program that linked the library, and kept the compiled code in
// os.TempDir()/go-graphviz. Load does that work when it is first called,
// with the cache folder the caller names.

var loadMu sync.Mutex

// Load compiles and instantiates Graphviz's WebAssembly module, keeping
// the compiled code in cacheDir ("" for no cache: compiled in memory). It
// does the work once; a failure, which upstream's init raised as a panic,
// is returned, and a later call tries again.
func Load(cacheDir string) (err error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	if mod != nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			mod = nil
			err = fmt.Errorf("%v", r)
		}
	}()
	load(cacheDir)
	return nil
}
