package generate_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// make test runs the specs labelled "race" (Label("race"): they play
// conversations on several goroutines) under the race detector and the
// others, on one goroutine, without it; cli_suite_test.go says why.
func TestGenerate(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Generate Suite")
}
