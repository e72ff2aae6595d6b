package machinevalues_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestMachineValues(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "MachineValues Suite")
}
