package impact_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/diff"
	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/selector"
)

const (
	jaffle112 = "../../testdata/real/dbt_artifacts_parser_jaffle_shop/v12_duckdb_dbt1.12.0"
	coreState = "../../testdata/real/dbt_core_state/v12"
)

// derivedProject loads dir as the base build and, as the current build, the
// same artifacts with one model's SQL edited (old replaced by new in its
// compiled and raw code, and a new checksum): a pull request changing one
// column.
func derivedProject(t *testing.T, dir, model, old, new string) *dbt.Project {
	t.Helper()
	ctx := context.Background()
	base, err := dbt.LoadEnv(ctx, dir, "base", "dbt docs generate")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := dbt.LoadEnv(ctx, dir, "current", "dbt docs generate")
	if err != nil {
		t.Fatal(err)
	}
	n, ok := cur.Manifest.Nodes[model]
	if !ok {
		t.Fatalf("%s is not in %s", model, dir)
	}
	// As impacttest.DeriveProject: a comment alone would be cosmetic.
	switch {
	case old == "":
	case strings.Contains(n.CompiledCode, old):
		n.CompiledCode = strings.Replace(n.CompiledCode, old, new, 1)
	case n.CompiledCode == "" && strings.Contains(n.RawCode, old):
		n.RawCode = strings.Replace(n.RawCode, old, new, 1)
	default:
		t.Fatalf("%s's SQL has no %q", model, old)
	}
	n.RawCode += "\n-- changed"
	n.Checksum.Checksum = "changed-" + n.Checksum.Checksum
	return &dbt.Project{Base: base, Current: cur}
}

func analyzeOffline(t *testing.T, p *dbt.Project) *impact.Result {
	t.Helper()
	ctx := context.Background()
	cmp := lineage.Compare(p)
	cur, err := cll.AnalyzeProject(ctx, p.Current, nil)
	if err != nil {
		t.Fatal(err)
	}
	base, err := cll.AnalyzeProject(ctx, p.Base, nil)
	if err != nil {
		t.Fatal(err)
	}
	deps := impact.Deps{
		Comparison: cmp,
		Select: func(sel string) ([]string, error) {
			return selector.Select(cmp.Graph, cmp.State, p.Current.Manifest.Metadata.ProjectName, selector.Options{Select: sel})
		},
		Diff:         diff.Env{Project: p},
		Lineage:      &impact.Lineage{Base: base, Current: cur},
		WarehouseErr: errors.New("no warehouse in this test"),
	}
	res, err := impact.Analyze(ctx, deps, impact.Input{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func names(rs []impact.Reached) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

func TestReachOfOneColumnOfTheDbt112JaffleShop(t *testing.T) {
	tests := []struct {
		name, model, old, new string
		metrics               []string
		savedQueries          []string
		semanticModels        []string
		notMetrics, notSQ     int
		notSM                 int
		via                   []string
		unitTest              string
		uncovered             []string
	}{
		{
			name: "orders.order_cost", model: "model.jaffle_shop.orders",
			old: "sum(supply_cost) as order_cost", new: "sum(supply_cost) * 2 as order_cost",
			metrics:        []string{"order_cost", "order_gross_profit"},
			savedQueries:   []string{},
			semanticModels: []string{"orders"},
			// Downstream of orders in the DAG: 14 metrics (8 on orders, 4 on
			// customers, average_order_value, order_gross_profit), the saved
			// queries customer_order_metrics and order_metrics, the semantic
			// models orders and customers.
			notMetrics: 12, notSQ: 2, notSM: 1,
			via:      []string{"orders.order_cost"},
			unitTest: "test_order_items_compute_to_bools_correctly", uncovered: []string{"order_cost"},
		},
		{
			name: "order_items.product_price", model: "model.jaffle_shop.order_items",
			old: "products.product_price,", new: "products.product_price * 2 as product_price,",
			metrics: []string{"cumulative_revenue", "drink_revenue", "drink_revenue_pct", "food_revenue", "food_revenue_pct",
				"median_revenue", "order_gross_profit", "revenue", "revenue_growth_mom"},
			savedQueries:   []string{"revenue_metrics"},
			semanticModels: []string{"order_items"},
			// Downstream of order_items: all 22 metrics but average_tax_rate,
			// all 3 saved queries, the semantic models order_items, orders
			// and customers.
			notMetrics: 13, notSQ: 2, notSM: 2,
			via:      []string{"order_items.product_price"},
			unitTest: "test_supply_costs_sum_correctly", uncovered: []string{"product_price"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := analyzeOffline(t, derivedProject(t, jaffle112, tt.model, tt.old, tt.new))
			if res.ClassificationSource != "column_lineage" {
				t.Fatalf("classification_source = %s", res.ClassificationSource)
			}
			if got := names(res.ImpactedMetrics); !reflect.DeepEqual(got, tt.metrics) {
				t.Errorf("impacted metrics = %v, want %v", got, tt.metrics)
			}
			if got := names(res.ImpactedSavedQueries); !reflect.DeepEqual(got, tt.savedQueries) {
				t.Errorf("impacted saved queries = %v, want %v", got, tt.savedQueries)
			}
			if got := names(res.ImpactedSemanticModels); !reflect.DeepEqual(got, tt.semanticModels) {
				t.Errorf("impacted semantic models = %v, want %v", got, tt.semanticModels)
			}
			for _, r := range append(append(res.ImpactedMetrics, res.ImpactedSavedQueries...), res.ImpactedSemanticModels...) {
				if !reflect.DeepEqual(r.Via, tt.via) || r.Basis != impact.ReachColumnLineage {
					t.Errorf("%s: via %v basis %s, want %v column_lineage", r.Name, r.Via, r.Basis, tt.via)
				}
			}
			if res.NotImpactedMetricsCount != tt.notMetrics || res.NotImpactedSavedQueriesCount != tt.notSQ || res.NotImpactedSemanticModelsCount != tt.notSM || res.NotImpactedExposuresCount != 0 {
				t.Errorf("ruled out: %d metrics, %d saved queries, %d semantic models, %d exposures; want %d, %d, %d, 0",
					res.NotImpactedMetricsCount, res.NotImpactedSavedQueriesCount, res.NotImpactedSemanticModelsCount, res.NotImpactedExposuresCount, tt.notMetrics, tt.notSQ, tt.notSM)
			}
			if len(res.ImpactedExposures) != 0 {
				t.Errorf("the project has no exposure, got %+v", res.ImpactedExposures)
			}
			// The build's run_results hold no unit test result: none ran.
			if len(res.UnitTests) != 1 || len(res.UnitTests[0].UnitTests) != 1 || res.UnitTests[0].UnitTests[0].Name != tt.unitTest ||
				res.UnitTests[0].UnitTests[0].Ran || res.UnitTests[0].UnitTests[0].Passed || !reflect.DeepEqual(res.UnitTests[0].UncoveredChangedColumns, tt.uncovered) {
				t.Errorf("unit tests = %+v, want %s not run, %v uncovered", res.UnitTests, tt.unitTest, tt.uncovered)
			}
		})
	}
}

func TestReachOfAnInputMetric(t *testing.T) {
	res := analyzeOffline(t, derivedProject(t, jaffle112, "model.jaffle_shop.order_items",
		"products.product_price,", "products.product_price * 2 as product_price,"))
	want := map[string][]string{
		"revenue":            {"order_items.product_price"},
		"food_revenue":       {"order_items.product_price"},
		"food_revenue_pct":   {"metric food_revenue", "metric revenue"},
		"cumulative_revenue": {"metric revenue"},
	}
	for _, r := range res.ImpactedMetrics {
		if w, ok := want[r.Name]; ok && !reflect.DeepEqual(r.Reads, w) {
			t.Errorf("%s reads %v, want %v", r.Name, r.Reads, w)
		}
	}
	if got := res.ImpactedSavedQueries[0].Reads; !reflect.DeepEqual(got, []string{"metric revenue", "metric food_revenue", "metric drink_revenue"}) {
		t.Errorf("revenue_metrics reads %v", got)
	}
}

func TestReachOfAnExposureWithoutColumnLineage(t *testing.T) {
	// dbt-core's state fixture is parse-only (no compiled SQL): column
	// lineage cannot read my_model, so the DAG decides and says so.
	res := analyzeOffline(t, derivedProject(t, coreState, "model.test.my_model", "select 1 as id", "select 2 as id"))
	want := []impact.ReachedExposure{{Name: "simple_exposure", UniqueID: "exposure.test.simple_exposure", Via: []string{"my_model.*"},
		Severity: impact.SeverityCritical, Basis: impact.ReachDAG, Reads: []string{"model my_model"}, Type: "dashboard", Owner: "<something@example.com>"}}
	if !reflect.DeepEqual(res.ImpactedExposures, want) {
		t.Errorf("impacted exposures = %+v\nwant %+v", res.ImpactedExposures, want)
	}
	if got := names(res.ImpactedMetrics); !reflect.DeepEqual(got, []string{"blue_customers_post_2010", "customers", "doubled_blue_customers", "ratio_of_blue_customers_to_red_customers"}) {
		t.Errorf("impacted metrics = %v", got)
	}
	for _, r := range res.ImpactedMetrics {
		if r.Basis != impact.ReachDAG || r.Severity != impact.SeverityHigh {
			t.Errorf("%s: basis %s severity %s", r.Name, r.Basis, r.Severity)
		}
	}
	if got := names(res.ImpactedSemanticModels); !reflect.DeepEqual(got, []string{"semantic_people"}) {
		t.Errorf("impacted semantic models = %v", got)
	}
	if res.NotImpactedExposuresCount != 0 || res.NotImpactedMetricsCount != 0 {
		t.Errorf("ruled out %d exposures, %d metrics; want 0, 0", res.NotImpactedExposuresCount, res.NotImpactedMetricsCount)
	}
}

func TestReachOfAnUnchangedProjectIsEmpty(t *testing.T) {
	ctx := context.Background()
	env, err := dbt.LoadEnv(ctx, jaffle112, "current", "dbt docs generate")
	if err != nil {
		t.Fatal(err)
	}
	res := analyzeOffline(t, &dbt.Project{Base: env, Current: env})
	if len(res.ImpactedMetrics)+len(res.ImpactedExposures)+len(res.ImpactedSavedQueries)+len(res.ImpactedSemanticModels)+len(res.UnitTests) != 0 ||
		res.NotImpactedMetricsCount != 0 {
		t.Errorf("nothing changed, yet: %+v", res.Reach)
	}
}

func TestSummaryOpensWithWhoIsAffected(t *testing.T) {
	p := derivedProject(t, coreState, "model.test.my_model", "select 1 as id", "select 2 as id")
	res := analyzeOffline(t, p)
	md := impact.Markdown(impact.SummaryInput{Comparison: lineage.Compare(p), Impact: res})
	want := "## Who is affected\n\n" +
		"**Exposures**: 1 impacted\n\n" +
		"- simple_exposure (dashboard), owner <something@example.com> ← my_model.* _(model lineage: column lineage cannot read a parent)_\n\n" +
		"**Metrics**: 4 impacted\n\n"
	i := strings.Index(md, "## Who is affected")
	if i < 0 || !strings.HasPrefix(md[i:], want) {
		t.Fatalf("summary does not open with who is affected:\n%s", md)
	}
	if j := strings.Index(md, "| | base | current |"); j < i {
		t.Errorf("who is affected must come before the artifact table")
	}

	// A project with no semantic layer downstream keeps its summary as before.
	env := p.Base
	same := analyzeOffline(t, &dbt.Project{Base: env, Current: env})
	if got := impact.WhoIsAffected(same); got != "" {
		t.Errorf("nothing changed, yet: %q", got)
	}
}
