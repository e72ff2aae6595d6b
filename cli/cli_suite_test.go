package cli_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// make test runs this package's specs twice over, each spec once: those
// labelled "race" (Label("race")), which start goroutines of simctl's
// (several workers, the progress line, an in-process bot or NLU server),
// under the race detector; all the others without it, since a search or
// run on one goroutine has nothing to race and -race makes it 5 to 10
// times slower. A new spec that starts goroutines carries Label("race"),
// unless a spec labelled so already runs the same concurrent code and
// the new one adds only sequential logic (botdeep_test.go's bot specs).
func TestCLI(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "CLI Suite")
}
