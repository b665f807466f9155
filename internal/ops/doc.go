package ops

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// MarkdownReference documents every operation: CLI command, MCP tool,
// description, parameters and result fields. docs/operations.md is this
// text; a test keeps it current.
func (r *Registry) MarkdownReference() string {
	var b strings.Builder
	b.WriteString("# Operations\n\n")
	b.WriteString("Generated from the operation registry (`go test ./internal/ops -run TestOperationsDoc -update`). ")
	b.WriteString("Each operation is one CLI command (`ripple <command> --json`) and one MCP tool; both return the same JSON. ")
	b.WriteString("CLI flags are the kebab-case of the parameters, except that the model is always `--model` (or the first argument), ")
	b.WriteString("a column `--column` and a key `--primary-key`; the parameters' own spellings are accepted as hidden aliases.\n\n")
	b.WriteString("| CLI command | MCP tool | warehouse | title |\n|---|---|---|---|\n")
	for _, op := range r.Ops() {
		wh := "no"
		if op.Warehouse {
			wh = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", op.CLIName(), op.Name, wh, op.Title)
	}
	for _, op := range r.Ops() {
		fmt.Fprintf(&b, "\n## %s\n\n`ripple %s` · MCP `%s`", op.Title, op.CLIName(), op.Name)
		if op.WritesState {
			b.WriteString(" · writes the checks state")
		}
		fmt.Fprintf(&b, "\n\n%s\n\n", op.Description)
		b.WriteString("**Parameters**\n\n")
		writeProps(&b, op.InputSchema(), true)
		b.WriteString("\n**Result fields**\n\n")
		writeResultFields(&b, op.OutputSchema())
	}
	return b.String()
}

// writeResultFields lists every result field, nested ones as dotted paths:
// `a.b` for an object's field, `a[].b` for a list's items, `a.<key>.b` for
// a map's values.
func writeResultFields(b *strings.Builder, s *jsonschema.Schema) {
	rows := resultFields(s, "", 0)
	if len(rows) == 0 {
		b.WriteString("(none)\n")
		return
	}
	b.WriteString("| field | type | description |\n|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", r.path, typeName(r.schema), strings.ReplaceAll(r.schema.Description, "|", "\\|"))
	}
}

type fieldRow struct {
	path   string
	schema *jsonschema.Schema
}

// maxFieldDepth bounds the nesting rendered (results are not recursive,
// but a bound keeps a mistake from running away).
const maxFieldDepth = 8

// resultFields flattens the fields of s; a field's own row comes before its
// nested fields. A map with a described value schema (row_count_diff's
// models) lists the value as `<key>`.
func resultFields(s *jsonschema.Schema, prefix string, depth int) []fieldRow {
	if s == nil || depth > maxFieldDepth {
		return nil
	}
	var rows []fieldRow
	for _, n := range propertyNames(s) {
		p := s.Properties[n]
		if p == nil {
			continue
		}
		path := prefix + n
		rows = append(rows, fieldRow{path, p})
		rows = append(rows, nestedFields(p, path, depth)...)
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Description != "" && len(objectOf(ap).Properties) > 0 {
		path := prefix + "<key>"
		rows = append(rows, fieldRow{path, ap})
		rows = append(rows, resultFields(objectOf(ap), path+".", depth+1)...)
	}
	return rows
}

// nestedFields lists the fields inside field p (at path).
func nestedFields(p *jsonschema.Schema, path string, depth int) []fieldRow {
	obj := objectOf(p)
	switch {
	case len(obj.Properties) > 0:
		return resultFields(obj, path+".", depth+1)
	case obj.Items != nil && len(objectOf(obj.Items).Properties) > 0:
		return resultFields(objectOf(obj.Items), path+"[].", depth+1)
	case obj.AdditionalProperties != nil && len(objectOf(obj.AdditionalProperties).Properties) > 0:
		return resultFields(objectOf(obj.AdditionalProperties), path+".<key>.", depth+1)
	}
	return nil
}

// objectOf is the object schema inside a nullable anyOf, or s itself.
func objectOf(s *jsonschema.Schema) *jsonschema.Schema {
	for _, a := range s.AnyOf {
		if a.Type == "object" || len(a.Properties) > 0 {
			return a
		}
	}
	return s
}

func propertyNames(s *jsonschema.Schema) []string {
	names := s.PropertyOrder
	if len(names) == 0 {
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	return names
}

// UndocumentedFields lists the input parameters and result fields of op
// (nested ones included) that have no description.
func UndocumentedFields(op *Op) []string {
	var out []string
	for _, n := range propertyNames(op.InputSchema()) {
		if p := op.InputSchema().Properties[n]; p != nil && strings.TrimSpace(p.Description) == "" {
			out = append(out, "input "+n)
		}
	}
	for _, r := range resultFields(op.OutputSchema(), "", 0) {
		if strings.TrimSpace(r.schema.Description) == "" {
			out = append(out, "result "+r.path)
		}
	}
	return out
}

func writeProps(b *strings.Builder, s *jsonschema.Schema, input bool) {
	if s == nil || len(s.Properties) == 0 {
		b.WriteString("(none)\n")
		return
	}
	names := propertyNames(s)
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	if input {
		b.WriteString("| name | flag | type | required | description |\n|---|---|---|---|---|\n")
	} else {
		b.WriteString("| field | type | description |\n|---|---|---|\n")
	}
	for _, n := range names {
		p := s.Properties[n]
		if p == nil {
			continue
		}
		desc := strings.ReplaceAll(p.Description, "|", "\\|")
		if input {
			req := ""
			if required[n] {
				req = "yes"
			}
			fmt.Fprintf(b, "| `%s` | `--%s` | %s | %s | %s |\n", n, CLIFlag(n), typeName(p), req, desc)
		} else {
			fmt.Fprintf(b, "| `%s` | %s | %s |\n", n, typeName(p), desc)
		}
	}
}

func typeName(s *jsonschema.Schema) string {
	switch {
	case s.Type != "":
		if s.Type == "array" && s.Items != nil {
			return typeName(s.Items) + "[]"
		}
		return s.Type
	case len(s.Types) > 0:
		return strings.Join(s.Types, "\\|")
	case len(s.AnyOf) > 0:
		var ts []string
		for _, a := range s.AnyOf {
			ts = append(ts, typeName(a))
		}
		return strings.Join(ts, " or ")
	}
	return "any"
}
