package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/ops"
)

// protocolVersions are every version served: the four handshake-era ones
// (initialize) and the stateless 2026-07-28 (server/discover).
var protocolVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

func TestNegotiatesEveryProtocolVersion(t *testing.T) {
	h := newHarness(t, ops.Default(), fixturePaths(t), ModeServer)
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) {
			cs := h.connect(t, v, nil)
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Fatalf("negotiated %s, want %s", got, v)
			}
			if err := cs.Ping(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestEveryRegistryOpIsATool(t *testing.T) {
	reg := ops.Default()
	h := newHarness(t, reg, fixturePaths(t), ModeServer)
	cs := h.connect(t, "2025-11-25", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Tools = withoutFixtures(res.Tools, func(t *mcp.Tool) string { return t.Name })
	byName := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
	}
	want := []string{"get_server_info", "set_backend"}
	for _, op := range reg.Ops() {
		want = append(want, op.Name)
	}
	if len(res.Tools) != len(want) {
		t.Errorf("tools/list has %d tools, want %d (%v)", len(res.Tools), len(want), want)
	}
	for _, name := range want {
		tool, ok := byName[name]
		if !ok {
			t.Errorf("tool %s missing", name)
			continue
		}
		if tool.Description == "" || tool.OutputSchema == nil || tool.InputSchema == nil {
			t.Errorf("%s: description/inputSchema/outputSchema missing", name)
		}
		// Clients (the TypeScript SDK) require object schemas at the top.
		for what, sch := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			if m, ok := sch.(map[string]any); !ok || m["type"] != "object" {
				t.Errorf("%s: %s schema is not a top-level object schema: %v", name, what, sch)
			}
		}
		a := tool.Annotations
		if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint must be false: %+v", name, a)
		}
		if op, ok := reg.Get(name); ok {
			if a.ReadOnlyHint != !op.WritesState {
				t.Errorf("%s: readOnlyHint %v, WritesState %v", name, a.ReadOnlyHint, op.WritesState)
			}
			// The peer documents the selector grammar on every select parameter.
			if sel, hasSelect := op.InputSchema().Properties["select"]; hasSelect && !strings.Contains(sel.Description, "intersection (AND)") {
				t.Errorf("%s: select does not document the grammar", name)
			}
		}
		if strings.Contains(tool.Description, "base environment is not configured") {
			t.Errorf("%s mentions single-env mode in normal mode", name)
		}
	}
	if byName["set_backend"].Annotations.ReadOnlyHint {
		t.Error("set_backend must not be read-only")
	}
	if cs.InitializeResult().Instructions != "" {
		t.Errorf("normal mode has instructions %q", cs.InitializeResult().Instructions)
	}
}

// lineageRow is one decoded row of lineage_diff's nodes frame.
type lineageRow struct {
	ID, Status string
	Mods       []string
	Impacted   bool
}

func lineageRows(t *testing.T, out map[string]any) map[string]lineageRow {
	t.Helper()
	nodes := out["nodes"].(map[string]any)
	col := map[string]int{}
	for i, c := range nodes["columns"].([]any) {
		col[c.(map[string]any)["key"].(string)] = i
	}
	rows := map[string]lineageRow{}
	for _, r := range nodes["data"].([]any) {
		row := r.([]any)
		lr := lineageRow{ID: row[col["id"]].(string), Impacted: row[col["impacted"]].(bool)}
		if st, ok := row[col["change_status"]].(string); ok {
			lr.Status = st
		}
		for _, m := range row[col["modifications"]].([]any) {
			lr.Mods = append(lr.Mods, m.(string))
		}
		rows[lr.ID] = lr
	}
	return rows
}

func TestLineageDiffOnRealFixture(t *testing.T) {
	reg := ops.Default()
	paths := fixturePaths(t)
	h := newHarness(t, reg, paths, ModeServer)
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) {
			cs := h.connect(t, v, nil)
			res := call(t, cs, "lineage_diff", map[string]any{})
			var out map[string]any
			structured(t, res, &out)
			rows := lineageRows(t, out)
			want := map[string]lineageRow{
				"model.jaffle_shop.customers":    {ID: "model.jaffle_shop.customers", Impacted: true},
				"model.jaffle_shop.orders":       {ID: "model.jaffle_shop.orders", Impacted: true},
				"model.jaffle_shop.stg_payments": {ID: "model.jaffle_shop.stg_payments", Status: "modified", Mods: []string{"body"}, Impacted: true},
				"seed.jaffle_shop.raw_payments":  {ID: "seed.jaffle_shop.raw_payments"},
			}
			if !reflect.DeepEqual(rows, want) {
				t.Fatalf("rows = %+v\nwant %+v", rows, want)
			}
			if out["changed_count"] != 1.0 || out["impacted_count"] != 3.0 || out["returned_nodes"] != 4.0 || out["single_env"] != false {
				t.Errorf("counts: %v %v %v %v", out["changed_count"], out["impacted_count"], out["returned_nodes"], out["single_env"])
			}
			edges := out["edges"].(map[string]any)["data"].([]any)
			if len(edges) != 3 {
				t.Errorf("edges = %v, want 3 (raw_payments→stg_payments→orders, →customers)", edges)
			}
			// The very same JSON as the CLI (`ripple lineage-diff --json`).
			op, _ := reg.Get("lineage_diff")
			direct, err := op.CallJSON(context.Background(), ops.NewSession(ops.Config{Paths: paths}), json.RawMessage(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			dj, _ := json.Marshal(direct)
			var d any
			_ = json.Unmarshal(dj, &d)
			if !reflect.DeepEqual(d, any(out)) {
				t.Errorf("MCP result differs from the direct call")
			}
			validateOutput(t, op, res)
		})
	}
}

// validateOutput checks structuredContent against the advertised outputSchema
// (the TypeScript client does the same and rejects mismatches).
func validateOutput(t *testing.T, op *ops.Op, res *mcp.CallToolResult) {
	t.Helper()
	resolved, err := op.OutputSchema().Resolve(&jsonschema.ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var v any
	_ = json.Unmarshal(raw, &v)
	if err := resolved.Validate(v); err != nil {
		t.Errorf("%s: structuredContent does not match outputSchema: %v", op.Name, err)
	}
}

func TestSelectNodesOnRealFixture(t *testing.T) {
	reg := ops.Default()
	h := newHarness(t, reg, fixturePaths(t), ModeServer)
	cs := h.connect(t, "2025-06-18", nil)
	op, _ := reg.Get("select_nodes")
	for _, tc := range []struct {
		sel  string
		want []string
	}{
		{"stg_payments+", []string{"model.jaffle_shop.customers", "model.jaffle_shop.orders", "model.jaffle_shop.stg_payments"}},
		{"state:modified", []string{"model.jaffle_shop.stg_payments"}},
		{"state:modified.body", []string{"model.jaffle_shop.stg_payments"}},
		{"+stg_payments", []string{"model.jaffle_shop.stg_payments", "seed.jaffle_shop.raw_payments"}},
		{"no_such_model", []string{}},
	} {
		args := map[string]any{"select": tc.sel}
		if len(tc.want) == 0 {
			args["allow_empty"] = true // a name matching nothing is otherwise an error
		}
		res := call(t, cs, "select_nodes", args)
		var out struct{ Nodes []string }
		structured(t, res, &out)
		if !slices.Equal(out.Nodes, tc.want) && !(len(out.Nodes) == 0 && len(tc.want) == 0) {
			t.Errorf("select %q = %v, want %v", tc.sel, out.Nodes, tc.want)
		}
		validateOutput(t, op, res)
	}
}

func TestValidationOnEveryProtocolVersion(t *testing.T) {
	h := newHarness(t, testRegistry(nil), fixturePaths(t), ModeServer)
	for _, v := range append(protocolVersions, "") {
		t.Run("v"+v, func(t *testing.T) {
			cs := h.connect(t, v, nil)
			for _, tc := range []struct {
				tool string
				args any
				want string
			}{
				{"echo_flag", map[string]any{"flag": "false"}, "Input validation error: "},
				{"echo_flag", map[string]any{}, "Input validation error: "},
				{"echo_flag", map[string]any{"flag": true, "bogus": 1}, "Input validation error: "},
				{"lineage_diff_not_here", nil, ""},
				{"set_backend", map[string]any{"mode": 5}, "Input validation error: "},
			} {
				if tc.want == "" {
					continue
				}
				res := call(t, cs, tc.tool, tc.args)
				if !res.IsError || !strings.HasPrefix(text(res), tc.want) {
					t.Errorf("%s %v: isError=%v %q", tc.tool, tc.args, res.IsError, text(res))
				}
			}
			var out flagOut
			structured(t, call(t, cs, "echo_flag", map[string]any{"flag": true}), &out)
			if !out.Flag {
				t.Error("flag not echoed")
			}
		})
	}
}

func TestRealOpsRejectWrongTypes(t *testing.T) {
	h := newHarness(t, ops.Default(), fixturePaths(t), ModeServer)
	cs := h.connect(t, "2025-11-25", nil)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"lineage_diff", map[string]any{"select": false}},
		{"lineage_diff", map[string]any{"view_mode": "all", "unknown": "x"}},
		{"select_nodes", map[string]any{"packages": "jaffle_shop"}},
	} {
		res := call(t, cs, tc.tool, tc.args)
		if !res.IsError || !strings.HasPrefix(text(res), "Input validation error: ") {
			t.Errorf("%s %v: isError=%v %q", tc.tool, tc.args, res.IsError, text(res))
		}
	}
}

func TestPanickingToolIsAToolErrorAndServerKeepsServing(t *testing.T) {
	h := newHarness(t, testRegistry(nil), fixturePaths(t), ModeServer)
	cs := h.connect(t, "2025-11-25", nil)
	for range 3 {
		res := call(t, cs, "boom", nil)
		if !res.IsError || !strings.Contains(text(res), "internal error in boom: kaboom") {
			t.Fatalf("panic result: isError=%v %q", res.IsError, text(res))
		}
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	var out flagOut
	structured(t, call(t, cs, "echo_flag", map[string]any{"flag": true}), &out)
	if !strings.Contains(h.logs.String(), "level=ERROR") {
		t.Error("panic not logged as an error")
	}
}

func TestUnknownTool(t *testing.T) {
	h := newHarness(t, ops.Default(), fixturePaths(t), ModeServer)
	cs := h.connect(t, "2025-11-25", nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "drop_database"})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, "Unknown tool: drop_database. Available tools: ") ||
		!strings.Contains(we.Message, "lineage_diff") {
		t.Fatalf("err = %v", err)
	}
}

func TestToolFailuresAreResultsAndClassified(t *testing.T) {
	h := newHarness(t, testRegistry(nil), fixturePaths(t), ModeServer)
	//lint:ignore SA1019 logging is still part of the handshake-era protocols
	var mu = make(chan *mcp.LoggingMessageParams, 10)
	//lint:ignore SA1019 same
	cs := h.connect(t, "2025-11-25", &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
		mu <- r.Params
	}})
	//lint:ignore SA1019 same
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	res := call(t, cs, "missing_table", nil)
	if !res.IsError || !strings.Contains(text(res), "Table with name foo does not exist") {
		t.Fatalf("%v %q", res.IsError, text(res))
	}
	res = call(t, cs, "plain_failure", nil)
	if !res.IsError || text(res) != "connection refused" {
		t.Fatalf("%v %q", res.IsError, text(res))
	}
	logs := h.logs.String()
	if !strings.Contains(logs, `level=WARN msg="expected table_not_found error in tool missing_table"`) ||
		!strings.Contains(logs, "class=table_not_found") {
		t.Errorf("classified error not logged as a warning:\n%s", logs)
	}
	if !strings.Contains(logs, `level=ERROR msg="tool plain_failure failed"`) {
		t.Errorf("unclassified error not logged as an error:\n%s", logs)
	}
	select {
	case p := <-mu:
		if p.Level != "warning" {
			t.Errorf("first client log level %q, want warning", p.Level)
		}
	case <-time.After(5 * time.Second):
		t.Error("no notifications/message sent to the client")
	}
}

func TestModes(t *testing.T) {
	paths := fixturePaths(t)
	for _, tc := range []struct {
		mode      Mode
		hidden    []string
		available []string
	}{
		{ModeServer, nil, []string{"warehouse_thing", "write_thing", "echo_flag"}},
		{ModePreview, []string{"warehouse_thing"}, []string{"write_thing", "echo_flag", "get_server_info", "set_backend"}},
		{ModeReadOnly, []string{"warehouse_thing", "write_thing"}, []string{"echo_flag", "get_server_info", "set_backend"}},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			h := newHarness(t, testRegistry(nil), paths, tc.mode)
			cs := h.connect(t, "2025-11-25", nil)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range withoutFixtures(res.Tools, func(t *mcp.Tool) string { return t.Name }) {
				names = append(names, tool.Name)
			}
			for _, n := range tc.hidden {
				if slices.Contains(names, n) {
					t.Errorf("%s listed in %s mode", n, tc.mode)
				}
				r := call(t, cs, n, nil)
				want := "Tool '" + n + "' is not available in " + string(tc.mode) + " mode. Only "
				if !r.IsError || !strings.HasPrefix(text(r), want) || !strings.Contains(text(r), "'echo_flag'") || strings.Contains(text(r), "'"+n+"',") {
					t.Errorf("calling %s: %v %q", n, r.IsError, text(r))
				}
			}
			for _, n := range tc.available {
				if !slices.Contains(names, n) {
					t.Errorf("%s not listed in %s mode", n, tc.mode)
				}
			}
			var info ServerInfo
			structured(t, call(t, cs, "get_server_info", nil), &info)
			if info.Mode != "local" || info.ServerMode != string(tc.mode) || !slices.Equal(info.Tools, names) {
				t.Errorf("info: mode %s, server_mode %s, tools %v; want local, %s, %v", info.Mode, info.ServerMode, info.Tools, tc.mode, names)
			}
		})
	}
}

func TestSingleEnvironment(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join(fixtureDir(t), "current", dbt.ManifestFile), filepath.Join(dir, "target", dbt.ManifestFile))
	reg := ops.Default()
	ops.Add(reg, ops.Spec{Name: "zz_diff", Title: "Diff", Description: "Compares environments.", DiffTool: true},
		func(_ context.Context, _ *ops.Session, _ *emptyIn) (*okOut, error) { return &okOut{OK: true}, nil })
	h := newHarness(t, reg, dbt.Paths{ProjectDir: dir}, ModeServer)
	cs := h.connect(t, "2025-11-25", nil)
	ins := cs.InitializeResult().Instructions
	if !strings.Contains(ins, "single-environment mode") || !strings.Contains(ins, "dbt docs generate --target-path target-base") {
		t.Errorf("instructions = %q", ins)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		op, _ := reg.Get(tool.Name)
		has := strings.Contains(tool.Description, "base equals current")
		if op != nil && op.DiffTool != has {
			t.Errorf("%s: DiffTool %v but single-env note %v", tool.Name, op.DiffTool, has)
		}
	}
	var info ServerInfo
	structured(t, call(t, cs, "get_server_info", nil), &info)
	if !info.SingleEnv || info.BaseStatus != "single_env" || !info.ArtifactsLoaded {
		t.Errorf("info = %+v", info)
	}
	var out map[string]any
	structured(t, call(t, cs, "lineage_diff", map[string]any{"view_mode": "all"}), &out)
	if out["single_env"] != true || out["changed_count"] != 0.0 {
		t.Errorf("single-env lineage_diff: %v %v", out["single_env"], out["changed_count"])
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStartsWithoutArtifactsAndSetBackendFixesIt(t *testing.T) {
	empty := t.TempDir()
	h := newHarness(t, ops.Default(), dbt.Paths{ProjectDir: empty}, ModeServer)
	cs := h.connect(t, "2025-11-25", nil)
	var info ServerInfo
	structured(t, call(t, cs, "get_server_info", nil), &info)
	if info.ArtifactsLoaded || !strings.Contains(info.ArtifactLoadError, "set_backend") || info.SingleEnv || info.BaseStatus != "missing" ||
		!strings.Contains(info.BaseStatusReason, "dbt docs generate --target-path target-base") {
		t.Errorf("info = %+v", info)
	}
	res := call(t, cs, "lineage_diff", nil)
	if !res.IsError || !strings.HasPrefix(text(res), "Ripple could not load the dbt artifacts: ") || !strings.Contains(text(res), "set_backend") {
		t.Errorf("lineage_diff without artifacts: %v %q", res.IsError, text(res))
	}
	res = call(t, cs, "set_backend", map[string]any{"mode": "cloud"})
	if !res.IsError || !strings.Contains(text(res), "'cloud' is not supported") {
		t.Errorf("cloud: %q", text(res))
	}
	res = call(t, cs, "set_backend", map[string]any{"mode": "local", "project_dir": filepath.Join(empty, "nope")})
	if !res.IsError {
		t.Error("set_backend to a missing dir succeeded")
	}
	fx := fixtureDir(t)
	var sb SetBackendResult
	structured(t, call(t, cs, "set_backend", map[string]any{"mode": "local", "project_dir": fx, "target_path": "current", "target_base_path": "base"}), &sb)
	if sb.SingleEnv || sb.ProjectDir != fx {
		t.Errorf("set_backend = %+v", sb)
	}
	var out map[string]any
	structured(t, call(t, cs, "lineage_diff", nil), &out)
	if out["changed_count"] != 1.0 {
		t.Errorf("after set_backend changed_count = %v", out["changed_count"])
	}
	// A failed switch keeps the working configuration.
	res = call(t, cs, "set_backend", map[string]any{"mode": "local", "project_dir": empty})
	if !res.IsError || !strings.Contains(text(res), "the configuration was not changed") {
		t.Errorf("failed switch: %q", text(res))
	}
	structured(t, call(t, cs, "lineage_diff", nil), &out)
}

func TestRebuiltArtifactsChangeTheNextAnswer(t *testing.T) {
	fx := fixtureDir(t)
	dir := t.TempDir()
	for _, env := range []string{"current", "base"} {
		copyFile(t, filepath.Join(fx, env, dbt.ManifestFile), filepath.Join(dir, env, dbt.ManifestFile))
	}
	h := newHarness(t, ops.Default(), dbt.Paths{ProjectDir: dir, TargetPath: "current", TargetBasePath: "base"}, ModeServer)
	cs := h.connect(t, "2025-11-25", nil)
	var out struct{ Nodes []string }
	structured(t, call(t, cs, "select_nodes", map[string]any{"select": "state:modified"}), &out)
	if !slices.Equal(out.Nodes, []string{"model.jaffle_shop.stg_payments"}) {
		t.Fatalf("before: %v", out.Nodes)
	}
	// "Rebuild" current from the base branch: nothing is modified any more.
	copyFile(t, filepath.Join(fx, "base", dbt.ManifestFile), filepath.Join(dir, "current", dbt.ManifestFile))
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "current", dbt.ManifestFile), future, future); err != nil {
		t.Fatal(err)
	}
	structured(t, call(t, cs, "select_nodes", map[string]any{"select": "state:modified"}), &out)
	if len(out.Nodes) != 0 {
		t.Fatalf("after rebuild: %v, want none", out.Nodes)
	}
}

func TestProgressAndCancellation(t *testing.T) {
	probe := &slowProbe{started: make(chan struct{}), canceled: make(chan error, 1)}
	h := newHarness(t, testRegistry(probe), fixturePaths(t), ModeServer)
	progress := make(chan *mcp.ProgressNotificationParams, 10)
	cs := h.connect(t, "2025-11-25", &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		progress <- r.Params
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "slow"}
		params.SetProgressToken("tok-1")
		_, err := cs.CallTool(ctx, params)
		done <- err
	}()
	select {
	case p := <-progress:
		if p.ProgressToken != "tok-1" || p.Progress != 1 || p.Total != 2 || p.Message != "half way" {
			t.Errorf("progress = %+v", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no progress notification")
	}
	<-probe.started
	cancel()
	select {
	case err := <-probe.canceled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("operation ctx err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancellation did not reach the operation")
	}
	if err := <-done; err == nil {
		t.Error("cancelled call returned no error to the client")
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	reg := ops.Default()
	h := newHarness(t, reg, fixturePaths(t), ModeServer)
	cs := h.connect(t, "2025-11-25", nil)
	ctx := context.Background()
	rl, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range withoutFixtures(rl.Resources, func(r *mcp.Resource) string { return r.URI }) {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	if want := []string{URIERD, URILineageGraph, URIProjectSummary, URIReviewApp}; !slices.Equal(uris, want) {
		t.Errorf("resources = %v", uris)
	}
	tl, err := cs.ListResourceTemplates(ctx, nil)
	if err == nil {
		tl.ResourceTemplates = withoutFixtures(tl.ResourceTemplates, func(r *mcp.ResourceTemplate) string { return r.URITemplate })
	}
	if err != nil || len(tl.ResourceTemplates) != 1 || tl.ResourceTemplates[0].URITemplate != URINodeTemplate {
		t.Fatalf("templates = %v %v", tl, err)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: URILineageGraph})
	if err != nil {
		t.Fatal(err)
	}
	var graph map[string]any
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &graph); err != nil || graph["returned_nodes"] != 8.0 || rr.Contents[0].MIMEType != "application/json" {
		t.Errorf("lineage graph: %v %v", err, graph["returned_nodes"])
	}
	for _, tc := range []struct{ uri, op string }{
		{URIProjectSummary, "project_summary"}, {URIERD, "erd"}, {"ripple://node/model.jaffle_shop.orders", "get_node"},
	} {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
		if _, present := reg.Get(tc.op); present {
			if err != nil || len(rr.Contents) != 1 || !json.Valid([]byte(rr.Contents[0].Text)) {
				t.Errorf("%s: %v", tc.uri, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), "backed by the "+tc.op+" operation") {
			t.Errorf("%s without %s: %v", tc.uri, tc.op, err)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ripple://nope"}); err == nil {
		t.Error("unknown resource read succeeded")
	}

	pl, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range withoutFixtures(pl.Prompts, func(p *mcp.Prompt) string { return p.Name }) {
		names = append(names, p.Name)
		if p.Description == "" {
			t.Errorf("prompt %s has no description", p.Name)
		}
	}
	if want := []string{"add_missing_tests", "answer_data_question", "assess_change_impact", "review_pull_request"}; !slices.Equal(names, want) {
		t.Errorf("prompts = %v", names)
	}
	gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review_pull_request"})
	if err != nil {
		t.Fatal(err)
	}
	msg := gp.Messages[0].Content.(*mcp.TextContent).Text
	for _, w := range []string{"impact_analysis", "next_action", "Mermaid", "checks"} {
		if !strings.Contains(msg, w) {
			t.Errorf("review_pull_request lacks %q", w)
		}
	}
	gp, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "answer_data_question", Arguments: map[string]string{"question": "revenue per customer?"}})
	if err != nil {
		t.Fatal(err)
	}
	msg = gp.Messages[0].Content.(*mcp.TextContent).Text
	for _, w := range []string{"revenue per customer?", "Find", "Describe", "Plan", "SQL", "grain", "assumptions"} {
		if !strings.Contains(msg, w) {
			t.Errorf("answer_data_question lacks %q", w)
		}
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "answer_data_question"}); err == nil {
		t.Error("missing required prompt argument accepted")
	}
}

// TestEveryToolAnswersWithAResult calls every registered tool with no
// arguments on the real fixture (no warehouse configured): each answer is a
// tool result (success or isError), never a protocol error, and every
// success matches the tool's advertised outputSchema, which the TypeScript
// client enforces.
func TestEveryToolAnswersWithAResult(t *testing.T) {
	reg := ops.Default()
	h := newHarness(t, reg, fixturePaths(t), ModeServer)
	cs := h.connect(t, "2025-11-25", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ok := 0
	for _, tool := range res.Tools {
		if tool.Name == "set_backend" {
			continue
		}
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool.Name, Arguments: map[string]any{}})
		if err != nil {
			t.Errorf("%s: protocol error %v", tool.Name, err)
			continue
		}
		if r.IsError {
			if text(r) == "" {
				t.Errorf("%s: isError without a message", tool.Name)
			}
			continue
		}
		ok++
		if op, found := reg.Get(tool.Name); found {
			validateOutput(t, op, r)
		}
	}
	t.Logf("%d of %d tools succeeded without arguments or a warehouse", ok, len(res.Tools)-1)
}

func TestPreviewModeHidesWarehouseOpsOfTheRealRegistry(t *testing.T) {
	reg := ops.Default()
	h := newHarness(t, reg, fixturePaths(t), ModeReadOnly)
	cs := h.connect(t, "2025-11-25", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if op, ok := reg.Get(tool.Name); ok && (op.Warehouse || op.WritesState) {
			t.Errorf("%s (warehouse %v, writes %v) listed in read-only mode", tool.Name, op.Warehouse, op.WritesState)
		}
	}
	for _, op := range reg.Ops() {
		if op.Warehouse {
			r := call(t, cs, op.Name, map[string]any{})
			if !r.IsError || !strings.Contains(text(r), "is not available in read-only mode") {
				t.Errorf("%s in read-only mode: %q", op.Name, text(r))
			}
			break
		}
	}
}

func TestBaseBuildAppearingUpdatesToolDescriptions(t *testing.T) {
	fx := fixtureDir(t)
	dir := t.TempDir()
	copyFile(t, filepath.Join(fx, "current", dbt.ManifestFile), filepath.Join(dir, "current", dbt.ManifestFile))
	h := newHarness(t, ops.Default(), dbt.Paths{ProjectDir: dir, TargetPath: "current", TargetBasePath: "base"}, ModeServer)
	changed := make(chan struct{}, 4)
	cs := h.connect(t, "2025-11-25", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		// One notification may come per re-registered tool; never block
		// the client's handler (its Close would wait for it forever).
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	diffDesc := func() string {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if op, ok := ops.Default().Get(tool.Name); ok && op.DiffTool {
				return tool.Description
			}
		}
		t.Skip("no DiffTool operation registered")
		return ""
	}
	if !strings.Contains(diffDesc(), "base equals current") {
		t.Fatal("single-env note missing before the base build exists")
	}
	copyFile(t, filepath.Join(fx, "base", dbt.ManifestFile), filepath.Join(dir, "base", dbt.ManifestFile))
	var out map[string]any
	structured(t, call(t, cs, "lineage_diff", nil), &out)
	if out["single_env"] != false || out["changed_count"] != 1.0 {
		t.Fatalf("after the base build appeared: %v %v", out["single_env"], out["changed_count"])
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no tools/list_changed notification")
	}
	if strings.Contains(diffDesc(), "base equals current") {
		t.Error("single-env note still present after the base build appeared")
	}
}
