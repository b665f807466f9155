package dbtfixture_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/dbtfixture"

	"github.com/ripple-data/ripple/internal/golden"
)

// scenario is a small project touching every builder feature.
func scenario(t *testing.T) *dbtfixture.Project {
	p := dbtfixture.New(t)
	p.Source("raw", "payments", dbtfixture.CSV("id,order_id,amount\n1,1,1000\n2,1,250\n3,2,999\n")).Tests(dbtfixture.Unique("id"))
	p.Seed("raw_orders", dbtfixture.CSV("id,customer_id,status\n1,1,placed\n2,2,shipped\n3,3,placed\n"))
	p.Macro("cents_to_dollars(col)", "{{ col }} / 100", "round({{ col }} / 100.0, 2)")
	p.Table("customers", []string{"id INTEGER", "name VARCHAR", "age INTEGER"},
		dbtfixture.Rows{{1, "Alice", 30}, {2, "Bob", 25}},
		dbtfixture.Rows{{1, "Alice", 30}, {2, "Bob", 25}, {3, "Charlie", 35}}).
		Tests(dbtfixture.Unique("id"), dbtfixture.NotNull("id")).
		Columns(dbtfixture.Col("id", "The customer key").Type("integer"))
	stg := "select id as order_id, customer_id, status from {{ ref('raw_orders') }}"
	p.Model("stg_orders", dbtfixture.View, stg, stg).Dir("staging").
		Tests(dbtfixture.Relationships("customer_id", "customers", "id"), dbtfixture.AcceptedValues("status", "placed", "shipped"))
	eph := "select id as payment_id, order_id, amount from {{ source('raw', 'payments') }}"
	p.Model("int_payments", dbtfixture.Ephemeral, eph, eph).Dir("staging")
	pay := "with p as (\n    select payment_id, order_id, {{ cents_to_dollars('amount') }} as amount from {{ ref('int_payments') }}\n)\nselect * from p"
	p.Model("payments", dbtfixture.Table, pay, pay).Tests(dbtfixture.UniqueCombination("payment_id", "order_id"))
	p.Model("orders", dbtfixture.Incremental("order_id"),
		"select o.order_id, o.customer_id, sum(p.amount) as amount from {{ ref('stg_orders') }} o left join {{ ref('payments') }} p using (order_id) group by all",
		"select o.order_id, o.customer_id, o.status, sum(p.amount) as amount from {{ ref('stg_orders') }} o left join {{ ref('payments') }} p using (order_id) {% if is_incremental() %}where o.order_id > (select max(order_id) from {{ this }}){% endif %} group by all").
		Tags("finance").Current().Config("persist_docs", map[string]any{"relation": true})
	p.Model("legacy", dbtfixture.Table, "select 1 as x", "")
	p.Model("brand_new", dbtfixture.Table, "", "select * from {{ ref('other_pkg', 'util') }}")
	p.Model("util", dbtfixture.View, "select 42 as answer", "select 42 as answer").Package("other_pkg")
	p.Model("parked", dbtfixture.Table, "select 1 as x", "select 1 as x").Current().Disabled()
	p.Model("customers_snapshot", dbtfixture.Snapshot, "select * from {{ ref('customers') }}", "select * from {{ ref('customers') }}").
		Config("unique_key", "id")
	p.Exposure("revenue_dashboard", "orders", "customers").Current().Uses("orders")
	return p
}

func TestBuild(t *testing.T) {
	ctx := context.Background()
	b := scenario(t).MustBuild(ctx)
	proj, err := b.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if proj.SingleEnv {
		t.Fatal("want a base build")
	}
	base, cur := proj.Base.Manifest, proj.Current.Manifest
	if base.SchemaVersion != 12 || cur.Metadata.AdapterType != "duckdb" || cur.Metadata.ProjectName != "ripple_test" {
		t.Fatalf("metadata: %+v", cur.Metadata)
	}

	// Added, removed and disabled nodes.
	if _, ok := base.Node("model.ripple_test.legacy"); !ok {
		t.Error("legacy should exist in base")
	}
	if _, ok := cur.Node("model.ripple_test.legacy"); ok {
		t.Error("legacy should not exist in current")
	}
	if _, ok := cur.Node("model.ripple_test.brand_new"); !ok {
		t.Error("brand_new should exist in current")
	}
	if _, ok := cur.Node("model.ripple_test.parked"); ok {
		t.Error("parked is disabled in current")
	}
	if n, ok := cur.DisabledNode("model.ripple_test.parked"); !ok || n.Enabled() {
		t.Error("parked should be under disabled in current")
	}
	if n, ok := cur.Node("model.other_pkg.util"); !ok || n.PackageName != "other_pkg" || n.FQN[0] != "other_pkg" {
		t.Errorf("util in other_pkg: %+v", n)
	}

	if e, ok := cur.Node("exposure.ripple_test.revenue_dashboard"); !ok || !reflect.DeepEqual(e.DependsOn.Nodes, []string{"model.ripple_test.orders"}) {
		t.Errorf("current exposure: %+v", e)
	}
	if got := base.ChildMap["model.ripple_test.customers"]; !strings.Contains(strings.Join(got, ","), "exposure.ripple_test.revenue_dashboard") {
		t.Errorf("base customers children: %v", got)
	}

	// Compiled code per side.
	orders, _ := cur.Node("model.ripple_test.orders")
	if !strings.Contains(orders.CompiledCode, `"ripple"."current"."stg_orders"`) || strings.Contains(orders.CompiledCode, "is_incremental") {
		t.Errorf("current orders compiled_code:\n%s", orders.CompiledCode)
	}
	if orders.Config.Materialized != "incremental" || orders.Config.UniqueKey[0] != "order_id" || orders.Config.Tags[0] != "finance" || !orders.Config.PersistDocs.Relation {
		t.Errorf("orders config: %+v", orders.Config)
	}
	bOrders, _ := base.Node("model.ripple_test.orders")
	if !strings.Contains(bOrders.CompiledCode, `"ripple"."base"."payments"`) || bOrders.Config.PersistDocs.Relation {
		t.Errorf("base orders: %s %+v", bOrders.CompiledCode, bOrders.Config)
	}
	var un map[string]any
	if err := json.Unmarshal(orders.UnrenderedConfig, &un); err != nil {
		t.Fatal(err)
	}
	if want := []string{"materialized", "persist_docs", "tags", "unique_key"}; !reflect.DeepEqual(sortedKeys(un), want) {
		t.Errorf("unrendered_config keys %v, want %v", sortedKeys(un), want)
	}
	payments, _ := cur.Node("model.ripple_test.payments")
	wantPay := "with __dbt__cte__int_payments as (\nselect id as payment_id, order_id, amount from \"ripple\".\"raw\".\"payments\"\n), p as (\n    select payment_id, order_id, round(amount / 100.0, 2) as amount from __dbt__cte__int_payments\n)\nselect * from p"
	if payments.CompiledCode != wantPay {
		t.Errorf("payments compiled_code:\n%s\nwant:\n%s", payments.CompiledCode, wantPay)
	}
	if !reflect.DeepEqual(payments.DependsOn.Macros, []string{"macro.ripple_test.cents_to_dollars"}) ||
		!reflect.DeepEqual(payments.DependsOn.Nodes, []string{"model.ripple_test.int_payments"}) {
		t.Errorf("payments depends_on: %+v", payments.DependsOn)
	}
	if base.Macros["macro.ripple_test.cents_to_dollars"].MacroSQL == cur.Macros["macro.ripple_test.cents_to_dollars"].MacroSQL {
		t.Error("the macro should differ between the sides")
	}
	if got := cur.ParentMap["model.ripple_test.int_payments"]; !reflect.DeepEqual(got, []string{"source.ripple_test.raw.payments"}) {
		t.Errorf("parent_map of int_payments: %v", got)
	}

	// Tests.
	var rel *dbt.Node
	for _, n := range cur.Nodes {
		if n.TestMetadata != nil && n.TestMetadata.Name == "relationships" {
			rel = n
		}
	}
	if rel == nil || rel.AttachedNode != "model.ripple_test.stg_orders" || rel.ColumnName != "customer_id" ||
		string(rel.TestMetadata.Kwargs["to"]) != `"ref('customers')"` ||
		!reflect.DeepEqual(rel.DependsOn.Nodes, []string{"model.ripple_test.customers", "model.ripple_test.stg_orders"}) {
		t.Fatalf("relationships test: %+v", rel)
	}
	// In base, customer 3 does not exist but order 3 points to it.
	statuses := map[string]string{}
	for _, r := range proj.Base.RunResults.Results {
		statuses[r.UniqueID] = r.Status
	}
	if statuses[rel.UniqueID] != "fail" || statuses["model.ripple_test.orders"] != "success" {
		t.Errorf("base run results: %v", statuses)
	}
	for _, r := range proj.Current.RunResults.Results {
		if r.Status != "success" && r.Status != "pass" {
			t.Errorf("current %s: %s %s", r.UniqueID, r.Status, r.Message)
		}
	}

	// Catalog: physical columns from DuckDB.
	ce, ok := proj.Current.Catalog.Entry("model.ripple_test.orders")
	if !ok {
		t.Fatal("orders not in the current catalog")
	}
	var cols []string
	for _, c := range ce.SortedColumns() {
		cols = append(cols, c.Name+" "+c.Type)
	}
	if want := []string{"order_id BIGINT", "customer_id BIGINT", "status VARCHAR", "amount DOUBLE"}; !reflect.DeepEqual(cols, want) {
		t.Errorf("current orders columns %v, want %v", cols, want)
	}
	if e, _ := proj.Current.Catalog.Entry("model.ripple_test.stg_orders"); e == nil || e.Metadata.Type != "VIEW" {
		t.Errorf("stg_orders catalog: %+v", e)
	}
	if e, _ := proj.Current.Catalog.Entry("source.ripple_test.raw.payments"); e == nil || len(e.Columns) != 3 {
		t.Errorf("source catalog: %+v", e)
	}
	if e, _ := proj.Current.Catalog.Entry("snapshot.ripple_test.customers_snapshot"); e == nil || e.Columns["dbt_valid_to"] == nil {
		t.Errorf("snapshot catalog: %+v", e)
	}

	// Data in DuckDB.
	db, err := b.OpenDB()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := func(query string) string {
		t.Helper()
		rows, err := db.QueryContext(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return strings.Join(out, ";")
	}
	if got := q(`select concat_ws(',', id, name, age) from "base".customers order by id`); got != "1,Alice,30;2,Bob,25" {
		t.Errorf("base customers: %s", got)
	}
	if got := q(`select concat_ws(',', id, name, age) from "current".customers order by id`); got != "1,Alice,30;2,Bob,25;3,Charlie,35" {
		t.Errorf("current customers: %s", got)
	}
	if got := q(`select concat_ws(',', order_id, amount) from "base".orders order by order_id`); got != "1,12.5;2,9.99;3" {
		t.Errorf("base orders: %s", got)
	}
	if got := q(`select table_schema || '.' || table_name from information_schema.tables where table_name in ('legacy', 'brand_new', 'parked', 'int_payments') order by 1`); got != "base.legacy;base.parked;current.brand_new" {
		t.Errorf("relations: %s", got)
	}
	for _, f := range []string{"dbt_project.yml", "profiles.yml", "models/staging/stg_orders.sql", "seeds/raw_orders.csv", "macros/cents_to_dollars.sql"} {
		if _, err := os.Stat(filepath.Join(b.Dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestBuildIsIdempotentAndDeterministic(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var got [2][]byte
	for i := range got {
		b, err := scenario(t).Build(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		got[i] = normalizedManifests(t, b)
	}
	if !bytes.Equal(got[0], got[1]) {
		t.Fatal("two builds of the same scenario differ")
	}
	golden.Assert(t, filepath.Join("testdata", "manifests.golden.json"), got[0])
}

var volatile = regexp.MustCompile(`"(generated_at|invocation_id|created_at|root_path)":\s*("[^"]*"|[0-9.e+-]+)`)

// normalizedManifests returns both manifests, indented, with timestamps,
// invocation ids and the temporary directory replaced.
func normalizedManifests(t *testing.T, b *dbtfixture.Built) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, dir := range []string{b.Paths.BaseDir(), b.Paths.CurrentDir()} {
		raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		var ind bytes.Buffer
		if err := json.Indent(&ind, raw, "", "  "); err != nil {
			t.Fatal(err)
		}
		s := volatile.ReplaceAllString(ind.String(), `"$1": "<volatile>"`)
		s = strings.ReplaceAll(s, b.Dir, "<dir>")
		buf.WriteString(s)
		buf.WriteString("\n")
	}
	return buf.Bytes()
}

func sortedKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestBuilderOptions(t *testing.T) {
	ctx := context.Background()
	p := dbtfixture.New(t).Name("shop").Schemas("prod", "dev").DatabaseFile("wh.duckdb")
	p.Model("snap", dbtfixture.Table, "select 1 as id", "select 1 as id").Materialized(dbtfixture.Snapshot).Config("unique_key", "id")
	p.Model("v", dbtfixture.Table, "select 1 as id", "select 1 as id").Config("materialized", "view").Config("meta", map[string]any{"owner": "ann"})
	p.Model("off", dbtfixture.Table, "select 1 as id", "select 1 as id").Config("enabled", false)
	p.Model("dep", dbtfixture.View, "select 1 as id", "select 1 as id").Package("dep_pkg")
	p.Model("strict", dbtfixture.Table, "select 1 as id", "select 1 as id").ContractEnforced().
		Columns(dbtfixture.Col("id", "key").Type("integer"))
	b := p.MustBuild(ctx)
	if b.Database != "wh" || b.Relation(dbtfixture.Base, "v") != `"wh"."prod"."v"` {
		t.Errorf("built: %+v", b)
	}
	proj, err := b.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := proj.Current.Manifest
	if n, ok := m.Node("snapshot.shop.snap"); !ok || n.ResourceType != dbt.Snapshot {
		t.Errorf("snapshot: %+v", n)
	}
	if n, ok := m.Node("model.shop.v"); !ok || n.Config.Materialized != "view" || string(n.Meta) != `{"owner":"ann"}` {
		t.Errorf("view: %+v", n)
	}
	if e, _ := proj.Current.Catalog.Entry("model.shop.v"); e == nil || e.Metadata.Type != "VIEW" || e.Metadata.Schema != "dev" {
		t.Errorf("view catalog: %+v", e)
	}
	if _, ok := m.DisabledNode("model.shop.off"); !ok {
		t.Error("off should be disabled")
	}
	if n, ok := m.Node("model.dep_pkg.dep"); !ok || n.PackageName != "dep_pkg" {
		t.Errorf("dep: %+v", n)
	}
	if n, ok := m.Node("model.shop.strict"); !ok || !n.Config.Contract.Enforced || !n.Contract.Enforced || n.Contract.Checksum == "" || n.Columns["id"].DataType != "integer" {
		t.Errorf("strict: %+v", n)
	}
	if _, err := os.Stat(filepath.Join(b.Dir, "dbt_packages", "dep_pkg", "models", "dep.sql")); err != nil {
		t.Error(err)
	}
	if !strings.Contains(readFile(t, filepath.Join(b.Dir, "profiles.yml")), `schema: "dev"`) {
		t.Error("profiles.yml should name the current schema")
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
