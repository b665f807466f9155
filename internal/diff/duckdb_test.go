package diff

import (
	"context"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbtfixture"
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
	t.Logf("%s", strings.Join(nil, ""))
}
