package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/ops"
)

// toolsListBudget is the most the default tools/list may weigh (compact
// JSON): every tool's description and full input schema and its described
// output schema are what an agent reads before its first call.
const toolsListBudget = 40_000

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
