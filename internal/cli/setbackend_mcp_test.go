package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/demo"
)

// mcpStdio drives `ripple mcp` in-process over its stdio transport.
type mcpStdio struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *bufio.Reader
	nextID int
}

func startMCP(t *testing.T, args ...string) *mcpStdio {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, append([]string{"mcp"}, args...), IOStreams{In: inR, Out: outW, ErrOut: io.Discard})
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("ripple mcp did not stop")
		}
	})
	m := &mcpStdio{t: t, in: inW, out: bufio.NewReader(outR)}
	m.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}})
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

// call sends a request and returns its result (or error) as raw JSON text.
func (m *mcpStdio) call(method string, params any) string {
	m.t.Helper()
	m.nextID++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.nextID, "method": method, "params": params})
	if _, err := m.in.Write(append(b, '\n')); err != nil {
		m.t.Fatal(err)
	}
	for {
		line, err := m.out.ReadString('\n')
		if err != nil {
			m.t.Fatalf("reading the answer to %s: %v", method, err)
		}
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.ID != nil && *msg.ID == m.nextID {
			if msg.Error != nil {
				return string(msg.Error)
			}
			return string(msg.Result)
		}
	}
}

func (m *mcpStdio) tool(name string, args map[string]any) string {
	m.t.Helper()
	return m.call("tools/call", map[string]any{"name": name, "arguments": args})
}

// TestSetBackendOverMCPKeepsStartupProfile is issue #27 item 7 over MCP:
// after set_backend moves to a directory whose profiles.yml names another
// host with the server's env_var() password, queries still run on the
// startup project's warehouse; with --set-backend-profiles the new profile
// is read, and its error shows no env_var() value.
func TestSetBackendOverMCPKeepsStartupProfile(t *testing.T) {
	ctx := context.Background()
	startup, other := t.TempDir(), t.TempDir()
	for _, dir := range []string{startup, other} {
		if _, err := demo.Build(ctx, dir); err != nil {
			t.Fatal(err)
		}
	}
	const host = "leaked-server-value.invalid"
	t.Setenv("RIPPLE_TEST_LEAK_HOST", host)
	t.Setenv("RIPPLE_TEST_LEAK_PASSWORD", "server-password-value")
	t.Setenv("DBT_PROFILES_DIR", "")
	project, err := os.ReadFile(filepath.Join(other, "dbt_project.yml"))
	if err != nil {
		t.Fatal(err)
	}
	profile := ""
	for _, l := range strings.Split(string(project), "\n") {
		if v, ok := strings.CutPrefix(l, "profile:"); ok {
			profile = strings.Trim(strings.TrimSpace(v), `'"`)
		}
	}
	yml := profile + ":\n  target: dev\n  outputs:\n    dev:\n      type: postgres\n      host: \"{{ env_var('RIPPLE_TEST_LEAK_HOST') }}\"\n      port: 1\n      user: u\n      password: \"{{ env_var('RIPPLE_TEST_LEAK_PASSWORD') }}\"\n      dbname: d\n      schema: s\n"
	if err := os.WriteFile(filepath.Join(other, "profiles.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	query := map[string]any{"sql_template": "select count(*) as n from {{ ref('orders') }}"}

	m := startMCP(t, "--project-dir", startup)
	if got := m.tool("set_backend", map[string]any{"mode": "local", "project_dir": other}); strings.Contains(got, `"isError":true`) {
		t.Fatalf("set_backend: %s", got)
	}
	if got := m.tool("query", query); strings.Contains(got, `"isError":true`) || !strings.Contains(got, `"n"`) || strings.Contains(got, host) {
		t.Fatalf("query after set_backend: %s; want rows from the startup project's DuckDB", got)
	}

	m = startMCP(t, "--project-dir", startup, "--set-backend-profiles")
	m.tool("set_backend", map[string]any{"mode": "local", "project_dir": other})
	got := m.tool("query", query)
	if !strings.Contains(got, `"isError":true`) || strings.Contains(got, host) || strings.Contains(got, "server-password-value") || !strings.Contains(got, `\u003cenv_var RIPPLE_TEST_LEAK_HOST\u003e`) {
		t.Fatalf("query after set_backend with --set-backend-profiles: %s; want an error naming <env_var RIPPLE_TEST_LEAK_HOST>, never its value", got)
	}
}
