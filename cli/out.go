package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkWritable makes sure the reports can be written to dir before any
// work starts (a run must not play for minutes and then fail on mkdir):
// dir, or the nearest folder above it that exists, must be a folder where
// a file can be created. Nothing is left behind: no folder is created and
// the probe file is removed.
func checkWritable(dir string) error {
	at := filepath.Clean(dir)
	for {
		info, err := os.Stat(at)
		if err == nil {
			if !info.IsDir() {
				return &usageError{fmt.Sprintf("--out %s: %s is not a folder", dir, at)}
			}
			break
		}
		// Missing, or under a file (ENOTDIR): look further up.
		parent := filepath.Dir(at)
		if parent == at {
			break
		}
		at = parent
	}
	f, err := os.CreateTemp(at, ".simctl-probe-*")
	if err != nil {
		why := unwrapPath(err).Error()
		if errors.Is(err, fs.ErrNotExist) {
			// The folder is there (Stat said so): a special file system
			// such as /proc, where no file can be created.
			why = "the folder accepts no new files"
		}
		return &usageError{fmt.Sprintf("--out %s: cannot write in %s: %s", dir, at, why)}
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}
