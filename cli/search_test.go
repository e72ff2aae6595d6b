package cli_test

import (
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

// wallClock is the one line of simctl explore's output that varies from
// run to run.
var wallClock = regexp.MustCompile(`(?m)^  [0-9.]+ s, .*\(wall clock\)\n`)

// Not labelled race: the goroutines are the explorer's, which explore's
// own specs (workers_test.go) run under the race detector; here, under
// -race, the same searches took half of cli's race run.
var _ = Describe("simctl explore --workers", func() {
	It("prints what one goroutine prints, the wall clock aside", func() {
		args := []string{"explore", "../scenarios/soni", "../scenarios/thea", "../scenarios/hfsm", "--depth", "4"}
		code1, one, stderr := simctl(args...)
		Expect(stderr).To(BeEmpty())
		Expect(code1).To(Or(Equal(cli.ExitOK), Equal(cli.ExitFailed)))
		Expect(wallClock.FindAllString(one, -1)).To(HaveLen(7), one) // a search per suite and variant
		code2, two, stderr := simctl(append(args, "--workers", "2", "--queue-mb", "1")...)
		Expect(stderr).To(BeEmpty())
		Expect(code2).To(Equal(code1))
		Expect(wallClock.ReplaceAllString(two, "")).To(Equal(wallClock.ReplaceAllString(one, "")))
	})
})
