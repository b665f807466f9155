package impact

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/dialect"
)

// Guidance teaches the caller how to read the result.
const Guidance = "Triage → verify → investigate. impacted_models is the whole blast radius (modified + downstream). " +
	"Read data_impact first: `confirmed` = a value diff found changed rows (report them); `none` = a value diff found no change (report it, nothing else to do); " +
	"`potential` = no value diff could run (view, no primary key, added/removed model, skipped or failed). " +
	"Only models with a non-null next_action need more calls: run the named tool with its ready arguments (query_diff queries are ready to use). " +
	"schema_changes [] means compared and unchanged; null means it could not be compared (missing catalog) — not 'unchanged'. " +
	"max_affected_row_count is the largest count for one model, not a total. Models in confirmed_not_impacted_models and " +
	"not_impacted_by_column_lineage need no review. Incremental models may show build-window differences when not fully refreshed."

// isCategorical: strings and booleans get top-k rather than histograms.
func isCategorical(k dialect.Kind) bool { return k == dialect.KindString || k == dialect.KindBoolean }

func nextAction(d Deps, m *Model) *NextAction {
	switch m.DataImpact {
	case None:
		return nil
	case Confirmed:
		rc, vd := m.RowCount, m.ValueDiff
		if rc == nil || rc.DeltaPct == nil || math.Abs(*rc.DeltaPct) > 5 || rc.Current == nil {
			return nil
		}
		matched := *rc.Current - vd.RowsAdded
		if matched <= 0 || float64(vd.RowsChanged)/float64(matched) <= 0.2 {
			return nil
		}
		cols := changedValueColumns(vd)
		return &NextAction{Tool: "profile_diff", Columns: cols, Priority: "medium",
			Reason:    fmt.Sprintf("%d of %d matched rows changed with a stable row count — look at how the values shifted", vd.RowsChanged, matched),
			Arguments: map[string]any{"model": m.Name, "columns": cols}}
	}
	status := ""
	if m.ChangeStatus != nil {
		status = *m.ChangeStatus
	}
	switch {
	case status == "removed":
		return nil
	case status == "added":
		q := summaryQuery(d, m)
		return &NextAction{Tool: "query", Priority: "medium", Query: q,
			Reason:    "new model: there is no base to diff against; look at its data",
			Arguments: map[string]any{"sql": q}}
	case status == "modified":
		if cols := profileColumns(m.SchemaChanges); len(cols) > 0 {
			return &NextAction{Tool: "profile_diff", Columns: cols, Priority: "high",
				Reason:    "schema changed and no value diff could verify the data: profile the changed columns",
				Arguments: map[string]any{"model": m.Name, "columns": cols}}
		}
		q := summaryQuery(d, m)
		return &NextAction{Tool: "query_diff", Priority: "high", Query: q,
			Reason:    "modified model without a value diff (" + m.ValueDiffSkipped + "): compare aggregates in both environments",
			Arguments: map[string]any{"sql": q}}
	}
	q := summaryQuery(d, m)
	prio, what := "medium", "downstream table"
	if m.Materialized == "view" {
		prio, what = "low", "downstream view"
	}
	return &NextAction{Tool: "query_diff", Priority: prio, Query: q,
		Reason:    what + " without a value diff (" + m.ValueDiffSkipped + "): compare aggregates in both environments",
		Arguments: map[string]any{"sql": q}}
}

func changedValueColumns(vd *ValueDiff) []string {
	var cols []string
	for c, v := range vd.Columns {
		if v.AffectedRowCount > 0 {
			cols = append(cols, c)
		}
	}
	sort.Strings(cols)
	return cols
}

// profileColumns are the changed columns that exist in the current build.
func profileColumns(changes []SchemaChange) []string {
	var cols []string
	for _, c := range changes {
		if c.ChangeStatus != "removed" {
			cols = append(cols, c.Column)
		}
	}
	return cols
}

// summaryQuery builds an aggregate query over the model's columns in
// {{ ref() }} form: COUNT(*), SUM/AVG of numeric columns and COUNT(DISTINCT)
// of categorical ones, so the agent writes no SQL.
func summaryQuery(d Deps, m *Model) string {
	const maxNumeric, maxCategorical = 8, 5
	env := d.Comparison.Project.Current
	if m.ChangeStatus != nil && *m.ChangeStatus == "removed" {
		env = d.Comparison.Project.Base
	}
	quote := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	if d.Diff.Dialect != nil {
		quote = d.Diff.Dialect.QuoteIdent
	}
	keys := map[string]bool{}
	if m.pk != nil {
		for _, k := range m.pk.Columns {
			keys[strings.ToLower(k)] = true
		}
	}
	exprs := []string{"count(*) as row_count"}
	nNum, nCat := 0, 0
	for _, c := range env.Columns(m.UniqueID) {
		lc := strings.ToLower(c.Name)
		alias := strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
				return r
			}
			return '_'
		}, lc)
		switch {
		case dialect.KindOf(c.Type).Numeric() && !keys[lc] && !strings.HasSuffix(lc, "_id") && nNum < maxNumeric:
			exprs = append(exprs, fmt.Sprintf("sum(%s) as sum_%s", quote(c.Name), alias), fmt.Sprintf("avg(%s) as avg_%s", quote(c.Name), alias))
			nNum++
		case (isCategorical(dialect.KindOf(c.Type)) || keys[lc] || strings.HasSuffix(lc, "_id")) && nCat < maxCategorical:
			exprs = append(exprs, fmt.Sprintf("count(distinct %s) as distinct_%s", quote(c.Name), alias))
			nCat++
		}
	}
	return "select " + strings.Join(exprs, ", ") + " from " + refName(m)
}

func suggestedChecks(models []*Model) []SuggestedCheck {
	out := []SuggestedCheck{}
	var tables []string
	var schemaIDs []string
	for _, m := range models {
		if m.Classification == "modified" && m.ChangeStatus != nil && *m.ChangeStatus != "removed" && tableLike[materialization(m)] {
			tables = append(tables, m.Name)
		}
		if m.Classification == "modified" && len(m.SchemaChanges) > 0 && m.ChangeStatus != nil && *m.ChangeStatus == "modified" {
			schemaIDs = append(schemaIDs, m.UniqueID)
		}
	}
	if len(tables) > 0 {
		out = append(out, SuggestedCheck{Type: "row_count_diff", Name: "Row counts of modified tables",
			Description: "Row counts of " + strings.Join(tables, ", ") + " in base and current.",
			Params:      map[string]any{"node_names": tables}})
	}
	for _, m := range models {
		if m.DataImpact == Confirmed && m.pk != nil {
			out = append(out, SuggestedCheck{Type: "value_diff", Name: "Value diff of " + m.Name,
				Description: fmt.Sprintf("%d rows added, %d removed, %d changed (key %s).", m.ValueDiff.RowsAdded, m.ValueDiff.RowsRemoved, m.ValueDiff.RowsChanged, strings.Join(m.pk.Columns, ", ")),
				Params:      map[string]any{"model": m.Name, "primary_key": m.pk.Columns}})
		}
	}
	if len(schemaIDs) > 0 {
		out = append(out, SuggestedCheck{Type: "schema_diff", Name: "Schema of changed models",
			Description: "Column changes of the modified models.",
			Params:      map[string]any{"node_ids": schemaIDs}})
	}
	return out
}
