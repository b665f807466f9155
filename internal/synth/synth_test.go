package synth

import (
	"strings"
	"testing"
)

// TestLongNames: realistic names are 30–40 characters, unique, and keep the
// layer prefix dbt projects use.
func TestLongNames(t *testing.T) {
	p := Generate(Options{Models: 400, Columns: 4, Seed: 1, LongNames: true})
	seen := map[string]bool{}
	for i, r := range p.Relations {
		if n := len(r.Name); n < 30 || n > 40 {
			t.Errorf("%s: %d characters", r.Name, n)
		}
		if seen[r.Name] {
			t.Errorf("%s twice", r.Name)
		}
		seen[r.Name] = true
		if want := layerPrefix(i, 400) + "_"; !strings.HasPrefix(r.Name, want) {
			t.Errorf("%s: want prefix %s", r.Name, want)
		}
		if len(r.Columns) != 4 {
			t.Errorf("%s: %d columns", r.Name, len(r.Columns))
		}
	}
	if len(seen) != 400 {
		t.Fatalf("%d relations", len(seen))
	}
}
