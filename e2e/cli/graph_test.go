package cli_test

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The metadata operations: lineage-diff, select-nodes, schema-diff,
// render-lineage-mermaid, get-model.

const pkg = "model.jaffle_shop."

func ids(names ...string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if strings.HasPrefix(n, "raw_") {
			out = append(out, "seed.jaffle_shop."+n)
		} else {
			out = append(out, pkg+n)
		}
	}
	sort.Strings(out)
	return out
}

// lineageNode is one row of lineage-diff's nodes table.
type lineageNode struct {
	status   any
	mods     []string
	impacted bool
	mat      string
}

func lineageNodes(t *testing.T, out map[string]any) (map[string]lineageNode, map[int]string, [][2]string) {
	t.Helper()
	nodes := map[string]lineageNode{}
	byIdx := map[int]string{}
	for _, r := range table(t, get(t, out, "nodes")) {
		name := r["name"].(string)
		var mods []string
		for _, m := range r["modifications"].([]any) {
			mods = append(mods, m.(string))
		}
		nodes[name] = lineageNode{status: r["change_status"], mods: mods, impacted: r["impacted"] == true, mat: fmt.Sprint(r["materialized"])}
		byIdx[int(integer(t, r, "idx"))] = name
	}
	var edges [][2]string
	for _, e := range table(t, get(t, out, "edges")) {
		edges = append(edges, [2]string{byIdx[int(integer(t, e, "from"))], byIdx[int(integer(t, e, "to"))]})
	}
	return nodes, byIdx, edges
}

func TestLineageDiff(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "lineage-diff")
	nodes, _, edges := lineageNodes(t, out)
	want := map[string]lineageNode{
		"customer_orders_legacy": {status: "removed", mods: []string{"body"}, impacted: true, mat: "table"},
		"customer_segments":      {status: "added", mods: []string{"body", "configs", "contract", "persisted_descriptions", "relation"}, impacted: true, mat: "table"},
		"customers":              {status: "modified", mods: []string{"body"}, impacted: true, mat: "table"},
		"daily_orders":           {status: "modified", mods: []string{"configs"}, impacted: true, mat: "table"},
		"stg_payments":           {status: "modified", mods: []string{"body"}, impacted: true, mat: "view"},
		"orders":                 {impacted: true, mat: "table"},
		"payment_method_summary": {impacted: true, mat: "table"},
		// parents of modified nodes (view_mode changed_models = 1+state:modified+)
		"stg_customers": {mat: "view"},
		"stg_orders":    {mat: "view"},
		"raw_payments":  {mat: "seed"},
	}
	if !reflect.DeepEqual(nodes, want) {
		for name, w := range want {
			if g, ok := nodes[name]; !ok || !reflect.DeepEqual(g, w) {
				t.Errorf("%s: %+v, want %+v", name, g, w)
			}
		}
		for name := range nodes {
			if _, ok := want[name]; !ok {
				t.Errorf("unexpected node %s", name)
			}
		}
	}
	for k, w := range map[string]int64{"changed_count": 5, "impacted_count": 7, "total_nodes": 10, "returned_nodes": 10} {
		if got := integer(t, out, k); got != w {
			t.Errorf("%s = %d, want %d", k, got, w)
		}
	}
	if boolean(t, out, "single_env") || boolean(t, out, "truncated") {
		t.Errorf("single_env/truncated set: %v %v", out["single_env"], out["truncated"])
	}
	// parent → child edges of the demo's refs.
	for _, e := range [][2]string{
		{"raw_payments", "stg_payments"}, {"stg_payments", "orders"}, {"stg_payments", "customers"},
		{"stg_payments", "payment_method_summary"}, {"customers", "customer_segments"}, {"stg_orders", "customer_orders_legacy"},
		{"stg_orders", "daily_orders"}, {"stg_customers", "customers"}, {"stg_orders", "orders"}, {"stg_orders", "customers"},
	} {
		if !containsEdge(edges, e) {
			t.Errorf("missing edge %s → %s in %v", e[0], e[1], edges)
		}
	}
	if len(edges) != 10 {
		t.Errorf("%d edges, want 10: %v", len(edges), edges)
	}

	t.Run("view_mode all", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "lineage-diff", "--view-mode", "all")
		nodes, _, _ := lineageNodes(t, out)
		// 10 models (both builds) + 3 seeds.
		if len(nodes) != 13 || integer(t, out, "total_nodes") != 13 {
			t.Errorf("%d nodes (total %v), want 13", len(nodes), get(t, out, "total_nodes"))
		}
		for _, n := range []string{"order_status_events", "raw_customers", "raw_orders"} {
			if g, ok := nodes[n]; !ok || g.impacted || g.status != nil {
				t.Errorf("%s: %+v (present %v), want unchanged and not impacted", n, g, ok)
			}
		}
	})
	t.Run("select", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "lineage-diff", "--select", "stg_payments+", "--exclude", "customer_segments")
		nodes, _, _ := lineageNodes(t, out)
		var got []string
		for n := range nodes {
			got = append(got, n)
		}
		sort.Strings(got)
		if w := []string{"customers", "orders", "payment_method_summary", "stg_payments"}; !reflect.DeepEqual(got, w) {
			t.Errorf("nodes %v, want %v", got, w)
		}
	})
	t.Run("single environment", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "--single-env", "--target-base-path", "no-such-base", "lineage-diff")
		if !boolean(t, out, "single_env") || str(t, out, "_warning") == "" || integer(t, out, "changed_count") != 0 {
			t.Errorf("single_env %v, _warning %q, changed_count %v; want true, a warning, 0", out["single_env"], out["_warning"], out["changed_count"])
		}
	})
}

func containsEdge(edges [][2]string, e [2]string) bool {
	for _, x := range edges {
		if x == e {
			return true
		}
	}
	return false
}

func TestSelectNodes(t *testing.T) {
	t.Parallel()
	modified := []string{"customer_orders_legacy", "customer_segments", "customers", "daily_orders", "stg_payments"}
	tables := []string{"customer_orders_legacy", "customer_segments", "customers", "daily_orders", "order_status_events", "orders", "payment_method_summary"}
	everything := append(append([]string{}, tables...), "stg_customers", "stg_orders", "stg_payments", "raw_customers", "raw_orders", "raw_payments")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--select", "state:modified"}, modified},
		{[]string{"--select", "state:modified.body"}, []string{"customer_orders_legacy", "customer_segments", "customers", "stg_payments"}},
		{[]string{"--select", "state:modified.configs"}, []string{"customer_segments", "daily_orders"}},
		{[]string{"--select", "state:new"}, []string{"customer_segments"}},
		{[]string{"--select", "+orders"}, []string{"orders", "stg_orders", "stg_payments", "raw_orders", "raw_payments"}},
		{[]string{"--select", "stg_payments+"}, []string{"stg_payments", "orders", "customers", "payment_method_summary", "customer_segments"}},
		{[]string{"--select", "customers+1"}, []string{"customers", "customer_segments"}},
		{[]string{"--select", "1+customers"}, []string{"customers", "stg_customers", "stg_orders", "stg_payments"}},
		{[]string{"--select", "config.materialized:table"}, tables},
		{[]string{"--select", "config.materialized:view"}, []string{"stg_customers", "stg_orders", "stg_payments"}},
		// space = union, comma = intersection
		{[]string{"--select", "orders customers"}, []string{"customers", "orders"}},
		{[]string{"--select", "state:modified config.materialized:view"}, append(append([]string{}, modified...), "stg_customers", "stg_orders")},
		{[]string{"--select", "state:modified,config.materialized:table"}, []string{"customer_orders_legacy", "customer_segments", "customers", "daily_orders"}},
		{[]string{"--select", "state:modified,config.materialized:view"}, []string{"stg_payments"}},
		{[]string{"--select", "stg_*"}, []string{"stg_customers", "stg_orders", "stg_payments"}},
		{[]string{"--select", "tag:finance"}, []string{"daily_orders"}},
		{[]string{"--select", "state:modified", "--exclude", "customer_segments"}, []string{"customer_orders_legacy", "customers", "daily_orders", "stg_payments"}},
		{[]string{"--view-mode", "changed_models"}, append(append([]string{}, modified...), "orders", "payment_method_summary", "stg_customers", "stg_orders", "raw_payments")},
		{nil, everything},
	} {
		out := rippleJSON(t, append([]string{"select-nodes"}, tc.args...)...)
		got := strs(t, out, "nodes")
		if want := ids(tc.want...); !reflect.DeepEqual(got, want) {
			t.Errorf("select-nodes %v:\n got %v\nwant %v", tc.args, got, want)
		}
	}
	t.Run("tests are selected by type only", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "select-nodes", "--select", "resource_type:test")
		got := strs(t, out, "nodes")
		// The current build has 13 tests; no test was removed.
		if len(got) != 13 {
			t.Errorf("%d tests, want 13: %v", len(got), got)
		}
		for _, id := range got {
			if !strings.HasPrefix(id, "test.jaffle_shop.") {
				t.Errorf("non-test %s", id)
			}
		}
	})
	t.Run("@ includes the parents of descendants", func(t *testing.T) {
		t.Parallel()
		got := strs(t, rippleJSON(t, "select-nodes", "--select", "@customers"), "nodes")
		for _, id := range ids("customers", "customer_segments", "stg_customers", "stg_orders", "stg_payments", "raw_customers", "raw_orders", "raw_payments") {
			if !contains(got, id) {
				t.Errorf("@customers lacks %s: %v", id, got)
			}
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestSchemaDiff(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "schema-diff")
	rows := table(t, out) // the peer's DataFrame, at the top level
	if len(rows) != 1 {
		t.Fatalf("%d changes, want 1: %v", len(rows), rows)
	}
	want := map[string]any{"node_id": pkg + "customers", "column": "full_name", "change_status": "added", "base_type": nil, "current_type": "VARCHAR"}
	if !reflect.DeepEqual(rows[0], want) {
		t.Errorf("change %v, want %v", rows[0], want)
	}
	if s := str(t, out, "schema_coverage", "status"); s != "complete" {
		t.Errorf("schema_coverage %q, want complete", s)
	}
	// Independently: the only column that differs between the schemas of
	// the relations present on both sides, and its position.
	diff := dbStrings(t, `
		select c.table_name || '.' || c.column_name || ' ' || c.data_type || ' @' || c.ordinal_position
		from information_schema.columns c
		where c.table_schema = 'current'
		  and exists (select 1 from information_schema.tables b where b.table_schema = 'base' and b.table_name = c.table_name)
		  and not exists (select 1 from information_schema.columns b where b.table_schema = 'base' and b.table_name = c.table_name
		                  and b.column_name = c.column_name and b.data_type = c.data_type)
		union all
		select b.table_name || '.' || b.column_name || ' removed'
		from information_schema.columns b
		where b.table_schema = 'base'
		  and exists (select 1 from information_schema.tables c where c.table_schema = 'current' and c.table_name = b.table_name)
		  and not exists (select 1 from information_schema.columns c where c.table_schema = 'current' and c.table_name = b.table_name
		                  and c.column_name = b.column_name)`)
	if w := []string{"customers.full_name VARCHAR @4"}; !reflect.DeepEqual(diff, w) {
		t.Errorf("database schema differences %v, want %v", diff, w)
	}

	t.Run("select", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "schema-diff", "--select", "orders stg_payments")
		if rows := table(t, out); len(rows) != 0 {
			t.Errorf("orders, stg_payments: %v, want no change (decimal(18,2) on both sides)", rows)
		}
		// node_id, and its deprecated spelling node_ids.
		for _, flag := range []string{"--node-id", "--node-ids"} {
			out = rippleJSON(t, "schema-diff", flag, pkg+"customers")
			if rows := table(t, out); len(rows) != 1 || rows[0]["column"] != "full_name" {
				t.Errorf("%s customers: %v", flag, rows)
			}
		}
	})
}

var mermaidNode = regexp.MustCompile(`(?m)^\s*(n\d+)\[\"([a-z_]+)`)
var mermaidClass = regexp.MustCompile(`(?m)^\s*class (n\d+) ([a-z_]+)$`)
var mermaidEdge = regexp.MustCompile(`(?m)^\s*(n\d+) --> (n\d+)$`)

func TestRenderLineageMermaid(t *testing.T) {
	t.Parallel()
	r1 := ripple(t, "render-lineage-mermaid", "--json")
	r2 := ripple(t, "render-lineage-mermaid", "--json")
	if r1.code != 0 || r2.code != 0 {
		t.Fatalf("%s\n%s", r1, r2)
	}
	if !bytes.Equal(r1.stdout, r2.stdout) {
		t.Errorf("two runs differ:\n%s\n---\n%s", r1.stdout, r2.stdout)
	}
	out := decodeOnly(t, r1)
	m := str(t, out, "mermaid")
	if !strings.HasPrefix(m, "graph LR\n") {
		t.Errorf("mermaid does not start with graph LR: %q", m[:min(len(m), 40)])
	}
	for _, c := range []string{"classDef added", "classDef removed", "classDef modified", "classDef impacted"} {
		if !strings.Contains(m, c) {
			t.Errorf("no %q in\n%s", c, m)
		}
	}
	names := map[string]string{}
	for _, sm := range mermaidNode.FindAllStringSubmatch(m, -1) {
		names[sm[1]] = sm[2]
	}
	class := map[string]string{}
	for _, sm := range mermaidClass.FindAllStringSubmatch(m, -1) {
		class[names[sm[1]]] = sm[2]
	}
	wantClass := map[string]string{
		"customer_orders_legacy": "removed", "customer_segments": "added", "customers": "modified",
		"daily_orders": "modified", "stg_payments": "modified", "orders": "impacted", "payment_method_summary": "ruled_out",
	}
	if !reflect.DeepEqual(class, wantClass) {
		t.Errorf("classes %v, want %v\n%s", class, wantClass, m)
	}
	var edges []string
	for _, sm := range mermaidEdge.FindAllStringSubmatch(m, -1) {
		edges = append(edges, names[sm[1]]+"->"+names[sm[2]])
	}
	sort.Strings(edges)
	if w := []string{"customers->customer_segments", "stg_payments->customers", "stg_payments->orders", "stg_payments->payment_method_summary"}; !reflect.DeepEqual(edges, w) {
		t.Errorf("edges %v, want %v", edges, w)
	}
	if integer(t, out, "node_count") != 7 || integer(t, out, "edge_count") != 4 || boolean(t, out, "truncated") {
		t.Errorf("node_count %v edge_count %v truncated %v; want 7, 4, false", get(t, out, "node_count"), get(t, out, "edge_count"), boolean(t, out, "truncated"))
	}
	// What changed, per node.
	for _, note := range []string{"customer_orders_legacy<br/><small>Removed", "customer_segments<br/><small>Added", "daily_orders<br/><small>Config", "stg_payments<br/><small>Code"} {
		if !strings.Contains(m, note) {
			t.Errorf("no %q in\n%s", note, m)
		}
	}

	t.Run("cap", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "render-lineage-mermaid", "--max-chars", "200")
		if !boolean(t, out, "truncated") || integer(t, out, "omitted_nodes") <= 0 {
			t.Errorf("--max-chars 200: truncated %v omitted %v", boolean(t, out, "truncated"), get(t, out, "omitted_nodes"))
		}
	})
	t.Run("select", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "render-lineage-mermaid", "--select", "orders")
		if integer(t, out, "node_count") != 1 || !strings.Contains(str(t, out, "mermaid"), "orders") {
			t.Errorf("--select orders: %v", out)
		}
	})
}

func TestGetModel(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "get-model", "--model-id", "customers")
	positional := rippleJSON(t, "get-model", pkg+"customers")
	if !reflect.DeepEqual(out, positional) {
		t.Errorf("--model-id customers and the positional unique id differ")
	}
	for _, side := range []string{"base", "current"} {
		m := get(t, out, "model", side)
		order := strs(t, m, "column_order")
		// Independently: the relation's columns in the DuckDB file, in order.
		db := dbStrings(t, `select column_name from information_schema.columns where table_schema = ? and table_name = 'customers' order by ordinal_position`, side)
		if !reflect.DeepEqual(order, db) {
			t.Errorf("%s column_order %v, database %v", side, order, db)
		}
		if str(t, m, "primary_key") != "customer_id" || str(t, m, "primary_key_detail", "basis") != "tested" || str(t, m, "materialized") != "table" {
			t.Errorf("%s: primary key %v (%v), materialized %v", side, m.(map[string]any)["primary_key"], get(t, m, "primary_key_detail"), get(t, m, "materialized"))
		}
		if get(t, m, "columns", "customer_id", "not_null") != true || get(t, m, "columns", "customer_id", "unique") != true {
			t.Errorf("%s customer_id tests flags: %v", side, get(t, m, "columns", "customer_id"))
		}
		if typ := str(t, m, "columns", "customer_lifetime_value", "type"); typ != "DECIMAL(38,2)" {
			t.Errorf("%s customer_lifetime_value type %s", side, typ)
		}
		hasFull := strings.Contains(str(t, m, "raw_code"), "as full_name")
		if hasFull != (side == "current") {
			t.Errorf("%s raw_code has full_name: %v", side, hasFull)
		}
	}
	if order := strs(t, out, "model", "current", "column_order"); len(order) != 8 || order[3] != "full_name" {
		t.Errorf("current column_order %v, want full_name 4th of 8", order)
	}

	t.Run("added and removed models", func(t *testing.T) {
		t.Parallel()
		added := rippleJSON(t, "get-model", "customer_segments")
		if b := get(t, added, "model", "base").(map[string]any); len(b) != 0 {
			t.Errorf("customer_segments base %v, want {}", b)
		}
		if got := strs(t, added, "model", "current", "column_order"); !reflect.DeepEqual(got, []string{"customer_id", "segment"}) {
			t.Errorf("customer_segments columns %v", got)
		}
		removed := rippleJSON(t, "get-model", "customer_orders_legacy")
		if c := get(t, removed, "model", "current").(map[string]any); len(c) != 0 {
			t.Errorf("customer_orders_legacy current %v, want {}", c)
		}
		if got := strs(t, removed, "model", "base", "column_order"); !reflect.DeepEqual(got, []string{"customer_id", "order_count"}) {
			t.Errorf("customer_orders_legacy columns %v", got)
		}
	})
}
