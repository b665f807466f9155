package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/ripple-data/ripple/internal/ops"
)

// TestSQLDiffAndCodeChange: sql_diff over the protocol, and get_model's
// code_change on the real fixture (stg_payments' amount expression).
func TestSQLDiffAndCodeChange(t *testing.T) {
	h := newHarness(t, ops.Default(), fixturePaths(t), ModeServer)
	cs := h.connect(t, "", nil)
	var out map[string]any
	structured(t, call(t, cs, "sql_diff", map[string]any{"dialect": "postgres",
		"base_sql": "select k, sum(v) as s from t group by k", "sql": "SELECT k, SUM(v) AS s FROM t GROUP BY k, j"}), &out)
	got, _ := json.Marshal(out)
	want := `{"changes":[{"after":"GROUP BY k, j","before":"GROUP BY k","column":"k","columns":["k","s"],"kind":"group_by","scope":"final"}],"cosmetic":false}`
	if string(got) != want {
		t.Errorf("sql_diff:\ngot  %s\nwant %s", got, want)
	}
	structured(t, call(t, cs, "sql_diff", map[string]any{"base_sql": "select a from t", "sql": "select a from t where"}), &out)
	got, _ = json.Marshal(out)
	want = `{"changes":[],"cosmetic":false,"error":{"column":22,"line":1,"message":"line 1, column 22: unexpected end of input in an expression","side":"current"}}`
	if string(got) != want {
		t.Errorf("sql_diff parse error:\ngot  %s\nwant %s", got, want)
	}
	var gm struct {
		CodeChange map[string]any `json:"code_change"`
	}
	structured(t, call(t, cs, "get_model", map[string]any{"model_id": "stg_payments"}), &gm)
	got, _ = json.Marshal(gm.CodeChange)
	want = `{"changes":[{"after":"amount","before":"amount / 100 AS amount","column":"amount","columns":["amount"],"kind":"column_expression","scope":"renamed"}],` +
		`"compared":"compiled_code","cosmetic":false,"summary":"column_expression in renamed: amount / 100 AS amount → amount"}`
	if string(got) != want {
		t.Errorf("get_model code_change:\ngot  %s\nwant %s", got, want)
	}
}
