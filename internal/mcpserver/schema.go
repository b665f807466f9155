package mcpserver

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
)

// wireSchema is s as a JSON object for tools/list, with every sub-schema
// that jsonschema-go writes as the boolean `true` (the empty schema, e.g.
// of an `any` field) written as `{}` instead. Both mean "anything" in JSON
// Schema, but the TypeScript SDK rejects boolean property schemas, and so
// the whole tools/list answer. A nil schema stays nil.
func wireSchema(s *jsonschema.Schema) any {
	if s == nil {
		return nil
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return s // AddTool reports an unmarshalable schema itself
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return s
	}
	objectifyTrue(m)
	return m
}

// objectifyTrue rewrites, in place, `true` sub-schemas of m as `{}`.
// additionalProperties and unevaluatedProperties keep their booleans,
// which every client accepts.
func objectifyTrue(m map[string]any) {
	// Keywords whose value maps names to sub-schemas, and those whose value
	// is one sub-schema or a list of them.
	schemaMaps := [...]string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaValues := [...]string{"items", "additionalItems", "prefixItems", "contains", "not", "if", "then", "else",
		"allOf", "anyOf", "oneOf", "propertyNames", "unevaluatedItems"}
	fix := func(v any) any {
		switch v := v.(type) {
		case bool:
			if v {
				return map[string]any{}
			}
		case map[string]any:
			objectifyTrue(v)
		}
		return v
	}
	for _, k := range schemaMaps {
		if sub, ok := m[k].(map[string]any); ok {
			for name, v := range sub {
				sub[name] = fix(v)
			}
		}
	}
	for _, k := range schemaValues {
		switch v := m[k].(type) {
		case []any:
			for i := range v {
				v[i] = fix(v[i])
			}
		case nil:
		default:
			m[k] = fix(v)
		}
	}
	for _, k := range [...]string{"additionalProperties", "unevaluatedProperties"} {
		if v, ok := m[k].(map[string]any); ok {
			objectifyTrue(v)
		}
	}
}
