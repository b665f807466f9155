package cllstatic

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/dbt"
)

func TestProbe(t *testing.T) {
	env, err := dbt.LoadEnv(context.Background(), "../../../../shared/fixtures/real/recce_tests_jaffle_shop_v12/current", "c", "x")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := cll.AnalyzeProject(context.Background(), env, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"model.jaffle_shop.customers", "model.jaffle_shop.orders", "model.jaffle_shop.int_customer_orders"} {
		ml := pl.Models[id]
		b, _ := json.Marshal(map[string]any{"row": ml.RowDeps, "joins": ml.Structure.Joins, "opaque": ml.OpaqueReason})
		fmt.Println(id, string(b))
	}
}
