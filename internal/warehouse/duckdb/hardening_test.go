package duckdb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/sqlguard"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// buildFile writes a DuckDB file with one table of n rows.
func buildFile(t *testing.T, path, catalog string, n int) {
	t.Helper()
	ctx := context.Background()
	w, err := OpenWritable(ctx, path, catalog)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Exec(ctx, "CREATE TABLE customers AS SELECT range AS id FROM range(?)", n); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, c *Conn, q string) int64 {
	t.Helper()
	res, err := c.Query(context.Background(), q, warehouse.QueryOptions{})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res.Rows[0][0].(int64)
}

// refused reports whether err refuses a statement: the adapter's own
// classifier, or DuckDB's verdict on the prepared statement.
func refused(err error) bool {
	return sqlguard.IsRefusal(err) || warehouse.Classify(err) == warehouse.ClassPermissionDenied
}

// TestMultiStatementRefused is issue #19 defect 1 at the adapter, without
// the guard of internal/warehouse/open in front: nothing runs, the
// configuration is unchanged and the connection keeps working.
func TestMultiStatementRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"file", Options{Path: filepath.Join(dir, "acme.duckdb"), ReadOnly: true}},
		{"attached", Options{Path: filepath.Join(dir, "dev.duckdb"), ReadOnly: true, Catalog: "acme"}},
		{"external access", Options{Path: filepath.Join(dir, "ext.duckdb"), ReadOnly: true, AllowExternalAccess: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buildFile(t, tc.opts.Path, tc.opts.Catalog, 3)
			c, err := Open(ctx, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, q := range []string{
				`SELECT '\' ; SET memory_limit='1MB'; SET lock_configuration=true; SELECT 1 --'`,
				`SELECT '\' ; USE memory; DETACH acme; SELECT 1 --'`,
				`SELECT 1; SET threads = 1`,
			} {
				_, err := c.Query(ctx, q, warehouse.QueryOptions{})
				if !refused(err) || !strings.Contains(err.Error(), "more than one statement") {
					t.Errorf("%q: %v", q, err)
				}
			}
			for _, q := range []string{"SET memory_limit = '1MB'", "USE memory", "DETACH acme", "PRAGMA threads=1", "CALL checkpoint()", "CREATE TABLE x (i INTEGER)"} {
				if _, err := c.Query(ctx, q, warehouse.QueryOptions{}); !refused(err) {
					t.Errorf("%q ran on a read-only connection: %v", q, err)
				}
			}
			res, err := c.Query(ctx, "SELECT current_setting('memory_limit'), current_setting('lock_configuration')", warehouse.QueryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Rows[0][0] == "1.0 MiB" || res.Rows[0][1] != true {
				t.Errorf("settings after the probes: %v", res.Rows[0])
			}
			if n := count(t, c, "SELECT COUNT(*) FROM customers"); n != 3 {
				t.Errorf("count after probes = %d", n)
			}
		})
	}
}

// TestExternalAccessNeverWrites is defect 2: with external access the
// connection reads local files, but ATTACH, COPY ... TO, INSTALL, LOAD and
// writes to another database are refused.
func TestExternalAccessNeverWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	main := filepath.Join(dir, "acme.duckdb")
	other := filepath.Join(dir, "other.duckdb")
	buildFile(t, main, "", 2)
	buildFile(t, other, "", 5)
	csv := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(csv, []byte("a\n1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Open(ctx, Options{Path: main, ReadOnly: true, AllowExternalAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if n := count(t, c, "SELECT COUNT(*) FROM read_csv("+quoteLiteral(csv)+")"); n != 2 {
		t.Errorf("reading a file with external access: %d rows", n)
	}
	out := filepath.Join(dir, "out.csv")
	for _, q := range []string{
		"ATTACH " + quoteLiteral(other) + " AS o",
		"ATTACH " + quoteLiteral(filepath.Join(dir, "new.duckdb")) + " AS n",
		"COPY (SELECT 1) TO " + quoteLiteral(out),
		"COPY customers TO " + quoteLiteral(out),
		"EXPORT DATABASE " + quoteLiteral(filepath.Join(dir, "export")),
		"INSTALL httpfs", "LOAD httpfs", "FORCE INSTALL json",
		"SET enable_external_access = true", "SET allowed_directories = ['/']",
	} {
		if _, err := c.Query(ctx, q, warehouse.QueryOptions{}); !refused(err) {
			t.Errorf("%q: %v", q, err)
		}
	}
	for _, p := range []string{out, filepath.Join(dir, "new.duckdb"), filepath.Join(dir, "export")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	o, err := Open(ctx, Options{Path: other, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if n := count(t, o, "SELECT COUNT(*) FROM customers"); n != 5 {
		t.Errorf("the other database has %d rows, want 5", n)
	}
}

// TestResultByteCap is defect 5 at the adapter: a result of long values
// stops at the byte cap with long cells cut, however many rows the query
// returns. Sizes are small so it runs fast.
func TestResultByteCap(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "big.duckdb")
	buildFile(t, path, "", 1)
	c, err := Open(ctx, Options{Path: path, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Query(ctx, "SELECT repeat('x', 40000) AS s FROM range(200)", warehouse.QueryOptions{MaxBytes: 1 << 20, MaxCellBytes: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || !res.More || res.Bytes > 1<<20 || len(res.Rows) == 0 || len(res.Rows) == 200 {
		t.Fatalf("truncated=%v more=%v bytes=%d rows=%d", res.Truncated, res.More, res.Bytes, len(res.Rows))
	}
	if s := res.Rows[0][0].(string); len(s) != 10000+len(warehouse.TruncatedSuffix) || !strings.HasSuffix(s, warehouse.TruncatedSuffix) {
		t.Errorf("cell of %d bytes", len(s))
	}
	// 1 MiB of ~10 kB rows: about 104 of them.
	if n := len(res.Rows); n < 100 || n > 105 {
		t.Errorf("%d rows under a 1 MiB cap", n)
	}
}
