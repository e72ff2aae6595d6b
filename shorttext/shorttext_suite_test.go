package shorttext_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestShorttext(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "shorttext Suite")
}
