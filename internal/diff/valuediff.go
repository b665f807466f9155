package diff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ripple-data/ripple/internal/frame"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// Keys is one column name or a list of them; JSON accepts "id" or ["a","b"].
type Keys []string

// UnmarshalJSON accepts a string or a list of strings.
func (k *Keys) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*k = Keys{s}
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return errors.New("primary_key must be a column name or a list of column names")
	}
	*k = l
	return nil
}

// ValueDiffInput compares a model's rows by primary key.
type ValueDiffInput struct {
	Model      string   `json:"model" jsonschema:"model name or unique id"`
	PrimaryKey Keys     `json:"primary_key" jsonschema:"column (or list of columns) uniquely identifying a row in both environments"`
	Columns    []string `json:"columns,omitempty" jsonschema:"columns to compare (default: every column present in both environments); matched case-insensitively"`
}

// ValueDiffSummary counts rows by key: Total = keys in either environment,
// Added = only in current, Removed = only in base, Changed = in both with
// any compared column different.
type ValueDiffSummary struct {
	Total   int64 `json:"total"`
	Added   int64 `json:"added"`
	Removed int64 `json:"removed"`
	Changed int64 `json:"changed"`
}

// ValueDiffColumn is one column's comparison over the rows in both
// environments.
type ValueDiffColumn struct {
	Column            string   `json:"column"`
	Matched           int64    `json:"matched"`
	MatchedP          *float64 `json:"matched_p"`
	NullInBaseOnly    int64    `json:"null_in_base_only"`
	NullInCurrentOnly int64    `json:"null_in_current_only"`
	BaseMean          *float64 `json:"base_mean"`
	CurrentMean       *float64 `json:"current_mean"`
}

// ValueDiffResult is the value diff of a model. Data has one row per column:
// column, matched, matched_p, null_in_base_only, null_in_current_only,
// base_mean, current_mean (means only for numeric columns).
type ValueDiffResult struct {
	Summary    ValueDiffSummary  `json:"summary"`
	Data       *frame.Frame      `json:"data"`
	PrimaryKey []string          `json:"primary_key"`
	Columns    []ValueDiffColumn `json:"-"`
	Warning    string            `json:"_warning,omitempty"`
}

// Column returns the comparison of one column (case-insensitive).
func (r *ValueDiffResult) Column(name string) (ValueDiffColumn, bool) {
	for _, c := range r.Columns {
		if strings.EqualFold(c.Column, name) {
			return c, true
		}
	}
	return ValueDiffColumn{}, false
}

// diffColumn is a compared column with its physical name on each side.
type diffColumn struct {
	Name    string // as reported (current's spelling)
	Base    string
	Current string
	Kind    columnKind
	Key     bool
}

// diffPlan is what value_diff and value_diff_detail share.
type diffPlan struct {
	t        target
	baseRel  string
	curRel   string
	keys     []diffColumn
	cols     []diffColumn // keys first, then the other compared columns
	dialect  sqlDialect
	keyNames []string
}

func (e Env) planValueDiff(ctx context.Context, model string, pk Keys, columns []string) (*diffPlan, error) {
	d, err := e.needWarehouse()
	if err != nil {
		return nil, err
	}
	if len(pk) == 0 {
		return nil, errors.New("primary_key cannot be empty: pass the column (or columns) that uniquely identify a row")
	}
	t, err := e.bothRelations(model)
	if err != nil {
		return nil, err
	}
	bcols, err := e.physicalColumns(ctx, t.Base, Base)
	if err != nil {
		return nil, err
	}
	ccols, err := e.physicalColumns(ctx, t.Current, Current)
	if err != nil {
		return nil, err
	}
	p := &diffPlan{t: t, baseRel: relationSQL(d, t.Base), curRel: relationSQL(d, t.Current), dialect: d}
	resolve := func(name string) (diffColumn, error) {
		bc, ok := matchColumn(bcols, name)
		if !ok {
			return diffColumn{}, missingColumnError(t.Name, Base, name, bcols)
		}
		cc, ok := matchColumn(ccols, name)
		if !ok {
			return diffColumn{}, missingColumnError(t.Name, Current, name, ccols)
		}
		k := kindOfType(cc.Type)
		if bk := kindOfType(bc.Type); bk != k {
			k = kindOther
		}
		return diffColumn{Name: cc.Name, Base: bc.Name, Current: cc.Name, Kind: k}, nil
	}
	seen := map[string]bool{}
	for _, k := range pk {
		if strings.TrimSpace(k) == "" {
			return nil, errors.New("primary_key contains an empty column name")
		}
		c, err := resolve(k)
		if err != nil {
			return nil, fmt.Errorf("primary key: %w", err)
		}
		if seen[strings.ToLower(c.Name)] {
			continue
		}
		seen[strings.ToLower(c.Name)] = true
		c.Key = true
		p.keys = append(p.keys, c)
		p.keyNames = append(p.keyNames, c.Name)
	}
	p.cols = append(p.cols, p.keys...)
	if len(columns) > 0 {
		for _, name := range columns {
			c, err := resolve(name)
			if err != nil {
				return nil, err
			}
			if !seen[strings.ToLower(c.Name)] {
				seen[strings.ToLower(c.Name)] = true
				p.cols = append(p.cols, c)
			}
		}
	} else {
		for _, bc := range bcols {
			if seen[strings.ToLower(bc.Name)] {
				continue
			}
			cc, ok := matchColumn(ccols, bc.Name)
			if !ok {
				continue
			}
			seen[strings.ToLower(bc.Name)] = true
			k := kindOfType(cc.Type)
			if kindOfType(bc.Type) != k {
				k = kindOther
			}
			p.cols = append(p.cols, diffColumn{Name: cc.Name, Base: bc.Name, Current: cc.Name, Kind: k})
		}
	}
	return p, nil
}

// keyCheckSQL counts duplicate and NULL keys of one relation in one scan.
func keyCheckSQL(d sqlDialect, rel string, keys []string) string {
	q := make([]string, len(keys))
	nulls := make([]string, len(keys))
	for i, k := range keys {
		q[i] = d.q(k)
		nulls[i] = d.q(k) + " IS NULL"
	}
	kl := strings.Join(q, ", ")
	return "SELECT " + d.countIf("ripple_n > 1") + " AS duplicate_keys, " +
		"COALESCE(SUM(CASE WHEN " + strings.Join(nulls, " OR ") + " THEN ripple_n ELSE 0 END), 0) AS null_keys\n" +
		"FROM (SELECT " + kl + ", COUNT(*) AS ripple_n FROM " + rel + " GROUP BY " + kl + ") ripple_k"
}

// duplicateKeysSQL is the query users can run to see duplicate keys.
func duplicateKeysSQL(d sqlDialect, rel string, keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = d.q(k)
	}
	kl := strings.Join(q, ", ")
	return "SELECT " + kl + ", COUNT(*) AS n FROM " + rel + " GROUP BY " + kl + " HAVING COUNT(*) > 1"
}

func nullKeysSQL(d sqlDialect, rel string, keys []string) string {
	nulls := make([]string, len(keys))
	for i, k := range keys {
		nulls[i] = d.q(k) + " IS NULL"
	}
	return "SELECT * FROM " + rel + " WHERE " + strings.Join(nulls, " OR ")
}

// verifyKeys fails unless the key is unique and not NULL on both sides.
func (e Env) verifyKeys(ctx context.Context, p *diffPlan) error {
	for _, s := range []Side{Base, Current} {
		rel := p.baseRel
		keys := make([]string, len(p.keys))
		for i, k := range p.keys {
			keys[i] = k.Base
			if s == Current {
				keys[i] = k.Current
			}
		}
		if s == Current {
			rel = p.curRel
		}
		r, err := e.Conn.Query(ctx, keyCheckSQL(p.dialect, rel, keys), warehouse.QueryOptions{Limit: 1})
		if err != nil {
			return e.wrapErr(fmt.Sprintf("checking the primary key of %s in the %s environment", rel, s), err)
		}
		row, err := one(r)
		if err != nil {
			return err
		}
		dup, nulls := toInt(row[0]), toInt(row[1])
		keyDesc := strings.Join(keys, ", ")
		if nulls > 0 {
			return fmt.Errorf("invalid primary key %q: %d rows of %s in the %s environment have a NULL key; choose key columns that are never NULL (check with: %s)",
				keyDesc, nulls, rel, s, nullKeysSQL(p.dialect, rel, keys))
		}
		if dup > 0 {
			return fmt.Errorf("invalid primary key %q: %d key values occur more than once in %s in the %s environment; the key must be unique (check with: %s)",
				keyDesc, dup, rel, s, duplicateKeysSQL(p.dialect, rel, keys))
		}
	}
	return nil
}

// valueDiffSQL compares every column in one pass over a FULL OUTER JOIN on
// the key. Output columns, by position: total, added, removed, changed, then
// per non-key column: mismatched, null_in_base_only, null_in_current_only,
// and for numeric columns base_mean, current_mean.
func valueDiffSQL(p *diffPlan) string {
	d := p.dialect
	var bsel, csel, on []string
	for _, c := range p.cols {
		bsel = append(bsel, d.q(c.Base))
		csel = append(csel, d.q(c.Current))
	}
	for _, k := range p.keys {
		on = append(on, d.qual("b", k.Base)+" = "+d.qual("c", k.Current))
	}
	inBase := d.qual("b", p.keys[0].Base) + " IS NOT NULL"
	inCur := d.qual("c", p.keys[0].Current) + " IS NOT NULL"
	both := inBase + " AND " + inCur
	var sel, anyDiff []string
	sel = append(sel, "COUNT(*) AS total",
		d.countIf(d.qual("b", p.keys[0].Base)+" IS NULL")+" AS added",
		d.countIf(d.qual("c", p.keys[0].Current)+" IS NULL")+" AS removed")
	var per []string
	for i, c := range p.cols {
		if c.Key {
			continue
		}
		bc, cc := d.qual("b", c.Base), d.qual("c", c.Current)
		dist := d.distinct(bc, cc)
		anyDiff = append(anyDiff, dist)
		n := strconv.Itoa(i)
		per = append(per,
			d.countIf(both+" AND "+dist)+" AS mismatched_"+n,
			d.countIf(both+" AND "+bc+" IS NULL AND "+cc+" IS NOT NULL")+" AS null_in_base_only_"+n,
			d.countIf(both+" AND "+bc+" IS NOT NULL AND "+cc+" IS NULL")+" AS null_in_current_only_"+n)
		if c.Kind.numeric() {
			per = append(per, "AVG("+d.CastToFloat(bc)+") AS base_mean_"+n, "AVG("+d.CastToFloat(cc)+") AS current_mean_"+n)
		}
	}
	if len(anyDiff) == 0 {
		sel = append(sel, "0 AS changed")
	} else {
		sel = append(sel, d.countIf(both+" AND ("+strings.Join(anyDiff, "\n    OR ")+")")+" AS changed")
	}
	sel = append(sel, per...)
	return "WITH ripple_base AS (\nSELECT " + strings.Join(bsel, ", ") + " FROM " + p.baseRel + "\n), ripple_current AS (\nSELECT " +
		strings.Join(csel, ", ") + " FROM " + p.curRel + "\n)\nSELECT\n  " + strings.Join(sel, ",\n  ") +
		"\nFROM ripple_base b\nFULL OUTER JOIN ripple_current c ON " + strings.Join(on, " AND ")
}

// ValueDiff compares a model's rows in both environments by primary key:
// how many rows were added, removed and changed, and per column how many of
// the rows present in both environments match. The key is first verified to
// be unique and not NULL on both sides; then every column is compared in a
// single pass over a FULL OUTER JOIN on the key in the warehouse.
func ValueDiff(ctx context.Context, env Env, in ValueDiffInput) (*ValueDiffResult, error) {
	env.progress("value_diff", "resolving columns", 0)
	p, err := env.planValueDiff(ctx, in.Model, in.PrimaryKey, in.Columns)
	if err != nil {
		return nil, err
	}
	env.progress("value_diff", "verifying the primary key", 0.1)
	if err := env.verifyKeys(ctx, p); err != nil {
		return nil, err
	}
	env.progress("value_diff", "comparing rows", 0.3)
	r, err := env.Conn.Query(ctx, valueDiffSQL(p), warehouse.QueryOptions{Limit: 1})
	if err != nil {
		return nil, env.wrapErr(fmt.Sprintf("comparing %s with %s", p.baseRel, p.curRel), err)
	}
	row, err := one(r)
	if err != nil {
		return nil, err
	}
	res := &ValueDiffResult{PrimaryKey: p.keyNames, Warning: env.warning()}
	res.Summary = ValueDiffSummary{Total: toInt(row[0]), Added: toInt(row[1]), Removed: toInt(row[2]), Changed: toInt(row[3])}
	common := res.Summary.Total - res.Summary.Added - res.Summary.Removed
	ratio := func(m int64) *float64 {
		if common == 0 {
			return nil
		}
		f := float64(m) / float64(common)
		return &f
	}
	i := 4
	for _, c := range p.cols {
		vc := ValueDiffColumn{Column: c.Name}
		if c.Key {
			vc.Matched = common
		} else {
			vc.Matched = common - toInt(row[i])
			vc.NullInBaseOnly = toInt(row[i+1])
			vc.NullInCurrentOnly = toInt(row[i+2])
			i += 3
			if c.Kind.numeric() {
				vc.BaseMean, vc.CurrentMean = floatPtr(row[i]), floatPtr(row[i+1])
				i += 2
			}
		}
		vc.MatchedP = ratio(vc.Matched)
		res.Columns = append(res.Columns, vc)
	}
	f := frame.New([2]string{"column", frame.Text}, [2]string{"matched", frame.Integer}, [2]string{"matched_p", frame.Number},
		[2]string{"null_in_base_only", frame.Integer}, [2]string{"null_in_current_only", frame.Integer},
		[2]string{"base_mean", frame.Number}, [2]string{"current_mean", frame.Number})
	for _, c := range res.Columns {
		f.Append(c.Column, c.Matched, nilIfNil(c.MatchedP), c.NullInBaseOnly, c.NullInCurrentOnly, nilIfNil(c.BaseMean), nilIfNil(c.CurrentMean))
	}
	res.Data = f
	env.progress("value_diff", "done", 1)
	return res, nil
}

func nilIfNil(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// DefaultDetailLimit caps value_diff_detail rows.
const DefaultDetailLimit = 1000

// ValueDiffDetailInput selects a model's differing rows.
type ValueDiffDetailInput struct {
	Model      string   `json:"model" jsonschema:"model name or unique id"`
	PrimaryKey Keys     `json:"primary_key" jsonschema:"column (or list of columns) uniquely identifying a row in both environments"`
	Columns    []string `json:"columns,omitempty" jsonschema:"columns to compare and return (default: every column present in both environments)"`
	Limit      int      `json:"limit,omitempty" jsonschema:"maximum rows returned (default 1000)"`
}

// ValueDiffDetailResult is the differing rows, key columns first, with in_a
// (row exists in base) and in_b (row exists in current). A changed row
// appears twice: its base version (in_a) then its current version (in_b).
type ValueDiffDetailResult struct {
	*frame.Frame
	PrimaryKey []string `json:"primary_key"`
	Warning    string   `json:"_warning,omitempty"`
}

// ValueDiffDetail returns the rows that differ between environments, ordered
// by key, computed in the warehouse and capped.
func ValueDiffDetail(ctx context.Context, env Env, in ValueDiffDetailInput) (*ValueDiffDetailResult, error) {
	p, err := env.planValueDiff(ctx, in.Model, in.PrimaryKey, in.Columns)
	if err != nil {
		return nil, err
	}
	if err := env.verifyKeys(ctx, p); err != nil {
		return nil, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultDetailLimit
	}
	r, err := env.Conn.Query(ctx, valueDiffDetailSQL(p), warehouse.QueryOptions{Limit: limit})
	if err != nil {
		return nil, env.wrapErr(fmt.Sprintf("comparing %s with %s", p.baseRel, p.curRel), err)
	}
	f := toFrame(r, limit)
	if r.More {
		if cr, err := env.Conn.Query(ctx, "SELECT COUNT(*) FROM (\n"+valueDiffDetailSQL(p)+"\n) ripple_q", warehouse.QueryOptions{Limit: 1}); err == nil {
			if row, err := one(cr); err == nil {
				t := toInt(row[0])
				f.TotalRowCount = &t
			}
		} else if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return &ValueDiffDetailResult{Frame: f, PrimaryKey: p.keyNames, Warning: env.warning()}, nil
}

func valueDiffDetailSQL(p *diffPlan) string {
	d := p.dialect
	var bsel, csel []string
	for _, c := range p.cols {
		bsel = append(bsel, d.q(c.Base)+" AS "+d.q(c.Name))
		csel = append(csel, d.q(c.Current)+" AS "+d.q(c.Name))
		if c.Base == c.Name {
			bsel[len(bsel)-1] = d.q(c.Name)
		}
		if c.Current == c.Name {
			csel[len(csel)-1] = d.q(c.Name)
		}
	}
	return setDiffSQL(d, "SELECT "+strings.Join(bsel, ", ")+" FROM "+p.baseRel, "SELECT "+strings.Join(csel, ", ")+" FROM "+p.curRel, p.keyNames, "")
}
