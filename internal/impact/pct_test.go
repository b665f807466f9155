package impact_test

import (
	"testing"

	"github.com/ripple-data/ripple/internal/impact"
)

// TestDeltaPctNeverReadsZero: delta_pct keeps Recce's one decimal unless a
// non-zero delta would read 0; FormatPct words it the same in every renderer.
func TestDeltaPctNeverReadsZero(t *testing.T) {
	for _, tc := range []struct {
		delta, base int64
		want        float64
		text        string
	}{
		{3, 19995, 0.015, "0.015"},
		{-3, 19995, -0.015, "-0.015"},
		{1, 2, 50, "50"},
		{7, 200, 3.5, "3.5"},
		{1, 3, 33.3, "33.3"},
		{0, 12029, 0, "0"},
		{1, 1_000_000, 0.0001, "0.0001"},
		{-1, 5, -20, "-20"},
	} {
		p := impact.DeltaPct(tc.delta, tc.base)
		if p == nil || *p != tc.want {
			t.Errorf("DeltaPct(%d, %d) = %v, want %v", tc.delta, tc.base, p, tc.want)
			continue
		}
		if got := impact.FormatPct(*p); got != tc.text {
			t.Errorf("FormatPct(%v) = %q, want %q", *p, got, tc.text)
		}
	}
	if p := impact.DeltaPct(5, 0); p != nil {
		t.Errorf("DeltaPct on base 0 = %v, want nil", *p)
	}
}
