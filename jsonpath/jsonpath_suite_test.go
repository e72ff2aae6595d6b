package jsonpath_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestJSONPath(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "JSONPath Suite")
}
