package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/demo"
	"github.com/ripple-data/ripple/internal/memtest"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/duckdb"
)

// A query of 200,000 rows of 1,000 bytes: 200 MB if it were read whole.
const hugeQuery = "SELECT i, repeat('x', 1000) AS pad FROM range(200000) r(i) ORDER BY i"

// demoServer serves the demo project (DuckDB, read-only and guarded as
// `ripple mcp` opens it) with the given reply cap.
func demoServer(t testing.TB, maxReply int64) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	d, err := demo.Build(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := d.Built
	h := newHarnessWith(t, Options{Toolsets: []string{ops.ToolsetAll}, MaxReplyBytes: maxReply}, ops.Config{
		Paths:     b.Paths,
		StatePath: filepath.Join(t.TempDir(), "ripple_state.json"),
		OpenWarehouse: func(ctx context.Context, _ *dbt.Project) (warehouse.Conn, error) {
			c, err := duckdb.Open(ctx, duckdb.Options{Path: b.DBPath, ReadOnly: true, Catalog: b.Database})
			if err != nil {
				return nil, err
			}
			return warehouse.Guarded(c, warehouse.Limits{}), nil
		},
	})
	return h.connect(t, "", nil)
}

// replyBytes is the tool result as the server writes it (inside the
// JSON-RPC envelope, which adds a few dozen bytes).
func replyBytes(t testing.TB, res *mcp.CallToolResult) int {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// Every result fits the reply cap: rows are cut from the end, the frame
// says so with the total and how to get the rest; two frames share the cap.
func TestReplyBounded(t *testing.T) {
	cs := demoServer(t, 0)
	cases := []struct {
		tool   string
		args   map[string]any
		frames []string
	}{
		{"query", map[string]any{"sql_template": hugeQuery}, []string{""}},
		{"query_diff", map[string]any{"sql_template": hugeQuery}, []string{"base", "current"}},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			res := call(t, cs, tc.tool, tc.args)
			if res.IsError {
				t.Fatalf("tool error: %s", text(res))
			}
			if n := replyBytes(t, res); n > int(DefaultMaxReplyBytes) {
				t.Errorf("reply is %d bytes, over the 1 MiB cap", n)
			}
			var out map[string]any
			structured(t, res, &out)
			var fromText map[string]any
			if err := json.Unmarshal([]byte(text(res)), &fromText); err != nil {
				t.Fatal(err)
			}
			if a, b := jsonOf(fromText), jsonOf(out); a != b {
				t.Error("text content and structuredContent differ")
			}
			for _, key := range tc.frames {
				f := out
				if key != "" {
					f = out[key].(map[string]any)
				}
				rows := f["data"].([]any)
				if len(rows) < 100 || f["more"] != true || f["truncated"] != true {
					t.Errorf("%s: %d rows, more %v, truncated %v: want a cut frame", key, len(rows), f["more"], f["truncated"])
				}
				if f["total_row_count"] != float64(200000) {
					t.Errorf("%s: total_row_count %v, want 200000", key, f["total_row_count"])
				}
				if h, _ := f["hint"].(string); !strings.Contains(h, "narrow the query") {
					t.Errorf("%s: hint %q does not say how to get the rest", key, h)
				}
				// The rows kept are the first ones, in order.
				if first := rows[0].([]any)[0]; first != float64(0) {
					t.Errorf("%s: first row %v, want 0", key, first)
				}
			}
		})
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestReplyCapConfigurable(t *testing.T) {
	cs := demoServer(t, 64<<10)
	res := call(t, cs, "query", map[string]any{"sql_template": hugeQuery})
	if n := replyBytes(t, res); n > 64<<10 || res.IsError {
		t.Fatalf("reply %d bytes (error %v), want ≤ 64 KiB", n, res.IsError)
	}
	var out map[string]any
	structured(t, res, &out)
	// (32 KiB - 256) of rows of 1,000-byte values, each ~1,015 bytes.
	if n := len(out["data"].([]any)); n < 25 || n > 32 {
		t.Errorf("%d rows under a 64 KiB cap, want about 31", n)
	}
}

func TestBoundReply(t *testing.T) {
	big := strings.Repeat("y", 1000)
	rows := make([]any, 100)
	for i := range rows {
		rows[i] = []any{i, big}
	}
	frameJSON := func(rows []any) map[string]any {
		return map[string]any{"columns": []any{}, "data": rows, "more": false, "limit": nil, "total_row_count": len(rows)}
	}
	t.Run("frames cut largest first", func(t *testing.T) {
		data, _ := json.Marshal(map[string]any{"base": frameJSON(rows[:20]), "current": frameJSON(rows), "sql": "x"})
		out, err := boundReply(data, 40_000)
		if err != nil {
			t.Fatal(err)
		}
		if n := wireBytes(out); n > 40_000 {
			t.Fatalf("%d bytes on the wire, want ≤ 40,000", n)
		}
		var v struct{ Base, Current map[string]any }
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		if len(v.Current["data"].([]any)) >= 20 || v.Current["truncated"] != true || v.Current["total_row_count"] != float64(100) {
			t.Errorf("current frame not cut as expected: %d rows, truncated %v, total %v", len(v.Current["data"].([]any)), v.Current["truncated"], v.Current["total_row_count"])
		}
	})
	t.Run("under the cap untouched", func(t *testing.T) {
		data, _ := json.Marshal(frameJSON(rows[:2]))
		out, err := boundReply(data, 1<<20)
		if err != nil || string(out) != string(data) {
			t.Fatalf("changed a result under the cap: %v", err)
		}
	})
	t.Run("no rows to cut", func(t *testing.T) {
		data, _ := json.Marshal(map[string]any{"names": rows})
		_, err := boundReply(data, 10_000)
		if err == nil || !strings.Contains(err.Error(), "--max-reply-bytes") {
			t.Fatalf("want an error naming the flag, got %v", err)
		}
	})
	t.Run("no cap", func(t *testing.T) {
		data, _ := json.Marshal(frameJSON(rows))
		out, err := boundReply(data, -1)
		if err != nil || len(out) != len(data) {
			t.Fatalf("a negative cap cut the result: %v", err)
		}
	})
}

// replyChildEnv runs TestReplyMemoryChild as the measured process.
const replyChildEnv = "RIPPLE_TEST_REPLY_CHILD"

// The 200 MB query over MCP: the reply is ≤ 1 MiB and the server process's
// peak RSS grows by less than 64 MiB over its baseline (2× the 1 MiB cap,
// plus DuckDB's vectors and the runtime's slack), where reading the whole
// result would take more than 200 MB. Measured in a fresh process
// (/proc/self/status VmHWM), so no other test's memory counts and a loaded
// machine changes only the time it takes.
func TestReplyMemory(t *testing.T) {
	var m struct{ BaselineKB, PeakKB, ReplyBytes int64 }
	memtest.RunChild(t, "TestReplyMemoryChild", []string{replyChildEnv + "=1"}, &m)
	t.Logf("baseline %d KiB, peak %d KiB, reply %d bytes", m.BaselineKB, m.PeakKB, m.ReplyBytes)
	if m.ReplyBytes > DefaultMaxReplyBytes {
		t.Errorf("reply %d bytes, want ≤ 1 MiB", m.ReplyBytes)
	}
	const allowanceKB = 64 << 10
	if m.PeakKB-m.BaselineKB > allowanceKB {
		t.Errorf("peak RSS grew by %d KiB, want ≤ %d KiB", m.PeakKB-m.BaselineKB, allowanceKB)
	}
}

func TestReplyMemoryChild(t *testing.T) {
	if os.Getenv(replyChildEnv) == "" {
		t.Skip("the measured child of TestReplyMemory")
	}
	cs := demoServer(t, 0)
	// Warm up: the connection, DuckDB's buffers, the SDK's encoders.
	call(t, cs, "query", map[string]any{"sql_template": "SELECT i, repeat('x', 1000) AS pad FROM range(500) r(i)"})
	base := memtest.StatusKB(t, "VmHWM")
	res := call(t, cs, "query", map[string]any{"sql_template": hugeQuery})
	if res.IsError {
		t.Fatal(text(res))
	}
	memtest.Report(t, map[string]any{"BaselineKB": base, "PeakKB": memtest.StatusKB(t, "VmHWM"), "ReplyBytes": replyBytes(t, res)})
}

// FuzzBoundReply: whatever JSON a result holds, boundReply returns valid
// JSON within the cap, or an error; under the cap it changes nothing.
func FuzzBoundReply(f *testing.F) {
	f.Add(`{"columns":[],"data":[[1,"a"],[2,"b"]],"more":false}`, int64(120))
	f.Add(`{"base":{"columns":[],"data":[[1]],"more":false},"current":{"columns":[],"data":[],"more":true}}`, int64(300))
	f.Add(`[1,2,3]`, int64(10))
	f.Fuzz(func(t *testing.T, in string, maxBytes int64) {
		if !json.Valid([]byte(in)) {
			return
		}
		data, err := encodeJSON(json.RawMessage(in))
		if err != nil {
			return
		}
		out, err := boundReply(data, maxBytes)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON out of %q", in)
		}
		if maxBytes >= 0 && wireBytes(out) > maxBytes {
			t.Fatalf("%d bytes on the wire over the cap %d", wireBytes(out), maxBytes)
		}
		if maxBytes < 0 || wireBytes(data) <= maxBytes {
			if string(out) != string(data) {
				t.Fatalf("a result within the cap was changed")
			}
		}
	})
}
