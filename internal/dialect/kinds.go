package dialect

import (
	"regexp"
	"strings"
)

// Kind is a warehouse-independent type family, so callers (and the shared
// adapter tests) can reason about columns without knowing every engine's
// spelling of "integer".
type Kind string

// The kinds.
const (
	KindInteger     Kind = "integer"
	KindFloat       Kind = "float"
	KindDecimal     Kind = "decimal"
	KindString      Kind = "string"
	KindBoolean     Kind = "boolean"
	KindDate        Kind = "date"
	KindTimestamp   Kind = "timestamp"
	KindTimestampTZ Kind = "timestamptz"
	KindTime        Kind = "time"
	KindOther       Kind = "other"
)

func (k Kind) valid() bool {
	switch k {
	case KindInteger, KindFloat, KindDecimal, KindString, KindBoolean, KindDate, KindTimestamp, KindTimestampTZ, KindTime, KindOther:
		return true
	}
	return false
}

// Numeric reports whether the kind gets sums, means and percentiles.
func (k Kind) Numeric() bool { return k == KindInteger || k == KindFloat || k == KindDecimal }

// Temporal reports whether the kind is a date or a point in time.
func (k Kind) Temporal() bool { return k == KindDate || k == KindTimestamp || k == KindTimestampTZ }

// sharedKind maps the type names most warehouses agree on (lower case,
// parameters stripped) to kinds; a record's types.kinds overrides it.
func sharedKind(t string) (Kind, bool) {
	switch t {
	case "tinyint", "smallint", "integer", "int", "bigint", "hugeint", "utinyint", "usmallint",
		"uinteger", "ubigint", "uhugeint", "int1", "int2", "int4", "int8", "int16", "int32", "int64",
		"byteint", "long", "short", "serial", "bigserial", "smallserial":
		return KindInteger, true
	case "float", "double", "real", "double precision", "float4", "float8", "float64", "float32":
		return KindFloat, true
	case "decimal", "numeric", "number", "bignumeric", "bigdecimal":
		return KindDecimal, true
	case "varchar", "text", "string", "character varying", "character", "char", "bpchar", "name",
		"citext", "nvarchar", "nchar", "uuid", "json", "jsonb", "enum":
		return KindString, true
	case "boolean", "bool", "logical":
		return KindBoolean, true
	case "date":
		return KindDate, true
	case "timestamp", "timestamp without time zone", "datetime", "timestamp_ntz", "timestamp_ns",
		"timestamp_ms", "timestamp_s":
		return KindTimestamp, true
	case "timestamptz", "timestamp with time zone", "timestamp_tz", "timestamp_ltz":
		return KindTimestampTZ, true
	case "time", "time without time zone", "timetz", "time with time zone":
		return KindTime, true
	}
	return "", false
}

// normalizeType lower-cases a type name and drops its parameters:
// "DECIMAL(10, 2)" → "decimal", "timestamp(3) with time zone" →
// "timestamp with time zone".
func normalizeType(typ string) string {
	t := strings.ToLower(strings.TrimSpace(typ))
	if i := strings.IndexByte(t, '('); i >= 0 {
		rest := ""
		if j := strings.IndexByte(t[i:], ')'); j >= 0 {
			rest = t[i+j+1:]
		}
		t = strings.TrimSpace(strings.TrimSpace(t[:i]) + rest)
	}
	if i := strings.IndexByte(t, '<'); i >= 0 { // Spark/Databricks array<int>
		t = strings.TrimSpace(t[:i])
	}
	return strings.Join(strings.Fields(t), " ")
}

var decimalScaleRe = regexp.MustCompile(`^\s*[A-Za-z_]+\s*\(\s*\d+\s*(?:,\s*(\d+)\s*)?\)`)

// kindOf is the one type classifier: the record's own names first, then
// the shared table, then families recognised by their prefix.
func kindOf(r *Record, typ string) Kind {
	t := normalizeType(typ)
	if strings.HasSuffix(t, "]") { // Postgres arrays: integer[]
		return KindOther
	}
	scaleZero := []string{"number"} // NUMBER(38,0) is the integer type wherever NUMBER exists
	if r != nil {
		scaleZero = append(scaleZero, r.Types.IntegerWhenScaleZero...)
	}
	for _, n := range scaleZero {
		if t == n {
			// NUMBER and NUMBER(38) have scale 0 too.
			if m := decimalScaleRe.FindStringSubmatch(typ); m == nil || m[1] == "" || strings.Trim(m[1], "0") == "" {
				return KindInteger
			}
			return KindDecimal
		}
	}
	if r != nil {
		if k, ok := r.Types.Kinds[t]; ok {
			return k
		}
	}
	if k, ok := sharedKind(t); ok {
		return k
	}
	switch {
	case strings.HasPrefix(t, "timestamp") && (strings.Contains(t, "with time zone") || strings.HasSuffix(t, "tz")):
		return KindTimestampTZ
	case strings.HasPrefix(t, "datetime"), strings.HasPrefix(t, "timestamp"):
		return KindTimestamp
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return KindInteger
	case strings.HasPrefix(t, "float"), strings.HasPrefix(t, "double"):
		return KindFloat
	case strings.Contains(t, "char"), strings.Contains(t, "text"), strings.Contains(t, "string"):
		return KindString
	}
	return KindOther
}

// KindOf classifies a type name with no warehouse known (the shared table
// and the prefix rules). Prefer Dialect.KindOf when the warehouse is known.
func KindOf(typ string) Kind { return kindOf(nil, typ) }
