package graphviz

import (
	"context"
	"sync"

	"github.com/goccy/go-graphviz/cgraph"
	"github.com/goccy/go-graphviz/gvc"
	"github.com/goccy/go-graphviz/internal/wasm"
)

// simctl's patch (see SIMCTL.md): upstream compiled Graphviz's
// WebAssembly module in its packages' init functions, at the start of
// every program that linked the library, whether it drew a graph or not,
// and kept the compiled code in os.TempDir()/go-graphviz. Here nothing
// runs at init: Load does that work, at the first call of Load, New,
// NewWithPlugins, ParseBytes or ParseFile.

var (
	loadMu sync.Mutex
	loaded bool
)

// Load compiles and instantiates Graphviz's WebAssembly module, keeping
// the compiled code in cacheDir ("" for none: compiled in memory, about a
// second of CPU), and sets up what upstream's init functions did. It does
// the work once; after a failure a later call tries again. New,
// NewWithPlugins, ParseBytes and ParseFile call it with no cache if it
// has not been called.
func Load(ctx context.Context, cacheDir string) error {
	loadMu.Lock()
	defer loadMu.Unlock()
	if loaded {
		return nil
	}
	if err := wasm.Load(cacheDir); err != nil {
		return err
	}
	if err := cgraph.Load(ctx); err != nil {
		return err
	}
	gvc.Load()
	Directed, StrictDirected = cgraph.Directed, cgraph.StrictDirected
	UnDirected, StrictUnDirected = cgraph.UnDirected, cgraph.StrictUnDirected
	loaded = true
	return nil
}

// ParseBytes is cgraph.ParseBytes once the module is loaded.
func ParseBytes(bytes []byte) (*Graph, error) {
	if err := Load(context.Background(), ""); err != nil {
		return nil, err
	}
	return cgraph.ParseBytes(bytes)
}

// ParseFile is cgraph.ParseFile once the module is loaded.
func ParseFile(path string) (*Graph, error) {
	if err := Load(context.Background(), ""); err != nil {
		return nil, err
	}
	return cgraph.ParseFile(path)
}
