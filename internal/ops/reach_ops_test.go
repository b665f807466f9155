package ops

import (
	"reflect"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/impact/impacttest"
)

const jaffle112 = "../../testdata/real/dbt_artifacts_parser_jaffle_shop/v12_duckdb_dbt1.12.0"

func reachedNames(rs []impact.Reached) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

// TestReachOfImpactAnalysisAndColumnImpact: the operations name the metrics
// and saved queries one column of the real dbt 1.12 jaffle shop reaches.
func TestReachOfImpactAnalysisAndColumnImpact(t *testing.T) {
	dir := impacttest.DeriveProject(t, jaffle112, "model.jaffle_shop.orders", "sum(supply_cost) as order_cost", "sum(supply_cost) * 2 as order_cost")
	s := NewSession(Config{Paths: dbt.Paths{ProjectDir: dir}}) // no warehouse configured
	t.Cleanup(func() { _ = s.Close() })

	r := callOp[impact.Result](t, s, "impact_analysis", map[string]any{})
	if got := reachedNames(r.ImpactedMetrics); !reflect.DeepEqual(got, []string{"order_cost", "order_gross_profit"}) {
		t.Errorf("impact_analysis metrics = %v", got)
	}
	if len(r.ImpactedSavedQueries) != 0 || r.NotImpactedMetricsCount != 12 || r.NotImpactedSavedQueriesCount != 2 {
		t.Errorf("saved queries %v, ruled out %d metrics %d saved queries; want none, 12, 2",
			reachedNames(r.ImpactedSavedQueries), r.NotImpactedMetricsCount, r.NotImpactedSavedQueriesCount)
	}

	tests := []struct {
		model   string
		columns []string
		metrics []string
	}{
		{"order_items", []string{"product_price"}, []string{"cumulative_revenue", "drink_revenue", "drink_revenue_pct", "food_revenue",
			"food_revenue_pct", "median_revenue", "order_gross_profit", "revenue", "revenue_growth_mom"}},
		// order_total feeds the metric of its name, large_orders' filter
		// dimension order_total_dim, and customers.lifetime_spend.
		{"orders", []string{"order_total"}, []string{"large_orders", "lifetime_spend", "order_total"}},
		{"locations", []string{"location_name"}, []string{}},
	}
	for _, tt := range tests {
		ci := callOp[ColumnImpactResult](t, s, "column_impact", map[string]any{"node_id": tt.model, "columns": tt.columns})
		if got := reachedNames(ci.ImpactedMetrics); !reflect.DeepEqual(got, tt.metrics) {
			t.Errorf("column_impact %s.%v metrics = %v, want %v", tt.model, tt.columns, got, tt.metrics)
		}
		if len(ci.ImpactedExposures) != 0 {
			t.Errorf("the project has no exposure: %+v", ci.ImpactedExposures)
		}
	}
}
