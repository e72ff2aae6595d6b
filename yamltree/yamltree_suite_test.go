package yamltree_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestYamltree(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "yamltree Suite")
}
