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
	"sync"

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
	// PseudoColumns are the engine's pseudo-columns (upper case): names
	// that resolve without being listed in any relation's columns.
	PseudoColumns []string
	// CastOutput is the engine's name for an unaliased cast (see
	// dialect.Names.CastOutput); "" keeps the parser's default.
	CastOutput string
	// reserved is indexed by keyword index: the words that are never
	// names in this dialect (its record's reserved words and
	// coreReserved). Nil means the generic set, reservedKw.
	reserved []bool
}

// generic accepts everything the warehouses accept; it is the parser's own
// fallback, not a warehouse, so it has no record.
func generic(name string) Dialect {
	return Dialect{Name: name, Backtick: true, DollarQuote: true, AngleTypeParams: true}
}

// fromRecord takes the parser's flags from a warehouse record.
func fromRecord(r dialect.Record) Dialect {
	return Dialect{
		reserved:            reservedSets()[r.Name],
		Name:                r.Name,
		Fold:                r.Identifiers.Fold,
		Backtick:            r.Lexer.Backtick,
		HashComment:         r.Lexer.HashComment,
		BackslashEscape:     r.Strings.BackslashEscapes,
		DollarQuote:         r.Lexer.DollarQuote,
		VariantPath:         r.Lexer.VariantPath,
		DoubleQuotedStrings: r.Lexer.DoubleQuotedStrings,
		AngleTypeParams:     r.Lexer.AngleTypeParams,
		PseudoColumns:       r.Names.PseudoColumns,
		CastOutput:          r.Names.CastOutput,
	}
}

// reservedSets holds each record's reserved set, built once: a lookup per
// analysed model must not rebuild it.
var reservedSets = sync.OnceValue(func() map[string][]bool {
	out := map[string][]bool{}
	for _, name := range dialect.Supported() {
		r, _ := dialect.Lookup(name)
		out[name] = reservedSet(r.Names.Reserved)
	}
	return out
})

// IsReserved reports whether an unquoted word is reserved in the dialect:
// not a column, table or alias name without quotes.
func (d Dialect) IsReserved(word string) bool {
	k := keywordIndex(word)
	return k != 0 && d.reservedKw()[k]
}

func (d Dialect) reservedKw() []bool {
	if d.reserved == nil {
		return reservedKw
	}
	return d.reserved
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

// IsPseudoColumn reports whether an unquoted name is one of the dialect's
// pseudo-columns.
func (d Dialect) IsPseudoColumn(name string) bool {
	for _, p := range d.PseudoColumns {
		if strings.EqualFold(p, name) {
			return true
		}
	}
	return false
}

// FoldIdent applies the dialect's folding to an unquoted identifier.
func (d Dialect) FoldIdent(s string) string { return d.Fold.Apply(s) }

// Keywords lists every word the parser treats as a keyword in some
// position (its grammar's words and every warehouse record's reserved
// words), upper case; tests generate cases from it.
func Keywords() []string { return append([]string(nil), keywordNames[1:]...) }
