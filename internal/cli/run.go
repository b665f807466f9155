package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ripple-data/ripple/internal/checks"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/ops"
)

// runOptions are the flags of `ripple run`.
type runOptions struct {
	Config         string
	Summary        string
	FailOnMismatch bool
	NoPresets      bool
}

// RunReport is the result of `ripple run`.
type RunReport struct {
	Passed     int              `json:"passed"`
	Mismatched int              `json:"mismatched"`
	Failed     int              `json:"failed"`
	Checks     []RunReportCheck `json:"checks"`
	StateFile  string           `json:"state_file"`
	Summary    string           `json:"summary_file,omitempty"`
	ExitCode   int              `json:"exit_code"`
}

// RunReportCheck is one check's outcome.
type RunReportCheck struct {
	CheckID    string `json:"check_id"`
	Name       string `json:"name"`
	Type       string `json:"type"`
	RunID      string `json:"run_id"`
	Status     string `json:"status"`
	Mismatched bool   `json:"mismatched"`
	Error      string `json:"error,omitempty"`
}

func newRunCmd(g *Globals, ios IOStreams, _ *ops.Registry) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the preset checks (and the checks of the state file) for CI",
		Long: "Creates the preset checks of ripple.yml (written with two defaults when missing), runs every check, writes the state file\n" +
			"and optionally the Markdown summary. Exit code: 0 all passed, 1 a check found a mismatch (with --fail-on-mismatch) or failed, 2 usage or configuration error.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runChecks(c.Context(), g, ios, o) },
	}
	cmd.Flags().StringVar(&o.Config, "config", checks.DefaultConfigFile, "preset checks file, relative to the project dir")
	cmd.Flags().StringVar(&o.Summary, "summary", "", "also write the Markdown PR summary to this file")
	cmd.Flags().BoolVar(&o.FailOnMismatch, "fail-on-mismatch", true, "exit 1 when a check finds a difference (not only when it fails)")
	cmd.Flags().BoolVar(&o.NoPresets, "no-presets", false, "only run the checks already in the state file")
	return cmd
}

func runChecks(ctx context.Context, g *Globals, ios IOStreams, o *runOptions) error {
	s := g.NewSession(ios)
	defer s.Close()
	p, err := s.Project(ctx)
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	store, err := s.Checks(ctx)
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	if !o.NoPresets {
		path := o.Config
		if !filepath.IsAbs(path) {
			path = filepath.Join(g.ProjectDir, path)
		}
		presets, created, err := checks.LoadPresets(ctx, path)
		if err != nil {
			return &ExitError{Code: 2, Err: err}
		}
		if created {
			fmt.Fprintf(ios.ErrOut, "wrote default preset checks to %s\n", path)
		}
		if _, err := store.ApplyPresets(ctx, presets); err != nil {
			return &ExitError{Code: 2, Err: err}
		}
	}
	rep := &RunReport{StateFile: g.StateFile, Checks: []RunReportCheck{}}
	for _, c := range store.List(ops.ArtifactsModTime(p)).Checks {
		fmt.Fprintf(ios.ErrOut, "running %s (%s)\n", c.Name, c.Type)
		run, err := store.RunCheck(ctx, c.ID, checks.TriggerUser)
		if err != nil {
			return err
		}
		rc := RunReportCheck{CheckID: c.ID, Name: c.Name, Type: c.Type, RunID: run.ID, Status: string(run.Status), Error: run.Error}
		switch {
		case !run.Succeeded():
			rep.Failed++
		default:
			mm, err := checks.Mismatch(c.Type, run.Result)
			if err == nil && mm {
				rc.Mismatched = true
				rep.Mismatched++
			} else {
				rep.Passed++
			}
		}
		rep.Checks = append(rep.Checks, rc)
	}
	if err := store.Save(ctx); err != nil {
		return &ExitError{Code: 2, Err: fmt.Errorf("writing the state file: %w", err)}
	}
	if o.Summary != "" {
		md, err := ops.SummaryMarkdown(ctx, s, impact.Input{})
		if err != nil {
			return err
		}
		if err := os.WriteFile(o.Summary, []byte(md), 0o644); err != nil {
			return err
		}
		rep.Summary = o.Summary
	}
	if rep.Failed > 0 || (o.FailOnMismatch && rep.Mismatched > 0) {
		rep.ExitCode = 1
	}
	if g.JSON {
		if err := writeJSON(ios.Out, rep); err != nil {
			return err
		}
	} else {
		for _, c := range rep.Checks {
			mark := "✓"
			switch {
			case c.Status != string(checks.StatusFinished):
				mark = "✗"
			case c.Mismatched:
				mark = "≠"
			}
			fmt.Fprintf(ios.Out, "%s %-40s %s\n", mark, c.Name, c.Type)
			if c.Error != "" {
				fmt.Fprintf(ios.Out, "    %s\n", c.Error)
			}
		}
		fmt.Fprintf(ios.Out, "%d passed, %d mismatched, %d failed\n", rep.Passed, rep.Mismatched, rep.Failed)
	}
	if rep.ExitCode != 0 {
		return &ExitError{Code: rep.ExitCode}
	}
	return nil
}

// BaseStatus is the result of `ripple check-base`.
type BaseStatus struct {
	Status      string  `json:"status"` // fresh, stale, missing
	Reason      string  `json:"reason"`
	Path        string  `json:"path"`
	GeneratedAt string  `json:"generated_at,omitempty"`
	AgeHours    float64 `json:"age_hours,omitempty"`
	BaseCommit  string  `json:"base_branch_commit,omitempty"`
	ExitCode    int     `json:"exit_code"`
}

func newCheckBaseCmd(g *Globals, ios IOStreams, _ *ops.Registry) *cobra.Command {
	var maxAge time.Duration
	var baseBranch string
	cmd := &cobra.Command{
		Use:   "check-base",
		Short: "Is target-base/ missing, too old, or older than the base branch?",
		Long: "Exit code 0: the base artifacts are fresh; 1: stale (older than --max-age, or built before the newest commit of the base branch\n" +
			"that this branch contains); 2: missing or unreadable.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			st := checkBase(c.Context(), g, maxAge, baseBranch, time.Now())
			if g.JSON {
				if err := writeJSON(ios.Out, st); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(ios.Out, "%s: %s\n", st.Status, st.Reason)
			}
			if st.ExitCode != 0 {
				return &ExitError{Code: st.ExitCode}
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&maxAge, "max-age", 7*24*time.Hour, "base artifacts older than this are stale")
	cmd.Flags().StringVar(&baseBranch, "base-branch", "main", "git branch the base artifacts are built from")
	return cmd
}

func checkBase(ctx context.Context, g *Globals, maxAge time.Duration, branch string, now time.Time) BaseStatus {
	paths := dbt.Paths{ProjectDir: g.ProjectDir, TargetPath: g.TargetPath, TargetBasePath: g.TargetBasePath}.WithDefaults()
	st := BaseStatus{Path: paths.BaseDir()}
	env, err := dbt.LoadEnv(ctx, paths.BaseDir(), "base", "dbt docs generate --target-path "+paths.TargetBasePath)
	if err != nil {
		st.Status, st.Reason, st.ExitCode = "missing", err.Error(), 2
		return st
	}
	st.GeneratedAt = env.Manifest.Metadata.GeneratedAt
	built := env.ModTime
	if t, err := time.Parse(time.RFC3339Nano, st.GeneratedAt); err == nil {
		built = t
	}
	st.AgeHours = float64(now.Sub(built).Round(time.Minute)) / float64(time.Hour)
	if maxAge > 0 && now.Sub(built) > maxAge {
		st.Status, st.ExitCode = "stale", 1
		st.Reason = fmt.Sprintf("the base artifacts were generated %s ago (limit %s); rebuild them on %s with `dbt docs generate --target-path %s`",
			now.Sub(built).Round(time.Minute), maxAge, branch, paths.TargetBasePath)
		return st
	}
	if commit, when, ok := mergeBase(ctx, g.ProjectDir, branch); ok {
		st.BaseCommit = commit
		if when.After(built) {
			st.Status, st.ExitCode = "stale", 1
			st.Reason = fmt.Sprintf("%s has commit %s (%s) that is newer than the base artifacts (%s); rebuild them", branch, commit[:min(12, len(commit))], when.Format(time.RFC3339), built.Format(time.RFC3339))
			return st
		}
	}
	st.Status, st.Reason = "fresh", "the base artifacts are newer than the base branch commit this branch contains and within the age limit"
	return st
}

// mergeBase finds the newest commit of branch that HEAD contains.
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
