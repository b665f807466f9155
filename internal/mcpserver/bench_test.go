package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/synth"
)

var (
	synthOnce sync.Once
	synthDir  string
	synthErr  error
	// synthChanged is the name of one model whose SQL changed.
	synthChanged string
)

// synthProject writes a 5,000-model project once per test binary.
func synthProject(tb testing.TB) string {
	tb.Helper()
	synthOnce.Do(func() {
		dir, err := mkTemp()
		if err != nil {
			synthErr = err
			return
		}
		p := synth.Generate(synth.Options{Models: 5000, Seed: 1})
		id := p.ChangedIDs[0]
		synthChanged = id[strings.LastIndex(id, ".")+1:]
		synthDir, synthErr = dir, p.Write(dir)
	})
	if synthErr != nil {
		tb.Fatal(synthErr)
	}
	return synthDir
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(float64(len(s)-1)*p)]
}

func reportLatency(b *testing.B, lat []time.Duration) {
	b.ReportMetric(float64(percentile(lat, 0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "p99-ms")
}

func TestLargeResultsAreCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 5,000-model project")
	}
	h := newHarness(t, ops.Default(), dbt.Paths{ProjectDir: synthProject(t)}, ModeServer)
	cs := h.connect(t, "2025-11-25", nil)
	var out map[string]any
	structured(t, call(t, cs, "lineage_diff", map[string]any{"view_mode": "all"}), &out)
	if out["truncated"] != true || out["returned_nodes"] != float64(lineage.ViewAllMaxNodes) || out["total_nodes"].(float64) < 5000 {
		t.Errorf("view_mode all on 5,000 models: truncated %v returned %v total %v", out["truncated"], out["returned_nodes"], out["total_nodes"])
	}
}

// BenchmarkLineageDiff5000 measures a warm lineage_diff through a full MCP
// session over the in-memory transport ("mcp-*"), and the same operation
// called directly plus JSON encoding ("direct-*"), so that the difference is
// the server's overhead. "changed" is the default view (changed_models: on
// this project 62 changed models impact 3,171 nodes, a 330 KB result);
// "one" selects a single changed model.
func BenchmarkLineageDiff5000(b *testing.B) {
	dir := synthProject(b)
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"changed", map[string]any{}},
		{"one", map[string]any{"select": synthChanged, "view_mode": "all"}},
	} {
		b.Run("mcp-"+tc.name, func(b *testing.B) {
			h := newHarness(b, ops.Default(), dbt.Paths{ProjectDir: dir}, ModeServer)
			cs := h.connect(b, "2025-11-25", nil)
			ctx := context.Background()
			params := &mcp.CallToolParams{Name: "lineage_diff", Arguments: tc.args}
			if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
				b.Fatalf("warm-up: %v %v", err, res)
			}
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				res, err := cs.CallTool(ctx, params)
				lat = append(lat, time.Since(start))
				if err != nil || res.IsError {
					b.Fatalf("%v %v", err, res)
				}
			}
			reportLatency(b, lat)
		})
		b.Run("direct-"+tc.name, func(b *testing.B) {
			sess := ops.NewSession(ops.Config{Paths: dbt.Paths{ProjectDir: dir}})
			op, _ := ops.Default().Get("lineage_diff")
			raw, _ := json.Marshal(tc.args)
			ctx := context.Background()
			if _, err := op.CallJSON(ctx, sess, raw); err != nil {
				b.Fatal(err)
			}
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				out, err := op.CallJSON(ctx, sess, raw)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(out); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			reportLatency(b, lat)
		})
	}
}

// BenchmarkHTTP50Clients runs lineage_diff from 50 concurrent streamable
// HTTP sessions on the 5,000-model project (one op = one call from each of
// the 50 sessions at once); any error fails.
func BenchmarkHTTP50Clients(b *testing.B) {
	dir := synthProject(b)
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"changed", map[string]any{}},
		{"one", map[string]any{"select": synthChanged, "view_mode": "all"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			h := newHarness(b, ops.Default(), dbt.Paths{ProjectDir: dir}, ModeServer)
			ts := httptest.NewServer(h.srv.HTTPHandler(HTTPOptions{}))
			defer ts.Close()
			ctx := context.Background()
			sessions := make([]*mcp.ClientSession, 50)
			for i := range sessions {
				c := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprint("bench", i), Version: "1"}, nil)
				cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				sessions[i] = cs
			}
			var mu sync.Mutex
			var lat []time.Duration
			for b.Loop() {
				var wg sync.WaitGroup
				for _, cs := range sessions {
					wg.Add(1)
					go func() {
						defer wg.Done()
						start := time.Now()
						res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lineage_diff", Arguments: tc.args})
						d := time.Since(start)
						if err != nil || res.IsError {
							b.Errorf("%v %v", err, res)
						}
						mu.Lock()
						lat = append(lat, d)
						mu.Unlock()
					}()
				}
				wg.Wait()
			}
			reportLatency(b, lat)
		})
	}
}

func mkTemp() (string, error) { return os.MkdirTemp("", "ripple-mcp-bench-") }

// BenchmarkCallOverhead is the floor of a tools/call through the server
// (validation, dispatch, encoding, in-memory transport, client decoding)
// with an operation that does no work.
func BenchmarkCallOverhead(b *testing.B) {
	h := newHarness(b, testRegistry(nil), fixturePaths(b), ModeServer)
	cs := h.connect(b, "2025-11-25", nil)
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "echo_flag", Arguments: map[string]any{"flag": true}}
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		res, err := cs.CallTool(ctx, params)
		lat = append(lat, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
	reportLatency(b, lat)
}
