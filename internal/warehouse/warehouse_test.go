package warehouse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/dialect"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		msg  string
		want ErrorClass
	}{
		{"SQL compilation error: Object 'DB.S.T' does not exist or not authorized.", ClassPermissionDenied},
		{"Catalog Error: Table with name foo does not exist!", ClassTableNotFound},
		{"ERROR: relation \"public.orders\" does not exist (SQLSTATE 42P01)", ClassTableNotFound},
		{"42P01", ClassTableNotFound},
		{"ERROR: permission denied for table x (SQLSTATE 42501)", ClassPermissionDenied},
		{"permission denied for table x", ClassPermissionDenied},
		{"42501", ClassPermissionDenied},
		{"PERMISSION DENIED FOR SCHEMA s", ClassPermissionDenied},
		{"Parser Error: syntax error at or near \"SELEC\"", ClassSyntaxError},
		{"Parser Error: something", ClassSyntaxError},
		{"SQL compilation error: error line 1 at position 7 invalid identifier 'X'", ClassSyntaxError},
		{"invalid identifier 'X'", ClassSyntaxError},
		{"column count mismatch", ClassSyntaxError},
		{"ERROR: syntax error at or near \"frm\" (SQLSTATE 42601)", ClassSyntaxError},
		{"ERROR: column \"nope\" does not exist (SQLSTATE 42703)", ClassSyntaxError},
		{"Binder Error: Referenced column \"nope\" not found in FROM clause!", ClassSyntaxError},
		{"Not found: Table my-project:ds.t was not found in location US", ClassTableNotFound},
		{"[TABLE_OR_VIEW_NOT_FOUND] The table or view `x` cannot be found.", ClassTableNotFound},
		{"line 1:15: Table 'hive.default.x' does not exist", ClassTableNotFound},
		{"Invalid Input Error: Cannot execute statement of type \"CREATE\" on database \"db\" which is attached in read-only mode!", ClassPermissionDenied},
		{"ERROR: cannot execute CREATE TABLE in a read-only transaction (SQLSTATE 25006)", ClassPermissionDenied},
		// A missing table that is also reported as a syntax-ish compile error
		// must be table_not_found.
		{"SQL compilation error: Table 'X' does not exist", ClassTableNotFound},
		{"dial tcp 127.0.0.1:5432: connect: Connection refused", ClassConnection},
		{"failed to connect to `user=ripple database=x`: 127.0.0.1:1 (localhost): dial error: dial tcp 127.0.0.1:1: connect: connection refused", ClassConnection},
		{"FATAL: password authentication failed for user \"ripple\" (SQLSTATE 28P01)", ClassAuth},
		{"390100 (08004): Incorrect username or password was specified.", ClassAuth},
		{"googleapi: Error 401: Request had invalid authentication credentials.", ClassAuth},
		{"", ClassUnclassified},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			if got := Classify(errors.New(tt.msg)); got != tt.want {
				t.Errorf("Classify(%q) = %s, want %s", tt.msg, got, tt.want)
			}
		})
	}
}

func TestClassifyWrapped(t *testing.T) {
	if got := Classify(nil); got != ClassUnclassified {
		t.Errorf("nil: %s", got)
	}
	we := &Error{Class: ClassTableNotFound, Message: "gone"}
	if got := Classify(fmt.Errorf("diff: %w", we)); got != ClassTableNotFound {
		t.Errorf("wrapped *Error: %s", got)
	}
	if got := Classify(fmt.Errorf("q: %w", context.Canceled)); got != ClassCanceled {
		t.Errorf("canceled: %s", got)
	}
	base := errors.New("ERROR: permission denied for table x")
	err := NewError(base, "select 1")
	var got *Error
	if !errors.As(err, &got) || got.Class != ClassPermissionDenied || got.SQL != "select 1" || !errors.Is(err, base) {
		t.Fatalf("NewError = %#v", err)
	}
	if NewError(err, "other") != err {
		t.Error("NewError must pass an existing *Error through")
	}
	if NewError(nil, "") != nil {
		t.Error("NewError(nil) must be nil")
	}
	want := "ERROR: permission denied for table x (" + ClassPermissionDenied.Hint() + ")"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func TestCollect(t *testing.T) {
	rowsOf := func(n int) func() ([]any, bool, error) {
		i := 0
		return func() ([]any, bool, error) {
			if i >= n {
				return nil, false, nil
			}
			i++
			return []any{int64(i)}, true, nil
		}
	}
	tests := []struct {
		name      string
		n, limit  int
		wantRows  int
		wantMore  bool
		wantTotal int64 // -1 = nil
	}{
		{"under default", 5, 0, 5, false, 5},
		{"exactly at limit", 3, 3, 3, false, 3},
		{"over limit", 4, 3, 3, true, -1},
		{"default cap", DefaultRowLimit + 1, 0, DefaultRowLimit, true, -1},
		{"no cap", DefaultRowLimit + 1, -1, DefaultRowLimit + 1, false, DefaultRowLimit + 1},
		{"empty", 0, 0, 0, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Collect([]Column{{Name: "i", Type: "BIGINT"}}, QueryOptions{Limit: tt.limit}, rowsOf(tt.n))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != tt.wantRows || res.More != tt.wantMore {
				t.Errorf("rows=%d more=%v, want %d %v", len(res.Rows), res.More, tt.wantRows, tt.wantMore)
			}
			if tt.wantTotal < 0 && res.Total != nil || tt.wantTotal >= 0 && (res.Total == nil || *res.Total != tt.wantTotal) {
				t.Errorf("total = %v, want %d", res.Total, tt.wantTotal)
			}
		})
	}
	boom := errors.New("boom")
	if _, err := Collect(nil, QueryOptions{}, func() ([]any, bool, error) { return nil, false, boom }); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}

func TestNormalize(t *testing.T) {
	ts := time.Date(2024, 3, 5, 6, 7, 8, 123000000, time.FixedZone("x", 3600))
	tests := []struct {
		in   any
		kind Kind
		want any
	}{
		{nil, KindString, nil},
		{int32(7), KindInteger, int64(7)},
		{uint64(math.MaxUint64), KindInteger, json.Number("18446744073709551615")},
		{float32(1.5), KindFloat, 1.5},
		{math.Inf(-1), KindFloat, "-Infinity"},
		{Decimal{Unscaled: big.NewInt(1250), Scale: 2}, KindDecimal, json.Number("12.50")},
		{Decimal{Unscaled: big.NewInt(-5), Scale: 3}, KindDecimal, json.Number("-0.005")},
		{Decimal{Unscaled: big.NewInt(12), Scale: -2}, KindDecimal, json.Number("1200")},
		{ts, KindDate, "2024-03-05"},
		{ts, KindTimestamp, "2024-03-05T06:07:08.123"},
		{ts, KindTimestampTZ, "2024-03-05T05:07:08.123Z"},
		{ts, KindTime, "06:07:08.123"},
		{[]byte("hi"), KindString, "hi"},
		{[]byte{0xff}, KindOther, "/w=="},
		{[16]byte{0: 0x12, 15: 0x34}, KindString, "12000000-0000-0000-0000-000000000034"},
	}
	for _, tt := range tests {
		got := Normalize(tt.in, tt.kind)
		if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", tt.want) {
			t.Errorf("Normalize(%#v, %s) = %#v, want %#v", tt.in, tt.kind, got, tt.want)
		}
	}
}

// The seed's classification vectors (recce-spec §1.5), verbatim. The seed
// has three classes and None; Ripple's extra classes (connection, auth,
// canceled) are None there, which seedClass projects.
func TestClassifySeedVectors(t *testing.T) {
	seedClass := func(c ErrorClass) string {
		switch c {
		case ClassPermissionDenied, ClassTableNotFound, ClassSyntaxError:
			return string(c)
		}
		return ""
	}
	for msg, want := range map[string]string{
		"Object 'MY_TABLE' does not exist":                     "table_not_found",
		"42S02: table not found":                               "table_not_found",
		"42P01: relation does not exist":                       "table_not_found",
		"Catalog Error: Table with name foo does not exist!":   "table_not_found",
		"SQL access control error: Insufficient privileges":    "permission_denied",
		"Permission denied for table users":                    "permission_denied",
		"Not authorized to access object":                      "permission_denied",
		"SQL compilation error: syntax error":                  "syntax_error",
		"Parser Error: blah blah":                              "syntax_error",
		"Access denied: object does not exist":                 "permission_denied",
		"Table 'X' does not exist or not authorized.":          "permission_denied",
		"Schema 'X' does not exist or not authorized.":         "permission_denied",
		"Object 'X' does not exist or not authorized.":         "permission_denied",
		"Invalid query block 'db_staging'":                     "syntax_error",
		"View definition column count mismatch in MART_VISITS": "syntax_error",
		"invalid identifier 'DBT_VALID_FROM'":                  "syntax_error",
		"Model 'stg_orders' does not exist in base environment. Check that the model is in the manifest and catalog.": "table_not_found",
		"Connection refused":    "",
		"Internal server error": "",
	} {
		if got := seedClass(ClassifyMessage(msg)); got != want {
			t.Errorf("ClassifyMessage(%q) = %q (seed class %q), want %q", msg, ClassifyMessage(msg), got, want)
		}
	}
	if got := ClassifyMessage("Connection refused"); got != ClassConnection {
		t.Errorf("Connection refused = %s, want %s", got, ClassConnection)
	}
}

// Vendor codes classify through each warehouse's record, and win over the
// message; a code the record does not know falls back to the message.
func TestVendorError(t *testing.T) {
	tests := []struct {
		dialect, code, msg string
		want               ErrorClass
	}{
		{"snowflake", "002003", "SQL compilation error: Object 'X' does not exist or not authorized.", ClassPermissionDenied},
		{"snowflake", "390100", "Incorrect username or password was specified.", ClassAuth},
		{"snowflake", "000604", "SQL execution canceled", ClassCanceled},
		{"postgres", "42P01", `relation "x" does not exist`, ClassTableNotFound},
		{"postgres", "42703", `column "x" does not exist`, ClassSyntaxError},
		{"redshift", "0A000", "Specified types or functions not supported", ClassSyntaxError},
		{"bigquery", "accessDenied", "Access Denied: Table p:d.t", ClassPermissionDenied},
		{"bigquery", "notFound", "Not found: Table p:d.t was not found in location US", ClassTableNotFound},
		{"bigquery", "invalidQuery", "Syntax error: Unexpected identifier", ClassSyntaxError},
		{"databricks", "TABLE_OR_VIEW_NOT_FOUND", "[TABLE_OR_VIEW_NOT_FOUND] The table or view `x` cannot be found.", ClassTableNotFound},
		{"spark", "PARSE_SYNTAX_ERROR", "[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'", ClassSyntaxError},
		{"trino", "TABLE_NOT_FOUND", "line 1:15: Table 'memory.default.x' does not exist", ClassTableNotFound},
		{"trino", "COLUMN_NOT_FOUND", "line 1:8: Column 'x' cannot be resolved", ClassSyntaxError},
		{"trino", "NO_SUCH_CODE", "line 1:1: mismatched input 'SELEC'", ClassSyntaxError},
		{"nosuchwarehouse", "42P01", "boom", ClassUnclassified},
	}
	for _, tt := range tests {
		e := VendorError(tt.dialect, tt.code, tt.msg, "select 1", nil)
		if e.Class != tt.want || Classify(e) != tt.want || e.Code != tt.code {
			t.Errorf("%s %s: class %s, want %s", tt.dialect, tt.code, e.Class, tt.want)
		}
	}
}

// The classes the records may name are exactly this package's classes.
func TestRecordClassesAreErrorClasses(t *testing.T) {
	for _, c := range dialect.ErrorClasses() {
		if ErrorClass(c).Hint() == "" {
			t.Errorf("record class %q has no hint: not an ErrorClass", c)
		}
	}
}

// Typed network failures are connection errors even with an odd message.
func TestClassifyNetworkByType(t *testing.T) {
	_, err := net.Dial("tcp", "127.0.0.1:1")
	if err == nil {
		t.Skip("something listens on port 1")
	}
	if got := Classify(err); got != ClassConnection {
		t.Errorf("Classify(%v) = %s", err, got)
	}
	if got := Classify(&net.DNSError{Err: "odd", Name: "x.invalid"}); got != ClassConnection {
		t.Errorf("DNS error: %s", got)
	}
}
