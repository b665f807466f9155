package diff

import (
	"context"
	"fmt"
	"sort"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/frame"
)

// Schema coverage statuses.
const (
	CoverageComplete = "complete"
	CoveragePartial  = "partial"
	CoverageUnknown  = "unknown"
)

// maxUncheckedListed caps SchemaCoverage.UncheckedNodes.
const maxUncheckedListed = 50

// defaultSchemaDiffLimit caps the rows of a schema diff.
const defaultSchemaDiffLimit = 100

// SchemaDiffInput selects the nodes whose columns to compare.
type SchemaDiffInput struct {
	Select  string   `json:"select,omitempty" jsonschema:"dbt selector of the nodes to compare (default: every node in both environments)"`
	Exclude string   `json:"exclude,omitempty" jsonschema:"dbt selector of nodes to leave out"`
	NodeIDs []string `json:"node_ids,omitempty" jsonschema:"unique ids to compare (combined with select/exclude when both are given)"`
	Limit   int      `json:"limit,omitempty" jsonschema:"maximum number of changed columns returned (default 100)"`
}

// SchemaCoverage says which nodes were actually compared. Empty data means
// "no schema changes" only when Status is complete.
type SchemaCoverage struct {
	Status             string   `json:"status"`
	UncheckedNodes     []string `json:"unchecked_nodes"`
	UncheckedNodeCount int      `json:"unchecked_node_count"`
	More               bool     `json:"more"`
}

// SchemaDiffResult lists changed columns as a frame with columns node_id,
// column, change_status (added|removed|modified), base_type, current_type.
type SchemaDiffResult struct {
	Changes  *frame.Frame   `json:"changes"`
	Coverage SchemaCoverage `json:"schema_coverage"`
}

// canCarryColumns reports whether the catalog can describe the node: metrics,
// exposures, semantic models, saved queries and ephemeral models have no
// relation, so missing columns say nothing about them.
func canCarryColumns(n *dbt.Node) bool {
	switch n.ResourceType {
	case dbt.Exposure, dbt.Metric, dbt.SemanticModel, dbt.SavedQuery, dbt.Test, dbt.UnitTest, dbt.Analysis, dbt.Operation, dbt.SQLOperation:
		return false
	}
	return n.Materialized() != "ephemeral"
}

// SchemaDiff compares the catalog columns of every node present in both
// environments: added, removed and type-changed columns (names and types
// compared exactly). A node without catalog columns on either side is
// reported as unchecked, never as having lost its columns.
func SchemaDiff(_ context.Context, env Env, in SchemaDiffInput) (*SchemaDiffResult, error) {
	if err := env.needProject(); err != nil {
		return nil, err
	}
	base, cur := env.Project.Base, env.Project.Current
	var ids []string
	for id := range cur.Manifest.AllNodes() {
		if _, ok := base.Manifest.Node(id); ok {
			ids = append(ids, id)
		}
	}
	if in.Select != "" || in.Exclude != "" || len(in.NodeIDs) > 0 {
		keep := map[string]bool{}
		if in.Select != "" || in.Exclude != "" {
			if env.Select == nil {
				return nil, fmt.Errorf("select/exclude need a selector, which is not configured; pass node_ids instead")
			}
			sel, err := env.Select(in.Select, in.Exclude)
			if err != nil {
				return nil, fmt.Errorf("resolving select %q exclude %q: %w", in.Select, in.Exclude, err)
			}
			for _, id := range sel {
				keep[id] = true
			}
		}
		if len(in.NodeIDs) > 0 {
			want := map[string]bool{}
			for _, id := range in.NodeIDs {
				if env.nodeByID(id) == nil {
					return nil, fmt.Errorf("node id %q is not in the base or current manifest%s", id, env.suggestID(id))
				}
				want[id] = true
			}
			if in.Select == "" && in.Exclude == "" {
				keep = want
			} else {
				for id := range keep {
					if !want[id] {
						delete(keep, id)
					}
				}
			}
		}
		filtered := ids[:0]
		for _, id := range ids {
			if keep[id] {
				filtered = append(filtered, id)
			}
		}
		ids = filtered
	}
	sort.Strings(ids)

	limit := in.Limit
	if limit <= 0 {
		limit = defaultSchemaDiffLimit
	}
	f := frame.New([2]string{"node_id", frame.Text}, [2]string{"column", frame.Text}, [2]string{"change_status", frame.Text},
		[2]string{"base_type", frame.Text}, [2]string{"current_type", frame.Text})
	f.Limit = &limit
	var unchecked []string
	for _, id := range ids {
		bn, _ := base.Manifest.Node(id)
		cn, _ := cur.Manifest.Node(id)
		if !canCarryColumns(bn) || !canCarryColumns(cn) {
			continue
		}
		bcols, ccols := catalogColumns(base, id), catalogColumns(cur, id)
		if len(bcols) == 0 || len(ccols) == 0 {
			unchecked = append(unchecked, id)
			continue
		}
		bt := make(map[string]string, len(bcols))
		for _, c := range bcols {
			bt[c.Name] = c.Type
		}
		ct := make(map[string]string, len(ccols))
		for _, c := range ccols {
			ct[c.Name] = c.Type
		}
		add := func(col, status string, b, c any) {
			if len(f.Data) >= limit {
				f.More = true
				return
			}
			f.Append(id, col, status, b, c)
		}
		for _, c := range ccols {
			t, ok := bt[c.Name]
			switch {
			case !ok:
				add(c.Name, "added", nil, c.Type)
			case t != c.Type:
				add(c.Name, "modified", t, c.Type)
			}
		}
		for _, c := range bcols {
			if _, ok := ct[c.Name]; !ok {
				add(c.Name, "removed", c.Type, nil)
			}
		}
	}
	cov := SchemaCoverage{Status: CoverageComplete, UncheckedNodes: []string{}, UncheckedNodeCount: len(unchecked)}
	if len(unchecked) > 0 {
		cov.Status = CoveragePartial
		cov.UncheckedNodes = unchecked
		if len(unchecked) > maxUncheckedListed {
			cov.UncheckedNodes = unchecked[:maxUncheckedListed]
			cov.More = true
		}
	}
	return &SchemaDiffResult{Changes: f, Coverage: cov}, nil
}

func catalogColumns(e *dbt.Env, id string) []*dbt.CatalogColumn {
	ce, ok := e.Catalog.Entry(id)
	if !ok || len(ce.Columns) == 0 {
		return nil
	}
	return ce.SortedColumns()
}
