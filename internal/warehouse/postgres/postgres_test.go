package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
)

const dsnEnv = "RIPPLE_TEST_POSTGRES_DSN"

// testSchema creates a schema private to this test run, dropped afterwards,
// so runs can share one database.
func testSchema(t *testing.T, dsn string) string {
	t.Helper()
	ctx := context.Background()
	schema := fmt.Sprintf("ripple_t%d", time.Now().UnixNano())
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connecting to %s: %v", dsnEnv, err)
	}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("dropping %s: %v", schema, err)
		}
		admin.Close(ctx)
	})
	return schema
}

func setupFn(dsn string) warehousetest.SetupFn {
	return func(ctx context.Context, stmts ...string) error {
		w, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		defer w.Close(ctx)
		for _, s := range stmts {
			if _, err := w.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	}
}

func TestSuite(t *testing.T) {
	dsn := warehousetest.RequireEnv(t, dsnEnv)
	warehousetest.RunSuite(t, func(t *testing.T) warehousetest.Target {
		schema := testSchema(t, dsn)
		return warehousetest.Target{
			Schema:    schema,
			SlowQuery: "SELECT COUNT(*) FROM generate_series(1, 1000000) a CROSS JOIN generate_series(1, 1000000) b",
			Setup:     setupFn(dsn),
			Open: func(t *testing.T) warehouse.Conn {
				c, err := Open(context.Background(), Options{DSN: dsn, ReadOnly: true, StatementTimeout: time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
		}
	})
}

// A canceled query must stop on the server, not just in the client.
func TestCancelStopsServerQuery(t *testing.T) {
	dsn := warehousetest.RequireEnv(t, dsnEnv)
	ctx := context.Background()
	c, err := Open(ctx, Options{DSN: dsn, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	marker := fmt.Sprintf("ripple_cancel_%d", time.Now().UnixNano())
	qctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err = c.Query(qctx, "SELECT pg_sleep(60) AS "+marker, warehouse.QueryOptions{})
	if warehouse.Classify(err) != warehouse.ClassCanceled {
		t.Fatalf("class %s: %v", warehouse.Classify(err), err)
	}
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	deadline := time.Now().Add(2 * time.Second)
	for {
		var n int
		if err := admin.QueryRow(ctx, "SELECT COUNT(*) FROM pg_stat_activity WHERE query LIKE '%'||$1||'%' AND pid <> pg_backend_pid()", marker).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("query still active on the server 2s after cancel")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestStatementTimeout(t *testing.T) {
	dsn := warehousetest.RequireEnv(t, dsnEnv)
	ctx := context.Background()
	c, err := Open(ctx, Options{DSN: dsn, ReadOnly: true, StatementTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Query(ctx, "SELECT pg_sleep(5)", warehouse.QueryOptions{})
	if warehouse.Classify(err) != warehouse.ClassCanceled || !strings.Contains(err.Error(), "statement_timeout is 200 ms") {
		t.Errorf("statement timeout: class %s: %v", warehouse.Classify(err), err)
	}
}

func TestMultiStatementRejected(t *testing.T) {
	dsn := warehousetest.RequireEnv(t, dsnEnv)
	ctx := context.Background()
	c, err := Open(ctx, Options{DSN: dsn, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Query(ctx, "COMMIT; SET default_transaction_read_only = off; CREATE TABLE ripple_escape (i int)", warehouse.QueryOptions{}); err == nil {
		t.Fatal("multi-statement string escaped the read-only transaction")
	}
}

func TestOpenErrorsNeverShowPassword(t *testing.T) {
	ctx := context.Background()
	const secret = "s3cr3t-Passw0rd"
	_, err := Open(ctx, Options{Host: "127.0.0.1", Port: 1, User: "u", Password: secret, Database: "d", ConnectTimeout: time.Second})
	if err == nil {
		t.Fatal("connecting to port 1 succeeded")
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error shows the password: %v", err)
	}
	if !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("error should name the host: %v", err)
	}
	_, err = Open(ctx, Options{DSN: "postgres://u:" + secret + "@127.0.0.1:1/d?connect_timeout=1&sslmode=disable"})
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("DSN error shows the password or succeeded: %v", err)
	}
	_, err = Open(ctx, Options{DSN: "postgres://u:" + secret + "@[::1/d", Password: secret})
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("parse error shows the password or succeeded: %v", err)
	}
}

func TestOpenByFields(t *testing.T) {
	dsn := warehousetest.RequireEnv(t, dsnEnv)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, mode := range []string{"", "disable", "prefer"} {
		c, err := Open(ctx, Options{Host: cfg.Host, Port: int(cfg.Port), User: cfg.User, Password: cfg.Password,
			Database: cfg.Database, SSLMode: mode, ReadOnly: true, SearchPath: "pg_catalog"})
		if err != nil {
			t.Fatalf("sslmode %q: %v", mode, err)
		}
		res, err := c.Query(ctx, "SELECT current_schema() AS s, (SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()) AS ssl", warehouse.QueryOptions{})
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.Rows[0][0] != "pg_catalog" || mode == "disable" && res.Rows[0][1] != false {
			t.Errorf("sslmode %q: %v", mode, res.Rows[0])
		}
	}
	if _, err := Open(ctx, Options{DSN: dsn, Host: "x"}); err == nil {
		t.Error("DSN plus host must be rejected")
	}
}
