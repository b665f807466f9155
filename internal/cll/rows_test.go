package cll

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestImpactReachesRowReaders: a model that reads no column of a relation
// (COUNT(*)) still depends on its rows. A row-set change of the relation
// (the changed column "*") reaches it, and through its rows the models that
// count those; a value-only change of a column reaches neither.
func TestImpactReachesRowReaders(t *testing.T) {
	sources := map[string][]string{"orders": {"id", "amount", "status"}}
	models := map[string]string{
		"stg":       `select id, amount, status from "db"."raw"."orders" where status <> 'test'`,
		"n_orders":  `select count(*) as n from "db"."main"."stg"`,
		"ids":       `select id from "db"."main"."stg"`,
		"n_ids":     `select count(*) as n from "db"."main"."ids"`,
		"by_status": `select status, count(*) as n from "db"."main"."stg" group by status`,
	}
	deps := map[string][]string{"stg": {"orders"}, "n_orders": {"stg"}, "ids": {"stg"}, "n_ids": {"ids"}, "by_status": {"stg"}}
	pl, err := AnalyzeProject(context.Background(), testEnv(t, sources, models, deps), NewCache())
	if err != nil {
		t.Fatal(err)
	}
	reached := func(changed ...NodeColumn) []string {
		var out []string
		for _, m := range pl.Impact(changed).Models {
			out = append(out, m.Node)
		}
		return out
	}
	tests := []struct {
		name    string
		changed []NodeColumn
		want    []string
	}{
		{"row set of stg", []NodeColumn{{"model.p.stg", "*"}, {"model.p.stg", "id"}, {"model.p.stg", "amount"}, {"model.p.stg", "status"}},
			[]string{"model.p.by_status", "model.p.ids", "model.p.n_ids", "model.p.n_orders"}},
		{"value of stg.amount", []NodeColumn{{"model.p.stg", "amount"}}, nil},
		{"value of stg.status", []NodeColumn{{"model.p.stg", "status"}}, []string{"model.p.by_status"}},
		{"row set of the source", []NodeColumn{{"source.p.raw.orders", "*"}},
			[]string{"model.p.by_status", "model.p.ids", "model.p.n_ids", "model.p.n_orders", "model.p.stg"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := reached(tc.changed...); !slices.Equal(got, tc.want) {
				t.Fatalf("reached %v, want %v", got, tc.want)
			}
		})
	}
	// The pseudo column "*" carries the traversal but is not reported.
	res := pl.Impact([]NodeColumn{{"model.p.stg", "*"}})
	for _, c := range res.Columns {
		if c.Column == "*" {
			t.Errorf("pseudo column reported: %+v", c)
		}
		if c.Node == "model.p.n_ids" && (c.Reason != "row_set" || c.Via != (NodeColumn{"model.p.ids", "*"})) {
			t.Errorf("n_ids.n: %+v, want reached through ids.* (row_set)", c)
		}
	}
	// Downstream follows rows the same way: orders.status filters stg, so
	// every model reading stg's rows is row-shaped by it.
	want := "[model.p.by_status.n model.p.by_status.status model.p.ids.id model.p.n_ids.n model.p.n_orders.n model.p.stg.amount model.p.stg.id model.p.stg.status]"
	if got := fmt.Sprint(pl.Downstream(NodeColumn{"source.p.raw.orders", "status"})); got != want {
		t.Errorf("downstream of orders.status:\n got %s\nwant %s", got, want)
	}
}
