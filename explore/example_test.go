package explore_test

import (
	"fmt"

	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/spec"
)

// Explore a suite to a depth and read what it found, each with the length
// of its shortest path; EmitScenarios would write those paths out.
func ExampleExplore() {
	s, err := spec.Load("testdata/planted")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d distinct configurations, complete: %v\n", res.Distinct, res.Complete)
	for _, f := range res.Findings {
		fmt.Printf("%s after %d events, known: %v\n", f.Kind, res.PathLen(f.Node), f.Known != "")
	}
	// Output:
	// 10 distinct configurations, complete: true
	// never_hopped after 2 events, known: false
	// lifecycle after 3 events, known: true
	// dead_end after 3 events, known: false
	// livelock after 4 events, known: false
	// stuck after 1 events, known: false
}
