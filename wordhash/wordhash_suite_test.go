package wordhash_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestWordhash(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "wordhash Suite")
}
