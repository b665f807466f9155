package impact

import (
	"fmt"
	"math"
	"strings"

	"github.com/ripple-data/ripple/internal/dialect"
)

// Guidance teaches the caller how to read the result.
const Guidance = "Triage, then verify. confirmed_impacted_models: the change's blast radius in the select scope; confirmed_not_impacted_models need no review. " +
	"data_impact: confirmed = data changed (value diff, or added/removed model: verdict_basis), report it; none = no change found by a value diff, report it; " +
	"potential = unverified (value_diff_skipped says why): call next_action's tool with its ready arguments (a keyed query_diff returns the changed rows). " +
	"Value diffs join on primary_key (key_source, key_verified). schema_changes [] = unchanged, null = not compared. " +
	"max_affected_row_count is a maximum, not a total. detail=full adds what compact rows omit and the column-lineage evidence."

// isCategorical: strings and booleans get top-k rather than histograms.
func isCategorical(k dialect.Kind) bool { return k == dialect.KindString || k == dialect.KindBoolean }

func nextAction(a *analysis, m *Model) *NextAction {
	switch m.DataImpact {
	case None:
		return nil
	case Confirmed:
		rc, vd := m.RowCount, m.ValueDiff
		if vd == nil || rc == nil || rc.DeltaPct == nil || math.Abs(*rc.DeltaPct) > 5 || rc.Current == nil {
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
	prio, what := "high", "modified model"
	switch {
	case isRemoved(m):
		return nil
	case isAdded(m):
		q := summaryQuery(a, m, false)
		return &NextAction{Tool: "query", Priority: "medium", Query: q,
			Reason:    "new model whose rows could not be counted: look at its data",
			Arguments: map[string]any{"sql_template": q}}
	case m.Warning != "":
		// Base and current are one relation: any diff shows no change.
		q := summaryQuery(a, m, false)
		return &NextAction{Tool: "query", Priority: "high", Query: q,
			Reason:    m.Warning + "; rebuild the base into its own schema to compare, meanwhile look at the current data",
			Arguments: map[string]any{"sql_template": q}}
	case m.Classification != "modified" && m.Materialized == "view":
		prio, what = "low", "downstream view"
	case m.Classification != "modified":
		prio, what = "medium", "downstream table"
	}
	if len(m.PrimaryKey) > 0 {
		q := rowsQuery(a, m)
		return &NextAction{Tool: "query_diff", Priority: prio, Query: q,
			Reason: what + " without a value diff (" + m.ValueDiffSkipped + "): compare its rows by the key " + strings.Join(m.PrimaryKey, ", ") +
				" to see the rows added, removed and changed",
			Arguments: map[string]any{"sql_template": q, "primary_keys": m.PrimaryKey}}
	}
	if cols := profileColumns(m.SchemaChanges); len(cols) > 0 && m.Classification == "modified" {
		return &NextAction{Tool: "profile_diff", Columns: cols, Priority: prio,
			Reason:    "schema changed and no value diff could verify the data (" + m.ValueDiffSkipped + "): profile the changed columns",
			Arguments: map[string]any{"model": m.Name, "columns": cols}}
	}
	q := summaryQuery(a, m, true)
	return &NextAction{Tool: "query_diff", Priority: prio, Query: q,
		Reason:    what + " without a value diff (" + m.ValueDiffSkipped + "): compare aggregates in both environments",
		Arguments: map[string]any{"sql_template": q}}
}

// rowsQuery selects a keyed model's columns present in both builds, key
// first, for a query_diff by key.
func rowsQuery(a *analysis, m *Model) string {
	quote := a.quoter()
	base := a.baseColumns(m)
	current := a.cmp.Project.Current.Columns(m.UniqueID)
	if len(current) == 0 {
		return "select * from " + refName(m)
	}
	cols := make([]string, 0, len(current))
	seen := map[string]bool{}
	for _, k := range m.PrimaryKey {
		cols = append(cols, quote(k))
		seen[strings.ToLower(k)] = true
	}
	for _, c := range current {
		if lc := strings.ToLower(c.Name); !seen[lc] && (len(base) == 0 || base[lc]) {
			seen[lc] = true
			cols = append(cols, quote(c.Name))
		}
	}
	return "select " + strings.Join(cols, ", ") + " from " + refName(m)
}

// baseColumns are the lower-cased names of a model's base columns (empty
// when unknown, which restricts nothing).
func (a *analysis) baseColumns(m *Model) map[string]bool {
	out := map[string]bool{}
	for _, c := range a.cmp.Project.Base.Columns(m.UniqueID) {
		out[strings.ToLower(c.Name)] = true
	}
	return out
}

func (a *analysis) quoter() func(string) string {
	if d := a.d.Diff.Dialect; d != nil {
		return d.QuoteIdent
	}
	return func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
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
// of categorical ones, so the agent writes no SQL. common restricts it to
// the columns present in both builds, for a query_diff.
func summaryQuery(a *analysis, m *Model, common bool) string {
	const maxNumeric, maxCategorical = 8, 5
	quote := a.quoter()
	var base map[string]bool
	if common {
		base = a.baseColumns(m)
	}
	exprs := []string{"count(*) as row_count"}
	nNum, nCat := 0, 0
	for _, c := range a.cmp.Project.Current.Columns(m.UniqueID) {
		lc := strings.ToLower(c.Name)
		if len(base) > 0 && !base[lc] {
			continue
		}
		alias := strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
				return r
			}
			return '_'
		}, lc)
		id := strings.HasSuffix(lc, "_id") || lc == "id"
		switch {
		case dialect.KindOf(c.Type).Numeric() && !id && nNum < maxNumeric:
			exprs = append(exprs, fmt.Sprintf("sum(%s) as sum_%s", quote(c.Name), alias), fmt.Sprintf("avg(%s) as avg_%s", quote(c.Name), alias))
			nNum++
		case (isCategorical(dialect.KindOf(c.Type)) || id) && nCat < maxCategorical:
			exprs = append(exprs, fmt.Sprintf("count(distinct %s) as distinct_%s", quote(c.Name), alias))
			nCat++
		}
	}
	return "select " + strings.Join(exprs, ", ") + " from " + refName(m)
}

// tableLike materializations are row-count checks worth saving.
var tableLike = map[string]bool{"table": true, "incremental": true, "snapshot": true, "seed": true}

func suggestedChecks(models []*Model) []SuggestedCheck {
	out := []SuggestedCheck{}
	var tables []string
	var schemaIDs []string
	for _, m := range models {
		if m.Classification == "modified" && !isRemoved(m) && tableLike[materialization(m)] {
			tables = append(tables, m.Name)
		}
		// Every model with a schema change, added and removed ones and
		// downstream ones included: the check must cover what the triage found.
		if len(m.SchemaChanges) > 0 {
			schemaIDs = append(schemaIDs, m.UniqueID)
		}
	}
	if len(tables) > 0 {
		out = append(out, SuggestedCheck{Type: "row_count_diff", Name: "Row counts of modified tables",
			Description: fmt.Sprintf("Row counts of the %d modified table(s) in base and current.", len(tables)),
			Params:      map[string]any{"node_names": tables}})
	}
	for _, m := range models {
		if m.DataImpact == Confirmed && m.ValueDiff != nil {
			out = append(out, SuggestedCheck{Type: "value_diff", Name: "Value diff of " + m.Name,
				Description: fmt.Sprintf("%d rows added, %d removed, %d changed (key %s).", m.ValueDiff.RowsAdded, m.ValueDiff.RowsRemoved, m.ValueDiff.RowsChanged, strings.Join(m.PrimaryKey, ", ")),
				Params:      map[string]any{"model": m.Name, "primary_key": m.PrimaryKey}})
		}
	}
	if len(schemaIDs) > 0 {
		out = append(out, SuggestedCheck{Type: "schema_diff", Name: "Schema of changed models",
			Description: fmt.Sprintf("Column changes of the %d model(s) whose schema changed.", len(schemaIDs)),
			Params:      map[string]any{"node_id": schemaIDs}})
	}
	return out
}
