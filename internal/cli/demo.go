package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ripple-data/ripple/internal/cli/render"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/demo"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/open"
)

// demoOptions are the flags of `ripple demo`.
type demoOptions struct {
	Dir   string
	Serve bool
	serve serveOptions
}

func newDemoCmd(g *Globals, ios IOStreams, reg *ops.Registry) *cobra.Command {
	o := &demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Build the embedded DuckDB demo project and print its impact analysis",
		Long: "Writes a jaffle-shop-style dbt project into --dir: a DuckDB file with the base and current builds of a pull request,\n" +
			"target-base/ and target/ artifacts, then runs impact_analysis on it. Re-running rebuilds it from scratch.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runDemo(c.Context(), g, ios, reg, o) },
	}
	cmd.Flags().StringVar(&o.Dir, "dir", "ripple-demo", "directory to write the demo project into")
	cmd.Flags().BoolVar(&o.Serve, "serve", false, "then serve the review UI on it (like ripple serve: --host, --port, --read-only)")
	o.serve.bindListen(cmd)
	return cmd
}

func runDemo(ctx context.Context, g *Globals, ios IOStreams, reg *ops.Registry, o *demoOptions) error {
	start := time.Now()
	fmt.Fprintf(ios.ErrOut, "building the demo project in %s ...\n", o.Dir)
	built, err := demo.Build(ctx, o.Dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(ios.ErrOut, "built base and current in %s (%.1fs); running impact_analysis\n", built.DBPath, time.Since(start).Seconds())
	s := ops.NewSession(ops.Config{
		Paths: built.Paths,
		OpenWarehouse: func(ctx context.Context, _ *dbt.Project) (warehouse.Conn, error) {
			return open.Open(ctx, profiles.Target{Type: "duckdb", Path: built.DBPath, Database: built.Database}, open.OpenOptions{ReadOnly: true})
		},
		Logger: g.NewSession(ios).Logger(),
	})
	defer s.Close()
	op, _ := reg.Get("impact_analysis")
	out, err := op.CallJSON(ctx, s, json.RawMessage(`{}`))
	if err != nil {
		return err
	}
	if g.JSON {
		return writeJSON(ios.Out, out)
	}
	if err := render.Text(ios.Out, op.Name, out, ios.renderOptions()); err != nil {
		return err
	}
	rel := built.Dir
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, built.Dir); err == nil {
			rel = r
		}
	}
	fmt.Fprintf(ios.Out, "\nExplore it (%.1fs in all):\n", time.Since(start).Seconds())
	flags := fmt.Sprintf("--project-dir %s --duckdb %s", rel, filepath.Join(rel, filepath.Base(built.DBPath)))
	self := selfCommand()
	for _, ex := range []string{
		"lineage-diff", "value-diff --model orders --primary-key order_id",
		"profile-diff --model customers", "render-lineage-mermaid", "impact-analysis --json",
	} {
		fmt.Fprintf(ios.Out, "  %s %s %s\n", self, flags, ex)
	}
	fmt.Fprintf(ios.Out, "Review it in a browser:\n  %s %s serve    (then open http://127.0.0.1:8000/; or run `%s demo --serve`)\n", self, flags, self)
	if !o.Serve {
		return nil
	}
	dg := *g
	dg.ProjectDir, dg.TargetPath, dg.TargetBasePath, dg.DuckDB = built.Paths.ProjectDir, built.Paths.TargetPath, built.Paths.TargetBasePath, built.DBPath
	ds := dg.NewSession(ios)
	defer ds.Close()
	return serveUI(ctx, &dg, ios, reg, ds, &o.serve)
}

// selfCommand is how the user can run this very binary again, so the
// demo's "Explore it" lines can be pasted as they are: "ripple" when that
// name on the PATH is this binary, "go run ./cmd/ripple" under `go run`
// (its binary lives in a temporary go-build directory), else the path.
func selfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "ripple"
	}
	onPath, _ := exec.LookPath("ripple")
	wd, _ := os.Getwd()
	return runnableCommand(exe, onPath, wd)
}

// runnableCommand is selfCommand's decision for the executable exe, the
// "ripple" found on the PATH (empty when none) and the working directory.
func runnableCommand(exe, onPath, wd string) string {
	if onPath != "" {
		a, errA := os.Stat(exe)
		b, errB := os.Stat(onPath)
		if errA == nil && errB == nil && os.SameFile(a, b) {
			return "ripple"
		}
	}
	if strings.Contains(filepath.ToSlash(exe), "/go-build") {
		return "go run ./cmd/ripple"
	}
	if wd != "" {
		if r, err := filepath.Rel(wd, exe); err == nil && !strings.HasPrefix(r, "..") {
			exe = "." + string(filepath.Separator) + r
		}
	}
	return shellQuote(exe)
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// characters safe in a path.
func shellQuote(s string) string {
	safe := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./-+:@%", r)
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !safe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
