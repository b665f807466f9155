package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/impact/impacttest"
	"github.com/ripple-data/ripple/internal/ops"
)

// TestImpactAnalysisReachOverMCP: impact_analysis over the protocol names
// the metrics, saved queries and exposures a one-column change reaches, on
// the real dbt 1.12 jaffle shop and dbt-core's state fixture (no warehouse:
// classification and reach need only the artifacts).
func TestImpactAnalysisReachOverMCP(t *testing.T) {
	type reached struct {
		Name     string   `json:"name"`
		Via      []string `json:"via"`
		Severity string   `json:"severity"`
		Basis    string   `json:"basis"`
		Owner    string   `json:"owner"`
	}
	type result struct {
		Exposures      []reached `json:"impacted_exposures"`
		Metrics        []reached `json:"impacted_metrics"`
		SavedQueries   []reached `json:"impacted_saved_queries"`
		SemanticModels []reached `json:"impacted_semantic_models"`
		NotMetrics     int       `json:"not_impacted_metrics_count"`
		UnitTests      []struct {
			Model     string   `json:"model"`
			Uncovered []string `json:"uncovered_changed_columns"`
		} `json:"unit_tests"`
	}
	tests := []struct {
		name, src, model, old, new string
		exposures, metrics, sqs    []string
		notMetrics                 int
		owner, basis               string
		unitTests                  string // model, then its changed columns no unit test covers
	}{
		{name: "jaffle shop 1.12, order_items.product_price", src: "../../testdata/real/dbt_artifacts_parser_jaffle_shop/v12_duckdb_dbt1.12.0",
			model: "model.jaffle_shop.order_items", old: "products.product_price,", new: "products.product_price * 2 as product_price,",
			exposures: []string{}, sqs: []string{"revenue_metrics"}, notMetrics: 13, basis: "column_lineage", unitTests: "order_items [product_price]",
			metrics: []string{"cumulative_revenue", "drink_revenue", "drink_revenue_pct", "food_revenue", "food_revenue_pct",
				"median_revenue", "order_gross_profit", "revenue", "revenue_growth_mom"}},
		{name: "dbt-core state v12, my_model", src: "../../testdata/real/dbt_core_state/v12", model: "model.test.my_model", old: "select 1 as id", new: "select 2 as id",
			exposures: []string{"simple_exposure"}, sqs: []string{}, owner: "<something@example.com>", basis: "lineage_dag", unitTests: "my_model []",
			metrics: []string{"blue_customers_post_2010", "customers", "doubled_blue_customers", "ratio_of_blue_customers_to_red_customers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := impacttest.DeriveProject(t, tt.src, tt.model, tt.old, tt.new)
			cs := newHarness(t, ops.Default(), dbt.Paths{ProjectDir: dir}, ModeServer).connect(t, "2025-11-25", nil)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "impact_analysis", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Fatalf("impact_analysis failed: %+v", res.Content)
			}
			var r result
			if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &r); err != nil {
				t.Fatal(err)
			}
			nm := func(rs []reached) []string {
				out := []string{}
				for _, x := range rs {
					out = append(out, x.Name)
					if x.Basis != tt.basis {
						t.Errorf("%s: basis %s, want %s", x.Name, x.Basis, tt.basis)
					}
				}
				return out
			}
			if got := nm(r.Exposures); !reflect.DeepEqual(got, tt.exposures) {
				t.Errorf("exposures = %v, want %v", got, tt.exposures)
			}
			if got := nm(r.Metrics); !reflect.DeepEqual(got, tt.metrics) {
				t.Errorf("metrics = %v, want %v", got, tt.metrics)
			}
			if got := nm(r.SavedQueries); !reflect.DeepEqual(got, tt.sqs) {
				t.Errorf("saved queries = %v, want %v", got, tt.sqs)
			}
			if r.NotMetrics != tt.notMetrics {
				t.Errorf("not_impacted_metrics_count = %d, want %d", r.NotMetrics, tt.notMetrics)
			}
			if len(r.UnitTests) != 1 || fmt.Sprint(r.UnitTests[0].Model, " ", r.UnitTests[0].Uncovered) != tt.unitTests {
				t.Errorf("unit_tests = %+v, want %s", r.UnitTests, tt.unitTests)
			}
			if len(r.Exposures) > 0 && (r.Exposures[0].Owner != tt.owner || r.Exposures[0].Severity != "critical") {
				t.Errorf("exposure = %+v, want owner %s, severity critical", r.Exposures[0], tt.owner)
			}
		})
	}
}
