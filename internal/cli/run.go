package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	AllowPartial   bool
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
			"and optionally the Markdown summary. Exit code: 0 all passed, 1 a check found a mismatch (with --fail-on-mismatch) or failed, 2 usage or configuration error,\n" +
			"4 the summary's warehouse steps failed (all of them, or some without --allow-partial).",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runChecks(c.Context(), g, ios, o) },
	}
	cmd.Flags().StringVar(&o.Config, "config", checks.DefaultConfigFile, "preset checks file, relative to the project dir")
	cmd.Flags().StringVar(&o.Summary, "summary", "", "also write the Markdown PR summary to this file")
	cmd.Flags().BoolVar(&o.FailOnMismatch, "fail-on-mismatch", true, "exit 1 when a check finds a difference (not only when it fails)")
	cmd.Flags().BoolVar(&o.NoPresets, "no-presets", false, "only run the checks already in the state file")
	cmd.Flags().BoolVar(&o.AllowPartial, "allow-partial", false, "with --summary: exit 0 when only some of its warehouse steps failed (never when all did)")
	return cmd
}

func runChecks(ctx context.Context, g *Globals, ios IOStreams, o *runOptions) error {
	s := g.NewSession(ios)
	defer s.Close()
	p, err := s.Project(ctx)
	if err != nil {
		return &ExitError{Code: exitUsage, Err: err}
	}
	if err := g.requireBase(ctx, s); err != nil {
		return err
	}
	store, err := s.Checks(ctx)
	if err != nil {
		return &ExitError{Code: exitUsage, Err: err}
	}
	if !o.NoPresets {
		path := o.Config
		if !filepath.IsAbs(path) {
			path = filepath.Join(g.ProjectDir, path)
		}
		presets, created, err := checks.LoadPresets(ctx, path, store.ValidateParams)
		if err != nil {
			return &ExitError{Code: exitUsage, Err: err}
		}
		if created {
			fmt.Fprintf(ios.ErrOut, "wrote default preset checks to %s\n", path)
		}
		if _, err := store.ApplyPresets(ctx, presets); err != nil {
			return &ExitError{Code: exitUsage, Err: err}
		}
	}
	rep := &RunReport{StateFile: g.StateFile, Checks: []RunReportCheck{}}
	var stepsErr error
	for _, c := range store.List(ops.ArtifactsModTime(p)).Checks {
		fmt.Fprintf(ios.ErrOut, "running %s (%s)\n", c.Name, c.Type)
		run, err := store.RunCheck(ctx, c.ID, checks.TriggerUser)
		if err != nil {
			return err
		}
		rc := RunReportCheck{CheckID: c.ID, Name: c.Name, Type: c.Type, RunID: run.ID, Status: string(run.Status), Error: run.Error}
		if !run.Succeeded() {
			rep.Failed++
		} else if mm, err := s.Verdict(c.Type, run.Result); err != nil {
			// A verdict that cannot be given is a failure, never a pass.
			rc.Error = err.Error()
			rep.Failed++
		} else if mm {
			rc.Mismatched = true
			rep.Mismatched++
		} else {
			rep.Passed++
		}
		rep.Checks = append(rep.Checks, rc)
	}
	if err := store.Save(ctx); err != nil {
		return &ExitError{Code: exitUsage, Err: fmt.Errorf("writing the state file: %w", err)}
	}
	if o.Summary != "" {
		sum, err := ops.Summary(ctx, s, impact.Input{})
		if err != nil {
			return err
		}
		if err := os.WriteFile(o.Summary, []byte(sum.Markdown), 0o644); err != nil {
			return err
		}
		rep.Summary = o.Summary
		stepsErr = stepsError(sum.DataSteps, sum.Errors, o.AllowPartial)
	}
	switch {
	case rep.Failed > 0 || (o.FailOnMismatch && rep.Mismatched > 0):
		rep.ExitCode = exitFailed
	case stepsErr != nil:
		rep.ExitCode = exitDataSteps
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
	if rep.ExitCode == exitDataSteps {
		return stepsErr
	}
	if rep.ExitCode != 0 {
		return &ExitError{Code: rep.ExitCode}
	}
	return nil
}

// BaseStatus is the result of `ripple check-base`.
type BaseStatus struct {
	Status      string  `json:"status"` // fresh, stale_time, stale_sha, missing
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
		Long: "Exit code 0: the base artifacts are fresh; 1: stale (stale_time: older than --max-age; stale_sha: built before the newest commit\n" +
			"of the base branch that this branch contains); 2: missing or unreadable. get_server_info's base_status applies the same rule.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := dbt.ValidateMaxAge(maxAge); err != nil {
				return usageError{fmt.Errorf("--max-age: %w", err)}
			}
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
	cmd.Flags().DurationVar(&maxAge, "max-age", dbt.DefaultBaseMaxAge, "base artifacts older than this are stale (0: no age limit)")
	cmd.Flags().StringVar(&baseBranch, "base-branch", dbt.DefaultBaseBranch, "git branch the base artifacts are built from")
	return cmd
}

func checkBase(ctx context.Context, g *Globals, maxAge time.Duration, branch string, now time.Time) BaseStatus {
	paths := dbt.Paths{ProjectDir: g.ProjectDir, TargetPath: g.TargetPath, TargetBasePath: g.TargetBasePath}.WithDefaults()
	f, err := dbt.CheckBaseFreshness(ctx, paths, dbt.FreshnessOptions{MaxAge: maxAge, NoAgeLimit: maxAge == 0, Branch: branch, Now: now})
	if err != nil { // options are validated by the caller
		return BaseStatus{Status: dbt.BaseMissing, Reason: err.Error(), Path: paths.BaseDir(), ExitCode: exitUsage}
	}
	st := BaseStatus{Status: f.Status, Reason: f.Reason, Path: paths.BaseDir(), GeneratedAt: f.GeneratedAt, BaseCommit: f.BaseCommit}
	switch f.Status {
	case dbt.BaseMissing:
		st.ExitCode = 2
		return st
	case dbt.BaseStaleTime, dbt.BaseStaleSHA:
		st.ExitCode = 1
	}
	st.AgeHours = float64(f.Age.Round(time.Minute)) / float64(time.Hour)
	return st
}
