package warehousetest

import (
	"fmt"
	"strings"

	"github.com/ripple-data/ripple/internal/dialect"
)

// fixtureSpelling is how one warehouse spells the fixture's types and
// literals. The other warehouses take the standard spelling, which DuckDB,
// PostgreSQL, Redshift, Snowflake (where TIMESTAMP WITHOUT / WITH TIME ZONE
// are TIMESTAMP_NTZ / TIMESTAMP_TZ) and Trino all accept.
type fixtureSpelling struct {
	double, decimal, varchar, ts, tz, boolean string
	// tsLit and tzLit spell a naive and a zoned timestamp literal.
	tsLit, tzLit func(string) string
}

func castTo(typ string) func(string) string {
	return func(v string) string { return "CAST('" + v + "' AS " + typ + ")" }
}

func typed(prefix string) func(string) string {
	return func(v string) string { return prefix + " '" + v + "'" }
}

var standardSpelling = fixtureSpelling{
	double: "DOUBLE PRECISION", decimal: "DECIMAL(10,2)", varchar: "VARCHAR(20)",
	ts: "TIMESTAMP WITHOUT TIME ZONE", tz: "TIMESTAMP WITH TIME ZONE", boolean: "BOOLEAN",
	tsLit: castTo("TIMESTAMP WITHOUT TIME ZONE"), tzLit: castTo("TIMESTAMP WITH TIME ZONE"),
}

// fixtureSpellings are the warehouses whose spelling differs from the
// standard one.
var fixtureSpellings = map[string]fixtureSpelling{
	// BigQuery: DATETIME is the naive timestamp, TIMESTAMP the zoned one.
	"bigquery": {double: "FLOAT64", decimal: "NUMERIC(10,2)", varchar: "STRING(20)",
		ts: "DATETIME", tz: "TIMESTAMP", boolean: "BOOL", tsLit: typed("DATETIME"), tzLit: typed("TIMESTAMP")},
	// Databricks: TIMESTAMP_NTZ is naive, TIMESTAMP is an instant (shown
	// in the session time zone); no DOUBLE PRECISION.
	"databricks": {double: "DOUBLE", decimal: "DECIMAL(10,2)", varchar: "STRING",
		ts: "TIMESTAMP_NTZ", tz: "TIMESTAMP", boolean: "BOOLEAN", tsLit: typed("TIMESTAMP_NTZ"), tzLit: typed("TIMESTAMP")},
	// Trino names the 64-bit float DOUBLE; its timestamps default to
	// millisecond precision, enough for the fixture's half second.
	"trino": {double: "DOUBLE", decimal: "DECIMAL(10,2)", varchar: "VARCHAR(20)",
		ts: "TIMESTAMP WITHOUT TIME ZONE", tz: "TIMESTAMP WITH TIME ZONE", boolean: "BOOLEAN",
		tsLit: castTo("TIMESTAMP WITHOUT TIME ZONE"), tzLit: castTo("TIMESTAMP WITH TIME ZONE")},
}

// digits is 0..9 as a derived table, written with UNION ALL because not
// every warehouse has generate_series in a CREATE TABLE AS (Redshift runs
// it on the leader node only; Snowflake, BigQuery, Databricks lack it).
const digits = "(SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4" +
	" UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)"

// FixtureSQL returns the statements that create the suite's fixture tables
// in schema, spelt for the adapter's engine (types, literals, quoting), so
// the live suites set up on the real warehouse what the fakes set up in
// DuckDB: the same values, read back by the same subtests.
func FixtureSQL(adapter, schema string) ([]string, error) {
	d, err := dialect.ForAdapter(adapter)
	if err != nil {
		return nil, err
	}
	sp, ok := fixtureSpellings[strings.ToLower(adapter)]
	if !ok {
		sp = standardSpelling
	}
	rel := func(name string) string { return d.QuoteRelation("", schema, name) }
	return []string{
		fmt.Sprintf("CREATE TABLE %s (id INTEGER, big BIGINT, f %s, d %s,\n  s %s, dt DATE, ts %s, tz %s, b %s)",
			rel("ripple_types"), sp.double, sp.decimal, sp.varchar, sp.ts, sp.tz, sp.boolean),
		fmt.Sprintf("INSERT INTO %s VALUES\n  (1, 9007199254740993, 1.5, 12.50, 'hello', DATE '2024-01-31', %s,\n   %s, TRUE),\n"+
			"  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),\n  (3, -5, -0.25, -0.05, 'it''s', DATE '1999-12-31', %s,\n   %s, FALSE)",
			rel("ripple_types"), sp.tsLit("2024-01-31 13:45:00.5"), sp.tzLit("2024-01-31 13:45:00+02:00"),
			sp.tsLit("2000-01-01 00:00:00"), sp.tzLit("2000-01-01 00:00:00+00:00")),
		fmt.Sprintf("CREATE TABLE %s AS SELECT i FROM (SELECT a.n * 1000 + b.n * 100 + c.n * 10 + e.n + 1 AS i\n"+
			"  FROM %s a CROSS JOIN %s b CROSS JOIN %s c CROSS JOIN %s e) g WHERE i <= 2500",
			rel("ripple_many"), digits, digits, digits, digits),
		fmt.Sprintf("CREATE VIEW %s AS SELECT id, s FROM %s", rel("ripple_view"), rel("ripple_types")),
	}, nil
}
