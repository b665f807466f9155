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

import (
	"strings"

	"github.com/ripple-data/ripple/internal/dialect"
)

// Fold says how a dialect normalises unquoted identifiers. It is the
// warehouse record's definition (internal/dialect), so the parser and the
// SQL Ripple generates can never disagree on folding.
type Fold = dialect.Fold

// The folds, as the record defines them.
const (
	FoldNone  = dialect.FoldNone
	FoldLower = dialect.FoldLower
	FoldUpper = dialect.FoldUpper
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
	// AngleTypeParams: '<' after ARRAY, STRUCT, MAP or RANGE in a type
	// opens its parameters (BigQuery, Spark/Databricks).
	AngleTypeParams bool
}

// generic accepts everything the warehouses accept; it is the parser's own
// fallback, not a warehouse, so it has no record.
func generic(name string) Dialect {
	return Dialect{Name: name, Backtick: true, DollarQuote: true, AngleTypeParams: true}
}

// fromRecord takes the parser's flags from a warehouse record.
func fromRecord(r dialect.Record) Dialect {
	return Dialect{
		Name:                r.Name,
		Fold:                r.Identifiers.Fold,
		Backtick:            r.Lexer.Backtick,
		HashComment:         r.Lexer.HashComment,
		BackslashEscape:     r.Strings.BackslashEscapes,
		DollarQuote:         r.Lexer.DollarQuote,
		VariantPath:         r.Lexer.VariantPath,
		DoubleQuotedStrings: r.Lexer.DoubleQuotedStrings,
		AngleTypeParams:     r.Lexer.AngleTypeParams,
	}
}

// LookupDialect returns the dialect for a dbt adapter type or one of its
// aliases (from the warehouse records). Unknown names get the permissive
// generic dialect, because refusing to parse is worse for lineage than
// parsing slightly too much.
func LookupDialect(name string) Dialect {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		return generic("generic")
	}
	if r, ok := dialect.Lookup(n); ok {
		return fromRecord(r)
	}
	return generic(n)
}

// FoldIdent applies the dialect's folding to an unquoted identifier.
func (d Dialect) FoldIdent(s string) string { return d.Fold.Apply(s) }
