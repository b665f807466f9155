// Package cli is Ripple's command line. Operation commands are generated from
// the ops registry (one command per operation, flags from its input struct);
// a few commands (demo, mcp, sql-lineage, version) are written by hand.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/ripple-data/ripple/internal/checks"
	"github.com/ripple-data/ripple/internal/cli/render"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// Version is set at build time with -ldflags "-X .../internal/cli.Version=...".
var Version = "dev"

// IOStreams are the process streams; tests substitute buffers.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// ErrTTY is true when stderr is a terminal (progress may be drawn there).
	ErrTTY bool
	// Width is stdout's terminal width, 0 when it is not a terminal.
	Width int
}

// System returns the real process streams.
func System() IOStreams {
	tty := false
	if st, err := os.Stderr.Stat(); err == nil {
		tty = st.Mode()&os.ModeCharDevice != 0
	}
	width := 0
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
		width = w
	}
	return IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, ErrTTY: tty, Width: width}
}

// Globals are the flags shared by every command.
type Globals struct {
	ProjectDir           string
	TargetPath           string
	TargetBasePath       string
	ProfilesDir          string
	Profile              string
	Target               string
	DuckDB               string
	DuckDBExternalAccess bool
	// ProfilesFollowBackend lets set_backend read the profiles.yml of the
	// project it switches to (mcp --set-backend-profiles). Off, the
	// warehouse stays the one the startup project (or --profiles-dir)
	// names: an agent must not make the server send its env_var()
	// credentials to a host a directory's profiles.yml names.
	ProfilesFollowBackend bool
	MaxBytes              int64
	QueryTimeout          time.Duration
	StateFile             string
	JSON                  bool
	Verbose               bool
	// SingleEnv lets the comparing commands run without base artifacts
	// (base = current, every result carries the single-env warning).
	SingleEnv bool
	// KeepCosmetic counts cosmetic-only code edits as changes (dbt's
	// plain state:modified.body meaning) in impact verdicts.
	KeepCosmetic bool
	// Limits (issue #19; docs/security.md lists them all).
	StatementTimeout time.Duration
	MaxResultBytes   int64
	MaxCellBytes     int
	Runs             checks.RunLimits
	AllowedDirs      []string
}

// ExitError carries a process exit code.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Run executes the CLI and returns the process exit code. It never lets a
// panic or a Go stack trace reach the user.
func Run(ctx context.Context, args []string, io IOStreams) (code int) {
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(io.ErrOut, "error: internal error: %v (please report it)\n", v)
			code = exitFailed
		}
	}()
	root := NewRootCmd(io)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(io.ErrOut, "error: %v\n", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintf(io.ErrOut, "error: %v\n", err)
	return exitCode(err)
}

// usageError is an error in the form of the command line (ops.UsageError).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }
func (usageError) UsageError()     {}

// usageArgs makes every command's argument check return a usageError, so
// that a wrong number of arguments is found by type (cobra returns plain
// errors).
func usageArgs(c *cobra.Command) {
	if args := c.Args; args != nil {
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return usageError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// NewRootCmd builds the command tree.
func NewRootCmd(ios IOStreams) *cobra.Command {
	g := &Globals{}
	root := &cobra.Command{
		Use:   "ripple",
		Short: "What a dbt change really does to the data, before it is merged",
		Long: "Ripple compares the base build (target-base/) and the current build (target/) of a dbt project:\n" +
			"lineage, column-level lineage, data diffs pushed down to the warehouse, impact analysis and checks.\n" +
			"Every command prints JSON with --json; `ripple mcp` serves the same operations to AI agents.\n\n" + exitCodesHelp,
		Version:       versionLine(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("ripple {{.Version}}\n")
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetFlagErrorFunc(flagErrorFunc)
	g.bindFlags(root.PersistentFlags())

	reg := ops.Default()
	for _, op := range reg.Ops() {
		if !op.CustomCLI {
			root.AddCommand(opCommand(g, ios, op))
		}
	}
	for _, extra := range extraCommands() {
		root.AddCommand(extra(g, ios, reg))
	}
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print Ripple's version",
		RunE: func(c *cobra.Command, _ []string) error {
			if g.JSON {
				return writeJSON(ios.Out, versionInfo())
			}
			fmt.Fprintln(ios.Out, "ripple", versionLine())
			return nil
		},
	})
	// The root runs only to print its help or refuse an unknown command:
	// with Args set, cobra leaves the unknown command to it, so it is a
	// usageError (found by type) rather than cobra's plain error.
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
		var names []string
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				names = append(names, sub.Name())
			}
		}
		if near := dbt.Closest(args[0], names, 3); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		}
		return usageError{errors.New(msg + " (see `ripple --help`)")}
	}
	root.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	usageArgs(root)
	return root
}

// bindFlags defines the global flags on fs.
func (g *Globals) bindFlags(pf *pflag.FlagSet) {
	pf.StringVar(&g.ProjectDir, "project-dir", envOr("DBT_PROJECT_DIR", "."), "dbt project directory (env DBT_PROJECT_DIR)")
	pf.StringVar(&g.TargetPath, "target-path", envOr("DBT_TARGET_PATH", "target"), "current build artifacts, relative to the project dir (env DBT_TARGET_PATH)")
	pf.StringVar(&g.TargetBasePath, "target-base-path", envOr("RIPPLE_TARGET_BASE_PATH", "target-base"), "base build artifacts (env RIPPLE_TARGET_BASE_PATH)")
	pf.StringVar(&g.ProfilesDir, "profiles-dir", os.Getenv("DBT_PROFILES_DIR"), "directory of profiles.yml (env DBT_PROFILES_DIR; default: project dir, then ~/.dbt)")
	pf.StringVar(&g.Profile, "profile", os.Getenv("DBT_PROFILE"), "dbt profile (default: dbt_project.yml's profile)")
	pf.StringVar(&g.Target, "target", os.Getenv("DBT_TARGET"), "dbt target (default: the profile's target)")
	pf.StringVar(&g.DuckDB, "duckdb", os.Getenv("RIPPLE_DUCKDB"), "use this DuckDB file as the warehouse instead of profiles.yml")
	pf.BoolVar(&g.DuckDBExternalAccess, "duckdb-external-access", false, "allow DuckDB to read files and URLs outside the database (off by default)")
	pf.Int64Var(&g.MaxBytes, "max-bytes", 0, "refuse warehouse queries that would scan more bytes (BigQuery measures it with a dry run first); 0 = no limit")
	pf.StringVar(&g.StateFile, "state-file", "ripple_state.json", "checks and runs state file")
	pf.DurationVar(&g.StatementTimeout, "statement-timeout", 0, "stop each warehouse statement after this long, in the warehouse where it has a setting (default: the profile's statement_timeout, else 5m; negative: none)")
	pf.Int64Var(&g.MaxResultBytes, "max-result-bytes", warehouse.DefaultMaxResultBytes, "cap each query result at about this many bytes of rows (truncated: true when cut)")
	pf.IntVar(&g.MaxCellBytes, "max-cell-bytes", warehouse.DefaultMaxCellBytes, "shorten text values longer than this many bytes")
	pf.IntVar(&g.Runs.MaxRuns, "max-runs", checks.DefaultMaxRuns, "keep at most this many runs in memory and in the state file, oldest dropped first (every check's last run is kept; negative: no bound)")
	pf.Int64Var(&g.Runs.MaxRunBytes, "max-run-bytes", checks.DefaultMaxRunBytes, "keep at most about this many bytes of run results, oldest dropped first (negative: no bound)")
	pf.StringSliceVar(&g.AllowedDirs, "allow-dir", nil, "directories besides the project's that file inputs (compare-observed) may be read from")
	pf.BoolVar(&g.KeepCosmetic, "keep-cosmetic", false, "count a model whose SQL edit is cosmetic only (layout, comments, keyword case, aliases) as modified and impacted, as dbt's state:modified.body does; by default the SQL parser's verdict makes it not impacted")
	pf.BoolVar(&g.SingleEnv, "single-env", false, "allow comparing commands without base artifacts (target-base/): base is current, every result carries the single-environment warning; without it they exit 4 and say how to build the base")
	pf.BoolVar(&g.JSON, "json", false, "print the result as JSON (stdout carries only the result)")
	pf.BoolVarP(&g.Verbose, "verbose", "v", false, "log details to stderr")
}

// ParseGlobals parses global flags only (e.g. "--project-dir D --duckdb F")
// into Globals, so that an in-process MCP server can be configured exactly
// as `ripple mcp` configures it from the same flags.
func ParseGlobals(args []string) (*Globals, error) {
	g := &Globals{}
	fs := pflag.NewFlagSet("ripple", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.bindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, usageError{err}
	}
	return g, nil
}

// extraCommands are the hand-written commands (not generated from an operation).
func extraCommands() []func(g *Globals, ios IOStreams, reg *ops.Registry) *cobra.Command {
	return []func(g *Globals, ios IOStreams, reg *ops.Registry) *cobra.Command{
		newMCPCommand, newDemoCmd, newRunCmd, newCheckBaseCmd, newSQLLineageCmd, newSQLDiffCmd, newServeCmd,
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// NewSession builds the operation session from the global flags.
func (g *Globals) NewSession(ios IOStreams) *ops.Session {
	level := slog.LevelWarn
	if g.Verbose {
		level = slog.LevelDebug
	}
	return ops.NewSession(ops.Config{
		Paths:         dbt.Paths{ProjectDir: g.ProjectDir, TargetPath: g.TargetPath, TargetBasePath: g.TargetBasePath},
		OpenWarehouse: g.warehouseOpener(),
		StatePath:     g.StateFile,
		Runs:          g.Runs,
		AllowedDirs:   g.AllowedDirs,
		Logger:        slog.New(slog.NewTextHandler(ios.ErrOut, &slog.HandlerOptions{Level: level})),
		KeepCosmetic:  g.KeepCosmetic,
	})
}

func opCommand(g *Globals, ios IOStreams, op *ops.Op) *cobra.Command {
	cmd := &cobra.Command{
		Use:   op.CLIName(),
		Short: op.Title,
		Long:  op.Description,
	}
	if op.Name == "select_nodes" {
		cmd.Aliases = []string{"select"}
	}
	flags := bindInputFlags(cmd.Flags(), op.InputType(), op.RequiredParams())
	positional := positionalField(op, flags)
	if positional != "" {
		f, _ := flags.field(positional)
		if f.kind == reflect.Slice {
			cmd.Use += " [" + f.flag + "...]"
		} else {
			cmd.Use += " [" + f.flag + "]"
			cmd.Args = cobra.MaximumNArgs(1)
		}
	} else {
		cmd.Args = cobra.NoArgs
	}
	var allowPartial bool
	cmd.RunE = func(c *cobra.Command, args []string) error {
		in, err := flags.args(c.Flags())
		if err != nil {
			return usageError{err}
		}
		if len(args) > 0 {
			f, _ := flags.field(positional)
			if _, both := in[positional]; both {
				return usageError{fmt.Errorf("%s given twice: as an argument and as --%s", f.flag, f.flag)}
			}
			if f.kind == reflect.Slice {
				in[positional] = args
			} else if len(args) == 1 {
				in[positional] = args[0]
			} else {
				return usageError{fmt.Errorf("%s takes one %s", op.CLIName(), f.flag)}
			}
		}
		raw, err := json.Marshal(in)
		if err != nil {
			return err
		}
		s := g.NewSession(ios)
		defer s.Close()
		ctx := c.Context()
		if ios.ErrTTY && !g.JSON {
			ctx = ops.WithProgress(ctx, ttyProgress(ios.ErrOut))
			defer fmt.Fprint(ios.ErrOut, "\r\033[K")
		}
		if comparing(op) {
			if err := g.requireBase(ctx, s); err != nil {
				return err
			}
		}
		out, err := op.CallJSON(ctx, s, raw)
		if err != nil {
			return flagError(ctx, s, flags, positional, in, err)
		}
		warnArtifacts(ctx, s, ios.ErrOut)
		if g.JSON {
			err = writeJSON(ios.Out, out)
		} else {
			err = render.Text(ios.Out, op.Name, out, ios.renderOptions())
		}
		if err != nil {
			return err
		}
		return dataStepsExit(out, allowPartial)
	}
	if dataStepOps[op.Name] {
		cmd.Flags().BoolVar(&allowPartial, "allow-partial", false,
			"exit 0 when only some data steps failed (the result lists them in errors); without it any failed data step exits 4, and no data step at all exits 4 regardless")
	}
	return cmd
}

// ttyProgress draws one self-overwriting progress line on a terminal.
func ttyProgress(w io.Writer) ops.ProgressFunc {
	return func(progress, total float64, message string) {
		if total > 0 {
			fmt.Fprintf(w, "\r\033[K%3.0f%% %s", 100*progress/total, message)
			return
		}
		fmt.Fprintf(w, "\r\033[K%s", message)
	}
}

// renderOptions sizes human text to the terminal.
func (ios IOStreams) renderOptions() render.Options {
	return render.Options{Width: ios.Width}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
