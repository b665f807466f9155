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
	b.WriteString("CLI flags are the kebab-case of the parameters.\n\n")
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
		writeProps(&b, op.InputSchema, true)
		b.WriteString("\n**Result fields**\n\n")
		writeProps(&b, op.OutputSchema, false)
	}
	return b.String()
}

func writeProps(b *strings.Builder, s *jsonschema.Schema, input bool) {
	if s == nil || len(s.Properties) == 0 {
		b.WriteString("(none)\n")
		return
	}
	names := s.PropertyOrder
	if len(names) == 0 {
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
	}
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
			fmt.Fprintf(b, "| `%s` | `--%s` | %s | %s | %s |\n", n, strings.ReplaceAll(n, "_", "-"), typeName(p), req, desc)
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
