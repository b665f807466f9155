package diff

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/frame"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// sqlDialect is the warehouse's dialect plus two quoting shorthands of the
// diff queries; every spelling that differs between warehouses is in the
// record (internal/dialect).
type sqlDialect struct {
	dialect.Dialect
}

func (d sqlDialect) q(name string) string { return d.QuoteIdent(name) }

// qual quotes a column qualified by a table alias.
func (d sqlDialect) qual(alias, name string) string { return alias + "." + d.QuoteIdent(name) }

// kindOfType is the record's type classifier. Diffs compare the two builds
// of one warehouse, so a name the warehouse is not known for (a metadata-only
// Env) uses the shared table.
func kindOfType(typ string) dialect.Kind { return dialect.KindOf(typ) }

// frameType maps a column kind to the frame column type.
func frameType(k dialect.Kind) string {
	switch k {
	case dialect.KindInteger:
		return frame.Integer
	case dialect.KindFloat, dialect.KindDecimal:
		return frame.Number
	case dialect.KindString:
		return frame.Text
	case dialect.KindBoolean:
		return frame.Boolean
	case dialect.KindDate:
		return frame.Date
	case dialect.KindTimestamp, dialect.KindTimestampTZ:
		return frame.Time
	}
	return frame.Unknown
}

// toFrame converts a warehouse result into a frame.
// RowsCutHint tells a reader of a cut result how to get the rest.
const RowsCutHint = "rows were cut at the row or byte cap; to see the rest, narrow the query: a WHERE on the rows you need, fewer or shorter columns, an aggregate, or ORDER BY … LIMIT/OFFSET pages"

func toFrame(r *warehouse.Result, limit int) *frame.Frame {
	f := &frame.Frame{Columns: make([]frame.Column, len(r.Columns)), Data: make([][]any, 0, len(r.Rows))}
	kinds := make([]warehouse.Kind, len(r.Columns))
	for i, c := range r.Columns {
		kinds[i] = kindOfType(c.Type)
		f.Columns[i] = frame.Column{Key: c.Name, Name: c.Name, Type: frameType(kinds[i])}
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
	if r.More {
		f.Hint = RowsCutHint
	}
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
