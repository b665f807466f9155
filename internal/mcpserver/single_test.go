package mcpserver

import (
	"testing"

	"github.com/ripple-data/ripple/internal/demo"
)

// The peer's single-environment run types over MCP, on the demo: row_count
// and profile measure current only, and get_server_info says they run.
func TestSingleEnvironmentTasks(t *testing.T) {
	cs := demoServer(t, 0)
	var info map[string]any
	structured(t, call(t, cs, "get_server_info", map[string]any{}), &info)
	tasks := info["support_tasks"].(map[string]any)
	if tasks["row_count"] != true || tasks["profile"] != true {
		t.Errorf("support_tasks row_count %v, profile %v: want true", tasks["row_count"], tasks["profile"])
	}

	var counts map[string]any
	structured(t, call(t, cs, "row_count", map[string]any{"node_names": []string{"customers", "customer_segments", "customer_orders_legacy"}}), &counts)
	for name, want := range map[string]struct {
		curr   any
		status string
	}{
		"customers":              {float64(demo.NumCustomers), "ok"},
		"customer_segments":      {float64(demo.NumCustomers), "ok"}, // added in current
		"customer_orders_legacy": {nil, "not_in_manifest"},           // removed from current
	} {
		c := counts[name].(map[string]any)
		if c["curr"] != want.curr || c["curr_meta"].(map[string]any)["status"] != want.status {
			t.Errorf("%s: %v, want curr %v status %s", name, c, want.curr, want.status)
		}
		if _, diffShape := c["base"]; diffShape {
			t.Errorf("%s: row_count carries base: %v", name, c)
		}
	}

	if id, _ := counts["run_id"].(string); id == "" {
		t.Errorf("row_count is run-backed: no run_id in %v", counts)
	}
	var prof map[string]any
	structured(t, call(t, cs, "profile", map[string]any{"model": "customers", "columns": []string{"customer_id"}}), &prof)
	if _, ok := prof["base"]; ok {
		t.Errorf("profile carries base: %v", prof)
	}
	cur := prof["current"].(map[string]any)
	cols := []string{}
	for _, c := range cur["columns"].([]any) {
		cols = append(cols, c.(map[string]any)["key"].(string))
	}
	row := cur["data"].([]any)[0].([]any)
	got := map[string]any{}
	for i, k := range cols {
		got[k] = row[i]
	}
	n := float64(demo.NumCustomers)
	if got["column_name"] != "customer_id" || got["row_count"] != n || got["distinct_count"] != n || got["is_unique"] != true ||
		got["not_null_proportion"] != 1.0 || got["min"] != "1" || got["max"] != "2000" {
		t.Errorf("profile of customers.customer_id = %v", got)
	}
}
