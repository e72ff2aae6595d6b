// Package layoutcache readies the graph layout library, go-graphviz, with
// its cache in the user's cache folder. Package reports calls Load before
// it lays out a graph; nothing else does.
//
// Upstream go-graphviz compiles its WebAssembly build of Graphviz in its
// packages' init functions, at every start of any program that links it
// (about a second of CPU without a cache), and keeps the compiled code in
// os.TempDir()/go-graphviz. That folder is made by the first user who runs
// the program, and wazero makes its content mode 700, so on a machine
// shared by several users every later user's simctl, --version included,
// panicked in the library's init. simctl builds with a copy of the library
// (third_party/go-graphviz, see its SIMCTL.md) that compiles nothing at
// init: the compile happens in graphviz.Load, which this package calls
// with the cache folder, only for a command that draws a graph.
package layoutcache

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/goccy/go-graphviz"
)

// Load readies the layout library, once per process (later calls return
// at once). Its compiled code is kept in <user cache>/simctl/go-graphviz;
// when that folder cannot be made or written (no $HOME, a read-only home,
// a folder made by another user), or loading with it fails, the library
// compiles in memory: a second of CPU more, nothing fails. An error is
// left only when Graphviz cannot be loaded at all, as one line.
func Load(ctx context.Context) error {
	mu.Lock()
	defer mu.Unlock()
	if loaded {
		return nil
	}
	if dir := dir(); dir == "" || graphviz.Load(ctx, dir) != nil {
		if err := graphviz.Load(ctx, ""); err != nil {
			return fmt.Errorf("loading Graphviz (WebAssembly): %s", strings.Join(strings.Fields(err.Error()), " "))
		}
	}
	loaded = true
	return nil
}

// Whether Load has succeeded: a report lays out many graphs, and the
// cache folder is checked once.
var (
	mu     sync.Mutex
	loaded bool
)

// dir makes <user cache>/simctl/go-graphviz, mode 700, checks that a file
// can be written in it and in each of its subfolders, and returns it; it
// returns "" when any of that fails.
func dir() string {
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		return ""
	}
	dir := filepath.Join(base, "simctl", "go-graphviz")
	if err := os.MkdirAll(dir, 0o700); err != nil || !writable(dir) {
		return ""
	}
	// wazero keeps its files in a subfolder per version and platform; one
	// that exists but cannot be written (made by someone else) would fail
	// the library as the shared folder did.
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if e.IsDir() && !writable(filepath.Join(dir, e.Name())) {
			return ""
		}
	}
	return dir
}

// writable reports whether a file can be made in dir.
func writable(dir string) bool {
	f, err := os.CreateTemp(dir, "probe-")
	if err != nil {
		return false
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return true
}
