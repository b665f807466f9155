package sqlguard

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// duckdbOracle asks DuckDB's own parser how it reads a string: prepare
// (which never executes a single statement and refuses several) and the
// prepared statement's type.
type duckdbOracle struct{ conn *sql.Conn }

func newDuckDBOracle(tb testing.TB) *duckdbOracle {
	tb.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (i INTEGER, s VARCHAR)`); err != nil {
		tb.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	return &duckdbOracle{conn: conn}
}

type verdict int

const (
	duckInvalid  verdict = iota // a parse or binder error
	duckMultiple                // more than one statement
	duckRead                    // exactly one SELECT or EXPLAIN
	duckOther                   // exactly one statement of another type
)

func (o *duckdbOracle) read(tb testing.TB, q string) verdict {
	v := duckInvalid
	err := o.conn.Raw(func(dc any) error {
		st, err := dc.(*duckdb.Conn).Prepare(q)
		if err != nil {
			if strings.Contains(err.Error(), "multi-statement") {
				v = duckMultiple
			}
			return nil
		}
		defer st.Close()
		typ, err := st.(*duckdb.Stmt).StatementType()
		if err != nil {
			return err
		}
		if typ == duckdb.STATEMENT_TYPE_SELECT || typ == duckdb.STATEMENT_TYPE_EXPLAIN {
			v = duckRead
		} else {
			v = duckOther
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// FuzzReadOnlyDuckDB compares the classifier with DuckDB's parser: whatever
// the guard accepts DuckDB must read as exactly one read-only statement, and
// what DuckDB reads as one SELECT the guard may refuse only for what it
// means (a write, a side effect), never because it split or quoted the SQL
// differently.
func FuzzReadOnlyDuckDB(f *testing.F) {
	for _, s := range []string{
		`SELECT '\' ; SET memory_limit='1MB'; SET lock_configuration=true; SELECT 1 --'`,
		`SELECT '\' ; USE memory; DETACH acme; SELECT 1 --'`,
		`SELECT ''''; SET threads=1; SELECT ''''`,
		`SELECT E'\''; SET threads=1; SELECT 1 --'`,
		`SELECT $$;$$, $a$ $$ ; $a$ FROM t`,
		`SELECT 1 /* /* ; */ */ ; `,
		`SELECT "a;""b" FROM (SELECT 1 AS "a;""b")`,
		"SELECT s FROM t WHERE s = 'x' -- ; DROP TABLE t\n",
		`WITH a AS (SELECT i FROM t) SELECT * FROM a`,
		`FROM t SELECT i`, `VALUES (1)`, `TABLE t`, `DESCRIBE t`, `SHOW TABLES`, `EXPLAIN SELECT 1`,
		`ATTACH 'x.duckdb'`, `COPY t TO 'x.csv'`, `PRAGMA version`, `SET threads = 1`,
		`SELECT e'\\' || '\'`, `SELECT 'a' -- '` + "\n" + `;`,
	} {
		f.Add(s)
	}
	o := newDuckDBOracle(f)
	f.Fuzz(func(t *testing.T, q string) {
		if len(q) > 256 {
			// DuckDB's parser takes cubic time on long operator runs
			// (800 '+' take 0.6 s); the quoting rules show in short inputs.
			return
		}
		out, err := ReadOnly("duckdb", q)
		if err == nil {
			switch o.read(t, out) {
			case duckMultiple:
				t.Fatalf("guard accepted %q as one statement %q; DuckDB reads several", q, out)
			case duckOther:
				t.Fatalf("guard accepted %q (%q); DuckDB reads a statement that is not a SELECT", q, out)
			}
			return
		}
		var ge *Error
		if !errors.As(err, &ge) {
			t.Fatalf("ReadOnly(%q) returned %T, not *Error", q, err)
		}
		switch ge.Kind {
		case KindSyntax, KindMultiple, KindEmpty:
			if strings.IndexByte(q, 0) >= 0 || !isASCII(q) {
				// Refused on purpose: DuckDB stops reading at a NUL, and it
				// drops a last statement made only of non-ASCII bytes
				// ("SELECT 1; é" is one SELECT to it), which the guard
				// refuses as a second statement.
				return
			}
			if o.read(t, q) == duckRead {
				t.Fatalf("DuckDB reads %q as one SELECT but the guard refused it as %s: %v", q, ge.Kind, err)
			}
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// TestUnicodeSpacesMatchDuckDB checks every non-ASCII BMP rune: the guard
// reads it as space exactly where DuckDB does (DuckDB turns some Unicode
// spaces into ASCII ones before parsing, and reads the rest as identifier
// bytes). A mismatch would let a rune decide whether a following E'...' is
// an escape string.
func TestUnicodeSpacesMatchDuckDB(t *testing.T) {
	o := newDuckDBOracle(t)
	for r := rune(0x80); r < 0x10000; r++ {
		if r >= 0xd800 && r < 0xe000 {
			continue // surrogates are not valid UTF-8
		}
		q := "SELECT" + string(r) + "1"
		duckSpace := o.read(t, q) == duckRead
		_, err := ReadOnly("duckdb", q)
		if guardSpace := err == nil; guardSpace != duckSpace {
			t.Errorf("U+%04X: DuckDB reads it as space: %v; the guard: %v (%v)", r, duckSpace, guardSpace, err)
		}
	}
}
