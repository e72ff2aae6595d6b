package dfcx_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestDfcx(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Dialogflow CX import Suite")
}
