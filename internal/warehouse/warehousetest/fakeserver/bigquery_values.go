package fakeserver

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	duckdbdrv "github.com/duckdb/duckdb-go/v2"
	bq "google.golang.org/api/bigquery/v2"
)

// bqType is a DuckDB type as BigQuery shows it: its name in a query
// result's schema (the REST API's spelling), in INFORMATION_SCHEMA, and
// the logical bytes of one non-NULL value (0: 2 + its length).
type bqType struct {
	api, sql string
	bytes    int
}

var bqTypes = map[string]bqType{
	"BOOLEAN": {"BOOLEAN", "BOOL", 1},
	"TINYINT": {"INTEGER", "INT64", 8}, "SMALLINT": {"INTEGER", "INT64", 8}, "INTEGER": {"INTEGER", "INT64", 8},
	"BIGINT": {"INTEGER", "INT64", 8}, "UTINYINT": {"INTEGER", "INT64", 8}, "USMALLINT": {"INTEGER", "INT64", 8},
	"UINTEGER": {"INTEGER", "INT64", 8},
	// DuckDB's SUM of integers; BigQuery's is INT64 (and overflows past it).
	"HUGEINT": {"INTEGER", "INT64", 8},
	"FLOAT":   {"FLOAT", "FLOAT64", 8}, "DOUBLE": {"FLOAT", "FLOAT64", 8},
	"VARCHAR": {"STRING", "STRING", 0}, "BLOB": {"BYTES", "BYTES", 0},
	"DATE": {"DATE", "DATE", 8}, "TIME": {"TIME", "TIME", 8},
	"TIMESTAMP":                {"DATETIME", "DATETIME", 8},
	"TIMESTAMPTZ":              {"TIMESTAMP", "TIMESTAMP", 8},
	"TIMESTAMP WITH TIME ZONE": {"TIMESTAMP", "TIMESTAMP", 8},
}

// bqTypeOf maps a DuckDB type name; DECIMAL(P,S) is NUMERIC when it fits
// NUMERIC's 29 integer and 9 fractional digits, else BIGNUMERIC.
func bqTypeOf(duck string) (bqType, bool) {
	var p, s int
	if n, _ := fmt.Sscanf(duck, "DECIMAL(%d,%d)", &p, &s); n == 2 {
		if s <= 9 && p-s <= 29 {
			return bqType{"NUMERIC", "NUMERIC", 16}, true
		}
		return bqType{"BIGNUMERIC", "BIGNUMERIC", 32}, true
	}
	t, ok := bqTypes[duck]
	return t, ok
}

// infoSchemaType is bqTypeOf in SQL, over information_schema.columns.
var infoSchemaType = func() string {
	var b strings.Builder
	b.WriteString("CASE WHEN data_type LIKE 'DECIMAL(%' THEN CASE WHEN numeric_scale <= 9 AND numeric_precision - numeric_scale <= 29 THEN 'NUMERIC' ELSE 'BIGNUMERIC' END || '(' || numeric_precision || ', ' || numeric_scale || ')'")
	for duck, t := range bqTypes {
		b.WriteString(" WHEN data_type = " + quoteString(duck) + " THEN " + quoteString(t.sql))
	}
	b.WriteString(" ELSE data_type END")
	return b.String()
}()

func bqSchema(res *Result) *bq.TableSchema {
	s := &bq.TableSchema{Fields: make([]*bq.TableFieldSchema, len(res.Columns))}
	for i, c := range res.Columns {
		t, _ := bqTypeOf(c.Type)
		s.Fields[i] = &bq.TableFieldSchema{Name: c.Name, Type: t.api, Mode: "NULLABLE"}
	}
	return s
}

// bqValue renders one value as BigQuery's JSON rows do: text, or null.
func bqValue(v any, duckType string, int64ts bool) (any, error) {
	t, ok := bqTypeOf(duckType)
	if !ok {
		return nil, fmt.Errorf("the fake has no BigQuery type for DuckDB's %s", duckType)
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int8, int16, int32, int64, uint8, uint16, uint32:
		return fmt.Sprint(x), nil
	case *big.Int:
		return x.String(), nil
	case float32:
		return floatText(float64(x)), nil
	case float64:
		return floatText(x), nil
	case duckdbdrv.Decimal:
		return canonicalDecimal(decimalString(x.Value, int(x.Scale))), nil
	case string:
		return x, nil
	case []byte:
		return base64.StdEncoding.EncodeToString(x), nil
	case time.Time:
		switch t.api {
		case "DATE":
			return x.Format("2006-01-02"), nil
		case "TIME":
			return x.Format("15:04:05.999999"), nil
		case "DATETIME":
			return x.Format("2006-01-02T15:04:05.999999"), nil
		}
		if int64ts {
			return strconv.FormatInt(x.UnixMicro(), 10), nil
		}
		// BigQuery's float seconds, in Java's spelling (1.7067015E9).
		s := strconv.FormatFloat(float64(x.UnixMicro())/1e6, 'E', -1, 64)
		mant, exp, _ := strings.Cut(s, "E")
		e, _ := strconv.Atoi(exp)
		return mant + "E" + strconv.Itoa(e), nil
	}
	return nil, fmt.Errorf("the fake cannot render DuckDB's %T as BigQuery's %s", v, t.api)
}

// floatText spells a FLOAT64 as BigQuery does: NaN, Infinity, -Infinity.
func floatText(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// canonicalDecimal drops a decimal's trailing fractional zeros (12.50 → 12.5, 3.00 → 3).
func canonicalDecimal(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// engineError is a DuckDB error as BigQuery would report it.
func engineError(err error) *bqError {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	switch KindOf(err) {
	case NotFound:
		return &bqError{404, "notFound", "Not found: " + msg}
	case Syntax:
		return &bqError{400, "invalidQuery", msg}
	case ReadOnly:
		return &bqError{403, "accessDenied", "Access Denied: " + msg}
	case Canceled:
		return &bqError{400, "stopped", "Job execution was cancelled: User requested cancellation"}
	}
	var de *duckdbdrv.Error
	if errors.As(err, &de) {
		return &bqError{400, "invalidQuery", "Query error: " + msg}
	}
	// Not internalError or backendError: the client retries those.
	return &bqError{400, "invalid", "the fake failed: " + msg}
}
