package ops

import (
	"fmt"
	"sort"
	"strings"
)

// Toolset is a named group of operations, so an MCP client can load only
// the tools it needs (`ripple mcp --toolsets recce,static`).
type Toolset struct {
	Name        string
	Description string
	Tools       []string
}

// ToolsetAll names every toolset at once.
const ToolsetAll = "all"

// Toolsets lists the toolsets. An operation may be in several; every
// operation is in at least one (a test keeps it so).
func Toolsets() []Toolset {
	return []Toolset{
		{Name: "recce", Description: "the peer's 20 tools: lineage, schema, models, column lineage, data diffs, checks, impact analysis",
			Tools: []string{"lineage_diff", "schema_diff", "get_model", "get_cll", "analyze_model", "get_server_info", "set_backend", "select_nodes",
				"row_count_diff", "query", "query_diff", "profile_diff", "value_diff", "value_diff_detail", "top_k_diff", "histogram_diff",
				"list_checks", "run_check", "create_check", "impact_analysis"}},
		{Name: "checks", Description: "saved checks: list, create, run, approve, delete, reorder",
			Tools: []string{"list_checks", "create_check", "run_check", "approve_check", "delete_check", "reorder_check"}},
		{Name: "current", Description: "single-environment measures of current (the peer's row_count and profile run types): row counts, column profiles",
			Tools: []string{"row_count", "profile"}},
		{Name: "review", Description: "the pull-request summary, the Mermaid lineage of a change and the structural diff of two SQL texts",
			Tools: []string{"summary", "render_lineage_mermaid", "sql_diff"}},
		{Name: "lineage", Description: "node and column lineage beyond the peer's: nodes, focused graphs, column impact, opaque models, lineage of any SQL",
			Tools: []string{"get_node", "lineage", "column_impact", "list_opaque", "sql_lineage"}},
		{Name: "static", Description: "artifact-only answers: project summary, search, ERD, test gaps, state policies, find data, describe entity, plan query, observed lineage, OpenLineage",
			Tools: []string{"project_summary", "search", "erd", "test_gaps", "state_policies", "find_data", "describe_entity", "plan_query",
				"compare_observed", "openlineage_export"}},
	}
}

// DefaultToolsets returns the toolsets served when none are named: the
// peer's tools, which fit the tools/list budget (see mcpserver).
func DefaultToolsets() []string { return []string{"recce"} }

// ResolveToolsets turns toolset names ("all" allowed, empty = the default)
// into the set of tool names they serve. Unknown names are an error with
// the closest matches.
func ResolveToolsets(names []string) (map[string]bool, error) {
	if len(names) == 0 {
		names = DefaultToolsets()
	}
	all := Toolsets()
	known := []string{ToolsetAll}
	for _, ts := range all {
		known = append(known, ts.Name)
	}
	out := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		found := false
		for _, ts := range all {
			if n == ts.Name || n == ToolsetAll {
				found = true
				for _, t := range ts.Tools {
					out[t] = true
				}
			}
		}
		if !found {
			sort.Strings(known)
			return nil, fmt.Errorf("unknown toolset %q: use %s (comma-separated)", n, strings.Join(known, ", "))
		}
	}
	return out, nil
}

// ToolsetsOf lists the toolsets that serve tool name.
func ToolsetsOf(name string) []string {
	var out []string
	for _, ts := range Toolsets() {
		for _, t := range ts.Tools {
			if t == name {
				out = append(out, ts.Name)
			}
		}
	}
	return out
}

// InAnyToolset reports whether some toolset serves tool name.
func InAnyToolset(name string) bool { return len(ToolsetsOf(name)) > 0 }
