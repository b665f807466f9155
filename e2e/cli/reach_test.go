package cli_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/impact/impacttest"
)

// TestReachEndToEnd: the binary names who a change reaches beyond models on
// real builds (no warehouse: the data steps fail, exit 4, and the
// classification and reach still print). A one-column change of the dbt
// 1.12 jaffle shop reaches exactly the metrics reading that column; a change
// of dbt-core's state fixture model reaches its exposure and owner, and the
// summary opens with them.
func TestReachEndToEnd(t *testing.T) {
	dir := impacttest.DeriveProject(t, "../../testdata/real/dbt_artifacts_parser_jaffle_shop/v12_duckdb_dbt1.12.0",
		"model.jaffle_shop.order_items", "products.product_price,", "products.product_price * 2 as product_price,")
	r := execRipple(t, "--project-dir", dir, "impact-analysis", "--json")
	if r.code != 4 {
		t.Fatalf("exit %d, want 4 (no warehouse):\n%s", r.code, r)
	}
	out := decodeOnly(t, r)
	names := func(path string) []string {
		got := []string{}
		for _, x := range get(t, out, path).([]any) {
			got = append(got, str(t, x, "name"))
		}
		return got
	}
	if got, want := names("impacted_metrics"), []string{"cumulative_revenue", "drink_revenue", "drink_revenue_pct", "food_revenue",
		"food_revenue_pct", "median_revenue", "order_gross_profit", "revenue", "revenue_growth_mom"}; !reflect.DeepEqual(got, want) {
		t.Errorf("impacted_metrics = %v, want %v", got, want)
	}
	if got := names("impacted_saved_queries"); !reflect.DeepEqual(got, []string{"revenue_metrics"}) {
		t.Errorf("impacted_saved_queries = %v", got)
	}
	if n := integer(t, out, "not_impacted_metrics_count"); n != 13 {
		t.Errorf("not_impacted_metrics_count = %d, want 13", n)
	}

	dir = impacttest.DeriveProject(t, "../../testdata/real/dbt_core_state/v12", "model.test.my_model", "select 1 as id", "select 2 as id")
	r = execRipple(t, "--project-dir", dir, "summary", "--json")
	if r.code != 4 {
		t.Fatalf("exit %d, want 4 (no warehouse):\n%s", r.code, r)
	}
	md := str(t, decodeOnly(t, r), "markdown")
	want := "## Who is affected\n\n**Exposures**: 1 impacted\n\n- simple_exposure (dashboard), owner <something@example.com> ← my_model.*"
	if !strings.Contains(md, want) || strings.Index(md, want) > strings.Index(md, "| | base | current |") {
		t.Errorf("the summary does not open with the exposure:\n%s", md)
	}
}
