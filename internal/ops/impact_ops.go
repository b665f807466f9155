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
		Description: "Call this FIRST to review a change; do not infer impact by reading code. Classifies every model in scope as " +
			"confirmed_impacted_models (modified, added, removed, then downstream) or confirmed_not_impacted_models (no review needed); select only limits the listing. " +
			"Each impacted model gets row counts, schema changes, a verified key, a value diff and one data_impact: confirmed, none, or potential with a next_action. " +
			"Column lineage rules out downstream models reading no changed column (not_impacted_by_column_lineage: evidence). Compact (default) names every " +
			"impacted model; past 100 not-impacted ones it names 100 near the change (ruled out, siblings) and counts the rest " +
			"in not_impacted_summary; detail=full names all."},
		func(ctx context.Context, s *Session, in *impact.Input) (*impact.Result, error) {
			deps, err := impactDeps(ctx, s)
			if err != nil {
				return nil, err
			}
			return impact.Analyze(ctx, deps, *in)
		})

	// Not memoized: the row-count notes come from the session's impact
	// analyses, which may run between two calls.
	Add(r, Spec{Name: "render_lineage_mermaid", Title: "Lineage as Mermaid",
		Description: "A deterministic Mermaid `graph LR` of the changed nodes and their downstream (or a selection): shapes per resource type, " +
			"styles for added/modified/removed/impacted/ruled_out (impact_analysis's verdicts), " +
			"'what changed' notes (Added/Removed, Code, Config, Schema, Row count % once measured). " +
			"Capped at ~50,000 characters with an explicit truncation note. Paste `mermaid` into a ```mermaid block. " + SelectGrammar},
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
			v, err := Verdicts(ctx, s)
			if err != nil {
				return nil, err
			}
			notes := schemaNotes(ctx, s, ids)
			for _, id := range ids {
				if _, changed := cmp.State[id]; !changed {
					continue
				}
				ms, ok := v.Measurement(id)
				if !ok || ms.RowCount == nil || ms.RowCount.DeltaPct == nil || *ms.RowCount.DeltaPct == 0 {
					continue
				}
				a := notes[id]
				a.RowCountDeltaPct = ms.RowCount.DeltaPct
				notes[id] = a
			}
			res := impact.Mermaid(cmp, v, ids, notes, in.MaxChars)
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
	verdicts, err := Verdicts(ctx, s)
	if err != nil {
		return impact.Deps{}, err
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
		Diff:     env,
		Lineage:  impactLineage(ctx, s),
		Verdicts: verdicts,
		Keys:     keys.(*impact.KeyCache),
		Progress: func(done, total int, message string) {
			ReportProgress(ctx, float64(done), float64(total), message)
		},
	}, nil
}

// Verdicts is the session's impact model: every node's change status and
// verdict, computed once per loaded project with column lineage (the
// model-level DAG answer when lineage cannot be computed) and read by every
// surface, so impact_analysis, lineage_diff, get_cll, column_impact,
// render_lineage_mermaid, summary and the web UI agree on every node.
func Verdicts(ctx context.Context, s *Session) (*impact.Verdicts, error) {
	v, err := s.Cached(ctx, "impact.verdicts", func(*dbt.Project) (any, error) {
		ids, _, err := selectIDs(ctx, s, SelectInput{Select: impact.DefaultSelect, AllowEmpty: true})
		if err != nil {
			return nil, err
		}
		cmp, err := s.Comparison(ctx)
		if err != nil {
			return nil, err
		}
		return impact.ClassifyCode(ctx, cmp, ids, impactLineage(ctx, s), s.cfg.KeepCosmetic), nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*impact.Verdicts), nil
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
