package render

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/demo"
	"github.com/ripple-data/ripple/internal/diff"
	"github.com/ripple-data/ripple/internal/golden"
	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/duckdb"
)

// demoCalls are the operations of this package's families, called on the
// demo project in this order (the check calls build on each other).
var demoCalls = []struct {
	golden, op, input string
}{
	{"impact_analysis", "impact_analysis", `{}`},
	{"impact_analysis_full", "impact_analysis", `{"detail":"full"}`},
	{"render_lineage_mermaid", "render_lineage_mermaid", `{}`},
	{"render_lineage_mermaid_capped", "render_lineage_mermaid", `{"max_chars":700}`},
	{"summary", "summary", `{}`},
	{"lineage_diff", "lineage_diff", `{}`},
	{"select_nodes", "select_nodes", `{"select":"state:modified+"}`},
	{"lineage", "lineage", `{"focus":["customers"]}`},
	{"get_node", "get_node", `{"node_id":"customers"}`},
	{"list_opaque", "list_opaque", `{}`},
	{"get_model", "get_model", `{"model_id":"customers"}`},
	{"get_model_added", "get_model", `{"model_id":"customer_segments"}`},
	{"get_cll", "get_cll", `{"node_id":"stg_payments"}`},
	{"get_cll_change", "get_cll", `{}`},
	{"analyze_model", "analyze_model", `{"model_id":"customers"}`},
	{"column_impact", "column_impact", `{"node_id":"stg_payments","columns":["amount"]}`},
	{"list_checks_empty", "list_checks", `{}`},
	{"create_check", "create_check", `{"type":"row_count_diff","name":"Row counts","params":{"node_names":["customers","orders"]}}`},
	{"create_check_unrun", "create_check", `{"type":"schema_diff","name":"Schema","params":{"select":"customers"},"run":false}`},
	{"run_check", "run_check", `{"check_id":"$1"}`},
	{"approve_check_off", "approve_check", `{"check_id":"$1","approved":false}`},
	{"reorder_check", "reorder_check", `{"check_id":"$1","index":0}`},
	{"list_checks", "list_checks", `{}`},
	{"delete_check", "delete_check", `{"check_id":"$1"}`},
}

// ids and durations differ from run to run; the goldens show placeholders.
var (
	uuidRE     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	durationRE = regexp.MustCompile(`in [0-9.]+(µs|ms|s)\b`)
	timeRE     = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
)

// TestFamiliesOnDemo renders every operation of the lineage, impact,
// checks, model and cll families from its real result on the demo project.
func TestFamiliesOnDemo(t *testing.T) {
	ctx := context.Background()
	built, err := demo.Build(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := ops.NewSession(ops.Config{
		Paths:     built.Paths,
		StatePath: filepath.Join(t.TempDir(), "state.json"),
		OpenWarehouse: func(ctx context.Context, _ *dbt.Project) (warehouse.Conn, error) {
			return duckdb.Open(ctx, duckdb.Options{Path: built.DBPath, ReadOnly: true, Catalog: built.Database})
		},
	})
	t.Cleanup(func() { s.Close() })
	reg := ops.Default()
	var schemaCheck string
	for _, c := range demoCalls {
		t.Run(c.golden, func(t *testing.T) {
			op, ok := reg.Get(c.op)
			if !ok {
				t.Fatalf("no operation %s", c.op)
			}
			if !Has(c.op) {
				t.Fatalf("%s has no renderer of its own", c.op)
			}
			out, err := op.CallJSON(ctx, s, json.RawMessage(strings.ReplaceAll(c.input, "$1", schemaCheck)))
			if err != nil {
				t.Fatal(err)
			}
			if cr, ok := out.(*ops.CreateCheckResult); ok && c.golden == "create_check_unrun" {
				schemaCheck = cr.CheckID
			}
			var b bytes.Buffer
			if err := Text(&b, c.op, out, Options{Width: 100}); err != nil {
				t.Fatal(err)
			}
			got := uuidRE.ReplaceAllString(b.String(), "<id>")
			got = timeRE.ReplaceAllString(durationRE.ReplaceAllString(got, "in <duration>"), "<time>")
			golden.Assert(t, filepath.Join("testdata", c.golden+".golden.txt"), []byte(got))
		})
	}
}

// TestImpactTextEdgeCases renders what the demo does not have: failed
// steps, a small row change on a large table, a missing count, a
// potential model and a narrow terminal with a row limit.
func TestImpactTextEdgeCases(t *testing.T) {
	i64 := func(n int64) *int64 { return &n }
	f64 := func(f float64) *float64 { return &f }
	str := func(s string) *string { return &s }
	res := &impact.Result{
		ClassificationSource: "lineage_dag",
		ModifiedCount:        3, DownstreamCount: 2, MaxAffectedRowCount: 3,
		ConfirmedImpactedModels: []*impact.Model{
			{Name: "big_table", ChangeStatus: str("modified"), ChangeCategory: "breaking", DataImpact: impact.Confirmed,
				RowCount:           &impact.RowCount{Base: i64(1_000_000), Current: i64(1_000_003), Delta: i64(3), DeltaPct: f64(0)},
				CodeChangedColumns: []string{"amount"}, RowSetChanged: true,
				SchemaChanges: []impact.SchemaChange{{Column: "amount", ChangeStatus: "modified", BaseType: "INTEGER", CurrentType: "DECIMAL(18,2)"}},
				PrimaryKey:    []string{"id"}, KeySource: impact.KeyFromName,
				ValueDiff: &impact.ValueDiff{RowsAdded: 3, RowsChanged: 1_234, AffectedRowCount: 1_237}, AffectedRowCount: i64(1_237),
				VerdictBasis: impact.BasisValueDiff},
			{Name: "lost", ChangeStatus: str("modified"), DataImpact: impact.Potential,
				RowCount:         &impact.RowCount{Base: i64(10), CurrentStatus: "table_not_found"},
				ValueDiffSkipped: "the current table is missing: run dbt build",
				Warning:          "base and current are the same relation"},
			{Name: "downstream_view", DataImpact: impact.Potential, Materialized: "view",
				RowCount:   &impact.RowCount{Base: i64(5), Current: i64(4), Delta: i64(-1), DeltaPct: f64(-20)},
				NextAction: &impact.NextAction{Tool: "query_diff", Priority: "low", Columns: []string{"a", "b", "c", "d"}}},
		},
		ConfirmedNotImpactedModels: []string{"x"},
		SchemaCoverage:             diff.SchemaCoverage{Status: "partial", UncheckedNodeCount: 1},
		Errors: []impact.StepError{
			{Step: "row_count_diff", Model: "lost", Message: "table_not_found: current.lost does not exist"},
			{Step: "schema_diff", Message: "catalog.json of the base build has no columns"},
		},
	}
	for _, tc := range []struct {
		name string
		o    Options
	}{{"impact_edge_cases", Options{Width: 100}}, {"impact_edge_cases_narrow", Options{Width: 60, Limit: 2}}} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, "impact_analysis", res, tc.o); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, filepath.Join("testdata", tc.name+".golden.txt"), b.Bytes())
		})
	}
}

// TestOtherEdgeCases renders results the demo cannot produce: opaque
// models, a change that impacts nothing, a long selection over the limit.
func TestOtherEdgeCases(t *testing.T) {
	many := &ops.SelectResult{}
	for i := range 7 {
		many.Nodes = append(many.Nodes, "model.p.m"+string(rune('a'+i)))
	}
	for _, tc := range []struct {
		name, op string
		out      any
		o        Options
	}{
		{"list_opaque_some", "list_opaque", &ops.OpaqueResult{Total: 2, Share: 0.00004, Models: []ops.OpaqueModel{
			{Node: "model.p.py_model", Reason: "Python model", Reads: []string{"model.p.stg", "source.p.raw.events"}},
			{Node: "model.p.star", Reason: "star over unknown columns", Reads: []string{"model.p.stg"}},
		}}, Options{}},
		{"impact_nothing", "impact_analysis", &impact.Result{ClassificationSource: "column_lineage", ConfirmedNotImpactedModels: []string{"a", "b"}}, Options{}},
		{"select_nodes_limited", "select_nodes", many, Options{Limit: 5}},
		{"select_nodes_none", "select_nodes", &ops.SelectResult{Nodes: []string{}}, Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, tc.op, tc.out, tc.o); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, filepath.Join("testdata", tc.name+".golden.txt"), b.Bytes())
		})
	}
}
