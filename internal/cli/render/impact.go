package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/ripple-data/ripple/internal/impact"
	"github.com/ripple-data/ripple/internal/ops"
)

func impactRenderers() map[string]Func {
	return map[string]Func{
		"impact_analysis": typed(impactAnalysis),
		"render_lineage_mermaid": typed(func(w io.Writer, out *impact.MermaidResult, o Options) error {
			_, err := io.WriteString(w, out.Mermaid)
			return err
		}),
		"summary": typed(func(w io.Writer, out *ops.SummaryResult, o Options) error {
			_, err := io.WriteString(w, out.Markdown)
			return err
		}),
	}
}

func impactAnalysis(w io.Writer, out *impact.Result, o Options) error {
	Warn(w, out.Warning)
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
			rows = fmt.Sprintf("%s→%s", IntP(rc.Base, rc.BaseStatus), IntP(rc.Current, rc.CurrentStatus))
			if rc.DeltaPct != nil {
				rows += " (" + Pct(*rc.DeltaPct) + ")"
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
