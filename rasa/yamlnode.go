package rasa

import "github.com/simctl/simctl/yamltree"

// The suite's files are built as yaml.v3 node trees (package yamltree).
var (
	mapping = yamltree.Map
	add     = yamltree.Add
	seq     = yamltree.Seq
	flowSeq = yamltree.FlowSeq
	text    = yamltree.Str
	encode  = yamltree.Encode
)
