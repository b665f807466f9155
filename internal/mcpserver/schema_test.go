package mcpserver

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ripple-data/ripple/internal/ops"
)

func TestWireSchemaWritesAnyAsAnObject(t *testing.T) {
	type inner struct {
		V any `json:"v"`
	}
	type out struct {
		Min   any            `json:"min"`
		List  []any          `json:"list"`
		Map   map[string]any `json:"map"`
		Inner inner          `json:"inner"`
	}
	s, err := jsonschema.For[out](nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(s)
	if !strings.Contains(string(raw), `"min":true`) {
		t.Skipf("jsonschema-go no longer writes the empty schema as true: %s", raw)
	}
	got, _ := json.Marshal(wireSchema(s))
	for _, bad := range []string{`"min":true`, `"items":true`, `"v":true`} {
		if strings.Contains(string(got), bad) {
			t.Errorf("wire schema still has %s: %s", bad, got)
		}
	}
	if !strings.Contains(string(got), `"min":{}`) || !strings.Contains(string(got), `"additionalProperties":false`) {
		t.Errorf("wire schema = %s", got)
	}
	if wireSchema(nil) != nil {
		t.Error("wireSchema(nil) is not nil")
	}
}

// TestToolSchemasHaveNoBooleanProperties guards what the TypeScript SDK
// (and the conformance suite's tools-list scenario) enforces: every
// property schema in tools/list is an object.
func TestToolSchemasHaveNoBooleanProperties(t *testing.T) {
	h := newHarness(t, ops.Default(), fixturePaths(t), ModeServer)
	cs := h.connect(t, "2025-11-25", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var walk func(tool, path string, v any)
	walk = func(tool, path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, sub := range v {
				if k == "properties" || k == "$defs" {
					if m, ok := sub.(map[string]any); ok {
						for name, p := range m {
							if _, isBool := p.(bool); isBool {
								t.Errorf("%s: %s.%s.%s is a boolean schema", tool, path, k, name)
							}
						}
					}
				}
				walk(tool, path+"."+k, sub)
			}
		case []any:
			for _, sub := range v {
				walk(tool, path+"[]", sub)
			}
		}
	}
	for _, tool := range res.Tools {
		for name, s := range map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
			raw, _ := json.Marshal(s)
			var v any
			_ = json.Unmarshal(raw, &v)
			walk(tool.Name, name, v)
		}
	}
}

// TestWireOutputSchemaIsCompactAndLenient: the compact output schema keeps
// structure and descriptions, drops what other keywords or the
// descriptions already say, and still accepts every result the strict
// schema accepts (nulls included).
func TestWireOutputSchemaIsCompactAndLenient(t *testing.T) {
	type side struct {
		Rows *int64 `json:"rows" jsonschema:"rows, or null"`
	}
	type out struct {
		Name  string         `json:"name" jsonschema:"model name"`
		Base  *side          `json:"base" jsonschema:"base side, null when absent"`
		Curr  *side          `json:"current" jsonschema:"current side, null when absent"`
		Tags  []string       `json:"tags" jsonschema:"tags"`
		Args  map[string]any `json:"args,omitempty" jsonschema:"arguments"`
		Ratio *float64       `json:"ratio" jsonschema:"a ratio, or null"`
	}
	s, err := jsonschema.For[out](nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(wireOutputSchema(s, reflect.TypeFor[out]()))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"$defs":{"side":{"properties":{"rows":{"description":"rows, or null"}}}},"properties":{` +
		`"args":{"description":"arguments","type":"object"},` +
		`"base":{"$ref":"#/$defs/side","description":"base side, null when absent"},` +
		`"current":{"$ref":"#/$defs/side","description":"current side, null when absent"},` +
		`"name":{"description":"model name"},"ratio":{"description":"a ratio, or null"},` +
		`"tags":{"description":"tags","items":{}}},"type":"object"}`
	if string(raw) != want {
		t.Errorf("wire output schema =\n%s\nwant\n%s", raw, want)
	}
	var wire jsonschema.Schema
	if err := json.Unmarshal(raw, &wire); err != nil {
		t.Fatal(err)
	}
	r, err := wire.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(3)
	for _, v := range []out{{Name: "a", Tags: []string{}}, {Name: "b", Base: &side{Rows: &n}, Curr: &side{}, Tags: []string{"x"}, Args: map[string]any{"k": 1}}} {
		var m map[string]any
		b, _ := json.Marshal(v)
		_ = json.Unmarshal(b, &m)
		if err := r.Validate(m); err != nil {
			t.Errorf("%s does not validate against the wire schema: %v", b, err)
		}
	}
}
