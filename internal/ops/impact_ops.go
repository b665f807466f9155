package ops

import (
	"context"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/diff"
	"github.com/ripple-data/ripple/internal/impact"
)

func addImpactOps(r *Registry) {
	Add(r, Spec{Name: "impact_analysis", Title: "Impact analysis", Warehouse: true, DiffTool: true,
		Description: "Call this FIRST to review a change, before reporting impacted models; do not infer impact by reading code. One call classifies every model " +
			"in scope as confirmed_impacted_models (modified, added, removed, then downstream) or confirmed_not_impacted_models (need no review); " +
			"select only limits the listing. Each impacted model gets row counts, schema changes, a verified key and a value diff, and one data_impact: " +
			"confirmed, none, or potential with a next_action to call. Column lineage (default) rules out downstream models reading no changed column. " +
			"detail=full adds every field and the evidence. Selector grammar: see select_nodes."},
		func(ctx context.Context, s *Session, in *impact.Input) (*impact.Result, error) {
			deps, err := impactDeps(ctx, s)
			if err != nil {
				return nil, err
			}
			return impact.Analyze(ctx, deps, *in)
		})

	Add(r, Spec{Name: "render_lineage_mermaid", Memoize: true, Title: "Lineage as Mermaid",
		Description: "A deterministic Mermaid `graph LR` of the changed nodes and their downstream (or a selection): shapes per resource type, " +
			"styles for added/modified/removed/impacted, 'what changed' notes (Added/Removed, Code, Config, Schema). Capped at ~50,000 characters " +
			"with an explicit truncation note. Paste `mermaid` into a ```mermaid block. " + SelectGrammar},
		func(ctx context.Context, s *Session, in *impact.MermaidInput) (*impact.MermaidResult, error) {
			sel := in.Select
			if strings.TrimSpace(sel) == "" {
				sel = "state:modified+"
			}
			si := SelectInput{Select: sel, AllowEmpty: in.AllowEmpty}
			ids, cmp, err := selectIDs(ctx, s, si)
			if err != nil {
				return nil, err
			}
			notes := schemaNotes(ctx, s, ids)
			res := impact.Mermaid(cmp, ids, notes, in.MaxChars)
			if strings.TrimSpace(in.Select) != "" {
				res.Warning = joinWarnings(res.Warning, emptyWarning(si, ids))
			}
			return res, nil
		})
}

// impactDeps wires the analysis to the session: selection, the warehouse
// (when configured: without one the data steps report errors and the
// classification still comes back), column lineage, the session's key
// cache and progress reports.
func impactDeps(ctx context.Context, s *Session) (impact.Deps, error) {
	cmp, err := s.Comparison(ctx)
	if err != nil {
		return impact.Deps{}, err
	}
	env, werr := diffEnv(ctx, s, true)
	if werr != nil {
		if env, err = diffEnv(ctx, s, false); err != nil {
			return impact.Deps{}, err
		}
	}
	keys, err := s.Cached(ctx, "impact.keys", func(*dbt.Project) (any, error) { return impact.NewKeyCache(), nil })
	if err != nil {
		return impact.Deps{}, err
	}
	return impact.Deps{
		Comparison:   cmp,
		WarehouseErr: werr,
		Select: func(sel string) ([]string, error) {
			// Analyze checks the user's select itself (allow_empty).
			ids, _, err := selectIDs(ctx, s, SelectInput{Select: sel, AllowEmpty: true})
			return ids, err
		},
		Diff:    env,
		Lineage: impactLineage(ctx, s),
		Keys:    keys.(*impact.KeyCache),
		Progress: func(done, total int, message string) {
			ReportProgress(ctx, float64(done), float64(total), message)
		},
	}, nil
}

// impactLineage is the column lineage of both builds, or nil when it
// cannot be computed (the analysis then uses the model graph).
func impactLineage(ctx context.Context, s *Session) *impact.Lineage {
	cur, err := s.ProjectLineage(ctx, false)
	if err != nil {
		s.Logger().Warn("column lineage unavailable; impact uses model lineage", "error", err)
		return nil
	}
	base, err := s.ProjectLineage(ctx, true)
	if err != nil {
		s.Logger().Warn("column lineage of the base build unavailable; impact uses model lineage", "error", err)
		return nil
	}
	return &impact.Lineage{Base: base, Current: cur}
}

// schemaNotes marks nodes whose catalog columns differ between builds.
func schemaNotes(ctx context.Context, s *Session, ids []string) map[string]impact.Annotation {
	notes := map[string]impact.Annotation{}
	env, err := diffEnv(ctx, s, false)
	if err != nil || len(ids) == 0 {
		return notes
	}
	sd, err := diff.SchemaDiff(ctx, env, diff.SchemaDiffInput{NodeIDs: ids, Limit: 100000})
	if err != nil {
		return notes
	}
	for _, row := range sd.Changes.Data {
		if id, ok := row[0].(string); ok {
			notes[id] = impact.Annotation{SchemaChanged: true}
		}
	}
	return notes
}
