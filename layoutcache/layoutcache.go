// Package layoutcache moves the graph layout library's cache out of the
// shared temporary folder. It is imported, for its init alone, by
// cmd/simctl, and its Restore is the first thing main calls.
//
// github.com/goccy/go-graphviz compiles its WebAssembly build of Graphviz
// in its package init, at every start of any program that links it, and
// keeps the compiled code in os.TempDir()/go-graphviz. That folder is
// made by the first user who runs the program, and wazero makes its
// content mode 700, so on a machine shared by several users every later
// user's simctl, --version included, panicked in the library's init.
//
// The library reads the folder's place from $TMPDIR when its init runs,
// and offers no other setting. This package's init points $TMPDIR at
// simctl's folder in the user's cache folder (os.UserCacheDir) for that
// moment, and Restore gives $TMPDIR back before main does anything else.
// The order is the language's: packages are initialised in the order of
// their import paths, each once all of its imports are; this package
// imports only os, which the library needs too, and
// github.com/simctl/simctl/layoutcache sorts before
// github.com/tetratelabs/wazero, which the library waits for. So this
// init runs first. The spec "a second user" in cli checks it with a real
// process.
//
// When the user's cache folder cannot be made or written (no $HOME, a
// read-only home), $TMPDIR points at a path where nothing can be created:
// the library then compiles in memory without a cache, which costs about
// a second of CPU per start and fails nothing.
package layoutcache

import "os"

// The environment as it was before init, for Restore.
var (
	oldTMPDIR string
	hadTMPDIR bool
)

// Dir is the folder whose go-graphviz subfolder holds the cache, or ""
// when there is none (the library compiles in memory).
var Dir string

// unusable is a path under which no folder can be made, on every Unix.
const unusable = "/dev/null/simctl-no-cache"

func init() {
	oldTMPDIR, hadTMPDIR = os.LookupEnv("TMPDIR")
	Dir = prepare()
	target := Dir
	if target == "" {
		target = unusable
	}
	os.Setenv("TMPDIR", target)
}

// prepare makes <user cache>/simctl/go-graphviz, mode 700, and checks
// that a file can be written in it; it returns <user cache>/simctl, or ""
// when that fails.
func prepare() string {
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		return ""
	}
	dir := base + string(os.PathSeparator) + "simctl"
	lib := dir + string(os.PathSeparator) + "go-graphviz"
	if err := os.MkdirAll(lib, 0o700); err != nil {
		return ""
	}
	f, err := os.CreateTemp(lib, "probe-")
	if err != nil {
		return ""
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	// wazero keeps its files in a subfolder per version and platform; one
	// that exists but cannot be written (made by someone else) would fail
	// the library as the shared folder did.
	entries, err := os.ReadDir(lib)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := lib + string(os.PathSeparator) + e.Name()
		g, err := os.CreateTemp(sub, "probe-")
		if err != nil {
			return ""
		}
		name := g.Name()
		g.Close()
		os.Remove(name)
	}
	return dir
}

// Restore gives $TMPDIR back the value it had before init; main calls it
// first, so that temporary files (the explorer's spilled queue) go where
// the user said.
func Restore() {
	if hadTMPDIR {
		os.Setenv("TMPDIR", oldTMPDIR)
	} else {
		os.Unsetenv("TMPDIR")
	}
}
