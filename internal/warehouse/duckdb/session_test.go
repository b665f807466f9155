package duckdb

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/warehouse"
)

// TestSessionChangingFunctionsRefused is issue #27 items 1 and 2 at the
// adapter, without the guard of internal/warehouse/open in front: the table
// functions that change the session (and write profiler output) are refused,
// with and without external access, and no file is created or changed.
func TestSessionChangingFunctionsRefused(t *testing.T) {
	ctx := context.Background()
	for _, external := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "acme.duckdb")
		buildFile(t, path, "", 3)
		manifest := filepath.Join(dir, "manifest.json")
		if err := os.WriteFile(manifest, []byte(`{"metadata":{}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(manifest, old, old); err != nil {
			t.Fatal(err)
		}
		c, err := Open(ctx, Options{Path: path, ReadOnly: true, AllowExternalAccess: external})
		if err != nil {
			t.Fatal(err)
		}
		profile := filepath.Join(dir, "profile.json")
		for _, q := range []string{
			"select * from enable_profiling(format => 'json', save_location => " + quoteLiteral(profile) + ")",
			"select * from enable_profiling(format => 'json', save_location => " + quoteLiteral(manifest) + ")",
			"select * from enable_profiling()",
			"select * from enable_peg_parser()",
			"select * from disable_peg_parser()",
			"select * from customers, enable_logging()",
			"select * from enable_logging(storage => 'file', storage_path => " + quoteLiteral(dir) + ")",
		} {
			if _, err := c.Query(ctx, q, warehouse.QueryOptions{}); !refused(err) {
				t.Errorf("external=%v: %q ran: %v", external, q, err)
			}
		}
		// Item 10: DuckDB's PIVOT statement only reads, and runs (with its IN list: without one DuckDB runs a second statement to find the values, which the adapter refuses).
		piv, err := c.Query(ctx, "PIVOT customers ON id IN (0, 1, 2) USING count(*)", warehouse.QueryOptions{})
		if err != nil || len(piv.Columns) != 3 || len(piv.Rows) != 1 {
			t.Errorf("PIVOT: %v, %+v", err, piv)
		}
		for i := 0; i < 3; i++ {
			if n := count(t, c, "SELECT COUNT(*) FROM customers"); n != 3 {
				t.Errorf("count = %d", n)
			}
		}
		res, err := c.Query(ctx, "SELECT current_setting('enable_profiling') IS NULL, lower(current_setting('allow_parser_override_extension'))", warehouse.QueryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Rows[0][0] != true || res.Rows[0][1] != "default" {
			t.Errorf("external=%v: settings after the probes: %v", external, res.Rows[0])
		}
		c.Close()
		if _, err := os.Stat(profile); err == nil {
			t.Errorf("external=%v: %s was written", external, profile)
		}
		st, err := os.Stat(manifest)
		if err != nil || st.Size() != int64(len(`{"metadata":{}}`)) || !st.ModTime().Equal(old) {
			t.Errorf("external=%v: the manifest changed: %v %v", external, st, err)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 2 {
			t.Errorf("external=%v: the directory holds %d entries, want the database and the manifest", external, len(entries))
		}
	}
}

// TestChangedSessionDiscarded is item 1's second layer: a pooled connection
// whose settings changed (here through the pool directly, as a function the
// guard does not know would) is discarded after the next query, so the
// query after it gets a connection with the settings Open gave it.
func TestChangedSessionDiscarded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "acme.duckdb")
	buildFile(t, path, "", 3)
	c, err := Open(ctx, Options{Path: path, ReadOnly: true, AllowExternalAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.db.SetMaxOpenConns(1)
	profile := filepath.Join(dir, "profile.json")
	for _, q := range []string{
		"select * from enable_peg_parser()",
		"select * from enable_profiling(format => 'json', save_location => " + quoteLiteral(profile) + ")",
	} {
		rows, err := c.db.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	// This query still runs on the changed connection (and the profiler
	// writes its output); the connection is discarded after it.
	if n := count(t, c, "SELECT COUNT(*) FROM customers"); n != 3 {
		t.Fatalf("count = %d", n)
	}
	if err := os.Remove(profile); err != nil {
		t.Fatalf("the profiler wrote nothing, so this test tests nothing: %v", err)
	}
	res, err := c.Query(ctx, "SELECT current_setting('enable_profiling') IS NULL, lower(current_setting('allow_parser_override_extension'))", warehouse.QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows[0][0] != true || res.Rows[0][1] != "default" {
		t.Errorf("settings on the next connection: %v; want profiling off and the default parser", res.Rows[0])
	}
	if _, err := os.Stat(profile); err == nil {
		t.Error("the profiler wrote again: the changed connection went back to the pool")
	}
}
