package sqlguard

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/cputime"
)

// Issue #27 item 1: DuckDB table functions that change the session (or
// write files) are refused by allow-list, however they are spelled or
// placed; the ones that read, and scalar calls after FROM inside a call,
// still pass.
func TestDuckDBTableFunctionAllowList(t *testing.T) {
	refused := []string{
		"select * from enable_profiling(format => 'json', save_location => '/nonexistent/x.json')",
		"select * from enable_profiling()",
		"from enable_profiling()",
		"select * from disable_profiling()",
		"select * from enable_peg_parser()",
		"select * from disable_peg_parser()",
		`select * from "enable_profiling"()`,
		"select * from system.main.enable_profiling()",
		"select * from range(1), enable_profiling()",
		"select * from range(1) r join enable_logging() on true",
		"select * from range(1) r join range(2) s on r.range = s.range, enable_profiling()",
		"select * from range(1), lateral enable_profiling()",
		"select * from (from enable_profiling())",
		"with a as (select * from enable_profiling()) select * from a",
		"select (select count(*) from enable_profiling())",
		"summarize enable_profiling()",
		"describe enable_profiling()",
		"pivot enable_profiling() on x using count(*)",
		"select * from some_extension_scan('x')",
		"select * from query_table('t')",
		"select * from duckdb_secrets()",
	}
	for _, q := range refused {
		_, err := ReadOnly("duckdb", q)
		var ge *Error
		if !errors.As(err, &ge) || ge.Kind != KindSideEffect {
			t.Errorf("ReadOnly(duckdb, %q) = %v; want a side_effect refusal", q, err)
		}
	}
	accepted := []string{
		"select * from range(3)",
		"from range(3) r, generate_series(1, 2) g",
		"select * from read_csv('x.csv', columns = {'a': 'INT'})",
		"select * from main.t, unnest([1, 2])",
		"select extract(year from now()), substring('abc' from length('a'))",
		"select a is distinct from coalesce(b, 0) from t",
		"select abs(a), lower(b) from t where c in (select lower(d) from u)",
		"select * from duckdb_tables() join duckdb_columns() using (table_name)",
		"select * from t order by a desc, abs(b)",
		"select list_transform([1], x -> x + 1), trim(both from ' a ')",
		"pivot t on region using sum(amount)",
		"unpivot t on a, b into name k value v",
		"pivot (select * from range(3)) on range using count(*)",
		"select * from pragma_table_info('t')",
	}
	for _, q := range accepted {
		if _, err := ReadOnly("duckdb", q); err != nil {
			t.Errorf("ReadOnly(duckdb, %q) = %v; want accepted", q, err)
		}
	}
	// Other warehouses have no such allow-list (Postgres' set-returning
	// functions are ordinary functions, refused by their own rules).
	if _, err := ReadOnly("postgres", "select * from generate_subscripts(array[1], 1)"); err != nil {
		t.Errorf("postgres: %v", err)
	}
	if _, err := ReadOnly("postgres", "pivot t on a using sum(b)"); err == nil {
		t.Error("postgres accepted a DuckDB PIVOT statement")
	}
}

// pathological are inputs that made the classifier quadratic (issue #27
// item 3): each is a prefix followed by one unit repeated.
var pathological = []struct{ prefix, unit string }{
	{"with recursive a as (select 1) search ", "("},
	{"explain ", "()"},
	{"with a as ", "(with b as "},
	{"select ", "(("},
	{"select * from t where a in ", "(select 1 from u where b in "},
}

// countingCtx reports itself cancelled once Err has been asked n times, so
// a test can cancel the classifier in the middle of its work without a
// clock.
type countingCtx struct {
	context.Context
	n int
}

func (c *countingCtx) Err() error {
	c.n--
	if c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestCheckCancellable: the classifier consults its context while it works,
// so the statement timeout and a client's cancellation reach it.
func TestCheckCancellable(t *testing.T) {
	big := "with recursive a as (select 1) search " + strings.Repeat("x ", 1<<20) + " select 1"
	ctx := &countingCtx{Context: context.Background(), n: 3}
	if _, err := Check(ctx, "duckdb", big); !errors.Is(err, context.Canceled) {
		t.Fatalf("Check with a context cancelled mid-way = %v; want context.Canceled", err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Check(cancelled, "duckdb", "select 1"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Check with a cancelled context = %v; want context.Canceled", err)
	}
}

// TestDeepNestingRefused: nesting is bounded, which bounds the recursion.
func TestDeepNestingRefused(t *testing.T) {
	q := "select " + strings.Repeat("(", MaxDepth+1) + "1" + strings.Repeat(")", MaxDepth+1)
	_, err := ReadOnly("duckdb", q)
	var ge *Error
	if !errors.As(err, &ge) || ge.Kind != KindSyntax || !strings.Contains(ge.Msg, "1000 deep") {
		t.Fatalf("ReadOnly(%d nested parentheses) = %v; want a syntax refusal naming the bound", MaxDepth+1, err)
	}
	q = "select " + strings.Repeat("(", MaxDepth) + "1" + strings.Repeat(")", MaxDepth)
	if _, err := ReadOnly("duckdb", q); err != nil {
		t.Fatalf("ReadOnly(%d nested parentheses) = %v; want accepted", MaxDepth, err)
	}
}

// linearSize is the size pathological inputs are grown to, and
// msPerKB the CPU time per KiB no input may exceed. Linear classification
// takes well under 0.1 ms per KiB; the quadratic one took about 40 ms per
// KiB at this size, so the bound holds on a loaded machine and still
// catches a quadratic path.
const (
	linearSize = 128 << 10
	msPerKB    = 10
)

// FuzzCheckLinear feeds the classifier a prefix followed by a unit repeated
// to linearSize bytes and checks that its CPU time per KiB stays under
// msPerKB: classification must be linear in the input's size (issue #27
// item 3), whatever the input.
func FuzzCheckLinear(f *testing.F) {
	for _, p := range pathological {
		f.Add(p.prefix, p.unit)
	}
	f.Add("select ", "'a', ")
	f.Add("", "select 1; ")
	f.Add("select * from ", "t, ")
	f.Fuzz(func(t *testing.T, prefix, unit string) {
		if unit == "" || len(prefix) > 256 || len(unit) > 64 {
			return
		}
		q := prefix + strings.Repeat(unit, (linearSize-len(prefix))/len(unit)+1)
		start := cputime.Now()
		wall := time.Now()
		_, _ = Check(context.Background(), "duckdb", q)
		used := cputime.Now() - start
		if used == 0 { // no CPU clock on this platform
			used = time.Since(wall)
		}
		if perKB := used.Seconds() * 1000 / (float64(len(q)) / 1024); perKB > msPerKB {
			t.Fatalf("Check took %s for %d bytes (%.2f ms per KiB, over %d): prefix %q, unit %q", used, len(q), perKB, msPerKB, prefix, unit)
		}
	})
}
