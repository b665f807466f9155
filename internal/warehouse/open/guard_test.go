package open

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/sqlguard"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/duckdb"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
)

// pgTarget is a profile target for a test DSN.
func pgTarget(t *testing.T, dsn string) profiles.Target {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	port, _ := strconv.Atoi(u.Port())
	return profiles.Target{Type: "postgres", Host: u.Hostname(), Port: port, User: u.User.Username(), Password: pw,
		Database: strings.TrimPrefix(u.Path, "/"), Schema: "public", Extra: map[string]any{"sslmode": u.Query().Get("sslmode")}}
}

func duckTarget(t *testing.T) profiles.Target {
	t.Helper()
	path := filepath.Join(t.TempDir(), "acme.duckdb")
	w, err := duckdb.OpenWritable(context.Background(), path, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Exec(context.Background(), "CREATE TABLE customers AS SELECT 1 AS id"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return profiles.Target{Type: "duckdb", Path: path}
}

// TestEveryConnIsGuarded is issue #19 defects 1 and 8 at the connection
// open.Open returns (what every operation uses): multi-statement tricks and
// side-effect functions are refused before the warehouse sees them, on
// DuckDB and on Postgres (as a superuser, where BEGIN READ ONLY would not
// stop them), and the connection works afterwards.
func TestEveryConnIsGuarded(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		target func(*testing.T) profiles.Target
		probes []string
		check  string
	}{
		{"duckdb", duckTarget, []string{
			`SELECT '\' ; SET memory_limit='1MB'; SET lock_configuration=true; SELECT 1 --'`,
			`SELECT '\' ; USE memory; DETACH acme; SELECT 1 --'`,
			"SELECT * FROM checkpoint()",
			// Issue #27 item 1: session-changing table functions.
			"SELECT * FROM enable_profiling(format => 'json', save_location => 'x.json')",
			"SELECT * FROM customers, enable_peg_parser()",
		}, "SELECT COUNT(*) FROM customers"},
		{"postgres superuser", func(t *testing.T) profiles.Target {
			return pgTarget(t, warehousetest.RequireEnv(t, "RIPPLE_TEST_POSTGRES_SUPER_DSN"))
		}, []string{
			"SELECT pg_read_file('/etc/hostname')",
			"SELECT pg_read_binary_file('/etc/hostname')",
			"SELECT pg_create_logical_replication_slot('ripple_probe', 'test_decoding')",
			"SELECT pg_advisory_lock(42)",
			"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()",
			"SELECT * FROM dblink_exec('dbname=postgres', 'CREATE TABLE x (i int)')",
			"SELECT lo_import('/etc/hostname')",
			`SELECT '\' ; SELECT pg_advisory_lock(42); SELECT 1 --'`,
		}, "SELECT COUNT(*) FROM pg_replication_slots WHERE slot_name = 'ripple_probe'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := tc.target(t)
			c, err := Open(ctx, tg, OpenOptions{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, q := range tc.probes {
				_, err := c.Query(ctx, q, warehouse.QueryOptions{})
				if !sqlguard.IsRefusal(err) {
					t.Errorf("%s: not refused by the guard: %v", q, err)
				}
			}
			res, err := c.Query(ctx, tc.check, warehouse.QueryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n := res.Rows[0][0]; tc.name == "duckdb" && n != int64(1) || tc.name != "duckdb" && n != int64(0) {
				t.Errorf("%s = %v after the probes", tc.check, n)
			}
		})
	}
}

// TestStatementTimeoutEverywhere is defect 6: the statement timeout bounds
// every adapter through the guard (the flag wins over the profile's
// statement_timeout), and the error says which limit stopped it.
func TestStatementTimeoutEverywhere(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		target func(*testing.T) profiles.Target
		slow   string
	}{
		{"duckdb", duckTarget, "SELECT SUM(a.range * b.range) FROM range(100000000) a, range(100000) b"},
		{"postgres", func(t *testing.T) profiles.Target {
			return pgTarget(t, warehousetest.RequireEnv(t, "RIPPLE_TEST_POSTGRES_DSN"))
		}, "SELECT pg_sleep(30)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := tc.target(t)
			if tg.Extra == nil {
				tg.Extra = map[string]any{}
			}
			tg.Extra["statement_timeout"] = "300ms"
			for _, opts := range []OpenOptions{{ReadOnly: true}, {ReadOnly: true, StatementTimeout: 200 * time.Millisecond}} {
				c, err := Open(ctx, tg, opts)
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				_, err = c.Query(ctx, tc.slow, warehouse.QueryOptions{})
				c.Close()
				if warehouse.Classify(err) != warehouse.ClassCanceled || time.Since(start) > 10*time.Second {
					t.Errorf("%+v: %v after %v", opts, err, time.Since(start))
				}
			}
		})
	}
	if _, err := Open(ctx, profiles.Target{Type: "duckdb", Extra: map[string]any{"statement_timeout": "soon"}}, OpenOptions{}); err == nil || !strings.Contains(err.Error(), "statement_timeout") {
		t.Errorf("a bad statement_timeout must be an error naming it: %v", err)
	}
}

// TestGuardedByteCap: the flag's byte cap reaches every query.
func TestGuardedByteCap(t *testing.T) {
	ctx := context.Background()
	c, err := Open(ctx, duckTarget(t), OpenOptions{ReadOnly: true, MaxResultBytes: 100000, MaxCellBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Query(ctx, "SELECT repeat('x', 5000) AS s FROM range(1000)", warehouse.QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.Bytes > 100000 || len(res.Rows) < 90 || len(res.Rows) > 100 {
		t.Errorf("truncated=%v bytes=%d rows=%d", res.Truncated, res.Bytes, len(res.Rows))
	}
	var we *warehouse.Error
	if _, err := c.Query(ctx, "DROP TABLE customers", warehouse.QueryOptions{}); !errors.As(err, &we) || we.Class != warehouse.ClassPermissionDenied {
		t.Errorf("a write is permission_denied: %v", err)
	}
}

// TestClassificationUnderStatementTimeout is issue #27 item 3 at the guard:
// classifying a huge SQL string runs inside the statement timeout and the
// caller's context, so it cannot hold the server past either.
func TestClassificationUnderStatementTimeout(t *testing.T) {
	c, err := Open(context.Background(), duckTarget(t), OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	huge := "with recursive a as (select 1) search " + strings.Repeat("x ", 4<<20) + " select 1"
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Query(ctx, huge, warehouse.QueryOptions{})
	if !errors.Is(err, context.Canceled) || warehouse.Classify(err) != warehouse.ClassCanceled {
		t.Fatalf("a cancelled caller's huge SQL: %v (class %s); want canceled", err, warehouse.Classify(err))
	}
	c2, err := Open(context.Background(), duckTarget(t), OpenOptions{ReadOnly: true, StatementTimeout: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	_, err = c2.Query(context.Background(), huge, warehouse.QueryOptions{})
	if err == nil || !strings.Contains(err.Error(), "statement timeout") {
		t.Fatalf("huge SQL under a 1 ns statement timeout: %v; want the statement timeout's error", err)
	}
}
