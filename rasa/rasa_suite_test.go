package rasa_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestRasa(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Rasa Suite")
}
