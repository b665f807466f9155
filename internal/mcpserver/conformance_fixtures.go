//go:build conformance

// This file exists only in builds with -tags conformance (e2e/mcp/conformance.sh).
// It registers, on the same server as production, exactly the fixture tools,
// resources, prompts and completions that the official MCP conformance suite
// (@modelcontextprotocol/conformance) calls, plus resource subscriptions, so
// that every scenario of the suite runs against Ripple's real server code:
// the same transports, middleware and capability handling. Production builds
// compile fixtures_off.go instead and serve none of this.

package mcpserver

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Fixture names, as the suite's scenarios spell them.
const (
	fxWatchedURI      = "test://watched-resource"
	fxStaticTextURI   = "test://static-text"
	fxStaticBinaryURI = "test://static-binary"
	fxTemplate        = "test://template/{id}/data"
	fxPromptWithArgs  = "test_prompt_with_arguments"
	fxSchemaTool      = "json_schema_2020_12_tool"
	fxStepDelay       = 50 * time.Millisecond // between log and progress notifications
)

// isFixture reports whether name (a tool, prompt or resource URI) is a
// conformance fixture.
func isFixture(name string) bool {
	switch name {
	case "test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
		"test_multiple_content_types", "test_tool_with_logging", "test_error_handling", "test_tool_with_progress",
		"test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
		fxSchemaTool, "test_simple_prompt", fxPromptWithArgs, "test_prompt_with_embedded_resource", "test_prompt_with_image":
		return true
	}
	return strings.HasPrefix(name, "test://")
}

// fixtureOptions adds the server options the fixtures need: completion
// (completion/complete) and resource subscriptions.
func (s *Server) fixtureOptions(o *mcp.ServerOptions) {
	o.CompletionHandler = s.fixtureComplete
	o.SubscribeHandler = func(_ context.Context, req *mcp.SubscribeRequest) error {
		return fixtureResourceExists(req.Params.URI)
	}
	o.UnsubscribeHandler = func(_ context.Context, req *mcp.UnsubscribeRequest) error {
		return fixtureResourceExists(req.Params.URI)
	}
	if o.Capabilities != nil {
		o.Capabilities.Completions = &mcp.CompletionCapabilities{}
		if o.Capabilities.Resources != nil {
			o.Capabilities.Resources.Subscribe = true
		}
	}
}

func fixtureResourceExists(uri string) error {
	switch uri {
	case fxWatchedURI, fxStaticTextURI, fxStaticBinaryURI:
		return nil
	}
	if id, ok := fixtureTemplateID(uri); ok && id != "" {
		return nil
	}
	return mcp.ResourceNotFoundError(uri)
}

// fixtureTemplateID extracts {id} from test://template/{id}/data.
func fixtureTemplateID(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, "test://template/")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, "/data")
}

// fixtureComplete completes the arguments of test_prompt_with_arguments
// from a fixed list of candidates, by prefix.
func (s *Server) fixtureComplete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ref := req.Params.Ref
	if ref.Type != "ref/prompt" || ref.Name != fxPromptWithArgs {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no completions for %s %s%s", ref.Type, ref.Name, ref.URI)}
	}
	candidates := map[string][]string{
		"arg1": {"test", "test_value_1", "test_value_2", "other_value"},
		"arg2": {"hello", "world"},
	}[req.Params.Argument.Name]
	values := []string{}
	for _, c := range candidates {
		if strings.HasPrefix(c, req.Params.Argument.Value) {
			values = append(values, c)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}

// fixtureTool registers a tool on the SDK server and lets the middleware
// route calls to it.
func (s *Server) fixtureTool(t *mcp.Tool, h mcp.ToolHandler) {
	if t.InputSchema == nil {
		t.InputSchema = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	s.fixtureTools[t.Name] = true
	s.mcp.AddTool(t, h)
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func errorResult(text string) *mcp.CallToolResult {
	r := textResult(text)
	r.IsError = true
	return r
}

// stringArgs decodes a fixture tool's string arguments and checks the
// required ones.
func stringArgs(req *mcp.CallToolRequest, required ...string) (map[string]string, error) {
	args := map[string]string{}
	if raw := req.Params.Arguments; len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("arguments must be strings: %w", err)
		}
	}
	for _, k := range required {
		if args[k] == "" {
			return nil, fmt.Errorf("missing required argument %q", k)
		}
	}
	return args, nil
}

func objectSchema(props map[string]any, required ...string) map[string]any {
	m := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		m["required"] = required
	}
	return m
}

// redPixelPNG is a 1×1 red PNG.
func redPixelPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// silentWAV is 10 ms of 8 kHz, 8-bit mono PCM silence.
func silentWAV() []byte {
	const rate, samples = 8000, 80
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + samples))
	b.WriteString("WAVEfmt ")
	w(uint32(16))   // fmt chunk size
	w(uint16(1))    // PCM
	w(uint16(1))    // mono
	w(uint32(rate)) // sample rate
	w(uint32(rate)) // byte rate
	w(uint16(1))    // block align
	w(uint16(8))    // bits per sample
	b.WriteString("data")
	w(uint32(samples))
	b.Write(bytes.Repeat([]byte{128}, samples))
	return b.Bytes()
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) registerFixtures() {
	s.fixtureTools = map[string]bool{}
	s.registerFixtureTools()
	s.registerFixtureElicitations()
	s.registerFixtureResources()
	s.registerFixturePrompts()
}

func (s *Server) registerFixtureTools() {
	s.fixtureTool(&mcp.Tool{Name: "test_simple_text", Description: "Returns simple text content."},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("This is a simple text response for testing."), nil
		})
	s.fixtureTool(&mcp.Tool{Name: "test_image_content", Description: "Returns image content (a 1×1 red PNG)."},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: redPixelPNG(), MIMEType: "image/png"}}}, nil
		})
	s.fixtureTool(&mcp.Tool{Name: "test_audio_content", Description: "Returns audio content (a short WAV)."},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: silentWAV(), MIMEType: "audio/wav"}}}, nil
		})
	s.fixtureTool(&mcp.Tool{Name: "test_embedded_resource", Description: "Returns an embedded resource."},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
			}}}}, nil
		})
	s.fixtureTool(&mcp.Tool{Name: "test_multiple_content_types", Description: "Returns text, image and resource content."},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "Multiple content types test:"},
				&mcp.ImageContent{Data: redPixelPNG(), MIMEType: "image/png"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
					URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`,
				}},
			}}, nil
		})
	s.fixtureTool(&mcp.Tool{Name: "test_tool_with_logging", Description: "Sends three log notifications while it runs."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					if err := sleep(ctx, fxStepDelay); err != nil {
						return nil, err
					}
				}
				notifyClient(ctx, req.Session, "info", msg)
			}
			return textResult("Tool with logging executed successfully"), nil
		})
	s.fixtureTool(&mcp.Tool{Name: "test_error_handling", Description: "Always fails."},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return errorResult("This tool intentionally returns an error for testing"), nil
		})
	s.fixtureTool(&mcp.Tool{Name: "test_tool_with_progress", Description: "Reports progress 0, 50 and 100 of 100."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			tok := req.Params.GetProgressToken()
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					if err := sleep(ctx, fxStepDelay); err != nil {
						return nil, err
					}
				}
				if tok != nil {
					if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: p, Total: 100}); err != nil {
						return nil, err
					}
				}
			}
			return textResult("Tool with progress executed successfully"), nil
		})
	s.fixtureTool(&mcp.Tool{
		Name: "test_sampling", Description: "Asks the client's LLM (sampling/createMessage) to answer a prompt.",
		InputSchema: objectSchema(map[string]any{"prompt": map[string]any{"type": "string", "description": "The prompt to send to the LLM"}}, "prompt"),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := stringArgs(req, "prompt")
		if err != nil {
			return errorResult(err.Error()), nil
		}
		//lint:ignore SA1019 sampling is deprecated by the 2026-07-28 protocol but the suite tests it on 2025-11-25 sessions
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
			//lint:ignore SA1019 as above: the sampling message types belong to the deprecated sampling feature
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: args["prompt"]}}},
			MaxTokens: 100,
		})
		if err != nil {
			return errorResult("sampling failed: " + err.Error()), nil
		}
		reply := ""
		if tc, ok := res.Content.(*mcp.TextContent); ok {
			reply = tc.Text
		}
		return textResult("LLM response: " + reply), nil
	})
}

// elicit sends elicitation/create with schema and reports the answer.
func elicit(ctx context.Context, req *mcp.CallToolRequest, message string, schema map[string]any, prefix string) *mcp.CallToolResult {
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: message, RequestedSchema: schema})
	if err != nil {
		return errorResult("elicitation failed: " + err.Error())
	}
	content, _ := json.Marshal(res.Content)
	return textResult(fmt.Sprintf("%saction=%s, content=%s", prefix, res.Action, content))
}

func (s *Server) registerFixtureElicitations() {
	s.fixtureTool(&mcp.Tool{
		Name: "test_elicitation", Description: "Asks the user (elicitation/create) for a username and an email.",
		InputSchema: objectSchema(map[string]any{"message": map[string]any{"type": "string", "description": "The message to show the user"}}, "message"),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := stringArgs(req, "message")
		if err != nil {
			return errorResult(err.Error()), nil
		}
		return elicit(ctx, req, args["message"], objectSchema(map[string]any{
			"username": map[string]any{"type": "string", "description": "User's response"},
			"email":    map[string]any{"type": "string", "description": "User's email address"},
		}, "username", "email"), "User response: "), nil
	})
	s.fixtureTool(&mcp.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Elicits primitives that all have default values (SEP-1034)."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return elicit(ctx, req, "Please review and update the form fields with defaults", objectSchema(map[string]any{
				"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
				"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
				"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
				"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
				"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
			}), "Elicitation completed: "), nil
		})
	titled := func(prefix string, titles ...string) []any {
		out := make([]any, len(titles))
		for i, t := range titles {
			out[i] = map[string]any{"const": fmt.Sprintf("%s%d", prefix, i+1), "title": t}
		}
		return out
	}
	s.fixtureTool(&mcp.Tool{Name: "test_elicitation_sep1330_enums", Description: "Elicits the five kinds of enum (SEP-1330)."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			options := []string{"option1", "option2", "option3"}
			return elicit(ctx, req, "Please select options from the enum fields", objectSchema(map[string]any{
				"untitledSingle": map[string]any{"type": "string", "description": "Untitled single-select", "enum": options},
				"titledSingle": map[string]any{"type": "string", "description": "Titled single-select",
					"oneOf": titled("value", "First Option", "Second Option", "Third Option")},
				"legacyEnum": map[string]any{"type": "string", "description": "Legacy titled enum",
					"enum": []string{"opt1", "opt2", "opt3"}, "enumNames": []string{"Option One", "Option Two", "Option Three"}},
				"untitledMulti": map[string]any{"type": "array", "description": "Untitled multi-select",
					"items": map[string]any{"type": "string", "enum": options}},
				"titledMulti": map[string]any{"type": "array", "description": "Titled multi-select",
					"items": map[string]any{"anyOf": titled("value", "First Choice", "Second Choice", "Third Choice")}},
			}), "Elicitation completed: "), nil
		})
	s.fixtureTool(&mcp.Tool{
		Name: fxSchemaTool, Description: "Tool with JSON Schema 2020-12 features",
		InputSchema: map[string]any{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type":    "object",
			"$defs": map[string]any{"address": objectSchema(map[string]any{
				"street": map[string]any{"type": "string"}, "city": map[string]any{"type": "string"},
			})},
			"properties": map[string]any{
				"name":    map[string]any{"type": "string"},
				"address": map[string]any{"$ref": "#/$defs/address"},
			},
			"additionalProperties": false,
		},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("JSON Schema 2020-12 tool called with " + string(req.Params.Arguments)), nil
	})
}

func (s *Server) registerFixtureResources() {
	static := func(uri, name, desc, mime string, contents func() *mcp.ResourceContents) {
		s.mcp.AddResource(&mcp.Resource{URI: uri, Name: name, Description: desc, MIMEType: mime},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				c := contents()
				c.URI, c.MIMEType = uri, mime
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
			})
	}
	static(fxStaticTextURI, "static_text", "A static text resource.", "text/plain", func() *mcp.ResourceContents {
		return &mcp.ResourceContents{Text: "This is the content of the static text resource."}
	})
	static(fxStaticBinaryURI, "static_binary", "A static binary resource (a 1×1 red PNG).", "image/png", func() *mcp.ResourceContents {
		return &mcp.ResourceContents{Blob: redPixelPNG()}
	})
	static(fxWatchedURI, "watched_resource", "A resource to subscribe to.", "text/plain", func() *mcp.ResourceContents {
		return &mcp.ResourceContents{Text: "Watched resource content"}
	})
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: fxTemplate, Name: "template_data", Description: "Data for an id, substituted into the URI.", MIMEType: "application/json",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		id, ok := fixtureTemplateID(req.Params.URI)
		if !ok || id == "" {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		data, err := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(data)}}}, nil
	})
}

func (s *Server) registerFixturePrompts() {
	user := func(c mcp.Content) *mcp.PromptMessage { return &mcp.PromptMessage{Role: "user", Content: c} }
	s.mcp.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Description: "A simple prompt without arguments."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{user(&mcp.TextContent{Text: "This is a simple prompt for testing."})}}, nil
		})
	s.mcp.AddPrompt(&mcp.Prompt{Name: fxPromptWithArgs, Description: "A prompt with two required arguments.", Arguments: []*mcp.PromptArgument{
		{Name: "arg1", Description: "First test argument", Required: true},
		{Name: "arg2", Description: "Second test argument", Required: true},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		if a["arg1"] == "" || a["arg2"] == "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "prompt " + fxPromptWithArgs + " needs arg1 and arg2"}
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{user(&mcp.TextContent{
			Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"]),
		})}}, nil
	})
	s.mcp.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource.", Arguments: []*mcp.PromptArgument{
		{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		uri := req.Params.Arguments["resourceUri"]
		if uri == "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "prompt test_prompt_with_embedded_resource needs resourceUri"}
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			user(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
			user(&mcp.TextContent{Text: "Please process the embedded resource above."}),
		}}, nil
	})
	s.mcp.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				user(&mcp.ImageContent{Data: redPixelPNG(), MIMEType: "image/png"}),
				user(&mcp.TextContent{Text: "Please analyze the image above."}),
			}}, nil
		})
}
