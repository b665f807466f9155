package dbt

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Base freshness statuses: the peer's base_status values (get_server_info)
// and what `ripple check-base` reports.
const (
	BaseFresh     = "fresh"
	BaseStaleTime = "stale_time" // older than the age limit
	BaseStaleSHA  = "stale_sha"  // built before a base-branch commit this branch contains
	BaseMissing   = "missing"
)

// DefaultBaseMaxAge is how old the base artifacts may be before they are stale.
const DefaultBaseMaxAge = 48 * time.Hour

// DefaultBaseBranch is the branch the base artifacts are built from.
const DefaultBaseBranch = "main"

// FreshnessOptions tune CheckBaseFreshness; zero values are the defaults.
type FreshnessOptions struct {
	// MaxAge is the age limit; 0 means DefaultBaseMaxAge, negative is invalid.
	MaxAge time.Duration
	// NoAgeLimit turns the age rule off.
	NoAgeLimit bool
	// Branch is the base branch (default DefaultBaseBranch).
	Branch string
	// Now is the current time (default time.Now()).
	Now time.Time
}

// ValidateMaxAge rejects an age limit that cannot be meant.
func ValidateMaxAge(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("the age limit must not be negative (got %s): pass e.g. 48h, or 0 for no limit", HumanDuration(d))
	}
	return nil
}

// Freshness is the verdict on the base artifacts.
type Freshness struct {
	Status string
	// Reason explains the status and, when stale or missing, how to fix it.
	Reason string
	// GeneratedAt is the base manifest's metadata.generated_at.
	GeneratedAt string
	// Age is how long ago the base artifacts were built.
	Age time.Duration
	// BaseCommit is the newest base-branch commit HEAD contains, when known.
	BaseCommit string
}

// CheckBaseFreshness is Ripple's one rule for "are the base artifacts
// usable": missing when the base manifest cannot be loaded; stale_time when
// built longer ago than the age limit; stale_sha when the base branch has a
// commit newer than the build that this branch contains; else fresh. The
// build time is the manifest's generated_at (its file time when absent).
// Only invalid options are an error.
func CheckBaseFreshness(ctx context.Context, paths Paths, opts FreshnessOptions) (Freshness, error) {
	paths = paths.WithDefaults()
	if err := ValidateMaxAge(opts.MaxAge); err != nil {
		return Freshness{}, err
	}
	env, err := LoadEnv(ctx, paths.BaseDir(), "base", "dbt docs generate --target-path "+paths.TargetBasePath)
	if err != nil {
		return Freshness{Status: BaseMissing, Reason: err.Error()}, nil
	}
	return BaseFreshness(ctx, env, paths, opts)
}

// BaseFreshness is CheckBaseFreshness for a base build already loaded
// (a server's session), without reading the manifest again.
func BaseFreshness(ctx context.Context, env *Env, paths Paths, opts FreshnessOptions) (Freshness, error) {
	paths = paths.WithDefaults()
	if err := ValidateMaxAge(opts.MaxAge); err != nil {
		return Freshness{}, err
	}
	maxAge := opts.MaxAge
	if maxAge == 0 {
		maxAge = DefaultBaseMaxAge
	}
	branch := opts.Branch
	if branch == "" {
		branch = DefaultBaseBranch
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	// The base needs its own schema, so the hint builds it with a target of
	// its own: docs of the dev target would compare the branch with itself.
	rebuild := "dbt run --target prod` and `dbt docs generate --target prod --target-path " + paths.TargetBasePath +
		"` (prod: the target of the base's own schema"
	f := Freshness{GeneratedAt: env.Manifest.Metadata.GeneratedAt}
	built := env.ModTime
	if t, err := time.Parse(time.RFC3339Nano, f.GeneratedAt); err == nil {
		built = t
	}
	f.Age = now.Sub(built)
	if !opts.NoAgeLimit && f.Age > maxAge {
		f.Status = BaseStaleTime
		f.Reason = fmt.Sprintf("the base artifacts were generated %s ago (limit %s); rebuild them on %s with `%s)",
			HumanDuration(f.Age), HumanDuration(maxAge), branch, rebuild)
		return f, nil
	}
	if commit, when, ok := mergeBase(ctx, paths.ProjectDir, branch); ok {
		f.BaseCommit = commit
		if when.After(built) {
			f.Status = BaseStaleSHA
			f.Reason = fmt.Sprintf("%s has commit %s (%s) that is newer than the base artifacts (%s); rebuild them with `%s)",
				branch, commit[:min(12, len(commit))], when.Format(time.RFC3339), built.Format(time.RFC3339), rebuild)
			return f, nil
		}
	}
	f.Status = BaseFresh
	if opts.NoAgeLimit {
		f.Reason = fmt.Sprintf("the base artifacts were generated %s ago (no age limit)", HumanDuration(f.Age))
	} else {
		f.Reason = fmt.Sprintf("the base artifacts were generated %s ago, within the age limit of %s", HumanDuration(f.Age), HumanDuration(maxAge))
	}
	if f.BaseCommit != "" {
		f.Reason += fmt.Sprintf(", and after the newest %s commit this branch contains", branch)
	} else {
		f.Reason += fmt.Sprintf("; no git history of %s to compare with", branch)
	}
	return f, nil
}

// mergeBase finds the newest commit of branch (or origin/branch) that HEAD
// contains, with its commit time.
func mergeBase(ctx context.Context, dir, branch string) (string, time.Time, bool) {
	for _, ref := range []string{branch, "origin/" + branch} {
		out, err := exec.CommandContext(ctx, "git", "-C", dir, "merge-base", "HEAD", ref).Output()
		if err != nil {
			continue
		}
		commit := strings.TrimSpace(string(out))
		ts, err := exec.CommandContext(ctx, "git", "-C", dir, "show", "-s", "--format=%cI", commit).Output()
		if err != nil {
			continue
		}
		when, err := time.Parse(time.RFC3339, strings.TrimSpace(string(ts)))
		if err != nil {
			continue
		}
		return commit, when, true
	}
	return "", time.Time{}, false
}

// HumanDuration writes d for people: "3 days 4 hours", "2 hours 5 minutes",
// "12 minutes", "45 seconds"; under a second, Go's own form ("1ns").
func HumanDuration(d time.Duration) string {
	if d < 0 {
		return "-" + HumanDuration(-d)
	}
	plural := func(n int64, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return fmt.Sprintf("%d %ss", n, unit)
	}
	pair := func(a int64, ua string, b int64, ub string) string {
		if b == 0 {
			return plural(a, ua)
		}
		return plural(a, ua) + " " + plural(b, ub)
	}
	switch {
	case d >= 24*time.Hour:
		h := int64(d / time.Hour)
		return pair(h/24, "day", h%24, "hour")
	case d >= time.Hour:
		m := int64(d / time.Minute)
		return pair(m/60, "hour", m%60, "minute")
	case d >= time.Minute:
		return plural(int64(d/time.Minute), "minute")
	case d >= time.Second:
		return plural(int64(d/time.Second), "second")
	}
	return d.String()
}
