package rasa_test

// FuzzRasa reads arbitrary flows files beside the fixture's domain and e2e
// tests: Read and Translate return a suite or one positioned line of
// error, never panic. The seed corpus is testdata/fuzz/FuzzRasa (the
// fixture's flows and variations); `make fuzz-short` and `make fuzz`
// mutate it.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simctl/simctl/rasa"
)

func FuzzRasa(f *testing.F) {
	domain, err := os.ReadFile("testdata/moneybank/domain.yml")
	if err != nil {
		f.Fatal(err)
	}
	tests, err := os.ReadFile("testdata/moneybank/e2e_tests/transfers.yml")
	if err != nil {
		f.Fatal(err)
	}
	flows, err := os.ReadFile("testdata/moneybank/data/flows.yml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(flows)
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for name, body := range map[string][]byte{"domain.yml": domain, "data/flows.yml": data, "e2e_tests/t.yml": tests} {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := rasa.Read(dir)
		if err == nil {
			_, err = rasa.Translate(p, "fuzz")
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("error is not one line: %q", err)
		}
	})
}
