package static

import "testing"

func TestPercent1Rounds(t *testing.T) {
	tests := []struct {
		part, whole int
		want        float64
	}{
		{8, 9, 88.9}, {1, 8, 12.5}, {2, 3, 66.7}, {1, 3, 33.3}, {9, 9, 100}, {0, 9, 0},
		{1999, 2000, 99.9}, {9999, 10000, 99.9}, {1, 10000, 0.1}, {5, 1000, 0.5},
	}
	for _, tt := range tests {
		if got := percent1(tt.part, tt.whole); got != tt.want {
			t.Errorf("%d of %d: %v%%, want %v%%", tt.part, tt.whole, got, tt.want)
		}
	}
}
