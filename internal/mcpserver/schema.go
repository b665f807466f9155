package mcpserver

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

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

// wireInputSchema is an input schema as tools/list sends it: without
// additionalProperties false, which the server enforces anyway (an unknown
// parameter is an input validation error naming the closest ones).
func wireInputSchema(s *jsonschema.Schema) any {
	w := wireSchema(s)
	if m, ok := w.(map[string]any); ok {
		delete(m, "additionalProperties")
	}
	return w
}

// wireOutputSchema is an output schema as tools/list sends it, compact: a
// struct type used more than once (a DataFrame, a side of a diff) is
// written once under $defs and referenced, and objects neither list
// required fields nor forbid additional ones (results grow additively; the
// tests validate every result against the strict schema too).
func wireOutputSchema(s *jsonschema.Schema, t reflect.Type) any {
	if s == nil {
		return nil
	}
	s = s.CloneSchemas()
	shareDefs(s, t)
	m, ok := wireSchema(s).(map[string]any)
	if !ok {
		return s
	}
	dropClosed(m)
	m["type"] = "object" // clients require it at the top
	return m
}

// defNames renames shared types whose Go name is not the contract's name.
func defNames() map[string]string { return map[string]string{"Frame": "DataFrame"} }

// shareDefs moves every named struct type that occurs at least twice under
// t into s.Defs, replacing each occurrence by a $ref (nullable ones by
// anyOf [$ref, null] unless the definition has properties); each occurrence keeps its field's description.
func shareDefs(s *jsonschema.Schema, t reflect.Type) {
	// Count the occurrences, each type's fields once: a type used only inside
	// another shared type is written once, inside that definition.
	count := map[reflect.Type]int{}
	walkTyped(s, t, func(sub *jsonschema.Schema, t reflect.Type) *jsonschema.Schema {
		count[t]++
		if count[t] > 1 {
			return sub // already descended into
		}
		return nil
	})
	defs := map[string]*jsonschema.Schema{}
	var repl func(*jsonschema.Schema, reflect.Type) *jsonschema.Schema
	repl = func(sub *jsonschema.Schema, t reflect.Type) *jsonschema.Schema {
		if count[t] < 2 {
			return nil
		}
		name := t.Name()
		if n, ok := defNames()[name]; ok {
			name = n
		}
		if _, done := defs[name]; !done {
			def := sub.CloneSchemas()
			def.Description = ""
			if len(def.Types) == 2 && def.Types[0] == "null" {
				def.Type, def.Types = def.Types[1], nil
			}
			defs[name] = def
			// Shared types inside the definition are shared too.
			walkTyped(def, t, repl)
		}
		ref := &jsonschema.Schema{Ref: "#/$defs/" + name}
		// A definition with properties loses its object type on the wire
		// (dropClosed), so a bare $ref accepts null too.
		if slices.Contains(sub.Types, "null") && len(defs[name].Properties) == 0 {
			return &jsonschema.Schema{Description: sub.Description, AnyOf: []*jsonschema.Schema{ref, {Type: "null"}}}
		}
		ref.Description = sub.Description
		return ref
	}
	walkTyped(s, t, repl)
	if len(defs) > 0 {
		s.Defs = defs
	}
}

// walkTyped visits the sub-schemas of s that are named struct types below
// t (t itself excluded), following struct fields, pointers, slices and
// maps in step with the schema. visit may return a replacement, which is
// then not descended into; returning nil descends.
func walkTyped(s *jsonschema.Schema, t reflect.Type, visit func(*jsonschema.Schema, reflect.Type) *jsonschema.Schema) {
	var walk func(s *jsonschema.Schema, t reflect.Type, top bool) *jsonschema.Schema
	walk = func(s *jsonschema.Schema, t reflect.Type, top bool) *jsonschema.Schema {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if s == nil {
			return nil
		}
		switch t.Kind() {
		case reflect.Struct:
			if !top && t.Name() != "" {
				if r := visit(s, t); r != nil {
					return r
				}
			}
			for _, f := range reflect.VisibleFields(t) {
				if f.Anonymous || !f.IsExported() {
					continue
				}
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "-" {
					continue
				}
				if name == "" {
					name = f.Name
				}
				if p, ok := s.Properties[name]; ok {
					if r := walk(p, f.Type, false); r != nil {
						s.Properties[name] = r
					}
				}
			}
		case reflect.Slice, reflect.Array:
			if r := walk(s.Items, t.Elem(), false); r != nil {
				s.Items = r
			}
		case reflect.Map:
			if r := walk(s.AdditionalProperties, t.Elem(), false); r != nil {
				s.AdditionalProperties = r
			}
			// Map values are never null.
			if v := s.AdditionalProperties; v != nil && len(v.AnyOf) == 2 && v.AnyOf[1].Type == "null" {
				v.AnyOf[0].Description = v.Description
				s.AdditionalProperties = v.AnyOf[0]
			} else if v != nil && len(v.Types) == 2 && v.Types[0] == "null" {
				v.Type, v.Types = v.Types[1], nil
			}
		}
		return nil
	}
	walk(s, t, true)
}

// dropClosed compacts every object schema of m in place to what a client
// reads: the structure (objects, arrays, maps, shared $defs) and every
// field's description. It removes additionalProperties false and required
// (results grow additively; the tests hold the operations to the strict
// schema), additionalProperties true (the default) and items {}
// (anything), a type that other keywords already say (properties or
// additionalProperties: object; items: array), and the type of scalar
// leaves, nullable ones included: the description says what the value is
// and when it is null, and the result shows it. Every result still
// validates. The strict schemas, with every type and required list, are
// what the tests validate against and docs/operations.md publishes.
func dropClosed(m map[string]any) {
	if _, ok := m["additionalProperties"].(bool); ok {
		delete(m, "additionalProperties")
	}
	if _, ok := m["required"].([]any); ok {
		delete(m, "required")
	}
	if v, ok := m["items"].(map[string]any); ok && len(v) == 0 {
		delete(m, "items")
	}
	_, props := m["properties"].(map[string]any)
	_, addl := m["additionalProperties"].(map[string]any)
	_, items := m["items"].(map[string]any)
	switch {
	case (props || addl) && impliedType(m["type"], "object"),
		items && impliedType(m["type"], "array"),
		scalarType(m["type"]):
		delete(m, "type")
	}
	for _, v := range m {
		switch v := v.(type) {
		case map[string]any:
			dropClosed(v)
		case []any:
			for _, e := range v {
				if em, ok := e.(map[string]any); ok {
					dropClosed(em)
				}
			}
		}
	}
}

// scalarType reports whether t is string, integer, number or boolean, or
// one of them or null: a leaf's value, which its description explains and
// the result itself shows.
func scalarType(t any) bool {
	for _, want := range [...]string{"string", "integer", "number", "boolean"} {
		if impliedType(t, want) {
			return true
		}
	}
	return false
}

// impliedType reports whether the type keyword t is want, or want or null.
func impliedType(t any, want string) bool {
	switch t := t.(type) {
	case string:
		return t == want
	case []any:
		return len(t) == 2 && (t[0] == "null" && t[1] == want || t[0] == want && t[1] == "null")
	}
	return false
}
