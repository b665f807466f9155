//go:build conformance

package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConformanceFixtures drives every fixture of the conformance build the
// way the suite does, over the in-memory transport, with a client that
// answers sampling and elicitation.
func TestConformanceFixtures(t *testing.T) {
	h := newHarness(t, testRegistry(nil), fixturePaths(t), ModeServer)
	var mu sync.Mutex
	var logs []string
	var progress []float64
	var elicited []*mcp.ElicitRequest
	copts := &mcp.ClientOptions{
		//lint:ignore SA1019 the suite tests sampling, deprecated by the 2026-07-28 protocol, on 2025-11-25 sessions
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			prompt := req.Params.Messages[0].Content.(*mcp.TextContent).Text
			//lint:ignore SA1019 as above: the result type of the deprecated sampling feature
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "echo " + prompt}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			elicited = append(elicited, req)
			mu.Unlock()
			content := map[string]any{"username": "u", "email": "u@example.com"}
			switch {
			case strings.Contains(req.Params.Message, "defaults"):
				content = map[string]any{"name": "Jane Smith", "age": 25, "score": 88, "status": "inactive", "verified": false}
			case strings.Contains(req.Params.Message, "enum"):
				content = map[string]any{"untitledSingle": "option1", "titledSingle": "value1", "legacyEnum": "opt1",
					"untitledMulti": []any{"option1", "option2"}, "titledMulti": []any{"value1", "value2"}}
			}
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		},
		//lint:ignore SA1019 logging is deprecated by the 2026-07-28 protocol; the suite tests it on 2025-11-25 sessions
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			mu.Lock()
			logs = append(logs, req.Params.Data.(string))
			mu.Unlock()
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params.Progress)
			mu.Unlock()
		},
	}
	cs := h.connect(t, "2025-11-25", copts)
	ctx := context.Background()

	caps := cs.InitializeResult().Capabilities
	if caps.Completions == nil || caps.Resources == nil || !caps.Resources.Subscribe {
		t.Errorf("capabilities lack completions or resources.subscribe: %+v", caps)
	}

	firstText := func(r *mcp.CallToolResult) string {
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				return tc.Text
			}
		}
		return ""
	}
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		isError bool
		text    string   // prefix of the first text block
		types   []string // content block types, in order
	}{
		{tool: "test_simple_text", text: "This is a simple text response for testing.", types: []string{"text"}},
		{tool: "test_image_content", types: []string{"image"}},
		{tool: "test_audio_content", types: []string{"audio"}},
		{tool: "test_embedded_resource", types: []string{"resource"}},
		{tool: "test_multiple_content_types", text: "Multiple content types test:", types: []string{"text", "image", "resource"}},
		{tool: "test_error_handling", isError: true, text: "This tool intentionally returns an error for testing", types: []string{"text"}},
		{tool: "test_sampling", args: map[string]any{"prompt": "hi"}, text: "LLM response: echo hi", types: []string{"text"}},
		{tool: "test_sampling", isError: true, text: `missing required argument "prompt"`, types: []string{"text"}},
		{tool: "test_elicitation", args: map[string]any{"message": "who?"}, text: `User response: action=accept, content={"email":"u@example.com","username":"u"}`, types: []string{"text"}},
		{tool: "test_elicitation_sep1034_defaults", text: "Elicitation completed: action=accept", types: []string{"text"}},
		{tool: "test_elicitation_sep1330_enums", text: "Elicitation completed: action=accept", types: []string{"text"}},
		{tool: "json_schema_2020_12_tool", args: map[string]any{"name": "n"}, text: "JSON Schema 2020-12 tool called with", types: []string{"text"}},
	} {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Errorf("%s: %v", tc.tool, err)
			continue
		}
		var types []string
		for _, c := range r.Content {
			raw, _ := json.Marshal(c)
			var w struct{ Type, MIMEType, Data string }
			_ = json.Unmarshal(raw, &w)
			types = append(types, w.Type)
			if w.Type == "image" || w.Type == "audio" {
				if b, err := base64.StdEncoding.DecodeString(w.Data); err != nil || len(b) == 0 || (w.MIMEType != "image/png" && w.MIMEType != "audio/wav") {
					t.Errorf("%s: bad %s block %s", tc.tool, w.Type, raw)
				}
			}
		}
		if r.IsError != tc.isError || !strings.HasPrefix(firstText(r), tc.text) || strings.Join(types, ",") != strings.Join(tc.types, ",") {
			t.Errorf("%s: isError %v text %q types %v", tc.tool, r.IsError, firstText(r), types)
		}
	}
	mu.Lock()
	if len(elicited) != 3 {
		t.Errorf("%d elicitation requests, want 3", len(elicited))
	}
	mu.Unlock()

	//lint:ignore SA1019 the suite tests logging on 2025-11-25 sessions
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	call(t, cs, "test_tool_with_logging", nil)
	params := &mcp.CallToolParams{Name: "test_tool_with_progress"}
	params.SetProgressToken("p1")
	if _, err := cs.CallTool(ctx, params); err != nil {
		t.Fatal(err)
	}
	// Notifications are delivered asynchronously to the call's answer
	// (the suite itself waits 200 ms): wait for all of them.
	var gotLogs string
	var gotProgress []float64
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		nLogs := len(logs)
		gotLogs, gotProgress = strings.Join(logs, "|"), slices.Clone(progress)
		mu.Unlock()
		if (nLogs >= 3 && len(gotProgress) >= 3) || time.Now().After(deadline) {
			break
		}
	}
	if gotLogs != "Tool execution started|Tool processing data|Tool execution completed" {
		t.Errorf("logs = %q", gotLogs)
	}
	if len(gotProgress) != 3 || gotProgress[0] != 0 || gotProgress[1] != 50 || gotProgress[2] != 100 {
		t.Errorf("progress = %v", gotProgress)
	}

	for uri, want := range map[string]string{
		"test://static-text":       "This is the content of the static text resource.",
		"test://template/123/data": `{"data":"Data for ID: 123","id":"123","templateTest":true}`,
		"test://watched-resource":  "Watched resource content",
		"test://static-binary":     "",
		"test://template/abc/data": `{"data":"Data for ID: abc","id":"abc","templateTest":true}`,
	} {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != want || rr.Contents[0].URI != uri || rr.Contents[0].MIMEType == "" {
			t.Errorf("%s: %v %+v", uri, err, rr)
			continue
		}
		if uri == "test://static-binary" && len(rr.Contents[0].Blob) == 0 {
			t.Errorf("%s: empty blob", uri)
		}
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://watched-resource"}); err != nil {
		t.Errorf("subscribe: %v", err)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://watched-resource"}); err != nil {
		t.Errorf("unsubscribe: %v", err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://nope"}); err == nil {
		t.Error("subscribing to an unknown resource succeeded")
	}

	comp, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
		Argument: mcp.CompleteParamsArgument{Name: "arg1", Value: "test"},
	})
	if err != nil || strings.Join(comp.Completion.Values, ",") != "test,test_value_1,test_value_2" {
		t.Errorf("complete: %v %+v", err, comp)
	}
	comp, err = cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
		Argument: mcp.CompleteParamsArgument{Name: "arg2", Value: "zzz"},
	})
	if err != nil || comp.Completion.Values == nil || len(comp.Completion.Values) != 0 {
		t.Errorf("complete with no match: %v %+v", err, comp)
	}

	for _, tc := range []struct {
		name  string
		args  map[string]string
		types string
		text  string
	}{
		{"test_simple_prompt", nil, "text", "This is a simple prompt for testing."},
		{"test_prompt_with_arguments", map[string]string{"arg1": "hello", "arg2": "world"}, "text", "Prompt with arguments: arg1='hello', arg2='world'"},
		{"test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://example-resource"}, "resource,text", "Please process the embedded resource above."},
		{"test_prompt_with_image", nil, "image,text", "Please analyze the image above."},
	} {
		gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: tc.name, Arguments: tc.args})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var types []string
		last := ""
		for _, m := range gp.Messages {
			raw, _ := json.Marshal(m.Content)
			var w struct{ Type string }
			_ = json.Unmarshal(raw, &w)
			types = append(types, w.Type)
			if tc, ok := m.Content.(*mcp.TextContent); ok {
				last = tc.Text
			}
		}
		if strings.Join(types, ",") != tc.types || last != tc.text {
			t.Errorf("%s: types %v text %q", tc.name, types, last)
		}
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments"}); err == nil {
		t.Error("test_prompt_with_arguments without arguments succeeded")
	}
}

// TestConformanceSchemaToolKeepsKeywords checks what the json-schema-2020-12
// scenario checks: $schema, $defs and additionalProperties reach the client.
func TestConformanceSchemaToolKeepsKeywords(t *testing.T) {
	h := newHarness(t, testRegistry(nil), fixturePaths(t), ModeServer)
	cs := h.connect(t, "2025-11-25", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != fxSchemaTool {
			continue
		}
		s := tool.InputSchema.(map[string]any)
		defs, _ := s["$defs"].(map[string]any)
		if s["$schema"] != "https://json-schema.org/draft/2020-12/schema" || defs["address"] == nil || s["additionalProperties"] != false {
			t.Errorf("input schema = %v", s)
		}
		return
	}
	t.Errorf("%s not listed", fxSchemaTool)
}
