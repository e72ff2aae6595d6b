// Command conformance runs the SCXML conformance suite of
// @scion-scxml/test-framework (installed by make conformance) through
// simctl's SCXML loader and engine, writes conformance.csv and prints one
// line per group and "N passed, M failed, K unsupported". It exits 1 when
// fewer SCION or W3C tests pass than the floors given.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gocarina/gocsv"
	"github.com/spf13/pflag"

	"github.com/simctl/simctl/conformance"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := pflag.NewFlagSet("conformance", pflag.ContinueOnError)
	out := fs.String("out", "out/conformance", "folder for conformance.csv")
	minSCION := fs.Int("min-scion", 0, "fail when fewer SCION tests pass")
	minW3C := fs.Int("min-w3c", 0, "fail when fewer W3C tests pass")
	verbose := fs.BoolP("verbose", "v", false, "print every non-passing test")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: conformance TESTDIR [--out DIR] [--min-scion N] [--min-w3c N]")
		return 2
	}
	rs, err := conformance.RunDir(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	csv, err := gocsv.MarshalBytes(rs)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	path := filepath.Join(*out, "conformance.csv")
	if err := os.WriteFile(path+".tmp", csv, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if *verbose {
		for _, r := range rs {
			if r.Result != "pass" {
				fmt.Printf("%-12s %s/%s: %s\n", r.Result, r.Group, r.Test, r.Reason)
			}
		}
	}
	scion, w3c := conformance.Tally{Group: "SCION"}, conformance.Tally{Group: "W3C"}
	for _, t := range conformance.Count(rs) {
		fmt.Printf("  %-34s %4d pass %4d fail %4d unsupported\n", t.Group, t.Pass, t.Fail, t.Unsupported)
		switch t.Group {
		case "total":
		case conformance.W3CGroup:
			w3c = t
		default:
			scion.Pass += t.Pass
			scion.Fail += t.Fail
			scion.Unsupported += t.Unsupported
		}
	}
	fmt.Printf("SCION %d of %d, W3C %d of %d\n", scion.Pass, scion.Pass+scion.Fail+scion.Unsupported, w3c.Pass, w3c.Pass+w3c.Fail+w3c.Unsupported)
	fmt.Printf("%d passed, %d failed (%d unsupported)\n", scion.Pass+w3c.Pass, scion.Fail+w3c.Fail, scion.Unsupported+w3c.Unsupported)
	if scion.Pass < *minSCION || w3c.Pass < *minW3C {
		fmt.Fprintf(os.Stderr, "conformance: below the floor (SCION %d < %d or W3C %d < %d)\n", scion.Pass, *minSCION, w3c.Pass, *minW3C)
		return 1
	}
	return 0
}
