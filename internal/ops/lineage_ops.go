package ops

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/selector"
)

// SelectNote ends the description of every select parameter.
const SelectNote = "SPACE = union (OR), COMMA = intersection (AND): comma-joining distinct names matches nothing. " +
	"Bare names match exactly; name* matches a prefix. Grammar: select_nodes."

// SelectGrammar is the selector grammar, documented once (select_nodes).
const SelectGrammar = "dbt node selection: space = union, comma = intersection, `name*` = prefix wildcard; " +
	"`+x` ancestors, `x+` descendants, `2+x` / `x+1` with depth, `@x`; methods tag:, path:, file:, fqn:, package:, " +
	"config.<key>:<value>, resource_type:, source:, exposure:, metric:, test_type:, test_name:, " +
	"state:new|old|modified|unmodified and state:modified.body|configs|relation|persisted_descriptions|macros|contract."

// SelectInput is the common selection input.
type SelectInput struct {
	Select   string   `json:"select,omitempty" jsonschema:"dbt selector."`
	Exclude  string   `json:"exclude,omitempty" jsonschema:"dbt selector of nodes to leave out"`
	Packages []string `json:"packages,omitempty" jsonschema:"packages to select from (default: the root project)"`
	ViewMode string   `json:"view_mode,omitempty" enum:"all,changed_models" jsonschema:"changed_models keeps only 1+state:modified+; all (or omitted) keeps everything"`
}

// SelectResult lists selected unique ids.
type SelectResult struct {
	Nodes []string `json:"nodes" jsonschema:"selected unique ids, sorted; tests only when selected by resource type"`
}

// selectIDs runs the selector over the session's comparison.
func selectIDs(ctx context.Context, s *Session, in SelectInput) ([]string, *lineage.Comparison, error) {
	cmp, err := s.Comparison(ctx)
	if err != nil {
		return nil, nil, err
	}
	if in.ViewMode != "" && in.ViewMode != "all" && in.ViewMode != "changed_models" {
		return nil, nil, fmt.Errorf("view_mode must be 'all' or 'changed_models', not %q", in.ViewMode)
	}
	ids, err := selector.Select(cmp.Graph, cmp.State, cmp.Project.Current.Manifest.Metadata.ProjectName, selector.Options{
		Select: in.Select, Exclude: in.Exclude, Packages: in.Packages, ViewMode: in.ViewMode,
	})
	if err != nil {
		return nil, nil, err
	}
	return ids, cmp, nil
}

func addLineageOps(r *Registry) {
	Add(r, Spec{
		Name: "lineage_diff", Memoize: true,
		Title: "Lineage diff",
		Description: "Compare the model graph of base and current: nodes and edges as DataFrames. `impacted` is authoritative: true = modified or " +
			"downstream of a modified node through ref (false even when sharing upstream sources). To draw it: Mermaid `graph LR`; added fill #d4edda " +
			"stroke #28a745, removed fill #f8d7da stroke #dc3545, modified fill #fff3cd stroke #ffc107, impacted unchanged stroke #ffc107, " +
			"others stroke #d3d3d3 color #999999.",
		DiffTool: true,
	}, func(ctx context.Context, s *Session, in *lineage.DiffInput) (*lineage.DiffResult, error) {
		mode := in.ViewMode
		if mode == "" {
			mode = "changed_models"
		}
		ids, cmp, err := selectIDs(ctx, s, SelectInput{Select: in.Select, Exclude: in.Exclude, Packages: in.Packages, ViewMode: mode})
		if err != nil {
			return nil, err
		}
		return cmp.Diff(ids, mode), nil
	}, renderLineageDiff)

	Add(r, Spec{
		Name: "select_nodes", Memoize: true,
		Title:       "Select nodes",
		Description: "Resolve a dbt selection against the union of both builds (removed nodes included) and return the sorted unique ids. " + SelectGrammar,
	}, func(ctx context.Context, s *Session, in *SelectInput) (*SelectResult, error) {
		ids, _, err := selectIDs(ctx, s, *in)
		if err != nil {
			return nil, err
		}
		if ids == nil {
			ids = []string{}
		}
		return &SelectResult{Nodes: ids}, nil
	}, func(w io.Writer, out *SelectResult) error {
		for _, id := range out.Nodes {
			fmt.Fprintln(w, id)
		}
		if len(out.Nodes) == 0 {
			fmt.Fprintln(w, "(no nodes selected)")
		}
		return nil
	})
}

func renderLineageDiff(w io.Writer, out *lineage.DiffResult) error {
	if out.Warning != "" {
		fmt.Fprintf(w, "warning: %s\n", out.Warning)
	}
	fmt.Fprintf(w, "%d nodes (%d changed, %d impacted)", out.ReturnedNodes, out.ChangedCount, out.ImpactedCount)
	if out.Truncated {
		fmt.Fprintf(w, " — truncated from %d", out.TotalNodes)
	}
	fmt.Fprintln(w)
	col := func(k string) int { return out.Nodes.Index(k) }
	for _, row := range out.Nodes.Data {
		status := "unchanged"
		if st, ok := row[col("change_status")].(string); ok {
			status = st
		}
		detail := ""
		if mods, _ := row[col("modifications")].([]string); len(mods) > 0 {
			detail = " (" + strings.Join(mods, ", ") + ")"
		}
		mark := " "
		if impacted, _ := row[col("impacted")].(bool); impacted {
			mark = "*"
		}
		fmt.Fprintf(w, "%s %-10s %-14s %s%s\n", mark, status, row[col("resource_type")], row[col("id")], detail)
	}
	fmt.Fprintln(w, "(* = impacted)")
	return nil
}
