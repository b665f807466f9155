// Package dialect is the one record per warehouse: how it quotes and folds
// identifiers, how its type names map to kinds, how Ripple's generated SQL
// is spelled on it, and what its vendor error codes mean. The facts are
// data (records/<name>.json, embedded); this package turns them into a
// Dialect. Every query Ripple generates goes through a Dialect, the SQL
// front end (internal/sqlparse) takes its lexer flags and identifier
// folding from the same record, and internal/warehouse classifies vendor
// error codes with it. It imports only the standard library, so the parser
// can depend on it.
package dialect

import (
	"fmt"
	"sort"
	"strings"
)

// Dialect is a warehouse's record turned into SQL spelling.
type Dialect interface {
	// Name is the dbt adapter type: duckdb, postgres, redshift, snowflake,
	// bigquery, databricks, spark, trino.
	Name() string
	// Record is the warehouse's record (a copy: changing it changes nothing).
	Record() Record
	// QuoteIdent always quotes a single identifier, escaping as needed.
	QuoteIdent(name string) string
	// QuoteRelation joins the non-empty parts, each quoted.
	QuoteRelation(database, schema, name string) string
	// FoldIdent applies the dialect's case folding to an unquoted identifier
	// (Snowflake upper-cases, Postgres lower-cases, DuckDB and BigQuery keep
	// the case as written).
	FoldIdent(name string) string
	// KindOf maps one of this warehouse's type names to a Kind.
	KindOf(typ string) Kind
	// StringLiteral quotes s as a SQL string literal.
	StringLiteral(s string) string
	// CastToString casts an expression to the dialect's string type.
	CastToString(expr string) string
	// CastToFloat casts an expression to a double-precision number.
	CastToFloat(expr string) string
	// CastToBigInt casts an expression to a 64-bit integer.
	CastToBigInt(expr string) string
	// HashRow returns an expression hashing the given expressions together
	// (NULL-safe), used for surrogate keys and row comparison.
	HashRow(exprs []string) string
	// Median returns the median aggregate of expr.
	Median(expr string) string
	// Percentile returns the continuous percentile aggregate (p in [0,1]).
	Percentile(expr string, p float64) string
	// DateTrunc truncates a date/time expression to unit (year, month, day...).
	DateTrunc(unit, expr string) string
	// Distinct is a NULL-safe "a differs from b" predicate; NotDistinct is
	// NULL-safe equality. Neither is ever NULL.
	Distinct(a, b string) string
	NotDistinct(a, b string) string
	// CountIf counts the rows where cond is true.
	CountIf(cond string) string
	// Except is the set-difference keyword.
	Except() string
	// Limit appends a row limit to a SELECT statement.
	Limit(query string, n int) string
	// ErrorClass maps a vendor error code to a class name of
	// internal/warehouse ("" when the record does not know the code).
	ErrorClass(code string) string
}

// Supported lists the adapter types ForAdapter accepts (without aliases), sorted.
func Supported() []string {
	var names []string
	for k, r := range loadRecords() {
		if k == r.Name {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

// ReservedWords is the union of every record's reserved words, sorted (the
// SQL front end interns them as keywords).
func ReservedWords() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range loadRecords() {
		for _, w := range r.Names.Reserved {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	sort.Strings(out)
	return out
}

// ForAdapter returns the Dialect for a dbt adapter type (profiles.yml
// "type:") or one of its aliases, case-insensitively.
func ForAdapter(adapterType string) (Dialect, error) {
	r, ok := loadRecords()[strings.ToLower(strings.TrimSpace(adapterType))]
	if !ok {
		return nil, fmt.Errorf("dialect: unsupported adapter type %q: supported types are %s", adapterType, strings.Join(Supported(), ", "))
	}
	return &sqlDialect{r: r}, nil
}

// Lookup returns the record of an adapter type or alias.
func Lookup(adapterType string) (Record, bool) {
	r, ok := loadRecords()[strings.ToLower(strings.TrimSpace(adapterType))]
	if !ok {
		return Record{}, false
	}
	return r.clone(), true
}

// Must is ForAdapter for a name known at compile time (an adapter naming
// its own dialect); it panics on a name with no record.
func Must(adapterType string) Dialect {
	d, err := ForAdapter(adapterType)
	if err != nil {
		panic(err)
	}
	return d
}
