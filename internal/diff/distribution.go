package diff

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// TopKDiffInput selects a categorical column.
type TopKDiffInput struct {
	Model  string `json:"model" jsonschema:"model name or unique id"`
	Column string `json:"column_name" jsonschema:"column"`
	K      int    `json:"k,omitempty" jsonschema:"number of categories (default 10)"`
}

// TopKSide is one environment's counts aligned with the shared values.
type TopKSide struct {
	Values []any   `json:"values" jsonschema:"top values, shared by both sides"`
	Counts []int64 `json:"counts" jsonschema:"count per value"`
	Valids int64   `json:"valids" jsonschema:"non-NULL rows"`
	Total  int64   `json:"total" jsonschema:"rows"`
}

// TopKDiffResult lists the top categories (by current count, then base
// count) with both environments' counts. NULLs are not a category.
type TopKDiffResult struct {
	Base    TopKSide `json:"base" jsonschema:"base"`
	Current TopKSide `json:"current" jsonschema:"current"`
	Warning string   `json:"_warning,omitempty" jsonschema:"single-env notice"`
}

// Mismatch is the CI verdict: true when the sides' counts differ.
func (r *TopKDiffResult) Mismatch() (bool, error) { return jsonDiffer(r.Base, r.Current) }

// columnBoth resolves a column on both sides of a model.
func (e Env) columnBoth(ctx context.Context, model, column string) (target, diffColumn, warehouse.Column, error) {
	if strings.TrimSpace(column) == "" {
		return target{}, diffColumn{}, warehouse.Column{}, fmt.Errorf("column_name is required")
	}
	t, err := e.bothRelations(model)
	if err != nil {
		return t, diffColumn{}, warehouse.Column{}, err
	}
	bcols, err := e.physicalColumns(ctx, t.Base, Base)
	if err != nil {
		return t, diffColumn{}, warehouse.Column{}, err
	}
	ccols, err := e.physicalColumns(ctx, t.Current, Current)
	if err != nil {
		return t, diffColumn{}, warehouse.Column{}, err
	}
	bc, ok := matchColumn(bcols, column)
	if !ok {
		return t, diffColumn{}, warehouse.Column{}, missingColumnError(t.Name, Base, column, bcols)
	}
	cc, ok := matchColumn(ccols, column)
	if !ok {
		return t, diffColumn{}, warehouse.Column{}, missingColumnError(t.Name, Current, column, ccols)
	}
	return t, newDiffColumn(bc, cc), cc, nil
}

func topKSQL(d sqlDialect, baseRel, curRel string, c diffColumn, k int) string {
	side := func(rel, col string) string {
		q := d.q(col)
		return "SELECT " + d.CastToString(q) + " AS category, COUNT(*) AS n FROM " + rel + " WHERE " + q + " IS NOT NULL GROUP BY " + q
	}
	return d.Limit("WITH ripple_base AS (\n"+side(baseRel, c.Base)+"\n), ripple_current AS (\n"+side(curRel, c.Current)+"\n)\n"+
		"SELECT COALESCE(b.category, c.category) AS category, COALESCE(b.n, 0) AS base_count, COALESCE(c.n, 0) AS current_count\n"+
		"FROM ripple_base b FULL OUTER JOIN ripple_current c ON b.category = c.category\n"+
		"ORDER BY current_count DESC, base_count DESC, category", k)
}

func countsSQL(d sqlDialect, baseRel, curRel string, c diffColumn) string {
	return "SELECT\n  (SELECT COUNT(*) FROM " + baseRel + ") AS base_total,\n  (SELECT COUNT(" + d.q(c.Base) + ") FROM " + baseRel + ") AS base_valids,\n" +
		"  (SELECT COUNT(*) FROM " + curRel + ") AS current_total,\n  (SELECT COUNT(" + d.q(c.Current) + ") FROM " + curRel + ") AS current_valids"
}

// TopKDiff compares the k most frequent values of a column.
func TopKDiff(ctx context.Context, env Env, in TopKDiffInput) (*TopKDiffResult, error) {
	d, err := env.needWarehouse()
	if err != nil {
		return nil, err
	}
	k := in.K
	if k <= 0 {
		k = 10
	}
	t, c, _, err := env.columnBoth(ctx, in.Model, in.Column)
	if err != nil {
		return nil, err
	}
	baseRel, curRel := relationSQL(d, t.Base), relationSQL(d, t.Current)
	r, err := env.Conn.Query(ctx, topKSQL(d, baseRel, curRel, c, k), warehouse.QueryOptions{Limit: k})
	if err != nil {
		return nil, env.wrapErr(fmt.Sprintf("counting values of %s", c.Name), err)
	}
	res := &TopKDiffResult{Warning: env.warning()}
	res.Base.Values, res.Current.Values = []any{}, []any{}
	res.Base.Counts, res.Current.Counts = []int64{}, []int64{}
	for _, row := range r.Rows {
		v := strOrNil(row[0])
		res.Base.Values = append(res.Base.Values, v)
		res.Current.Values = append(res.Current.Values, v)
		res.Base.Counts = append(res.Base.Counts, toInt(row[1]))
		res.Current.Counts = append(res.Current.Counts, toInt(row[2]))
	}
	cr, err := env.Conn.Query(ctx, countsSQL(d, baseRel, curRel, c), warehouse.QueryOptions{Limit: 1})
	if err != nil {
		return nil, env.wrapErr(fmt.Sprintf("counting rows of %s", t.Name), err)
	}
	row, err := one(cr)
	if err != nil {
		return nil, err
	}
	res.Base.Total, res.Base.Valids, res.Current.Total, res.Current.Valids = toInt(row[0]), toInt(row[1]), toInt(row[2]), toInt(row[3])
	return res, nil
}

// HistogramDiffInput selects a numeric or date/time column.
type HistogramDiffInput struct {
	Model   string `json:"model" jsonschema:"model name or unique id"`
	Column  string `json:"column_name" jsonschema:"numeric or date column"`
	NumBins int    `json:"num_bins,omitempty" jsonschema:"bins (default 50)"`
}

// HistogramSide is one environment's bin counts; Total counts non-NULL values.
type HistogramSide struct {
	Counts []int64 `json:"counts" jsonschema:"per bin"`
	Total  int64   `json:"total" jsonschema:"non-NULL values"`
}

// HistogramDiffResult has bins shared by both environments: len(BinEdges)
// = len(Labels)+1 = len(Counts)+1. Min and max span both environments.
type HistogramDiffResult struct {
	Base     HistogramSide `json:"base" jsonschema:"base"`
	Current  HistogramSide `json:"current" jsonschema:"current"`
	Min      any           `json:"min" jsonschema:"minimum of both sides, or null"`
	Max      any           `json:"max" jsonschema:"maximum of both sides, or null"`
	BinEdges []any         `json:"bin_edges" jsonschema:"bin boundaries"`
	Labels   []string      `json:"labels" jsonschema:"bin labels"`
	// Interval is the date bucket (year, month, day) for date/time columns.
	Interval string `json:"interval,omitempty" jsonschema:"date bucket: year, month or day"`
	Warning  string `json:"_warning,omitempty" jsonschema:"single-env notice"`
}

// Mismatch is the CI verdict: true when the sides' bin counts differ.
func (r *HistogramDiffResult) Mismatch() (bool, error) { return jsonDiffer(r.Base, r.Current) }

func histogramStatsSQL(d sqlDialect, baseRel, curRel string, c diffColumn) string {
	conv := func(q string) string {
		if c.Kind.Temporal() {
			return d.CastToString(q)
		}
		return q
	}
	val := func(col string) string {
		if c.Kind.Temporal() {
			return d.q(col)
		}
		return d.CastToFloat(d.q(col))
	}
	side := func(rel, col, s string) string {
		return "  (SELECT " + conv("MIN("+val(col)+")") + " FROM " + rel + ") AS " + s + "_min,\n" +
			"  (SELECT " + conv("MAX("+val(col)+")") + " FROM " + rel + ") AS " + s + "_max,\n" +
			"  (SELECT COUNT(" + d.q(col) + ") FROM " + rel + ") AS " + s + "_count"
	}
	return "SELECT\n" + side(baseRel, c.Base, "base") + ",\n" + side(curRel, c.Current, "current")
}

func numericBinsSQL(d sqlDialect, baseRel, curRel string, c diffColumn, lo, size float64) string {
	side := func(rel, col, s string) string {
		v := d.CastToFloat(d.q(col))
		bin := "0"
		if size > 0 {
			bin = d.CastToBigInt("FLOOR((" + v + " - " + fmtNum(lo) + ") / " + fmtNum(size) + ")")
		}
		return "SELECT " + s + " AS side, ripple_bin, COUNT(*) AS n FROM (SELECT " + bin + " AS ripple_bin FROM " + rel +
			" WHERE " + d.q(col) + " IS NOT NULL) ripple_v GROUP BY ripple_bin"
	}
	return "SELECT side, ripple_bin, n FROM (\n" + side(baseRel, c.Base, "0") + "\nUNION ALL\n" + side(curRel, c.Current, "1") + "\n) ripple_h"
}

func dateBinsSQL(d sqlDialect, baseRel, curRel string, c diffColumn, unit string) string {
	side := func(rel, col, s string) string {
		b := d.CastToString(d.DateTrunc(unit, d.q(col)))
		return "SELECT " + s + " AS side, " + b + " AS ripple_bucket, COUNT(*) AS n FROM " + rel + " WHERE " + d.q(col) + " IS NOT NULL GROUP BY " + b
	}
	return "SELECT side, ripple_bucket, n FROM (\n" + side(baseRel, c.Base, "0") + "\nUNION ALL\n" + side(curRel, c.Current, "1") + "\n) ripple_h"
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// edgeLabel formats a bin edge with five significant digits of the width.
func edgeLabel(f, width float64) string {
	if width <= 0 || math.IsInf(width, 0) || math.IsNaN(width) {
		return fmtNum(f)
	}
	dec := min(max(4-int(math.Floor(math.Log10(width))), 0), 12)
	s := strconv.FormatFloat(f, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// HistogramDiff bins a numeric or date/time column with edges shared by both
// environments (from the min and max of both). Integer columns get integer
// bin widths (one bin per value when the range is smaller than num_bins);
// dates are bucketed by year (span over 4 years), month (over 60 days) or day.
func HistogramDiff(ctx context.Context, env Env, in HistogramDiffInput) (*HistogramDiffResult, error) {
	d, err := env.needWarehouse()
	if err != nil {
		return nil, err
	}
	bins := in.NumBins
	if bins <= 0 {
		bins = 50
	}
	t, c, cc, err := env.columnBoth(ctx, in.Model, in.Column)
	if err != nil {
		return nil, err
	}
	if !c.Kind.Numeric() && !c.Kind.Temporal() {
		return nil, fmt.Errorf("column type %s of %s.%s is not supported for histogram analysis: histograms need a numeric or date/time column (use top_k_diff for categorical columns)", cc.Type, t.Name, c.Name)
	}
	baseRel, curRel := relationSQL(d, t.Base), relationSQL(d, t.Current)
	r, err := env.Conn.Query(ctx, histogramStatsSQL(d, baseRel, curRel, c), warehouse.QueryOptions{Limit: 1})
	if err != nil {
		return nil, env.wrapErr(fmt.Sprintf("reading the range of %s", c.Name), err)
	}
	row, err := one(r)
	if err != nil {
		return nil, err
	}
	res := &HistogramDiffResult{Warning: env.warning(), BinEdges: []any{}, Labels: []string{},
		Base: HistogramSide{Counts: []int64{}, Total: toInt(row[2])}, Current: HistogramSide{Counts: []int64{}, Total: toInt(row[5])}}
	if c.Kind.Temporal() {
		return env.dateHistogram(ctx, d, res, baseRel, curRel, c, row)
	}
	lo, hi, ok := spanOf(row, func(v any) (float64, bool) { return toFloat(v) })
	if !ok {
		return res, nil
	}
	var size float64
	if c.Kind == dialect.KindInteger {
		lo, hi = math.Floor(lo), math.Ceil(hi)
		span := hi - lo
		if span < float64(bins) {
			bins = int(span) + 1
		}
		size = math.Ceil(span / float64(bins))
		if size == 0 {
			size = 1
		}
		res.Min, res.Max = int64(lo), int64(hi)
		for i := 0; i <= bins; i++ {
			res.BinEdges = append(res.BinEdges, int64(lo)+int64(i)*int64(size))
		}
		for i := 0; i < bins; i++ {
			e := int64(lo) + int64(i)*int64(size)
			res.Labels = append(res.Labels, fmt.Sprintf("%d-%d", e, e+int64(size)))
		}
	} else {
		res.Min, res.Max = lo, hi
		if hi == lo {
			bins = 1
		}
		size = (hi - lo) / float64(bins)
		for i := 0; i <= bins; i++ {
			e := lo + float64(i)*size
			if i == bins {
				e = hi
			}
			res.BinEdges = append(res.BinEdges, e)
		}
		// Labels round the edges to five significant digits of the bin
		// width, so float noise (30.44749999999998) does not reach people;
		// bin_edges keep the exact values.
		for i := 0; i < bins; i++ {
			res.Labels = append(res.Labels, edgeLabel(res.BinEdges[i].(float64), size)+"-"+edgeLabel(res.BinEdges[i+1].(float64), size))
		}
	}
	res.Base.Counts, res.Current.Counts = make([]int64, bins), make([]int64, bins)
	hr, err := env.Conn.Query(ctx, numericBinsSQL(d, baseRel, curRel, c, lo, size), warehouse.QueryOptions{Limit: -1})
	if err != nil {
		return nil, env.wrapErr(fmt.Sprintf("binning %s", c.Name), err)
	}
	for _, row := range hr.Rows {
		i := int(min(max(toInt(row[1]), 0), int64(bins-1)))
		if toInt(row[0]) == 0 {
			res.Base.Counts[i] += toInt(row[2])
		} else {
			res.Current.Counts[i] += toInt(row[2])
		}
	}
	return res, nil
}

// spanOf returns the min and max over both sides, ignoring NULLs.
func spanOf(row []any, conv func(any) (float64, bool)) (lo, hi float64, ok bool) {
	for _, i := range []int{0, 3} {
		a, okA := conv(row[i])
		b, okB := conv(row[i+1])
		if !okA || !okB {
			continue
		}
		if !ok {
			lo, hi, ok = a, b, true
			continue
		}
		lo, hi = math.Min(lo, a), math.Max(hi, b)
	}
	return lo, hi, ok
}

// parseDay reads the date part of a date/timestamp rendered as text.
func parseDay(v any) (time.Time, bool) {
	s := toString(v)
	if s == nil || len(*s) < 10 {
		return time.Time{}, false
	}
	t, err := time.Parse("2006-01-02", (*s)[:10])
	return t, err == nil
}

func (e Env) dateHistogram(ctx context.Context, d sqlDialect, res *HistogramDiffResult, baseRel, curRel string, c diffColumn, row []any) (*HistogramDiffResult, error) {
	var lo, hi time.Time
	ok := false
	for _, i := range []int{0, 3} {
		a, okA := parseDay(row[i])
		b, okB := parseDay(row[i+1])
		if !okA || !okB {
			continue
		}
		if !ok || a.Before(lo) {
			lo = a
		}
		if !ok || b.After(hi) {
			hi = b
		}
		ok = true
	}
	if !ok {
		return res, nil
	}
	res.Min, res.Max = lo.Format("2006-01-02"), hi.Format("2006-01-02")
	days := hi.Sub(lo).Hours() / 24
	var unit, layout string
	var start time.Time
	var step func(time.Time) time.Time
	switch {
	case days > 4*365:
		unit, layout = "year", "2006"
		start = time.Date(lo.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		step = func(t time.Time) time.Time { return t.AddDate(1, 0, 0) }
	case days > 60:
		unit, layout = "month", "2006-01"
		start = time.Date(lo.Year(), lo.Month(), 1, 0, 0, 0, 0, time.UTC)
		step = func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }
	default:
		unit, layout = "day", "2006-01-02"
		start = lo
		step = func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }
	}
	res.Interval = unit
	index := map[string]int{}
	for b := start; !b.After(hi); b = step(b) {
		index[b.Format("2006-01-02")] = len(res.Labels)
		res.BinEdges = append(res.BinEdges, b.Format("2006-01-02"))
		res.Labels = append(res.Labels, b.Format(layout))
	}
	res.BinEdges = append(res.BinEdges, step(res.binStart(start, step)).Format("2006-01-02"))
	n := len(res.Labels)
	res.Base.Counts, res.Current.Counts = make([]int64, n), make([]int64, n)
	hr, err := e.Conn.Query(ctx, dateBinsSQL(d, baseRel, curRel, c, unit), warehouse.QueryOptions{Limit: -1})
	if err != nil {
		return nil, e.wrapErr(fmt.Sprintf("binning %s", c.Name), err)
	}
	for _, row := range hr.Rows {
		day, ok := parseDay(row[1])
		if !ok {
			continue
		}
		i, ok := index[day.Format("2006-01-02")]
		if !ok {
			continue
		}
		if toInt(row[0]) == 0 {
			res.Base.Counts[i] += toInt(row[2])
		} else {
			res.Current.Counts[i] += toInt(row[2])
		}
	}
	return res, nil
}

// binStart returns the start of the last bucket.
func (r *HistogramDiffResult) binStart(start time.Time, step func(time.Time) time.Time) time.Time {
	last := start
	for i := 1; i < len(r.Labels); i++ {
		last = step(last)
	}
	return last
}
