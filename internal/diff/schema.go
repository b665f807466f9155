package diff

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/alias"

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
	Select   string   `json:"select,omitempty" jsonschema:"dbt selector (default: every node)."`
	Exclude  string   `json:"exclude,omitempty" jsonschema:"dbt selector to exclude"`
	Packages []string `json:"packages,omitempty" jsonschema:"packages (default: all)"`
	ViewMode string   `json:"view_mode,omitempty" enum:"all,changed_models" jsonschema:"changed_models: only 1+state:modified+"`
	NodeIDs  Keys     `json:"node_id,omitempty" jsonschema:"unique id or ids to compare"`
	Limit    int      `json:"limit,omitempty" jsonschema:"row cap (default 100)"`
	// LegacyNodeIDs is node_id's old name, deprecated.
	LegacyNodeIDs []string `json:"node_ids,omitempty" jsonschema:"Deprecated: use node_id."`
	AllowEmpty    bool     `json:"allow_empty,omitempty" jsonschema:"accept a select/exclude term naming nothing (default: error)"`
}

// Normalize folds the deprecated node_ids into node_id.
func (in *SchemaDiffInput) Normalize() error {
	return alias.Fold((*[]string)(&in.NodeIDs), &in.LegacyNodeIDs, "node_id", "node_ids")
}

func (in SchemaDiffInput) selection() Selection {
	return Selection{Select: in.Select, Exclude: in.Exclude, Packages: in.Packages, ViewMode: in.ViewMode, AllowEmpty: in.AllowEmpty}
}

// SchemaCoverage says which nodes were actually compared. Empty data means
// "no schema changes" only when Status is complete.
type SchemaCoverage struct {
	Status             string   `json:"status" jsonschema:"complete, partial (unchecked_nodes lack column metadata) or unknown"`
	UncheckedNodes     []string `json:"unchecked_nodes" jsonschema:"node ids not compared (first 50)"`
	UncheckedNodeCount int      `json:"unchecked_node_count" jsonschema:"nodes not compared"`
	More               bool     `json:"more" jsonschema:"unchecked_nodes was cut"`
}

// SchemaDiffResult is the peer's DataFrame of changed columns (node_id,
// column, change_status added|removed|modified, then base_type and
// current_type) at the top level, with the coverage of the comparison.
type SchemaDiffResult struct {
	*frame.Frame
	// Changes is the same frame, for Go callers.
	Changes  *frame.Frame   `json:"-"`
	Coverage SchemaCoverage `json:"schema_coverage" jsonschema:"what was compared"`
	Warning  string         `json:"_warning,omitempty" jsonschema:"single-env notice"`
}

// Mismatch is the CI verdict: true when a column was added, removed or
// changed type. No change is a pass only when every node was compared.
func (r *SchemaDiffResult) Mismatch() (bool, error) {
	if r.Frame != nil && (len(r.Data) > 0 || r.More) {
		return true, nil
	}
	if r.Coverage.Status != CoverageComplete {
		return false, fmt.Errorf("no schema change found, but coverage is %s: %d nodes could not be compared (%s)",
			r.Coverage.Status, r.Coverage.UncheckedNodeCount, strings.Join(r.Coverage.UncheckedNodes, ", "))
	}
	return false, nil
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
	selected := !in.selection().IsZero()
	if selected || len(in.NodeIDs) > 0 {
		keep := map[string]bool{}
		if selected {
			if env.Select == nil {
				return nil, fmt.Errorf("select, exclude, packages and view_mode need a selector, which is not configured; pass node_id instead")
			}
			sel, err := env.Select(in.selection())
			if err != nil {
				return nil, err // the selector's errors name select or exclude
			}
			for _, id := range sel {
				keep[id] = true
			}
		}
		if len(in.NodeIDs) > 0 {
			want := map[string]bool{}
			for _, id := range in.NodeIDs {
				if env.nodeByID(id) == nil {
					// A model name (the CLI's --model) stands for its id.
					resolved := ""
					for _, side := range []Side{Current, Base} {
						if m := env.manifest(side); m != nil && resolved == "" {
							if n, err := m.Lookup(id); err == nil {
								resolved = n.UniqueID
							}
						}
					}
					if resolved == "" {
						hint := env.suggestID(id)
						if hint == "" {
							hint = env.suggestName(id)
						}
						return nil, dbt.NotFoundf("node id %q is not in the base or current manifest%s", id, hint)
					}
					id = resolved
				}
				want[id] = true
			}
			if !selected {
				keep = want
			} else {
				for id := range keep {
					if !want[id] {
						delete(keep, id)
					}
				}
			}
		}
		kept := ids[:0]
		for _, id := range ids {
			if keep[id] {
				kept = append(kept, id)
			}
		}
		ids = kept
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
	return &SchemaDiffResult{Frame: f, Changes: f, Coverage: cov, Warning: env.warning()}, nil
}

func catalogColumns(e *dbt.Env, id string) []*dbt.CatalogColumn {
	ce, ok := e.Catalog.Entry(id)
	if !ok || len(ce.Columns) == 0 {
		return nil
	}
	return ce.SortedColumns()
}
