package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/dbtfixture"
	"github.com/ripple-data/ripple/internal/impact/impacttest"
	"github.com/ripple-data/ripple/internal/ops"
)

// This file is the seed's MCP contract (recce-spec.md §1.4, §2, §3, and the
// peer's own acceptance scenarios, §7.2): each of its tools called over the
// MCP protocol with the peer's parameter names, its result asserted in the
// peer's shape with exact values, on DuckDB and on PostgreSQL.

// contractScenario is the peer's mcp_e2e_with_data fixture, plus a schema
// change (users gains email) and a model with a CASE expression.
func contractScenario(p *dbtfixture.Project) {
	p.Table("customers", []string{"id INTEGER", "name VARCHAR", "age INTEGER"},
		dbtfixture.Rows{{1, "Alice", 30}, {2, "Bob", 25}},
		dbtfixture.Rows{{1, "Alice", 30}, {2, "Bob", 25}, {3, "Charlie", 35}}).Tests(dbtfixture.Unique("id"), dbtfixture.NotNull("id"))
	orders := "select id, id as customer_id, id * 100 as amount from {{ ref('customers') }}"
	p.Model("orders", dbtfixture.Table, orders, orders)
	p.Model("users", dbtfixture.Table, "select 1 as id, 'Ann' as name", "select 1 as id, 'Ann' as name, 'ann@example.com' as email")
	segments := "select id, case when age >= 30 then 'senior' else 'junior' end as segment from {{ ref('customers') }}"
	p.Model("segments", dbtfixture.Table, segments, segments)
}

// contractEnv is the scenario served over MCP on one warehouse.
type contractEnv struct {
	cs    *mcp.ClientSession
	built *dbtfixture.Built
	reg   *ops.Registry
	srv   *Server
}

// onEveryWarehouseMCP builds the scenario and serves it from an in-process
// MCP server backed by DuckDB, then by a real PostgreSQL with the same data.
func onEveryWarehouseMCP(t *testing.T, scenario func(*dbtfixture.Project), check func(t *testing.T, e *contractEnv)) {
	t.Helper()
	impacttest.OnEveryWarehouse(t, scenario, func(t *testing.T, tg impacttest.Target) {
		reg := ops.Default()
		h := newHarnessWith(t, Options{Registry: reg, Toolsets: []string{ops.ToolsetAll}}, ops.Config{
			Paths:         tg.Built.Paths,
			StatePath:     filepath.Join(t.TempDir(), "ripple_state.json"),
			OpenWarehouse: tg.Open,
		})
		check(t, &contractEnv{cs: h.connect(t, "", nil), built: tg.Built, reg: reg, srv: h.srv})
	})
}

// result calls a tool, fails on a tool error, checks the result against
// both the tool's strict output schema and the schema tools/list sends,
// and decodes it generically.
func (e *contractEnv) result(t *testing.T, tool string, args map[string]any) map[string]any {
	t.Helper()
	res := call(t, e.cs, tool, args)
	var out map[string]any
	structured(t, res, &out)
	op, ok := e.srv.lookup(tool)
	if !ok {
		t.Fatalf("%s is not served", tool)
	}
	validateOutput(t, op, res)
	validateWire(t, op, out)
	return out
}

// validateWire validates a result against the output schema as tools/list
// sends it ($defs, lenient objects), as a client would.
func validateWire(t *testing.T, op *ops.Op, out any) {
	t.Helper()
	raw, err := json.Marshal(wireOutputSchema(op.OutputSchema(), op.OutputType()))
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: wire output schema does not resolve: %v", op.Name, err)
	}
	if err := r.Validate(out); err != nil {
		t.Errorf("%s: result does not match the wire output schema: %v", op.Name, err)
	}
}

// frame reads a DataFrame: its column keys and rows, after checking it has
// every DataFrame key (limit, more and total_row_count always present).
func frame(t *testing.T, what string, v any) ([]string, [][]any) {
	t.Helper()
	f, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is not a DataFrame: %v", what, v)
	}
	for _, k := range []string{"columns", "data", "limit", "more", "total_row_count"} {
		if _, ok := f[k]; !ok {
			t.Errorf("%s: DataFrame lacks %q: %v", what, k, keysOf(f))
		}
	}
	var keys []string
	for _, c := range f["columns"].([]any) {
		col := c.(map[string]any)
		keys = append(keys, col["key"].(string))
		if !slices.Contains([]string{"number", "float", "integer", "text", "boolean", "date", "datetime", "timedelta", "unknown"}, col["type"].(string)) {
			t.Errorf("%s: column %s has type %v, outside the DataFrame types", what, col["key"], col["type"])
		}
	}
	var rows [][]any
	for _, r := range f["data"].([]any) {
		rows = append(rows, r.([]any))
	}
	return keys, rows
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// jsonEq compares as JSON values (numbers as float64).
func jsonEq(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	var gv, wv any
	_ = json.Unmarshal(g, &gv)
	_ = json.Unmarshal(w, &wv)
	if !reflect.DeepEqual(gv, wv) {
		t.Errorf("%s = %s, want %s", what, g, w)
	}
}

// contractCase is one seed tool's contract.
type contractCase struct {
	tool  string
	check func(t *testing.T, e *contractEnv)
}

func contractCases() []contractCase {
	return []contractCase{
		{tool: "lineage_diff", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "lineage_diff", map[string]any{})
			keys, rows := frame(t, "nodes", out["nodes"])
			if !slices.Equal(keys[:7], []string{"idx", "id", "name", "resource_type", "materialized", "change_status", "impacted"}) {
				t.Errorf("nodes columns = %v: the peer's seven come first, in its order", keys)
			}
			byName := map[string][]any{}
			for _, r := range rows {
				byName[r[2].(string)] = r
			}
			for name, want := range map[string][2]any{"customers": {"modified", true}, "users": {"modified", true}, "orders": {nil, true}, "segments": {nil, true}} {
				r, ok := byName[name]
				if !ok {
					t.Errorf("lineage_diff lacks %s: %v", name, rows)
					continue
				}
				if r[5] != want[0] || r[6] != want[1] || r[4] != "table" {
					t.Errorf("%s: change_status %v impacted %v materialized %v, want %v %v table", name, r[5], r[6], r[4], want[0], want[1])
				}
			}
			ek, edges := frame(t, "edges", out["edges"])
			if !slices.Equal(ek, []string{"from", "to"}) || len(edges) < 2 {
				t.Errorf("edges = %v %v", ek, edges)
			}
		}},
		{tool: "schema_diff", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "schema_diff", map[string]any{"select": "users customers", "packages": []string{"ripple_test"}})
			keys, rows := frame(t, "schema_diff", out)
			if !slices.Equal(keys[:3], []string{"node_id", "column", "change_status"}) || len(rows) != 1 {
				t.Fatalf("schema_diff = %v %v", keys, rows)
			}
			if rows[0][0] != "model.ripple_test.users" || rows[0][1] != "email" || rows[0][2] != "added" {
				t.Errorf("schema change = %v, want users.email added", rows[0])
			}
			if out["limit"] != 100.0 || out["more"] != false {
				t.Errorf("limit %v more %v, want 100 false", out["limit"], out["more"])
			}
			jsonEq(t, "schema_coverage", out["schema_coverage"], map[string]any{"status": "complete", "unchecked_nodes": []any{}, "unchecked_node_count": 0, "more": false})
			// Another package: nothing selected, nothing changed.
			other := e.result(t, "schema_diff", map[string]any{"packages": []string{"elsewhere"}})
			if _, rows := frame(t, "schema_diff packages", other); len(rows) != 0 {
				t.Errorf("schema_diff of another package = %v", rows)
			}
		}},
		{tool: "get_model", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "get_model", map[string]any{"model_id": "model.ripple_test.customers"})
			m := out["model"].(map[string]any)
			for _, side := range []string{"base", "current"} {
				s := m[side].(map[string]any)
				cols := s["columns"].(map[string]any)
				id := cols["id"].(map[string]any)
				if s["primary_key"] != "id" || id["name"] != "id" || id["not_null"] != true || id["unique"] != true || !strings.EqualFold(id["type"].(string), "integer") {
					t.Errorf("%s = %v", side, s)
				}
				if _, ok := cols["age"]; !ok || len(cols) != 3 {
					t.Errorf("%s columns = %v", side, keysOf(cols))
				}
			}
			res := call(t, e.cs, "get_model", map[string]any{"model_id": "model.ripple_test.nope"})
			if !res.IsError || !strings.HasPrefix(text(res), "Model 'model.ripple_test.nope' not found in either environment. Use the full unique ID (e.g., 'model.project.model_name')") {
				t.Errorf("unknown model: %q", text(res))
			}
		}},
		{tool: "get_cll", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "get_cll", map[string]any{"node_id": "model.ripple_test.customers"})
			nodes, cols := out["nodes"].(map[string]any), out["columns"].(map[string]any)
			for _, id := range []string{"model.ripple_test.customers", "model.ripple_test.orders", "model.ripple_test.segments"} {
				n, ok := nodes[id].(map[string]any)
				if !ok {
					t.Fatalf("get_cll nodes lack %s: %v", id, keysOf(nodes))
				}
				if _, isObj := n["columns"].(map[string]any); !isObj {
					t.Errorf("%s columns is not an object keyed by column name: %v", id, n["columns"])
				}
			}
			cust := nodes["model.ripple_test.customers"].(map[string]any)["columns"].(map[string]any)
			if len(cust) != 3 || cust["age"] == nil {
				t.Errorf("customers columns = %v", keysOf(cust))
			}
			oc := cols["model.ripple_test.orders_customer_id"].(map[string]any)
			jsonEq(t, "orders.customer_id", []any{oc["table_id"], oc["name"], oc["transformation_type"], oc["depends_on"]},
				[]any{"model.ripple_test.orders", "customer_id", "renamed", []any{map[string]any{"node": "model.ripple_test.customers", "column": "id"}}})
			seg := cols["model.ripple_test.segments_segment"].(map[string]any)
			if seg["transformation_type"] != "derived" {
				t.Errorf("segments.segment = %v", seg)
			}
			for id, c := range cols {
				if tt := c.(map[string]any)["transformation_type"]; !slices.Contains([]any{"source", "passthrough", "renamed", "derived", "unknown"}, tt) {
					t.Errorf("%s: transformation_type %v", id, tt)
				}
			}
			pm := out["parent_map"].(map[string]any)
			jsonEq(t, "parent_map of orders.customer_id", pm["model.ripple_test.orders_customer_id"], []any{"model.ripple_test.customers_id"})
			jsonEq(t, "parent_map of orders", pm["model.ripple_test.orders"], []any{"model.ripple_test.customers"})
			// Without node_id: the lineage of every changed node.
			all := e.result(t, "get_cll", map[string]any{})
			an := all["nodes"].(map[string]any)
			for _, id := range []string{"model.ripple_test.customers", "model.ripple_test.users", "model.ripple_test.orders"} {
				if _, ok := an[id]; !ok {
					t.Errorf("get_cll {} lacks %s: %v", id, keysOf(an))
				}
			}
			ca := e.result(t, "get_cll", map[string]any{"node_id": "model.ripple_test.users", "change_analysis": true})
			u := ca["nodes"].(map[string]any)["model.ripple_test.users"].(map[string]any)
			email := ca["columns"].(map[string]any)["model.ripple_test.users_email"].(map[string]any)
			if u["change_status"] != "modified" || u["impacted"] != true || email["change_status"] != "added" {
				t.Errorf("change_analysis: users %v email %v", u, email)
			}
		}},
		{tool: "analyze_model", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "analyze_model", map[string]any{"model_id": "model.ripple_test.segments"})
			st := out["structure"].(map[string]any)
			for _, k := range []string{"refs", "projections", "filters", "joins", "group_by", "having", "order_by", "aggregations", "case_expressions",
				"distinct", "has_subquery", "has_cte", "is_set_operation", "unparseable"} {
				if _, ok := st[k]; !ok {
					t.Errorf("structure lacks %s", k)
				}
			}
			ce := st["case_expressions"].([]any)
			if len(ce) != 1 || !strings.HasPrefix(strings.ToUpper(ce[0].(string)), "CASE WHEN") || !strings.Contains(ce[0].(string), "'senior'") {
				t.Errorf("case_expressions = %v", ce)
			}
			jsonEq(t, "refs", st["refs"], []any{"customers"})
			cust := e.result(t, "analyze_model", map[string]any{"model_id": "model.ripple_test.customers"})
			ds := cust["downstream"].(map[string]any)
			jsonEq(t, "downstream models", ds["models"], []any{"model.ripple_test.orders", "model.ripple_test.segments"})
			if out["model_id"] != "model.ripple_test.segments" {
				t.Errorf("model_id = %v", out["model_id"])
			}
		}},
		{tool: "get_server_info", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "get_server_info", map[string]any{})
			if out["mode"] != "local" || out["adapter_type"] != "dbt" || out["review_mode"] != false || out["single_env"] != false || out["base_status"] != "fresh" {
				t.Errorf("server info = %v", out)
			}
			tasks := out["support_tasks"].(map[string]any)
			want := []string{"change_analysis", "histogram_diff", "profile", "profile_diff", "profile_distribution", "query", "query_base", "query_diff",
				"row_count", "row_count_diff", "top_k_diff", "value_diff", "value_diff_detail"}
			if !slices.Equal(keysOf(tasks), want) {
				t.Errorf("support_tasks keys = %v, want the peer's %v", keysOf(tasks), want)
			}
			for _, k := range []string{"query", "query_base", "query_diff", "row_count_diff", "value_diff", "change_analysis", "row_count", "profile"} {
				if tasks[k] != true {
					t.Errorf("support_tasks[%s] = %v", k, tasks[k])
				}
			}
			if tasks["profile_distribution"] != false {
				t.Errorf("profile_distribution = %v: Ripple has no such task", tasks["profile_distribution"])
			}
		}},
		{tool: "set_backend", check: func(t *testing.T, e *contractEnv) {
			p := e.built.Paths
			out := e.result(t, "set_backend", map[string]any{"mode": "local", "project_dir": p.ProjectDir, "target_path": p.TargetPath, "target_base_path": p.TargetBasePath})
			if out["mode"] != "local" || out["adapter_type"] != "dbt" || out["single_env"] != false {
				t.Errorf("set_backend = %v", out)
			}
			res := call(t, e.cs, "set_backend", map[string]any{"mode": "cloud", "session_id": "sess-123"})
			if !res.IsError || !strings.Contains(text(res), "'cloud' is not supported") {
				t.Errorf("cloud: %q", text(res))
			}
		}},
		{tool: "select_nodes", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "select_nodes", map[string]any{})
			nodes := out["nodes"].([]any)
			if !slices.Contains(nodes, any("model.ripple_test.customers")) || !sort.SliceIsSorted(nodes, func(i, j int) bool { return nodes[i].(string) < nodes[j].(string) }) {
				t.Errorf("select_nodes {} = %v", nodes)
			}
			for _, n := range nodes {
				if strings.HasPrefix(n.(string), "test.") {
					t.Errorf("select_nodes {} lists a test: %v", n)
				}
			}
			jsonEq(t, "changed_models", e.result(t, "select_nodes", map[string]any{"select": "customers+", "view_mode": "changed_models", "exclude": "segments"})["nodes"],
				[]any{"model.ripple_test.customers", "model.ripple_test.orders"})
		}},
		{tool: "row_count_diff", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "row_count_diff", map[string]any{"node_names": []string{"customers", "orders", "nonexistent"}})
			if id, ok := out["run_id"].(string); !ok || len(id) != 36 {
				t.Errorf("run_id = %v", out["run_id"])
			}
			jsonEq(t, "customers", out["customers"], map[string]any{"base": 2, "curr": 3, "base_meta": map[string]any{"status": "ok"}, "curr_meta": map[string]any{"status": "ok"}})
			jsonEq(t, "orders", out["orders"], map[string]any{"base": 2, "curr": 3, "base_meta": map[string]any{"status": "ok"}, "curr_meta": map[string]any{"status": "ok"}})
			ne := out["nonexistent"].(map[string]any)
			if ne["base"] != nil || ne["curr"] != nil || ne["base_meta"].(map[string]any)["status"] != "not_in_manifest" {
				t.Errorf("nonexistent = %v", ne)
			}
			if len(out) != 4 {
				t.Errorf("row_count_diff keys = %v, want the three models and run_id", keysOf(out))
			}
			sel := e.result(t, "row_count_diff", map[string]any{"select": "customers+", "exclude": "segments"})
			if _, ok := sel["orders"]; !ok || sel["segments"] != nil || sel["customers"] == nil {
				t.Errorf("row_count_diff select customers+ exclude segments: %v", keysOf(sel))
			}
		}},
		{tool: "query", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "query", map[string]any{"sql_template": "SELECT count(*) AS cnt FROM {{ ref('customers') }}"})
			keys, rows := frame(t, "query", out)
			if !slices.Equal(keys, []string{"cnt"}) || len(rows) != 1 || rows[0][0] != 3.0 || out["limit"] != 2000.0 || out["run_id"] == nil {
				t.Errorf("query = %v", out)
			}
			base := e.result(t, "query", map[string]any{"sql_template": "SELECT count(*) AS cnt FROM {{ ref('customers') }}", "base": true})
			if _, rows := frame(t, "query base", base); rows[0][0] != 2.0 {
				t.Errorf("query base = %v", rows)
			}
			if _, ok := out["_warning"]; ok {
				t.Error("query carries _warning outside single-env mode")
			}
		}},
		{tool: "query_diff", check: func(t *testing.T, e *contractEnv) {
			sql := "SELECT id, name FROM {{ ref('customers') }} ORDER BY id"
			out := e.result(t, "query_diff", map[string]any{"sql_template": sql, "primary_keys": []string{"id"}})
			_, rows := frame(t, "diff", out["diff"])
			if len(rows) != 1 || rows[0][0] != 3.0 || out["base"] != nil || out["current"] != nil || out["run_id"] == nil {
				t.Errorf("query_diff with keys = %v", out)
			}
			client := e.result(t, "query_diff", map[string]any{"sql_template": sql, "base_sql_template": "SELECT id, name FROM {{ ref('customers') }} WHERE id <= 1 ORDER BY id"})
			_, b := frame(t, "base", client["base"])
			_, c := frame(t, "current", client["current"])
			if len(b) != 1 || len(c) != 3 || client["diff"] != nil {
				t.Errorf("query_diff without keys: base %v current %v diff %v", b, c, client["diff"])
			}
		}},
		{tool: "profile_diff", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "profile_diff", map[string]any{"model": "customers", "columns": []string{"age"}})
			want := map[string][]any{
				"base":    {"age", 2, 1, 1, 2, true, "25", "30", 27.5, 27.5},
				"current": {"age", 3, 1, 1, 3, true, "25", "35", 30, 30},
			}
			for side, w := range want {
				keys, rows := frame(t, side, out[side])
				if !slices.Equal(keys, []string{"column_name", "data_type", "row_count", "not_null_proportion", "distinct_proportion", "distinct_count", "is_unique", "min", "max", "avg", "median"}) || len(rows) != 1 {
					t.Fatalf("%s profile = %v %v", side, keys, rows)
				}
				got := append([]any{rows[0][0]}, rows[0][2:]...)
				jsonEq(t, side+" profile of age", got, w)
			}
			if out["run_id"] == nil {
				t.Error("profile_diff has no run_id")
			}
		}},
		{tool: "value_diff", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "value_diff", map[string]any{"model": "customers", "primary_key": "id"})
			s := out["summary"].(map[string]any)
			if s["total"] != 3.0 || s["added"] != 1.0 || s["removed"] != 0.0 {
				t.Errorf("summary = %v", s)
			}
			keys, rows := frame(t, "data", out["data"])
			if !slices.Equal(keys[:3], []string{"column", "matched", "matched_p"}) {
				t.Errorf("data columns = %v", keys)
			}
			var got [][]any
			for _, r := range rows {
				got = append(got, r[:3])
			}
			jsonEq(t, "data", got, [][]any{{"id", 2, 1}, {"name", 2, 1}, {"age", 2, 1}})
			res := call(t, e.cs, "value_diff", map[string]any{"model": "customers"})
			if !res.IsError || !strings.HasPrefix(text(res), "Input validation error: ") {
				t.Errorf("value_diff without primary_key: %q", text(res))
			}
			composite := e.result(t, "value_diff", map[string]any{"model": "customers", "primary_key": []string{"id"}, "columns": []string{"name"}})
			if _, rows := frame(t, "composite", composite["data"]); len(rows) != 2 {
				t.Errorf("columns [name] with key [id] = %v", rows)
			}
		}},
		{tool: "value_diff_detail", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "value_diff_detail", map[string]any{"model": "customers", "primary_key": "id"})
			keys, rows := frame(t, "value_diff_detail", out)
			if !slices.Equal(keys, []string{"id", "name", "age", "in_a", "in_b"}) {
				t.Errorf("columns = %v", keys)
			}
			jsonEq(t, "rows", rows, [][]any{{3, "Charlie", 35, false, true}})
		}},
		{tool: "top_k_diff", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "top_k_diff", map[string]any{"model": "customers", "column_name": "name", "k": 10})
			jsonEq(t, "top_k_diff", []any{out["base"], out["current"]}, []any{
				map[string]any{"values": []any{"Alice", "Bob", "Charlie"}, "counts": []any{1, 1, 0}, "valids": 2, "total": 2},
				map[string]any{"values": []any{"Alice", "Bob", "Charlie"}, "counts": []any{1, 1, 1}, "valids": 3, "total": 3},
			})
		}},
		{tool: "histogram_diff", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "histogram_diff", map[string]any{"model": "customers", "column_name": "age", "num_bins": 50})
			base, cur := make([]any, 11), make([]any, 11)
			for i := range base {
				base[i], cur[i] = 0, 0
			}
			base[0], base[5], cur[0], cur[5], cur[10] = 1, 1, 1, 1, 1
			var edges []any
			for v := 25; v <= 36; v++ {
				edges = append(edges, v)
			}
			jsonEq(t, "histogram", []any{out["base"], out["current"], out["min"], out["max"], out["bin_edges"]},
				[]any{map[string]any{"counts": base, "total": 2}, map[string]any{"counts": cur, "total": 3}, 25, 35, edges})
			if l := out["labels"].([]any); len(l) != 11 || l[0] != "25-26" {
				t.Errorf("labels = %v", l)
			}
		}},
		{tool: "list_checks", check: func(t *testing.T, e *contractEnv) {
			out := e.result(t, "list_checks", map[string]any{})
			jsonEq(t, "empty list", []any{out["checks"], out["total"], out["approved"]}, []any{[]any{}, 0, 0})
		}},
		{tool: "create_check", check: func(t *testing.T, e *contractEnv) {
			args := map[string]any{"type": "row_count_diff", "params": map[string]any{"node_names": []string{"customers"}}, "name": "Row count of customers"}
			out := e.result(t, "create_check", args)
			id, _ := out["check_id"].(string)
			if len(id) != 36 || out["created"] != true || out["run_executed"] != true {
				t.Fatalf("create_check = %v", out)
			}
			if _, ok := out["run_error"]; ok {
				t.Errorf("a successful run has run_error %v", out["run_error"])
			}
			l := e.result(t, "list_checks", map[string]any{})
			checks := l["checks"].([]any)
			c := checks[0].(map[string]any)
			if l["total"] != 1.0 || l["approved"] != 1.0 || c["check_id"] != id || c["is_checked"] != true || c["is_preset"] != false ||
				c["type"] != "row_count_diff" || c["name"] != "Row count of customers" || c["description"] != "" {
				t.Errorf("list_checks after create = %v", l)
			}
			jsonEq(t, "params", c["params"], map[string]any{"node_names": []any{"customers"}})
			// Idempotent on (type, params): the name is updated.
			args["name"] = "Customers rows"
			again := e.result(t, "create_check", args)
			if again["created"] != false || again["check_id"] != id {
				t.Errorf("second create_check = %v", again)
			}
			if l := e.result(t, "list_checks", map[string]any{}); l["total"] != 1.0 || l["checks"].([]any)[0].(map[string]any)["name"] != "Customers rows" {
				t.Errorf("after the second create: %v", l)
			}
			// A failing run: run_executed false, run_error set, not approved.
			bad := e.result(t, "create_check", map[string]any{"type": "value_diff", "params": map[string]any{"model": "customers", "primary_key": "nope"}, "name": "Broken"})
			if bad["created"] != true || bad["run_executed"] != false || !strings.Contains(fmt.Sprint(bad["run_error"]), `"nope"`) {
				t.Errorf("failing create_check = %v", bad)
			}
			if l := e.result(t, "list_checks", map[string]any{}); l["approved"] != 1.0 {
				t.Errorf("a failed run approved its check: %v", l)
			}
		}},
		{tool: "run_check", check: func(t *testing.T, e *contractEnv) {
			created := e.result(t, "create_check", map[string]any{"type": "row_count_diff", "params": map[string]any{"node_names": []string{"orders"}}, "name": "Orders rows", "run": false})
			run := e.result(t, "run_check", map[string]any{"check_id": created["check_id"], "triggered_by": "recce_ai"})
			if !slices.Equal(keysOf(run), []string{"check_id", "error", "finished_at", "name", "params", "progress", "result", "run_at", "run_id", "status", "triggered_by", "type"}) {
				t.Errorf("run dump keys = %v", keysOf(run))
			}
			if run["status"] != "Finished" || run["type"] != "row_count_diff" || run["check_id"] != created["check_id"] || run["triggered_by"] != "recce_ai" ||
				run["error"] != nil || run["name"] != "Row count diff of orders" || len(run["run_at"].(string)) != len("2006-01-02T15:04:05Z") {
				t.Errorf("run = %v", run)
			}
			jsonEq(t, "run result", run["result"].(map[string]any)["orders"], map[string]any{"base": 2, "curr": 3, "base_meta": map[string]any{"status": "ok"}, "curr_meta": map[string]any{"status": "ok"}})
			approved := false
			for _, c := range e.result(t, "list_checks", map[string]any{})["checks"].([]any) {
				if c := c.(map[string]any); c["check_id"] == created["check_id"] {
					approved = c["is_checked"] == true
				}
			}
			if created["run_executed"] != false || !approved {
				t.Errorf("run=false must only save the check (%v); the Finished run_check must approve it (%v)", created, approved)
			}
			if res := call(t, e.cs, "run_check", map[string]any{"check_id": "00000000-0000-4000-8000-000000000000"}); !res.IsError || !strings.Contains(text(res), "not found") {
				t.Errorf("unknown check: %q", text(res))
			}
		}},
		{tool: "impact_analysis", check: func(t *testing.T, e *contractEnv) {
			// customers gains a row (Charlie), users gains a column; orders
			// and segments read customers, so they gain the row too.
			out := e.result(t, "impact_analysis", map[string]any{})
			jsonEq(t, "impact_analysis counts", map[string]any{
				"modified_count": out["modified_count"], "downstream_count": out["downstream_count"],
				"max_affected_row_count": out["max_affected_row_count"], "confirmed_not_impacted_models": out["confirmed_not_impacted_models"],
				"not_impacted_by_column_lineage_count": out["not_impacted_by_column_lineage_count"], "errors": out["errors"],
				"detail": out["detail"], "single_env": out["single_env"], "classification_source": out["classification_source"],
			}, map[string]any{
				"modified_count": 2, "downstream_count": 2, "max_affected_row_count": 1, "confirmed_not_impacted_models": []any{},
				"not_impacted_by_column_lineage_count": 0, "errors": []any{}, "detail": "compact", "single_env": false,
				"classification_source": "column_lineage",
			})
			jsonEq(t, "schema_coverage", out["schema_coverage"], map[string]any{"status": "complete", "unchecked_nodes": []any{}, "unchecked_node_count": 0, "more": false})
			models := out["confirmed_impacted_models"].([]any)
			var names []string
			for _, m := range models {
				names = append(names, m.(map[string]any)["name"].(string))
			}
			if !slices.Equal(names, []string{"customers", "users", "orders", "segments"}) {
				t.Fatalf("confirmed_impacted_models = %v, want modified customers, users, then downstream orders, segments", names)
			}
			// users: verified unchanged, so compact detail gives it one short row.
			jsonEq(t, "users (compact)", models[1], map[string]any{"name": "users", "change_status": "modified", "materialized": "table", "data_impact": "none", "affected_row_count": 0})
			pick := func(m any, keys ...string) map[string]any {
				out := map[string]any{}
				for _, k := range keys {
					out[k] = m.(map[string]any)[k]
				}
				return out
			}
			fields := []string{"unique_id", "change_status", "classification", "data_impact", "affected_row_count", "verdict_basis", "row_count",
				"schema_changes", "primary_key", "key_source", "key_verified", "impacted_via", "code_changed_columns", "next_action"}
			rows := map[string]any{"base": 2, "current": 3, "delta": 1, "delta_pct": 50}
			jsonEq(t, "customers", pick(models[0], fields...), map[string]any{
				"unique_id": "model.ripple_test.customers", "change_status": "modified", "classification": "modified", "data_impact": "confirmed",
				"affected_row_count": 1, "verdict_basis": "value_diff", "row_count": rows, "schema_changes": []any{}, "primary_key": []any{"id"},
				"key_source": "test", "key_verified": true, "impacted_via": nil, "code_changed_columns": []any{"age", "id", "name"}, "next_action": nil,
			})
			jsonEq(t, "customers value_diff", models[0].(map[string]any)["value_diff"], map[string]any{
				"affected_row_count": 1, "rows_added": 1, "rows_removed": 0, "rows_changed": 0, "primary_key": []any{"id"},
				"columns": map[string]any{
					"age":  map[string]any{"affected_row_count": 0, "base_mean": 27.5, "current_mean": 30},
					"id":   map[string]any{"affected_row_count": 0, "base_mean": nil, "current_mean": nil},
					"name": map[string]any{"affected_row_count": 0, "base_mean": nil, "current_mean": nil},
				},
			})
			for i, want := range []map[string]any{
				// A downstream model's code did not change: its reached columns
				// are impacted_columns, never code_changed_columns.
				{"unique_id": "model.ripple_test.orders", "impacted_via": []any{"customers.id"}, "code_changed_columns": nil, "impacted_columns": []any{"amount", "customer_id", "id"}},
				{"unique_id": "model.ripple_test.segments", "impacted_via": []any{"customers.age", "customers.id"}, "code_changed_columns": nil, "impacted_columns": []any{"id", "segment"}},
			} {
				want["change_status"], want["classification"], want["data_impact"], want["affected_row_count"] = nil, "downstream", "confirmed", 1
				want["verdict_basis"], want["row_count"], want["schema_changes"], want["primary_key"] = "value_diff", rows, []any{}, []any{"id"}
				want["key_source"], want["key_verified"], want["next_action"] = "lineage", true, nil
				m := models[2+i]
				jsonEq(t, want["unique_id"].(string), pick(m, append(fields, "impacted_columns")...), want)
				vd := m.(map[string]any)["value_diff"].(map[string]any)
				jsonEq(t, want["unique_id"].(string)+" value_diff rows", pick(vd, "rows_added", "rows_removed", "rows_changed", "affected_row_count"),
					map[string]any{"rows_added": 1, "rows_removed": 0, "rows_changed": 0, "affected_row_count": 1})
			}
			// detail=full: users' whole entry, with the schema change from the catalogs.
			full := e.result(t, "impact_analysis", map[string]any{"detail": "full", "select": "users"})
			fm := full["confirmed_impacted_models"].([]any)
			if len(fm) != 1 {
				t.Fatalf("select users lists %d models: %v", len(fm), fm)
			}
			jsonEq(t, "users (full)", pick(fm[0], "name", "change_status", "data_impact", "affected_row_count", "code_changed_columns", "primary_key", "key_source", "key_verified"),
				map[string]any{"name": "users", "change_status": "modified", "data_impact": "none", "affected_row_count": 0, "code_changed_columns": []any{"email"},
					"primary_key": []any{"id"}, "key_source": "name", "key_verified": true})
			sc := fm[0].(map[string]any)["schema_changes"].([]any)
			if len(sc) != 1 || sc[0].(map[string]any)["column"] != "email" || sc[0].(map[string]any)["change_status"] != "added" {
				t.Errorf("users schema_changes = %v, want email added", sc)
			}
			vd := fm[0].(map[string]any)["value_diff"].(map[string]any)
			jsonEq(t, "users value_diff rows", pick(vd, "rows_added", "rows_removed", "rows_changed", "affected_row_count"),
				map[string]any{"rows_added": 0, "rows_removed": 0, "rows_changed": 0, "affected_row_count": 0})
			// select limits the listing, never what counts as changed.
			if full["modified_count"] != 1.0 || full["max_affected_row_count"] != 0.0 {
				t.Errorf("select users: modified_count %v max_affected_row_count %v, want 1 0", full["modified_count"], full["max_affected_row_count"])
			}
		}},
	}
}

// TestSeedContract calls every seed tool with the peer's parameter names
// and asserts the peer's result shapes, on DuckDB and PostgreSQL.
func TestSeedContract(t *testing.T) {
	cases := contractCases()
	var tools []string
	for _, c := range cases {
		tools = append(tools, c.tool)
	}
	recce, _ := ops.ResolveToolsets([]string{"recce"})
	if len(tools) != len(recce) {
		t.Fatalf("the contract covers %v; the recce toolset is %v", tools, keysOf(anyMap(recce)))
	}
	onEveryWarehouseMCP(t, contractScenario, func(t *testing.T, e *contractEnv) {
		for _, c := range cases {
			if !recce[c.tool] {
				t.Errorf("%s is not a seed tool", c.tool)
			}
			t.Run(c.tool, func(t *testing.T) { c.check(t, e) })
		}
	})
}

func anyMap(m map[string]bool) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestDeprecatedNamesStillWork: each renamed parameter still works under
// its old name, is marked deprecated in the schema, and conflicts with the
// new name are refused.
func TestDeprecatedNamesStillWork(t *testing.T) {
	onEveryWarehouseMCP(t, contractScenario, func(t *testing.T, e *contractEnv) {
		res, err := e.cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		schemas := map[string]map[string]any{}
		for _, tool := range res.Tools {
			raw, _ := json.Marshal(tool.InputSchema)
			var m map[string]any
			_ = json.Unmarshal(raw, &m)
			schemas[tool.Name] = m
		}
		for _, c := range []struct{ tool, old, canonical string }{
			{"query", "sql", "sql_template"},
			{"query_diff", "sql", "sql_template"},
			{"query_diff", "base_sql", "base_sql_template"},
			{"schema_diff", "node_ids", "node_id"},
		} {
			p := schemas[c.tool]["properties"].(map[string]any)[c.old].(map[string]any)
			if p["deprecated"] != true || p["description"] != "Deprecated: use "+c.canonical+"." {
				t.Errorf("%s.%s schema = %v", c.tool, c.old, p)
			}
		}
		// The published required set is the peer's.
		jsonEq(t, "query required", schemas["query"]["required"], []any{"sql_template"})

		sql := "SELECT count(*) AS cnt FROM {{ ref('customers') }}"
		old := e.result(t, "query", map[string]any{"sql": sql})
		canon := e.result(t, "query", map[string]any{"sql_template": sql})
		if _, o := frame(t, "old", old); o[0][0] != 3.0 {
			t.Errorf("query with sql = %v", old)
		}
		if old["sql"] != canon["sql"] {
			t.Errorf("the same statement ran: %v / %v", old["sql"], canon["sql"])
		}
		qd := e.result(t, "query_diff", map[string]any{"sql": "SELECT id FROM {{ ref('customers') }}", "base_sql": "SELECT id FROM {{ ref('customers') }} WHERE id = 1", "primary_keys": []string{"id"}})
		if _, rows := frame(t, "diff", qd["diff"]); len(rows) != 2 {
			t.Errorf("query_diff with sql/base_sql: %v", rows)
		}
		sd := e.result(t, "schema_diff", map[string]any{"node_ids": []string{"model.ripple_test.users"}})
		if _, rows := frame(t, "schema_diff", sd); len(rows) != 1 {
			t.Errorf("schema_diff with node_ids: %v", rows)
		}
		for _, bad := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"query", map[string]any{"sql": "select 1", "sql_template": "select 2"}, "sql_template and its deprecated alias sql are both set and differ"},
			{"query", map[string]any{"base": true}, `missing required parameter "sql_template"`},
			{"query", map[string]any{"sql_templat": "select 1"}, `unknown parameter "sql_templat" of query; did you mean "sql_template"?`},
		} {
			r := call(t, e.cs, bad.tool, bad.args)
			if !r.IsError || !strings.Contains(text(r), bad.want) || !strings.HasPrefix(text(r), "Input validation error: ") {
				t.Errorf("%s %v: %q, want %q", bad.tool, bad.args, text(r), bad.want)
			}
		}
	})
}
