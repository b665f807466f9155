// Package impacttest holds the impact-analysis scenario the tests of every
// layer share (the ops function, the MCP protocol in process, the binary
// with a real MCP client), with its exact expected numbers, and runs a check
// against the scenario built into DuckDB and mirrored into PostgreSQL.
package impacttest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/dbtfixture"
	"github.com/ripple-data/ripple/internal/dbtfixture/pgmirror"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/duckdb"
	"github.com/ripple-data/ripple/internal/warehouse/postgres"
)

// Scenario is a pull request that gives every key source and verdict of
// impact analysis something to find:
//
//   - stg_payments (view, modified: payment 5's amount 30 → 31) is keyed by
//     name (payment_id), verified, value-diffed: 1 row changed, amount 1;
//   - daily_revenue (table, downstream, tag finance) is keyed by its GROUP
//     BY grain (order_date): 1 of 3 rows changed (revenue 1, payments 0);
//   - payment_orders (table, downstream) has the name candidate id, which is
//     not unique (order 1 has two payments: 1 duplicated value per side), so
//     it stays potential;
//   - small_payments (table, downstream: amount < 30) is keyed by name (id)
//     and unchanged: data_impact none;
//   - paid_orders (table, downstream, tag finance) reads only order_id of
//     stg_payments: column lineage rules it out;
//   - stg_orders (view, modified: order 4 filtered out) is keyed by its
//     unique test: 1 row removed;
//   - big_orders (table, downstream: amount ≥ 25) renames stg_orders's key
//     (order_id as oid): lineage key, verified, 1 row removed;
//   - orders_inc (incremental, unique_key order_id): constraint key,
//     verified, 1 row removed;
//   - new_model is added (2 rows) and old_model removed (1 row in base);
//   - unrelated is untouched.
func Scenario(p *dbtfixture.Project) {
	p.Seed("raw_payments", dbtfixture.CSV("id,order_id,amount\n1,1,10\n2,1,15\n3,2,20\n4,3,25\n5,4,30\n"))
	p.Seed("raw_orders", dbtfixture.CSV("id,order_date,amount\n1,2024-01-01,25\n2,2024-01-01,20\n3,2024-01-02,25\n4,2024-01-03,30\n"))
	p.Model("stg_payments", dbtfixture.View,
		"select id as payment_id, order_id, amount from {{ ref('raw_payments') }}",
		"select id as payment_id, order_id, case when id = 5 then amount + 1 else amount end as amount from {{ ref('raw_payments') }}")
	daily := `select o.order_date, sum(p.amount) as revenue, count(*) as payments
from {{ ref('stg_payments') }} p
join {{ ref('raw_orders') }} o on p.order_id = o.id
group by o.order_date`
	p.Model("daily_revenue", dbtfixture.Table, daily, daily).Tags("finance")
	po := "select order_id as id, amount from {{ ref('stg_payments') }}"
	p.Model("payment_orders", dbtfixture.Table, po, po)
	small := "select payment_id as id, amount from {{ ref('stg_payments') }} where amount < 30"
	p.Model("small_payments", dbtfixture.Table, small, small)
	paid := "select order_id, count(*) as payments from {{ ref('stg_payments') }} group by order_id"
	p.Model("paid_orders", dbtfixture.Table, paid, paid).Tags("finance")
	p.Model("stg_orders", dbtfixture.View,
		"select id as order_id, order_date, amount from {{ ref('raw_orders') }}",
		"select id as order_id, order_date, amount from {{ ref('raw_orders') }} where id <> 4").
		Tests(dbtfixture.Unique("order_id"))
	big := "select order_id as oid, amount from {{ ref('stg_orders') }} where amount >= 25"
	p.Model("big_orders", dbtfixture.Table, big, big)
	inc := "select order_id, order_date from {{ ref('stg_orders') }}"
	p.Model("orders_inc", dbtfixture.Incremental("order_id"), inc, inc)
	p.Model("new_model", dbtfixture.Table, "", "select 1 as x union all select 2 as x")
	p.Model("old_model", dbtfixture.Table, "select 1 as x", "")
	p.Model("unrelated", dbtfixture.Table, "select 1 as x", "select 1 as x")
}

// Target is a built scenario on one warehouse.
type Target struct {
	Built *dbtfixture.Built
	// Open opens a read-only connection to the warehouse holding both builds.
	Open func(ctx context.Context, p *dbt.Project) (warehouse.Conn, error)
}

// OnEveryWarehouse builds the scenario and runs check against DuckDB and
// against a real PostgreSQL holding the same data (RIPPLE_TEST_POSTGRES_DSN;
// a missing DSN fails under CI=true and skips locally).
func OnEveryWarehouse(t *testing.T, scenario func(p *dbtfixture.Project), check func(t *testing.T, tg Target)) {
	t.Helper()
	t.Run("duckdb", func(t *testing.T) {
		p := dbtfixture.New(t)
		scenario(p)
		b := p.MustBuild(context.Background())
		check(t, Target{Built: b, Open: func(ctx context.Context, _ *dbt.Project) (warehouse.Conn, error) {
			return duckdb.Open(ctx, duckdb.Options{Path: b.DBPath, ReadOnly: true, Catalog: b.Database})
		}})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := os.Getenv("RIPPLE_TEST_POSTGRES_DSN")
		if dsn == "" {
			if os.Getenv("CI") == "true" {
				t.Fatal("RIPPLE_TEST_POSTGRES_DSN is not set: CI must start PostgreSQL (.ci/postgres.sh)")
			}
			t.Skip("RIPPLE_TEST_POSTGRES_DSN not set")
		}
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		suffix := make([]byte, 4)
		_, _ = rand.Read(suffix)
		s := hex.EncodeToString(suffix)
		p := dbtfixture.New(t).DatabaseFile(cfg.Database+".duckdb").Schemas("ib_"+s, "ic_"+s)
		scenario(p)
		ctx := context.Background()
		b := p.MustBuild(ctx)
		if err := pgmirror.Copy(ctx, b, dsn); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = pgmirror.Drop(context.Background(), dsn, b.BaseSchema, b.CurrentSchema) })
		check(t, Target{Built: b, Open: func(ctx context.Context, _ *dbt.Project) (warehouse.Conn, error) {
			return postgres.Open(ctx, postgres.Options{DSN: dsn, ReadOnly: true})
		}})
	})
}
