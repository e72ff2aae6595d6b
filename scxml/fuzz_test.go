package scxml_test

// FuzzSCXML: any bytes give a loaded machine or a *Error with a
// line >= 1, never a panic; a loaded machine starts and takes a few events
// without panicking. Seeds are in testdata/fuzz/FuzzSCXML.

import (
	"errors"
	"testing"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/scxml"
)

func FuzzSCXML(f *testing.F) {
	f.Add([]byte(`<scxml xmlns="http://www.w3.org/2005/07/scxml"><state id="a"/></scxml>`))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 16<<10 {
			return
		}
		m, err := scxml.Load("f.scxml", src, scxml.Options{})
		if err != nil {
			var se *scxml.Error
			if !errors.As(err, &se) || se.Pos.Line < 1 || se.Pos.File != "f.scxml" {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		def, _, err := m.Definition()
		if err != nil {
			return // what the engine cannot run yet, named
		}
		mach, diags := engine.Build(def)
		if diags.Err() != nil {
			return
		}
		d := mach.NewData("f")
		var c engine.Config
		var r engine.Result
		if mach.StartWith(&c, d, 0, &r) != nil {
			return
		}
		for i, name := range []string{"a", "b", "go", "done", "error"} {
			ev, err := m.Event(mach, name, int64(i))
			if err != nil || mach.StepWith(&c, d, &ev, &r) != nil {
				return
			}
		}
	})
}
