// Package version holds simctl's version: a constant, so that reports
// written by the same release are byte-identical on every machine, and
// the VCS revision Go embeds at build time, for simctl --version only.
package version

import "runtime/debug"

// Version is simctl's release. Reports and summary.json carry it; raise it
// with each release.
const Version = "0.1.0"

// revision is set by make build with -ldflags "-X ...version.revision=R",
// so that a build with GOFLAGS=-buildvcs=false still knows its revision.
var revision string

// Revision is the VCS revision the binary was built from, with
// "+modified" when the work tree had uncommitted changes: the one make
// build passed, else the one Go embedded (-buildvcs), else "unknown" (go
// run, a build outside a repository, tests).
func Revision() string {
	if revision != "" {
		return revision
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if modified {
		rev += "+modified"
	}
	return rev
}
