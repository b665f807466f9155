package diff

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/frame"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// sqlDialect adds to dialect.Dialect the few constructs the diff queries need
// whose spelling differs between warehouses.
type sqlDialect struct {
	dialect.Dialect
}

func (d sqlDialect) q(name string) string { return d.QuoteIdent(name) }

// qual quotes a column qualified by a table alias.
func (d sqlDialect) qual(alias, name string) string { return alias + "." + d.QuoteIdent(name) }

// distinct is a NULL-safe "a differs from b" predicate.
func (d sqlDialect) distinct(a, b string) string {
	switch d.Name() {
	case "redshift":
		// Redshift has no IS DISTINCT FROM.
		return "(" + a + " <> " + b + " OR (" + a + " IS NULL AND " + b + " IS NOT NULL) OR (" + a + " IS NOT NULL AND " + b + " IS NULL))"
	case "databricks", "spark":
		return "NOT (" + a + " <=> " + b + ")"
	}
	return a + " IS DISTINCT FROM " + b
}

// notDistinct is a NULL-safe equality predicate.
func (d sqlDialect) notDistinct(a, b string) string {
	switch d.Name() {
	case "redshift":
		// Never NULL, so that it can be negated and combined safely.
		return "(COALESCE(" + a + " = " + b + ", FALSE) OR (" + a + " IS NULL AND " + b + " IS NULL))"
	case "databricks", "spark":
		return a + " <=> " + b
	}
	return a + " IS NOT DISTINCT FROM " + b
}

// countIf counts the rows where cond is true.
func (d sqlDialect) countIf(cond string) string {
	switch d.Name() {
	case "duckdb", "postgres":
		return "COUNT(*) FILTER (WHERE " + cond + ")"
	case "snowflake", "bigquery", "databricks", "spark":
		return "COUNT_IF(" + cond + ")"
	}
	return "COUNT(CASE WHEN " + cond + " THEN 1 END)"
}

// except is the set-difference keyword.
func (d sqlDialect) except() string {
	if d.Name() == "bigquery" {
		return "EXCEPT DISTINCT"
	}
	return "EXCEPT"
}

// bigint casts an expression to a 64-bit integer.
func (d sqlDialect) bigint(expr string) string {
	if d.Name() == "bigquery" {
		return "CAST(" + expr + " AS INT64)"
	}
	return "CAST(" + expr + " AS BIGINT)"
}

// columnKind classifies a physical column type.
type columnKind int

const (
	kindOther columnKind = iota
	kindInteger
	kindFloat
	kindBoolean
	kindDate
	kindTimestamp
	kindString
)

var decimalScaleRe = regexp.MustCompile(`^\s*(?i:decimal|numeric|number)\s*\(\s*\d+\s*(?:,\s*(\d+)\s*)?\)`)

// kindOfType maps a warehouse type name to the kind the diff queries need.
func kindOfType(typ string) columnKind {
	t := strings.ToUpper(strings.TrimSpace(typ))
	switch t {
	case "INT64", "INTEGER", "UNSIGNED BIG INT", "MEDIUMINT", "SMALLIDENTITY", "IDENTITY", "BIGIDENTITY":
		return kindInteger
	case "YEAR":
		return kindInteger
	case "TINYINT(1)", "NUMBER(1)", "BIT":
		return kindBoolean
	}
	switch warehouse.KindOf(typ) {
	case warehouse.KindInteger:
		return kindInteger
	case warehouse.KindFloat:
		return kindFloat
	case warehouse.KindDecimal:
		// NUMBER(38,0) is Snowflake's integer.
		if m := decimalScaleRe.FindStringSubmatch(typ); m != nil && (m[1] == "" || m[1] == "0") && !strings.HasPrefix(t, "DECIMAL") && !strings.HasPrefix(t, "NUMERIC") {
			return kindInteger
		}
		return kindFloat
	case warehouse.KindBoolean:
		return kindBoolean
	case warehouse.KindDate:
		return kindDate
	case warehouse.KindTimestamp, warehouse.KindTimestampTZ:
		return kindTimestamp
	case warehouse.KindString:
		return kindString
	}
	switch {
	case strings.HasPrefix(t, "DATETIME"), strings.HasPrefix(t, "TIMESTAMP"), t == "SMALLDATETIME":
		return kindTimestamp
	case strings.HasPrefix(t, "INT"), strings.HasPrefix(t, "UINT"):
		return kindInteger
	case strings.HasPrefix(t, "FLOAT"), strings.HasPrefix(t, "DOUBLE"):
		return kindFloat
	case strings.Contains(t, "CHAR"), strings.Contains(t, "TEXT"), strings.Contains(t, "STRING"):
		return kindString
	}
	return kindOther
}

func (k columnKind) numeric() bool  { return k == kindInteger || k == kindFloat }
func (k columnKind) temporal() bool { return k == kindDate || k == kindTimestamp }

// frameType maps a warehouse type to the frame column type.
func frameType(typ string) string {
	switch warehouse.KindOf(typ) {
	case warehouse.KindInteger:
		return frame.Integer
	case warehouse.KindFloat, warehouse.KindDecimal:
		return frame.Number
	case warehouse.KindString:
		return frame.Text
	case warehouse.KindBoolean:
		return frame.Boolean
	case warehouse.KindDate:
		return frame.Date
	case warehouse.KindTimestamp, warehouse.KindTimestampTZ:
		return frame.Time
	}
	switch kindOfType(typ) {
	case kindInteger:
		return frame.Integer
	case kindFloat:
		return frame.Number
	case kindString:
		return frame.Text
	case kindBoolean:
		return frame.Boolean
	case kindDate:
		return frame.Date
	case kindTimestamp:
		return frame.Time
	}
	return frame.Unknown
}

// toFrame converts a warehouse result into a frame.
func toFrame(r *warehouse.Result, limit int) *frame.Frame {
	f := &frame.Frame{Columns: make([]frame.Column, len(r.Columns)), Data: make([][]any, 0, len(r.Rows))}
	kinds := make([]warehouse.Kind, len(r.Columns))
	for i, c := range r.Columns {
		f.Columns[i] = frame.Column{Key: c.Name, Name: c.Name, Type: frameType(c.Type)}
		kinds[i] = warehouse.KindOf(c.Type)
	}
	for _, row := range r.Rows {
		out := make([]any, len(row))
		for i, v := range row {
			k := warehouse.KindOther
			if i < len(kinds) {
				k = kinds[i]
			}
			out[i] = warehouse.Normalize(v, k)
		}
		f.Data = append(f.Data, out)
	}
	if limit > 0 {
		l := limit
		f.Limit = &l
	}
	f.More, f.Truncated, f.Bytes = r.More, r.Truncated, r.Bytes
	if r.Total != nil {
		t := *r.Total
		f.TotalRowCount = &t
	}
	return f
}

// toFloat reads a numeric value of any driver representation.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case nil:
		return 0, false
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int16:
		return float64(x), true
	case int8:
		return float64(x), true
	case uint64:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint8:
		return float64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	case []byte:
		f, err := strconv.ParseFloat(strings.TrimSpace(string(x)), 64)
		return f, err == nil
	case warehouse.Decimal:
		f, err := strconv.ParseFloat(x.String(), 64)
		return f, err == nil
	case fmt.Stringer:
		f, err := strconv.ParseFloat(x.String(), 64)
		return f, err == nil
	}
	return 0, false
}

// toInt reads an integer value (counts) of any driver representation.
func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case uint64:
		return int64(x)
	case *big.Int:
		return x.Int64()
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
	case string:
		if i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return i
		}
	}
	f, ok := toFloat(v)
	if !ok || math.IsNaN(f) {
		return 0
	}
	return int64(math.Round(f))
}

// floatPtr returns a pointer to a finite float value, else nil.
func floatPtr(v any) *float64 {
	f, ok := toFloat(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// toString renders a value as text (for min/max and categories).
func toString(v any) *string {
	if v == nil {
		return nil
	}
	var s string
	switch x := warehouse.Normalize(v, warehouse.KindOther).(type) {
	case string:
		s = x
	case float64:
		s = strconv.FormatFloat(x, 'g', -1, 64)
	default:
		s = fmt.Sprint(x)
	}
	return &s
}

// one returns the single row of an aggregate result.
func one(r *warehouse.Result) ([]any, error) {
	if r == nil || len(r.Rows) != 1 {
		n := 0
		if r != nil {
			n = len(r.Rows)
		}
		return nil, fmt.Errorf("expected one result row, got %d", n)
	}
	return r.Rows[0], nil
}
