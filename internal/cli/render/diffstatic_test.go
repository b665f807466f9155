package render

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/diff"
	"github.com/ripple-data/ripple/internal/golden"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/static"
)

// renderCases are real results of the demo project (`ripple demo`), saved
// with `ripple --project-dir D --duckdb D/jaffle_shop.duckdb <cmd> --json`
// under testdata/results; the command of each is its comment. Each renders
// to testdata/<name>.txt (rewrite with -update).
var renderCases = []struct {
	name, op string
	result   func() any
	o        Options
}{
	// row-count-diff
	{"row_count_diff", "row_count_diff", func() any { return new(diff.RowCountDiffResult) }, Options{}},
	// schema-diff
	{"schema_diff", "schema_diff", func() any { return new(diff.SchemaDiffResult) }, Options{}},
	// query --sql-template "select * from {{ ref('orders') }} order by order_id limit 60"
	{"query", "query", func() any { return new(diff.QueryResult) }, Options{}},
	{"query_limit5_width60", "query", func() any { return new(diff.QueryResult) }, Options{Width: 60, Limit: 5}},
	// query-diff --sql-template "select status, count(*) n from {{ ref('orders') }} group by 1 order by 1"
	{"query_diff", "query_diff", func() any { return new(diff.QueryDiffResult) }, Options{}},
	// query-diff --sql-template "select status, sum(amount) amount from {{ ref('orders') }} group by 1 order by 1"
	{"query_diff_changed", "query_diff", func() any { return new(diff.QueryDiffResult) }, Options{}},
	// --max-result-bytes 300 query-diff --sql-template "select order_id, status from {{ ref('orders') }} order by 1"
	{"query_diff_capped", "query_diff", func() any { return new(diff.QueryDiffResult) }, Options{}},
	// query-diff --sql-template "select order_id, amount from {{ ref('orders') }} where order_id <= 40" --primary-keys order_id
	{"query_diff_keys", "query_diff", func() any { return new(diff.QueryDiffResult) }, Options{Limit: 10}},
	// value-diff --model orders --primary-key order_id
	{"value_diff", "value_diff", func() any { return new(diff.ValueDiffResult) }, Options{}},
	// value-diff --model customers --primary-key customer_id
	{"value_diff_customers", "value_diff", func() any { return new(diff.ValueDiffResult) }, Options{}},
	// value-diff-detail --model orders --primary-key order_id --limit 60
	{"value_diff_detail", "value_diff_detail", func() any { return new(diff.ValueDiffDetailResult) }, Options{}},
	// profile-diff --model orders
	{"profile_diff", "profile_diff", func() any { return new(diff.ProfileDiffResult) }, Options{}},
	// profile-diff --model customers
	{"profile_diff_customers", "profile_diff", func() any { return new(diff.ProfileDiffResult) }, Options{Width: 140}},
	// profile-diff --model customer_segments (added: not in base)
	{"profile_diff_added", "profile_diff", func() any { return new(diff.ProfileDiffResult) }, Options{}},
	// top-k-diff --model orders --column-name status
	{"top_k_diff", "top_k_diff", func() any { return new(diff.TopKDiffResult) }, Options{}},
	// top-k-diff --model orders --column-name amount --k 5
	{"top_k_diff_amount", "top_k_diff", func() any { return new(diff.TopKDiffResult) }, Options{}},
	// histogram-diff --model orders --column-name amount --num-bins 5
	{"histogram_diff", "histogram_diff", func() any { return new(diff.HistogramDiffResult) }, Options{}},
	// histogram-diff --model orders --column-name order_date
	{"histogram_diff_date", "histogram_diff", func() any { return new(diff.HistogramDiffResult) }, Options{Width: 70}},
	// project-summary
	{"project_summary", "project_summary", func() any { return new(static.SummaryResult) }, Options{Width: 120}},
	// search --query customer_lifetime
	{"search", "search", func() any { return new(static.SearchResult) }, Options{}},
	// test-gaps --limit 8
	{"test_gaps", "test_gaps", func() any { return new(static.TestGapsResult) }, Options{Width: 120, Limit: 5}},
	// state-policies
	{"state_policies", "state_policies", func() any { return new(static.StatePoliciesResult) }, Options{}},
	// find-data "customer lifetime value"
	{"find_data", "find_data", func() any { return new(static.FindDataResult) }, Options{}},
	// describe-entity orders
	{"describe_entity", "describe_entity", func() any { return new(static.DescribeEntityResult) }, Options{Width: 120}},
	// plan-query --entities customers,orders
	{"plan_query", "plan_query", func() any { return new(static.PlanQueryResult) }, Options{}},
	// compare-observed --observed-file observed.csv (one edge static lineage has, one it lacks; see e2e TestCompareObserved)
	{"compare_observed", "compare_observed", func() any { return new(static.CompareObservedResult) }, Options{}},
	// openlineage-export --models orders
	{"openlineage_export", "openlineage_export", func() any { return new(static.OpenLineageResult) }, Options{Width: 120}},
}

func TestDiffAndStaticText(t *testing.T) {
	for _, tc := range renderCases {
		t.Run(tc.name, func(t *testing.T) {
			fixture, _, _ := strings.Cut(tc.name, "_limit") // variants share a result
			raw, err := os.ReadFile(filepath.Join("testdata", "results", fixture+".json"))
			if err != nil {
				t.Fatal(err)
			}
			out := tc.result()
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if err := dec.Decode(out); err != nil {
				t.Fatal(err)
			}
			if !Has(tc.op) {
				t.Fatalf("%s has no renderer of its own", tc.op)
			}
			var b bytes.Buffer
			if err := Text(&b, tc.op, out, tc.o); err != nil {
				t.Fatal(err)
			}
			text := b.String()
			if s := strings.TrimSpace(text); s == "" || s[0] == '{' || s[0] == '[' {
				t.Errorf("not human text:\n%s", text)
			}
			width := tc.o.width()
			for i, line := range strings.Split(text, "\n") {
				if n := len([]rune(line)); n > width {
					t.Errorf("line %d is %d runes wide, over the width %d: %q", i+1, n, width, line)
				}
			}
			golden.Assert(t, filepath.Join("testdata", tc.name+".txt"), b.Bytes())
		})
	}
}

func TestShareNeverRoundsAPartToWhole(t *testing.T) {
	for p, want := range map[float64]string{
		1: "100%", 0: "0%", 0.796: "79.6%", 0.5552: "55.5%", 0.99999: "99.999%", 0.999999: "99.9999%",
		0.00001: "0.001%", 0.0004: "0.04%", 0.18: "18%", 0.9995: "99.95%",
	} {
		if got := share(p); got != want {
			t.Errorf("share(%v) = %q, want %q", p, got, want)
		}
	}
}

func TestGroupKeepsEveryDigit(t *testing.T) {
	for in, want := range map[string]string{
		"220122.00": "220,122.00", "6016": "6,016", "-1234567.5": "-1,234,567.5", "999": "999", "1e+06": "1e+06", "abc": "abc",
	} {
		if got := group(in); got != want {
			t.Errorf("group(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSigPairShowsTheDifference(t *testing.T) {
	for _, tc := range []struct {
		a, b         float64
		wantA, wantB string
	}{
		{202.32591768631812, 203.67872636262467, "202.326", "203.679"},
		{1000000.1, 1000000.2, "1,000,000.1", "1,000,000.2"},
		{0.1234567, 0.1234568, "0.1234567", "0.1234568"},
	} {
		a, b := sigPair(tc.a, tc.b)
		if a != tc.wantA || b != tc.wantB {
			t.Errorf("sigPair(%v, %v) = %q, %q, want %q, %q", tc.a, tc.b, a, b, tc.wantA, tc.wantB)
		}
	}
}

// TestGenericWrapsAndTables renders a real result (column lineage of a
// query, computed here) with the generic fallback, and a made-up record
// with a long value, at a narrow width.
func TestGenericWrapsAndTables(t *testing.T) {
	lin, err := ops.SQLLineage(ops.SQLLineageInput{Dialect: "duckdb",
		SQL:    `select o.order_id, sum(p.amount) as paid from orders o join payments p on p.order_id = o.order_id where o.amount > 0 group by o.order_id`,
		Schema: map[string]map[string]string{"orders": {"order_id": "int", "amount": "decimal"}, "payments": {"order_id": "int", "amount": "decimal"}}})
	if err != nil {
		t.Fatal(err)
	}
	type hit struct {
		Name  string `json:"name"`
		Count int64  `json:"count"`
	}
	record := struct {
		Note  string `json:"note"`
		Hits  []hit  `json:"hits"`
		Empty []hit  `json:"empty,omitempty"`
	}{
		Note: "a long explanation that cannot fit on one line of a narrow terminal, so it wraps under its name",
		Hits: []hit{{"orders", 10000}, {"customers", 2000}, {"stg_payments", 12029}},
	}
	var b bytes.Buffer
	for _, v := range []any{lin, &record} {
		if err := Generic(&b, v, Options{Width: 50, Limit: 2}); err != nil {
			t.Fatal(err)
		}
		b.WriteString("---\n")
	}
	for i, line := range strings.Split(b.String(), "\n") {
		if n := len([]rune(line)); n > 50 {
			t.Errorf("line %d is %d runes wide, over 50: %q", i+1, n, line)
		}
	}
	golden.Assert(t, filepath.Join("testdata", "generic.txt"), b.Bytes())
}
