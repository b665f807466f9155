package ops

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestEveryOutputMatchesItsSchema runs every operation of the registry on
// the triage fixture (DuckDB and PostgreSQL) and validates its real result,
// as JSON, against the operation's own output schema. A new operation must
// add its arguments here.
func TestEveryOutputMatchesItsSchema(t *testing.T) {
	onEveryWarehouse(t, triageScenario, func(t *testing.T, e *env) {
		useStateFile(t, e.session)
		// File inputs are read only inside the project directory.
		observed := filepath.Join(e.built.Paths.ProjectDir, "observed.csv")
		if err := os.WriteFile(observed, []byte("source_table,source_column,target_table,target_column\ncustomers,id,customer_ids_view,id\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		checkID := ""
		// In order: the checks operations need the check create_check saves.
		calls := []struct {
			op   string
			args func() map[string]any
		}{
			{"lineage_diff", func() map[string]any { return map[string]any{"view_mode": "all"} }},
			{"schema_diff", func() map[string]any { return map[string]any{} }},
			{"select_nodes", func() map[string]any { return map[string]any{"select": "state:modified+"} }},
			{"get_model", func() map[string]any { return map[string]any{"model_id": "customers"} }},
			{"get_cll", func() map[string]any { return map[string]any{"change_analysis": true} }},
			{"analyze_model", func() map[string]any { return map[string]any{"model_id": "order_ids"} }},
			{"column_impact", func() map[string]any { return map[string]any{"node_id": "orders"} }},
			{"sql_lineage", func() map[string]any {
				return map[string]any{"sql": "select a, count(*) as n from t group by a", "schema": map[string]any{"t": map[string]any{"a": "int"}}}
			}},
			{"sql_diff", func() map[string]any {
				return map[string]any{"dialect": "duckdb", "base_sql": "select a from t where x <> 1", "sql": "select a, b from t where x != 2"}
			}},
			{"get_node", func() map[string]any { return map[string]any{"node_id": "order_ids"} }},
			{"lineage", func() map[string]any { return map[string]any{"focus": []string{"orders"}, "format": "mermaid"} }},
			{"list_opaque", func() map[string]any { return map[string]any{} }},
			{"row_count_diff", func() map[string]any { return map[string]any{"select": "state:modified"} }},
			{"row_count", func() map[string]any { return map[string]any{"node_names": []string{"orders"}} }},
			{"profile", func() map[string]any { return map[string]any{"model": "customers"} }},
			{"query", func() map[string]any { return map[string]any{"sql_template": "select * from {{ ref('orders') }}"} }},
			{"query_diff", func() map[string]any { return map[string]any{"sql_template": "select * from {{ ref('orders') }}"} }},
			{"profile_diff", func() map[string]any { return map[string]any{"model": "customers"} }},
			{"value_diff", func() map[string]any { return map[string]any{"model": "orders", "primary_key": "id"} }},
			{"value_diff_detail", func() map[string]any { return map[string]any{"model": "orders", "primary_key": "id"} }},
			{"top_k_diff", func() map[string]any { return map[string]any{"model": "customers", "column_name": "name"} }},
			{"histogram_diff", func() map[string]any { return map[string]any{"model": "customers", "column_name": "age"} }},
			{"impact_analysis", func() map[string]any { return map[string]any{} }},
			{"summary", func() map[string]any { return map[string]any{} }},
			{"render_lineage_mermaid", func() map[string]any { return map[string]any{} }},
			{"create_check", func() map[string]any {
				return map[string]any{"type": "value_diff", "params": map[string]any{"model": "orders", "primary_key": "id"}, "name": "Orders values"}
			}},
			{"list_checks", func() map[string]any { return map[string]any{} }},
			{"run_check", func() map[string]any { return map[string]any{"check_id": checkID} }},
			{"approve_check", func() map[string]any { return map[string]any{"check_id": checkID, "approved": false} }},
			{"reorder_check", func() map[string]any { return map[string]any{"check_id": checkID, "index": 0} }},
			{"delete_check", func() map[string]any { return map[string]any{"check_id": checkID} }},
			{"project_summary", func() map[string]any { return map[string]any{} }},
			{"search", func() map[string]any { return map[string]any{"query": "cust"} }},
			{"erd", func() map[string]any { return map[string]any{"format": "mermaid", "infer": true} }},
			{"test_gaps", func() map[string]any { return map[string]any{} }},
			{"state_policies", func() map[string]any { return map[string]any{} }},
			{"find_data", func() map[string]any { return map[string]any{"query": "customer age"} }},
			{"describe_entity", func() map[string]any { return map[string]any{"name": "customers"} }},
			{"plan_query", func() map[string]any {
				return map[string]any{"entities": []string{"orders", "customers"}, "infer": true}
			}},
			{"compare_observed", func() map[string]any { return map[string]any{"observed_file": observed} }},
			{"openlineage_export", func() map[string]any { return map[string]any{} }},
		}
		reg := Default()
		covered := map[string]bool{}
		for _, c := range calls {
			covered[c.op] = true
			op, ok := reg.Get(c.op)
			if !ok {
				t.Errorf("%s is no operation", c.op)
				continue
			}
			out, err := callRaw(e.session, c.op, c.args())
			if err != nil {
				t.Errorf("%s: %v", c.op, err)
				continue
			}
			raw, err := json.Marshal(out)
			if err != nil {
				t.Errorf("%s: encoding the result: %v", c.op, err)
				continue
			}
			if err := op.ValidateOutput(raw); err != nil {
				t.Errorf("%v\n%.600s", err, raw)
			}
			if r, ok := out.(*CreateCheckResult); ok {
				checkID = r.CheckID
			}
		}
		for _, op := range reg.Ops() {
			if !covered[op.Name] {
				t.Errorf("%s: add it to this test", op.Name)
			}
		}
	})
}
