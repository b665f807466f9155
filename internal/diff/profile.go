package diff

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/frame"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// ProfileDiffInput selects the model (and columns) to profile.
type ProfileDiffInput struct {
	Model   string   `json:"model" jsonschema:"model name or unique id"`
	Columns []string `json:"columns,omitempty" jsonschema:"columns (default all)"`
}

// ProfileDiffResult has one frame per environment with one row per column:
// column_name, data_type, row_count, not_null_proportion,
// distinct_proportion, distinct_count, is_unique, min, max, avg, median.
// A side is null when the model does not exist there.
type ProfileDiffResult struct {
	// RunID identifies the recorded run when the checks state keeps runs.
	RunID   string       `json:"run_id,omitempty" jsonschema:"recorded run, to cite"`
	Base    *frame.Frame `json:"base" jsonschema:"one row per column; null if absent"`
	Current *frame.Frame `json:"current" jsonschema:"one row per column; null if absent"`
	Warning string       `json:"_warning,omitempty" jsonschema:"single-env notice"`
}

// Mismatch is the CI verdict: true when the two profiles differ.
func (r *ProfileDiffResult) Mismatch() (bool, error) { return framesDiffer(r.Base, r.Current) }

// ProfileDiff profiles a model's columns in both environments with one
// query per environment (every column in one SELECT). Proportions and
// is_unique are null on an empty table.
func ProfileDiff(ctx context.Context, env Env, in ProfileDiffInput) (*ProfileDiffResult, error) {
	d, err := env.needWarehouse()
	if err != nil {
		return nil, err
	}
	t, err := env.resolveModel(in.Model)
	if err != nil {
		return nil, err
	}
	if err := env.checkDistinct(t.Name, t.Base, t.Current); err != nil {
		return nil, err
	}
	cols := map[Side][]warehouse.Column{}
	for _, s := range []Side{Base, Current} {
		n := t.node(s)
		if n == nil {
			continue
		}
		if err := env.checkRelation(n, s); err != nil {
			return nil, err
		}
		c, err := env.physicalColumns(ctx, n, s)
		if err != nil {
			return nil, err
		}
		cols[s] = c
	}
	if len(in.Columns) > 0 {
		for _, name := range in.Columns {
			_, inB := matchColumn(cols[Base], name)
			_, inC := matchColumn(cols[Current], name)
			if !inB && !inC {
				c := cols[Current]
				if c == nil {
					c = cols[Base]
				}
				return nil, fmt.Errorf("column %q is not in %s in either environment%s", name, t.Name, ColumnHint(name, columnNames(c)))
			}
		}
		for s, all := range cols {
			var keep []warehouse.Column
			for _, name := range in.Columns {
				if c, ok := matchColumn(all, name); ok {
					keep = append(keep, c)
				}
			}
			cols[s] = keep
		}
	}
	res := &ProfileDiffResult{Warning: env.warning()}
	for i, s := range []Side{Base, Current} {
		n := t.node(s)
		if n == nil {
			continue
		}
		env.progress("profile_diff", "profiling "+t.Name+" in "+string(s), float64(i)/2)
		f, err := env.profileSide(ctx, d, relationSQL(d, n), cols[s], s)
		if err != nil {
			return nil, err
		}
		if s == Base {
			res.Base = f
		} else {
			res.Current = f
		}
	}
	env.progress("profile_diff", "done", 1)
	return res, nil
}

// profileExprs are one column's aggregates; "" means not computed.
type profileExprs struct {
	distinct, min, max, avg, median string
}

func columnProfileExprs(d sqlDialect, c warehouse.Column) profileExprs {
	q := d.q(c.Name)
	k := d.KindOf(c.Type)
	var p profileExprs
	if k != dialect.KindOther {
		p.distinct = "COUNT(DISTINCT " + q + ")"
	}
	switch {
	case k.Numeric():
		p.min, p.max = d.CastToString("MIN("+q+")"), d.CastToString("MAX("+q+")")
		p.avg = "AVG(" + d.CastToFloat(q) + ")"
		p.median = d.Median(d.CastToFloat(q))
	case k.Temporal():
		p.min, p.max = d.CastToString("MIN("+q+")"), d.CastToString("MAX("+q+")")
	case k == dialect.KindBoolean:
		p.avg = "AVG(CASE WHEN " + q + " THEN 1.0 WHEN NOT " + q + " THEN 0.0 END)"
	}
	return p
}

// profileSQL computes every column's metrics in one SELECT: row_count, then
// per column not_null, distinct, min, max, avg, median (NULL where not
// applicable).
func profileSQL(d sqlDialect, rel string, cols []warehouse.Column) string {
	sel := []string{"COUNT(*) AS row_count"}
	orNull := func(e string) string {
		if e == "" {
			return "NULL"
		}
		return e
	}
	for i, c := range cols {
		p := columnProfileExprs(d, c)
		n := strconv.Itoa(i)
		sel = append(sel,
			"COUNT("+d.q(c.Name)+") AS not_null_"+n,
			orNull(p.distinct)+" AS distinct_"+n,
			orNull(p.min)+" AS min_"+n,
			orNull(p.max)+" AS max_"+n,
			orNull(p.avg)+" AS avg_"+n,
			orNull(p.median)+" AS median_"+n)
	}
	return "SELECT\n  " + strings.Join(sel, ",\n  ") + "\nFROM " + rel
}

func (e Env) profileSide(ctx context.Context, d sqlDialect, rel string, cols []warehouse.Column, s Side) (*frame.Frame, error) {
	f := frame.New([2]string{"column_name", frame.Text}, [2]string{"data_type", frame.Text}, [2]string{"row_count", frame.Integer},
		[2]string{"not_null_proportion", frame.Float}, [2]string{"distinct_proportion", frame.Float}, [2]string{"distinct_count", frame.Integer},
		[2]string{"is_unique", frame.Boolean}, [2]string{"min", frame.Text}, [2]string{"max", frame.Text},
		[2]string{"avg", frame.Float}, [2]string{"median", frame.Float})
	if len(cols) == 0 {
		return f, nil
	}
	r, err := e.Conn.Query(ctx, profileSQL(d, rel, cols), warehouse.QueryOptions{Limit: 1})
	if err != nil {
		return nil, e.wrapErr(fmt.Sprintf("profiling %s in the %s environment", rel, s), err)
	}
	row, err := one(r)
	if err != nil {
		return nil, err
	}
	if len(row) != 1+6*len(cols) {
		return nil, errors.New("profile query returned an unexpected number of columns")
	}
	total := toInt(row[0])
	for i, c := range cols {
		v := row[1+6*i : 7+6*i]
		notNull := toInt(v[0])
		var nnp, dp, distinct, unique any
		if v[1] != nil {
			dc := toInt(v[1])
			distinct = dc
			if total > 0 {
				dp = float64(dc) / float64(total)
				unique = dc == total
			}
		}
		if total > 0 {
			nnp = float64(notNull) / float64(total)
		}
		f.Append(c.Name, c.Type, total, nnp, dp, distinct, unique, strOrNil(v[2]), strOrNil(v[3]), nilIfNil(floatPtr(v[4])), nilIfNil(floatPtr(v[5])))
	}
	return f, nil
}

func strOrNil(v any) any {
	if s := toString(v); s != nil {
		return *s
	}
	return nil
}
