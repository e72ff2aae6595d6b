package scxml_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSCXML(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "SCXML Suite")
}
