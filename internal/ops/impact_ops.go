package ops

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ripple-data/ripple/internal/diff"
	"github.com/ripple-data/ripple/internal/impact"
)

func addImpactOps(r *Registry) {
	Add(r, Spec{Name: "impact_analysis", Title: "Impact analysis", Warehouse: true, DiffTool: true,
		Description: "Call this FIRST to review a change, before reporting impacted models; do not infer impact by reading code. One call classifies every model " +
			"(modified with change_status/modifications, downstream, or not impacted), counts rows (views included), compares schemas, and runs a value diff " +
			"for impacted table-like models with a primary key. Per model: row_count {base, current, delta, delta_pct}, schema_changes ([] = compared and unchanged, " +
			"null = could not be compared), value_diff {rows_added, rows_removed, rows_changed, affected_row_count, columns}, affected_row_count, " +
			"data_impact (confirmed / none / potential) and next_action {tool, columns, reason, priority, query, arguments} — null when the verdict is definitive. " +
			"With column lineage (default) downstream models that read none of the changed columns move to not_impacted_by_column_lineage with evidence. " +
			"Also: max_affected_row_count, schema_coverage, suggested_checks (ready create_check arguments), errors (failed steps; the rest still ran), _guidance. " +
			"Default select: " + impact.DefaultSelect + ". " + SelectGrammar},
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

// impactDeps wires the analysis to the session: selection, data diffs and,
// when a warehouse is configured, value diffs. Without a warehouse the data
// steps report errors and the classification still comes back.
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
	deps := impact.Deps{
		Comparison:   cmp,
		WarehouseErr: werr,
		Select: func(sel string) ([]string, error) {
			ids, _, err := selectIDs(ctx, s, SelectInput{Select: sel})
			return ids, err
		},
		Diff:    env,
		Lineage: columnLineageFor(ctx, s),
	}
	if werr == nil {
		deps.ValueDiff = func(ctx context.Context, id string, pk []string) (*impact.ValueDiff, error) {
			return valueDiffForImpact(ctx, env, id, pk)
		}
	}
	return deps, nil
}

// valueDiffForImpact runs the single-pass value diff and reshapes it into
// the per-column affected counts the triage reports.
func valueDiffForImpact(ctx context.Context, env diff.Env, id string, pk []string) (*impact.ValueDiff, error) {
	vd, err := diff.ValueDiff(ctx, env, diff.ValueDiffInput{Model: id, PrimaryKey: pk})
	if err != nil {
		return nil, err
	}
	sm := vd.Summary
	common := sm.Total - sm.Added - sm.Removed
	out := &impact.ValueDiff{
		PrimaryKey: vd.PrimaryKey, RowsAdded: sm.Added, RowsRemoved: sm.Removed, RowsChanged: sm.Changed,
		AffectedRowCount: sm.Added + sm.Removed + sm.Changed, Columns: map[string]impact.ColumnValueDiff{},
	}
	for _, c := range vd.Columns {
		out.Columns[c.Column] = impact.ColumnValueDiff{AffectedRowCount: common - c.Matched, BaseMean: c.BaseMean, CurrentMean: c.CurrentMean}
	}
	return out, nil
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
		out.ClassificationSource, out.ModifiedCount, out.DownstreamCount,
		len(out.ConfirmedNotImpactedModels)+len(out.NotImpactedByColumnLineage), out.MaxAffectedRowCount)
	fmt.Fprintf(w, "%-28s %-11s %-11s %-22s %-10s %s\n", "model", "change", "impact", "rows base→current", "affected", "next action")
	for _, m := range out.ImpactedModels {
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
		next := ""
		if m.NextAction != nil {
			next = fmt.Sprintf("%s [%s] %s", m.NextAction.Tool, m.NextAction.Priority, m.NextAction.Reason)
		}
		fmt.Fprintf(w, "%-28s %-11s %-11s %-22s %-10s %s\n", m.Name, change, m.DataImpact, rows, affected, next)
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
