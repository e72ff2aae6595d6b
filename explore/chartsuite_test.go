package explore_test

import (
	"path/filepath"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/scxml"
	"github.com/simctl/simctl/spec"
)

// chartSuiteOf loads an SCXML chart and makes it a suite of one variant
// on the engine (scxml.Machine.Definition), as spec loads a
// machine.scxml folder.
func chartSuiteOf(t interface {
	Helper()
	Fatal(...any)
}, path string) *spec.Suite {
	t.Helper()
	cm, err := spec.LoadChart(path)
	if err != nil {
		t.Fatal(err)
	}
	return chartSuite(t, cm, strings.TrimSuffix(filepath.Base(path), ".scxml"), filepath.Dir(path))
}

func chartSuite(t interface {
	Helper()
	Fatal(...any)
}, cm *scxml.Machine, name, dir string) *spec.Suite {
	t.Helper()
	d, _, err := cm.Definition()
	if err != nil {
		t.Fatal(err)
	}
	m, diags := engine.Build(d)
	if m == nil {
		t.Fatal(diags)
	}
	return &spec.Suite{Name: name, Dir: dir, Def: d, Machine: m, Variants: []*spec.Variant{{Name: "default", Machine: m}}}
}
