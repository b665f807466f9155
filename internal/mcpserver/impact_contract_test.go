package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/impact/impacttest"
	"github.com/ripple-data/ripple/internal/ops"
)

// impactHarness serves the default registry over a session with a real
// warehouse (the scenario's DuckDB file or its Postgres mirror).
func impactHarness(t *testing.T, tg impacttest.Target) *harness {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	sess := ops.NewSession(ops.Config{Paths: tg.Built.Paths, OpenWarehouse: tg.Open, Logger: logger,
		StatePath: filepath.Join(t.TempDir(), "state.json")})
	t.Cleanup(func() { _ = sess.Close() })
	srv, err := New(context.Background(), Options{Session: sess, Mode: ModeServer, Version: "test", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	return &harness{srv: srv, logs: &syncBuffer{}}
}

// TestImpactAnalysisContract is impact_analysis's contract through the MCP
// protocol: the seed's parameter names, its result shape (every reported
// model in exactly one of confirmed_impacted_models — entries with the
// seed's fields — and confirmed_not_impacted_models — names), fields the
// seed forbids absent, the output validating against the advertised output
// schema, and one progress notification per model checked.
func TestImpactAnalysisContract(t *testing.T) {
	impacttest.OnEveryWarehouse(t, impacttest.Scenario, func(t *testing.T, tg impacttest.Target) {
		var mu sync.Mutex
		var progress []*mcp.ProgressNotificationParams
		cs := impactHarness(t, tg).connect(t, "2025-11-25", &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, r.Params)
		}})
		ctx := context.Background()
		tools, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var tool *mcp.Tool
		for _, tl := range tools.Tools {
			if tl.Name == "impact_analysis" {
				tool = tl
			}
		}
		if tool == nil {
			t.Fatal("impact_analysis is not listed")
		}
		in := schemaOf(t, tool.InputSchema)
		for _, p := range []string{"select", "skip_value_diff", "skip_downstream_value_diff", "max_value_diff_rows", "threads", "detail"} {
			if _, ok := in.Properties[p]; !ok {
				t.Errorf("input schema lacks %s", p)
			}
		}
		if len(in.Required) != 0 {
			t.Errorf("impact_analysis requires %v; the seed requires nothing", in.Required)
		}

		params := &mcp.CallToolParams{Name: "impact_analysis", Arguments: map[string]any{"skip_value_diff": false, "skip_downstream_value_diff": false}}
		params.SetProgressToken("impact-1")
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		structured(t, res, &out)
		resolved, err := schemaOf(t, tool.OutputSchema).Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(out); err != nil {
			t.Errorf("the result does not validate against the output schema: %v", err)
		}
		raw, _ := json.Marshal(out)
		for _, banned := range []string{"total_affected_row_count", "suggested_deep_dives", `"impacted_models"`} {
			if strings.Contains(string(raw), banned) {
				t.Errorf("the result carries %s", banned)
			}
		}
		for _, k := range []string{"_guidance", "classification_source", "max_affected_row_count", "confirmed_impacted_models", "confirmed_not_impacted_models", "schema_coverage", "errors"} {
			if _, ok := out[k]; !ok {
				t.Errorf("the result lacks the seed's %s", k)
			}
		}
		if g := out["_guidance"].(string); !strings.Contains(g, "data_impact") || !strings.Contains(g, "next_action") || strings.Contains(g, "DO NOT OVERRIDE") {
			t.Errorf("_guidance %q", g)
		}
		if e := out["errors"].([]any); len(e) != 0 {
			t.Errorf("errors %v", e)
		}

		// Exactly one list per model; the not-impacted list holds names.
		seen := map[string]string{}
		impacts := map[string]string{}
		for _, e := range out["confirmed_impacted_models"].([]any) {
			m := e.(map[string]any)
			name := m["name"].(string)
			seen[name] = "impacted"
			impacts[name] = m["data_impact"].(string)
			for _, k := range []string{"name", "change_status", "materialized", "data_impact", "affected_row_count"} {
				if _, ok := m[k]; !ok {
					t.Errorf("%s lacks %s", name, k)
				}
			}
			if m["data_impact"] != "none" {
				for _, k := range []string{"row_count", "schema_changes", "value_diff", "next_action"} {
					if _, ok := m[k]; !ok {
						t.Errorf("%s (%s) lacks %s", name, m["data_impact"], k)
					}
				}
			}
		}
		for _, n := range out["confirmed_not_impacted_models"].([]any) {
			name, ok := n.(string)
			if !ok {
				t.Fatalf("confirmed_not_impacted_models holds %T, want names", n)
			}
			if seen[name] != "" {
				t.Errorf("%s is in both lists", name)
			}
			seen[name] = "not impacted"
		}
		want := map[string]string{
			"new_model": "confirmed", "old_model": "confirmed", "stg_orders": "confirmed", "stg_payments": "confirmed", "big_orders": "confirmed",
			"daily_revenue": "confirmed", "orders_inc": "confirmed", "payment_orders": "potential", "small_payments": "none",
		}
		if !reflect.DeepEqual(impacts, want) {
			t.Errorf("data_impact %v, want %v", impacts, want)
		}
		var notImpacted []string
		for n, l := range seen {
			if l == "not impacted" {
				notImpacted = append(notImpacted, n)
			}
		}
		sort.Strings(notImpacted)
		if !reflect.DeepEqual(notImpacted, []string{"paid_orders", "unrelated"}) {
			t.Errorf("not impacted %v", notImpacted)
		}

		mu.Lock()
		n := len(progress)
		last := progress[n-1]
		mu.Unlock()
		if n != 9 || last.Progress != 9 || last.Total != 9 || last.ProgressToken != "impact-1" || !strings.Contains(last.Message, ": ") {
			t.Errorf("%d progress notifications, last %+v; want one per model (9)", n, last)
		}

		// A typo in select is a tool error naming the closest nodes.
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "impact_analysis", Arguments: map[string]any{"select": "small_paymnts"}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(text(res), `did you mean "small_payments"`) {
			t.Errorf("select typo: isError %v %s", res.IsError, text(res))
		}
	})
}

func schemaOf(t *testing.T, v any) *jsonschema.Schema {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}
