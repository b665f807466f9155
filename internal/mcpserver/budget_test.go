package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/ops"
)

// toolsListBudget is the most the default tools/list may weigh (compact
// JSON): every tool's description and full input schema and its described
// output schema are what an agent reads before its first call. Issue #25
// added the semantic-layer reach of impact_analysis and column_impact
// (impacted_exposures/metrics/saved_queries/semantic_models, unit_tests):
// about 2.6 KB, so the budget went from 40,000 to 42,500.
const toolsListBudget = 42_500

// toolsListBytes is the size of the tools/list answer for the toolsets.
func toolsListBytes(t *testing.T, toolsets []string) (int, int) {
	t.Helper()
	h := newHarnessWith(t, Options{Toolsets: toolsets}, ops.Config{Paths: fixturePaths(t)})
	res, err := h.connect(t, "", nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Tools = withoutFixtures(res.Tools, func(t *mcp.Tool) string { return t.Name })
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return len(raw), len(res.Tools)
}

// TestToolsListBudget keeps the default tools/list within the budget and
// reports the size of every toolset (go test -v -run TestToolsListBudget).
func TestToolsListBudget(t *testing.T) {
	def, n := toolsListBytes(t, nil)
	t.Logf("default (%v): %d tools, %d bytes", ops.DefaultToolsets(), n, def)
	if def > toolsListBudget {
		t.Errorf("the default tools/list is %d bytes, over the %d-byte budget", def, toolsListBudget)
	}
	for _, ts := range append([]string{ops.ToolsetAll}, toolsetNames()...) {
		b, n := toolsListBytes(t, []string{ts})
		t.Logf("--toolsets %s: %d tools, %d bytes", ts, n, b)
	}
}

func toolsetNames() []string {
	var out []string
	for _, ts := range ops.Toolsets() {
		out = append(out, ts.Name)
	}
	return out
}

// TestToolsetsServeTheirTools: a toolset serves its tools (and the two
// MCP-only ones); another tool answers how to enable it.
func TestToolsetsServeTheirTools(t *testing.T) {
	h := newHarnessWith(t, Options{Toolsets: []string{"review"}}, ops.Config{Paths: fixturePaths(t)})
	cs := h.connect(t, "", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range withoutFixtures(res.Tools, func(t *mcp.Tool) string { return t.Name }) {
		names = append(names, tool.Name)
	}
	want := []string{"get_server_info", "render_lineage_mermaid", "set_backend", "sql_diff", "summary"}
	if !slices.Equal(names, want) {
		t.Errorf("--toolsets review lists %v, want %v", names, want)
	}
	r := call(t, cs, "lineage_diff", map[string]any{})
	if !r.IsError || !strings.Contains(text(r), "Tool 'lineage_diff' is not in the toolsets served (review): start `ripple mcp` with --toolsets recce (or all).") {
		t.Errorf("lineage_diff outside the toolsets: %q", text(r))
	}
	var info ServerInfo
	structured(t, call(t, cs, "get_server_info", nil), &info)
	if !slices.Equal(info.Toolsets, []string{"review"}) || !slices.Equal(info.Tools, want) {
		t.Errorf("server info toolsets %v tools %v", info.Toolsets, info.Tools)
	}
	if _, err := New(context.Background(), Options{Session: ops.NewSession(ops.Config{}), Toolsets: []string{"bogus"}}); err == nil ||
		!strings.Contains(err.Error(), `unknown toolset "bogus"`) {
		t.Errorf("unknown toolset: %v", err)
	}
}
