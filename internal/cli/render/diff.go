package render

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ripple-data/ripple/internal/diff"
	"github.com/ripple-data/ripple/internal/frame"
)

func diffRenderers() map[string]Func {
	return map[string]Func{
		"row_count_diff":    typed(rowCountDiff),
		"row_count":         typed(rowCount),
		"profile":           typed(profile),
		"schema_diff":       typed(schemaDiff),
		"query":             typed(query),
		"query_diff":        typed(queryDiff),
		"value_diff":        typed(valueDiff),
		"value_diff_detail": typed(valueDiffDetail),
		"profile_diff":      typed(profileDiff),
		"top_k_diff":        typed(topKDiff),
		"histogram_diff":    typed(histogramDiff),
	}
}

func rowCountDiff(w io.Writer, out *diff.RowCountDiffResult, o Options) error {
	Warn(w, out.Warning)
	names := make([]string, 0, len(out.Models))
	for n := range out.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	t := Table{Header: []string{"model", "base", "current", "change"}}
	var notes []string
	for _, n := range names {
		rc := out.Models[n]
		change := ""
		switch {
		case rc.Base != nil && rc.Current != nil:
			change = deltaOnly(*rc.Base, *rc.Current)
		case rc.Current != nil && rc.BaseMeta.Status == diff.StatusNotInManifest:
			change = "added"
		case rc.Base != nil && rc.CurrentMeta.Status == diff.StatusNotInManifest:
			change = "removed"
		}
		t.Add(n, IntP(rc.Base, rc.BaseMeta.Status), IntP(rc.Current, rc.CurrentMeta.Status), change)
		for _, m := range []diff.RowCountMeta{rc.BaseMeta, rc.CurrentMeta} {
			if m.Status != diff.StatusOK && m.Message != "" {
				notes = append(notes, fmt.Sprintf("%s: %s: %s", n, m.Status, m.Message))
				break
			}
		}
	}
	if len(names) == 0 {
		fmt.Fprintln(w, "(no models selected)")
		return nil
	}
	if err := t.Write(w, o.width()); err != nil {
		return err
	}
	for _, n := range notes {
		para(w, "", n, o.width())
	}
	return nil
}

// rowCount is row_count: one environment, so no change column.
func rowCount(w io.Writer, out *diff.RowCountResult, o Options) error {
	names := make([]string, 0, len(out.Models))
	for n := range out.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		fmt.Fprintln(w, "(no models selected)")
		return nil
	}
	t := Table{Header: []string{"model", "rows (current)"}}
	var notes []string
	for _, n := range names {
		c := out.Models[n]
		t.Add(n, IntP(c.Current, c.CurrentMeta.Status))
		if c.CurrentMeta.Status != diff.StatusOK && c.CurrentMeta.Message != "" {
			notes = append(notes, fmt.Sprintf("%s: %s: %s", n, c.CurrentMeta.Status, c.CurrentMeta.Message))
		}
	}
	if err := t.Write(w, o.width()); err != nil {
		return err
	}
	for _, n := range notes {
		para(w, "", n, o.width())
	}
	return nil
}

// profile is the single-environment profile: current's frame as a table.
func profile(w io.Writer, out *diff.ProfileResult, o Options) error {
	f := out.Current
	if f == nil {
		f = &frame.Frame{}
	}
	fmt.Fprintln(w, "profile of current (one row per column)")
	return frameTable(w, f, o, "pass --columns to profile fewer columns")
}

// deltaOnly is the signed change of a count with its percentage: "+3
// (+0.3%)", "=" when equal.
func deltaOnly(base, current int64) string {
	d := current - base
	switch {
	case d == 0:
		return "="
	case base == 0:
		return Signed(d)
	}
	return Signed(d) + " (" + Pct(100*float64(d)/float64(base)) + ")"
}

// cell formats one frame value as the warehouse returned it: numbers
// exactly (no separators: they may be ids or years), NULL spelled out.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return strings.ReplaceAll(x, "\n", `\n`)
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		return x.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// number reads a numeric frame value (int64, float64 or json.Number).
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// count formats a numeric frame value that Ripple computed (a count) with
// thousands separators.
func count(v any) string {
	f, ok := number(v)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return cell(v)
	}
	return Int(int64(f))
}

// moreRows says what a capped table left out and how to see it: hint is
// the command's own way to widen the cap ("" when it has none).
func moreRows(w io.Writer, shown int, f *frame.Frame, hint string, width int) {
	if left := len(f.Data) - shown; left > 0 {
		fmt.Fprintf(w, "… %s more rows (all of them with --json)\n", Int(int64(left)))
	}
	if f.More {
		what := "more rows exist"
		if f.TotalRowCount != nil {
			what = fmt.Sprintf("%s rows in all", Int(*f.TotalRowCount))
		}
		var line string
		switch {
		case f.Truncated:
			line = fmt.Sprintf("result cut at the byte cap (--max-result-bytes) after %s rows: %s", Int(int64(len(f.Data))), what)
		case f.Limit != nil:
			line = fmt.Sprintf("result capped at %s rows: %s", Int(int64(*f.Limit)), what)
		default:
			line = "result capped: " + what
		}
		if hint != "" {
			line += " (" + hint + ")"
		}
		para(w, "", line, width)
	}
}

// idLike reports whether a numeric column holds identifiers, which read
// better without thousands separators (order_id 1780, not 1,780).
func idLike(name string) bool {
	n := strings.ToLower(name)
	return n == "id" || strings.HasSuffix(n, "_id") || strings.HasSuffix(n, "_key") || strings.HasSuffix(n, "_pk")
}

// group puts thousands separators into a decimal's integer part, keeping
// its digits exactly: "220122.00" → "220,122.00".
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		sign, s = s[:1], s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	if whole == "" || strings.Trim(whole, "0123456789") != "" {
		return sign + s
	}
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// frameCell formats a value of column c: numbers (other than ids) with
// thousands separators, every digit kept.
func frameCell(c frame.Column, v any) string {
	switch c.Type {
	case frame.Integer, frame.Number, frame.Float:
		if _, ok := number(v); ok && !idLike(c.Name) {
			return group(cell(v))
		}
	}
	return cell(v)
}

// frameTable prints a frame's first o.limit() rows as a table. A frame
// with in_a/in_b columns (a diff) gets one leading "side" column instead,
// and with keys its columns are ordered keys, then the columns that differ
// between a key's base and current rows, then the rest. Columns that do
// not fit the width are named below the table.
func frameTable(w io.Writer, f *frame.Frame, o Options, hint string, keys ...string) error {
	if f == nil {
		_, err := io.WriteString(w, "(no result)\n")
		return err
	}
	ia, ib := f.Index("in_a"), f.Index("in_b")
	sided := ia >= 0 && ib >= 0
	shown := min(len(f.Data), o.limit())
	var cols []int
	for i := range f.Columns {
		if !sided || (i != ia && i != ib) {
			cols = append(cols, i)
		}
	}
	cells := make([][]string, shown)
	sides := make([]string, shown)
	for r, row := range f.Data[:shown] {
		cells[r] = make([]string, len(f.Columns))
		for _, i := range cols {
			cells[r][i] = frameCell(f.Columns[i], row[i])
		}
		if sided {
			switch {
			case row[ia] == true && row[ib] == true:
				sides[r] = "both"
			case row[ia] == true:
				sides[r] = "base"
			default:
				sides[r] = "current"
			}
		}
	}
	if sided && len(keys) > 0 {
		cols = diffOrder(f, cols, cells, sides, keys)
	}
	// Fit the columns to the width, in order; the first always shows.
	used := 0
	if sided {
		used = len("current") + 2
	}
	var fit, left []int
	for n, i := range cols {
		wd := utf8.RuneCountInString(f.Columns[i].Name)
		for r := range cells {
			wd = max(wd, utf8.RuneCountInString(cells[r][i]))
		}
		if n > 0 && used+wd > o.width() {
			left = append(left, cols[n:]...)
			break
		}
		used += wd + 2
		fit = append(fit, i)
	}
	var t Table
	if sided {
		t.Header = append(t.Header, "side")
	}
	for _, i := range fit {
		t.Header = append(t.Header, f.Columns[i].Name)
	}
	for r := range cells {
		var row []string
		if sided {
			row = append(row, sides[r])
		}
		for _, i := range fit {
			row = append(row, cells[r][i])
		}
		t.Add(row...)
	}
	if len(f.Data) == 0 {
		fmt.Fprintln(w, "(no rows)")
	} else if err := t.Write(w, o.width()); err != nil {
		return err
	}
	moreRows(w, shown, f, hint, o.width())
	if len(left) > 0 && len(f.Data) > 0 {
		names := make([]string, len(left))
		for n, i := range left {
			names[n] = f.Columns[i].Name
		}
		para(w, "", fmt.Sprintf("%d more column%s, too wide to show (all of them with --json): %s", len(left), pluralS(len(left)), strings.Join(names, ", ")), o.width())
	}
	return nil
}

// diffOrder orders a diff's columns: keys, then the columns whose base and
// current values differ for some key among the shown rows, then the rest.
func diffOrder(f *frame.Frame, cols []int, cells [][]string, sides []string, keys []string) []int {
	isKey := map[int]bool{}
	var keyCols []int
	for _, k := range keys {
		if i := f.Index(k); i >= 0 {
			isKey[i] = true
			keyCols = append(keyCols, i)
		}
	}
	if len(keyCols) != len(keys) {
		return cols
	}
	type pair struct{ base, current []string }
	byKey := map[string]*pair{}
	for r := range cells {
		var kb strings.Builder
		for _, i := range keyCols {
			kb.WriteString(cells[r][i])
			kb.WriteByte(0)
		}
		p := byKey[kb.String()]
		if p == nil {
			p = &pair{}
			byKey[kb.String()] = p
		}
		switch sides[r] {
		case "base":
			p.base = cells[r]
		case "current":
			p.current = cells[r]
		}
	}
	changed := map[int]bool{}
	for _, p := range byKey {
		if p.base == nil || p.current == nil {
			continue
		}
		for _, i := range cols {
			if p.base[i] != p.current[i] {
				changed[i] = true
			}
		}
	}
	out := append([]int(nil), keyCols...)
	for _, i := range cols {
		if changed[i] && !isKey[i] {
			out = append(out, i)
		}
	}
	for _, i := range cols {
		if !changed[i] && !isKey[i] {
			out = append(out, i)
		}
	}
	return out
}

func rowsLine(f *frame.Frame) string {
	n := int64(len(f.Data))
	s := Int(n) + " rows"
	if n == 1 {
		s = "1 row"
	}
	if f.More && f.TotalRowCount != nil {
		s += " of " + Int(*f.TotalRowCount)
	}
	return s
}

func schemaDiff(w io.Writer, out *diff.SchemaDiffResult, o Options) error {
	cov := out.Coverage
	f := out.Frame
	if f == nil {
		f = &frame.Frame{}
	}
	switch {
	case len(f.Data) == 0 && cov.Status == diff.CoverageComplete:
		fmt.Fprintln(w, "no schema change (every selected node compared)")
	case len(f.Data) == 0:
		fmt.Fprintf(w, "no schema change found, but coverage is %s: not evidence that nothing changed\n", cov.Status)
	default:
		n := len(f.Data)
		fmt.Fprintf(w, "%s column change%s\n", Int(int64(n)), pluralS(n))
		col := func(row []any, key string) string {
			if i := f.Index(key); i >= 0 && row[i] != nil {
				return cell(row[i])
			}
			return ""
		}
		t := Table{Header: []string{"node", "column", "change", "base type", "current type"}}
		shown := min(n, o.limit())
		for _, row := range f.Data[:shown] {
			t.Add(col(row, "node_id"), col(row, "column"), col(row, "change_status"), dash(col(row, "base_type")), dash(col(row, "current_type")))
		}
		if err := t.Write(w, o.width()); err != nil {
			return err
		}
		moreRows(w, shown, f, "raise --limit", o.width())
	}
	if cov.UncheckedNodeCount > 0 {
		fmt.Fprintf(w, "coverage %s: %s node%s without column metadata not compared: %s",
			cov.Status, Int(int64(cov.UncheckedNodeCount)), pluralS(cov.UncheckedNodeCount), strings.Join(cov.UncheckedNodes, ", "))
		if cov.More {
			fmt.Fprint(w, ", …")
		}
		fmt.Fprintln(w)
	}
	return nil
}

func query(w io.Writer, out *diff.QueryResult, o Options) error {
	f := out.Frame
	if f == nil {
		f = &frame.Frame{}
	}
	fmt.Fprintln(w, rowsLine(f))
	return frameTable(w, f, o, "add a WHERE or LIMIT, or aggregate")
}

func queryDiff(w io.Writer, out *diff.QueryDiffResult, o Options) error {
	Warn(w, out.Warning)
	if out.Diff != nil {
		if s := out.Summary; s != nil {
			fmt.Fprintf(w, "by key: %s added, %s removed, %s changed\n", Int(s.Added), Int(s.Removed), Int(s.Changed))
		}
		if len(out.Diff.Data) == 0 {
			fmt.Fprintln(w, "no differing rows")
			return nil
		}
		fmt.Fprintf(w, "differing rows: %s (a changed key shows its base and its current row)\n", rowsLine(out.Diff))
		return frameTable(w, out.Diff, o, "")
	}
	if out.Base != nil && out.Current != nil && reflect.DeepEqual(out.Base.Data, out.Current.Data) {
		if !out.Base.More && !out.Current.More {
			fmt.Fprintf(w, "base and current return the same %s\n", rowsLine(out.Current))
			return frameTable(w, out.Current, o, "")
		}
		// Capped results that agree on their first rows prove nothing
		// about the rest (the CI verdict refuses them too).
		para(w, "", fmt.Sprintf("base and current agree on their first %s rows, but the results are capped: not compared in full "+
			"(pass --primary-keys to diff every row in the warehouse)", Int(int64(len(out.Current.Data)))), o.width())
		return frameTable(w, out.Current, o, "")
	}
	for _, side := range []struct {
		name string
		f    *frame.Frame
	}{{"base", out.Base}, {"current", out.Current}} {
		if side.f == nil {
			fmt.Fprintf(w, "%s: (no result)\n", side.name)
			continue
		}
		fmt.Fprintf(w, "%s: %s\n", side.name, rowsLine(side.f))
		if err := frameTable(w, side.f, o, "pass --primary-keys to diff in the warehouse"); err != nil {
			return err
		}
	}
	if out.Base != nil && out.Current != nil {
		fmt.Fprintln(w, "the results differ (pass --primary-keys to see which rows)")
	}
	return nil
}

func valueDiff(w io.Writer, out *diff.ValueDiffResult, o Options) error {
	Warn(w, out.Warning)
	s := out.Summary
	fmt.Fprintf(w, "%s keys (%s): %s added, %s removed, %s changed", Int(s.Total), strings.Join(out.PrimaryKey, ", "),
		Int(s.Added), Int(s.Removed), Int(s.Changed))
	if s.Total > 0 && s.Changed > 0 {
		fmt.Fprintf(w, " (%s)", share(float64(s.Changed)/float64(s.Total)))
	}
	fmt.Fprintln(w)
	f := out.Data
	if f == nil || len(f.Data) == 0 {
		fmt.Fprintln(w, "(no columns compared)")
		return nil
	}
	get := func(row []any, key string) any {
		if i := f.Index(key); i >= 0 {
			return row[i]
		}
		return nil
	}
	shown := min(len(f.Data), o.limit())
	// The NULL columns show only when some column gained or lost NULLs.
	nulls := false
	for _, row := range f.Data[:shown] {
		for _, k := range []string{"null_in_base_only", "null_in_current_only"} {
			if n, ok := number(get(row, k)); ok && n != 0 {
				nulls = true
			}
		}
	}
	t := Table{Header: []string{"column", "matched", "matched %"}}
	if nulls {
		t.Header = append(t.Header, "NULL in base only", "NULL in current only")
	}
	t.Header = append(t.Header, "mean: base → current")
	for _, row := range f.Data[:shown] {
		p := "—"
		if v, ok := number(get(row, "matched_p")); ok {
			p = share(v)
		}
		mean := ""
		b, okb := number(get(row, "base_mean"))
		c, okc := number(get(row, "current_mean"))
		switch {
		case okb && okc && b == c:
			mean = sig(b, 6) + " (=)"
		case okb && okc:
			bs, cs := sigPair(b, c)
			mean = bs + " → " + cs
			if b != 0 {
				mean += " (" + Pct(100*(c-b)/math.Abs(b)) + ")"
			}
		case okb:
			mean = sig(b, 6) + " → NULL"
		case okc:
			mean = "NULL → " + sig(c, 6)
		}
		cells := []string{cell(get(row, "column")), count(get(row, "matched")), p}
		if nulls {
			cells = append(cells, count(get(row, "null_in_base_only")), count(get(row, "null_in_current_only")))
		}
		t.Add(append(cells, mean)...)
	}
	if err := t.Write(w, o.width()); err != nil {
		return err
	}
	moreRows(w, shown, f, "", o.width())
	if !nulls {
		fmt.Fprintln(w, "no column gained or lost NULLs")
	}
	if s.Changed > 0 {
		fmt.Fprintln(w, "the changed rows: value-diff-detail with the same --model and --primary-key")
	}
	return nil
}

// sig rounds a computed value (a mean) to n significant digits, with
// thousands separators: 202.32591768 → "202.326".
func sig(x float64, n int) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	d := math.Pow10(n - 1 - int(math.Floor(math.Log10(math.Abs(x)))))
	return group(strconv.FormatFloat(math.Round(x*d)/d, 'f', -1, 64))
}

// sigPair rounds two different values to 6 significant digits, or more
// when 6 would make them read the same.
func sigPair(a, b float64) (string, string) {
	n := 6
	for n < 17 && sig(a, n) == sig(b, n) {
		n++
	}
	return sig(a, n), sig(b, n)
}

func valueDiffDetail(w io.Writer, out *diff.ValueDiffDetailResult, o Options) error {
	Warn(w, out.Warning)
	f := out.Frame
	if f == nil || len(f.Data) == 0 {
		fmt.Fprintln(w, "no differing rows")
		return nil
	}
	fmt.Fprintf(w, "differing rows by %s: %s (a changed key shows its base and its current row)\n", strings.Join(out.PrimaryKey, ", "), rowsLine(f))
	return frameTable(w, f, o, "raise --limit", out.PrimaryKey...)
}

// profileMetrics are the profile frame's columns after column_name and
// data_type, with their labels; shares are proportions.
var profileMetrics = []struct{ key, label string }{
	{"row_count", "rows"}, {"not_null_proportion", "not null"}, {"distinct_count", "distinct"}, {"is_unique", "unique"}, {"min", "min"}, {"max", "max"}, {"avg", "avg"}, {"median", "median"},
}

func profileValue(key string, v any) string {
	if v == nil {
		return "—"
	}
	switch key {
	case "row_count", "distinct_count":
		return count(v)
	case "not_null_proportion", "distinct_proportion":
		if p, ok := number(v); ok {
			return share(p)
		}
	case "avg", "median":
		if f, ok := number(v); ok {
			return sig(f, 6)
		}
	case "is_unique":
		if b, ok := v.(bool); ok {
			if b {
				return "yes"
			}
			return "no"
		}
	}
	return cell(v)
}

func profileDiff(w io.Writer, out *diff.ProfileDiffResult, o Options) error {
	Warn(w, out.Warning)
	type side map[string][]any
	index := func(f *frame.Frame) (side, []string) {
		s := side{}
		var order []string
		if f == nil {
			return s, nil
		}
		nc := f.Index("column_name")
		for _, row := range f.Data {
			name := cell(row[nc])
			s[name] = row
			order = append(order, name)
		}
		return s, order
	}
	base, baseOrder := index(out.Base)
	cur, order := index(out.Current)
	for _, n := range baseOrder {
		if _, ok := cur[n]; !ok {
			order = append(order, n)
		}
	}
	switch {
	case out.Base == nil:
		fmt.Fprintln(w, "the model is not in base: current profile only")
	case out.Current == nil:
		fmt.Fprintln(w, "the model is not in current: base profile only")
	}
	get := func(f *frame.Frame, row []any, key string) any {
		if f == nil || row == nil {
			return nil
		}
		if i := f.Index(key); i >= 0 {
			return row[i]
		}
		return nil
	}
	t := Table{Header: []string{"", "column", "type"}}
	for _, m := range profileMetrics {
		t.Header = append(t.Header, m.label)
	}
	var changes []string
	shown := min(len(order), o.limit())
	for _, n := range order[:shown] {
		b, c := base[n], cur[n]
		show, showF := c, out.Current
		if show == nil {
			show, showF = b, out.Base
		}
		mark := ""
		switch {
		case b == nil && out.Base != nil:
			mark, changes = "+", append(changes, n+": only in current")
		case c == nil && out.Current != nil:
			mark, changes = "-", append(changes, n+": only in base")
		}
		typ := cell(get(showF, show, "data_type"))
		row := []string{mark, n, typ}
		for _, m := range profileMetrics {
			cv := get(showF, show, m.key)
			row = append(row, profileValue(m.key, cv))
			if b == nil || c == nil {
				continue
			}
			bv := get(out.Base, b, m.key)
			if !reflect.DeepEqual(bv, get(out.Current, c, m.key)) {
				row[0] = "*"
				bs, cs := profileValue(m.key, bv), profileValue(m.key, cv)
				bf, okb := number(bv)
				cf, okc := number(cv)
				if okb && okc && (m.key == "avg" || m.key == "median") {
					bs, cs = sigPair(bf, cf)
				}
				ch := fmt.Sprintf("%s %s: %s → %s", n, m.label, bs, cs)
				if okb && okc && bf != 0 && m.key != "not_null_proportion" {
					ch += " (" + Pct(100*(cf-bf)/math.Abs(bf)) + ")"
				}
				changes = append(changes, ch)
			}
		}
		if bt := cell(get(out.Base, b, "data_type")); b != nil && c != nil && bt != typ {
			row[0] = "*"
			changes = append(changes, fmt.Sprintf("%s type: %s → %s", n, bt, typ))
		}
		t.Add(row...)
	}
	if len(order) == 0 {
		fmt.Fprintln(w, "(no columns profiled)")
		return nil
	}
	if out.Base != nil && out.Current != nil {
		fmt.Fprintln(w, "current values (* = changed since base, + only in current, - only in base):")
	}
	if err := writeFitted(w, t, o.width()); err != nil {
		return err
	}
	if left := len(order) - shown; left > 0 {
		fmt.Fprintf(w, "… %s more columns (all of them with --json, or pick some with --columns)\n", Int(int64(left)))
	}
	if out.Base == nil || out.Current == nil {
		return nil // one side only: nothing was compared
	}
	if len(changes) == 0 {
		fmt.Fprintln(w, "no change in the profile")
		return nil
	}
	fmt.Fprintln(w, "changes:")
	for _, c := range changes {
		fmt.Fprintln(w, "  "+c)
	}
	return nil
}

func topKDiff(w io.Writer, out *diff.TopKDiffResult, o Options) error {
	Warn(w, out.Warning)
	t := Table{Header: []string{"value", "base", "current", "change"}}
	n := max(len(out.Base.Values), len(out.Current.Values))
	at := func(s []int64, i int) int64 {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	for i := range n {
		var v any
		if i < len(out.Current.Values) {
			v = out.Current.Values[i]
		} else {
			v = out.Base.Values[i]
		}
		b, c := at(out.Base.Counts, i), at(out.Current.Counts, i)
		t.Add(cell(v), Int(b), Int(c), deltaOnly(b, c))
	}
	if n == 0 {
		fmt.Fprintln(w, "(no non-NULL values)")
	} else if err := t.Write(w, o.width()); err != nil {
		return err
	}
	side := func(s diff.TopKSide) string {
		return fmt.Sprintf("%s non-NULL of %s rows", Int(s.Valids), Int(s.Total))
	}
	fmt.Fprintf(w, "base: %s; current: %s\n", side(out.Base), side(out.Current))
	return nil
}

func histogramDiff(w io.Writer, out *diff.HistogramDiffResult, o Options) error {
	Warn(w, out.Warning)
	if len(out.Labels) == 0 {
		fmt.Fprintln(w, "(no non-NULL values)")
		return nil
	}
	at := func(s []int64, i int) int64 {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	var peak int64
	for i := range out.Labels {
		peak = max(peak, at(out.Base.Counts, i), at(out.Current.Counts, i))
	}
	t := Table{Header: []string{"bin", "base", "current", "change", ""}}
	for i, l := range out.Labels {
		b, c := at(out.Base.Counts, i), at(out.Current.Counts, i)
		t.Add(l, Int(b), Int(c), deltaOnly(b, c), "")
	}
	// The bar of the current count fills what the terminal leaves.
	var probe strings.Builder
	if err := t.Write(&probe, 0); err != nil {
		return err
	}
	used := 0
	for _, line := range strings.Split(probe.String(), "\n") {
		used = max(used, len([]rune(line)))
	}
	barWidth := min(40, o.width()-used-2)
	for i := range t.Rows {
		c := at(out.Current.Counts, i)
		if barWidth > 0 && peak > 0 {
			t.Rows[i][4] = strings.Repeat("█", int(math.Round(float64(barWidth)*float64(c)/float64(peak))))
		}
	}
	what := "bins"
	if out.Interval != "" {
		what = out.Interval + "s"
	}
	fmt.Fprintf(w, "%s %s from %s to %s (bars: current)\n", Int(int64(len(out.Labels))), what, cell(out.Min), cell(out.Max))
	if err := t.Write(w, o.width()); err != nil {
		return err
	}
	fmt.Fprintf(w, "non-NULL values: base %s, current %s\n", Int(out.Base.Total), Int(out.Current.Total))
	return nil
}

// para writes prose wrapped at width: the first line starts with prefix,
// the following ones are indented like it (by two spaces after a label).
// A word longer than a line stays whole.
func para(w io.Writer, prefix, text string, width int) {
	cont := "  "
	if strings.TrimSpace(prefix) == "" {
		cont = prefix
	}
	wrap(w, prefix, cont, text, width)
}

// wrap is para with the continuation indent given.
func wrap(w io.Writer, prefix, cont, text string, width int) {
	line := prefix
	fresh := true
	for _, word := range strings.Fields(text) {
		if !fresh && len([]rune(line))+1+len([]rune(word)) > width {
			fmt.Fprintln(w, line)
			line, fresh = cont, true
		}
		if fresh {
			line += word
			fresh = false
		} else {
			line += " " + word
		}
	}
	fmt.Fprintln(w, line)
}

// writeFitted writes t with as many leading columns as fit width and
// names the columns left out, instead of cutting a cell mid-value.
func writeFitted(w io.Writer, t Table, width int) error {
	n := len(t.Header)
	widths := make([]int, n)
	for _, r := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range r {
			if i < n {
				widths[i] = max(widths[i], utf8.RuneCountInString(c))
			}
		}
	}
	keep, used := 0, 0
	for i, wd := range widths {
		if i > 0 && used+wd > width {
			break
		}
		used += wd + 2
		keep = i + 1
	}
	if keep == n {
		return t.Write(w, width)
	}
	cut := Table{Header: t.Header[:keep]}
	for _, r := range t.Rows {
		cut.Add(r[:min(keep, len(r))]...)
	}
	if err := cut.Write(w, width); err != nil {
		return err
	}
	para(w, "", fmt.Sprintf("not shown, too wide (a wider terminal or --json shows them): %s", strings.Join(t.Header[keep:], ", ")), width)
	return nil
}
