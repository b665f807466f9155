// Package surfaces_test checks that the three surfaces of one operation —
// the CLI, the web API and the MCP server — agree on what a caller error
// is: the same bad input gives exit 2, HTTP 400 and an MCP tool error, and
// a failed data step exit 1, HTTP 422 and a tool error (ops.Classify and
// each surface's table).
package surfaces_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/cli"
	"github.com/ripple-data/ripple/internal/demo"
	_ "github.com/ripple-data/ripple/internal/golden"
	"github.com/ripple-data/ripple/internal/mcpserver"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/web"
)

func TestCallerErrorsAgreeAcrossSurfaces(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := demo.Build(ctx, filepath.Join(dir, "demo"))
	if err != nil {
		t.Fatal(err)
	}
	globals := []string{
		"--project-dir", d.Paths.ProjectDir, "--target-path", d.Paths.TargetPath,
		"--target-base-path", d.Paths.TargetBasePath, "--duckdb", d.DBPath,
		"--state-file", filepath.Join(dir, "state.json"),
	}
	g, err := cli.ParseGlobals(globals)
	if err != nil {
		t.Fatal(err)
	}
	sess := g.NewSession(cli.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	t.Cleanup(func() { _ = sess.Close() })

	api, err := web.New(web.Options{Registry: ops.Default(), Session: sess})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(api)
	t.Cleanup(ts.Close)

	srv, err := mcpserver.New(ctx, mcpserver.Options{Session: sess, Version: "test", Toolsets: []string{"all"}})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "surfaces", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })

	for _, tc := range []struct {
		name    string
		op      string         // the operation (MCP tool, web API path)
		args    map[string]any // its arguments over MCP and the web API
		cli     []string       // the same call on the command line
		class   ops.ErrorClass
		exit    int
		status  int
		kind    string // the web API's error kind
		mention string // every surface's message names it
	}{
		{"unknown model", "get_model", map[string]any{"model_id": "custmers"},
			[]string{"get-model", "custmers"}, ops.ClassNotFound, 2, 400, "not_found", `"customers"`},
		{"unknown column", "value_diff", map[string]any{"model": "orders", "primary_key": "order_id", "columns": []string{"amout"}},
			[]string{"value-diff", "orders", "--primary-key", "order_id", "--columns", "amout"}, ops.ClassNotFound, 2, 400, "not_found", `"amount"`},
		{"unknown key column", "value_diff", map[string]any{"model": "orders", "primary_key": "nope"},
			[]string{"value-diff", "orders", "--primary-key", "nope"}, ops.ClassNotFound, 2, 400, "not_found", `"nope"`},
		{"unknown lineage column", "get_cll", map[string]any{"node_id": "orders", "column": "amout"},
			[]string{"get-cll", "orders", "--column", "amout"}, ops.ClassNotFound, 2, 400, "not_found", `"amout"`},
		{"selector naming nothing", "select_nodes", map[string]any{"select": "ordrs"},
			[]string{"select-nodes", "--select", "ordrs"}, ops.ClassNotFound, 2, 400, "not_found", `"orders"`},
		{"unknown check", "approve_check", map[string]any{"check_id": "nope"},
			[]string{"approve-check", "--check-id", "nope"}, ops.ClassNotFound, 2, 400, "not_found", "nope"},
		{"malformed selector", "select_nodes", map[string]any{"select": "@orders+"},
			[]string{"select-nodes", "--select", "@orders+"}, ops.ClassInvalidParameter, 2, 400, "input", "@orders+"},
		{"invalid enum", "lineage_diff", map[string]any{"view_mode": "everything"},
			[]string{"lineage-diff", "--view-mode", "everything"}, ops.ClassInvalidParameter, 2, 400, "input", "changed_models"},
		{"missing required parameter", "value_diff", map[string]any{},
			[]string{"value-diff"}, ops.ClassInvalidParameter, 2, 400, "input", "model"},
		{"failed data step", "query", map[string]any{"sql": "select * from no_such_table"},
			[]string{"query", "--sql", "select * from no_such_table"}, ops.ClassDataStepFailed, 1, 422, "operation_failed", "no_such_table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.class.CallerError() != (tc.exit == 2) {
				t.Fatalf("case is inconsistent: class %s, exit %d", tc.class, tc.exit)
			}
			// The CLI.
			var stdout, stderr bytes.Buffer
			code := cli.Run(ctx, append(append(append([]string{}, globals...), tc.cli...), "--json"),
				cli.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr})
			if code != tc.exit || !strings.Contains(stderr.String(), tc.mention) {
				t.Errorf("CLI: exit %d, want %d; stderr %q should mention %q", code, tc.exit, stderr.String(), tc.mention)
			}
			// The web API.
			raw, _ := json.Marshal(tc.args)
			res, err := ts.Client().Post(ts.URL+"/api/ops/"+tc.op, "application/json", bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			var body web.APIError
			err = json.NewDecoder(res.Body).Decode(&body)
			res.Body.Close()
			if err != nil || res.StatusCode != tc.status || body.Error.Kind != tc.kind || !strings.Contains(body.Error.Message, tc.mention) {
				t.Errorf("web API: %d %+v (%v), want %d kind %s mentioning %q", res.StatusCode, body.Error, err, tc.status, tc.kind, tc.mention)
			}
			// MCP: a tool error (isError), never a protocol error.
			out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.op, Arguments: tc.args})
			if err != nil {
				t.Fatalf("MCP: protocol error %v, want a tool error", err)
			}
			text := ""
			for _, c := range out.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					text += tc.Text
				}
			}
			if !out.IsError || !strings.Contains(text, tc.mention) {
				t.Errorf("MCP: isError %v, text %q, want a tool error mentioning %q", out.IsError, text, tc.mention)
			}
		})
	}
}
