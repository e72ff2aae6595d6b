package yamltree_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/yamltree"
)

var _ = Describe("Encode", func() {
	It("keeps keys in the order written, leaves out nil and empty values, and quotes what YAML would misread", func() {
		root := yamltree.Map("machine", "m", "empty", nil, "list", []*yaml.Node{}, "final", true, "n", 3)
		yamltree.Add(root, "intents", yamltree.FlowSeq("yes", "no"))
		yamltree.Add(root, "states", yamltree.Seq(yamltree.Str("*")))
		Expect(string(yamltree.Encode("# head\n", root))).To(Equal("# head\nmachine: m\nfinal: true\nn: 3\nintents: [yes, no]\nstates:\n  - '*'\n"))
	})
})
