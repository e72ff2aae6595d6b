package reports

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// LockFile is the file in an output folder that a process writing reports
// there holds a lock on.
const LockFile = ".simctl.lock"

// ErrLocked is returned by Lock when another process holds the folder.
var ErrLocked = errors.New("another simctl is writing reports to this folder")

// Lock takes dir, creating it if needed, for this process's reports, so
// that two runs given the same --out cannot interleave their files (each
// file is renamed into place whole, but a set written by two runs at once
// would mix their files). A second process gets ErrLocked at once rather
// than waiting: it would overwrite the first one's reports anyway. The
// lock is an advisory lock (flock) on dir/.simctl.lock, which the system
// drops when the process ends however it ends, so a crash leaves no stale
// lock. release unlocks, deletes the lock file, and deletes dir again if
// Lock created it and nothing else was written there.
func Lock(dir string) (release func(), err error) {
	made, err := mkdirAll(dir)
	if err != nil {
		return nil, err
	}
	undo := func() {
		for i := len(made) - 1; i >= 0; i-- {
			os.Remove(made[i])
		}
	}
	path := filepath.Join(dir, LockFile)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			undo()
			return nil, err
		}
		if err := flock(f); err != nil {
			f.Close()
			undo()
			if errors.Is(err, ErrLocked) {
				return nil, fmt.Errorf("%s: %w (it holds %s); wait for it to finish or give another --out", dir, ErrLocked, LockFile)
			}
			return nil, err
		}
		// The holder before us deletes the file as it unlocks: a lock taken
		// on a file no longer at path locks nothing, so take it again.
		if same(f, path) {
			return func() {
				os.Remove(path)
				f.Close()
				undo()
			}, nil
		}
		f.Close()
	}
}

// same reports whether f is still the file at path.
func same(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}
