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
		"impact_analysis":        typed(impactAnalysis),
		"render_lineage_mermaid": typed(mermaid),
		"summary": typed(func(w io.Writer, out *ops.SummaryResult, o Options) error {
			_, err := io.WriteString(w, strings.TrimRight(out.Markdown, "\n")+"\n")
			return err
		}),
	}
}

func mermaid(w io.Writer, out *impact.MermaidResult, o Options) error {
	if _, err := io.WriteString(w, strings.TrimRight(out.Mermaid, "\n")+"\n"); err != nil {
		return err
	}
	if out.Truncated {
		_, err := fmt.Fprintf(w, "  %%%% %s nodes left out: narrow the diagram with --select or raise --max-chars\n", Int(int64(out.OmittedNodes)))
		return err
	}
	return nil
}

// changeOf is a reported model's change: modified, added, removed or downstream.
func changeOf(m *impact.Model) string {
	if m.ChangeStatus != nil && *m.ChangeStatus != "" {
		return *m.ChangeStatus
	}
	return "downstream"
}

// impactAnalysis prints errors first, then a headline whose counts add up
// to the rows of the tables below: one table for the data (rows and
// affected rows), one for the columns (category, changed columns, schema),
// then each model's key and next step.
func impactAnalysis(w io.Writer, out *impact.Result, o Options) error {
	if n := len(out.Errors); n > 0 {
		fmt.Fprintf(w, "ERRORS: %d step(s) failed; the rest of the analysis still ran:\n", n)
		for _, e := range out.Errors {
			where := e.Step
			if e.Model != "" {
				where += " of " + e.Model
			}
			fmt.Fprintf(w, "  %s: %s\n", where, e.Message)
		}
		fmt.Fprintln(w)
	}
	Warn(w, out.Warning)
	for _, m := range out.ConfirmedImpactedModels {
		if m.Warning != "" {
			Warn(w, m.Name+": "+m.Warning)
		}
	}
	if c := out.SchemaCoverage; c.Status != "" && c.Status != "complete" {
		Warn(w, fmt.Sprintf("schema coverage %s: %s model(s) not compared (no catalog columns)", c.Status, Int(int64(c.UncheckedNodeCount))))
	}

	verdicts := map[string]int{}
	for _, m := range out.ConfirmedImpactedModels {
		verdicts[m.DataImpact]++
	}
	fmt.Fprintf(w, "Impact analysis (%s): %s\n", strings.ReplaceAll(out.ClassificationSource, "_", " "), out.Tally().Sentence())
	fmt.Fprintf(w, "  data:   %d confirmed changed, %d verified unchanged, %d potential (largest affected rows in one model: %s)\n",
		verdicts[impact.Confirmed], verdicts[impact.None], verdicts[impact.Potential], Int(out.MaxAffectedRowCount))
	if len(out.ConfirmedImpactedModels) == 0 {
		fmt.Fprintln(w, "\nNo model is modified or impacted.")
		return nil
	}

	models := out.ConfirmedImpactedModels
	shown := min(len(models), o.limit())
	data := Table{Header: []string{"model", "change", "data", "rows base → current", "affected", "rows +/−/~"}}
	cols := Table{Header: []string{"model", "category", "schema +/−/~", "changed columns"}}
	next := Table{Header: []string{"model", "key", "next action"}}
	for _, m := range models[:shown] {
		data.Add(m.Name, changeOf(m), m.DataImpact, rowsCell(m.RowCount), affectedCell(m.AffectedRowCount), rowDiffCell(m))
		cols.Add(m.Name, categoryCell(m), schemaCell(m), changedColumnsCell(m))
		next.Add(m.Name, keyCell(m), nextCell(m))
	}
	fmt.Fprintln(w)
	if err := data.Write(w, o.width()); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := cols.Write(w, o.width()); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := next.Write(w, o.width()); err != nil {
		return err
	}
	More(w, shown, len(models))
	if len(out.NotImpactedByColumnLineage) > 0 {
		fmt.Fprintln(w, "\nRuled out by column lineage (they read none of the changed columns):")
		var t Table
		for _, n := range out.NotImpactedByColumnLineage {
			t.Add("  "+n.Name, "reads "+list(n.Reads, 4), "checked against "+list(n.CheckedAgainst, 4))
		}
		if err := t.Write(w, o.width()); err != nil {
			return err
		}
	}
	return nil
}

// rowsCell is "base → current (delta, pct)"; a side a build does not have reads "—".
func rowsCell(rc *impact.RowCount) string {
	if rc == nil {
		return "not counted"
	}
	why := func(s string) string {
		if s == "not_in_manifest" {
			return ""
		}
		return s
	}
	s := Delta(rc.Base, rc.Current, why(rc.BaseStatus), why(rc.CurrentStatus))
	if rc.Base == nil && rc.BaseStatus == "not_in_manifest" {
		s = strings.Replace(s, "N/A", "—", 1)
	}
	if rc.Current == nil && rc.CurrentStatus == "not_in_manifest" {
		s = strings.Replace(s, "→ N/A", "→ —", 1)
	}
	return s
}

func affectedCell(n *int64) string {
	if n == nil {
		return "?"
	}
	return Int(*n)
}

// rowDiffCell is the value diff's rows added, removed and changed (the
// non-zero ones); an added or removed model counts all its rows.
func rowDiffCell(m *impact.Model) string {
	switch {
	case m.ValueDiff != nil:
		vd := m.ValueDiff
		var p []string
		if vd.RowsAdded != 0 {
			p = append(p, "+"+Int(vd.RowsAdded))
		}
		if vd.RowsRemoved != 0 {
			p = append(p, "−"+Int(vd.RowsRemoved))
		}
		if vd.RowsChanged != 0 {
			p = append(p, "~"+Int(vd.RowsChanged))
		}
		if len(p) == 0 {
			return "="
		}
		return strings.Join(p, " ")
	case m.VerdictBasis == impact.BasisAddedModel && m.AffectedRowCount != nil:
		return "+" + Int(*m.AffectedRowCount)
	case m.VerdictBasis == impact.BasisRemovedModel && m.AffectedRowCount != nil:
		return "−" + Int(*m.AffectedRowCount)
	case m.DataImpact == impact.None:
		return "="
	}
	return "not compared"
}

func categoryCell(m *impact.Model) string {
	switch {
	case m.ChangeCategory != "":
		return strings.ReplaceAll(m.ChangeCategory, "_", "-")
	case m.ChangeStatus == nil:
		return "(downstream)"
	case *m.ChangeStatus == "added" || *m.ChangeStatus == "removed":
		return "(" + *m.ChangeStatus + ")"
	}
	return "—"
}

// changedColumnsCell is the columns the code change reaches, then those
// a value diff found changed.
func changedColumnsCell(m *impact.Model) string {
	var c []string
	seen := map[string]bool{}
	for _, n := range append(append(append([]string{}, m.CodeChangedColumns...), m.ImpactedColumns...), m.ValueChangedColumns...) {
		if !seen[n] {
			seen[n] = true
			c = append(c, n)
		}
	}
	s := list(c, 2)
	if m.RowSetChanged {
		if s == "—" {
			return "row set"
		}
		s = "row set; " + s
	}
	return s
}

// schemaCell lists column changes as +added −removed ~retyped; "=" means
// compared and unchanged, "not compared" that the catalogs could not say.
func schemaCell(m *impact.Model) string {
	if m.SchemaChanges == nil {
		if m.ChangeStatus == nil && m.ValueDiff == nil && m.DataImpact == impact.None {
			return "—" // a compact row carries no schema
		}
		return "not compared"
	}
	if len(m.SchemaChanges) == 0 {
		return "="
	}
	var p []string
	for _, c := range m.SchemaChanges {
		switch c.ChangeStatus {
		case "added":
			p = append(p, "+"+c.Column)
		case "removed":
			p = append(p, "−"+c.Column)
		default:
			p = append(p, "~"+c.Column+" "+c.BaseType+"→"+c.CurrentType)
		}
	}
	return list(p, 2)
}

func keyCell(m *impact.Model) string {
	if len(m.PrimaryKey) == 0 {
		return "—"
	}
	s := strings.Join(m.PrimaryKey, ", ") + " (" + m.KeySource
	if !m.KeyVerified {
		s += ", unverified"
	}
	return s + ")"
}

func nextCell(m *impact.Model) string {
	if m.NextAction == nil {
		if m.DataImpact == impact.Potential && m.ValueDiffSkipped != "" {
			return "no value diff: " + m.ValueDiffSkipped
		}
		return "—"
	}
	n := m.NextAction
	s := n.Tool
	if len(n.Columns) > 0 {
		s += " " + list(n.Columns, 3)
	}
	return s + " [" + n.Priority + "]"
}

// list joins names, at most max of them and a count of the rest.
func list(names []string, max int) string {
	if len(names) == 0 {
		return "—"
	}
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:max], ", ") + fmt.Sprintf(" and %d more", len(names)-max)
}
