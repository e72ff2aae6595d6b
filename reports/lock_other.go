//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package reports

import "os"

// flock is a no-op where simctl has no advisory lock: there, two runs
// given the same --out at once are not kept apart.
func flock(*os.File) error { return nil }
