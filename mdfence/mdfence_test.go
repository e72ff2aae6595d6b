package mdfence_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/mdfence"
)

var _ = Describe("Blocks", func() {
	It("returns each block at the start of a line with its opening line and body, and leaves indented fences alone", func() {
		page := "text\n```yaml\na: 1\n  ```\n```\n    ```\n```\n$ simctl\n```\n"
		blocks, err := mdfence.Blocks("p.md", page)
		Expect(err).NotTo(HaveOccurred())
		Expect(blocks).To(Equal([]mdfence.Block{
			{Line: 2, Open: "```yaml", Body: []string{"a: 1\n", "  ```\n"}},
			{Line: 7, Open: "```", Body: []string{"$ simctl\n"}},
		}))
	})

	It("names the opening fence of a block that is not closed", func() {
		_, err := mdfence.Blocks("p.md", "a\n```\nb\n")
		Expect(err).To(MatchError("p.md:2: code block is not closed"))
	})
})
