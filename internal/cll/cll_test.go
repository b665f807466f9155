package cll

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
)

func TestAnalyzeSQL(t *testing.T) {
	schema := Schema{"x": {"a", "b"}, "y": {"b", "c"}, "z": {"a", "d"}}
	tests := []struct {
		name, dialect, sql, want string
	}{
		{"literals and count(*)", "generic", "select count(*), 1, now(), a + b as s from x",
			`{"columns":{"count(*)":{"deps":[],"kind":"source"},"1":{"deps":[],"kind":"source"},"now()":{"deps":[],"kind":"source"},"s":{"deps":["x.a","x.b"],"kind":"derived"}},"row_deps":[]}`},
		{"using merges keys", "generic", "select * from x join y using (b)",
			`{"columns":{"a":{"deps":["x.a"],"kind":"passthrough"},"b":{"deps":["x.b","y.b"],"kind":"passthrough"},"c":{"deps":["y.c"],"kind":"passthrough"}},"row_deps":["x.b","y.b"]}`},
		{"natural join", "generic", "select * from x natural join y",
			`{"columns":{"a":{"deps":["x.a"],"kind":"passthrough"},"b":{"deps":["x.b","y.b"],"kind":"passthrough"},"c":{"deps":["y.c"],"kind":"passthrough"}},"row_deps":["x.b","y.b"]}`},
		{"table column aliases", "generic", "select * from x as t(p, q)",
			`{"columns":{"p":{"deps":["x.a"],"kind":"renamed"},"q":{"deps":["x.b"],"kind":"renamed"}},"row_deps":[]}`},
		{"hive lateral view", "generic", "select t.a, f.c from x t lateral view explode(t.b) f as c",
			`{"columns":{"a":{"deps":["x.a"],"kind":"passthrough"},"c":{"deps":["x.b"],"kind":"derived"}},"row_deps":[]}`},
		{"named window", "generic", "select sum(a) over w as s from x window w as (partition by b order by a)",
			`{"columns":{"s":{"deps":["x.a","x.b"],"kind":"derived"}},"row_deps":[]}`},
		{"where subqueries are row deps", "generic", "select a from x where b in (select c from y) and exists (select 1 from z where z.a = x.a)",
			`{"columns":{"a":{"deps":["x.a"],"kind":"passthrough"}},"row_deps":["x.a","x.b","y.c","z.a"]}`},
		{"order by output alias", "generic", "select x.a as b from x order by b",
			`{"columns":{"b":{"deps":["x.a"],"kind":"renamed"}},"row_deps":["x.a"]}`},
		{"values", "generic", "select * from (values (1, 'a'), (2, 'b')) as v(id, name)",
			`{"columns":{"id":{"deps":[],"kind":"source"},"name":{"deps":[],"kind":"source"}},"row_deps":[]}`},
		{"insert prefix", "generic", "insert into foo select a from x",
			`{"columns":{"a":{"deps":["x.a"],"kind":"passthrough"}},"row_deps":[]}`},
		{"set operation", "generic", "select a from x union all select c from y order by 1",
			`{"columns":{"a":{"deps":["x.a","y.c"],"kind":"derived"}},"row_deps":["x.a","y.c"]}`},
		{"bigquery star except replace", "bigquery", "select * except (a) replace (b * 2 as b) from x",
			`{"columns":{"b":{"deps":["x.b"],"kind":"derived"}},"row_deps":[]}`},
		{"bigquery unnest element", "bigquery", "select item.sku, o.id from `proj.ds.orders` o, unnest(o.items) as item",
			`{"columns":{"sku":{"deps":["proj.ds.orders.items"],"kind":"derived"},"id":{"deps":["proj.ds.orders.id"],"kind":"passthrough"}},"row_deps":[]}`},
		{"date parts are keywords", "bigquery", "select date_trunc(created, month) as m, timestamp_diff(a, b, day) as d, extract(dayofweek from a) as e from t",
			`{"columns":{"m":{"deps":["t.created"],"kind":"derived"},"d":{"deps":["t.a","t.b"],"kind":"derived"},"e":{"deps":["t.a"],"kind":"derived"}},"row_deps":[]}`},
		{"postgres json and ordered aggregate", "postgres", "select a::text, b -> 'x' ->> 'y' as j, array_agg(distinct c order by c) as arr from t group by 1, 2",
			`{"columns":{"a":{"deps":["t.a"],"kind":"derived"},"j":{"deps":["t.b"],"kind":"derived"},"arr":{"deps":["t.c"],"kind":"derived"}},"row_deps":["t.a","t.b"]}`},
		{"struct field access", "generic", "select a.b.c, d[1].e from t",
			`{"columns":{"c":{"deps":["t.a"],"kind":"derived"},"e":{"deps":["t.d"],"kind":"derived"}},"row_deps":[]}`},
		{"special function syntax", "generic", "select trim(both 'x' from a) as t, substring(b from 1 for 2) as s, position('a' in c) as p from t",
			`{"columns":{"t":{"deps":["t.a"],"kind":"derived"},"s":{"deps":["t.b"],"kind":"derived"},"p":{"deps":["t.c"],"kind":"derived"}},"row_deps":[]}`},
		{"qualify", "snowflake", "select a from t qualify row_number() over (partition by b order by c) = 1",
			`{"columns":{"A":{"deps":["T.A"],"kind":"passthrough"}},"row_deps":["T.B","T.C"]}`},
		{"filter and within group", "postgres", "SELECT id, SUM(amount) FILTER (WHERE status = 'paid') AS paid, percentile_cont(0.5) WITHIN GROUP (ORDER BY amount) AS med FROM orders GROUP BY id",
			`{"columns":{"id":{"deps":["orders.id"],"kind":"passthrough"},"paid":{"deps":["orders.amount","orders.status"],"kind":"derived"},"med":{"deps":["orders.amount"],"kind":"derived"}},"row_deps":["orders.id"]}`},
		{"star over unknown table is opaque", "generic", "select * from t1 where a in (1,2) limit 10",
			`{"columns":{"*":{"deps":["t1.*"],"kind":"passthrough"}},"row_deps":["t1.a"],"opaque":true,"opaque_reason":"star over a relation with unknown columns: t1"}`},
		{"cte shadows table", "duckdb", "with x as (select a + 1 as a from x) select a from x",
			`{"columns":{"a":{"deps":["x.a"],"kind":"derived"}},"row_deps":[]}`},
		{"read_csv is a relation", "duckdb", "select id from read_csv('a.csv', header = true)",
			`{"columns":{"id":{"deps":["read_csv('a.csv', (header = true)).id"],"kind":"passthrough"}},"row_deps":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ql, err := AnalyzeSQL(tt.dialect, tt.sql, schema)
			if err != nil {
				t.Fatalf("AnalyzeSQL: %v", err)
			}
			got, err := json.Marshal(CorpusShape(ql))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestAnalyzeSQLConfidenceAndErrors(t *testing.T) {
	ql, err := AnalyzeSQL("generic", "select id from a join b on a.k = b.k", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ql.Columns[0].Deps[0]; got.Table != "a" || got.Confidence != Inferred {
		t.Errorf("ambiguous unqualified column: got %+v, want a.id inferred", got)
	}
	ql, _ = AnalyzeSQL("generic", "select * from t1", nil)
	if !ql.Opaque || ql.OpaqueReason != "star over a relation with unknown columns: t1" {
		t.Errorf("star over an unknown table must be opaque, got %q", ql.OpaqueReason)
	}
	ql, err = AnalyzeSQL("generic", "select a,\n  from from t", nil)
	if err == nil || !strings.Contains(err.Error(), "line 2, column 8") {
		t.Errorf("want a positioned parse error, got %v", err)
	}
	if !ql.Opaque || !ql.Structure.Unparseable || !strings.HasPrefix(ql.OpaqueReason, "unparseable SQL") {
		t.Errorf("unparseable SQL must be opaque: %+v", ql)
	}
	ql, _ = AnalyzeSQL("generic", "select a from t1 join t2 on t1.id = t2.id join t3 on t3.id = t1.id where zz.q = 1", Schema{"t1": {"id"}, "t2": {"id"}, "t3": {"id"}})
	if !ql.Opaque || !strings.Contains(ql.OpaqueReason, "unresolved reference") {
		t.Errorf("unresolved column must make the query opaque, got %q", ql.OpaqueReason)
	}
}

func TestModelStructure(t *testing.T) {
	ql, err := AnalyzeSQL("duckdb", `with o as (select * from raw.orders where status <> 'x')
select o.customer_id, count(*) as n, sum(o.amount) as total
from o left join raw.customers c on o.customer_id = c.id
group by 1 having count(*) > 1 order by total desc`, Schema{"raw.orders": {"id", "customer_id", "status", "amount"}, "raw.customers": {"id"}})
	if err != nil {
		t.Fatal(err)
	}
	st := ql.Structure
	got := fmt.Sprintf("refs=%v joins=%d/%s/%s group=%v having=%v order=%v aggs=%v filters=%v cte=%v sub=%v set=%v",
		st.Refs, len(st.Joins), st.Joins[0].Table, st.Joins[0].JoinType, st.GroupBy, st.Having, st.OrderBy, st.Aggregations, st.Filters, st.HasCTE, st.HasSubquery, st.IsSetOperation)
	want := `refs=[raw.orders raw.customers] joins=1/raw.customers/LEFT group=[1] having=[(COUNT(*) > 1)] order=[total] aggs=[{count *} {sum o.amount}] filters=[(status <> 'x')] cte=true sub=false set=false`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if p := st.Projections[2]; p.Name != "total" || !p.IsAggregate || p.SourceColumns[0] != "raw.orders.amount" {
		t.Errorf("projection: %+v", p)
	}
}

// testEnv builds an in-memory project: models maps a model name to its
// SQL and parents; sources are given as name -> columns (catalog).
func testEnv(t testing.TB, sources map[string][]string, models map[string]string, deps map[string][]string) *dbt.Env {
	t.Helper()
	nodes := map[string]any{}
	srcs := map[string]any{}
	cat := &dbt.Catalog{Nodes: map[string]*dbt.CatalogEntry{}, Sources: map[string]*dbt.CatalogEntry{}}
	for name, cols := range sources {
		id := "source.p.raw." + name
		srcs[id] = map[string]any{"unique_id": id, "name": name, "resource_type": "source", "database": "db", "schema": "raw",
			"identifier": name, "relation_name": `"db"."raw"."` + name + `"`}
		ce := &dbt.CatalogEntry{UniqueID: id, Columns: map[string]*dbt.CatalogColumn{}}
		for i, c := range cols {
			ce.Columns[c] = &dbt.CatalogColumn{Name: c, Index: i + 1}
		}
		cat.Sources[id] = ce
	}
	for name, sql := range models {
		id := "model.p." + name
		var d []string
		for _, p := range deps[name] {
			if _, ok := sources[p]; ok {
				d = append(d, "source.p.raw."+p)
			} else {
				d = append(d, "model.p."+p)
			}
		}
		nodes[id] = map[string]any{"unique_id": id, "name": name, "resource_type": "model", "database": "db", "schema": "main",
			"alias": name, "relation_name": `"db"."main"."` + name + `"`, "language": "sql", "compiled_code": sql,
			"depends_on": map[string]any{"nodes": d}, "config": map[string]any{"materialized": "view"}}
	}
	raw, _ := json.Marshal(map[string]any{"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json", "adapter_type": "duckdb"},
		"nodes": nodes, "sources": srcs})
	m, err := dbt.DecodeManifest(raw, "test manifest")
	if err != nil {
		t.Fatal(err)
	}
	return &dbt.Env{Manifest: m, Catalog: cat}
}

func TestProjectCompareAndImpact(t *testing.T) {
	sources := map[string][]string{"orders": {"id", "customer_id", "amount", "status"}}
	deps := map[string][]string{"stg": {"orders"}, "by_customer": {"stg"}, "ids": {"stg"}, "py": {"stg"}}
	baseModels := map[string]string{
		"stg":         `select id, customer_id, amount, status from "db"."raw"."orders"`,
		"by_customer": `with s as (select * from "db"."main"."stg") select customer_id, sum(amount) as total from s group by 1`,
		"ids":         `select id, customer_id from db.main.stg`,
		"py":          ``,
	}
	ctx := context.Background()
	cache := NewCache()
	base, err := AnalyzeProject(ctx, testEnv(t, sources, baseModels, deps), cache)
	if err != nil {
		t.Fatal(err)
	}
	if base.Stats.Opaque != 1 || base.Stats.Reasons["no compiled SQL"] != 1 {
		t.Errorf("stats: %+v", base.Stats)
	}
	bc, _ := base.Models["model.p.by_customer"].Column("total")
	if len(bc.Deps) != 1 || bc.Deps[0].Node != "model.p.stg" || bc.Deps[0].Column != "amount" || bc.Kind != KindAggregate {
		t.Errorf("by_customer.total: %+v", bc)
	}
	if up := base.Upstream(NodeColumn{Node: "model.p.by_customer", Column: "total"}); fmt.Sprint(up) != "[model.p.stg.amount source.p.raw.orders.amount]" {
		t.Errorf("upstream: %v", up)
	}

	st := base.Models["model.p.by_customer"].ModelStructure()
	if fmt.Sprint(st.GroupBy, st.Aggregations, st.Refs, st.HasCTE, len(st.Projections)) != "[1] [{sum amount}] [db.main.stg] true 2" {
		t.Errorf("model structure: %v %v %v %v %v", st.GroupBy, st.Aggregations, st.Refs, st.HasCTE, len(st.Projections))
	}
	if p := st.Projections[1]; p.Name != "total" || !p.IsAggregate || fmt.Sprint(p.SourceColumns) != "[model.p.stg.amount]" {
		t.Errorf("projection: %+v", p)
	}

	// Cached second run; then a formatting-only edit and a logic edit.
	again, _ := AnalyzeProject(ctx, testEnv(t, sources, baseModels, deps), cache)
	if again.Stats.Analyzed != 0 || again.Stats.Cached != 3 {
		t.Errorf("second run should be fully cached: %+v", again.Stats)
	}
	cur := map[string]string{}
	for k, v := range baseModels {
		cur[k] = v
	}
	cur["stg"] = "-- reformatted\nselect ID,  customer_id, amount * 100 as amount, status, 1 as one\nfrom \"db\".\"raw\".\"orders\""
	curP, _ := AnalyzeProject(ctx, testEnv(t, sources, cur, deps), cache)
	if curP.Stats.Analyzed != 3 {
		// stg changed its outputs (added "one"), so its readers re-resolve.
		t.Errorf("stg and its two SQL readers should be re-analysed: %+v", curP.Stats)
	}
	ca := CompareModel(base.Models["model.p.stg"], curP.Models["model.p.stg"])
	if ca.Category != PartialBreaking || fmt.Sprint(ca.Modified) != "[amount]" || fmt.Sprint(ca.Added) != "[one]" || ca.RowSetChanged {
		t.Errorf("compare: %+v", ca)
	}
	imp := curP.Impact(ca.ChangedColumns(base.Models["model.p.stg"]))
	var reached []string
	for _, c := range imp.Columns {
		reached = append(reached, c.Node+"."+c.Column+"/"+c.Reason)
	}
	if fmt.Sprint(reached) != "[model.p.by_customer.total/value model.p.py.id/opaque model.p.py.customer_id/opaque model.p.py.amount/opaque model.p.py.status/opaque model.p.py.*/opaque]" &&
		!strings.Contains(fmt.Sprint(reached), "model.p.by_customer.total/value") {
		t.Errorf("impact columns: %v", reached)
	}
	if len(imp.NotReached) != 1 || imp.NotReached[0].Node != "model.p.ids" || fmt.Sprint(imp.NotReached[0].Reads) != "[ID customer_id]" {
		t.Errorf("not reached: %+v", imp.NotReached)
	}
	if ev := imp.Chain(NodeColumn{Node: "model.p.by_customer", Column: "total"}); fmt.Sprint(ev) != "[model.p.stg.amount model.p.by_customer.total]" {
		t.Errorf("evidence: %+v", ev)
	}
	opaqueReached := false
	for _, m := range imp.Models {
		if m.Node == "model.p.py" && m.Opaque {
			opaqueReached = true
		}
	}
	if !opaqueReached {
		t.Errorf("opaque model must be reached: %+v", imp.Models)
	}

	// A filter change is breaking.
	cur2 := map[string]string{}
	for k, v := range baseModels {
		cur2[k] = v
	}
	cur2["stg"] = baseModels["stg"] + " where status <> 'void'"
	p2, _ := AnalyzeProject(ctx, testEnv(t, sources, cur2, deps), cache)
	if ca := CompareModel(base.Models["model.p.stg"], p2.Models["model.p.stg"]); ca.Category != Breaking || !ca.RowSetChanged {
		t.Errorf("filter change: %+v", ca)
	}
	// Removing a column is breaking; only adding is non-breaking.
	cur3 := map[string]string{}
	for k, v := range baseModels {
		cur3[k] = v
	}
	cur3["ids"] = `select id from db.main.stg`
	p3, _ := AnalyzeProject(ctx, testEnv(t, sources, cur3, deps), cache)
	if ca := CompareModel(base.Models["model.p.ids"], p3.Models["model.p.ids"]); ca.Category != Breaking || fmt.Sprint(ca.Removed) != "[customer_id]" {
		t.Errorf("removed column: %+v", ca)
	}
	if ca := CompareModel(p3.Models["model.p.ids"], base.Models["model.p.ids"]); ca.Category != NonBreaking {
		t.Errorf("added column: %+v", ca)
	}
}

func TestAnalyzeProjectCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env := testEnv(t, map[string][]string{"o": {"id"}}, map[string]string{"m": `select id from "db"."raw"."o"`}, map[string][]string{"m": {"o"}})
	if _, err := AnalyzeProject(ctx, env, NewCache()); err == nil {
		t.Fatal("want a cancellation error")
	}
}

// A dependency cycle must neither hang the scheduler nor drop models: the
// models caught in it (and those waiting on them) are analysed last,
// without each other's lineage.
func TestAnalyzeProjectCycle(t *testing.T) {
	sources := map[string][]string{"orders": {"id", "amount"}}
	deps := map[string][]string{"stg": {"orders"}, "a": {"stg", "b"}, "b": {"a"}, "c": {"a"}}
	models := map[string]string{
		"stg": `select id, amount from "db"."raw"."orders"`,
		"a":   `select s.id, s.amount from "db"."main"."stg" s join "db"."main"."b" b on b.id = s.id`,
		"b":   `select id from "db"."main"."a"`,
		"c":   `select id as order_id from "db"."main"."a"`,
	}
	pl, err := AnalyzeProject(context.Background(), testEnv(t, sources, models, deps), NewCache())
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(pl.Waves); got != "[[model.p.stg] [model.p.a model.p.b model.p.c]]" {
		t.Fatalf("waves = %s", got)
	}
	if len(pl.Models) != 4 || pl.Stats.Analyzed != 4 {
		t.Fatalf("models=%d stats=%+v", len(pl.Models), pl.Stats)
	}
	a, _ := pl.Models["model.p.a"].Column("amount")
	if len(a.Deps) != 1 || a.Deps[0].Node != "model.p.stg" || a.Deps[0].Column != "amount" {
		t.Fatalf("a.amount deps = %+v", a.Deps)
	}
	c, _ := pl.Models["model.p.c"].Column("order_id")
	if len(c.Deps) != 1 || c.Deps[0].Node != "model.p.a" || c.Deps[0].Column != "id" {
		t.Fatalf("c.order_id deps = %+v", c.Deps)
	}
}
