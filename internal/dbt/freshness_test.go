package dbt

import (
	"os"
	"path/filepath"
	"strings"
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

// writeBase writes a minimal base build generated at the given time.
func writeBase(t *testing.T, generatedAt time.Time) Paths {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "target-base"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/manifest/v12.json","dbt_version":"1.8.1","generated_at":"` +
		generatedAt.UTC().Format(time.RFC3339Nano) + `"},"nodes":{},"sources":{},"parent_map":{},"child_map":{}}`
	if err := os.WriteFile(filepath.Join(dir, "target-base", "manifest.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return Paths{ProjectDir: dir}
}

// The reasons people read: human durations, the limit that applied.
func TestCheckBaseFreshnessReasons(t *testing.T) {
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	old := writeBase(t, now.Add(-(13137*time.Hour + 54*time.Minute)))
	recent := writeBase(t, now.Add(-3*time.Hour))
	for _, c := range []struct {
		name   string
		paths  Paths
		opts   FreshnessOptions
		status string
		prefix string
	}{
		{"old, default limit", old, FreshnessOptions{}, BaseStaleTime,
			"the base artifacts were generated 547 days 9 hours ago (limit 2 days); rebuild them on main with `dbt run --target prod` and `dbt docs generate --target prod --target-path target-base` (prod: the target of the base's own schema)"},
		{"old, no age limit", old, FreshnessOptions{NoAgeLimit: true}, BaseFresh,
			"the base artifacts were generated 547 days 9 hours ago (no age limit); no git history of main to compare with"},
		{"recent, default limit", recent, FreshnessOptions{}, BaseFresh,
			"the base artifacts were generated 3 hours ago, within the age limit of 2 days; no git history of main to compare with"},
		{"recent, 1h limit", recent, FreshnessOptions{MaxAge: time.Hour}, BaseStaleTime,
			"the base artifacts were generated 3 hours ago (limit 1 hour); rebuild them on main with `"},
	} {
		c.opts.Now = now
		f, err := CheckBaseFreshness(t.Context(), c.paths, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if f.Status != c.status || !strings.HasPrefix(f.Reason, c.prefix) {
			t.Errorf("%s: %s %q, want %s %q…", c.name, f.Status, f.Reason, c.status, c.prefix)
		}
		if strings.Contains(f.Reason, "h54m") || strings.Contains(f.Reason, "0s") {
			t.Errorf("%s: a Go duration in %q", c.name, f.Reason)
		}
	}
}
