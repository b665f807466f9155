package ops

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/diff"
	"github.com/ripple-data/ripple/internal/impact"
)

func addImpactOps(r *Registry) {
	Add(r, Spec{Name: "impact_analysis", Title: "Impact analysis", Warehouse: true, DiffTool: true,
		Description: "Call this FIRST to review a change, before reporting impacted models; do not infer impact by reading code. One call classifies every model " +
			"in scope: confirmed_impacted_models (modified, added, removed, then downstream) or confirmed_not_impacted_models (names; need no review). " +
			"select only limits which models are listed: changes always come from every modified model. Per impacted model: row_count {base, current, delta, delta_pct}, " +
			"schema_changes ([] = compared and unchanged, null = could not be compared), a key (primary_key, key_source constraint/test/grain/lineage/name, key_verified in SQL) " +
			"and with it a value_diff {rows_added, rows_removed, rows_changed, affected_row_count, columns} (views too, up to max_value_diff_rows), affected_row_count, " +
			"data_impact (confirmed / none / potential; added and removed models are confirmed with every row affected, see verdict_basis) and next_action " +
			"{tool, columns, reason, priority, arguments} — null when the verdict is definitive; a keyed query_diff returns the changed rows. Column lineage (default) " +
			"rules out downstream models that read none of the changed columns (impacted_via lists the changed columns that reach a model). " +
			"Default detail is compact (models with data_impact none as short rows); detail=full returns every field and the column-lineage evidence. " +
			"Also: max_affected_row_count, schema_coverage, suggested_checks (ready create_check arguments), errors (failed steps; the rest still ran), _guidance. " +
			SelectGrammar},
		func(ctx context.Context, s *Session, in *impact.Input) (*impact.Result, error) {
			deps, err := impactDeps(ctx, s)
			if err != nil {
				return nil, err
			}
			return impact.Analyze(ctx, deps, *in)
		}, renderImpact)

	Add(r, Spec{Name: "render_lineage_mermaid", Memoize: true, Title: "Lineage as Mermaid",
		Description: "A deterministic Mermaid `graph LR` of the changed nodes and their downstream (or a selection): shapes per resource type, " +
			"styles for added/modified/removed/impacted, 'what changed' notes (Added/Removed, Code, Config, Schema). Capped at ~50,000 characters " +
			"with an explicit truncation note. Paste `mermaid` into a ```mermaid block. " + SelectGrammar},
		func(ctx context.Context, s *Session, in *impact.MermaidInput) (*impact.MermaidResult, error) {
			sel := in.Select
			if strings.TrimSpace(sel) == "" {
				sel = "state:modified+"
			}
			ids, cmp, err := selectIDs(ctx, s, SelectInput{Select: sel})
			if err != nil {
				return nil, err
			}
			notes := schemaNotes(ctx, s, ids)
			return impact.Mermaid(cmp, ids, notes, in.MaxChars), nil
		}, func(w io.Writer, out *impact.MermaidResult) error {
			_, err := io.WriteString(w, out.Mermaid)
			return err
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
			ids, _, err := selectIDs(ctx, s, SelectInput{Select: sel})
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

func renderImpact(w io.Writer, out *impact.Result) error {
	if out.Warning != "" {
		fmt.Fprintf(w, "warning: %s\n", out.Warning)
	}
	fmt.Fprintf(w, "Impact analysis (%s): %d modified, %d downstream, %d not impacted; max affected rows in one model: %d\n\n",
		out.ClassificationSource, out.ModifiedCount, out.DownstreamCount, len(out.ConfirmedNotImpactedModels), out.MaxAffectedRowCount)
	fmt.Fprintf(w, "%-28s %-11s %-11s %-22s %-10s %-24s %s\n", "model", "change", "impact", "rows base→current", "affected", "key", "next action")
	for _, m := range out.ConfirmedImpactedModels {
		change := "downstream"
		if m.ChangeStatus != nil {
			change = *m.ChangeStatus
		}
		rows := "N/A"
		if rc := m.RowCount; rc != nil {
			rows = fmt.Sprintf("%s→%s", num(rc.Base, rc.BaseStatus), num(rc.Current, rc.CurrentStatus))
			if rc.DeltaPct != nil {
				rows += fmt.Sprintf(" (%+.1f%%)", *rc.DeltaPct)
			}
		}
		affected := "-"
		if m.AffectedRowCount != nil {
			affected = fmt.Sprint(*m.AffectedRowCount)
		}
		key := "-"
		if len(m.PrimaryKey) > 0 {
			key = strings.Join(m.PrimaryKey, ",") + " (" + m.KeySource + ")"
		}
		next := ""
		if m.NextAction != nil {
			next = fmt.Sprintf("%s [%s] %s", m.NextAction.Tool, m.NextAction.Priority, m.NextAction.Reason)
		} else if m.DataImpact == impact.Potential {
			next = m.ValueDiffSkipped
		}
		fmt.Fprintf(w, "%-28s %-11s %-11s %-22s %-10s %-24s %s\n", m.Name, change, m.DataImpact, rows, affected, key, next)
	}
	if len(out.NotImpactedByColumnLineage) > 0 {
		fmt.Fprintln(w, "\nNot impacted, by column lineage (they read none of the changed columns):")
		for _, n := range out.NotImpactedByColumnLineage {
			fmt.Fprintf(w, "  %-26s reads %s\n", n.Name, strings.Join(n.Reads, ", "))
		}
	}
	for _, e := range out.Errors {
		fmt.Fprintf(w, "error in %s %s: %s\n", e.Step, e.Model, e.Message)
	}
	return nil
}

func num(v *int64, status string) string {
	if v == nil {
		if status != "" {
			return "N/A (" + status + ")"
		}
		return "N/A"
	}
	return fmt.Sprint(*v)
}
