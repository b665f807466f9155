package warehouse

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ripple-data/ripple/internal/dialect"
)

// Kind is the type family of a column, as the warehouse records define it
// (internal/dialect): Normalize formats values by it.
type Kind = dialect.Kind

// The kinds, named here for adapters' convenience.
const (
	KindInteger     = dialect.KindInteger
	KindFloat       = dialect.KindFloat
	KindDecimal     = dialect.KindDecimal
	KindString      = dialect.KindString
	KindBoolean     = dialect.KindBoolean
	KindDate        = dialect.KindDate
	KindTimestamp   = dialect.KindTimestamp
	KindTimestampTZ = dialect.KindTimestampTZ
	KindTime        = dialect.KindTime
	KindOther       = dialect.KindOther
)

// KindOf is dialect.KindOf, the one type classifier, for a type name whose
// warehouse is not known; adapters that know theirs use Dialect.KindOf.
func KindOf(typ string) Kind { return dialect.KindOf(typ) }

// Decimal carries an exact decimal from an adapter to Normalize: the
// unscaled integer and the number of digits after the point.
type Decimal struct {
	Unscaled *big.Int
	Scale    int
}

// String renders the decimal keeping its scale ("12.50", not "12.5"), which
// is how both DuckDB and Postgres print a DECIMAL(p,2).
func (d Decimal) String() string {
	if d.Unscaled == nil {
		return "0"
	}
	if d.Scale <= 0 {
		v := new(big.Int).Mul(d.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-d.Scale)), nil))
		return v.String()
	}
	neg := d.Unscaled.Sign() < 0
	digits := new(big.Int).Abs(d.Unscaled).String()
	if len(digits) <= d.Scale {
		digits = strings.Repeat("0", d.Scale-len(digits)+1) + digits
	}
	s := digits[:len(digits)-d.Scale] + "." + digits[len(digits)-d.Scale:]
	if neg {
		s = "-" + s
	}
	return s
}

// Normalize turns a driver value into a JSON-friendly Go value, the same for
// every adapter: integers → int64, floats → float64 (non-finite → string),
// decimals → json.Number (exact), dates → "2006-01-02", timestamps →
// "2006-01-02T15:04:05[.frac]", timestamptz → RFC 3339 in UTC, times →
// "15:04:05[.frac]", bytes → string (base64 when not UTF-8), lists and maps
// normalised element-wise, NULL → nil. kind comes from the column type.
func Normalize(v any, kind Kind) any {
	switch x := v.(type) {
	case nil:
		return nil
	case bool, string:
		return x
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		if x > math.MaxInt64 {
			return json.Number(fmt.Sprint(x))
		}
		return int64(x)
	case *big.Int:
		if x.IsInt64() {
			return x.Int64()
		}
		return json.Number(x.String())
	case float32:
		return normFloat(float64(x))
	case float64:
		return normFloat(x)
	case Decimal:
		return json.Number(x.String())
	case json.Number:
		return x
	case time.Time:
		return formatTime(x, kind)
	case time.Duration:
		return x.String()
	case []byte:
		if utf8.Valid(x) {
			return string(x)
		}
		return base64.StdEncoding.EncodeToString(x)
	case [16]byte:
		return fmt.Sprintf("%x-%x-%x-%x-%x", x[0:4], x[4:6], x[6:8], x[8:10], x[10:16])
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Normalize(e, KindOther)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Normalize(e, KindOther)
		}
		return out
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

func normFloat(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return f
}

func formatTime(t time.Time, kind Kind) string {
	switch kind {
	case KindDate:
		return t.Format("2006-01-02")
	case KindTime:
		return t.Format("15:04:05.999999")
	case KindTimestampTZ:
		return t.UTC().Format("2006-01-02T15:04:05.999999Z07:00")
	}
	return t.Format("2006-01-02T15:04:05.999999")
}

// ParseDecimal reads "-12.50" (an optional sign, digits, an optional
// fraction) keeping its scale.
func ParseDecimal(s string) (Decimal, bool) {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimLeft(s, "+-")
	intPart, frac, _ := strings.Cut(body, ".")
	if intPart == "" && frac == "" {
		return Decimal{}, false
	}
	digits := intPart + frac
	for _, r := range digits {
		if r < '0' || r > '9' {
			return Decimal{}, false
		}
	}
	u, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return Decimal{}, false
	}
	if neg {
		u.Neg(u)
	}
	return Decimal{Unscaled: u, Scale: len(frac)}, true
}

// ParseText reads a value a warehouse sent as text (HTTP APIs: Databricks'
// JSON_ARRAY, BigQuery's rows) into the Go value Normalize expects for
// kind: integers, floats (NaN/Infinity too), exact decimals, booleans,
// dates and timestamps in the ISO-ish forms warehouses print; anything
// else stays text.
func ParseText(s string, kind Kind) (any, error) {
	switch kind {
	case KindInteger:
		if n, ok := new(big.Int).SetString(strings.TrimSpace(s), 10); ok {
			return n, nil
		}
		return nil, fmt.Errorf("%q is not an integer", s)
	case KindFloat:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return f, nil
	case KindDecimal:
		if d, ok := ParseDecimal(s); ok {
			return d, nil
		}
		return nil, fmt.Errorf("%q is not a decimal", s)
	case KindBoolean:
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("%q is not a boolean", s)
		}
		return b, nil
	case KindDate, KindTimestamp, KindTimestampTZ:
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00",
			"2006-01-02 15:04:05.999999999 Z07:00", "2006-01-02 15:04:05.999999999", "2006-01-02"} {
			if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
				return t, nil
			}
		}
		return nil, fmt.Errorf("%q is not a date or timestamp", s)
	}
	return s, nil
}
