package dbt

import (
	"testing"
	"time"
)

func TestHumanDuration(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{
		{13137*time.Hour + 54*time.Minute, "547 days 9 hours"},
		{48 * time.Hour, "2 days"},
		{25 * time.Hour, "1 day 1 hour"},
		{2*time.Hour + 5*time.Minute, "2 hours 5 minutes"},
		{time.Hour, "1 hour"},
		{12*time.Minute + 30*time.Second, "12 minutes"},
		{45 * time.Second, "45 seconds"},
		{1200 * time.Millisecond, "1 second"},
		{time.Nanosecond, "1ns"},
		{-3 * time.Hour, "-3 hours"},
	}
	for _, c := range cases {
		if got := HumanDuration(c.d); got != c.want {
			t.Errorf("HumanDuration(%s) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestValidateMaxAge(t *testing.T) {
	if err := ValidateMaxAge(-time.Hour); err == nil {
		t.Error("a negative age limit was accepted")
	}
	for _, d := range []time.Duration{0, time.Nanosecond, DefaultBaseMaxAge} {
		if err := ValidateMaxAge(d); err != nil {
			t.Errorf("ValidateMaxAge(%s) = %v", d, err)
		}
	}
	if _, err := CheckBaseFreshness(t.Context(), Paths{ProjectDir: t.TempDir()}, FreshnessOptions{MaxAge: -time.Minute}); err == nil {
		t.Error("CheckBaseFreshness accepted a negative age limit")
	}
}
