package dbt

import (
	"reflect"
	"testing"
)

// KeyCandidates lists every declared and tested key, most trustworthy
// first, each column set once.
func TestKeyCandidates(t *testing.T) {
	m, err := DecodeManifest([]byte(`{
  "metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"},
  "nodes": {
    "model.p.orders": {"unique_id": "model.p.orders", "name": "orders", "resource_type": "model",
      "config": {"materialized": "incremental", "unique_key": ["order_id", "line"]},
      "columns": {"order_id": {"name": "order_id", "constraints": [{"type": "primary_key"}]}},
      "constraints": [{"type": "primary_key", "columns": ["order_id", "line"]}]},
    "test.p.unique_orders_order_id": {"unique_id": "test.p.unique_orders_order_id", "name": "unique_orders_order_id", "resource_type": "test",
      "attached_node": "model.p.orders", "column_name": "order_id", "test_metadata": {"name": "unique", "kwargs": {"column_name": "order_id"}}},
    "test.p.combo": {"unique_id": "test.p.combo", "name": "combo", "resource_type": "test", "attached_node": "model.p.orders",
      "test_metadata": {"name": "unique_combination_of_columns", "namespace": "dbt_utils", "kwargs": {"combination_of_columns": ["day", "shop"]}}},
    "test.p.unique_orders_expr": {"unique_id": "test.p.unique_orders_expr", "name": "unique_orders_expr", "resource_type": "test",
      "attached_node": "model.p.orders", "column_name": "lower(email)", "test_metadata": {"name": "unique", "kwargs": {"column_name": "lower(email)"}}}
  },
  "child_map": {"model.p.orders": ["test.p.combo", "test.p.unique_orders_expr", "test.p.unique_orders_order_id"]}
}`), "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	got := m.KeyCandidates("model.p.orders")
	want := []PrimaryKey{
		{Columns: []string{"order_id", "line"}, Basis: KeyDeclared, Evidence: "primary_key constraint on the model"},
		{Columns: []string{"order_id"}, Basis: KeyDeclared, Evidence: "primary_key constraint on column order_id"},
		{Columns: []string{"day", "shop"}, Basis: KeyTested, Test: "test.p.combo", Evidence: "unique_combination_of_columns test combo"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("candidates\n%+v\nwant\n%+v", got, want)
	}
	if pk := m.PrimaryKeyOf("model.p.orders"); !reflect.DeepEqual(*pk, want[0]) {
		t.Errorf("PrimaryKeyOf = %+v", pk)
	}
	if c := m.KeyCandidates("model.p.missing"); c != nil {
		t.Errorf("unknown node: %+v", c)
	}
}

func TestTestPassed(t *testing.T) {
	e := &Env{RunResults: &RunResults{Results: []RunResult{{UniqueID: "test.p.a", Status: "pass"}, {UniqueID: "test.p.b", Status: "fail"}}}}
	for id, want := range map[string][2]bool{"test.p.a": {true, true}, "test.p.b": {false, true}, "test.p.c": {false, false}} {
		if p, k := e.TestPassed(id); p != want[0] || k != want[1] {
			t.Errorf("%s: passed %v known %v, want %v", id, p, k, want)
		}
	}
	if p, k := (&Env{}).TestPassed("test.p.a"); p || k {
		t.Error("no run_results: unknown")
	}
}
