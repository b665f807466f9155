package diff

import (
	"context"
	"fmt"
	"strings"

	"github.com/ripple-data/ripple/internal/frame"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// QueryRowLimit caps the rows query and query_diff return.
const QueryRowLimit = 2000

// QueryInput is an ad-hoc read-only query.
type QueryInput struct {
	SQL  string `json:"sql" jsonschema:"read-only SELECT; {{ ref('model') }} and {{ source('source', 'table') }} are replaced by the environment's relations"`
	Base bool   `json:"base,omitempty" jsonschema:"run against the base environment instead of the current one"`
}

// QueryResult is the (capped) result of a query.
type QueryResult struct {
	// RunID identifies the recorded run when the checks state keeps runs.
	RunID string `json:"run_id,omitempty"`
	*frame.Frame
	// SQL is the statement as run, with refs resolved.
	SQL string `json:"sql"`
}

// Query runs a read-only query in one environment, returning at most 2,000
// rows, whether there are more, and the total row count.
func Query(ctx context.Context, env Env, in QueryInput) (*QueryResult, error) {
	d, err := env.needWarehouse()
	if err != nil {
		return nil, err
	}
	side := Current
	if in.Base {
		side = Base
	}
	sql, err := env.prepareSQL(in.SQL, side)
	if err != nil {
		return nil, err
	}
	f, err := env.runCapped(ctx, d, sql, side, QueryRowLimit)
	if err != nil {
		return nil, err
	}
	return &QueryResult{Frame: f, SQL: sql}, nil
}

// prepareSQL renders refs and checks the statement is read-only.
func (e Env) prepareSQL(sql string, s Side) (string, error) {
	if strings.TrimSpace(sql) == "" {
		return "", errEmptySQL
	}
	r, err := e.renderSQL(sql, s)
	if err != nil {
		return "", err
	}
	return e.checkReadOnly(r)
}

// runCapped runs sql capped at limit rows and fills the total row count,
// counting in the warehouse only when the rows were cut.
func (e Env) runCapped(ctx context.Context, d sqlDialect, sql string, s Side, limit int) (*frame.Frame, error) {
	r, err := e.Conn.Query(ctx, sql, warehouse.QueryOptions{Limit: limit})
	if err != nil {
		return nil, e.wrapErr(fmt.Sprintf("running the query in the %s environment", s), err)
	}
	if r.More && r.Total == nil {
		cr, err := e.Conn.Query(ctx, "SELECT COUNT(*) AS n FROM (\n"+sql+"\n) ripple_q", warehouse.QueryOptions{Limit: 1})
		if err == nil {
			if row, err := one(cr); err == nil {
				t := toInt(row[0])
				r.Total = &t
			}
		} else if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return toFrame(r, limit), nil
}

// QueryDiffInput compares a query's result in both environments.
type QueryDiffInput struct {
	SQL         string   `json:"sql" jsonschema:"read-only SELECT run in the current environment (and in base unless base_sql is given); refs resolve per environment"`
	BaseSQL     string   `json:"base_sql,omitempty" jsonschema:"SELECT run in the base environment instead of sql"`
	PrimaryKeys []string `json:"primary_keys,omitempty" jsonschema:"result columns identifying a row; when given the difference is computed in the warehouse"`
}

// QueryDiffSummary counts the keyed differences.
type QueryDiffSummary struct {
	// Added counts keys only in current, Removed keys only in base, Changed
	// keys in both whose other columns differ.
	Added   int64 `json:"added"`
	Removed int64 `json:"removed"`
	Changed int64 `json:"changed"`
}

// QueryDiffResult holds both result sets (without keys) or the differing
// rows flagged in_a (base) / in_b (current) (with keys).
type QueryDiffResult struct {
	// RunID identifies the recorded run when the checks state keeps runs.
	RunID   string            `json:"run_id,omitempty"`
	Base    *frame.Frame      `json:"base"`
	Current *frame.Frame      `json:"current"`
	Diff    *frame.Frame      `json:"diff"`
	Summary *QueryDiffSummary `json:"summary,omitempty"`
	Warning string            `json:"_warning,omitempty"`
}

// QueryDiff runs a query in both environments. Without primary keys it
// returns both capped result sets; with keys the warehouse computes the rows
// only in base (in_a), only in current (in_b) and, for changed rows, both
// versions, ordered by key.
func QueryDiff(ctx context.Context, env Env, in QueryDiffInput) (*QueryDiffResult, error) {
	d, err := env.needWarehouse()
	if err != nil {
		return nil, err
	}
	baseSQL := in.BaseSQL
	if strings.TrimSpace(baseSQL) == "" {
		baseSQL = in.SQL
	}
	bsql, err := env.prepareSQL(baseSQL, Base)
	if err != nil {
		return nil, fmt.Errorf("base query: %w", err)
	}
	csql, err := env.prepareSQL(in.SQL, Current)
	if err != nil {
		return nil, fmt.Errorf("current query: %w", err)
	}
	res := &QueryDiffResult{Warning: env.warning()}
	if len(in.PrimaryKeys) == 0 {
		if res.Base, err = env.runCapped(ctx, d, bsql, Base, QueryRowLimit); err != nil {
			return nil, err
		}
		if res.Current, err = env.runCapped(ctx, d, csql, Current, QueryRowLimit); err != nil {
			return nil, err
		}
		return res, nil
	}
	bcols, err := env.resultColumns(ctx, d, bsql, Base)
	if err != nil {
		return nil, err
	}
	ccols, err := env.resultColumns(ctx, d, csql, Current)
	if err != nil {
		return nil, err
	}
	if !sameColumnNames(bcols, ccols) {
		return nil, fmt.Errorf("the base query returns columns (%s) but the current query returns (%s); a keyed diff needs the same columns in the same order: select them explicitly",
			strings.Join(columnNames(bcols), ", "), strings.Join(columnNames(ccols), ", "))
	}
	keys := make([]string, len(in.PrimaryKeys))
	for i, k := range in.PrimaryKeys {
		c, ok := matchColumn(ccols, k)
		if !ok {
			return nil, fmt.Errorf("primary key %q is not a column of the query result; its columns are %s", k, strings.Join(columnNames(ccols), ", "))
		}
		keys[i] = c.Name
	}
	sql := setDiffSQL(d, bsql, csql, keys, "")
	env.progress("query_diff", "computing the keyed difference", 0)
	diff, err := env.Conn.Query(ctx, sql, warehouse.QueryOptions{Limit: QueryRowLimit})
	if err != nil {
		return nil, env.wrapErr("computing the query diff", err)
	}
	res.Diff = toFrame(diff, QueryRowLimit)
	if !diff.More {
		res.Summary = summarizeDiffRows(res.Diff, keys)
	} else {
		sr, err := env.Conn.Query(ctx, setDiffSummarySQL(d, bsql, csql, keys), warehouse.QueryOptions{Limit: 1})
		if err != nil {
			return nil, env.wrapErr("counting the query diff", err)
		}
		row, err := one(sr)
		if err != nil {
			return nil, err
		}
		res.Summary = &QueryDiffSummary{Changed: toInt(row[0]), Removed: toInt(row[1]), Added: toInt(row[2])}
		t := toInt(row[3])
		res.Diff.TotalRowCount = &t
	}
	env.progress("query_diff", "done", 1)
	return res, nil
}

func (e Env) resultColumns(ctx context.Context, d sqlDialect, sql string, s Side) ([]warehouse.Column, error) {
	r, err := e.Conn.Query(ctx, d.Limit("SELECT * FROM (\n"+sql+"\n) ripple_q", 0), warehouse.QueryOptions{Limit: 1})
	if err != nil {
		return nil, e.wrapErr(fmt.Sprintf("running the %s query", s), err)
	}
	return r.Columns, nil
}

func sameColumnNames(a, b []warehouse.Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i].Name, b[i].Name) {
			return false
		}
	}
	return true
}

// setDiffCTEs builds the CTEs shared by the keyed diff queries: the rows of
// each side and the rows of each side missing from the other (set
// difference treats NULLs as equal, so it is NULL-safe).
func setDiffCTEs(d sqlDialect, baseSQL, curSQL string) string {
	return "WITH ripple_base AS (\n" + baseSQL + "\n), ripple_current AS (\n" + curSQL + "\n),\n" +
		"ripple_a_only AS (\nSELECT * FROM ripple_base\n" + d.Except() + "\nSELECT * FROM ripple_current\n),\n" +
		"ripple_b_only AS (\nSELECT * FROM ripple_current\n" + d.Except() + "\nSELECT * FROM ripple_base\n)\n"
}

// setDiffSQL returns the differing rows with in_a/in_b flags, ordered by
// keys, then base version first.
func setDiffSQL(d sqlDialect, baseSQL, curSQL string, keys []string, _ string) string {
	var b strings.Builder
	b.WriteString(setDiffCTEs(d, baseSQL, curSQL))
	b.WriteString("SELECT * FROM (\n")
	b.WriteString("SELECT ripple_a_only.*, TRUE AS in_a, FALSE AS in_b FROM ripple_a_only\nUNION ALL\n")
	b.WriteString("SELECT ripple_b_only.*, FALSE AS in_a, TRUE AS in_b FROM ripple_b_only\n) ripple_diff\nORDER BY ")
	for _, k := range keys {
		b.WriteString(d.q(k) + ", ")
	}
	b.WriteString("in_a DESC, in_b DESC")
	return b.String()
}

// setDiffSummarySQL counts changed, removed and added keys and diff rows.
func setDiffSummarySQL(d sqlDialect, baseSQL, curSQL string, keys []string) string {
	qk := make([]string, len(keys))
	for i, k := range keys {
		qk[i] = d.q(k)
	}
	kl := strings.Join(qk, ", ")
	return setDiffCTEs(d, baseSQL, curSQL) +
		", ripple_keys AS (\nSELECT " + kl + ", MAX(in_a) AS in_a, MAX(in_b) AS in_b, COUNT(*) AS n FROM (\n" +
		"SELECT " + kl + ", 1 AS in_a, 0 AS in_b FROM ripple_a_only\nUNION ALL\n" +
		"SELECT " + kl + ", 0 AS in_a, 1 AS in_b FROM ripple_b_only\n) ripple_u\nGROUP BY " + kl + "\n)\n" +
		"SELECT " + d.CountIf("in_a = 1 AND in_b = 1") + " AS changed, " +
		d.CountIf("in_a = 1 AND in_b = 0") + " AS removed, " +
		d.CountIf("in_a = 0 AND in_b = 1") + " AS added, " +
		"COALESCE(SUM(n), 0) AS diff_rows\nFROM ripple_keys"
}

// summarizeDiffRows counts changed/removed/added keys from complete diff rows.
func summarizeDiffRows(f *frame.Frame, keys []string) *QueryDiffSummary {
	idx := map[string]int{}
	for i, c := range f.Columns {
		idx[c.Key] = i
	}
	ia, oka := idx["in_a"]
	ib, okb := idx["in_b"]
	if !oka || !okb {
		return nil
	}
	type flags struct{ a, b bool }
	seen := map[string]*flags{}
	var order []string
	for _, row := range f.Data {
		var kb strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&kb, "%#v\x00", row[idx[k]])
		}
		key := kb.String()
		fl := seen[key]
		if fl == nil {
			fl = &flags{}
			seen[key] = fl
			order = append(order, key)
		}
		if truthy(row[ia]) {
			fl.a = true
		}
		if truthy(row[ib]) {
			fl.b = true
		}
	}
	s := &QueryDiffSummary{}
	for _, k := range order {
		switch fl := seen[k]; {
		case fl.a && fl.b:
			s.Changed++
		case fl.a:
			s.Removed++
		default:
			s.Added++
		}
	}
	return s
}

func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case nil:
		return false
	}
	f, ok := toFloat(v)
	return ok && f != 0
}
