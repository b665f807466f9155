package sqlguard

import (
	"errors"
	"strings"
	"testing"
)

func TestReadOnlyAccepts(t *testing.T) {
	for _, tc := range []struct{ dialect, sql, want string }{
		{"duckdb", "select 1", "select 1"},
		{"duckdb", "  WITH x AS (select 1) select * from x;  ", "WITH x AS (select 1) select * from x"},
		{"duckdb", "select ';' as s; -- done", "select ';' as s"},
		{"duckdb", "select 1;;\n;", "select 1"},
		{"duckdb", "/* c */ select \"delete\" from t", "select \"delete\" from t"},
		{"duckdb", "(select 1) union all (select 2)", "(select 1) union all (select 2)"},
		{"duckdb", "select 'it''s' as x", "select 'it''s' as x"},
		{"duckdb", `select '\' as backslash`, `select '\' as backslash`},
		{"duckdb", `select E'it\'s; fine' as x`, `select E'it\'s; fine' as x`},
		{"duckdb", "select $$a'; b$$, $t$ $$ ; $t$", "select $$a'; b$$, $t$ $$ ; $t$"},
		{"duckdb", "select 1 /* a /* nested ; */ still comment */", "select 1 /* a /* nested ; */ still comment */"},
		{"duckdb", "from range(3)", "from range(3)"},
		{"duckdb", "values (1), (2)", "values (1), (2)"},
		{"duckdb", "table t", "table t"},
		{"duckdb", "show tables", "show tables"},
		{"duckdb", "describe select 1", "describe select 1"},
		{"duckdb", "summarize select 1", "summarize select 1"},
		{"duckdb", `summarize main."t"`, `summarize main."t"`},
		{"duckdb", "explain analyze select 1", "explain analyze select 1"},
		{"duckdb", "select 1 -- trailing comment", "select 1 -- trailing comment"},
		{"duckdb", "select 'é' as \"ü\"; ", "select 'é' as \"ü\""},
		{"duckdb", "with recursive t(n) as (select 1 union all select n + 1 from t where n < 3) select * from t", "with recursive t(n) as (select 1 union all select n + 1 from t where n < 3) select * from t"},
		{"duckdb", "with a as materialized (select 1), b as not materialized (select 2) select * from a, b", "with a as materialized (select 1), b as not materialized (select 2) select * from a, b"},
		{"postgres", "select 1 for system_time as of x", "select 1 for system_time as of x"},
		{"postgres", "explain (analyze, format json) select 1", "explain (analyze, format json) select 1"},
		{"postgres", "select pg_sleep(0.1), lower('x')", "select pg_sleep(0.1), lower('x')"},
		{"snowflake", `select 'a\';b' as x`, `select 'a\';b' as x`},
		// DuckDB turns a no-break space into a space: this is one E'' string.
		{"duckdb", "SELECT \u00a0E'\\'; SET threads=1; SELECT 1 --'", "SELECT \u00a0E'\\'; SET threads=1; SELECT 1 --'"},
		{"bigquery", "select '''a';b''' as x", "select '''a';b''' as x"},
		{"bigquery", "select `a;b` from t", "select `a;b` from t"},
	} {
		got, err := ReadOnly(tc.dialect, tc.sql)
		if err != nil || got != tc.want {
			t.Errorf("ReadOnly(%s, %q) = %q, %v; want %q", tc.dialect, tc.sql, got, err, tc.want)
		}
	}
}

func TestReadOnlyRefuses(t *testing.T) {
	for _, tc := range []struct {
		dialect, sql string
		kind         Kind
		want         string
	}{
		// Issue #19 defect 1: DuckDB has no \' escape, so this is three statements.
		{"duckdb", `SELECT '\' ; SET memory_limit='1MB'; SET lock_configuration=true; SELECT 1 --'`, KindMultiple, "SET"},
		{"duckdb", `SELECT '\' ; USE memory; DETACH acme; SELECT 1 --'`, KindMultiple, "USE"},
		// ''' is a string starting with a quote outside BigQuery.
		{"duckdb", `SELECT ''''; SET memory_limit='1MB'; SELECT ''''`, KindMultiple, "SET"},
		// A backtick is no quote in DuckDB or Postgres (nor any token Ripple
		// can read there).
		{"duckdb", "SELECT 1 AS `x; SET memory_limit='1MB'; SELECT `", KindSyntax, "'`'"},
		{"postgres", "SELECT 1 AS `x; SELECT pg_advisory_lock(1); SELECT `", KindSyntax, "'`'"},
		{"postgres", "select $1$x$", KindSyntax, "unterminated dollar-quoted"},
		// A no-break space is an identifier byte to Postgres (DuckDB reads
		// it as a space), so this E is no escape-string prefix there.
		{"postgres", "SELECT 1 AS \u00a0E'\\'; SELECT pg_advisory_lock(1); SELECT 1 --'", KindMultiple, "SELECT"},
		// Snowflake's "quoted" identifiers have no backslash escapes.
		{"snowflake", `SELECT 1 AS "a\"; DROP TABLE t; SELECT 1 AS "b"`, KindMultiple, "DROP"},
		// Defect 2: writes with external access.
		{"duckdb", "ATTACH 'other.duckdb' AS o", KindNotReadOnly, "ATTACH"},
		{"duckdb", "COPY (SELECT 1) TO 'file.csv'", KindNotReadOnly, "COPY"},
		{"duckdb", "INSTALL httpfs", KindNotReadOnly, "INSTALL"},
		{"duckdb", "LOAD httpfs", KindNotReadOnly, "LOAD"},
		{"duckdb", "SET memory_limit = '1MB'", KindNotReadOnly, "SET"},
		{"duckdb", "PRAGMA version", KindNotReadOnly, "PRAGMA"},
		{"duckdb", "CALL checkpoint()", KindNotReadOnly, "CALL"},
		{"duckdb", "select * from checkpoint()", KindSideEffect, "checkpoint"},
		{"duckdb", "select * from query('attach ''x.duckdb''')", KindSideEffect, "query"},
		{"duckdb", "insert into t values (1)", KindNotReadOnly, "INSERT"},
		{"duckdb", "delete from t", KindNotReadOnly, "read-only"},
		{"duckdb", "explain analyze delete from t", KindNotReadOnly, "DELETE"},
		{"duckdb", "summarize delete from t", KindNotReadOnly, "DELETE"},
		{"duckdb", "(delete from t)", KindNotReadOnly, "DELETE"},
		{"duckdb", "select 1; select 2", KindMultiple, "more than one statement"},
		{"duckdb", "select 1; drop table x", KindMultiple, "DROP"},
		{"duckdb", "select 'unterminated", KindSyntax, "unterminated"},
		{"duckdb", "select $$unterminated", KindSyntax, "unterminated"},
		{"duckdb", "select 1 /* open", KindSyntax, "unterminated"},
		{"duckdb", "select 1 /* a /* b */ still open", KindSyntax, "unterminated"},
		{"duckdb", "select 1\x00; drop table t", KindSyntax, "NUL"},
		{"duckdb", "SELEC 1", KindSyntax, "check the spelling"},
		{"duckdb", "'x'", KindSyntax, "does not begin a query"},
		{"duckdb", "-- only a comment", KindEmpty, "empty"},
		{"duckdb", " ;; ", KindEmpty, "empty"},
		// Postgres: data-modifying CTEs, SELECT INTO, row locks.
		{"postgres", "with d as (delete from t returning *) select * from d", KindNotReadOnly, "DELETE"},
		{"postgres", "with a as (select 1), d as (update t set x = 1 returning *) select * from d", KindNotReadOnly, "UPDATE"},
		{"postgres", "with a as (select 1) insert into t select * from a", KindNotReadOnly, "INSERT"},
		{"postgres", "select * into new_table from t", KindNotReadOnly, "INTO"},
		{"postgres", "select * from t for update", KindNotReadOnly, "FOR UPDATE"},
		{"postgres", "select * from t for no key update", KindNotReadOnly, "FOR NO"},
		{"postgres", "from t", KindNotReadOnly, "FROM-first"},
		{"postgres", "begin read write", KindNotReadOnly, "BEGIN"},
		{"postgres", "commit", KindNotReadOnly, "COMMIT"},
		// Defect 8: side-effect functions, however spelled.
		{"postgres", "select pg_advisory_lock(1)", KindSideEffect, "advisory lock"},
		{"postgres", "select pg_catalog.pg_try_advisory_xact_lock(1)", KindSideEffect, "advisory lock"},
		{"postgres", `select "PG_ADVISORY_LOCK" (1)`, KindSideEffect, "advisory lock"},
		{"postgres", "select pg_terminate_backend(pid) from pg_stat_activity", KindSideEffect, "ends other sessions"},
		{"postgres", "select pg_read_file('/etc/passwd')", KindSideEffect, "files"},
		{"postgres", "select pg_read_binary_file('/etc/passwd')", KindSideEffect, "files"},
		{"postgres", "select * from dblink_exec('dbname=x', 'drop table t')", KindSideEffect, "another connection"},
		{"postgres", "select pg_create_logical_replication_slot('s', 'test_decoding')", KindSideEffect, "replication"},
		{"postgres", "select lo_import('/etc/passwd')", KindSideEffect, "large objects"},
		{"postgres", "select set_config('statement_timeout', '0', false)", KindSideEffect, "settings"},
		{"postgres", "select query_to_xml('select pg_advisory_lock(1)', true, true, '')", KindSideEffect, "SQL string"},
		{"redshift", "select pg_terminate_backend(1)", KindSideEffect, "sessions"},
		{"unknown-warehouse", "select pg_advisory_lock(1)", KindSideEffect, "advisory"},
		{"unknown-warehouse", "select * from checkpoint()", KindSideEffect, "checkpoint"},
	} {
		got, err := ReadOnly(tc.dialect, tc.sql)
		var ge *Error
		if !errors.As(err, &ge) {
			t.Errorf("ReadOnly(%s, %q) = %q, %v; want a refusal", tc.dialect, tc.sql, got, err)
			continue
		}
		if ge.Kind != tc.kind || !strings.Contains(ge.Error(), tc.want) {
			t.Errorf("ReadOnly(%s, %q): %s %q; want %s containing %q", tc.dialect, tc.sql, ge.Kind, ge.Error(), tc.kind, tc.want)
		}
		if !IsRefusal(err) {
			t.Errorf("IsRefusal(%v) = false", err)
		}
	}
}

// TestReadOnlyIdempotent: what the guard returns is accepted again as is,
// so the statement sent to the warehouse is the one classified.
func TestReadOnlyIdempotent(t *testing.T) {
	for _, sql := range []string{"select 1;  -- x", "/* a */ select 'b' ; ", "select $$;$$;", "select 1 -- x\n;"} {
		out, err := ReadOnly("duckdb", sql)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ReadOnly("duckdb", out)
		if err != nil || again != out {
			t.Errorf("%q -> %q -> %q, %v", sql, out, again, err)
		}
	}
}
