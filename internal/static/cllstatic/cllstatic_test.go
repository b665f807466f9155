package cllstatic

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/cll"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/static"
	"github.com/ripple-data/ripple/internal/testfixtures"

	"github.com/ripple-data/ripple/internal/golden"
)

func load(t *testing.T, rel string) (*static.Project, *Lineage) {
	t.Helper()
	dir := testfixtures.Real(t, rel)
	ctx := context.Background()
	env, err := dbt.LoadEnv(ctx, dir, "current", "dbt docs generate")
	if err != nil {
		t.Fatal(err)
	}
	lin, err := Analyze(ctx, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	return static.New(env, static.Options{Lineage: lin}), lin
}

func assertGolden(t *testing.T, name string, v any) {
	t.Helper()
	golden.AssertJSON(t, filepath.Join("testdata", name+".golden.json"), v)
}

func TestJoinKeysJaffle(t *testing.T) {
	_, lin := load(t, "recce_tests_jaffle_shop_v12/current")
	var got []string
	for _, id := range []string{"model.jaffle_shop.customers", "model.jaffle_shop.orders"} {
		for _, j := range lin.JoinKeys(id) {
			got = append(got, j.LeftNode+"."+strings.Join(j.LeftColumns, ",")+"="+j.RightNode+"."+strings.Join(j.RightColumns, ","))
		}
	}
	want := []string{
		"model.jaffle_shop.stg_customers.customer_id=model.jaffle_shop.int_customer_orders.customer_id",
		"model.jaffle_shop.stg_customers.customer_id=model.jaffle_shop.int_customer_payments.customer_id",
		"model.jaffle_shop.stg_payments.order_id=model.jaffle_shop.stg_orders.order_id",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("join keys:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestStaticWithLineage(t *testing.T) {
	ctx := context.Background()
	for _, fx := range []struct{ name, dir string }{
		{"v12", "recce_tests_jaffle_shop_v12/current"},
		{"dbt112", "dbt_artifacts_parser_jaffle_shop/v12_duckdb_dbt1.12.0"},
	} {
		t.Run(fx.name, func(t *testing.T) {
			p, _ := load(t, fx.dir)
			erd, err := static.ERD(ctx, p, static.ERDInput{})
			if err != nil {
				t.Fatal(err)
			}
			assertGolden(t, fx.name+"_erd", erd)
			gaps, err := static.TestGaps(ctx, p, static.TestGapsInput{})
			if err != nil {
				t.Fatal(err)
			}
			assertGolden(t, fx.name+"_test_gaps", gaps)
			sum, err := static.Summary(ctx, p, static.SummaryInput{})
			if err != nil {
				t.Fatal(err)
			}
			if !sum.Lineage.Available || sum.Lineage.Analyzed == 0 {
				t.Errorf("lineage coverage = %+v", sum.Lineage)
			}
			assertGolden(t, fx.name+"_lineage_coverage", sum.Lineage)
			ol, err := static.OpenLineage(ctx, p, static.OpenLineageInput{Models: []string{"orders"}})
			if err != nil {
				t.Fatal(err)
			}
			assertGolden(t, fx.name+"_openlineage_orders", ol)
		})
	}
}

// TestJoinKeysRolePlaying: one dimension joined four times under four
// aliases gives four join keys, one per alias, not one composite key
// (issue #26); the two conditions of one join stay one composite key.
func TestJoinKeysRolePlaying(t *testing.T) {
	ml := &cll.ModelLineage{
		RowDeps: []cll.ColumnDep{
			{Node: "model.p.shipments", Column: "sender_address_id"}, {Node: "model.p.shipments", Column: "receiver_address_id"},
			{Node: "model.p.shipments", Column: "billing_address_id"}, {Node: "model.p.shipments", Column: "return_address_id"},
			{Node: "model.p.shipments", Column: "region"}, {Node: "model.p.address", Column: "address_id"},
			{Node: "model.p.address", Column: "region"},
		},
		Structure: &cll.ModelStructure{Joins: []cll.JoinInfo{
			{Table: "db.s.address", JoinType: "LEFT", Condition: "s.sender_address_id = sender.address_id"},
			{Table: "db.s.address", JoinType: "LEFT", Condition: "s.receiver_address_id = receiver.address_id"},
			{Table: "db.s.address", JoinType: "LEFT", Condition: "s.billing_address_id = billing.address_id"},
			{Table: "db.s.address", JoinType: "LEFT", Condition: "s.return_address_id = ret.address_id and s.region = ret.region"},
		}},
	}
	var got []string
	for _, j := range joinKeys("model.p.m", ml, map[string]string{"db.s.address": "model.p.address"}) {
		got = append(got, j.LeftNode+"."+strings.Join(j.LeftColumns, ",")+"="+j.RightNode+"."+strings.Join(j.RightColumns, ","))
	}
	want := []string{
		"model.p.shipments.sender_address_id=model.p.address.address_id",
		"model.p.shipments.receiver_address_id=model.p.address.address_id",
		"model.p.shipments.billing_address_id=model.p.address.address_id",
		"model.p.shipments.return_address_id,region=model.p.address.address_id,region",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("join keys:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzJoinKeys feeds arbitrary join conditions to the join-key recovery.
func FuzzJoinKeys(f *testing.F) {
	f.Add("(customers.customer_id = customer_orders.customer_id)", "db.s.orders")
	f.Add(`a."x" = b.y AND a.z = b.w`, "")
	f.Fuzz(func(t *testing.T, cond, table string) {
		ml := &cll.ModelLineage{
			RowDeps:   []cll.ColumnDep{{Node: "model.p.a", Column: "x"}, {Node: "model.p.b", Column: "y"}, {Node: "model.p.b", Column: "x"}},
			Structure: &cll.ModelStructure{Joins: []cll.JoinInfo{{Table: table, JoinType: "LEFT", Condition: cond}}},
		}
		for _, j := range joinKeys("model.p.m", ml, map[string]string{"db.s.orders": "model.p.b"}) {
			if len(j.LeftColumns) != len(j.RightColumns) || j.LeftNode == "" || j.RightNode == "" {
				t.Fatalf("bad join evidence %+v", j)
			}
		}
	})
}
