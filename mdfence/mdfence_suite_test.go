package mdfence_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestMdfence(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "mdfence Suite")
}
