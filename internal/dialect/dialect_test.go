package dialect

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/golden"
)

// render exercises every Dialect method with inputs chosen to hit escaping
// edge cases, one labelled line per call, so a golden diff shows exactly
// which SQL changed.
func render(d Dialect) string {
	var b strings.Builder
	line := func(label, out string) { fmt.Fprintf(&b, "%s: %s\n", label, out) }
	line("Name", d.Name())
	for _, id := range []string{"orders", "Order Items", `we"ird`, "back`tick", `back\slash`, ""} {
		line(fmt.Sprintf("QuoteIdent(%q)", id), d.QuoteIdent(id))
	}
	line(`QuoteRelation("db","main","orders")`, d.QuoteRelation("db", "main", "orders"))
	line(`QuoteRelation("","main","orders")`, d.QuoteRelation("", "main", "orders"))
	line(`QuoteRelation("","","orders")`, d.QuoteRelation("", "", "orders"))
	line(`QuoteRelation("my-project","Sales","Fct Orders")`, d.QuoteRelation("my-project", "Sales", "Fct Orders"))
	for _, id := range []string{"orders", "Customer_ID", "MiXeD"} {
		line(fmt.Sprintf("FoldIdent(%q)", id), d.FoldIdent(id))
	}
	for _, s := range []string{"plain", "it's", `C:\path`, "two\nlines", `\'; DROP TABLE x; --`, ""} {
		line(fmt.Sprintf("StringLiteral(%q)", s), d.StringLiteral(s))
	}
	line(`CastToString("amount")`, d.CastToString(`"amount"`))
	line(`CastToFloat("amount")`, d.CastToFloat(`"amount"`))
	line(`CastToBigInt("amount")`, d.CastToBigInt(`"amount"`))
	line("Distinct(a,b)", d.Distinct("a", "b"))
	line("NotDistinct(a,b)", d.NotDistinct("a", "b"))
	line("CountIf(a > 1)", d.CountIf("a > 1"))
	line("Except()", d.Except())
	for _, typ := range []string{"NUMBER(38,0)", "NUMBER(10,2)", "TIMESTAMP", "DATETIME", "INT64", "STRING", "FIXED", "VARIANT", "timestamp(3) with time zone", "array<int>"} {
		line(fmt.Sprintf("KindOf(%q)", typ), string(d.KindOf(typ)))
	}
	line("HashRow()", d.HashRow(nil))
	line("HashRow(a)", d.HashRow([]string{"a"}))
	line("HashRow(a,b,c)", d.HashRow([]string{"a", "b", "c"}))
	line("Median(x)", d.Median("x"))
	for _, p := range []float64{0, 0.25, 0.5, 0.95, 1, 1.5, -1} {
		line(fmt.Sprintf("Percentile(x,%g)", p), d.Percentile("x", p))
	}
	for _, u := range []string{"day", "MONTH", "week", "year'); drop"} {
		line(fmt.Sprintf("DateTrunc(%q,ts)", u), d.DateTrunc(u, "ts"))
	}
	line("Limit(select,10)", d.Limit("select * from t", 10))
	line("Limit(select;,0)", d.Limit("select * from t;\n", 0))
	line("Limit(comment,5)", d.Limit("select 1 -- trailing comment", 5))
	line("Limit(select,-1)", d.Limit("select * from t", -1))
	return b.String()
}

func TestGolden(t *testing.T) {
	for _, name := range Supported() {
		t.Run(name, func(t *testing.T) {
			d, err := ForAdapter(name)
			if err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, filepath.Join("testdata", name+".golden"), []byte(render(d)))
		})
	}
}

func TestForAdapter(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "duckdb", want: "duckdb"},
		{in: " Postgres ", want: "postgres"},
		{in: "postgresql", want: "postgres"},
		{in: "SNOWFLAKE", want: "snowflake"},
		{in: "spark", want: "spark"},
		{in: "hive", want: "spark"},
		{in: "starburst", want: "trino"},
		{in: "oracle", wantErr: "unsupported adapter type \"oracle\": supported types are bigquery, databricks, duckdb, postgres, redshift, snowflake, spark, trino"},
		{in: "", wantErr: "unsupported adapter type \"\""},
	}
	for _, tt := range tests {
		d, err := ForAdapter(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ForAdapter(%q) error = %v, want containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ForAdapter(%q): %v", tt.in, err)
			continue
		}
		if d.Name() != tt.want {
			t.Errorf("ForAdapter(%q).Name() = %q, want %q", tt.in, d.Name(), tt.want)
		}
	}
}

func TestFoldIdent(t *testing.T) {
	tests := []struct{ adapter, in, want string }{
		{"snowflake", "customer_id", "CUSTOMER_ID"},
		{"postgres", "Customer_ID", "customer_id"},
		// DuckDB keeps identifiers as written and matches them case-insensitively.
		{"duckdb", "Customer_ID", "Customer_ID"},
		{"redshift", "Customer_ID", "customer_id"},
		{"trino", "Customer_ID", "customer_id"},
		{"databricks", "Customer_ID", "Customer_ID"},
		{"bigquery", "Customer_ID", "Customer_ID"},
	}
	for _, tt := range tests {
		d, _ := ForAdapter(tt.adapter)
		if got := d.FoldIdent(tt.in); got != tt.want {
			t.Errorf("%s FoldIdent(%q) = %q, want %q", tt.adapter, tt.in, got, tt.want)
		}
	}
}

func FuzzQuoteIdent(f *testing.F) {
	for _, s := range []string{"a", `"`, "`", `\`, "a\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, name := range Supported() {
			d, _ := ForAdapter(name)
			q := d.QuoteIdent(s)
			if got, ok := unquote(q, d.Record().Identifiers.Escape == "backslash"); !ok || got != s {
				t.Fatalf("%s: QuoteIdent(%q) = %q does not read back (got %q, ok=%v)", name, s, q, got, ok)
			}
		}
	})
}

// unquote reads a quoted identifier the way the engine's lexer would, and
// fails if the quote closes early.
func unquote(q string, backslash bool) (string, bool) {
	if len(q) < 2 || q[0] != q[len(q)-1] {
		return "", false
	}
	quote, inner := q[0], q[1:len(q)-1]
	var b strings.Builder
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		switch {
		case backslash && c == '\\':
			if i+1 >= len(inner) {
				return "", false
			}
			i++
			switch inner[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(inner[i])
			}
		case c == quote:
			if backslash || i+1 >= len(inner) || inner[i+1] != quote {
				return "", false
			}
			i++
			b.WriteByte(quote)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		adapter, typ string
		want         Kind
	}{
		{"", "INTEGER", KindInteger}, {"", "int4", KindInteger}, {"", "BIGINT", KindInteger}, {"", "INT64", KindInteger},
		{"", "DECIMAL(10,2)", KindDecimal}, {"", "numeric", KindDecimal}, {"", "NUMBER(10,2)", KindDecimal}, {"", "NUMBER(38,0)", KindInteger},
		{"", "character varying(20)", KindString}, {"", "VARCHAR", KindString}, {"", "TEXT", KindString}, {"", "STRING", KindString},
		{"", "timestamp with time zone", KindTimestampTZ}, {"", "TIMESTAMP", KindTimestamp}, {"", "TIMESTAMP_NTZ(9)", KindTimestamp},
		{"", "DATETIME", KindTimestamp}, {"", "date", KindDate}, {"", "BOOLEAN", KindBoolean}, {"", "double precision", KindFloat},
		{"", "FLOAT64", KindFloat}, {"", "INTEGER[]", KindOther}, {"", "STRUCT(a INTEGER)", KindOther}, {"", "VARIANT", KindOther},
		{"", "ENUM('a', 'b')", KindString}, {"", "time", KindTime},
		{"snowflake", "NUMBER(38,0)", KindInteger}, {"snowflake", "NUMBER", KindInteger}, {"snowflake", "NUMBER(10,2)", KindDecimal},
		{"snowflake", "TIMESTAMP_LTZ", KindTimestampTZ}, {"snowflake", "DECIMAL(38,0)", KindDecimal},
		{"bigquery", "TIMESTAMP", KindTimestampTZ}, {"bigquery", "DATETIME", KindTimestamp}, {"bigquery", "RECORD", KindOther},
		{"databricks", "TIMESTAMP", KindTimestampTZ}, {"databricks", "TIMESTAMP_NTZ", KindTimestamp}, {"databricks", "array<int>", KindOther},
		{"spark", "BYTE", KindInteger},
		{"trino", "timestamp(3) with time zone", KindTimestampTZ}, {"trino", "varchar(20)", KindString}, {"trino", "row(a integer)", KindOther},
		{"postgres", "timestamptz", KindTimestampTZ}, {"redshift", "super", KindOther},
	}
	for _, tt := range tests {
		got := KindOf(tt.typ)
		if tt.adapter != "" {
			got = Must(tt.adapter).KindOf(tt.typ)
		}
		if got != tt.want {
			t.Errorf("%s KindOf(%q) = %s, want %s", tt.adapter, tt.typ, got, tt.want)
		}
	}
}

// Every record decodes strictly, names itself after its file, and the
// inheritance (spark from databricks) keeps the base untouched.
func TestRecords(t *testing.T) {
	recs, err := decodeRecords(records)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(Supported(), ","), "bigquery,databricks,duckdb,postgres,redshift,snowflake,spark,trino"; got != want {
		t.Errorf("Supported() = %s, want %s", got, want)
	}
	if recs["spark"].SQL != recs["databricks"].SQL || recs["spark"].Name != "spark" || len(recs["databricks"].Aliases) != 0 {
		t.Errorf("spark must inherit databricks' SQL: %+v", recs["spark"])
	}
	for _, name := range Supported() {
		r, _ := Lookup(name)
		if r.Identifiers.Fold == FoldUpper && r.Identifiers.CaseInsensitive {
			t.Errorf("%s: an upper-folding warehouse with case-insensitive quoted names is not one Ripple knows", name)
		}
	}
	// A caller cannot change the shared record.
	r, _ := Lookup("snowflake")
	r.Errors.Codes["002003"] = "syntax_error"
	if Must("snowflake").ErrorClass("002003") != "permission_denied" {
		t.Error("Lookup returned the shared record, not a copy")
	}
}

// The SQL front end imports this package, so it must stay free of anything
// but the standard library.
func TestOnlyStandardLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/ripple-data/ripple/internal/dialect" {
			t.Errorf("internal/dialect depends on %s", p)
		}
	}
}

// TestEveryRecordReservesWords: each warehouse record carries its engine's
// reserved words with their source (issue #26), and its cast naming rule.
func TestEveryRecordReservesWords(t *testing.T) {
	for _, name := range Supported() {
		r, _ := Lookup(name)
		if len(r.Names.Reserved) < 15 || !strings.Contains(r.Names.Doc, "http") {
			t.Errorf("%s: %d reserved words, doc %q", name, len(r.Names.Reserved), r.Names.Doc)
		}
		for _, core := range []string{"FROM", "ON", "JOIN", "UNION"} {
			if !contains(r.Names.Reserved, core) && name != "databricks" && name != "spark" {
				t.Errorf("%s does not reserve %s", name, core)
			}
		}
		if r.Names.CastOutput == "" {
			t.Errorf("%s: no names.cast_output", name)
		}
	}
}
