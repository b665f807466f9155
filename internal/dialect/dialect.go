// Package dialect knows how each warehouse spells SQL: identifier quoting and
// case folding, relation names, casts, hashing and the functions Ripple's
// generated queries need. Every query Ripple generates goes through a Dialect,
// so adding a warehouse is implementing this interface plus golden SQL tests.
package dialect

// Dialect is implemented once per warehouse SQL dialect.
type Dialect interface {
	// Name is the dbt adapter type: duckdb, postgres, redshift, snowflake,
	// bigquery, databricks, spark, trino.
	Name() string
	// QuoteIdent always quotes a single identifier, escaping as needed.
	QuoteIdent(name string) string
	// QuoteRelation joins the non-empty parts, each quoted.
	QuoteRelation(database, schema, name string) string
	// FoldIdent applies the dialect's case folding to an unquoted identifier
	// (Snowflake upper-cases, Postgres/DuckDB lower-case, BigQuery keeps case).
	FoldIdent(name string) string
	// StringLiteral quotes s as a SQL string literal.
	StringLiteral(s string) string
	// CastToString casts an expression to the dialect's string type.
	CastToString(expr string) string
	// CastToFloat casts an expression to a double-precision number.
	CastToFloat(expr string) string
	// HashRow returns an expression hashing the given expressions together
	// (NULL-safe), used for surrogate keys and row comparison.
	HashRow(exprs []string) string
	// Median returns the median aggregate of expr.
	Median(expr string) string
	// Percentile returns the continuous percentile aggregate (p in [0,1]).
	Percentile(expr string, p float64) string
	// DateTrunc truncates a date/time expression to unit (year, month, day...).
	DateTrunc(unit, expr string) string
	// Limit appends a row limit to a SELECT statement.
	Limit(query string, n int) string
}
