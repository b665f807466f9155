package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// everyProtocolVersion is what `ripple mcp` serves: the stateless
// 2026-07-28 protocol (server/discover, no initialize) and the four
// handshake-era versions.
var everyProtocolVersion = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// wireLog is a goroutine-safe copy of the JSON-RPC lines a client sent and received.
type wireLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *wireLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *wireLog) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// startHTTP runs `ripple mcp --http` on a free loopback port (stateless
// when asked) and returns its /mcp URL once /health answers.
func startHTTP(t *testing.T, stateless bool) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	args := []string{"mcp", "--project-dir", suite.demoDir, "--duckdb", suite.dbPath, "--http", addr}
	if stateless {
		args = append(args, "--stateless")
	}
	cmd := exec.Command(suite.bin, args...)
	cmd.Dir, cmd.Env = suite.work, cleanEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return "http://" + addr + "/mcp"
			}
		}
	}
	t.Fatalf("ripple mcp --http %s did not answer /health within 30 s:\n%s", addr, stderr.String())
	return ""
}

// connectAt connects the Go SDK client to the binary over a transport at a
// protocol version, logging the wire.
func connectAt(t *testing.T, transport, version string, stderr io.Writer) (*mcp.ClientSession, *wireLog) {
	t.Helper()
	needSuite(t)
	var tr mcp.Transport
	switch transport {
	case "stdio":
		cmd := exec.Command(suite.bin, "mcp", "--project-dir", suite.demoDir, "--duckdb", suite.dbPath)
		cmd.Dir, cmd.Env = suite.work, cleanEnv()
		cmd.Stderr = stderr
		tr = &mcp.CommandTransport{Command: cmd}
	case "http":
		tr = &mcp.StreamableClientTransport{Endpoint: startHTTP(t, false)}
	case "http-stateless":
		tr = &mcp.StreamableClientTransport{Endpoint: startHTTP(t, true)}
	}
	wire := &wireLog{}
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-protocol", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.LoggingTransport{Transport: tr, Writer: wire}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting at %s over %s: %v\n%s", version, transport, err, wire)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, wire
}

// TestEveryProtocolVersionEndToEnd: the binary speaks each version over
// stdio and streamable HTTP (stateful and stateless): 2026-07-28 through
// server/discover without initialize, the others through initialize; then
// a tool call, the review app resource and a ping work.
func TestEveryProtocolVersionEndToEnd(t *testing.T) {
	for _, transport := range []string{"stdio", "http", "http-stateless"} {
		for _, v := range everyProtocolVersion {
			t.Run(transport+"/"+v, func(t *testing.T) {
				cs, wire := connectAt(t, transport, v, io.Discard)
				// A stateful HTTP session is the handshake era's: the SDK's
				// stateful handler refuses server/discover, and the client
				// falls back to initialize at 2025-11-25. --stateless serves
				// 2026-07-28.
				want, fallback := v, transport == "http" && v >= "2026-07-28"
				if fallback {
					want = "2025-11-25"
				}
				if got := cs.InitializeResult().ProtocolVersion; got != want {
					t.Fatalf("negotiated %s, want %s", got, want)
				}
				ctx := context.Background()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_model", Arguments: map[string]any{"model_id": "model.jaffle_shop.customers"}})
				if err != nil || res.IsError {
					t.Fatalf("get_model: %v %+v", err, res)
				}
				var out struct {
					Model struct {
						Current struct {
							Columns map[string]any `json:"columns"`
						} `json:"current"`
					} `json:"model"`
				}
				raw, _ := json.Marshal(res.StructuredContent)
				if err := json.Unmarshal(raw, &out); err != nil || out.Model.Current.Columns["full_name"] == nil {
					t.Errorf("get_model customers: no current column full_name in %s", raw)
				}
				app, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ui://ripple/review"})
				if err != nil || len(app.Contents) != 1 || app.Contents[0].MIMEType != "text/html;profile=mcp-app" {
					t.Fatalf("resources/read ui://ripple/review: %v %+v", err, app)
				}
				if err := cs.Ping(ctx, nil); err != nil {
					t.Fatal(err)
				}
				sent := wire.String()
				discover, initialize := strings.Contains(sent, `"method":"server/discover"`), strings.Contains(sent, `"method":"initialize"`)
				wantDiscover, wantInit := v >= "2026-07-28", v < "2026-07-28" || fallback
				if discover != wantDiscover || initialize != wantInit {
					t.Errorf("%s: server/discover sent %v (want %v), initialize sent %v (want %v)", v, discover, wantDiscover, initialize, wantInit)
				}
			})
		}
	}
}

// TestCancelledCallStopsTheWarehouseQuery: a tools/call cancelled by the
// client (notifications/cancelled on handshake-era sessions, the same
// under 2026-07-28) interrupts the DuckDB query behind it: the server logs
// the query as canceled at once (it would run for minutes), and the session
// keeps serving.
func TestCancelledCallStopsTheWarehouseQuery(t *testing.T) {
	for _, v := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(v, func(t *testing.T) {
			errBuf := &wireLog{}
			cs, _ := connectAt(t, "stdio", v, errBuf)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "query", Arguments: map[string]any{
					// About 10^11 rows: minutes of DuckDB work on any machine.
					"sql_template": "select count(*) as n from range(100000000000) t(i) where i % 7 = 3",
				}})
				done <- err
			}()
			time.Sleep(1500 * time.Millisecond) // the query is running
			cancel()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("the cancelled call returned a result")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the cancelled call did not return within 10 s")
			}
			// The server answers the next call: the warehouse is free.
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "query", Arguments: map[string]any{"sql_template": "select 42 as n"}})
			if err != nil || res.IsError {
				t.Fatalf("the next query: %v %+v", err, res)
			}
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("cancel and next query took %s", took)
			}
			_ = cs.Close()
			if log := errBuf.String(); !strings.Contains(log, "class=canceled") || !strings.Contains(log, "tool query") {
				t.Errorf("the server did not log the query as canceled:\n%s", log)
			}
		})
	}
}
