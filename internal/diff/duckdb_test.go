package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbtfixture"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/duckdb"
)

// fixtureEnv builds the standard scenario with dbtfixture and opens its
// DuckDB file read-only, as Ripple does.
func fixtureEnv(t *testing.T) Env {
	t.Helper()
	ctx := context.Background()
	p := dbtfixture.New(t)
	p.Table("customers", []string{"id INTEGER", "name VARCHAR", "age INTEGER"},
		dbtfixture.Rows{{1, "Alice", 30}, {2, "Bob", 25}},
		dbtfixture.Rows{{1, "Alice", 30}, {2, "Bob", 25}, {3, "Charlie", 35}})
	p.Table("orders", []string{"id INTEGER", "amount INTEGER"},
		dbtfixture.Rows{{1, 100}, {2, 200}},
		dbtfixture.Rows{{1, 150}, {2, 200}, {3, 300}})
	p.Table("sales", []string{"region VARCHAR", "customer_id INTEGER", "revenue DOUBLE", "note VARCHAR"},
		dbtfixture.Rows{{"eu", 1, 100.0, "a"}, {"eu", 2, 200.0, nil}, {"us", 1, 50.0, "c"}, {"us", 2, nil, "d"}},
		dbtfixture.Rows{{"eu", 1, 100.0, "a"}, {"eu", 2, 250.0, "b"}, {"us", 1, 50.0, nil}, {"us", 3, 70.0, "e"}})
	p.Table("weird", []string{"id INTEGER", "column_name VARCHAR", "\"1st\" INTEGER"},
		dbtfixture.Rows{{1, "x", 1}, {2, "y", 2}},
		dbtfixture.Rows{{1, "x", 1}, {2, "z", 2}})
	p.Table("emptied", []string{"id INTEGER", "v DOUBLE"},
		dbtfixture.Rows{{1, 1.5}, {2, 2.5}, {3, nil}},
		dbtfixture.Rows{})
	p.Table("dups", []string{"id INTEGER", "v INTEGER"},
		dbtfixture.Rows{{1, 1}, {2, 2}},
		dbtfixture.Rows{{1, 1}, {1, 2}, {2, 2}})
	p.Table("events", []string{"id INTEGER", "day DATE", "ts TIMESTAMP", "flag BOOLEAN", "score DOUBLE"},
		dbtfixture.Rows{
			{1, dbtfixture.Expr("date '2024-01-01'"), dbtfixture.Expr("timestamp '2024-01-01 10:00:00'"), true, 1.0},
			{2, dbtfixture.Expr("date '2024-01-02'"), dbtfixture.Expr("timestamp '2024-01-02 10:00:00'"), false, 2.0},
			{3, dbtfixture.Expr("date '2024-01-05'"), nil, nil, nil}},
		dbtfixture.Rows{
			{1, dbtfixture.Expr("date '2024-01-01'"), dbtfixture.Expr("timestamp '2024-01-01 10:00:00'"), true, 1.0},
			{2, dbtfixture.Expr("date '2024-01-03'"), dbtfixture.Expr("timestamp '2024-01-02 10:00:00'"), true, 4.0},
			{3, dbtfixture.Expr("date '2024-01-05'"), nil, nil, 3.0}})
	p.Table("names", []string{"id INTEGER", "name VARCHAR"},
		dbtfixture.Rows{{1, "Alice"}, {2, "Bob"}, {3, "Charlie"}, {4, nil}},
		dbtfixture.Rows{{1, "Alice"}, {2, "Bob"}, {3, "Charlie"}, {4, "Bob"}})
	p.Table("ages", []string{"id INTEGER", "age INTEGER"},
		dbtfixture.Rows{{1, 25}, {2, 30}, {3, 35}, {4, 50}},
		dbtfixture.Rows{{1, 25}, {2, 30}, {3, 35}, {4, 50}})
	p.Table("nullkey", []string{"id INTEGER", "v INTEGER"},
		dbtfixture.Rows{{1, 1}, {nil, 2}},
		dbtfixture.Rows{{1, 1}, {2, 2}})
	p.Table("shape", []string{"id INTEGER", "name VARCHAR", "old INTEGER"},
		dbtfixture.Rows{{1, "a", 1}},
		nil)
	p.Model("reshaped", dbtfixture.Table, "select 1 as id, 'a' as name, 1 as old", "select 1 as id, 2 as name, 3 as extra")
	p.Model("stg_view", dbtfixture.View, "select * from {{ ref('customers') }}", "select * from {{ ref('customers') }}")
	p.Model("eph", dbtfixture.Ephemeral, "select 1 as x", "select 1 as x")
	p.Model("legacy", dbtfixture.Table, "select 1 as x", "")
	p.Model("brand_new", dbtfixture.Table, "", "select 1 as x")
	p.Seed("raw_things", dbtfixture.CSV("id,name\n1,a\n2,b\n"))
	b := p.MustBuild(ctx)
	proj, err := b.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := duckdb.Open(ctx, duckdb.Options{Path: b.DBPath, ReadOnly: true, Catalog: b.Database})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return Env{Project: proj, Conn: conn, Dialect: mustDialect(t, "duckdb")}
}

func TestValueDiffDuckDB(t *testing.T) {
	env := fixtureEnv(t)
	ctx := context.Background()
	res, err := ValueDiff(ctx, env, ValueDiffInput{Model: "orders", PrimaryKey: Keys{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Summary, (ValueDiffSummary{Total: 3, Added: 1, Removed: 0, Changed: 1}); got != want {
		t.Fatalf("summary = %+v, want %+v", got, want)
	}
	amt, _ := res.Column("amount")
	if amt.Matched != 1 || fmtF(amt.MatchedP) != "0.5" || fmtF(amt.BaseMean) != "150" || fmtF(amt.CurrentMean) != "216.66666666666666" {
		t.Fatalf("amount = %+v matched_p=%s base_mean=%s current_mean=%s", amt, fmtF(amt.MatchedP), fmtF(amt.BaseMean), fmtF(amt.CurrentMean))
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRowCountDiffDuckDB(t *testing.T) {
	env := fixtureEnv(t)
	ctx := context.Background()
	res, err := RowCountDiff(ctx, env, RowCountDiffInput{
		NodeNames: []string{"customers", "stg_view", "legacy", "brand_new", "eph", "raw_things", "customers_", "orders"},
	})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		base, cur        string
		bstatus, cstatus string
		bmsg, cmsg       string
	}
	i64 := func(p *int64) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprint(*p)
	}
	for name, w := range map[string]want{
		"customers":  {"2", "3", StatusOK, StatusOK, "", ""},
		"stg_view":   {"2", "3", StatusOK, StatusOK, "", ""},
		"orders":     {"2", "3", StatusOK, StatusOK, "", ""},
		"legacy":     {"1", "nil", StatusOK, StatusNotInManifest, "", "not found in current manifest"},
		"brand_new":  {"nil", "1", StatusNotInManifest, StatusOK, "not found in base manifest", ""},
		"eph":        {"nil", "nil", StatusUnsupportedMaterialization, StatusUnsupportedMaterialization, "ephemeral", "ephemeral"},
		"raw_things": {"nil", "nil", StatusUnsupportedResourceType, StatusUnsupportedResourceType, "seed", "seed"},
		"customers_": {"nil", "nil", StatusNotInManifest, StatusNotInManifest, `did you mean "customers"`, `did you mean "customers"`},
	} {
		rc := res.Models[name]
		if rc == nil {
			t.Fatalf("%s missing from %s", name, jsonOf(t, res))
		}
		got := want{i64(rc.Base), i64(rc.Current), rc.BaseMeta.Status, rc.CurrentMeta.Status, "", ""}
		if got.base != w.base || got.cur != w.cur || got.bstatus != w.bstatus || got.cstatus != w.cstatus ||
			!strings.Contains(rc.BaseMeta.Message, w.bmsg) || !strings.Contains(rc.CurrentMeta.Message, w.cmsg) {
			t.Errorf("%s = %s, want %+v", name, jsonOf(t, rc), w)
		}
	}

	// A relation missing in the warehouse is a status, not a failure.
	n, _ := env.Project.Current.Manifest.Lookup("orders")
	saved := n.RelationName
	n.RelationName = `"ripple"."no_such_schema"."orders"`
	defer func() { n.RelationName = saved }()
	res, err = RowCountDiff(ctx, env, RowCountDiffInput{NodeIDs: []string{n.UniqueID}})
	if err != nil {
		t.Fatal(err)
	}
	rc := res.Models["orders"]
	if rc.CurrentMeta.Status != StatusTableNotFound || !strings.Contains(rc.CurrentMeta.Message, "stale dbt artifacts") ||
		!strings.Contains(rc.CurrentMeta.Message, "environment configuration") || rc.BaseMeta.Status != StatusOK || *rc.Base != 2 {
		t.Fatalf("missing table: %s", jsonOf(t, rc))
	}

	// Selector-driven: only models, snapshots and seeds are counted.
	env.Select = func(sel Selection) ([]string, error) {
		if sel.Select != "tag:x" || sel.Exclude != "orders" || sel.ViewMode != "all" || len(sel.Packages) != 1 || sel.Packages[0] != "ripple_test" {
			t.Fatalf("selection %+v", sel)
		}
		return []string{"model.ripple_test.customers", "test.ripple_test.unique_x", "seed.ripple_test.raw_things"}, nil
	}
	res, err = RowCountDiff(ctx, env, RowCountDiffInput{Select: "tag:x", Exclude: "orders", Packages: []string{"ripple_test"}, ViewMode: "all"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Models) != 2 || res.Models["customers"] == nil || res.Models["raw_things"].BaseMeta.Status != StatusUnsupportedResourceType {
		t.Fatalf("selected: %s", jsonOf(t, res))
	}
	if _, err := RowCountDiff(ctx, env, RowCountDiffInput{NodeIDs: []string{"model.ripple_test.customerz"}}); err == nil || !strings.Contains(err.Error(), "model.ripple_test.customers") {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestSchemaDiffDuckDB(t *testing.T) {
	env := fixtureEnv(t)
	ctx := context.Background()
	res, err := SchemaDiff(ctx, env, SchemaDiffInput{})
	if err != nil {
		t.Fatal(err)
	}
	got := jsonOf(t, res.Changes.Data)
	want := `[["model.ripple_test.reshaped","name","modified","VARCHAR","INTEGER"],["model.ripple_test.reshaped","extra","added",null,"INTEGER"],["model.ripple_test.reshaped","old","removed","INTEGER",null]]`
	if got != want {
		t.Fatalf("changes = %s\nwant %s", got, want)
	}
	if res.Coverage.Status != CoverageComplete || res.Coverage.UncheckedNodeCount != 0 || len(res.Coverage.UncheckedNodes) != 0 {
		t.Fatalf("coverage = %+v", res.Coverage)
	}
	// A node without catalog columns on one side is unchecked, never removed.
	delete(env.Project.Base.Catalog.Nodes, "model.ripple_test.orders")
	res, err = SchemaDiff(ctx, env, SchemaDiffInput{NodeIDs: []string{"model.ripple_test.orders", "model.ripple_test.eph", "model.ripple_test.customers"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes.Data) != 0 || res.Coverage.Status != CoveragePartial || jsonOf(t, res.Coverage.UncheckedNodes) != `["model.ripple_test.orders"]` || res.Coverage.UncheckedNodeCount != 1 || res.Coverage.More {
		t.Fatalf("partial = %s", jsonOf(t, res))
	}
}

func TestQueryDuckDB(t *testing.T) {
	env := fixtureEnv(t)
	ctx := context.Background()
	for _, sql := range []string{
		"select * from {{ ref('customers') }} order by id",
		`select * from {{ref("customers")}} order by id;`,
		"select * from {{   ref( 'ripple_test' ,  \"customers\" )   }} order by id -- trailing comment",
	} {
		res, err := Query(ctx, env, QueryInput{SQLTemplate: sql})
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if got := jsonOf(t, res.Data); got != `[[1,"Alice",30],[2,"Bob",25],[3,"Charlie",35]]` || *res.TotalRowCount != 3 || res.More {
			t.Fatalf("%s: %s", sql, jsonOf(t, res))
		}
	}
	res, err := Query(ctx, env, QueryInput{SQLTemplate: "select count(*) as n from {{ ref('customers') }}", Base: true})
	if err != nil || jsonOf(t, res.Data) != `[[2]]` {
		t.Fatalf("base: %v %s", err, jsonOf(t, res))
	}
	res, err = Query(ctx, env, QueryInput{SQLTemplate: "select i from range(2500) t(i) order by i"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Data) != 2000 || !res.More || *res.TotalRowCount != 2500 || *res.Limit != 2000 {
		t.Fatalf("capped: rows=%d more=%v total=%v", len(res.Data), res.More, res.TotalRowCount)
	}
	for sql, want := range map[string]string{
		"delete from {{ ref('customers') }}":           "read-only",
		"select 1; select 2":                           "more than one statement",
		"select 1; drop table x":                       "DROP",
		"select * from {{ ref('customerz') }}":         `did you mean "customers"`,
		"select * from {{ ref('eph') }}":               "ephemeral",
		"select {{ var('x') }}":                        "only {{ ref('model') }}",
		"select * from {{ source('raw', 'missing') }}": "source('raw', 'missing')",
		"   ": "empty",
	} {
		if _, err := Query(ctx, env, QueryInput{SQLTemplate: sql}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", sql, err, want)
		}
	}
}

func TestQueryDiffDuckDB(t *testing.T) {
	env := fixtureEnv(t)
	ctx := context.Background()
	res, err := QueryDiff(ctx, env, QueryDiffInput{SQLTemplate: "select * from {{ ref('customers') }} order by id"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Base.Data) != 2 || len(res.Current.Data) != 3 || res.Diff != nil {
		t.Fatalf("no keys: %s", jsonOf(t, res))
	}
	res, err = QueryDiff(ctx, env, QueryDiffInput{SQLTemplate: "select * from {{ ref('customers') }}", BaseSQLTemplate: "select * from {{ ref('customers') }} where id <= 1"})
	if err != nil || len(res.Base.Data) != 1 {
		t.Fatalf("base_sql: %v %s", err, jsonOf(t, res))
	}
	res, err = QueryDiff(ctx, env, QueryDiffInput{SQLTemplate: "select id, amount from {{ ref('orders') }}", PrimaryKeys: []string{"ID"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, res.Diff.Data); got != `[[1,100,true,false],[1,150,false,true],[3,300,false,true]]` {
		t.Fatalf("diff = %s", got)
	}
	if *res.Summary != (QueryDiffSummary{Added: 1, Removed: 0, Changed: 1}) || res.Base != nil || res.Current != nil {
		t.Fatalf("summary = %s", jsonOf(t, res))
	}
	// Over the cap the summary is computed in the warehouse.
	res, err = QueryDiff(ctx, env, QueryDiffInput{SQLTemplate: "select i as id, i % 7 as v from range(3000) t(i)", BaseSQLTemplate: "select i as id, i % 5 as v from range(2500) t(i)", PrimaryKeys: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Diff.More || len(res.Diff.Data) != 2000 || res.Summary.Added != 500 || res.Summary.Removed != 0 || res.Summary.Changed <= 0 || *res.Diff.TotalRowCount != 500+2*res.Summary.Changed {
		t.Fatalf("capped summary = %s more=%v total=%v", jsonOf(t, res.Summary), res.Diff.More, *res.Diff.TotalRowCount)
	}
	if _, err := QueryDiff(ctx, env, QueryDiffInput{SQLTemplate: "select id from {{ ref('orders') }}", BaseSQLTemplate: "select id, amount from {{ ref('orders') }}", PrimaryKeys: []string{"id"}}); err == nil || !strings.Contains(err.Error(), "same columns") {
		t.Fatalf("column mismatch: %v", err)
	}
}

func TestProfileDiffDuckDB(t *testing.T) {
	env := fixtureEnv(t)
	ctx := context.Background()
	res, err := ProfileDiff(ctx, env, ProfileDiffInput{Model: "customers"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, res.Base.Data), `[["id","INTEGER",2,1,1,2,true,"1","2",1.5,1.5],["name","VARCHAR",2,1,1,2,true,null,null,null,null],["age","INTEGER",2,1,1,2,true,"25","30",27.5,27.5]]`; got != want {
		t.Fatalf("base = %s\nwant %s", got, want)
	}
	if got, want := jsonOf(t, res.Current.Data), `[["id","INTEGER",3,1,1,3,true,"1","3",2,2],["name","VARCHAR",3,1,1,3,true,null,null,null,null],["age","INTEGER",3,1,1,3,true,"25","35",30,30]]`; got != want {
		t.Fatalf("current = %s\nwant %s", got, want)
	}
	res, err = ProfileDiff(ctx, env, ProfileDiffInput{Model: "emptied", Columns: []string{"V"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, res.Base.Data), `[["v","DOUBLE",3,0.6666666666666666,0.6666666666666666,2,false,"1.5","2.5",2,2]]`; got != want {
		t.Fatalf("emptied base = %s\nwant %s", got, want)
	}
	if got, want := jsonOf(t, res.Current.Data), `[["v","DOUBLE",0,null,null,0,null,null,null,null,null]]`; got != want {
		t.Fatalf("emptied current = %s\nwant %s", got, want)
	}
	res, err = ProfileDiff(ctx, env, ProfileDiffInput{Model: "events", Columns: []string{"day", "flag"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, res.Current.Data), `[["day","DATE",3,1,1,3,true,"2024-01-01","2024-01-05",null,null],["flag","BOOLEAN",3,0.6666666666666666,0.3333333333333333,1,false,null,null,1,null]]`; got != want {
		t.Fatalf("events current = %s\nwant %s", got, want)
	}
	if _, err := ProfileDiff(ctx, env, ProfileDiffInput{Model: "customers", Columns: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), "id, name, age") {
		t.Fatalf("unknown column: %v", err)
	}
}

func TestValueDiffCasesDuckDB(t *testing.T) {
	env := fixtureEnv(t)
	ctx := context.Background()
	// Composite key, NULLs on either side, changes and adds/removes.
	res, err := ValueDiff(ctx, env, ValueDiffInput{Model: "sales", PrimaryKey: Keys{"region", "customer_id"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary != (ValueDiffSummary{Total: 5, Added: 1, Removed: 1, Changed: 2}) {
		t.Fatalf("sales summary = %+v", res.Summary)
	}
	if got, want := jsonOf(t, res.Data.Data), `[["region",3,1,0,0,null,null],["customer_id",3,1,0,0,null,null],["revenue",2,0.6666666666666666,0,0,116.66666666666667,117.5],["note",1,0.3333333333333333,1,1,null,null]]`; got != want {
		t.Fatalf("sales data = %s\nwant %s", got, want)
	}
	if jsonOf(t, res.PrimaryKey) != `["region","customer_id"]` {
		t.Fatalf("primary key = %v", res.PrimaryKey)
	}

	// A column literally named column_name and a digit-leading column.
	res, err = ValueDiff(ctx, env, ValueDiffInput{Model: "model.ripple_test.weird", PrimaryKey: Keys{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, res.Data.Data), `[["id",2,1,0,0,null,null],["column_name",1,0.5,0,0,null,null],["1st",2,1,0,0,1.5,1.5]]`; got != want || res.Summary.Total != 2 || res.Summary.Changed != 1 {
		t.Fatalf("weird = %s %+v", got, res.Summary)
	}

	// Columns filter: keys first, then the requested columns.
	res, err = ValueDiff(ctx, env, ValueDiffInput{Model: "customers", PrimaryKey: Keys{"id"}, Columns: []string{"NAME"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, res.Data.Data); got != `[["id",2,1,0,0,null,null],["name",2,1,0,0,null,null]]` || res.Summary != (ValueDiffSummary{Total: 3, Added: 1}) {
		t.Fatalf("customers = %s %+v", got, res.Summary)
	}

	// Only the key compared.
	res, err = ValueDiff(ctx, env, ValueDiffInput{Model: "customers", PrimaryKey: Keys{"id"}, Columns: []string{"id"}})
	if err != nil || jsonOf(t, res.Data.Data) != `[["id",2,1,0,0,null,null]]` || res.Summary != (ValueDiffSummary{Total: 3, Added: 1}) {
		t.Fatalf("key only = %v %s", err, jsonOf(t, res))
	}

	// An empty table on one side.
	res, err = ValueDiff(ctx, env, ValueDiffInput{Model: "emptied", PrimaryKey: Keys{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, res.Data.Data); got != `[["id",0,null,0,0,null,null],["v",0,null,0,0,2,null]]` || res.Summary != (ValueDiffSummary{Total: 3, Removed: 3}) {
		t.Fatalf("emptied = %s %+v", got, res.Summary)
	}

	// Duplicate and NULL keys fail with the SQL to check.
	_, err = ValueDiff(ctx, env, ValueDiffInput{Model: "dups", PrimaryKey: Keys{"id"}})
	if err == nil || !strings.Contains(err.Error(), "more than once") || !strings.Contains(err.Error(), "current environment") ||
		!strings.Contains(err.Error(), `SELECT "id", COUNT(*) AS n FROM "ripple"."current"."dups" GROUP BY "id" HAVING COUNT(*) > 1`) {
		t.Fatalf("duplicate key: %v", err)
	}
	_, err = ValueDiff(ctx, env, ValueDiffInput{Model: "nullkey", PrimaryKey: Keys{"id"}})
	if err == nil || !strings.Contains(err.Error(), "NULL key") || !strings.Contains(err.Error(), "base environment") {
		t.Fatalf("null key: %v", err)
	}
	for in, want := range map[string]ValueDiffInput{
		"primary_key cannot be empty":  {Model: "orders"},
		`did you mean "orders"`:        {Model: "orderz", PrimaryKey: Keys{"id"}},
		`column "nope" does not exist`: {Model: "orders", PrimaryKey: Keys{"nope"}},
		"not in the base manifest":     {Model: "brand_new", PrimaryKey: Keys{"x"}},
		"ephemeral":                    {Model: "eph", PrimaryKey: Keys{"x"}},
	} {
		if _, err := ValueDiff(ctx, env, want); err == nil || !strings.Contains(err.Error(), in) {
			t.Errorf("%+v: err = %v, want %q", want, err, in)
		}
	}
}

func TestValueDiffDetailDuckDB(t *testing.T) {
	env := fixtureEnv(t)
	ctx := context.Background()
	res, err := ValueDiffDetail(ctx, env, ValueDiffDetailInput{Model: "orders", PrimaryKey: Keys{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, res.Data); got != `[[1,100,true,false],[1,150,false,true],[3,300,false,true]]` {
		t.Fatalf("orders detail = %s", got)
	}
	if got := jsonOf(t, res.Columns); got != `[{"key":"id","name":"id","type":"integer"},{"key":"amount","name":"amount","type":"integer"},{"key":"in_a","name":"in_a","type":"boolean"},{"key":"in_b","name":"in_b","type":"boolean"}]` {
		t.Fatalf("columns = %s", got)
	}
	res, err = ValueDiffDetail(ctx, env, ValueDiffDetailInput{Model: "sales", PrimaryKey: Keys{"customer_id", "region"}, Columns: []string{"note"}, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, res.Data); got != `[[1,"us","c",true,false],[1,"us",null,false,true],[2,"eu",null,true,false]]` || !res.More || *res.TotalRowCount != 6 {
		t.Fatalf("sales detail = %s more=%v total=%v", got, res.More, res.TotalRowCount)
	}
}

func TestTopKDiffDuckDB(t *testing.T) {
	env := fixtureEnv(t)
	res, err := TopKDiff(context.Background(), env, TopKDiffInput{Model: "names", Column: "NAME", K: 50})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, res), `{"base":{"values":["Bob","Alice","Charlie"],"counts":[1,1,1],"valids":3,"total":4},"current":{"values":["Bob","Alice","Charlie"],"counts":[2,1,1],"valids":4,"total":4}}`; got != want {
		t.Fatalf("top_k = %s\nwant %s", got, want)
	}
	res, err = TopKDiff(context.Background(), env, TopKDiffInput{Model: "names", Column: "name", K: 1})
	if err != nil || jsonOf(t, res.Current.Values) != `["Bob"]` {
		t.Fatalf("k=1: %v %s", err, jsonOf(t, res))
	}
}

func TestHistogramDiffDuckDB(t *testing.T) {
	env := fixtureEnv(t)
	ctx := context.Background()
	res, err := HistogramDiff(ctx, env, HistogramDiffInput{Model: "ages", Column: "age"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Min != int64(25) || res.Max != int64(50) || len(res.Base.Counts) != 26 || res.Base.Counts[0] != 1 || res.Base.Counts[25] != 1 ||
		res.Base.Total != 4 || len(res.BinEdges) != 27 || res.BinEdges[0] != int64(25) || res.BinEdges[26] != int64(51) || res.Labels[0] != "25-26" {
		t.Fatalf("ages = %s", jsonOf(t, res))
	}
	res, err = HistogramDiff(ctx, env, HistogramDiffInput{Model: "orders", Column: "amount", NumBins: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, res), `{"base":{"counts":[1,0,1,0],"total":2},"current":{"counts":[0,1,1,1],"total":3},"min":100,"max":300,"bin_edges":[100,150,200,250,300],"labels":["100-150","150-200","200-250","250-300"]}`; got != want {
		t.Fatalf("orders = %s\nwant %s", got, want)
	}
	res, err = HistogramDiff(ctx, env, HistogramDiffInput{Model: "sales", Column: "revenue", NumBins: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, res), `{"base":{"counts":[2,1],"total":3},"current":{"counts":[3,1],"total":4},"min":50,"max":250,"bin_edges":[50,150,250],"labels":["50-150","150-250"]}`; got != want {
		t.Fatalf("revenue = %s\nwant %s", got, want)
	}
	res, err = HistogramDiff(ctx, env, HistogramDiffInput{Model: "events", Column: "day"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, res), `{"base":{"counts":[1,1,0,0,1],"total":3},"current":{"counts":[1,0,1,0,1],"total":3},"min":"2024-01-01","max":"2024-01-05","bin_edges":["2024-01-01","2024-01-02","2024-01-03","2024-01-04","2024-01-05","2024-01-06"],"labels":["2024-01-01","2024-01-02","2024-01-03","2024-01-04","2024-01-05"],"interval":"day"}`; got != want {
		t.Fatalf("day = %s\nwant %s", got, want)
	}
	res, err = HistogramDiff(ctx, env, HistogramDiffInput{Model: "emptied", Column: "v"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, res), `{"base":{"counts":[1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1],"total":2},"current":{"counts":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"total":0}`; !strings.HasPrefix(got, want) {
		t.Fatalf("emptied = %s", got)
	}
	if _, err := HistogramDiff(ctx, env, HistogramDiffInput{Model: "customers", Column: "name"}); err == nil || !strings.Contains(err.Error(), "not supported for histogram") {
		t.Fatalf("varchar: %v", err)
	}
}

// TestUpperCaseColumnsDuckDB uses Snowflake-style upper-case physical
// columns: requests in lower case must resolve to the quoted upper-case names.
func TestUpperCaseColumnsDuckDB(t *testing.T) {
	conn := memDuckDB(t, "CREATE SCHEMA base", "CREATE SCHEMA current",
		`CREATE TABLE base.people ("CUSTOMER_ID" INTEGER, "AGE" INTEGER, "NAME" VARCHAR)`,
		`INSERT INTO base.people VALUES (1, 35, 'Alice'), (2, 25, 'Bob'), (3, 35, 'Charlie')`,
		`CREATE TABLE current.people ("CUSTOMER_ID" INTEGER, "AGE" INTEGER, "NAME" VARCHAR)`,
		`INSERT INTO current.people VALUES (1, 30, 'Alice'), (2, 25, 'Bob'), (3, 35, 'Charlie')`)
	env := Env{Project: handProject(t, "memory", "base", "current", model{name: "people"}), Conn: conn, Dialect: mustDialect(t, "duckdb")}
	ctx := context.Background()
	res, err := ValueDiff(ctx, env, ValueDiffInput{Model: "people", PrimaryKey: Keys{"customer_id"}, Columns: []string{"age"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, res.Data.Data); got != `[["CUSTOMER_ID",3,1,0,0,null,null],["AGE",2,0.6666666666666666,0,0,31.666666666666668,30]]` || res.Summary.Changed != 1 {
		t.Fatalf("upper = %s %+v", got, res.Summary)
	}
	p, err := env.planValueDiff(ctx, "people", Keys{"customer_id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{valueDiffSQL(p), keyCheckSQL(p.dialect, p.baseRel, p.keyCols(Base)), valueDiffDetailSQL(p)} {
		if !strings.Contains(sql, `"CUSTOMER_ID"`) || strings.Contains(sql, `"customer_id"`) {
			t.Fatalf("SQL does not quote the physical name:\n%s", sql)
		}
	}
	prof, err := ProfileDiff(ctx, env, ProfileDiffInput{Model: "people", Columns: []string{"age"}})
	if err != nil || len(prof.Base.Data) != 1 || prof.Base.Data[0][0] != "AGE" {
		t.Fatalf("profile upper: %v %s", err, jsonOf(t, prof))
	}
}

// TestValueDiffKeyChecksInOnePass checks that the single diff pass itself
// notices every kind of bad key, before verifyKeys explains it.
func TestValueDiffKeyChecksInOnePass(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, base, current string
		seen                [2]int64 // base_seen - base rows, current_seen - current rows
		nulls, dups         [2]int64
		err                 string
	}{
		{"clean", "(1,1),(2,2)", "(1,1),(3,3)", [2]int64{}, [2]int64{}, [2]int64{}, ""},
		{"matched dup in current", "(1,1),(2,2)", "(1,1),(1,2),(2,2)", [2]int64{1, 0}, [2]int64{}, [2]int64{}, "current environment"},
		{"matched dup in base", "(1,1),(1,5),(2,2)", "(1,1),(2,2)", [2]int64{0, 1}, [2]int64{}, [2]int64{}, "base environment"},
		{"dup only in base", "(1,1),(9,1),(9,2)", "(1,1)", [2]int64{}, [2]int64{}, [2]int64{1, 0}, "base environment"},
		{"dup only in current", "(1,1)", "(1,1),(8,1),(8,2)", [2]int64{}, [2]int64{}, [2]int64{0, 1}, "current environment"},
		{"null key in current", "(1,1)", "(1,1),(NULL,2),(NULL,3)", [2]int64{}, [2]int64{0, 2}, [2]int64{}, "NULL key"},
		{"null key in base", "(1,1),(NULL,2)", "(1,1)", [2]int64{}, [2]int64{1, 0}, [2]int64{}, "NULL key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := memDuckDB(t, "CREATE SCHEMA base", "CREATE SCHEMA current",
				"CREATE TABLE base.k (id INTEGER, v INTEGER)", "INSERT INTO base.k VALUES "+tc.base,
				"CREATE TABLE current.k (id INTEGER, v INTEGER)", "INSERT INTO current.k VALUES "+tc.current)
			env := Env{Project: handProject(t, "memory", "base", "current", model{name: "k"}), Conn: conn, Dialect: mustDialect(t, "duckdb")}
			p, err := env.planValueDiff(ctx, "k", Keys{"id"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := conn.Query(ctx, valueDiffSQL(p), warehouseOpts1)
			if err != nil {
				t.Fatal(err)
			}
			sr, err := conn.Query(ctx, sideStatsSQL(p), warehouseOpts1)
			if err != nil {
				t.Fatal(err)
			}
			row, st := r.Rows[0], sr.Rows[0]
			got := [3][2]int64{
				{toInt(row[vdBaseSeen]) - toInt(st[0]), toInt(row[vdCurrentSeen]) - toInt(st[2])},
				{toInt(row[vdBaseNullKeys]), toInt(row[vdCurrentNullKeys])},
				{toInt(row[vdBaseDupKeys]), toInt(row[vdCurrentDupKeys])},
			}
			if want := [3][2]int64{tc.seen, tc.nulls, tc.dups}; got != want {
				t.Fatalf("seen/nulls/dups = %v, want %v", got, want)
			}
			_, err = ValueDiff(ctx, env, ValueDiffInput{Model: "k", PrimaryKey: Keys{"id"}})
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
		})
	}
}

var warehouseOpts1 = warehouse.QueryOptions{Limit: 1}
