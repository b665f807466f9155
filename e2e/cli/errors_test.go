package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// User-facing error behaviour of the binary. Every invocation also checks
// (in execRipple) that no Go stack trace reaches the user.

// anyFailure accepts any non-zero exit code.
const anyFailure = -1

// wantError checks a failed command: the exit code, nothing on stdout, and
// stderr starting with "error: ".
func wantError(t *testing.T, r result, code int, oneLine bool, mentions ...string) {
	t.Helper()
	if code == anyFailure && r.code == 0 || code != anyFailure && r.code != code {
		t.Errorf("exit %d, want %d:\n%s", r.code, code, r)
	}
	if len(r.stdout) != 0 {
		t.Errorf("stdout is not empty on error:\n%s", r)
	}
	msg := string(r.stderr)
	if !strings.HasPrefix(msg, "error: ") {
		t.Errorf("stderr does not start with \"error: \":\n%s", r)
	}
	if oneLine && strings.Count(strings.TrimRight(msg, "\n"), "\n") != 0 {
		t.Errorf("stderr is not one line:\n%s", r)
	}
	for _, m := range mentions {
		if !strings.Contains(msg, m) {
			t.Errorf("stderr does not mention %q:\n%s", m, r)
		}
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	needSuite(t)
	empty := t.TempDir()
	for _, tc := range []struct {
		name     string
		args     []string
		demo     bool
		code     int
		oneLine  bool
		mentions []string
	}{
		{"unknown model: get-model", []string{"get-model", "--model-id", "custmers", "--json"}, true, 2, true, []string{`"custmers"`, `"customers"`}},
		{"unknown model: value-diff", []string{"value-diff", "--model", "ordrs", "--primary-key", "order_id", "--json"}, true, 2, true, []string{`"ordrs"`, `"orders"`}},
		{"unknown model: analyze-model", []string{"analyze-model", "stg_paymnts", "--json"}, true, 2, true, []string{"stg_paymnts", `"stg_payments"`}},
		{"unknown model: describe-entity", []string{"describe-entity", "custmers", "--json"}, true, 2, true, []string{"custmers", "did you mean customers"}},
		{"unknown key column", []string{"value-diff", "--model", "orders", "--primary-key", "nope", "--json"}, true, 2, true, []string{`"nope"`, "order_id"}},
		{"non-unique key", []string{"value-diff", "--model", "orders", "--primary-key", "customer_id", "--json"}, true, 1, true, []string{"1760 key values occur more than once", "GROUP BY"}},
		{"write SQL", []string{"query", "--sql", "drop table orders", "--json"}, true, 1, true, []string{"read-only"}},
		{"missing table", []string{"query", "--sql", "select * from no_such_table", "--json"}, true, 1, false, []string{"no_such_table"}},
		{"missing required parameter", []string{"value-diff", "--json"}, true, 2, true, []string{"--model is required", "first argument"}},
		{"bad flag", []string{"lineage-diff", "--no-such-flag", "--json"}, true, 2, true, []string{"--no-such-flag"}},
		{"bad flag value", []string{"value-diff-detail", "--model", "orders", "--primary-key", "order_id", "--limit", "many", "--json"}, true, 2, true, []string{"--limit"}},
		{"bad view mode", []string{"lineage-diff", "--view-mode", "everything", "--json"}, true, 2, true, []string{"--view-mode is invalid", "changed_models"}},
		{"unknown command", []string{"no-such-command"}, false, 2, true, []string{"no-such-command"}},
		{"missing artifacts", []string{"--project-dir", empty, "lineage-diff", "--json"}, false, 1, true,
			[]string{filepath.Join(empty, "target", "manifest.json"), "dbt "}},
		{"missing artifacts (warehouse op)", []string{"--project-dir", empty, "--duckdb", suite.dbPath, "row-count-diff", "--json"}, false, 1, true,
			[]string{"manifest.json", "dbt "}},
		{"missing DuckDB file", []string{"--project-dir", suite.demoDir, "--duckdb", filepath.Join(empty, "nope.duckdb"), "row-count-diff", "orders", "--json"}, false, 1, false,
			[]string{"nope.duckdb"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var r result
			if tc.demo {
				r = ripple(t, tc.args...)
			} else {
				r = execRipple(t, tc.args...)
			}
			wantError(t, r, tc.code, tc.oneLine, tc.mentions...)
		})
	}

	t.Run("missing DuckDB file is not created", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "nope.duckdb")
		execRipple(t, "--project-dir", suite.demoDir, "--duckdb", path, "row-count-diff", "orders", "--json")
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("a read-only run created %s", path)
		}
	})
	t.Run("missing DuckDB file: the message is about the file", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "nope.duckdb")
		r := execRipple(t, "--project-dir", suite.demoDir, "--duckdb", path, "row-count-diff", "orders", "--json")
		msg := string(r.stderr)
		// --duckdb names no profile or target; and a missing file is not a
		// missing grant, said once.
		if strings.Contains(msg, `profile ""`) {
			t.Errorf("the message names an empty profile/target though --duckdb was given:\n%s", msg)
		}
		if strings.Count(msg, "lacks a grant") > 1 {
			t.Errorf("the same hint is repeated:\n%s", msg)
		}
	})
	t.Run("impact-analysis says why the warehouse is unavailable", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "nope.duckdb")
		r := execRipple(t, "--project-dir", suite.demoDir, "--duckdb", path, "impact-analysis", "--json")
		// The result is printed, and the exit says the data was not checked.
		if r.code != 4 || !strings.HasPrefix(string(r.stderr), "error: the data could not be checked: ") {
			t.Fatalf("%s", r)
		}
		out := decodeOnly(t, r)
		errs := get(t, out, "errors").([]any)
		if len(errs) == 0 {
			t.Fatal("no errors reported without a warehouse")
		}
		for _, e := range errs {
			if m := str(t, e, "message"); !strings.Contains(m, "nope.duckdb") {
				t.Errorf("step %v: %q does not give the cause (the --duckdb file does not exist)", get(t, e, "step"), m)
			}
		}
		// The metadata-only triage still comes back.
		if integer(t, out, "modified_count") != 5 {
			t.Errorf("modified_count %v", get(t, out, "modified_count"))
		}
	})
	t.Run("unknown name in row-count-diff is a status, not a failure", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "row-count-diff", "custmers")
		for _, side := range []string{"base", "curr"} {
			meta := get(t, out, "custmers", side+"_meta")
			if str(t, meta, "status") != "not_in_manifest" || !strings.Contains(str(t, meta, "message"), `"customers"`) {
				t.Errorf("%s: %v", side, meta)
			}
		}
	})
}

func TestJSONStdoutIsOnlyJSON(t *testing.T) {
	t.Parallel()
	// --verbose logs go to stderr; stdout stays one JSON document.
	for _, args := range [][]string{
		{"-v", "impact-analysis", "--json"},
		{"--verbose", "value-diff", "--model", "orders", "--primary-key", "order_id", "--json"},
		{"-v", "lineage-diff", "--json"},
		{"-v", "--single-env", "--target-base-path", "no-such-base", "row-count-diff", "orders", "--json"}, // single-env warning
	} {
		r := ripple(t, args...)
		if r.code != 0 {
			t.Errorf("%s", r)
			continue
		}
		decodeOnly(t, r)
	}
	// The human form is not JSON, and the same numbers are in it.
	r := ripple(t, "row-count-diff", "orders")
	if r.code != 0 || !strings.Contains(string(r.stdout), "10,000") || strings.HasPrefix(strings.TrimSpace(string(r.stdout)), "{") {
		t.Errorf("text output:\n%s", r)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	r := execRipple(t, "version", "--json")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	if v := decodeOnly(t, r); str(t, v, "version") == "" {
		t.Errorf("version %v", v)
	}
}
