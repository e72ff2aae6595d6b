// Command simctl simulates and evaluates dialogue state machines; see
// package cli and README.md.
package main

import (
	"os"

	"github.com/simctl/simctl/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
