// Package sqlparse is a tolerant, lineage-oriented front end for the SELECT
// language that dbt compiles to. It does not validate SQL: it recovers the
// structure that matters for column lineage (scopes, sources, expressions)
// and accepts the union of the supported dialects' syntax, so that a model
// written for one warehouse parses even when the dialect is guessed.
//
// Dialect differences live in one small seam, Dialect, in the style of sqlc:
// the lexer consults it for quoting, comments and escapes, and identifier
// case folding is applied once, when identifiers are produced.
package sqlparse

import "strings"

// Fold says how a dialect normalises unquoted identifiers.
type Fold int

const (
	// FoldNone keeps identifiers as written (DuckDB, BigQuery, Spark).
	FoldNone Fold = iota
	// FoldLower lower-cases unquoted identifiers (Postgres, Redshift).
	FoldLower
	// FoldUpper upper-cases unquoted identifiers (Snowflake).
	FoldUpper
)

// Dialect is the per-warehouse seam of the parser.
type Dialect struct {
	Name string
	Fold Fold
	// Backtick quotes identifiers (BigQuery, Spark/Databricks, generic).
	Backtick bool
	// HashComment starts a line comment with '#' (BigQuery, MySQL-ish).
	HashComment bool
	// BackslashEscape lets '\'' escape inside string literals.
	BackslashEscape bool
	// DollarQuote enables $$...$$ and $tag$...$tag$ strings.
	DollarQuote bool
	// VariantPath enables Snowflake's col:path.to.field access.
	VariantPath bool
	// DoubleQuotedStrings treats "..." as a string literal (BigQuery, Spark).
	// Only used where a string is syntactically required (e.g. ILIKE patterns);
	// elsewhere "..." is still read as an identifier because dbt-generated SQL
	// for these warehouses uses backticks for identifiers.
	DoubleQuotedStrings bool
}

// Known dialects. "generic" accepts everything the others accept.
var dialects = map[string]Dialect{
	"generic":    {Name: "generic", Backtick: true, DollarQuote: true, VariantPath: false},
	"duckdb":     {Name: "duckdb", DollarQuote: true},
	"postgres":   {Name: "postgres", Fold: FoldLower, DollarQuote: true},
	"redshift":   {Name: "redshift", Fold: FoldLower, DollarQuote: true},
	"snowflake":  {Name: "snowflake", Fold: FoldUpper, DollarQuote: true, VariantPath: true, BackslashEscape: true},
	"bigquery":   {Name: "bigquery", Backtick: true, HashComment: true, BackslashEscape: true, DoubleQuotedStrings: true},
	"databricks": {Name: "databricks", Backtick: true, BackslashEscape: true, VariantPath: true},
	"spark":      {Name: "spark", Backtick: true, BackslashEscape: true, VariantPath: true},
}

// LookupDialect returns the dialect for a dbt adapter or dialect name.
// Unknown names get the permissive generic dialect, because refusing to
// parse is worse for lineage than parsing slightly too much.
func LookupDialect(name string) Dialect {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "postgresql", "pg":
		n = "postgres"
	case "sparksql", "spark_sql", "hive":
		n = "spark"
	case "":
		n = "generic"
	}
	if d, ok := dialects[n]; ok {
		return d
	}
	d := dialects["generic"]
	d.Name = n
	return d
}

// FoldIdent applies the dialect's folding to an unquoted identifier.
func (d Dialect) FoldIdent(s string) string {
	switch d.Fold {
	case FoldLower:
		return strings.ToLower(s)
	case FoldUpper:
		return strings.ToUpper(s)
	}
	return s
}
