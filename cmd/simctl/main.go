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
	// what is under way, and writes a report marked incomplete. Once the
	// first signal has cancelled it, the default handling comes back, so
	// that a second signal ends the process at once whatever it is doing.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := cli.MainContext(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
