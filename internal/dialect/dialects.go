package dialect

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// nullSentinel and hashSeparator match dbt_utils.generate_surrogate_key so a
// HashRow over a model's key columns equals the surrogate key dbt built.
const (
	nullSentinel  = "_dbt_utils_surrogate_key_null_"
	hashSeparator = "-"
)

// spec describes a dialect by the few places where warehouses genuinely
// differ; everything else is shared in (*sqlDialect) methods.
type spec struct {
	name string
	// quote is the identifier quote character; it is escaped by doubling,
	// except where escIdent overrides.
	quote    byte
	escIdent func(string) string
	fold     func(string) string
	// backslashEscapes: the dialect treats \ inside '...' as an escape
	// character, so it must be doubled (Snowflake, Redshift, BigQuery, Spark).
	backslashEscapes bool
	// newlineEscapes: single-quoted literals may not span lines (BigQuery).
	newlineEscapes bool
	stringType     string
	floatType      string
	hash           func(concat string) string
	concat         func(parts []string) string
	median         func(expr string) string
	percentile     func(expr, p string) string
	dateTrunc      func(unit, expr string) string
}

type sqlDialect struct{ s spec }

func (d *sqlDialect) Name() string { return d.s.name }

func (d *sqlDialect) QuoteIdent(name string) string {
	q := string(d.s.quote)
	var body string
	if d.s.escIdent != nil {
		body = d.s.escIdent(name)
	} else {
		body = strings.ReplaceAll(name, q, q+q)
	}
	return q + body + q
}

func (d *sqlDialect) QuoteRelation(database, schema, name string) string {
	parts := make([]string, 0, 3)
	for _, p := range []string{database, schema, name} {
		if p != "" {
			parts = append(parts, d.QuoteIdent(p))
		}
	}
	return strings.Join(parts, ".")
}

func (d *sqlDialect) FoldIdent(name string) string {
	if d.s.fold == nil {
		return name
	}
	return d.s.fold(name)
}

func (d *sqlDialect) StringLiteral(s string) string {
	if d.s.backslashEscapes {
		s = strings.ReplaceAll(s, `\`, `\\`)
	}
	if d.s.newlineEscapes {
		s = strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
	}
	if d.s.backslashEscapes {
		// Every dialect that honours backslash escapes also accepts \'; using
		// it keeps a literal valid whatever the session's quoting settings.
		s = strings.ReplaceAll(s, "'", `\'`)
	} else {
		s = strings.ReplaceAll(s, "'", "''")
	}
	return "'" + s + "'"
}

func (d *sqlDialect) CastToString(expr string) string {
	return "CAST(" + expr + " AS " + d.s.stringType + ")"
}

func (d *sqlDialect) CastToFloat(expr string) string {
	return "CAST(" + expr + " AS " + d.s.floatType + ")"
}

func (d *sqlDialect) HashRow(exprs []string) string {
	if len(exprs) == 0 {
		return d.s.hash(d.StringLiteral(""))
	}
	parts := make([]string, 0, 2*len(exprs)-1)
	for i, e := range exprs {
		if i > 0 {
			parts = append(parts, d.StringLiteral(hashSeparator))
		}
		parts = append(parts, "COALESCE("+d.CastToString(e)+", "+d.StringLiteral(nullSentinel)+")")
	}
	return d.s.hash(d.s.concat(parts))
}

func (d *sqlDialect) Median(expr string) string {
	if d.s.median != nil {
		return d.s.median(expr)
	}
	return d.Percentile(expr, 0.5)
}

func (d *sqlDialect) Percentile(expr string, p float64) string {
	// A NaN or out-of-range p would otherwise reach the warehouse as invalid
	// SQL with a confusing error; clamping keeps the query well-formed.
	if math.IsNaN(p) || p < 0 {
		p = 0
	}
	if p > 1 {
		p = 1
	}
	return d.s.percentile(expr, strconv.FormatFloat(p, 'f', -1, 64))
}

func (d *sqlDialect) DateTrunc(unit, expr string) string {
	return d.s.dateTrunc(NormalizeUnit(unit), expr)
}

func (d *sqlDialect) Limit(query string, n int) string {
	q := strings.TrimRight(query, " \t\r\n;")
	if n < 0 {
		return q
	}
	// A newline keeps the clause out of a trailing "-- comment".
	return q + "\nLIMIT " + strconv.Itoa(n)
}

// NormalizeUnit lower-cases a date part and drops anything but letters, so
// a unit taken from user input can never inject SQL.
func NormalizeUnit(unit string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(unit) {
		if r >= 'a' && r <= 'z' || r == '_' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "day"
	}
	return b.String()
}

func pipeConcat(parts []string) string { return strings.Join(parts, " || ") }
func fnConcat(parts []string) string   { return "CONCAT(" + strings.Join(parts, ", ") + ")" }
func md5(s string) string              { return "MD5(" + s + ")" }
func lowerFold(s string) string        { return strings.ToLower(s) }
func upperFold(s string) string        { return strings.ToUpper(s) }
func withinGroup(expr, p string) string {
	return "PERCENTILE_CONT(" + p + ") WITHIN GROUP (ORDER BY " + expr + ")"
}
func quotedTrunc(unit, expr string) string {
	return "DATE_TRUNC('" + unit + "', " + expr + ")"
}

func backtickDouble(s string) string { return strings.ReplaceAll(s, "`", "``") }

// BigQuery quoted identifiers use backslash escapes, not doubling.
func backtickBackslash(s string) string {
	return strings.NewReplacer(`\`, `\\`, "`", "\\`", "\n", `\n`, "\r", `\r`).Replace(s)
}

// allSpecs builds the table on each call so no package state can be mutated.
func allSpecs() map[string]spec {
	m := map[string]spec{
		"duckdb": {
			name: "duckdb", quote: '"', fold: lowerFold,
			stringType: "VARCHAR", floatType: "DOUBLE",
			hash: md5, concat: pipeConcat,
			median:     func(e string) string { return "MEDIAN(" + e + ")" },
			percentile: func(e, p string) string { return "QUANTILE_CONT(" + e + ", " + p + ")" },
			dateTrunc:  quotedTrunc,
		},
		"postgres": {
			name: "postgres", quote: '"', fold: lowerFold,
			stringType: "TEXT", floatType: "DOUBLE PRECISION",
			hash: md5, concat: pipeConcat,
			percentile: withinGroup,
			dateTrunc:  quotedTrunc,
		},
		"redshift": {
			name: "redshift", quote: '"', fold: lowerFold, backslashEscapes: true,
			// Plain VARCHAR is VARCHAR(256) on Redshift and would truncate.
			stringType: "VARCHAR(MAX)", floatType: "DOUBLE PRECISION",
			hash: md5, concat: pipeConcat,
			median:     func(e string) string { return "MEDIAN(" + e + ")" },
			percentile: withinGroup,
			dateTrunc:  quotedTrunc,
		},
		"snowflake": {
			name: "snowflake", quote: '"', fold: upperFold, backslashEscapes: true,
			stringType: "VARCHAR", floatType: "DOUBLE",
			hash: md5, concat: pipeConcat,
			median:     func(e string) string { return "MEDIAN(" + e + ")" },
			percentile: withinGroup,
			dateTrunc:  quotedTrunc,
		},
		"bigquery": {
			name: "bigquery", quote: '`', escIdent: backtickBackslash,
			backslashEscapes: true, newlineEscapes: true,
			stringType: "STRING", floatType: "FLOAT64",
			hash:   func(s string) string { return "TO_HEX(MD5(" + s + "))" },
			concat: fnConcat,
			// BigQuery has no exact percentile aggregate (PERCENTILE_CONT is
			// analytic only); APPROX_QUANTILES with 1000 buckets is within 0.1%.
			percentile: func(e, p string) string {
				f, _ := strconv.ParseFloat(p, 64)
				return "APPROX_QUANTILES(" + e + ", 1000)[OFFSET(" + strconv.Itoa(int(math.Round(f*1000))) + ")]"
			},
			dateTrunc: func(u, e string) string {
				// Casting makes one expression serve DATE, DATETIME and TIMESTAMP,
				// as dbt's bigquery__date_trunc does.
				return "TIMESTAMP_TRUNC(CAST(" + e + " AS TIMESTAMP), " + strings.ToUpper(u) + ")"
			},
		},
		"databricks": {
			name: "databricks", quote: '`', escIdent: backtickDouble, fold: lowerFold,
			backslashEscapes: true,
			stringType:       "STRING", floatType: "DOUBLE",
			hash: md5, concat: fnConcat,
			percentile: func(e, p string) string { return "PERCENTILE(" + e + ", " + p + ")" },
			dateTrunc:  quotedTrunc,
		},
		"trino": {
			name: "trino", quote: '"', fold: lowerFold,
			stringType: "VARCHAR", floatType: "DOUBLE",
			hash:   func(s string) string { return "LOWER(TO_HEX(MD5(TO_UTF8(" + s + "))))" },
			concat: pipeConcat,
			// Trino has no exact percentile aggregate.
			percentile: func(e, p string) string { return "APPROX_PERCENTILE(" + e + ", " + p + ")" },
			dateTrunc:  quotedTrunc,
		},
	}
	// Spark SQL and Databricks SQL agree on everything Ripple generates.
	s := m["databricks"]
	s.name = "spark"
	m["spark"] = s
	return m
}

// Supported lists the adapter types ForAdapter accepts, sorted.
func Supported() []string {
	specs := allSpecs()
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ForAdapter returns the Dialect for a dbt adapter type (profiles.yml
// "type:"), case-insensitively.
func ForAdapter(adapterType string) (Dialect, error) {
	key := strings.ToLower(strings.TrimSpace(adapterType))
	if key == "postgresql" {
		key = "postgres"
	}
	s, ok := allSpecs()[key]
	if !ok {
		return nil, fmt.Errorf("dialect: unsupported adapter type %q: supported types are %s", adapterType, strings.Join(Supported(), ", "))
	}
	return &sqlDialect{s: s}, nil
}
