package duckdb

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
)

func TestSuite(t *testing.T) {
	warehousetest.RunSuite(t, func(t *testing.T) warehousetest.Target {
		path := filepath.Join(t.TempDir(), "suite.duckdb")
		return warehousetest.Target{
			Schema: "main",
			// A cross join of two large ranges runs for minutes.
			SlowQuery: "SELECT SUM(a.range * b.range) FROM range(10000000) a, range(10000000) b",
			Setup: func(ctx context.Context, stmts ...string) error {
				w, err := OpenWritable(ctx, path, "")
				if err != nil {
					return err
				}
				defer w.Close()
				for _, s := range stmts {
					if err := w.Exec(ctx, s); err != nil {
						return err
					}
				}
				return nil
			},
			Open: func(t *testing.T) warehouse.Conn {
				c, err := Open(context.Background(), Options{Path: path, ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
		}
	})
}

// dbt-duckdb writes views with 3-part names using the catalog the file had
// at build time; reopening must keep that catalog reachable.
func TestCatalogNames(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	build := func(path, catalog string) {
		w, err := OpenWritable(ctx, path, catalog)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		for _, s := range []string{
			"CREATE TABLE jaffle_shop.main.raw_orders AS SELECT 1 AS id UNION ALL SELECT 2",
			"CREATE VIEW jaffle_shop.main.orders AS SELECT id FROM jaffle_shop.main.raw_orders",
		} {
			if err := w.Exec(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	stem := filepath.Join(dir, "jaffle_shop.duckdb")
	build(stem, "")
	aliased := filepath.Join(dir, "dev.duckdb")
	build(aliased, "jaffle_shop")

	tests := []struct {
		name string
		opts Options
	}{
		{"stem", Options{Path: stem, ReadOnly: true}},
		{"alias", Options{Path: aliased, ReadOnly: true, Catalog: "jaffle_shop"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Open(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Catalog() != "jaffle_shop" {
				t.Errorf("Catalog() = %q", c.Catalog())
			}
			for _, q := range []string{"SELECT COUNT(*) FROM jaffle_shop.main.orders", "SELECT COUNT(*) FROM orders"} {
				res, err := c.Query(ctx, q, warehouse.QueryOptions{})
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				if res.Rows[0][0] != int64(2) {
					t.Errorf("%s = %v, want 2", q, res.Rows[0][0])
				}
			}
			cols, err := c.Columns(ctx, warehouse.Relation{Database: "jaffle_shop", Schema: "main", Name: "orders"})
			if err != nil || len(cols) != 1 || cols[0].Name != "id" {
				t.Errorf("Columns = %v, %v", cols, err)
			}
			_, err = c.Query(ctx, "CREATE TABLE x (i INTEGER)", warehouse.QueryOptions{})
			if !refused(err) {
				t.Errorf("write on read-only attach: %v", err)
			}
			_, err = c.Query(ctx, "SELECT * FROM read_csv('/etc/passwd')", warehouse.QueryOptions{})
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), "external") && !strings.Contains(strings.ToLower(err.Error()), "disabled") {
				t.Errorf("external access must be off by default, got %v", err)
			}
		})
	}
}

func TestExternalAccessOptIn(t *testing.T) {
	ctx := context.Background()
	c, err := Open(ctx, Options{AllowExternalAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Query(ctx, "SELECT COUNT(*) FROM read_csv('/etc/hostname', header=false)", warehouse.QueryOptions{}); err != nil {
		t.Errorf("with AllowExternalAccess reading a local file should work: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, Options{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "in-memory") {
		t.Errorf("read-only in-memory: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "nope.duckdb")
	if _, err := Open(ctx, Options{Path: missing, ReadOnly: true}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file must be named in the error: %v", err)
	}
	ro, err := OpenWritable(ctx, filepath.Join(t.TempDir(), "w.duckdb"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	ro.readOnly = true
	if err := ro.Exec(ctx, "CREATE TABLE t (i INTEGER)"); warehouse.Classify(err) != warehouse.ClassPermissionDenied {
		t.Errorf("Exec on read-only: %v", err)
	}
}
