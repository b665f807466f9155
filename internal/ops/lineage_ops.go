package ops

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/selector"
)

// SelectGrammar documents the selector parameters in every description that takes one.
const SelectGrammar = "dbt node selection: space = union, comma = intersection, `name*` = prefix wildcard; " +
	"`+x` ancestors, `x+` descendants, `2+x` / `x+1` with depth, `@x`; methods tag:, path:, file:, fqn:, package:, " +
	"config.<key>:<value>, resource_type:, source:, exposure:, metric:, test_type:, test_name:, " +
	"state:new|old|modified|unmodified and state:modified.body|configs|relation|persisted_descriptions|macros|contract."

// SelectInput is the common selection input.
type SelectInput struct {
	Select   string   `json:"select,omitempty" jsonschema:"dbt selector (space = union, comma = intersection, name* = prefix wildcard)"`
	Exclude  string   `json:"exclude,omitempty" jsonschema:"dbt selector of nodes to leave out"`
	Packages []string `json:"packages,omitempty" jsonschema:"packages to select from (default: the root project's package)"`
	ViewMode string   `json:"view_mode,omitempty" jsonschema:"all or changed_models (= 1+state:modified+)" enum:"all,changed_models"`
}

// SelectResult lists selected unique ids.
type SelectResult struct {
	Nodes []string `json:"nodes"`
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
		Description: "Compare the model graph of the base and current builds. Returns compact `nodes` " +
			"(idx, id, name, resource_type, package_name, materialized, change_status added/removed/modified/null, " +
			"modifications body/configs/relation/persisted_descriptions/macros/contract, impacted) and `edges` (from, to as node idx, parent → child). " +
			"`impacted` is authoritative: true = modified or downstream of a modified node through ref. " +
			"view_mode changed_models (default) returns modified nodes with their parents and descendants; all returns everything, " +
			"capped at 300 nodes with changed/impacted first and `truncated: true`. Select: " + SelectGrammar,
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
		Description: "Resolve a dbt selector against the union of both builds and return the sorted unique ids (tests only when selected by type). " + SelectGrammar,
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
	for _, row := range out.Nodes.Data {
		status := "unchanged"
		if row[6] != nil {
			status = row[6].(string)
		}
		mods := row[7].([]string)
		detail := ""
		if len(mods) > 0 {
			detail = " (" + strings.Join(mods, ", ") + ")"
		}
		mark := " "
		if row[8].(bool) {
			mark = "*"
		}
		fmt.Fprintf(w, "%s %-10s %-14s %s%s\n", mark, status, row[3], row[1], detail)
	}
	fmt.Fprintln(w, "(* = impacted)")
	return nil
}
