package open

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/sqlguard"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest/fakeserver"
)

// TestWritesRefusedOnEveryAdapter: every wired adapter, opened as the
// operations open it, refuses writes in Ripple's guard before its driver
// runs: the protocol fakes receive no request at all (a read afterwards
// does), and the table is intact everywhere (DuckDB, Postgres, and
// Redshift's adapter on Postgres included).
func TestWritesRefusedOnEveryAdapter(t *testing.T) {
	ctx := context.Background()
	const fixture = "CREATE TABLE main.customers AS SELECT 1 AS id"
	// Each case writes the fixture, returns the target and the request
	// count of the server that must not be reached (nil: a real database,
	// where the table must be intact afterwards).
	type adapter func(t *testing.T) (tg profiles.Target, requests func() int)
	fake := func(t *testing.T, e *fakeserver.Engine) {
		if err := e.Setup(ctx, fixture); err != nil {
			t.Fatal(err)
		}
	}
	adapters := map[string]adapter{
		"duckdb":   func(t *testing.T) (profiles.Target, func() int) { return duckTarget(t), nil },
		"postgres": func(t *testing.T) (profiles.Target, func() int) { return pgWithCustomers(t, "postgres"), nil },
		"redshift": func(t *testing.T) (profiles.Target, func() int) { return pgWithCustomers(t, "redshift"), nil },
		"snowflake": func(t *testing.T) (profiles.Target, func() int) {
			e := fakeserver.NewEngine(t, "analytics")
			fake(t, e)
			f := fakeserver.NewSnowflake(e, "fake-Sn0w-pass")
			t.Cleanup(f.Close)
			host, port := hostPort(t, f.URL)
			return profiles.Target{Type: "snowflake", Host: host, Port: port, User: "RIPPLE", Password: "fake-Sn0w-pass", Database: "analytics", Schema: "main",
				Extra: map[string]any{"account": "xy12345", "protocol": "http"}}, f.Requests
		},
		"bigquery": func(t *testing.T) (profiles.Target, func() int) {
			e := fakeserver.NewEngine(t, "ripple-fake")
			fake(t, e)
			f := fakeserver.NewBigQuery(e)
			t.Cleanup(f.Close)
			return profiles.Target{Type: "bigquery", Database: "ripple-fake", Schema: "main",
				Extra: map[string]any{"method": "oauth-secrets", "token": f.Token, "api_endpoint": f.URL}}, f.Requests
		},
		"databricks": func(t *testing.T) (profiles.Target, func() int) {
			e := fakeserver.NewEngine(t, "main")
			fake(t, e)
			f := fakeserver.NewDatabricks(e)
			t.Cleanup(f.Close)
			return profiles.Target{Type: "databricks", Host: f.URL, Database: "main", Schema: "main",
				Extra: map[string]any{"http_path": "/sql/1.0/warehouses/abc123", "token": f.Token}}, f.Requests
		},
		"trino": func(t *testing.T) (profiles.Target, func() int) {
			e := fakeserver.NewEngine(t, "memory")
			fake(t, e)
			f := fakeserver.NewTrino(e)
			t.Cleanup(f.Close)
			host, port := hostPort(t, f.URL)
			return profiles.Target{Type: "trino", Host: host, Port: port, User: "analyst", Database: "memory", Schema: "main",
				Extra: map[string]any{"method": "none", "http_scheme": "http"}}, f.Requests
		},
	}
	for _, name := range Wired() {
		t.Run(name, func(t *testing.T) {
			newTarget, ok := adapters[name]
			if !ok {
				t.Fatalf("adapter %s has no case here: add one", name)
			}
			tg, requests := newTarget(t)
			tg.File, tg.Profile, tg.Name = "profiles.yml", "p", name
			c, err := Open(ctx, tg, OpenOptions{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			d := dialect.Must(name)
			schema := tg.Schema
			if schema == "" {
				schema = "main"
			}
			table := d.QuoteRelation("", schema, "customers")
			before := 0
			if requests != nil {
				before = requests()
			}
			for _, q := range []string{
				"DROP TABLE " + table,
				"INSERT INTO " + table + " VALUES (2)",
				"CREATE TABLE " + d.QuoteRelation("", schema, "ripple_write_attempt") + " AS SELECT 1 AS id",
				"UPDATE " + table + " SET id = 3",
				"DELETE FROM " + table,
				"SELECT 1; DROP TABLE " + table,
			} {
				_, err := c.Query(ctx, q, warehouse.QueryOptions{})
				if !sqlguard.IsRefusal(err) || warehouse.Classify(err) != warehouse.ClassPermissionDenied {
					t.Errorf("%s: %v (class %s), want the guard's permission_denied", q, err, warehouse.Classify(err))
				}
			}
			after := before
			if requests != nil {
				if after = requests(); after != before {
					t.Errorf("the writes sent %d requests to the server", after-before)
				}
			}
			// The table is intact, and a read does reach the server.
			res, err := c.Query(ctx, "SELECT COUNT(*) FROM "+table, warehouse.QueryOptions{})
			if err != nil || res.Rows[0][0] != int64(1) {
				t.Errorf("after the writes: %v %v", res, err)
			}
			if requests != nil && requests() == after {
				t.Error("the read sent no request either: the server's counter counts nothing")
			}
		})
	}
}

// pgWithCustomers is a Postgres target (of type typ) whose schema, this
// test's own, holds the fixture table.
func pgWithCustomers(t *testing.T, typ string) profiles.Target {
	dsn := warehousetest.RequireEnv(t, "RIPPLE_TEST_POSTGRES_DSN")
	ctx := context.Background()
	schema := fmt.Sprintf("ripple_writes_%s_%d", typ, time.Now().UnixNano())
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{"CREATE SCHEMA " + schema, "CREATE TABLE " + schema + ".customers AS SELECT 1 AS id"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if conn, err := pgx.Connect(ctx, dsn); err == nil {
			_, _ = conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			conn.Close(ctx)
		}
	})
	tg := pgTarget(t, dsn)
	tg.Type, tg.Schema = typ, schema
	return tg
}

func hostPort(t *testing.T, raw string) (string, int) {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	return u.Hostname(), port
}
