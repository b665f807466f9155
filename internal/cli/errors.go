package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/ops"
)

// Exit codes of every command (documented in `ripple --help` and docs/cli.md).
const (
	exitOK = 0
	// exitFailed: the command failed (bad project, warehouse error, ...);
	// also `run`: a check failed or mismatched, `check-base`: stale base.
	exitFailed = 1
	// exitUsage: a flag, argument or parameter is wrong; also `run`: bad
	// ripple.yml, `check-base`: no base artifacts.
	exitUsage = 2
	// exitDataSteps: impact-analysis, summary or run printed a result, but
	// warehouse steps failed (all of them, or some without --allow-partial).
	exitDataSteps = 4
)

// exitCodes is the CLI's row of the caller-error table: every error a
// command returns is classified once (ops.Classify) and exits by its class.
// A name that matches nothing, an ambiguous name, a wrong parameter and a
// malformed command line are the caller's to fix: exit 2.
var exitCodes = map[ops.ErrorClass]int{
	ops.ClassNotFound:         exitUsage,
	ops.ClassAmbiguous:        exitUsage,
	ops.ClassInvalidParameter: exitUsage,
	ops.ClassUsage:            exitUsage,
	ops.ClassNoWarehouse:      exitFailed,
	ops.ClassDataStepFailed:   exitFailed,
	ops.ClassInternal:         exitFailed,
}

// exitCode is the exit status of an error a command returned.
func exitCode(err error) int {
	if code, ok := exitCodes[ops.Classify(err)]; ok {
		return code
	}
	return exitFailed
}

// exitCodesHelp is the exit-code table of `ripple --help`.
const exitCodesHelp = "Exit codes:\n" +
	"  0  ok\n" +
	"  1  error (run: a check failed or found a mismatch; check-base: the base is stale;\n" +
	"     sql-lineage: the lineage is opaque; the result is still printed)\n" +
	"  2  usage: a flag, argument or parameter is wrong, or a model, column, selector or check names\n" +
	"     nothing or more than one node (run: bad ripple.yml; check-base: no base artifacts)\n" +
	"  4  the data could not be checked: no base artifacts for a comparing command (without --single-env);\n" +
	"     impact-analysis, summary, run: warehouse steps failed, the result is still printed\n" +
	"     (--allow-partial exits 0 when only some failed, never when all did)"

// comparing reports whether op compares base with current: the diff tools,
// and the summary and lineage diagram built on the impact analysis.
func comparing(op *ops.Op) bool {
	return op.DiffTool || op.Name == "summary" || op.Name == "render_lineage_mermaid"
}

// requireBase refuses a comparison without base artifacts unless
// --single-env asked for one: without it, a CI job that forgot to build the
// base would pass on "nothing changed". It says so before anything else runs
// and exits exitDataSteps ("the data could not be checked"). An artifact
// load error is left to the operation, which explains it.
func (g *Globals) requireBase(ctx context.Context, s *ops.Session) error {
	p, err := s.Project(ctx)
	if err != nil || !p.SingleEnv || g.SingleEnv {
		return nil
	}
	return &ExitError{Code: exitDataSteps, Err: dbt.NoBaseError(p.Paths, "--single-env")}
}

// dataStepOps are the operations whose result says which warehouse steps
// failed; they exit exitDataSteps when steps failed.
var dataStepOps = map[string]bool{"impact_analysis": true, "summary": true}

// dataStepsExit is the exit of an operation that printed its result: an
// ExitError when warehouse steps failed (all of them, or some without
// allowPartial), nil otherwise.
func dataStepsExit(out any, allowPartial bool) error {
	var status string
	var errs []impact.StepError
	switch r := out.(type) {
	case *impact.Result:
		status, errs = r.DataSteps(), r.Errors
	case *ops.SummaryResult:
		status, errs = r.DataSteps, r.Errors
	default:
		return nil
	}
	return stepsError(status, errs, allowPartial)
}

func stepsError(status string, errs []impact.StepError, allowPartial bool) error {
	switch {
	case status == impact.DataStepsFailed:
		return &ExitError{Code: exitDataSteps, Err: fmt.Errorf("the data could not be checked: %s", firstStepError(errs))}
	case status == impact.DataStepsPartial && !allowPartial:
		return &ExitError{Code: exitDataSteps, Err: fmt.Errorf("%d data step(s) failed (first: %s); the result lists them in errors; pass --allow-partial to exit 0 on partial results",
			len(errs), firstStepError(errs))}
	}
	return nil
}

func firstStepError(errs []impact.StepError) string {
	if len(errs) == 0 {
		return "no step reported why"
	}
	e := errs[0]
	return strings.TrimSpace(e.Step+" "+e.Model) + ": " + e.Message
}

// positionalField is the input field positional arguments fill: the
// registry's choice, else the model (every command that takes one model
// takes it as its first argument).
func positionalField(op *ops.Op, flags *inputFlags) string {
	if op.Positional != "" {
		return op.Positional
	}
	for _, f := range flags.fields {
		if f.flag == "model" {
			return f.json
		}
	}
	if f, ok := flags.field("focus"); ok && op.Name == "lineage" {
		return f.json
	}
	return ""
}

// flagError words an operation's input error in the CLI's terms: the flag,
// not the JSON parameter, and for a missing key the key the project tests.
func flagError(ctx context.Context, s *ops.Session, flags *inputFlags, positional string, in map[string]any, err error) error {
	var ie *ops.InputError
	if !errors.As(err, &ie) {
		return err
	}
	param, problem, ok := ie.Param()
	if !ok {
		return usageError{errors.New(strings.TrimPrefix(err.Error(), "Input validation error: "))}
	}
	flag := flags.flagOf(param)
	msg := flag + " " + problem
	if problem == "is required" {
		if param == positional {
			msg += " (or give it as the first argument)"
		}
		if flag == "--primary-key" {
			msg += keyHint(ctx, s, in)
		}
	}
	return usageError{errors.New(msg)}
}

// keyHint names the key the model's tests or constraints declare, so the
// user can type it: "; the model's unique test says order_id".
func keyHint(ctx context.Context, s *ops.Session, in map[string]any) string {
	model := ""
	for _, k := range []string{"model", "model_id", "node_id"} {
		if v, ok := in[k].(string); ok && v != "" {
			model = v
			break
		}
	}
	if model == "" {
		return ""
	}
	p, err := s.Project(ctx)
	if err != nil || p.Current == nil {
		return ""
	}
	n, err := p.Current.Manifest.Lookup(model)
	if err != nil {
		return ""
	}
	k := p.Current.Manifest.PrimaryKeyOf(n.UniqueID)
	if k == nil {
		return "; " + n.Name + " has no unique test or primary key constraint, so name the column(s) that identify a row"
	}
	cols := strings.Join(k.Columns, ",")
	switch {
	case k.Basis == dbt.KeyTested && len(k.Columns) == 1:
		return fmt.Sprintf("; the model's unique test says %s (--primary-key %s)", cols, cols)
	case k.Basis == dbt.KeyTested:
		return fmt.Sprintf("; the model's unique_combination_of_columns test says %s (--primary-key %s)", cols, cols)
	}
	return fmt.Sprintf("; the model declares %s (--primary-key %s)", cols, cols)
}

var unknownFlagRe = regexp.MustCompile(`^unknown (?:shorthand )?flag: '?-{0,2}([^' ]+)'?`)

// flagErrorFunc turns pflag's parse errors into usage errors, naming the
// closest flags for an unknown one (hidden aliases excluded).
func flagErrorFunc(c *cobra.Command, err error) error {
	m := unknownFlagRe.FindStringSubmatch(err.Error())
	if m == nil {
		return usageError{err}
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Name != "help" {
			names = append(names, f.Name)
		}
	})
	sort.Strings(names)
	near := dbt.Closest(m[1], names, 3)
	if len(near) == 0 {
		return usageError{fmt.Errorf("%w (see `%s --help`)", err, c.CommandPath())}
	}
	for i := range near {
		near[i] = "--" + near[i]
	}
	return usageError{fmt.Errorf("%w; did you mean %s? (see `%s --help`)", err, strings.Join(near, " or "), c.CommandPath())}
}

// warnArtifacts says on stderr what Ripple ignored while loading the
// artifacts (a corrupt catalog.json), once per command.
func warnArtifacts(ctx context.Context, s *ops.Session, w io.Writer) {
	p, err := s.Project(ctx)
	if err != nil || p == nil {
		return
	}
	seen := map[string]bool{}
	for _, e := range []*dbt.Env{p.Current, p.Base} {
		if e != nil && e.CatalogProblem != nil && !seen[e.Dir] {
			seen[e.Dir] = true
			fmt.Fprintf(w, "warning: %v\n", e.CatalogProblem)
		}
	}
}
