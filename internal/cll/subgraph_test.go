package cll

import (
	"context"
	"fmt"
	"testing"
)

// subgraphProject: stg reads a source, by_customer aggregates stg grouped by
// customer_id, ids reads two of stg's columns, ext reads a relation that
// is not in the manifest.
func subgraphProject(t *testing.T) *ProjectLineage {
	t.Helper()
	sources := map[string][]string{"orders": {"id", "customer_id", "amount", "status"}}
	deps := map[string][]string{"stg": {"orders"}, "by_customer": {"stg"}, "ids": {"stg"}}
	models := map[string]string{
		"stg":         `select id, customer_id, amount, status from "db"."raw"."orders"`,
		"by_customer": `select customer_id, sum(amount) as total from "db"."main"."stg" group by 1`,
		"ids":         `select id, customer_id from db.main.stg`,
		"ext":         `select code from "db"."other"."Legacy"`,
	}
	pl, err := AnalyzeProject(context.Background(), testEnv(t, sources, models, deps), nil)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

func TestSubgraph(t *testing.T) {
	pl := subgraphProject(t)
	stg := func(c string) NodeColumn { return NodeColumn{Node: "model.p.stg", Column: c} }
	for _, tc := range []struct {
		name      string
		focus     []NodeColumn
		dir       Direction
		limit     int
		want      string
		total     int
		truncated bool
	}{
		{"both", []NodeColumn{stg("amount")}, DirBoth, 0,
			"[model.p.stg.amount source.p.raw.orders.amount model.p.by_customer.total]", 3, false},
		{"upstream only", []NodeColumn{stg("amount")}, DirUpstream, 0,
			"[model.p.stg.amount source.p.raw.orders.amount]", 2, false},
		// customer_id groups by_customer's rows: every output column of
		// by_customer is downstream of it.
		{"downstream through row set", []NodeColumn{stg("customer_id")}, DirDownstream, 0,
			"[model.p.stg.customer_id model.p.by_customer.customer_id model.p.by_customer.total model.p.ids.customer_id]", 4, false},
		{"focus spelling kept, case-insensitive repeats dropped", []NodeColumn{stg("AMOUNT"), stg("amount")}, DirUpstream, 0,
			"[model.p.stg.AMOUNT source.p.raw.orders.amount]", 2, false},
		{"limit cuts, total counts all", []NodeColumn{stg("amount"), stg("customer_id")}, DirBoth, 3,
			"[model.p.stg.amount source.p.raw.orders.amount model.p.by_customer.total]", 7, true},
		{"limit equal to the size does not cut", []NodeColumn{stg("amount")}, DirBoth, 3,
			"[model.p.stg.amount source.p.raw.orders.amount model.p.by_customer.total]", 3, false},
		{"unknown column is only itself", []NodeColumn{stg("nope")}, DirBoth, 0, "[model.p.stg.nope]", 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sg := pl.Subgraph(tc.focus, tc.dir, tc.limit)
			if got := fmt.Sprint(sg.Columns); got != tc.want {
				t.Errorf("columns %s, want %s", got, tc.want)
			}
			if sg.Total != tc.total || sg.Truncated != tc.truncated {
				t.Errorf("total %d truncated %v, want %d %v", sg.Total, sg.Truncated, tc.total, tc.truncated)
			}
		})
	}
}

func TestColumnParentsAndChildren(t *testing.T) {
	pl := subgraphProject(t)
	if got := fmt.Sprint(pl.ColumnParents(NodeColumn{Node: "model.p.by_customer", Column: "TOTAL"})); got != "[model.p.stg.amount]" {
		t.Errorf("parents of by_customer.total: %s", got)
	}
	// One hop, value edges only: by_customer.total is row-shaped by
	// customer_id but not computed from it.
	if got := fmt.Sprint(pl.ColumnChildren(NodeColumn{Node: "model.p.stg", Column: "customer_id"})); got != "[model.p.by_customer.customer_id model.p.ids.customer_id]" {
		t.Errorf("children of stg.customer_id: %s", got)
	}
	// An unmatched relation is named as everywhere in cll.
	if got := fmt.Sprint(pl.ColumnParents(NodeColumn{Node: "model.p.ext", Column: "code"})); got != "[relation:db.other.legacy.code]" {
		t.Errorf("parents of ext.code: %s", got)
	}
	if got := pl.ColumnChildren(NodeColumn{Node: "model.p.stg", Column: "nope"}); got != nil {
		t.Errorf("children of an unknown column: %v", got)
	}
}
