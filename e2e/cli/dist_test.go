package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/ripple-data/ripple/internal/demo"
)

// Distribution operations: profile-diff, top-k-diff, histogram-diff. The
// numbers are recomputed in the DuckDB file.

func TestProfileDiff(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "profile-diff", "--model", "orders", "--columns", "amount,STATUS")
	for _, side := range []string{"base", "current"} {
		rows := table(t, get(t, out, side))
		if len(rows) != 2 {
			t.Fatalf("%s: %d columns profiled, want 2", side, len(rows))
		}
		byCol := map[string]map[string]any{}
		for _, r := range rows {
			byCol[r["column_name"].(string)] = r
		}
		a := byCol["amount"]
		if a == nil {
			t.Fatalf("%s: no amount profile: %v", side, rows)
		}
		rel := fmt.Sprintf("%q.orders", side)
		if integer(t, a, "row_count") != demo.NumOrders || float(t, a, "not_null_proportion") != 1 {
			t.Errorf("%s amount rows %v not_null %v", side, a["row_count"], a["not_null_proportion"])
		}
		distinct := dbInt(t, `select count(distinct amount) from `+rel)
		if got := integer(t, a, "distinct_count"); got != distinct {
			t.Errorf("%s amount distinct_count %d, database %d", side, got, distinct)
		}
		if got, w := float(t, a, "distinct_proportion"), float64(distinct)/demo.NumOrders; !near(got, w) {
			t.Errorf("%s distinct_proportion %v, want %v", side, got, w)
		}
		for _, agg := range []string{"min", "max"} {
			if got, db := str(t, a, agg), dbString(t, fmt.Sprintf(`select cast(%s(amount) as varchar) from %s`, agg, rel)); got != db {
				t.Errorf("%s amount %s %s, database %s", side, agg, got, db)
			}
		}
		for _, agg := range []string{"avg", "median"} {
			if got, db := float(t, a, agg), dbFloat(t, fmt.Sprintf(`select %s(cast(amount as double)) from %s`, agg, rel)); !near(got, db) {
				t.Errorf("%s amount %s %v, database %v", side, agg, got, db)
			}
		}
		s := byCol["status"]
		if s == nil || integer(t, s, "distinct_count") != 5 || boolean(t, s, "is_unique") {
			t.Errorf("%s status profile %v", side, s)
		}
	}
	// The revenue change in the means: avg = sum / 10,000 orders.
	for side, rev := range map[string]string{"base": demo.RevenueBase, "current": demo.RevenueCurrent} {
		var f float64
		fmt.Sscan(rev, &f)
		if got := float(t, table(t, get(t, out, side))[0], "avg"); !near(got, f/demo.NumOrders) {
			t.Errorf("%s avg(amount) %v, want %v / %d", side, got, rev, demo.NumOrders)
		}
	}

	t.Run("customers nulls", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "profile-diff", "--model", "customers", "--columns", "customer_lifetime_value")
		for _, side := range []string{"base", "current"} {
			r := table(t, get(t, out, side))[0]
			w := float64(demo.NumCustomers-demo.CustomersWithoutOrder) / demo.NumCustomers
			if got := float(t, r, "not_null_proportion"); !near(got, w) {
				t.Errorf("%s not_null_proportion %v, want %v", side, got, w)
			}
		}
	})
}

func TestTopKDiff(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "top-k-diff", "--model", "orders", "--column-name", "status")
	for _, side := range []string{"base", "current"} {
		vals := strs(t, out, side, "values")
		counts := get(t, out, side, "counts").([]any)
		if len(vals) != 5 || len(counts) != 5 {
			t.Fatalf("%s: %v %v, want the 5 statuses", side, vals, counts)
		}
		for i, v := range vals {
			db := dbInt(t, fmt.Sprintf(`select count(*) from %q.orders where status = ?`, side), v)
			if got := integer(t, counts[i]); got != db {
				t.Errorf("%s %s: %d, database %d", side, v, got, db)
			}
		}
		if integer(t, out, side, "valids") != demo.NumOrders || integer(t, out, side, "total") != demo.NumOrders {
			t.Errorf("%s valids %v total %v", side, get(t, out, side, "valids"), get(t, out, side, "total"))
		}
	}
	if !reflect.DeepEqual(get(t, out, "base"), get(t, out, "current")) {
		t.Errorf("status is unchanged, yet base and current differ")
	}

	t.Run("k", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "top-k-diff", "--model", "orders", "--column-name", "amount", "--k", "3")
		vals := strs(t, out, "current", "values")
		top := dbStrings(t, `select cast(amount as varchar) from "current".orders group by amount order by count(*) desc, amount limit 3`)
		if !sameSet(vals, top) {
			t.Errorf("categories %v, want the 3 most frequent current amounts %v", vals, top)
		}
		if !reflect.DeepEqual(strs(t, out, "base", "values"), vals) {
			t.Errorf("base categories %v differ from current %v: the list is shared", strs(t, out, "base", "values"), vals)
		}
		for _, side := range []string{"base", "current"} {
			for i, v := range vals {
				db := dbInt(t, fmt.Sprintf(`select count(*) from %q.orders where cast(amount as varchar) = ?`, side), v)
				if got := integer(t, out, side, "counts", i); got != db {
					t.Errorf("%s amount %s: %d, database %d", side, v, got, db)
				}
			}
		}
	})
	t.Run("added model", func(t *testing.T) {
		t.Parallel()
		// customer_segments is new: a diff has no base side, so the
		// operation says so and points at query; query gives the demo's
		// segment counts (medium 1246, high 290, low 262, prospect 202).
		r := ripple(t, "top-k-diff", "--model", "customer_segments", "--column-name", "segment", "--json")
		if r.code != 1 || !bytes.Contains(r.stderr, []byte("not in the base manifest")) || !bytes.Contains(r.stderr, []byte("use query")) {
			t.Fatalf("top-k-diff of an added model must fail clearly and point at query:\n%s", r)
		}
		q := ripple(t, "query", "--sql", "select segment, count(*) as n from {{ ref('customer_segments') }} group by segment order by segment", "--json")
		out, _ := decodeOnly(t, q).(map[string]any)
		rows, _ := out["data"].([]any)
		got := map[string]int64{}
		for _, row := range rows {
			cells := row.([]any)
			n, err := strconv.ParseInt(fmt.Sprint(cells[1]), 10, 64)
			if err != nil {
				t.Fatalf("count %v: %v", cells[1], err)
			}
			got[cells[0].(string)] = n
		}
		want := map[string]int64{"medium": demo.SegmentsMedium, "high": demo.SegmentsHigh, "low": demo.SegmentsLow, "prospect": demo.SegmentsProspect}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("segments %v, want %v", got, want)
		}
	})
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

func TestHistogramDiff(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "histogram-diff", "--model", "orders", "--column-name", "amount", "--num-bins", "5")
	var edges []float64
	for _, e := range get(t, out, "bin_edges").([]any) {
		f, _ := e.(json.Number).Float64()
		edges = append(edges, f)
	}
	if len(edges) != 6 {
		t.Fatalf("%d edges, want 6", len(edges))
	}
	lo := dbFloat(t, `select cast(least((select min(amount) from "base".orders), (select min(amount) from "current".orders)) as double)`)
	hi := dbFloat(t, `select cast(greatest((select max(amount) from "base".orders), (select max(amount) from "current".orders)) as double)`)
	if !near(edges[0], lo) || !near(edges[5], hi) || !near(float(t, out, "min"), lo) || !near(float(t, out, "max"), hi) {
		t.Errorf("edges %v min %v max %v, want shared %v..%v", edges, get(t, out, "min"), get(t, out, "max"), lo, hi)
	}
	for _, side := range []string{"base", "current"} {
		counts := get(t, out, side, "counts").([]any)
		var sum int64
		for i := range 5 {
			cmp := "<"
			if i == 4 {
				cmp = "<="
			}
			db := dbInt(t, fmt.Sprintf(`select count(*) from %q.orders where amount >= %v and amount %s %v`, side, edges[i], cmp, edges[i+1]))
			got := integer(t, counts[i])
			sum += got
			if got != db {
				t.Errorf("%s bin %d [%v, %v): %d, database %d", side, i, edges[i], edges[i+1], got, db)
			}
		}
		if sum != demo.NumOrders || integer(t, out, side, "total") != demo.NumOrders {
			t.Errorf("%s: bins sum to %d, total %v; want %d", side, sum, get(t, out, side, "total"), demo.NumOrders)
		}
	}

	t.Run("dates", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "histogram-diff", "--model", "orders", "--column-name", "order_date")
		labels := strs(t, out, "labels")
		months := dbStrings(t, `select strftime(order_date, '%Y-%m') from "current".orders group by 1 order by 1`)
		if !reflect.DeepEqual(labels, months) {
			t.Errorf("labels %v, want the months %v", labels, months)
		}
		for i, m := range months {
			db := dbInt(t, `select count(*) from "current".orders where strftime(order_date, '%Y-%m') = ?`, m)
			if got := integer(t, out, "current", "counts", i); got != db {
				t.Errorf("%s: %d, database %d", m, got, db)
			}
		}
		if !reflect.DeepEqual(get(t, out, "base"), get(t, out, "current")) {
			t.Error("order_date is unchanged, yet the histograms differ")
		}
	})
	t.Run("categorical column", func(t *testing.T) {
		t.Parallel()
		r := ripple(t, "histogram-diff", "--model", "orders", "--column-name", "status", "--json")
		wantError(t, r, 1, true, "VARCHAR", "top_k_diff")
	})
}
