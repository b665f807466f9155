package dialect

import (
	"fmt"
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
		{"duckdb", "Customer_ID", "customer_id"},
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
			if got, ok := unquote(q, name == "bigquery"); !ok || got != s {
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
