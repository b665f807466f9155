package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/demo"
)

// Column lineage operations: get-cll, column-impact, analyze-model,
// get-node, lineage, list-opaque, openlineage-export, sql-lineage,
// compare-observed, project-summary.

func deps(t *testing.T, col any) []string {
	t.Helper()
	var out []string
	for _, d := range get(t, col, "depends_on").([]any) {
		out = append(out, strings.TrimPrefix(str(t, d, "node"), pkg)+"."+str(t, d, "column"))
	}
	sort.Strings(out)
	return out
}

func TestGetCLL(t *testing.T) {
	t.Parallel()
	// The demo: orders.amount derives from stg_payments.amount, which
	// derives from raw_payments.amount.
	out := rippleJSON(t, "get-cll", "--node-id", "orders", "--column", "amount")
	cols := get(t, out, "columns").(map[string]any)
	want := map[string][]string{
		pkg + "orders_amount":                  {"stg_payments.amount"},
		pkg + "stg_payments_amount":            {"seed.jaffle_shop.raw_payments.amount"},
		"seed.jaffle_shop.raw_payments_amount": nil,
	}
	if len(cols) != len(want) {
		t.Errorf("columns %v, want %v", keys(cols), want)
	}
	for id, w := range want {
		if _, ok := cols[id]; !ok {
			t.Errorf("no column %s", id)
			continue
		}
		if got := deps(t, cols[id]); !reflect.DeepEqual(got, w) {
			t.Errorf("%s depends on %v, want %v", id, got, w)
		}
	}
	// The peer's five transformation types; an aggregate is derived and flagged.
	for id, typ := range map[string]string{pkg + "orders_amount": "derived", pkg + "stg_payments_amount": "derived", "seed.jaffle_shop.raw_payments_amount": "source"} {
		if got := str(t, cols, id, "transformation_type"); got != typ {
			t.Errorf("%s transformation_type %s, want %s", id, got, typ)
		}
	}
	if get(t, cols, pkg+"orders_amount", "is_aggregate") != true || get(t, cols, pkg+"stg_payments_amount").(map[string]any)["is_aggregate"] != nil {
		t.Errorf("is_aggregate: orders.amount %v, stg_payments.amount %v", get(t, cols, pkg+"orders_amount"), get(t, cols, pkg+"stg_payments_amount"))
	}
	if got := strs(t, out, "parent_map", pkg+"orders"); !reflect.DeepEqual(got, []string{pkg + "stg_payments"}) {
		t.Errorf("parent_map[orders] %v", got)
	}
	// The column types come from the catalog: check them in the database.
	for id, q := range map[string]string{
		pkg + "orders_amount":       `select data_type from information_schema.columns where table_schema='current' and table_name='orders' and column_name='amount'`,
		pkg + "stg_payments_amount": `select data_type from information_schema.columns where table_schema='current' and table_name='stg_payments' and column_name='amount'`,
	} {
		if got, db := str(t, cols, id, "type"), dbString(t, q); got != db {
			t.Errorf("%s type %s, database %s", id, got, db)
		}
	}

	t.Run("full_name", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "get-cll", "customers", "--column", "full_name")
		got := deps(t, get(t, out, "columns", pkg+"customers_full_name"))
		if w := []string{"stg_customers.first_name", "stg_customers.last_name"}; !reflect.DeepEqual(got, w) {
			t.Errorf("customers.full_name depends on %v, want %v", got, w)
		}
	})
	t.Run("change analysis", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "get-cll", "--node-id", "stg_payments", "--change-analysis")
		nodes := get(t, out, "nodes").(map[string]any)
		for id, w := range map[string][2]any{
			pkg + "stg_payments":      {"modified", "partial_breaking"},
			pkg + "customers":         {"modified", "non_breaking"},
			pkg + "customer_segments": {"added", nil},
		} {
			n := nodes[id]
			if n == nil {
				t.Errorf("no node %s", id)
				continue
			}
			if got := [2]any{n.(map[string]any)["change_status"], n.(map[string]any)["change_category"]}; got != w {
				t.Errorf("%s change_status/category %v, want %v", id, got, w)
			}
		}
		var changed []string
		for id, c := range get(t, out, "columns").(map[string]any) {
			if s, ok := c.(map[string]any)["change_status"].(string); ok && s != "" {
				changed = append(changed, id+" "+s)
			}
		}
		sort.Strings(changed)
		if w := []string{pkg + "customers_full_name added", pkg + "stg_payments_amount modified"}; !reflect.DeepEqual(changed, w) {
			t.Errorf("changed columns %v, want %v", changed, w)
		}
	})
}

// changedColumnsInDB lists table.column pairs whose values differ between
// base and current for the key, straight from the database.
func changedColumnsInDB(t *testing.T, table, key string) []string {
	t.Helper()
	cols := dbStrings(t, `select column_name from information_schema.columns where table_schema = 'base' and table_name = ? order by ordinal_position`, table)
	var out []string
	for _, c := range cols {
		if n := dbInt(t, fmt.Sprintf(`select count(*) from "base".%q b join "current".%q c using (%q) where b.%q is distinct from c.%q`, table, table, key, c, c)); n > 0 {
			out = append(out, table+"."+c)
		}
	}
	return out
}

func TestColumnImpact(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "column-impact", "--node-id", "stg_payments", "--columns", "amount")
	var reached []string
	for _, c := range get(t, out, "columns").([]any) {
		node := strings.TrimPrefix(str(t, c, "node"), pkg)
		if node == "customer_segments" {
			if integer(t, c, "depth") != 2 {
				t.Errorf("customer_segments.%s depth %v, want 2 (through customers)", get(t, c, "column"), get(t, c, "depth"))
			}
			continue // added model: no base to compare with
		}
		reached = append(reached, node+"."+str(t, c, "column"))
		if str(t, c, "reason") != "value" {
			t.Errorf("%s reason %v, want value", node, get(t, c, "reason"))
		}
	}
	sort.Strings(reached)
	// Exactly the columns whose values really change in the data.
	inDB := append(changedColumnsInDB(t, "orders", "order_id"), changedColumnsInDB(t, "customers", "customer_id")...)
	sort.Strings(inDB)
	if !reflect.DeepEqual(reached, inDB) {
		t.Errorf("column-impact reaches %v; the columns that change in the database are %v", reached, inDB)
	}
	var notReached []string
	for _, n := range get(t, out, "not_reached").([]any) {
		notReached = append(notReached, strings.TrimPrefix(str(t, n, "node"), pkg)+" reads "+strings.Join(strs(t, n, "reads"), ","))
	}
	if w := []string{"payment_method_summary reads payment_method,order_id"}; !reflect.DeepEqual(notReached, w) {
		t.Errorf("not_reached %v, want %v", notReached, w)
	}
	// And payment_method_summary is indeed identical on both sides.
	if n := dbInt(t, `select count(*) from (select * from "base".payment_method_summary except select * from "current".payment_method_summary)`); n != 0 {
		t.Errorf("payment_method_summary differs in %d rows", n)
	}
	var models []string
	for _, m := range get(t, out, "models").([]any) {
		models = append(models, strings.TrimPrefix(str(t, m, "node"), pkg))
	}
	if w := []string{"customer_segments", "customers", "orders"}; !reflect.DeepEqual(models, w) {
		t.Errorf("impacted models %v, want %v", models, w)
	}
}

func TestAnalyzeModel(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "analyze-model", "customers")
	if str(t, out, "model_id") != pkg+"customers" || boolean(t, out, "opaque") {
		t.Fatalf("model_id %v opaque %v", out["model_id"], out["opaque"])
	}
	s := get(t, out, "structure")
	var proj []string
	for _, p := range get(t, s, "projections").([]any) {
		proj = append(proj, str(t, p, "name"))
	}
	// The current build's columns, in order (the database agrees).
	if db := dbStrings(t, `select column_name from information_schema.columns where table_schema='current' and table_name='customers' order by ordinal_position`); !reflect.DeepEqual(proj, db) {
		t.Errorf("projections %v, database %v", proj, db)
	}
	if got := strs(t, s, "cte_names"); !reflect.DeepEqual(got, []string{"customers", "orders", "payments", "customer_orders", "customer_payments"}) {
		t.Errorf("cte_names %v", got)
	}
	if n := len(get(t, s, "joins").([]any)); n != 3 {
		t.Errorf("%d joins, want 3 left joins", n)
	}
	var aggs []string
	for _, a := range get(t, s, "aggregations").([]any) {
		aggs = append(aggs, str(t, a, "function"))
	}
	if w := []string{"min", "max", "count", "sum"}; !reflect.DeepEqual(aggs, w) {
		t.Errorf("aggregations %v, want %v", aggs, w)
	}
	if got := strs(t, out, "downstream", "models"); !reflect.DeepEqual(got, []string{pkg + "customer_segments"}) {
		t.Errorf("downstream %v", got)
	}
}

func TestGetNode(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "get-node", "orders")
	if got := strs(t, out, "parents"); !reflect.DeepEqual(got, ids("stg_orders", "stg_payments")) {
		t.Errorf("parents %v", got)
	}
	// 3 tests: unique, not_null, relationships.
	if n := len(strs(t, out, "children")); n != 3 {
		t.Errorf("%d children, want the 3 tests", n)
	}
	inputs := map[string][]string{}
	var names []string
	for _, c := range get(t, out, "columns").([]any) {
		var in []string
		for _, i := range get(t, c, "inputs").([]any) {
			in = append(in, strings.TrimPrefix(str(t, i, "node"), pkg)+"."+str(t, i, "column"))
		}
		sort.Strings(in)
		inputs[str(t, c, "name")] = in
		names = append(names, str(t, c, "name"))
	}
	if db := dbStrings(t, `select column_name from information_schema.columns where table_schema='current' and table_name='orders' order by ordinal_position`); !reflect.DeepEqual(names, db) {
		t.Errorf("columns %v, database %v", names, db)
	}
	for col, w := range map[string][]string{
		"amount":             {"stg_payments.amount"},
		"credit_card_amount": {"stg_payments.amount", "stg_payments.payment_method"},
		"order_id":           {"stg_orders.order_id"},
	} {
		if !reflect.DeepEqual(inputs[col], w) {
			t.Errorf("%s inputs %v, want %v", col, inputs[col], w)
		}
	}
}

func TestLineage(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "lineage", "--focus", "orders", "--direction", "upstream")
	if got := strs(t, out, "nodes"); !reflect.DeepEqual(got, ids("orders", "stg_orders", "stg_payments", "raw_orders", "raw_payments")) {
		t.Errorf("upstream of orders %v", got)
	}
	if n := len(get(t, out, "edges").([]any)); n != 4 {
		t.Errorf("%d edges, want 4", n)
	}
	// Same answer as the selector +orders.
	if sel := strs(t, rippleJSON(t, "select-nodes", "--select", "+orders"), "nodes"); !reflect.DeepEqual(strs(t, out, "nodes"), sel) {
		t.Errorf("lineage upstream %v != select-nodes +orders %v", strs(t, out, "nodes"), sel)
	}

	t.Run("column level", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "lineage", "--focus", "orders.amount", "--level", "column", "--direction", "upstream")
		want := []string{pkg + "orders.amount", pkg + "stg_payments.amount", "seed.jaffle_shop.raw_payments.amount"}
		if got := strs(t, out, "nodes"); !reflect.DeepEqual(got, want) {
			t.Errorf("nodes %v, want %v", got, want)
		}
	})
	t.Run("downstream depth 1", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "lineage", "--focus", "stg_payments", "--direction", "downstream", "--depth", "1")
		var models, tests []string
		for _, id := range strs(t, out, "nodes") {
			if strings.HasPrefix(id, "test.") {
				tests = append(tests, id)
			} else {
				models = append(models, id)
			}
		}
		if !reflect.DeepEqual(models, ids("stg_payments", "customers", "orders", "payment_method_summary")) {
			t.Errorf("nodes %v", models)
		}
		// level=model is "the model graph"; upstream lineage, lineage-diff
		// and select-nodes leave data tests out unless selected by type.
		if len(tests) != 0 {
			t.Errorf("model-level lineage includes %d data tests: %v", len(tests), tests)
		}
	})
}

func TestListOpaqueAndProjectSummary(t *testing.T) {
	t.Parallel()
	op := rippleJSON(t, "list-opaque")
	if integer(t, op, "total") != 0 || len(get(t, op, "models").([]any)) != 0 {
		t.Errorf("opaque models %v, want none (all demo SQL parses)", op)
	}
	sum := rippleJSON(t, "project-summary")
	// The current build: 9 models (legacy removed, segments added), 3 seeds, 13 tests.
	for k, w := range map[string]int64{"model": 9, "seed": 3, "test": demo.CurrentTests} {
		if got := integer(t, sum, "counts", k); got != w {
			t.Errorf("counts.%s = %d, want %d", k, got, w)
		}
	}
	if str(t, sum, "project_name") != "jaffle_shop" || str(t, sum, "adapter_type") != "duckdb" || !boolean(t, sum, "catalog_present") {
		t.Errorf("project %v adapter %v catalog %v", sum["project_name"], sum["adapter_type"], sum["catalog_present"])
	}
	if integer(t, sum, "lineage", "analyzed") != 9 || integer(t, sum, "lineage", "opaque") != 0 {
		t.Errorf("lineage %v", get(t, sum, "lineage"))
	}
}

func TestOpenLineageExport(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "openlineage-export", "--models", "orders")
	events := get(t, out, "events").([]any)
	if len(events) != 1 {
		t.Fatalf("%d events, want 1", len(events))
	}
	ev := events[0]
	if str(t, ev, "job", "name") != pkg+"orders" || str(t, ev, "job", "namespace") != "duckdb" {
		t.Errorf("job %v", get(t, ev, "job"))
	}
	fields := get(t, ev, "outputs", 0, "facets", "columnLineage", "fields").(map[string]any)
	in := get(t, fields, "amount", "inputFields").([]any)
	if len(in) != 1 || str(t, in[0], "name") != "jaffle_shop.current.stg_payments" || str(t, in[0], "field") != "amount" {
		t.Errorf("amount input fields %v", in)
	}
	if len(fields) != 9 {
		t.Errorf("%d fields, want the 9 columns of orders", len(fields))
	}
}

func TestSQLLineage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	schema := filepath.Join(dir, "schema.json")
	query := filepath.Join(dir, "q.sql")
	if err := os.WriteFile(schema, []byte(`{"orders": {"order_id": "int", "amount": "decimal"}, "payments": {"order_id": "int", "amount": "decimal"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(query, []byte(`select o.order_id, sum(p.amount) as paid from orders o join payments p on p.order_id = o.order_id where o.amount > 0 group by o.order_id`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := execRipple(t, "sql-lineage", "--dialect", "duckdb", "--schema", schema, "--sql", query, "--json")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	out := decodeOnly(t, r)
	if got := strs(t, out, "columns", "order_id", "deps"); !reflect.DeepEqual(got, []string{"orders.order_id"}) {
		t.Errorf("order_id deps %v", got)
	}
	if got := strs(t, out, "columns", "paid", "deps"); !reflect.DeepEqual(got, []string{"payments.amount"}) {
		t.Errorf("paid deps %v", got)
	}
	if got := strs(t, out, "row_deps"); !reflect.DeepEqual(got, []string{"orders.amount", "orders.order_id", "payments.order_id"}) {
		t.Errorf("row_deps %v", got)
	}
	// --sql is the SQL text as in `ripple query`; --sql-file reads a file;
	// a --sql naming a file (the old meaning) still works, with a warning.
	if !strings.HasPrefix(string(r.stderr), "warning: --sql "+query+" reads the file; --sql takes the SQL text now") {
		t.Errorf("no deprecation warning:\n%s", r)
	}
	text, _ := os.ReadFile(query)
	for _, args := range [][]string{{"--sql-file", query}, {"--sql", string(text)}} {
		o := execRipple(t, append([]string{"sql-lineage", "--dialect", "duckdb", "--schema", schema, "--json"}, args...)...)
		if o.code != 0 || !bytes.Equal(o.stdout, r.stdout) || len(o.stderr) != 0 {
			t.Errorf("%v answers differently:\n%s", args[0], o)
		}
	}
}

// TestSQLLineageRefuses: an unknown dialect is a usage error naming every
// dialect, and a result whose names were not understood exits 1 (its
// columns without deps are not lineage), both after issue #26.
func TestSQLLineageRefuses(t *testing.T) {
	t.Parallel()
	r := execRipple(t, "sql-lineage", "--dialect", "foo", "--sql", "select 1 as a")
	want := `unknown dialect "foo": Ripple reads generic, bigquery, databricks, duckdb, postgres, redshift, snowflake, spark, trino`
	if r.code != 2 || !strings.Contains(string(r.stderr), want) {
		t.Errorf("--dialect foo: %s", r)
	}
	schema := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schema, []byte(`{"a": {"id": "int"}, "b": {"id": "int"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = execRipple(t, "sql-lineage", "--dialect", "postgres", "--schema", schema, "--json", "--sql", "select zz from a join b on a.id = b.id")
	if r.code != 1 || !strings.Contains(string(r.stderr), "the lineage is incomplete (unresolved reference: zz)") {
		t.Errorf("unresolved name: %s", r)
	}
	if out := decodeOnly(t, r); get(t, out, "opaque") != true {
		t.Errorf("the result is still printed, opaque: %s", r.stdout)
	}
	r = execRipple(t, "sql-lineage", "--dialect", "postgres", "--schema", schema, "--json", "--sql", "with c as (select cast(id as bigint) from a) select id from c")
	if r.code != 0 || !reflect.DeepEqual(strs(t, decodeOnly(t, r), "columns", "id", "deps"), []string{"a.id"}) {
		t.Errorf("cast output name: %s", r)
	}
}

func TestCompareObserved(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "observed.csv")
	// One edge the static lineage has, one it does not.
	csv := "source_table,source_column,target_table,target_column\n" +
		"jaffle_shop.current.stg_payments,amount,jaffle_shop.current.orders,amount\n" +
		"jaffle_shop.current.stg_orders,status,jaffle_shop.current.orders,amount\n"
	if err := os.WriteFile(file, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	out := rippleJSON(t, "compare-observed", "--observed-file", file, "--allow-dir", filepath.Dir(file))
	// orders has 13 static edges: 4 passthrough columns, 4 per-method
	// amounts reading payment_method and amount, and amount.
	for k, w := range map[string]int64{"observed_rows": 2, "compared": 2, "unresolved": 0, "static": 13, "observed": 2, "both": 1} {
		if got := integer(t, out, k); got != w {
			t.Errorf("%s = %d, want %d", k, got, w)
		}
	}
	if got := float(t, out, "recall"); got != 0.5 {
		t.Errorf("recall %v, want 0.5", got)
	}
	if got := float(t, out, "precision"); !near(got, 0.0769) {
		t.Errorf("precision %v, want 1/13 rounded to 0.0769", got)
	}
	if got := strs(t, out, "models", 0, "missed"); !reflect.DeepEqual(got, []string{"stg_orders.status -> orders.amount"}) {
		t.Errorf("missed %v", got)
	}
	if n := len(strs(t, out, "models", 0, "extra")); n != 12 {
		t.Errorf("%d extra edges, want 12", n)
	}
}
