package dfcx_test

// FuzzDfcx reads arbitrary page files in a copy of the fixture agent: Read
// and Translate return a suite or one positioned line of error, never
// panic. The seed corpus is the fixture's pages; `make fuzz-short` and
// `make fuzz` mutate them.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simctl/simctl/dfcx"
)

func FuzzDfcx(f *testing.F) {
	var files = map[string][]byte{}
	err := filepath.Walk("testdata/pizzeria", func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel("testdata/pizzeria", p)
		files[rel] = data
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range []string{"flows/Order/pages/Confirm.json", "flows/Order/pages/Size.json", "flows/Order/Order.json"} {
		f.Add(files[p])
	}
	// The agent is written once per fuzzing process; each input replaces
	// one page file (inputs run one after another within a process).
	dir := f.TempDir()
	for rel, body := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			f.Fatal(err)
		}
	}
	page := filepath.Join(dir, "flows/Order/pages/Confirm.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(page, data, 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := dfcx.Read(dir)
		if err == nil {
			_, err = dfcx.Translate(a, "fuzz")
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("error is not one line: %q", err)
		}
	})
}
