// Package warehousetest is the one behavioural test suite every warehouse
// adapter must pass against a real engine, so that internal/diff and the
// operations can rely on identical results, errors and cancellation from
// DuckDB, Postgres and whatever comes next.
package warehousetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// SetupFn runs DDL/DML with write access, before the read-only connection
// under test is opened.
type SetupFn func(ctx context.Context, stmts ...string) error

// Target is what an adapter's test hands to RunSuite.
type Target struct {
	// Setup writes the fixture tables.
	Setup SetupFn
	// Open returns the read-only connection under test; RunSuite closes it.
	Open func(t *testing.T) warehouse.Conn
	// Schema holds the fixture tables (e.g. "main", or a per-run Postgres schema).
	Schema string
	// Dialect is the adapter type whose SQL Setup runs (FixtureSQL): the
	// warehouse itself in a live suite; empty means DuckDB's, which the
	// protocol fakes' engine and PostgreSQL also run.
	Dialect string
	// SlowQuery runs for far longer than a minute unless canceled.
	SlowQuery string
	// Skip names subtests this target cannot run, with the reason (a
	// protocol fake whose engine cannot evaluate the dialect's SQL); they
	// are reported as skipped, never passed. The dialect's SQL is pinned by
	// golden files and the live suite runs them against the real service.
	Skip map[string]string
	// MissingTableClass is the class a query of a missing table gets when
	// the warehouse cannot tell it from a missing grant (Snowflake's
	// "does not exist or not authorized"); default table_not_found.
	MissingTableClass warehouse.ErrorClass
	// CanonicalDecimals: the warehouse sends exact decimals in canonical
	// form, without the column's trailing zeros (BigQuery: a query result's
	// schema has no NUMERIC(P,S) scale, so 12.50 arrives as "12.5").
	CanonicalDecimals bool
	// Killed, when set, counts queries the server stopped on a cancel
	// request: the Cancel subtest then requires the canceled query to be
	// killed on the server, not just abandoned by the client.
	Killed func() int
}

// RequireEnv returns the value of an environment variable the test needs.
// Unset, it fails the test under CI=true (a CI run that silently skips a
// warehouse proves nothing) and skips it otherwise.
func RequireEnv(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set; under CI this test must run (source the export printed by .ci/postgres.sh)", name)
		}
		t.Skipf("%s is not set; skipping (set it to run against a real server)", name)
	}
	return v
}

// Fixture rows (FixtureSQL). Values are chosen to catch lossy conversions:
// a BIGINT above 2^53, a DECIMAL whose trailing zero must survive,
// fractional seconds, a time zone offset, an embedded quote and an all-NULL
// row.
var wantColumns = []struct {
	name string
	kind warehouse.Kind
}{
	{"id", warehouse.KindInteger}, {"big", warehouse.KindInteger}, {"f", warehouse.KindFloat},
	{"d", warehouse.KindDecimal}, {"s", warehouse.KindString}, {"dt", warehouse.KindDate},
	{"ts", warehouse.KindTimestamp}, {"tz", warehouse.KindTimestampTZ}, {"b", warehouse.KindBoolean},
}

var wantRows = [][]any{
	{int64(1), int64(9007199254740993), 1.5, json.Number("12.50"), "hello", "2024-01-31",
		"2024-01-31T13:45:00.5", "2024-01-31T11:45:00Z", true},
	{int64(2), nil, nil, nil, nil, nil, nil, nil, nil},
	{int64(3), int64(-5), -0.25, json.Number("-0.05"), "it's", "1999-12-31",
		"2000-01-01T00:00:00", "2000-01-01T00:00:00Z", false},
}

// RunSuite runs the shared adapter behaviour tests.
func RunSuite(t *testing.T, newTarget func(t *testing.T) Target) {
	ctx := context.Background()
	tg := newTarget(t)
	setupDialect := tg.Dialect
	if setupDialect == "" {
		setupDialect = "duckdb"
	}
	stmts, err := FixtureSQL(setupDialect, tg.Schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Setup(ctx, stmts...); err != nil {
		t.Fatalf("fixture setup: %v", err)
	}
	conn := tg.Open(t)
	t.Cleanup(func() {
		if err := conn.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	d, err := dialect.ForAdapter(conn.Dialect())
	if err != nil {
		t.Fatalf("Dialect() = %q has no dialect: %v", conn.Dialect(), err)
	}
	table := func(name string) string { return d.QuoteRelation("", tg.Schema, name) }
	// sameName: a warehouse that folds unquoted names reports them folded.
	sameName := func(got, want string) bool { return got == want || got == d.FoldIdent(want) }
	run := func(name string, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			if why, ok := tg.Skip[name]; ok {
				t.Skip(why)
			}
			f(t)
		})
	}

	typedRows, decimalText := wantRows, "12.50"
	if tg.CanonicalDecimals {
		typedRows, decimalText = slices.Clone(wantRows), "12.5"
		typedRows[0] = slices.Clone(typedRows[0])
		typedRows[0][3] = json.Number(decimalText)
	}

	run("TypedValues", func(t *testing.T) {
		res, err := conn.Query(ctx, "SELECT * FROM "+table("ripple_types")+" ORDER BY id", warehouse.QueryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Columns) != len(wantColumns) {
			t.Fatalf("got %d columns, want %d: %+v", len(res.Columns), len(wantColumns), res.Columns)
		}
		for i, w := range wantColumns {
			if !sameName(res.Columns[i].Name, w.name) || d.KindOf(res.Columns[i].Type) != w.kind {
				t.Errorf("column %d = %+v (kind %s), want %s of kind %s", i, res.Columns[i], d.KindOf(res.Columns[i].Type), w.name, w.kind)
			}
		}
		if len(res.Rows) != len(typedRows) {
			t.Fatalf("got %d rows, want %d", len(res.Rows), len(typedRows))
		}
		for r := range typedRows {
			for c := range typedRows[r] {
				got, want := res.Rows[r][c], typedRows[r][c]
				if fmt.Sprintf("%T %v", got, got) != fmt.Sprintf("%T %v", want, want) {
					t.Errorf("row %d column %s = %T %v, want %T %v", r, wantColumns[c].name, got, got, want, want)
				}
			}
		}
		if res.More || res.Total == nil || *res.Total != 3 {
			t.Errorf("More=%v Total=%v, want false, 3", res.More, res.Total)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Errorf("result is not JSON-encodable: %v", err)
		}
	})

	run("Expressions", func(t *testing.T) {
		q := "SELECT " + d.Median(d.CastToFloat("i")) + " AS med, " + d.Percentile("i", 0.9) + " AS p90, COUNT(*) AS n, " +
			d.HashRow([]string{"MIN(i)", "NULL"}) + " AS h FROM " + table("ripple_many")
		res, err := conn.Query(ctx, q, warehouse.QueryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// md5('1-_dbt_utils_surrogate_key_null_'), as dbt_utils computes it.
		want := []any{1250.5, 2250.1, int64(2500), "9902a3dc3ffe71035ef18229afae9987"}
		got := res.Rows[0]
		if got[0] != want[0] || got[2] != want[2] {
			t.Errorf("median/count = %v %v, want %v %v", got[0], got[2], want[0], want[2])
		}
		if f, ok := toFloat(got[1]); !ok || f < 2250.09 || f > 2250.11 {
			t.Errorf("p90 = %T %v, want 2250.1", got[1], got[1])
		}
		if got[3] != want[3] {
			t.Errorf("hash = %v, want %v", got[3], want[3])
		}
	})

	run("DialectRoundTrip", func(t *testing.T) {
		lit := "it's a \\ back\\slash, a \"quote\" and\na newline"
		ident := `Mixed "Case" col`
		q := "SELECT " + d.StringLiteral(lit) + " AS " + d.QuoteIdent(ident) + ", " +
			d.DateTrunc("month", "ts") + " AS m, " + d.CastToString("id") + " AS sid, " +
			d.CastToString("d") + " AS sd FROM " + table("ripple_types") + " WHERE id = 1"
		res, err := conn.Query(ctx, q, warehouse.QueryOptions{})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for i, w := range []any{lit, "2024-01-01T00:00:00", "1", decimalText} {
			if res.Rows[0][i] != w {
				t.Errorf("column %d = %#v, want %#v", i, res.Rows[0][i], w)
			}
		}
		if res.Columns[0].Name != ident {
			t.Errorf("quoted column name = %q, want %q", res.Columns[0].Name, ident)
		}
	})

	run("RowCap", func(t *testing.T) {
		q := "SELECT i FROM " + table("ripple_many") + " ORDER BY i"
		res, err := conn.Query(ctx, q, warehouse.QueryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != warehouse.DefaultRowLimit || !res.More || res.Total != nil {
			t.Errorf("default cap: rows=%d more=%v total=%v", len(res.Rows), res.More, res.Total)
		}
		if last := res.Rows[len(res.Rows)-1][0]; last != int64(warehouse.DefaultRowLimit) {
			t.Errorf("last row = %T %v, want %d", last, last, warehouse.DefaultRowLimit)
		}
		res, err = conn.Query(ctx, q, warehouse.QueryOptions{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 10 || !res.More {
			t.Errorf("limit 10: rows=%d more=%v", len(res.Rows), res.More)
		}
		res, err = conn.Query(ctx, q, warehouse.QueryOptions{Limit: -1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 2500 || res.More || res.Total == nil || *res.Total != 2500 {
			t.Errorf("no cap: rows=%d more=%v total=%v", len(res.Rows), res.More, res.Total)
		}
		res, err = conn.Query(ctx, d.Limit(q, 0), warehouse.QueryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 0 || res.More || len(res.Columns) != 1 {
			t.Errorf("LIMIT 0: rows=%d more=%v cols=%v", len(res.Rows), res.More, res.Columns)
		}
	})

	run("Columns", func(t *testing.T) {
		for _, rel := range []warehouse.Relation{{Schema: tg.Schema, Name: "ripple_types"}} {
			cols, err := conn.Columns(ctx, rel)
			if err != nil {
				t.Fatal(err)
			}
			if len(cols) != len(wantColumns) {
				t.Fatalf("Columns(%v) = %+v", rel, cols)
			}
			for i, w := range wantColumns {
				if !sameName(cols[i].Name, w.name) || d.KindOf(cols[i].Type) != w.kind {
					t.Errorf("column %d = %+v (kind %s), want %s of kind %s", i, cols[i], d.KindOf(cols[i].Type), w.name, w.kind)
				}
			}
		}
		cols, err := conn.Columns(ctx, warehouse.Relation{Schema: tg.Schema, Name: "ripple_view"})
		if err != nil || len(cols) != 2 || !sameName(cols[0].Name, "id") || !sameName(cols[1].Name, "s") {
			t.Errorf("view columns = %+v, %v", cols, err)
		}
	})

	run("TableNotFound", func(t *testing.T) {
		_, err := conn.Query(ctx, "SELECT * FROM "+table("ripple_no_such_table"), warehouse.QueryOptions{})
		missing := warehouse.ClassTableNotFound
		if tg.MissingTableClass != "" {
			missing = tg.MissingTableClass
		}
		assertClass(t, err, missing)
		_, err = conn.Columns(ctx, warehouse.Relation{Schema: tg.Schema, Name: "ripple_no_such_table"})
		assertClass(t, err, warehouse.ClassTableNotFound)
		_, err = conn.Columns(ctx, warehouse.Relation{Schema: "ripple_no_such_schema", Name: "ripple_types"})
		assertClass(t, err, warehouse.ClassTableNotFound)
	})

	run("SyntaxError", func(t *testing.T) {
		_, err := conn.Query(ctx, "SELEC 1", warehouse.QueryOptions{})
		assertClass(t, err, warehouse.ClassSyntaxError)
		var we *warehouse.Error
		if errors.As(err, &we) && we.SQL != "SELEC 1" {
			t.Errorf("Error.SQL = %q, want the failing statement", we.SQL)
		}
		_, err = conn.Query(ctx, "SELECT no_such_column FROM "+table("ripple_types"), warehouse.QueryOptions{})
		assertClass(t, err, warehouse.ClassSyntaxError)
	})

	run("ReadOnly", func(t *testing.T) {
		for _, q := range []string{
			"CREATE TABLE " + table("ripple_write_attempt") + " (x INTEGER)",
			"INSERT INTO " + table("ripple_types") + " (id) VALUES (99)",
			"DROP TABLE " + table("ripple_many"),
		} {
			_, err := conn.Query(ctx, q, warehouse.QueryOptions{})
			if err == nil {
				t.Fatalf("%s: succeeded through a read-only connection", q)
			}
			if msg := strings.ToLower(err.Error()); !strings.Contains(msg, "read-only") && !strings.Contains(msg, "read only") {
				t.Errorf("%s: error does not say the connection is read-only: %v", q, err)
			}
			assertClass(t, err, warehouse.ClassPermissionDenied)
		}
		res, err := conn.Query(ctx, "SELECT COUNT(*) FROM "+table("ripple_types"), warehouse.QueryOptions{})
		if err != nil || res.Rows[0][0] != int64(3) {
			t.Errorf("after write attempts: %v %v", res, err)
		}
	})

	run("Cancel", func(t *testing.T) {
		killedBefore := 0
		if tg.Killed != nil {
			killedBefore = tg.Killed()
		}
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := conn.Query(cctx, tg.SlowQuery, warehouse.QueryOptions{})
			done <- err
		}()
		time.Sleep(300 * time.Millisecond)
		canceled := time.Now()
		cancel()
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("slow query returned without error after cancel")
			}
			if !errors.Is(err, context.Canceled) && warehouse.Classify(err) != warehouse.ClassCanceled {
				t.Errorf("cancel error = %v (class %s), want context.Canceled / canceled", err, warehouse.Classify(err))
			}
			t.Logf("returned %v after cancel", time.Since(canceled))
		case <-time.After(2 * time.Second):
			t.Fatal("query still running 2s after its context was canceled")
		}
		if tg.Killed != nil {
			deadline := time.Now().Add(2 * time.Second)
			for tg.Killed() == killedBefore && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if tg.Killed() == killedBefore {
				t.Error("the canceled query was not killed on the server (no cancel request reached it)")
			}
		}
		// The pool must still serve queries: a canceled statement may not
		// leave a connection wedged or the server still busy with it.
		qctx, qcancel := context.WithTimeout(ctx, 10*time.Second)
		defer qcancel()
		if _, err := conn.Query(qctx, "SELECT 1", warehouse.QueryOptions{}); err != nil {
			t.Errorf("query after cancel: %v", err)
		}
		dctx, dcancel := context.WithTimeout(ctx, time.Second)
		defer dcancel()
		// A deadline is a cancellation too.
		if _, err := conn.Query(dctx, tg.SlowQuery, warehouse.QueryOptions{}); warehouse.Classify(err) != warehouse.ClassCanceled {
			t.Errorf("deadline: class %s: %v", warehouse.Classify(err), err)
		}
	})

	run("Concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 8 {
			wg.Go(func() {
				res, err := conn.Query(ctx, fmt.Sprintf("SELECT COUNT(*) + %d FROM %s", i, table("ripple_many")), warehouse.QueryOptions{})
				if err == nil && res.Rows[0][0] != int64(2500+i) {
					err = fmt.Errorf("query %d = %v", i, res.Rows[0][0])
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	})
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func assertClass(t *testing.T, err error, want warehouse.ErrorClass) {
	t.Helper()
	if err == nil {
		t.Errorf("got no error, want %s", want)
		return
	}
	if got := warehouse.Classify(err); got != want {
		t.Errorf("class = %s, want %s: %v", got, want, err)
	}
	var we *warehouse.Error
	if !errors.As(err, &we) {
		t.Errorf("error is %T, want *warehouse.Error: %v", err, err)
	}
}

// LiveEnv returns a variable that enables a live suite against a real
// service. Unset, the test is skipped and says so (never a silent pass):
// these services cannot run in CI, so their absence is not a CI failure.
func LiveEnv(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Skipf("skipped: %s is not set (set it, and the other RIPPLE_TEST_* variables in docs/warehouses, to run the live suite)", name)
	}
	return v
}

// Getenv is os.Getenv with a default.
func Getenv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// SetupThrough runs the fixture statements through a writable connection
// (live suites: the service is the only place to write them).
func SetupThrough(open func(ctx context.Context) (warehouse.Conn, error)) SetupFn {
	return func(ctx context.Context, stmts ...string) error {
		c, err := open(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		for _, s := range stmts {
			if _, err := c.Query(ctx, s, warehouse.QueryOptions{Limit: 1}); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	}
}
