package selector

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/testfixtures"
)

func loadPair(t *testing.T, rel string) (*dbt.Graph, map[string]dbt.NodeState, string) {
	t.Helper()
	dir := testfixtures.Real(t, rel)
	ctx := context.Background()
	base, err := dbt.LoadEnv(ctx, filepath.Join(dir, "base"), "base", "dbt docs generate")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := dbt.LoadEnv(ctx, filepath.Join(dir, "current"), "current", "dbt docs generate")
	if err != nil {
		t.Fatal(err)
	}
	return dbt.NewGraph(base.Manifest, cur.Manifest), dbt.CompareState(base.Manifest, cur.Manifest), cur.Manifest.Metadata.ProjectName
}

func TestRealFixtures(t *testing.T) {
	cases := []struct {
		pair string
		opts Options
		want []string
	}{
		{"mrkidbk_test_dbt_jaffle_shop", sel("state:modified"), []string{"model.jaffle_shop.stg_payments"}},
		{"mrkidbk_test_dbt_jaffle_shop", sel("state:modified+"), []string{"model.jaffle_shop.customers", "model.jaffle_shop.orders", "model.jaffle_shop.stg_payments"}},
		{"mrkidbk_test_dbt_jaffle_shop", Options{ViewMode: ViewChangedModels, Select: "resource_type:model"},
			[]string{"model.jaffle_shop.customers", "model.jaffle_shop.orders", "model.jaffle_shop.stg_payments"}},
		{"mrkidbk_test_dbt_jaffle_shop", Options{ViewMode: ViewChangedModels},
			[]string{"model.jaffle_shop.customers", "model.jaffle_shop.orders", "model.jaffle_shop.stg_payments", "seed.jaffle_shop.raw_payments"}},
		{"summer_camp_recce_jaffle_shop", sel("state:modified,resource_type:model"),
			[]string{"model.jaffle_shop.customer_order_patter", "model.jaffle_shop.customer_order_pattern", "model.jaffle_shop.orders"}},
		{"summer_camp_recce_jaffle_shop", sel("state:new"), []string{"model.jaffle_shop.customer_order_pattern"}},
		{"recce_super_demo/pr1-incremental-filter", sel("state:modified.configs"), []string{"model.super_recce_training.orders"}},
		// Base (prod) and current (dev) live in different schemas: no relation change.
		{"recce_super_demo/pr1-incremental-filter", sel("state:modified.relation"), nil},
		{"recce_super_demo/pr2-model-rename", sel("state:modified.body,resource_type:model"), []string{
			"model.super_recce_training.customer_orders", "model.super_recce_training.orders",
			"model.super_recce_training.staging_orders", "model.super_recce_training.stg_orders"}},
	}
	for _, c := range cases {
		t.Run(c.pair+"/"+c.opts.Select+"/"+c.opts.ViewMode, func(t *testing.T) {
			g, st, root := loadPair(t, c.pair)
			got, err := Select(g, st, root, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if want == nil {
				want = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("Select(%+v) = %v, want %v", c.opts, got, want)
			}
		})
	}
}
