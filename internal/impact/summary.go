package impact

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/lineage"
)

// maxSummaryRows keeps the comment under GitHub's 65,536-character limit.
const maxSummaryRows = 150

// SummaryCheck is a saved check as the PR summary shows it.
type SummaryCheck struct {
	Name       string
	Type       string
	Approved   bool
	Status     string // finished, failed, never run
	Mismatched *bool
	Outdated   bool
}

// SummaryInput is everything the PR comment shows.
type SummaryInput struct {
	Comparison *lineage.Comparison
	// Verdicts is the impact model the diagram styles nodes by.
	Verdicts *Verdicts
	Impact   *Result
	Checks   []SummaryCheck
	// WarehouseWarnings are the connection's own warnings (a Postgres
	// superuser or a role with write grants): a reviewer should know the
	// review ran with more rights than it needs.
	WarehouseWarnings []string
}

// Markdown renders the pull-request comment: artifact metadata, the Mermaid
// graph annotated with what changed, the impact table and the checks. A
// value that could not be measured says why, never a misleading 0.
func Markdown(in SummaryInput) string {
	var b strings.Builder
	p := in.Comparison.Project
	b.WriteString("# Ripple summary\n\n")
	if p.SingleEnv {
		b.WriteString("> ⚠️ " + dbt.SingleEnvWarning + "\n\n")
	}
	// Failed data steps come first and in the open: a reviewer skimming the
	// comment must not read N/A rows as a normal result.
	if r := in.Impact; r != nil && len(r.Errors) > 0 {
		if r.DataSteps() == DataStepsFailed {
			b.WriteString("> ❌ **The data could not be checked**: every warehouse step failed, so no row count or value diff below is a measurement.\n>\n")
		} else {
			fmt.Fprintf(&b, "> ⚠️ **%d data step(s) failed**; the models they were for are N/A below.\n>\n", len(r.Errors))
		}
		for _, e := range r.Errors {
			fmt.Fprintf(&b, "> - %s: %s\n", text(strings.TrimSpace(e.Step+" "+e.Model)), text(oneLine(e.Message)))
		}
		b.WriteString("\n")
	}
	// Other result-wide warnings (base and current being one table, an
	// empty selection) change how every number below reads: say them first.
	if in.Impact != nil {
		if w := strings.TrimSpace(strings.Replace(in.Impact.Warning, dbt.SingleEnvWarning, "", 1)); w != "" {
			b.WriteString("> ⚠️ **" + w + "**\n\n")
		}
	}
	for _, w := range in.WarehouseWarnings {
		b.WriteString("> ⚠️ " + strings.Join(strings.Fields(w), " ") + "\n\n")
	}
	b.WriteString(WhoIsAffected(in.Impact))
	b.WriteString("| | base | current |\n|---|---|---|\n")
	meta := func(f func(m dbt.Metadata) string) (string, string) {
		return orNA(f(p.Base.Manifest.Metadata)), orNA(f(p.Current.Manifest.Metadata))
	}
	for _, row := range []struct {
		label string
		f     func(m dbt.Metadata) string
	}{
		{"manifest generated at", func(m dbt.Metadata) string { return m.GeneratedAt }},
		{"dbt version", func(m dbt.Metadata) string { return m.DbtVersion }},
		{"adapter", func(m dbt.Metadata) string { return m.AdapterType }},
	} {
		bv, cv := meta(row.f)
		fmt.Fprintf(&b, "| %s | %s | %s |\n", row.label, cell(bv), cell(cv))
	}
	r := in.Impact
	b.WriteString("\n## Lineage\n\n")
	ids := []string{}
	notes := map[string]Annotation{}
	if r != nil {
		for _, m := range r.ConfirmedImpactedModels {
			ids = append(ids, m.UniqueID)
			a := Annotation{SchemaChanged: len(m.SchemaChanges) > 0 && m.ChangeStatus != nil && *m.ChangeStatus == "modified"}
			if m.RowCount != nil && m.RowCount.DeltaPct != nil && *m.RowCount.DeltaPct != 0 {
				a.RowCountDeltaPct = m.RowCount.DeltaPct
			} else if st := unmeasured(m.RowCount); st != "" {
				a.RowCountNote = "N/A (" + st + ")"
			}
			notes[m.UniqueID] = a
		}
		// Ruled-out models are drawn too, in their own style: a reviewer
		// sees what column lineage cleared, not a gap in the graph.
		for _, n := range r.NotImpactedByColumnLineage {
			ids = append(ids, n.UniqueID)
		}
	}
	if len(ids) == 0 {
		b.WriteString("No impacted models.\n")
	} else {
		v := in.Verdicts
		if v == nil {
			v = verdictsOf(r)
		}
		mm := Mermaid(in.Comparison, v, ids, notes, MaxMermaidChars-2000)
		b.WriteString("```mermaid\n" + mm.Mermaid + "```\n")
		if mm.Truncated {
			fmt.Fprintf(&b, "\n_The graph was truncated: %d node(s) not shown._\n", mm.OmittedNodes)

		}
	}
	if r != nil {
		b.WriteString("\n## Impact\n\n")
		fmt.Fprintf(&b, "%s (classification: %s).\n\n", r.Tally().Sentence(), r.ClassificationSource)
		for _, n := range r.NotImpactedByColumnLineage {
			fmt.Fprintf(&b, "- %s ruled out by column lineage: reads %s; none of %s reaches it.\n", cell(n.Name), strings.Join(n.Reads, ", "), strings.Join(n.CheckedAgainst, ", "))
		}
		if len(r.NotImpactedByColumnLineage) > 0 {
			b.WriteString("\n")
		}
		b.WriteString("| model | change | rows (base → current) | schema | data impact | affected rows |\n|---|---|---|---|---|---|\n")
		for i, m := range r.ConfirmedImpactedModels {
			if i == maxSummaryRows {
				fmt.Fprintf(&b, "\n_%d more impacted model(s) not listed; run `ripple impact-analysis` for all of them._\n", len(r.ConfirmedImpactedModels)-i)
				break
			}
			change := "downstream"
			if m.ChangeStatus != nil {
				change = *m.ChangeStatus
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", text(m.Name), change, cell(rowsCell(m)), cell(schemaCell(m)), m.DataImpact, cell(affectedCell(m)))
		}
	}
	writeCodeChanges(&b, r)
	b.WriteString("\n## Checks\n\n")
	if len(in.Checks) == 0 {
		b.WriteString("No checks yet.\n")
	} else {
		checks := append([]SummaryCheck(nil), in.Checks...)
		sort.SliceStable(checks, func(i, j int) bool { return checkRank(checks[i]) < checkRank(checks[j]) })
		b.WriteString("| check | type | result | approved |\n|---|---|---|---|\n")
		for _, c := range checks {
			result := c.Status
			switch {
			case c.Status == "failed":
				result = "❌ failed"
			case c.Mismatched != nil && *c.Mismatched:
				result = "⚠️ mismatch"
			case c.Mismatched != nil:
				result = "✅ match"
			}
			if c.Outdated {
				result += " (outdated)"
			}
			approved := ""
			if c.Approved {
				approved = "✓"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", text(c.Name), text(c.Type), result, approved)
		}
	}
	return b.String()
}

// unmeasured names why a row count is missing when that is a problem
// (a model that is absent from one manifest is expected to have no count).
func unmeasured(rc *RowCount) string {
	if rc == nil {
		return ""
	}
	for _, st := range []string{rc.CurrentStatus, rc.BaseStatus} {
		if st == "table_not_found" || st == "permission_denied" {
			return st
		}
	}
	return ""
}

func checkRank(c SummaryCheck) int {
	switch {
	case c.Status == "failed":
		return 0
	case c.Mismatched != nil && *c.Mismatched:
		return 1
	}
	return 2
}

func rowsCell(m *Model) string {
	rc := m.RowCount
	if rc == nil {
		return "N/A (not counted)"
	}
	side := func(v *int64, status string) string {
		if v != nil {
			return fmt.Sprint(*v)
		}
		if status == "" {
			status = "unknown"
		}
		return "N/A (" + status + ")"
	}
	s := side(rc.Base, rc.BaseStatus) + " → " + side(rc.Current, rc.CurrentStatus)
	if rc.DeltaPct != nil {
		switch {
		case *rc.DeltaPct > 0:
			s += fmt.Sprintf(" (▲ %s%%)", FormatPct(*rc.DeltaPct))
		case *rc.DeltaPct < 0:
			s += fmt.Sprintf(" (▼ %s%%)", FormatPct(-*rc.DeltaPct))
		}
	}
	return s
}

func schemaCell(m *Model) string {
	if m.SchemaChanges == nil {
		return "N/A (not compared)"
	}
	if len(m.SchemaChanges) == 0 {
		return "unchanged"
	}
	parts := make([]string, 0, len(m.SchemaChanges))
	for _, c := range m.SchemaChanges {
		parts = append(parts, c.ChangeStatus+" `"+c.Column+"`")
	}
	if len(parts) > 5 {
		parts = append(parts[:5], fmt.Sprintf("+%d more", len(m.SchemaChanges)-5))
	}
	return strings.Join(parts, ", ")
}

func affectedCell(m *Model) string {
	if m.AffectedRowCount != nil {
		return fmt.Sprint(*m.AffectedRowCount)
	}
	if m.ValueDiffSkipped != "" {
		return "N/A (" + m.ValueDiffSkipped + ")"
	}
	return "N/A"
}

// cell keeps a value inside one Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

// text makes s one table cell of plain text: check and model names come
// from whoever wrote the project or the check, and must reach the PR
// comment as text, never as an image, a link, emphasis or HTML (<!-- would
// hide every row after it).
func text(s string) string { return mdText.Replace(s) }

var mdText = strings.NewReplacer("|", "\\|", "\n", " ", "\r", " ", "\\", "\\\\", "`", "\\`", "*", "\\*",
	"[", "\\[", "]", "\\]", "!", "\\!", "~", "\\~", "&", "&amp;", "<", "&lt;", ">", "&gt;")

func orNA(s string) string {
	if s == "" {
		return "N/A"
	}
	return s
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

// verdictsOf is the impact model as a result lists it, for a summary given
// a result alone.
func verdictsOf(r *Result) *Verdicts {
	v := &Verdicts{Source: r.ClassificationSource, nodes: map[string]*Node{}}
	for _, m := range r.ConfirmedImpactedModels {
		v.nodes[m.UniqueID] = &Node{ID: m.UniqueID, Name: m.Name, Verdict: VerdictImpacted}
	}
	for _, n := range r.NotImpactedByColumnLineage {
		v.nodes[n.UniqueID] = &Node{ID: n.UniqueID, Name: n.Name, Verdict: VerdictRuledOut}
	}
	return v
}
