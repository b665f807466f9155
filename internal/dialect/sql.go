package dialect

import (
	"math"
	"strconv"
	"strings"
)

// nullSentinel and hashSeparator match dbt_utils.generate_surrogate_key so a
// HashRow over a model's key columns equals the surrogate key dbt built.
const (
	nullSentinel  = "_dbt_utils_surrogate_key_null_"
	hashSeparator = "-"
)

// sqlDialect spells SQL from a record. The record is shared and never
// written after loading.
type sqlDialect struct{ r *Record }

func (d *sqlDialect) Name() string   { return d.r.Name }
func (d *sqlDialect) Record() Record { return d.r.clone() }

// fill substitutes {name} placeholders in one pass over the template, so a
// substituted expression is never scanned for placeholders again.
func fill(tmpl string, kv ...string) string {
	return strings.NewReplacer(kv...).Replace(tmpl)
}

func (d *sqlDialect) QuoteIdent(name string) string {
	q := d.r.Identifiers.Quote
	var body string
	if d.r.Identifiers.Escape == "backslash" {
		body = strings.NewReplacer(`\`, `\\`, q, `\`+q, "\n", `\n`, "\r", `\r`).Replace(name)
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

func (d *sqlDialect) FoldIdent(name string) string { return d.r.Identifiers.Fold.Apply(name) }

func (d *sqlDialect) KindOf(typ string) Kind { return kindOf(d.r, typ) }

func (d *sqlDialect) StringLiteral(s string) string {
	st := d.r.Strings
	if st.BackslashEscapes {
		s = strings.ReplaceAll(s, `\`, `\\`)
	}
	if st.NewlineEscapes {
		s = strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
	}
	if st.BackslashEscapes {
		// Every dialect that honours backslash escapes also accepts \'; using
		// it keeps a literal valid whatever the session's quoting settings.
		s = strings.ReplaceAll(s, "'", `\'`)
	} else {
		s = strings.ReplaceAll(s, "'", "''")
	}
	return "'" + s + "'"
}

func (d *sqlDialect) CastToString(expr string) string {
	return "CAST(" + expr + " AS " + d.r.Types.String + ")"
}

func (d *sqlDialect) CastToFloat(expr string) string {
	return "CAST(" + expr + " AS " + d.r.Types.Float + ")"
}

func (d *sqlDialect) CastToBigInt(expr string) string {
	return "CAST(" + expr + " AS " + d.r.Types.BigInt + ")"
}

func (d *sqlDialect) HashRow(exprs []string) string {
	if len(exprs) == 0 {
		return fill(d.r.SQL.Hash, "{x}", d.StringLiteral(""))
	}
	parts := make([]string, 0, 2*len(exprs)-1)
	for i, e := range exprs {
		if i > 0 {
			parts = append(parts, d.StringLiteral(hashSeparator))
		}
		parts = append(parts, "COALESCE("+d.CastToString(e)+", "+d.StringLiteral(nullSentinel)+")")
	}
	var concat string
	if d.r.SQL.Concat == "CONCAT" {
		concat = "CONCAT(" + strings.Join(parts, ", ") + ")"
	} else {
		concat = strings.Join(parts, " || ")
	}
	return fill(d.r.SQL.Hash, "{x}", concat)
}

func (d *sqlDialect) Median(expr string) string {
	if d.r.SQL.Median != "" {
		return fill(d.r.SQL.Median, "{x}", expr)
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
	return fill(d.r.SQL.Percentile, "{x}", expr, "{p}", strconv.FormatFloat(p, 'f', -1, 64),
		"{permille}", strconv.Itoa(int(math.Round(p*1000))))
}

func (d *sqlDialect) DateTrunc(unit, expr string) string {
	u := NormalizeUnit(unit)
	return fill(d.r.SQL.DateTrunc, "{x}", expr, "{unit}", u, "{UNIT}", strings.ToUpper(u))
}

func (d *sqlDialect) Distinct(a, b string) string {
	return fill(d.r.SQL.Distinct, "{a}", a, "{b}", b)
}

func (d *sqlDialect) NotDistinct(a, b string) string {
	return fill(d.r.SQL.NotDistinct, "{a}", a, "{b}", b)
}

func (d *sqlDialect) CountIf(cond string) string { return fill(d.r.SQL.CountIf, "{c}", cond) }

func (d *sqlDialect) Except() string { return d.r.SQL.Except }

func (d *sqlDialect) Limit(query string, n int) string {
	q := strings.TrimRight(query, " \t\r\n;")
	if n < 0 {
		return q
	}
	// A newline keeps the clause out of a trailing "-- comment".
	return q + "\nLIMIT " + strconv.Itoa(n)
}

func (d *sqlDialect) ErrorClass(code string) string { return d.r.Errors.Codes[code] }

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
