package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Issue #15, items 2, 3 and 5 as a new user meets them: one flag
// vocabulary, errors that say what to type, failures that fail.

// withoutRunIDs drops the fields that differ between two runs of one call.
var runFields = regexp.MustCompile(`(?m)^\s*"(run_id|run_at|duration_ms|elapsed_ms)".*$`)

func TestFlagVocabulary(t *testing.T) {
	t.Parallel()
	// The model is --model or the first argument, whatever the JSON
	// parameter is called; the old spellings are hidden aliases.
	for _, tc := range []struct {
		name  string
		forms [][]string
	}{
		{"get-model", [][]string{{"get-model", "customers"}, {"get-model", "--model", "customers"}, {"get-model", "--model-id", "customers"}}},
		{"get-cll", [][]string{{"get-cll", "orders", "--column", "amount"}, {"get-cll", "--model", "orders", "--column", "amount"}, {"get-cll", "--node-id", "orders", "--column", "amount"}}},
		{"top-k-diff", [][]string{{"top-k-diff", "orders", "--column", "status"}, {"top-k-diff", "--model", "orders", "--column-name", "status"}}},
		{"value-diff", [][]string{{"value-diff", "orders", "--primary-key", "order_id"}, {"value-diff", "--model", "orders", "--primary-keys", "order_id"}}},
		{"row-count-diff", [][]string{{"row-count-diff", "orders", "customers"}, {"row-count-diff", "--model", "orders", "--model", "customers"}, {"row-count-diff", "--node-names", "orders,customers"}}},
		{"schema-diff", [][]string{{"schema-diff", "orders"}, {"schema-diff", "--model", "model.jaffle_shop.orders"}, {"schema-diff", "--node-id", "orders"}}},
		{"openlineage-export", [][]string{{"openlineage-export", "orders"}, {"openlineage-export", "--models", "orders"}}},
		{"query-diff", [][]string{
			{"query-diff", "--sql-template", "select customer_id, count(*) n from {{ ref('orders') }} group by 1", "--primary-key", "customer_id"},
			{"query-diff", "--sql-template", "select customer_id, count(*) n from {{ ref('orders') }} group by 1", "--primary-keys", "customer_id"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var first []byte
			for i, args := range tc.forms {
				r := ripple(t, append(args, "--json")...)
				if r.code != 0 {
					t.Fatalf("%s", r)
				}
				got := runFields.ReplaceAll(r.stdout, nil)
				if i == 0 {
					first = got
				} else if !bytes.Equal(got, first) {
					t.Errorf("%v answers differently from %v:\n%s\nvs\n%s", args, tc.forms[0], clip(got), clip(first))
				}
			}
		})
	}
	t.Run("help shows one spelling, required flags marked", func(t *testing.T) {
		t.Parallel()
		for cmd, want := range map[string][]string{
			"value-diff":     {"value-diff [model]", "--model string", "--primary-key strings", "(required)"},
			"get-model":      {"get-model [model]", "--model string"},
			"histogram-diff": {"histogram-diff [model]", "--column string"},
			"query-diff":     {"--primary-key strings"},
			"column-impact":  {"column-impact [model]", "--model string"},
		} {
			r := execRipple(t, cmd, "--help")
			out := string(r.stdout)
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("%s --help lacks %q:\n%s", cmd, w, out)
				}
			}
			for _, hidden := range []string{"--model-id", "--node-id", "--node-names", "--column-name", "--primary-keys"} {
				if strings.Contains(out, hidden+" ") {
					t.Errorf("%s --help shows %s:\n%s", cmd, hidden, out)
				}
			}
		}
	})
	t.Run("--version", func(t *testing.T) {
		t.Parallel()
		r := execRipple(t, "--version")
		if r.code != 0 || !regexp.MustCompile(`^ripple \S+.*; reads dbt manifests v7–v12\n$`).Match(r.stdout) {
			t.Errorf("%s", r)
		}
	})
}

func TestErrorsSayWhatToType(t *testing.T) {
	t.Parallel()
	needSuite(t)
	t.Run("missing key names the flag and the tested key", func(t *testing.T) {
		t.Parallel()
		r := ripple(t, "value-diff", "--model", "orders")
		wantError(t, r, 2, true, "--primary-key is required", "the model's unique test says order_id")
		if strings.Contains(string(r.stderr), "Input validation error") || strings.Contains(string(r.stderr), "validating root") {
			t.Errorf("schema wording reached the user:\n%s", r)
		}
	})
	t.Run("schema-diff: a model name with a typo", func(t *testing.T) {
		t.Parallel()
		wantError(t, ripple(t, "schema-diff", "ordrs"), 2, true, `node id "ordrs"`, `did you mean "orders"`)
	})
	t.Run("unknown flag suggests the closest", func(t *testing.T) {
		t.Parallel()
		wantError(t, ripple(t, "value-diff", "orders", "--primry-key", "order_id"), 2, true, "unknown flag: --primry-key", "did you mean --primary-key?")
		wantError(t, ripple(t, "lineage-diff", "--selct", "orders"), 2, true, "did you mean --select?")
	})
	t.Run("missing table: one hint", func(t *testing.T) {
		t.Parallel()
		r := ripple(t, "query", "--sql-template", "select * from no_such_table")
		wantError(t, r, 1, false, "no_such_table", "the relation is missing in this target")
		if n := strings.Count(string(r.stderr), "(the relation is missing"); n != 1 {
			t.Errorf("the hint is given %d times:\n%s", n, r)
		}
	})
	t.Run("bad manifest: the file and the field, no Go types", func(t *testing.T) {
		t.Parallel()
		dir := copyDemoArtifacts(t)
		path := filepath.Join(dir, "target", "manifest.json")
		editJSON(t, path, func(m map[string]any) {
			m["nodes"].(map[string]any)["model.jaffle_shop.orders"].(map[string]any)["name"] = 42
		})
		r := execRipple(t, "--project-dir", dir, "lineage-diff", "--json")
		wantError(t, r, 1, true, path, "field ", "name", "a JSON number where dbt writes a string")
		for _, leak := range []string{"Go struct", "of type", "json: "} {
			if strings.Contains(string(r.stderr), leak) {
				t.Errorf("%q reached the user:\n%s", leak, r)
			}
		}
	})
	t.Run("corrupt catalog is handled like a missing one, and said", func(t *testing.T) {
		t.Parallel()
		dir := copyDemoArtifacts(t)
		path := filepath.Join(dir, "target", "catalog.json")
		if err := os.WriteFile(path, []byte("{\"nodes\": {"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := execRipple(t, "--project-dir", dir, "lineage-diff", "--json")
		if r.code != 0 {
			t.Fatalf("%s", r)
		}
		decodeOnly(t, r)
		msg := string(r.stderr)
		if !strings.HasPrefix(msg, "warning: "+path+" is not a valid dbt catalog") || !strings.Contains(msg, "as if it were missing") || !strings.Contains(msg, "dbt docs generate") {
			t.Errorf("the corrupt catalog is not reported:\n%s", r)
		}
		// The same answer as without the file.
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		missing := execRipple(t, "--project-dir", dir, "lineage-diff", "--json")
		if missing.code != 0 || !bytes.Equal(missing.stdout, r.stdout) {
			t.Errorf("a corrupt catalog answers differently from a missing one:\n%s\n%s", r, missing)
		}
	})
}

func TestFailuresFail(t *testing.T) {
	t.Parallel()
	needSuite(t)
	nope := filepath.Join(t.TempDir(), "nope.duckdb")
	for _, tc := range []struct {
		name string
		args []string
		says string
	}{
		{"impact-analysis --target prdo", []string{"--target", "prdo", "impact-analysis"}, `target "prdo"`},
		{"impact-analysis --duckdb missing", []string{"--duckdb", nope, "impact-analysis"}, "nope.duckdb"},
		{"impact-analysis --duckdb missing --allow-partial", []string{"--duckdb", nope, "impact-analysis", "--allow-partial", "--json"}, "nope.duckdb"},
		{"summary --duckdb missing", []string{"--duckdb", nope, "summary"}, "nope.duckdb"},
		{"summary --target prdo", []string{"--target", "prdo", "summary"}, `target "prdo"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := execRipple(t, append([]string{"--project-dir", suite.demoDir}, tc.args...)...)
			if r.code != 4 {
				t.Errorf("exit %d, want 4:\n%s", r.code, r)
			}
			if msg := string(r.stderr); !strings.HasPrefix(msg, "error: the data could not be checked: ") || !strings.Contains(msg, tc.says) {
				t.Errorf("stderr does not say why:\n%s", r)
			}
			if len(r.stdout) == 0 {
				t.Errorf("the result is not printed:\n%s", r)
			}
			if tc.args[len(tc.args)-1] == "summary" {
				top, _, ok := strings.Cut(string(r.stdout), "## Lineage")
				if !ok || !strings.Contains(top, "**The data could not be checked**") || !strings.Contains(top, tc.says) || strings.Contains(string(r.stdout), "<details>") {
					t.Errorf("the summary does not open with the error:\n%s", r)
				}
			}
		})
	}
	t.Run("run --summary with no warehouse", func(t *testing.T) {
		t.Parallel()
		work := t.TempDir()
		r := execRipple(t, "--project-dir", suite.demoDir, "--duckdb", nope, "--state-file", filepath.Join(work, "state.json"),
			"run", "--no-presets", "--summary", filepath.Join(work, "summary.md"))
		if r.code != 4 || !strings.Contains(string(r.stderr), "error: the data could not be checked: ") {
			t.Errorf("exit %d, want 4:\n%s", r.code, r)
		}
	})
	t.Run("the demo itself exits 0", func(t *testing.T) {
		t.Parallel()
		if r := ripple(t, "summary"); r.code != 0 || strings.Contains(string(r.stdout), "could not be checked") {
			t.Errorf("%s", r)
		}
	})
	t.Run("ripple --help documents the codes", func(t *testing.T) {
		t.Parallel()
		r := execRipple(t, "--help")
		for _, w := range []string{"Exit codes:", "  0  ok", "  1  error", "  2  usage", "  4  the data could not be checked", "impact-analysis, summary, run: warehouse steps failed", "--allow-partial"} {
			if !strings.Contains(string(r.stdout), w) {
				t.Errorf("--help lacks %q:\n%s", w, r)
			}
		}
	})
}

// copyDemoArtifacts copies the demo's artifacts (not its database) into a
// new project directory the test may break.
func copyDemoArtifacts(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"target", "target-base"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"manifest.json", "catalog.json"} {
			data, err := os.ReadFile(filepath.Join(suite.demoDir, sub, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, sub, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func editJSON(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
