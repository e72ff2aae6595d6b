// Command simctl simulates and evaluates dialogue state machines; see
// package cli and README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/simctl/simctl/cli"
)

func main() {
	// SIGINT or SIGTERM cancels the run: it stops starting work, finishes
	// what is under way, and writes a report marked incomplete.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.MainContext(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
