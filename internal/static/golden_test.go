package static

import (
	"context"
	"strings"
	"testing"
)

// TestJaffleCustomersOrders checks the relationship every jaffle-shop
// project declares with a relationships test: customers 1—* orders.
func TestJaffleCustomersOrders(t *testing.T) {
	for _, dir := range []string{
		"recce_tests_jaffle_shop_v12/current",
		"recce_tests_jaffle_shop_v12/base",
		"mrkidbk_test_dbt_jaffle_shop/current",
		"mrkidbk_test_dbt_jaffle_shop/base",
		"recce_tests_jaffle_shop_v9",
	} {
		t.Run(dir, func(t *testing.T) {
			p := loadFixture(t, dir)
			res, err := ERD(context.Background(), p, ERDInput{Select: []string{"orders"}})
			if err != nil {
				t.Fatal(err)
			}
			r := findRel(res.Relationships, "orders", "customers")
			if r == nil {
				t.Fatalf("no orders → customers relationship in %+v", res.Relationships)
			}
			if r.Basis != BasisTested || r.Cardinality != ManyToOne || r.Optional ||
				strings.Join(r.FromColumns, ",") != "customer_id" || strings.Join(r.ToColumns, ",") != "customer_id" ||
				len(r.Evidence) != 1 || !strings.HasPrefix(r.Evidence[0].Source, "test.jaffle_shop.relationships_orders_customer_id__customer_id__ref_customers_") {
				t.Errorf("orders → customers = %+v", r)
			}
			plan, err := PlanQuery(context.Background(), p, PlanQueryInput{Entities: []string{"customers", "orders"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Joins) != 1 || !plan.Joins[0].RepeatsRows || plan.Joins[0].Cardinality != "one_to_many" || len(plan.Warnings) != 1 {
				t.Errorf("plan = %+v", plan)
			}
		})
	}
}

func TestGolden(t *testing.T) {
	ctx := context.Background()
	type op func(p *Project) (any, error)
	cases := []struct {
		name, fixture string
		run           op
	}{
		{"v12_summary", "recce_tests_jaffle_shop_v12/current", func(p *Project) (any, error) {
			r, err := Summary(ctx, p, SummaryInput{})
			if err == nil {
				for k, a := range r.Artifacts {
					a.ModifiedAt, a.AgeSeconds = "", 0 // file times depend on the checkout
					r.Artifacts[k] = a
				}
			}
			return r, err
		}},
		{"v12_search", "recce_tests_jaffle_shop_v12/current", func(p *Project) (any, error) {
			return Search(ctx, p, SearchInput{Query: "customer id", Limit: 10})
		}},
		{"v12_erd", "recce_tests_jaffle_shop_v12/current", func(p *Project) (any, error) { return ERD(ctx, p, ERDInput{}) }},
		{"v12_erd_infer_mermaid", "recce_tests_jaffle_shop_v12/current", func(p *Project) (any, error) {
			return ERD(ctx, p, ERDInput{Infer: true, Format: "mermaid"})
		}},
		{"v12_erd_dot", "recce_tests_jaffle_shop_v12/current", func(p *Project) (any, error) {
			return ERD(ctx, p, ERDInput{Select: []string{"orders"}, Format: "dot"})
		}},
		{"v12_test_gaps", "recce_tests_jaffle_shop_v12/current", func(p *Project) (any, error) { return TestGaps(ctx, p, TestGapsInput{}) }},
		{"v12_describe_orders", "recce_tests_jaffle_shop_v12/current", func(p *Project) (any, error) {
			return DescribeEntity(ctx, p, DescribeEntityInput{Name: "orders"})
		}},
		{"v12_describe_customers", "recce_tests_jaffle_shop_v12/current", func(p *Project) (any, error) {
			return DescribeEntity(ctx, p, DescribeEntityInput{Name: "customers"})
		}},
		{"v12_plan_customers_orders", "recce_tests_jaffle_shop_v12/current", func(p *Project) (any, error) {
			return PlanQuery(ctx, p, PlanQueryInput{Entities: []string{"customers", "orders"}})
		}},
		{"v12_plan_orders_customers", "recce_tests_jaffle_shop_v12/current", func(p *Project) (any, error) {
			return PlanQuery(ctx, p, PlanQueryInput{Entities: []string{"orders", "customers"}, Columns: []string{"orders.order_id", "orders.amount", "customers.first_name"}})
		}},
		{"v12_find_data", "recce_tests_jaffle_shop_v12/current", func(p *Project) (any, error) {
			return FindData(ctx, p, FindDataInput{Query: "customer lifetime value"})
		}},
		{"v12_state_policies", "recce_tests_jaffle_shop_v12/current", func(p *Project) (any, error) {
			return StatePolicies(ctx, p, StatePoliciesInput{})
		}},
		{"mrkidbk_erd", "mrkidbk_test_dbt_jaffle_shop/current", func(p *Project) (any, error) { return ERD(ctx, p, ERDInput{}) }},
		{"dbt112_erd_infer", "dbt_artifacts_parser_jaffle_shop/v12_duckdb_dbt1.12.0", func(p *Project) (any, error) {
			return ERD(ctx, p, ERDInput{Infer: true})
		}},
		{"dbt112_test_gaps", "dbt_artifacts_parser_jaffle_shop/v12_duckdb_dbt1.12.0", func(p *Project) (any, error) {
			return TestGaps(ctx, p, TestGapsInput{})
		}},
		{"dbt112_plan_order_items", "dbt_artifacts_parser_jaffle_shop/v12_duckdb_dbt1.12.0", func(p *Project) (any, error) {
			return PlanQuery(ctx, p, PlanQueryInput{Entities: []string{"order_items", "orders", "stg_customers"}})
		}},
		{"dbt112_describe_order_items", "dbt_artifacts_parser_jaffle_shop/v12_duckdb_dbt1.12.0", func(p *Project) (any, error) {
			return DescribeEntity(ctx, p, DescribeEntityInput{Name: "order_items"})
		}},
		{"dbt_core_v12_summary", "dbt_core_state/v12", func(p *Project) (any, error) {
			r, err := Summary(ctx, p, SummaryInput{})
			if err == nil {
				for k, a := range r.Artifacts {
					a.ModifiedAt, a.AgeSeconds = "", 0
					r.Artifacts[k] = a
				}
			}
			return r, err
		}},
		{"dbt_core_v12_erd", "dbt_core_state/v12", func(p *Project) (any, error) { return ERD(ctx, p, ERDInput{All: true, Infer: true}) }},
	}
	projects := map[string]*Project{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := projects[tc.fixture]
			if p == nil {
				p = loadFixture(t, tc.fixture)
				projects[tc.fixture] = p
			}
			v, err := tc.run(p)
			if err != nil {
				t.Fatal(err)
			}
			assertGolden(t, tc.name, v)
		})
	}
}
