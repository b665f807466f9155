package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/ripple-data/ripple/internal/ops"
)

func TestZZDumpAll(t *testing.T) {
	h := newHarnessWith(t, Options{Toolsets: []string{os.Getenv("TS")}}, ops.Config{Paths: fixturePaths(t)})
	cs := h.connect(t, "", nil)
	res, _ := cs.ListTools(context.Background(), nil)
	b, _ := json.Marshal(res)
	os.WriteFile(os.Getenv("OUT"), b, 0o644)
}
