package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/ripple-data/ripple/internal/alias"
	"github.com/ripple-data/ripple/internal/dbt"

	"github.com/ripple-data/ripple/internal/frame"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// QueryRowLimit caps the rows query and query_diff return.
const QueryRowLimit = 2000

// QueryInput is an ad-hoc read-only query.
type QueryInput struct {
	SQLTemplate string `json:"sql_template" jsonschema:"read-only SELECT; {{ ref() }}/{{ source() }} allowed"`
	Base        bool   `json:"base,omitempty" jsonschema:"run in base (default false)"`
	// SQL is sql_template's old name, deprecated.
	SQL string `json:"sql,omitempty" jsonschema:"Deprecated: use sql_template."`
}

// Normalize folds the deprecated sql into sql_template.
func (in *QueryInput) Normalize() error {
	return alias.Fold(&in.SQLTemplate, &in.SQL, "sql_template", "sql")
}

// QueryResult is the (capped) result of a query.
type QueryResult struct {
	// RunID identifies the recorded run when the checks state keeps runs.
	RunID string `json:"run_id,omitempty" jsonschema:"recorded run, to cite"`
	*frame.Frame
	// SQL is the statement as run, with refs resolved.
	SQL string `json:"sql" jsonschema:"SQL as run"`
}

// Mismatch is the CI verdict of a single-environment query: never a mismatch.
func (*QueryResult) Mismatch() (bool, error) { return false, nil }

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
	sql, err := env.prepareSQL(ctx, in.SQLTemplate, side)
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
func (e Env) prepareSQL(ctx context.Context, sql string, s Side) (string, error) {
	if strings.TrimSpace(sql) == "" {
		return "", errEmptySQL
	}
	r, err := e.renderSQL(sql, s)
	if err != nil {
		return "", err
	}
	return e.checkReadOnly(ctx, r)
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
	SQLTemplate     string   `json:"sql_template" jsonschema:"read-only SELECT for current (and base)"`
	BaseSQLTemplate string   `json:"base_sql_template,omitempty" jsonschema:"SELECT for base (default sql_template)"`
	PrimaryKeys     []string `json:"primary_keys,omitempty" jsonschema:"key columns: diff in the warehouse"`
	// SQL and BaseSQL are the old names, deprecated.
	SQL     string `json:"sql,omitempty" jsonschema:"Deprecated: use sql_template."`
	BaseSQL string `json:"base_sql,omitempty" jsonschema:"Deprecated: use base_sql_template."`
}

// Normalize folds the deprecated names into the canonical ones.
func (in *QueryDiffInput) Normalize() error {
	if err := alias.Fold(&in.SQLTemplate, &in.SQL, "sql_template", "sql"); err != nil {
		return err
	}
	return alias.Fold(&in.BaseSQLTemplate, &in.BaseSQL, "base_sql_template", "base_sql")
}

// QueryDiffSummary counts the keyed differences.
type QueryDiffSummary struct {
	Added   int64 `json:"added" jsonschema:"keys only in current"`
	Removed int64 `json:"removed" jsonschema:"keys only in base"`
	Changed int64 `json:"changed" jsonschema:"keys in both whose other columns differ"`
}

// QueryDiffResult holds both result sets (without keys) or the differing
// rows flagged in_a (base) / in_b (current) (with keys).
type QueryDiffResult struct {
	// RunID identifies the recorded run when the checks state keeps runs.
	RunID   string            `json:"run_id,omitempty" jsonschema:"recorded run, to cite"`
	Base    *frame.Frame      `json:"base" jsonschema:"base rows; null with primary_keys"`
	Current *frame.Frame      `json:"current" jsonschema:"current rows; null with primary_keys"`
	Diff    *frame.Frame      `json:"diff" jsonschema:"with primary_keys: differing rows, in_a/in_b = in base/current"`
	Summary *QueryDiffSummary `json:"summary,omitempty" jsonschema:"with primary_keys: key counts"`
	Warning string            `json:"_warning,omitempty" jsonschema:"single-env notice"`
}

// Mismatch is the CI verdict: with keys, any differing row; without, the
// two result sets differ. Capped result sets that agree on their first
// rows cannot be judged: that is an error, never a pass.
func (r *QueryDiffResult) Mismatch() (bool, error) {
	if r.Diff != nil {
		return len(r.Diff.Data) > 0 || r.Diff.More, nil
	}
	differ, err := framesDiffer(r.Base, r.Current)
	if err != nil || differ {
		return differ, err
	}
	if (r.Base != nil && r.Base.More) || (r.Current != nil && r.Current.More) {
		return false, fmt.Errorf("the first %d rows agree but the results were capped: pass primary_keys for an exact, keyed diff", QueryRowLimit)
	}
	return false, nil
}

// framesDiffer compares two frames' columns and rows as JSON values, so an
// integer and the same whole float are equal.
func framesDiffer(a, b *frame.Frame) (bool, error) {
	if a == nil || b == nil {
		return (a == nil) != (b == nil), nil
	}
	return jsonDiffer([2]any{a.Columns, a.Data}, [2]any{b.Columns, b.Data})
}

// jsonDiffer reports whether a and b encode to different JSON values.
func jsonDiffer(a, b any) (bool, error) {
	var va, vb any
	for _, p := range []struct {
		in  any
		out *any
	}{{a, &va}, {b, &vb}} {
		raw, err := json.Marshal(p.in)
		if err != nil {
			return false, fmt.Errorf("comparing results: %w", err)
		}
		if err := json.Unmarshal(raw, p.out); err != nil {
			return false, fmt.Errorf("comparing results: %w", err)
		}
	}
	return !reflect.DeepEqual(va, vb), nil
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
	baseSQL := in.BaseSQLTemplate
	if strings.TrimSpace(baseSQL) == "" {
		baseSQL = in.SQLTemplate
	}
	bsql, err := env.prepareSQL(ctx, baseSQL, Base)
	if err != nil {
		return nil, fmt.Errorf("base query: %w", err)
	}
	csql, err := env.prepareSQL(ctx, in.SQLTemplate, Current)
	if err != nil {
		return nil, fmt.Errorf("current query: %w", err)
	}
	// The same SQL on both sides, with refs that render the same, reads
	// the same tables twice: it cannot show a change.
	if bsql == csql && refRe.MatchString(baseSQL) && !(env.Project != nil && env.Project.SingleEnv) {
		return nil, fmt.Errorf("%w: every ref() of the query resolves to the same relation in both builds (the query is %s in both), so comparing it cannot show a change; %s", ErrSameRelation, oneLineSQL(csql), RebuildBaseHint)
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
			return nil, dbt.NotFoundf("primary key %q is not a column of the query result%s", k, ColumnHint(k, columnNames(ccols)))
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

// oneLineSQL shortens SQL for a message.
func oneLineSQL(sql string) string {
	s := strings.Join(strings.Fields(sql), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return fmt.Sprintf("%q", s)
}
