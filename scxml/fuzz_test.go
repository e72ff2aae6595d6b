package scxml_test

// FuzzSCXML: any bytes give a loaded machine or a *statechart.Error with a
// line >= 1, never a panic; a loaded machine starts and takes a few events
// without panicking. Seeds are in testdata/fuzz/FuzzSCXML.

import (
	"errors"
	"testing"

	"github.com/simctl/simctl/scxml"
	"github.com/simctl/simctl/statechart"
)

func FuzzSCXML(f *testing.F) {
	f.Add([]byte(`<scxml xmlns="http://www.w3.org/2005/07/scxml"><state id="a"/></scxml>`))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 16<<10 {
			return
		}
		m, err := scxml.Load("f.scxml", src, scxml.Options{})
		if err != nil {
			var se *statechart.Error
			if !errors.As(err, &se) || se.Pos.Line < 1 || se.Pos.File != "f.scxml" {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		s := m.NewSession()
		s.Start()
		for _, e := range []string{"a", "b", "go", "done", "error"} {
			s.Send(statechart.Event{Name: e})
			s.Advance(1000)
		}
	})
}
