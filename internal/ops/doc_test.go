package ops

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/checks"
	"github.com/ripple-data/ripple/internal/golden"
)

// TestOperationsDoc keeps docs/operations.md equal to the registry, so the
// documented contract cannot drift from the code.
func TestOperationsDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "operations.md")
	golden.Assert(t, path, []byte(Default().MarkdownReference()))
}

// TestEveryOperationIsDescribed checks the parts of the contract agents rely on.
func TestEveryOperationIsDescribed(t *testing.T) {
	for _, op := range Default().Ops() {
		if op.Title == "" || len(op.Description) < 40 {
			t.Errorf("%s needs a title and a real description", op.Name)
		}
		if op.OutputSchema() == nil || op.OutputSchema().Type != "object" {
			t.Errorf("%s must return an object", op.Name)
		}
		if p, ok := op.InputSchema().Properties["select"]; ok && p != nil {
			if !strings.Contains(p.Description, "intersection (AND)") {
				t.Errorf("%s: its select parameter does not document the grammar: %q", op.Name, p.Description)
			}
		}
	}
}

// TestEveryResultFieldIsDescribed: every parameter and every result field,
// nested ones included, has a description in its schema.
func TestEveryResultFieldIsDescribed(t *testing.T) {
	total := 0
	for _, op := range Default().Ops() {
		missing := UndocumentedFields(op)
		total += len(missing)
		for _, m := range missing {
			t.Errorf("%s: %s has no description", op.Name, m)
		}
	}
	t.Logf("undocumented fields: %d", total)
}

// TestToolsets: every operation is in a toolset, the recce toolset is the
// peer's 20 tools, and unknown toolsets are refused with the known ones.
func TestToolsets(t *testing.T) {
	reg := Default()
	for _, op := range reg.Ops() {
		if !InAnyToolset(op.Name) {
			t.Errorf("%s is in no toolset (internal/ops/toolsets.go)", op.Name)
		}
	}
	for _, ts := range Toolsets() {
		for _, n := range ts.Tools {
			if _, ok := reg.Get(n); !ok && n != "get_server_info" && n != "set_backend" {
				t.Errorf("toolset %s lists %s, which is no operation", ts.Name, n)
			}
		}
	}
	recce, err := ResolveToolsets([]string{"recce"})
	if err != nil || len(recce) != 20 {
		t.Errorf("recce toolset = %d tools (%v), want the peer's 20", len(recce), err)
	}
	all, _ := ResolveToolsets([]string{ToolsetAll})
	if len(all) != len(reg.Ops())+2 {
		t.Errorf("all = %d tools, want every operation and the 2 MCP-only tools", len(all))
	}
	if _, err := ResolveToolsets([]string{"recce", "statics"}); err == nil || !strings.Contains(err.Error(), `unknown toolset "statics"`) ||
		!strings.Contains(err.Error(), "static") {
		t.Errorf("unknown toolset: %v", err)
	}
}

// TestRunBackedOperationsAreCheckTypes: a recorded run must be re-runnable
// and judgeable, so every run-backed operation can back a check.
func TestRunBackedOperationsAreCheckTypes(t *testing.T) {
	for _, op := range Default().Ops() {
		if op.RunBacked && !op.Checkable() {
			t.Errorf("%s is run-backed but its result has no Mismatch verdict", op.Name)
		}
	}
}

// TestRegistryMismatchJudgesStoredResults: a stored result is judged by its
// operation's Verdict after matching its output schema; an older shape or
// an unknown type is an error, never a pass.
func TestRegistryMismatchJudgesStoredResults(t *testing.T) {
	reg := Default()
	cases := []struct {
		typ, result string
		want        bool
		wantErr     string
	}{
		{"row_count_diff", `{"orders":{"base":1,"curr":2,"base_meta":{"status":"ok"},"curr_meta":{"status":"ok"}},"run_id":"x"}`, true, ""},
		{"row_count_diff", `{"orders":{"base":2,"curr":2,"base_meta":{"status":"ok"},"curr_meta":{"status":"ok"}}}`, false, ""},
		// Ripple's shape before the seed contract.
		{"row_count_diff", `{"models":{"orders":{"base":1,"current":2,"base_meta":{"status":"ok"},"current_meta":{"status":"ok"}}}}`, false, "does not match its schema"},
		{"lineage_diff", `{"nodes":{"columns":[],"data":[],"limit":null,"more":false,"total_row_count":null},"edges":{"columns":[],"data":[],"limit":null,"more":false,"total_row_count":null},"changed_count":1,"impacted_count":1,"total_nodes":1,"returned_nodes":1,"single_env":false}`, true, ""},
		{"query", `{"columns":[],"data":[],"limit":2000,"more":false,"total_row_count":null,"sql":"select 1"}`, false, ""},
		{"get_model", `{}`, false, `unknown check type "get_model"`},
		{"value_diff", `not json`, false, "not valid JSON"},
	}
	for _, c := range cases {
		got, err := reg.Mismatch(c.typ, json.RawMessage(c.result))
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s %s: error %v, want %q", c.typ, c.result, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s %s = %v, %v; want %v", c.typ, c.result, got, err, c.want)
		}
	}
}

// TestPresetsAreValidatedByTheOperations: ripple.yml presets go through the
// operations' own schemas, pointing at the line of the parameter at fault.
func TestPresetsAreValidatedByTheOperations(t *testing.T) {
	s := NewSession(Config{StatePath: filepath.Join(t.TempDir(), "state.json")})
	st, err := s.Checks(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	yml := "checks:\n  - name: Top\n    type: top_k_diff\n    params:\n      model: orders\n      column_name: status\n      k: ten\n" +
		"  - name: Old\n    type: query_diff\n    params:\n      sql: select 1\n"
	_, err = checks.ParsePresets([]byte(yml), st.ValidateParams)
	if err == nil || !strings.Contains(err.Error(), `line 7: checks[0] "Top" field params.k: top_k_diff: param "k" is invalid: `) {
		t.Errorf("error = %v", err)
	}
	presets, err := checks.ParsePresets([]byte("checks:\n  - name: Old\n    type: query_diff\n    params:\n      sql: select 1\n"), st.ValidateParams)
	if err != nil || len(presets) != 1 || string(presets[0].Params) != `{"sql_template":"select 1"}` {
		t.Errorf("a preset with a deprecated name = %+v, %v", presets, err)
	}
}
