package fakeserver

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
)

// TestLiveFixtureSQLRunsOnTheEngine runs each live suite's own setup SQL
// (warehousetest.FixtureSQL for that warehouse), in the fake's spelling, on
// the fake's DuckDB engine and reads the fixture back, so the per-dialect
// setup is exercised in CI, not only with credentials. BigQuery's and
// Databricks' type names do not exist in DuckDB, so types maps each to the
// DuckDB type of the same meaning (the fakes' spelling rewrites no type
// names); the statements' shape, literals and quoting run as written.
func TestLiveFixtureSQLRunsOnTheEngine(t *testing.T) {
	for _, tc := range []struct {
		adapter string
		sp      Spelling
		types   [][2]string // regexp → DuckDB type, applied in order
	}{
		{"duckdb", Spelling{}, nil},
		{"postgres", Spelling{}, nil},
		{"redshift", Spelling{}, nil},
		{"snowflake", snowflakeSpelling, nil},
		{"trino", Spelling{}, nil},
		{"databricks", databricksSpelling, [][2]string{{`\bTIMESTAMP\b`, "TIMESTAMPTZ"}, {`\bTIMESTAMP_NTZ\b`, "TIMESTAMP"}}},
		{"bigquery", bigquerySpelling, [][2]string{{`\bFLOAT64\b`, "DOUBLE"}, {`\bTIMESTAMP\b`, "TIMESTAMPTZ"}, {`\bDATETIME\b`, "TIMESTAMP"}}},
	} {
		t.Run(tc.adapter, func(t *testing.T) {
			stmts, err := warehousetest.FixtureSQL(tc.adapter, "main")
			if err != nil {
				t.Fatal(err)
			}
			for i := range stmts {
				for _, r := range tc.types {
					stmts[i] = regexp.MustCompile(r[0]).ReplaceAllString(stmts[i], r[1])
				}
				stmts[i] = tc.sp.ToDuckDB(stmts[i])
			}
			e := NewEngine(t, "analytics")
			if err := e.Setup(context.Background(), stmts...); err != nil {
				t.Fatalf("setup: %v", err)
			}
			res, err := e.Query(context.Background(), "q", `SELECT (SELECT COUNT(*) FROM main.ripple_types), (SELECT COUNT(*) FROM main.ripple_many), (SELECT MAX(i) FROM main.ripple_many), (SELECT COUNT(*) FROM main.ripple_view)`)
			if err != nil {
				t.Fatal(err)
			}
			want := "[3 2500 2500 3]"
			if got := fmt.Sprint(res.Rows[0]); got != want {
				t.Errorf("rows of ripple_types, ripple_many, max(i), ripple_view = %s, want %s", got, want)
			}
		})
	}
}
