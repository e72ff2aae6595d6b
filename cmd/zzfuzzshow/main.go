package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/simctl/simctl/spec"
)

func main() {
	for _, f := range os.Args[1:] {
		b, _ := os.ReadFile(f)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		last := lines[len(lines)-1]
		last = strings.TrimSuffix(strings.TrimPrefix(last, "[]byte("), ")")
		s, err := strconv.Unquote(last)
		if err != nil {
			fmt.Println(f, "unquote", err)
			continue
		}
		start := time.Now()
		su, err := spec.LoadMachine("m.yaml", []byte(s))
		n := 0
		if su != nil {
			n = su.Machine.NumStates()
			if os.Getenv("POKE") != "" {
				poke(su)
			}
		}
		fmt.Printf("%-28s %8v states=%d err=%.150v\n", filepath.Base(f), time.Since(start).Round(time.Millisecond), n, err)
	}
	stopProf()
}
