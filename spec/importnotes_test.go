package spec_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

var _ = Describe("an importer's notes", func() {
	// The Dialogflow CX importer once sorted its notes by their positions
	// as text, so a note at line 10 came before one at line 9.
	It("sort by file, then line and column as numbers, keeping ties in order", func() {
		at := func(file string, line, col int, what string) spec.Note {
			return spec.Note{Pos: engine.Pos{File: file, Line: line, Col: col}, What: what}
		}
		ns := []spec.Note{
			at("flows/b.json", 10, 1, "b10"),
			at("flows/a.json", 10, 3, "a10:3"),
			at("flows/a.json", 9, 7, "a9"),
			at("flows/a.json", 10, 2, "a10:2 first"),
			at("flows/a.json", 10, 2, "a10:2 second"),
			at("flows/b.json", 2, 1, "b2"),
		}
		spec.SortNotes(ns)
		var got []string
		for _, n := range ns {
			got = append(got, n.String())
		}
		Expect(got).To(Equal([]string{
			"flows/a.json:9:7: a9",
			"flows/a.json:10:2: a10:2 first",
			"flows/a.json:10:2: a10:2 second",
			"flows/a.json:10:3: a10:3",
			"flows/b.json:2:1: b2",
			"flows/b.json:10:1: b10",
		}))
	})
})
