package cli

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/ops"
)

// runCLI runs the CLI in-process with no project.
func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return result{code: code, out: out.String(), err: errOut.String()}
}

type vocabularyInput struct {
	ModelID     string   `json:"model_id" jsonschema:"the model"`
	ColumnName  string   `json:"column_name" jsonschema:"the column"`
	PrimaryKeys []string `json:"primary_keys" jsonschema:"the key"`
	Limit       int      `json:"limit" jsonschema:"rows"`
}

// The CLI names follow one vocabulary whatever the JSON (the MCP contract)
// calls them, and the JSON spellings stay accepted, hidden.
func TestFlagVocabulary(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want map[string]any
	}{
		{[]string{"--model", "orders", "--column", "amount", "--primary-key", "a,b", "--limit", "3"},
			map[string]any{"model_id": "orders", "column_name": "amount", "primary_keys": []string{"a", "b"}, "limit": int64(3)}},
		{[]string{"--model-id", "orders", "--column-name", "amount", "--primary-keys", "a", "--primary-key", "b"},
			map[string]any{"model_id": "orders", "column_name": "amount", "primary_keys": []string{"a", "b"}}},
		{[]string{"--node-id", "orders", "--key", "a"}, map[string]any{"model_id": "orders", "primary_keys": []string{"a"}}},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		flags := bindInputFlags(fs, reflect.TypeFor[vocabularyInput](), []string{"model_id"})
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		got, err := flags.args(fs)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: got %#v (%v), want %#v", tc.args, got, err, tc.want)
		}
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	flags := bindInputFlags(fs, reflect.TypeFor[vocabularyInput](), []string{"model_id"})
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if want := []string{"column", "limit", "model", "primary-key"}; !reflect.DeepEqual(names, want) {
		t.Errorf("flags %v, want %v", names, want)
	}
	if u := fs.Lookup("model").Usage; !strings.HasPrefix(u, "(required) ") {
		t.Errorf("--model usage %q does not say it is required", u)
	}
	if got := flags.flagOf("primary_keys"); got != "--primary-key" {
		t.Errorf("flagOf(primary_keys) = %q", got)
	}
}

// No generated command shows another spelling of the model, the column or
// the key; every command with one model takes it as its first argument.
func TestEveryCommandSpeaksTheVocabulary(t *testing.T) {
	root := NewRootCmd(IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	for _, op := range ops.Default().Ops() {
		if op.CustomCLI {
			continue
		}
		cmd, _, err := root.Find([]string{op.CLIName()})
		if err != nil {
			t.Fatalf("%s: %v", op.CLIName(), err)
		}
		cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				return
			}
			switch f.Name {
			case "model-id", "node-names", "column-name", "primary-keys":
				t.Errorf("%s shows --%s", op.CLIName(), f.Name)
			case "node-id":
				t.Errorf("%s shows --node-id (the model is --model)", op.CLIName())
			}
		})
		if f := cmd.LocalFlags().Lookup("model"); f != nil && !strings.Contains(cmd.Use, "[model") {
			t.Errorf("%s has --model but no positional model: %q", op.CLIName(), cmd.Use)
		}
	}
	for _, name := range []string{"value-diff", "get-model", "get-cll", "histogram-diff", "top-k-diff", "profile-diff", "column-impact", "schema-diff", "row-count-diff", "analyze-model"} {
		cmd, _, _ := root.Find([]string{name})
		if cmd.LocalFlags().Lookup("model") == nil {
			t.Errorf("%s has no --model", name)
		}
	}
}

func TestUnknownFlagSuggests(t *testing.T) {
	r := runCLI(t, "value-diff", "--primry-key", "order_id")
	if r.code != 2 || !strings.Contains(r.err, "unknown flag: --primry-key") || !strings.Contains(r.err, "did you mean --primary-key") {
		t.Errorf("exit %d, stderr %q", r.code, r.err)
	}
	// Hidden aliases are accepted but never suggested.
	r = runCLI(t, "get-model", "--model-idd", "x")
	if r.code != 2 || !strings.Contains(r.err, "did you mean --model") || strings.Contains(r.err, "--model-id?") {
		t.Errorf("exit %d, stderr %q", r.code, r.err)
	}
}

func TestRequiredFlagsInHelp(t *testing.T) {
	r := runCLI(t, "value-diff", "--help")
	for _, want := range []string{"value-diff [model] [flags]", "--model string", "(required) model name", "--primary-key strings", "(required) unique key"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("help lacks %q:\n%s", want, r.out)
		}
	}
}

func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		r := runCLI(t, args...)
		if r.code != 0 || !strings.HasPrefix(r.out, "ripple ") || !strings.Contains(r.out, "reads dbt manifests v7–v12") {
			t.Errorf("%v: exit %d, stdout %q", args, r.code, r.out)
		}
	}
	r := runCLI(t, "version", "--json")
	if r.code != 0 || !strings.Contains(r.out, `"dbt_manifest_versions": "v7–v12"`) {
		t.Errorf("version --json: %q", r.out)
	}
}

func TestHelpListsExitCodes(t *testing.T) {
	r := runCLI(t, "--help")
	for _, want := range []string{"Exit codes:", "  2  usage", "  4  the data could not be checked: no base artifacts", "impact-analysis, summary, run: warehouse steps failed"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("help lacks %q:\n%s", want, r.out)
		}
	}
}

func TestDataStepsExit(t *testing.T) {
	n := int64(3)
	measured := &impact.Model{Name: "orders", RowCount: &impact.RowCount{Base: &n, Current: &n}}
	blind := &impact.Model{Name: "customers"}
	fail := []impact.StepError{{Step: "row_count_diff", Model: "customers", Message: "boom"}}
	for _, tc := range []struct {
		name         string
		res          *impact.Result
		allowPartial bool
		code         int
		says         string
	}{
		{"ok", &impact.Result{ConfirmedImpactedModels: []*impact.Model{blind}}, false, 0, ""},
		{"partial", &impact.Result{ConfirmedImpactedModels: []*impact.Model{measured, blind}, Errors: fail}, false, 4, "1 data step(s) failed (first: row_count_diff customers: boom)"},
		{"partial allowed", &impact.Result{ConfirmedImpactedModels: []*impact.Model{measured, blind}, Errors: fail}, true, 0, ""},
		{"all failed", &impact.Result{ConfirmedImpactedModels: []*impact.Model{blind}, Errors: fail}, true, 4, "the data could not be checked: row_count_diff customers: boom"},
	} {
		err := dataStepsExit(tc.res, tc.allowPartial)
		var ee *ExitError
		switch {
		case tc.code == 0 && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.code != 0 && (!errors.As(err, &ee) || ee.Code != tc.code || !strings.Contains(ee.Error(), tc.says)):
			t.Errorf("%s: got %v, want exit %d saying %q", tc.name, err, tc.code, tc.says)
		}
		sum := &ops.SummaryResult{DataSteps: tc.res.DataSteps(), Errors: tc.res.Errors}
		if got := dataStepsExit(sum, tc.allowPartial); (got == nil) != (err == nil) {
			t.Errorf("%s: summary %v, impact %v", tc.name, got, err)
		}
	}
}

// A schema error is worded as a flag error, with the key the project tests.
func TestMissingKeySaysTheTestedKey(t *testing.T) {
	p := build(t, dataOnly)
	r := p.ripple(t, "value-diff", "customers")
	if r.code != 2 || r.err != "error: --primary-key is required; the model's unique test says id (--primary-key id)\n" {
		t.Errorf("exit %d, stderr %q", r.code, r.err)
	}
	r = p.ripple(t, "value-diff", "--primary-key", "id")
	if r.code != 2 || r.err != "error: --model is required (or give it as the first argument)\n" {
		t.Errorf("exit %d, stderr %q", r.code, r.err)
	}
	// The positional model and the hidden alias give the same answer.
	a := p.ripple(t, "value-diff", "customers", "--primary-key", "id", "--json")
	b := p.ripple(t, "value-diff", "--model-id", "customers", "--primary-keys", "id", "--json")
	runID := regexp.MustCompile(`(?m)^.*"run_id".*$`)
	if a.code != 0 || a.out == "" || runID.ReplaceAllString(a.out, "") != runID.ReplaceAllString(b.out, "") {
		t.Errorf("positional:\n%s%s\nalias:\n%s%s", a.out, a.err, b.out, b.err)
	}
}
