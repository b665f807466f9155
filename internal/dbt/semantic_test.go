package dbt

import (
	"context"
	"reflect"
	"testing"
)

const jaffle112 = "../../testdata/real/dbt_artifacts_parser_jaffle_shop/v12_duckdb_dbt1.12.0"

func loadReal(t *testing.T, dir string) *Env {
	t.Helper()
	e, err := LoadEnv(context.Background(), dir, "current", "dbt docs generate")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestSemanticLayerOfDbt112JaffleShop(t *testing.T) {
	m := loadReal(t, jaffle112).Manifest
	if len(m.Metrics) != 23 || len(m.SemanticModels) != 6 || len(m.SavedQueries) != 3 || len(m.UnitTests) != 3 {
		t.Fatalf("counts: %d metrics, %d semantic models, %d saved queries, %d unit tests", len(m.Metrics), len(m.SemanticModels), len(m.SavedQueries), len(m.UnitTests))
	}
	orders := m.SemanticModels["semantic_model.jaffle_shop.orders"].SemanticModel()
	if orders.Model != "model.jaffle_shop.orders" || orders.AggTimeDimension != "ordered_at" || len(orders.Elements) != 8 {
		t.Fatalf("orders semantic model: %+v", orders)
	}
	if el, _ := orders.Element("dimension", "order_total_dim"); !reflect.DeepEqual(el.Columns, []string{"order_total"}) {
		t.Errorf("order_total_dim reads %v, want [order_total]", el.Columns)
	}
	if el, _ := orders.Element("entity", "customer"); !reflect.DeepEqual(el.Columns, []string{"customer_id"}) {
		t.Errorf("entity customer reads %v", el.Columns)
	}
	tests := []struct {
		id   string
		want MetricInfo
	}{
		{"metric.jaffle_shop.customers", MetricInfo{Type: "simple", SemanticModel: "customers", Columns: []string{"customer_id"}, AggTimeDimension: "first_ordered_at"}},
		{"metric.jaffle_shop.order_total", MetricInfo{Type: "simple", SemanticModel: "orders", Columns: []string{"order_total"}, AggTimeDimension: "ordered_at"}},
		{"metric.jaffle_shop.large_orders", MetricInfo{Type: "simple", SemanticModel: "orders", Rows: true, AggTimeDimension: "ordered_at",
			Filters: []string{"{{ Dimension('order_id__order_total_dim') }} >= 20\n"}}},
		{"metric.jaffle_shop.food_revenue", MetricInfo{Type: "simple", SemanticModel: "order_items", Columns: []string{"is_food_item", "product_price"}, AggTimeDimension: "ordered_at"}},
		{"metric.jaffle_shop.food_revenue_pct", MetricInfo{Type: "ratio", InputMetrics: []string{"food_revenue", "revenue"}}},
		{"metric.jaffle_shop.revenue_growth_mom", MetricInfo{Type: "derived", InputMetrics: []string{"revenue"}}},
		{"metric.jaffle_shop.cumulative_revenue", MetricInfo{Type: "cumulative", InputMetrics: []string{"revenue"}}},
	}
	for _, tt := range tests {
		got := m.Metrics[tt.id].Metric()
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.id, got, tt.want)
		}
	}
	sq := m.SavedQueries["saved_query.jaffle_shop.customer_order_metrics"].SavedQuery()
	if !reflect.DeepEqual(sq, SavedQueryInfo{Metrics: []string{"count_lifetime_orders", "lifetime_spend_pretax", "average_order_value"}, GroupBy: []string{"Entity('customer')"}}) {
		t.Errorf("saved query: %+v", sq)
	}
	ut := m.UnitTests["unit_test.jaffle_shop.orders.test_order_items_compute_to_bools_correctly"].UnitTest()
	if ut.Model != "orders" || ut.ExpectRows != 2 || !reflect.DeepEqual(ut.ExpectColumns, []string{"count_drink_items", "count_food_items", "is_drink_order", "is_food_order", "order_id"}) {
		t.Errorf("unit test: %+v", ut)
	}
}

func TestExposureAndMeasureMetricsOfDbtCoreState(t *testing.T) {
	m := loadReal(t, "../../testdata/real/dbt_core_state/v12").Manifest
	e := m.Exposures["exposure.test.simple_exposure"].Exposure()
	want := ExposureInfo{Type: "dashboard", OwnerEmail: "something@example.com", DependsOn: []string{"source.test.my_source.my_table", "model.test.my_model"}}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("exposure: %+v", e)
	}
	got := m.Metrics["metric.test.blue_customers_post_2010"].Metric()
	if !reflect.DeepEqual(got.Measures, []string{"customers"}) || len(got.Filters) != 3 {
		t.Errorf("measure metric: %+v", got)
	}
	sm := m.SemanticModels["semantic_model.test.semantic_people"].SemanticModel()
	if el, ok := sm.Element("measure", "years_tenure"); !ok || !reflect.DeepEqual(el.Columns, []string{"tenure"}) {
		t.Errorf("measure years_tenure: %+v", el)
	}
}

func TestExprColumns(t *testing.T) {
	tests := []struct {
		expr, name string
		cols       []string
		rows       bool
	}{
		{"", "order_total", []string{"order_total"}, false},
		{"1", "orders", nil, true},
		{"case when is_food_item then product_price else 0 end", "x", []string{"is_food_item", "product_price"}, false},
		{"coalesce(amount, 0) * 'a''b'", "x", []string{"amount"}, false},
		{`"Quoted Col" + b`, "x", []string{"Quoted Col", "b"}, false},
	}
	for _, tt := range tests {
		cols, rows := ExprColumns(tt.expr, tt.name)
		if !reflect.DeepEqual(cols, tt.cols) || rows != tt.rows {
			t.Errorf("ExprColumns(%q) = %v, %v; want %v, %v", tt.expr, cols, rows, tt.cols, tt.rows)
		}
	}
}

func TestFilterRefs(t *testing.T) {
	dims, metrics := FilterRefs([]string{"{{ TimeDimension('id__created_at', 'day') }} > '2010'", "{{ Entity('customer') }}", "{{ Metric('revenue', group_by=['customer']) }} > 1"})
	if !reflect.DeepEqual(dims, []string{"id__created_at", "customer"}) || !reflect.DeepEqual(metrics, []string{"revenue"}) {
		t.Errorf("dims %v metrics %v", dims, metrics)
	}
}

func FuzzSemanticAccessors(f *testing.F) {
	f.Add("", "")
	f.Add(`{"email":"a@b","name":null}`, "1")
	f.Add(`{"where_filters":[{"where_sql_template":"{{ Dimension('a__b') }}"}]}`, "case when a then b end")
	f.Fuzz(func(t *testing.T, raw, expr string) {
		n := &Node{SemanticFields: SemanticFields{Filter: []byte(raw), TypeParams: []byte(raw), Owner: []byte(raw), Entities: []byte(raw),
			QueryParams: []byte(raw), Expect: []byte(raw), Given: []byte(raw), Type: []byte(raw)}}
		n.Metric()
		n.Exposure()
		n.SemanticModel()
		n.SavedQuery()
		n.UnitTest()
		ExprColumns(expr, "n")
		FilterRefs([]string{expr})
	})
}
