package web_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/synth"
	"github.com/ripple-data/ripple/internal/web"
)

// TestAPIResultEqualsCLI proves the two surfaces return the same JSON: each
// operation called through POST /api/ops/<name> and through
// `ripple <op> --json` on the demo, compared as JSON values (run_id, a
// fresh uuid per run, left out).
func TestAPIResultEqualsCLI(t *testing.T) {
	g := demoGlobals(t, true)
	ts := startServer(t, g, web.Options{})
	sql := "select status, count(*) as n from {{ ref('orders') }} group by 1 order by 1"
	cases := []struct {
		op   string
		args map[string]any
		cli  []string
	}{
		{"lineage_diff", map[string]any{}, []string{"lineage-diff"}},
		{"lineage_diff", map[string]any{"view_mode": "all", "select": "+customers"}, []string{"lineage-diff", "--view-mode", "all", "--select", "+customers"}},
		{"get_model", map[string]any{"model_id": "customers"}, []string{"get-model", "customers"}},
		{"get_node", map[string]any{"node_id": "customers"}, []string{"get-node", "customers"}},
		{"schema_diff", map[string]any{}, []string{"schema-diff"}},
		{"get_cll", map[string]any{"node_id": "customers", "column": "customer_lifetime_value", "change_analysis": true},
			[]string{"get-cll", "customers", "--column", "customer_lifetime_value", "--change-analysis"}},
		{"column_impact", map[string]any{"node_id": "customers", "columns": []string{"customer_lifetime_value"}},
			[]string{"column-impact", "--node-id", "customers", "--columns", "customer_lifetime_value"}},
		{"row_count_diff", map[string]any{"node_names": []string{"customers", "orders"}}, []string{"row-count-diff", "--node-names", "customers,orders"}},
		{"value_diff", map[string]any{"model": "customers", "primary_key": []string{"customer_id"}},
			[]string{"value-diff", "--model", "customers", "--primary-key", "customer_id"}},
		{"value_diff_detail", map[string]any{"model": "customers", "primary_key": []string{"customer_id"}, "limit": 5},
			[]string{"value-diff-detail", "--model", "customers", "--primary-key", "customer_id", "--limit", "5"}},
		{"profile_diff", map[string]any{"model": "customers"}, []string{"profile-diff", "--model", "customers"}},
		{"top_k_diff", map[string]any{"model": "orders", "column_name": "status"}, []string{"top-k-diff", "--model", "orders", "--column-name", "status"}},
		{"histogram_diff", map[string]any{"model": "orders", "column_name": "amount", "num_bins": 5},
			[]string{"histogram-diff", "--model", "orders", "--column-name", "amount", "--num-bins", "5"}},
		{"query", map[string]any{"sql": sql}, []string{"query", "--sql", sql}},
		{"query_diff", map[string]any{"sql": sql, "primary_keys": []string{"status"}}, []string{"query-diff", "--sql", sql, "--primary-keys", "status"}},
		{"impact_analysis", map[string]any{}, []string{"impact-analysis"}},
		{"list_checks", map[string]any{}, []string{"list-checks"}},
		{"summary", map[string]any{}, []string{"summary"}},
	}
	for _, c := range cases {
		t.Run(c.op+"/"+strings.Join(c.cli[1:], "_"), func(t *testing.T) {
			status, api := ts.call(t, c.op, c.args)
			if status != http.StatusOK {
				t.Fatalf("API %s: %d %v", c.op, status, api)
			}
			var fromCLI map[string]any
			if err := json.Unmarshal(runCLI(t, g, c.cli...), &fromCLI); err != nil {
				t.Fatal(err)
			}
			delete(api, "run_id")
			delete(fromCLI, "run_id")
			if !reflect.DeepEqual(api, fromCLI) {
				a, _ := json.MarshalIndent(api, "", " ")
				b, _ := json.MarshalIndent(fromCLI, "", " ")
				t.Errorf("API and CLI differ for %s\nAPI: %.2000s\nCLI: %.2000s", c.op, a, b)
			}
		})
	}
}

// TestAPIDemoNumbers pins the demo's numbers as the UI receives them.
func TestAPIDemoNumbers(t *testing.T) {
	ts := startServer(t, demoGlobals(t, true), web.Options{})
	status, out := ts.call(t, "value_diff", map[string]any{"model": "customers", "primary_key": []string{"customer_id"}})
	if status != http.StatusOK {
		t.Fatalf("%d %v", status, out)
	}
	sum := out["summary"].(map[string]any)
	if sum["total"] != 2000.0 || sum["added"] != 0.0 || sum["removed"] != 0.0 || sum["changed"] != 1654.0 {
		t.Errorf("value_diff summary = %v, want total 2000, added 0, removed 0, changed 1654", sum)
	}
	if out["run_id"] == "" || out["run_id"] == nil {
		t.Errorf("a run-backed operation through the API carries its run_id: %v", out["run_id"])
	}
}

func TestAPIErrors(t *testing.T) {
	ts := startServer(t, demoGlobals(t, false), web.Options{})
	cases := []struct {
		name       string
		method     string
		path       string
		ctype      string
		body       string
		wantStatus int
		wantKind   string
		wantMsg    string
	}{
		{"unknown operation", "POST", "/api/ops/valu_diff", "application/json", `{}`, 404, "unknown_operation", "did you mean value_diff"},
		{"misspelt argument", "POST", "/api/ops/get_model", "application/json", `{"model_idd":"customers"}`, 400, "input", "Input validation error"},
		{"wrong type", "POST", "/api/ops/get_model", "application/json", `{"model_id":7}`, 400, "input", "Input validation error"},
		{"not JSON", "POST", "/api/ops/get_model", "application/json", `{"model_id":`, 400, "input", "not valid JSON"},
		{"unknown model", "POST", "/api/ops/get_model", "application/json", `{"model_id":"nosuch"}`, 400, "not_found", `"nosuch"`},
		{"form post", "POST", "/api/ops/list_checks", "application/x-www-form-urlencoded", `a=b`, 415, "input", "application/json"},
		{"bad selector", "POST", "/api/ui/lineage", "application/json", `{"select":"state:nonsense"}`, 400, "input", "unknown state"},
		{"unknown check type", "POST", "/api/ops/create_check", "application/json", `{"type":"valu_diff","name":"typo","params":{}}`, 400, "input", `unknown check type "valu_diff"`},
		{"unknown check type suggests", "POST", "/api/ops/create_check", "application/json", `{"type":"valu_diff","name":"typo","params":{}}`, 400, "input", `did you mean "value_diff"`},
		{"unknown check", "POST", "/api/ops/approve_check", "application/json", `{"check_id":"nope"}`, 400, "not_found", "nope"},
		{"failed query", "POST", "/api/ops/query", "application/json", `{"sql":"select * from no_such_table"}`, 422, "operation_failed", "no_such_table"},
		{"unknown endpoint", "GET", "/api/nothing", "", ``, 404, "not_found", "POST /api/ops/<name>"},
		{"GET an operation", "GET", "/api/ops/list_checks", "", ``, 404, "not_found", "POST /api/ops/<name>"},
		{"POST an asset", "POST", "/index.html", "application/json", `{}`, 405, "input", "not allowed"},
		{"too large", "POST", "/api/ops/get_model", "application/json", `{"model_id":"` + strings.Repeat("x", 2<<20) + `"}`, 413, "input", "larger than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, out := ts.do(t, c.method, c.path, c.ctype, []byte(c.body), nil)
			e, _ := out["error"].(map[string]any)
			if status != c.wantStatus || e == nil || e["kind"] != c.wantKind || !strings.Contains(e["message"].(string), c.wantMsg) {
				t.Errorf("%s %s = %d %v, want %d kind %s containing %q", c.method, c.path, status, out, c.wantStatus, c.wantKind, c.wantMsg)
			}
		})
	}
}

// TestAPIWarehouseErrorClass: a refused query carries the one classifier's class.
func TestAPIWarehouseErrorClass(t *testing.T) {
	ts := startServer(t, demoGlobals(t, true), web.Options{})
	status, out := ts.call(t, "query", map[string]any{"sql": "select * from no_such_table"})
	if e, _ := out["error"].(map[string]any); status != http.StatusUnprocessableEntity || e["warehouse_class"] != "table_not_found" {
		t.Errorf("query of a missing table = %d %v, want 422 with warehouse_class table_not_found", status, out)
	}
}

func TestAPIWithoutWarehouse(t *testing.T) {
	ts := serveSession(t, ops.NewSession(ops.Config{Paths: demoProject(t).Paths, StatePath: filepath.Join(t.TempDir(), "state.json")}), web.Options{})
	status, out := ts.call(t, "row_count_diff", map[string]any{"node_names": []string{"customers"}})
	if e, _ := out["error"].(map[string]any); status != http.StatusServiceUnavailable || e["kind"] != "no_warehouse" || !strings.Contains(e["message"].(string), "--duckdb") {
		t.Errorf("row_count_diff without a warehouse = %d %v, want 503 no_warehouse saying how to configure one", status, out)
	}
	_, info := ts.do(t, "GET", "/api/info", "", nil, nil)
	if info["warehouse"] != false {
		t.Errorf("/api/info warehouse = %v, want false", info["warehouse"])
	}
}

func TestReadOnlyRefusesAndHidesCheckWrites(t *testing.T) {
	ts := startServer(t, demoGlobals(t, false), web.Options{ReadOnly: true})
	status, out := ts.call(t, "create_check", map[string]any{"type": "schema_diff", "params": map[string]any{}})
	if e, _ := out["error"].(map[string]any); status != http.StatusForbidden || e["kind"] != "read_only" {
		t.Errorf("create_check on a read-only server = %d %v, want 403 read_only", status, out)
	}
	if _, err := os.Stat(ts.g.StateFile); err == nil {
		t.Errorf("a read-only server wrote the state file %s", ts.g.StateFile)
	}
	_, info := ts.do(t, "GET", "/api/info", "", nil, nil)
	names := map[string]bool{}
	for _, o := range info["operations"].([]any) {
		names[o.(map[string]any)["name"].(string)] = true
	}
	for _, w := range []string{"create_check", "run_check", "approve_check", "delete_check", "reorder_check"} {
		if names[w] {
			t.Errorf("read-only /api/info lists %s", w)
		}
	}
	if !names["list_checks"] || !names["lineage_diff"] || info["read_only"] != true {
		t.Errorf("read-only /api/info = %v", info)
	}
	if status, out := ts.call(t, "list_checks", map[string]any{}); status != http.StatusOK {
		t.Errorf("list_checks on a read-only server = %d %v", status, out)
	}
}

// TestUILineageIsUncapped: the lineage screen gets every node, while agents
// calling lineage_diff keep their 300-node cap.
func TestUILineageIsUncapped(t *testing.T) {
	dir := t.TempDir()
	if err := synth.Generate(synth.Options{Models: 400, Seed: 3}).Write(dir); err != nil {
		t.Fatal(err)
	}
	g := demoGlobals(t, false)
	g.ProjectDir = dir
	ts := startServer(t, g, web.Options{})
	_, capped := ts.call(t, "lineage_diff", map[string]any{"view_mode": "all"})
	_, full := ts.do(t, "POST", "/api/ui/lineage", "application/json", []byte(`{"view_mode":"all"}`), nil)
	total := full["total_nodes"].(float64)
	if capped["truncated"] != true || capped["returned_nodes"] != float64(lineage.ViewAllMaxNodes) {
		t.Errorf("lineage_diff view_mode=all on %v nodes: truncated %v returned %v", total, capped["truncated"], capped["returned_nodes"])
	}
	if total <= lineage.ViewAllMaxNodes || full["returned_nodes"] != total || full["truncated"] != nil {
		t.Errorf("/api/ui/lineage: returned %v of %v (truncated %v), want all", full["returned_nodes"], total, full["truncated"])
	}
	// The default view is lineage_diff's default too.
	_, a := ts.call(t, "lineage_diff", map[string]any{})
	_, b := ts.do(t, "POST", "/api/ui/lineage", "application/json", []byte(`{}`), nil)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the default (changed_models) view differs between lineage_diff and /api/ui/lineage")
	}
}
