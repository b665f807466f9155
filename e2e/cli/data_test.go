package cli_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/demo"
)

// The warehouse operations: row-count-diff, value-diff, value-diff-detail,
// query, query-diff. Every number is asserted against the demo constants and
// against the DuckDB file queried directly.

func TestRowCountDiff(t *testing.T) {
	t.Parallel()
	all := rippleJSON(t, "row-count-diff")
	// The peer's flat map: {<model>: {base, curr, base_meta, curr_meta}, run_id}.
	models := map[string]any{}
	for k, v := range all {
		if k != "run_id" {
			models[k] = v
		}
	}
	want := demo.RowCounts()
	for name, counts := range want {
		if strings.HasPrefix(name, "raw_") {
			continue // seeds: checked below
		}
		for i, side := range []string{"base", "current"} {
			key := map[string]string{"base": "base", "current": "curr"}[side]
			got := integer(t, models, name, key)
			if got != counts[i] {
				t.Errorf("%s %s: %d rows, want %d", name, side, got, counts[i])
			}
			// Independently: the relation in the DuckDB file.
			direct := int64(-1)
			if relExists(t, side, name) {
				direct = dbInt(t, fmt.Sprintf(`select count(*) from %q.%q`, side, name))
			}
			if got != direct {
				t.Errorf("%s %s: ripple says %d rows, the database has %d", name, side, got, direct)
			}
			status := str(t, models, name, key+"_meta", "status")
			wantStatus := "ok"
			if counts[i] < 0 {
				wantStatus = "not_in_manifest"
			}
			if status != wantStatus {
				t.Errorf("%s %s status %q, want %q", name, side, status, wantStatus)
			}
		}
	}
	for _, seed := range []string{"raw_customers", "raw_orders", "raw_payments"} {
		for _, side := range []string{"base", "curr"} {
			if integer(t, models, seed, side) != -1 || str(t, models, seed, side+"_meta", "status") != "unsupported_resource_type" {
				t.Errorf("seed %s %s: %v, want null with unsupported_resource_type", seed, side, get(t, models, seed))
			}
		}
	}
	var names []string
	for n := range models {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) != len(want) {
		t.Errorf("models %v, want the %d relations of demo.RowCounts", names, len(want))
	}

	t.Run("node names, positional and selector agree", func(t *testing.T) {
		t.Parallel()
		byFlag := rippleJSON(t, "row-count-diff", "--node-names", "orders,customers,stg_payments")
		positional := rippleJSON(t, "row-count-diff", "orders", "customers", "stg_payments")
		if !reflect.DeepEqual(dropRunIDs(byFlag), dropRunIDs(positional)) {
			t.Errorf("--node-names and positional arguments differ:\n%v\n%v", byFlag, positional)
		}
		for name, n := range map[string]int64{"orders": demo.NumOrders, "customers": demo.NumCustomers, "stg_payments": demo.RawPayments} {
			if integer(t, byFlag, name, "base") != n || integer(t, byFlag, name, "curr") != n {
				t.Errorf("%s: %v, want %d on both sides", name, get(t, byFlag, name), n)
			}
		}
		if got := len(dropRunIDs(byFlag).(map[string]any)); got != 3 {
			t.Errorf("%d models, want 3", got)
		}
		sel := rippleJSON(t, "row-count-diff", "--select", "state:modified")
		got := keys(dropRunIDs(sel).(map[string]any))
		sort.Strings(got)
		if w := []string{"customer_orders_legacy", "customer_segments", "customers", "daily_orders", "stg_payments"}; !reflect.DeepEqual(got, w) {
			t.Errorf("--select state:modified counted %v, want %v", got, w)
		}
		if integer(t, sel, "customer_orders_legacy", "base") != demo.LegacyRows || integer(t, sel, "customer_segments", "curr") != demo.NumCustomers {
			t.Errorf("added/removed counts: %v", sel)
		}
	})

	t.Run("profiles.yml instead of --duckdb", func(t *testing.T) {
		t.Parallel()
		// The demo writes a profiles.yml pointing at its DuckDB file.
		r := execRipple(t, "--project-dir", suite.demoDir, "row-count-diff", "orders", "--json")
		if r.code != 0 {
			t.Fatalf("%s", r)
		}
		v := decodeOnly(t, r)
		if integer(t, v, "orders", "curr") != demo.NumOrders {
			t.Errorf("orders through profiles.yml: %v", get(t, v, "orders"))
		}
	})
}

// matchedInDB counts orders rows whose column is the same on both sides.
func matchedInDB(t *testing.T, table, key, col string) int64 {
	return dbInt(t, fmt.Sprintf(`select count(*) from "base".%q b join "current".%q c using (%q) where b.%q is not distinct from c.%q`, table, table, key, col, col))
}

func TestValueDiffOrders(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "value-diff", "--model", "orders", "--primary-key", "order_id")
	sum := get(t, out, "summary")
	for k, want := range map[string]int64{"total": demo.NumOrders, "added": 0, "removed": 0, "changed": demo.OrdersChanged} {
		if got := integer(t, sum, k); got != want {
			t.Errorf("summary.%s = %d, want %d", k, got, want)
		}
	}
	if got := strs(t, out, "primary_key"); !reflect.DeepEqual(got, []string{"order_id"}) {
		t.Errorf("primary_key %v", got)
	}
	// Independently: rows of base except current.
	if n := dbInt(t, `select count(*) from (select * from "base".orders except select * from "current".orders)`); n != demo.OrdersChanged {
		t.Errorf("database: %d changed rows, want %d", n, demo.OrdersChanged)
	}
	wantMatched := map[string]int64{
		"order_id": demo.NumOrders, "customer_id": demo.NumOrders, "order_date": demo.NumOrders, "status": demo.NumOrders,
		"amount":               demo.NumOrders - demo.OrdersChanged,
		"credit_card_amount":   demo.NumOrders - demo.OrdersCreditCardChanged,
		"coupon_amount":        demo.NumOrders - demo.OrdersCouponChanged,
		"bank_transfer_amount": demo.NumOrders - demo.OrdersBankTransferChanged,
		"gift_card_amount":     demo.NumOrders - demo.OrdersGiftCardChanged,
	}
	rows := table(t, get(t, out, "data"))
	var order []string
	for _, row := range rows {
		col := row["column"].(string)
		order = append(order, col)
		want, ok := wantMatched[col]
		if !ok {
			t.Errorf("unexpected column %q", col)
			continue
		}
		if got := integer(t, row, "matched"); got != want {
			t.Errorf("%s: matched %d, want %d", col, got, want)
		}
		if db := matchedInDB(t, "orders", "order_id", col); db != want {
			t.Errorf("%s: database says %d matched, want %d", col, db, want)
		}
		if got, w := float(t, row, "matched_p"), float64(want)/demo.NumOrders; !near(got, w) {
			t.Errorf("%s: matched_p %v, want %v", col, got, w)
		}
		if integer(t, row, "null_in_base_only") != 0 || integer(t, row, "null_in_current_only") != 0 {
			t.Errorf("%s: nulls on one side only: %v", col, row)
		}
		switch col {
		case "order_id", "order_date", "status": // key, date, text: no mean
			if row["base_mean"] != nil || row["current_mean"] != nil {
				t.Errorf("%s: means %v %v, want null", col, row["base_mean"], row["current_mean"])
			}
		default:
			for _, side := range []string{"base", "current"} {
				db := dbFloat(t, fmt.Sprintf(`select avg(%q)::double from %q.orders`, col, side))
				if got := float(t, row, side+"_mean"); !near(got, db) {
					t.Errorf("%s %s_mean %v, database %v", col, side, got, db)
				}
			}
		}
	}
	if len(rows) != len(wantMatched) {
		t.Errorf("columns %v, want %d", order, len(wantMatched))
	}

	t.Run("columns", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "value-diff", "--model", "orders", "--primary-key", "order_id", "--columns", "AMOUNT")
		rows := table(t, get(t, out, "data"))
		got := map[string]int64{}
		for _, r := range rows {
			got[r["column"].(string)] = integer(t, r, "matched")
		}
		want := map[string]int64{"order_id": demo.NumOrders, "amount": demo.NumOrders - demo.OrdersChanged}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("--columns AMOUNT: matched %v, want %v", got, want)
		}
		if integer(t, out, "summary", "changed") != demo.OrdersChanged {
			t.Errorf("summary %v", get(t, out, "summary"))
		}
	})
}

func TestValueDiffCustomersAndPayments(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "value-diff", "--model", "model.jaffle_shop.customers", "--primary-key", "customer_id")
	if integer(t, out, "summary", "changed") != demo.CustomersValueChanged || integer(t, out, "summary", "total") != demo.NumCustomers {
		t.Errorf("customers summary %v, want %d of %d changed", get(t, out, "summary"), demo.CustomersValueChanged, demo.NumCustomers)
	}
	seen := map[string]bool{}
	for _, row := range table(t, get(t, out, "data")) {
		col := row["column"].(string)
		seen[col] = true
		want := int64(demo.NumCustomers)
		if col == "customer_lifetime_value" {
			want -= demo.CustomersValueChanged // the 202 NULL-on-both-sides rows match
		}
		if got := integer(t, row, "matched"); got != want {
			t.Errorf("customers.%s matched %d, want %d", col, got, want)
		}
		if db := matchedInDB(t, "customers", "customer_id", col); db != want {
			t.Errorf("customers.%s: database says %d matched, want %d", col, db, want)
		}
	}
	if seen["full_name"] {
		t.Error("full_name (current only) must not be compared")
	}
	if len(seen) != 7 {
		t.Errorf("compared columns %v, want the 7 columns present on both sides", seen)
	}
	if n := dbInt(t, `select count(*) from "current".customers where customer_lifetime_value is null`); n != demo.CustomersWithoutOrder {
		t.Errorf("database: %d customers without orders, want %d", n, demo.CustomersWithoutOrder)
	}

	t.Run("payment_method_summary is identical", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "value-diff", "--model", "payment_method_summary", "--primary-key", "payment_method")
		for k, want := range map[string]int64{"total": demo.PaymentMethodRows, "added": 0, "removed": 0, "changed": 0} {
			if got := integer(t, out, "summary", k); got != want {
				t.Errorf("summary.%s = %d, want %d", k, got, want)
			}
		}
	})
	t.Run("order_status_events has no key", func(t *testing.T) {
		t.Parallel()
		// 10,000 rows, 9,964 distinct: even all three columns are no key.
		if n := dbInt(t, `select count(*) from (select distinct * from "current".order_status_events)`); n != demo.StatusEventsDistinct {
			t.Errorf("database: %d distinct rows, want %d", n, demo.StatusEventsDistinct)
		}
		dups := dbInt(t, `select count(*) from (select order_date, status, customer_id from "base".order_status_events group by all having count(*) > 1)`)
		r := ripple(t, "value-diff", "--model", "order_status_events", "--primary-key", "order_date,status,customer_id", "--json")
		wantError(t, r, 1, true, fmt.Sprintf("%d key values occur more than once", dups))
	})
	t.Run("daily_orders is identical", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "value-diff", "--model", "daily_orders", "--primary-key", "order_date")
		if integer(t, out, "summary", "total") != demo.DailyOrdersRows || integer(t, out, "summary", "changed") != 0 {
			t.Errorf("daily_orders summary %v, want %d rows, 0 changed", get(t, out, "summary"), demo.DailyOrdersRows)
		}
	})
}

func TestValueDiffDetail(t *testing.T) {
	t.Parallel()
	capped := rippleJSON(t, "value-diff-detail", "--model", "orders", "--primary-key", "order_id", "--limit", "3")
	if n := len(get(t, capped, "data").([]any)); n != 3 {
		t.Errorf("--limit 3 returned %d rows", n)
	}
	if !boolean(t, capped, "more") || integer(t, capped, "limit") != 3 {
		t.Errorf("more=%v limit=%v, want true and 3", get(t, capped, "more"), get(t, capped, "limit"))
	}
	// Each changed row appears twice: its base version and its current one.
	if got := integer(t, capped, "total_row_count"); got != 2*demo.OrdersChanged {
		t.Errorf("total_row_count %d, want %d", got, 2*demo.OrdersChanged)
	}

	def := rippleJSON(t, "value-diff-detail", "--model", "orders", "--primary-key", "order_id")
	if n := len(get(t, def, "data").([]any)); n != 1000 || !boolean(t, def, "more") {
		t.Errorf("default cap: %d rows, more=%v; want 1000 and true", n, get(t, def, "more"))
	}

	all := rippleJSON(t, "value-diff-detail", "--model", "orders", "--primary-key", "order_id", "--limit", "20000")
	rows := table(t, all)
	if len(rows) != 2*demo.OrdersChanged || boolean(t, all, "more") {
		t.Fatalf("%d rows, more=%v; want %d and false", len(rows), boolean(t, all, "more"), 2*demo.OrdersChanged)
	}
	firstCol := str(t, all, "columns", 0, "key")
	if firstCol != "order_id" {
		t.Errorf("first column %q, want the key order_id", firstCol)
	}
	sides := map[string][2]bool{}
	for _, r := range rows {
		k := r["order_id"].(json.Number).String()
		s := sides[k]
		if r["in_a"] == true && r["in_b"] == false {
			s[0] = true
		} else if r["in_a"] == false && r["in_b"] == true {
			s[1] = true
		} else {
			t.Errorf("order %s: in_a=%v in_b=%v", k, r["in_a"], r["in_b"])
		}
		sides[k] = s
	}
	for k, s := range sides {
		if !s[0] || !s[1] {
			t.Errorf("order %s appears on one side only: %v", k, s)
		}
	}
	var got []string
	for k := range sides {
		got = append(got, k)
	}
	sort.Strings(got)
	want := dbStrings(t, `select cast(order_id as varchar) from "base".orders b join "current".orders c using (order_id) where b.amount is distinct from c.amount order by 1`)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changed order ids differ from the database: %d vs %d", len(got), len(want))
	}
	// Order 1 is the first changed row: check its amounts against the database.
	for _, r := range rows[:2] {
		side := "base"
		if r["in_b"] == true {
			side = "current"
		}
		id := r["order_id"].(json.Number).String()
		db := dbString(t, fmt.Sprintf(`select cast(amount as varchar) from %q.orders where order_id = %s`, side, id))
		if got := r["amount"].(json.Number).String(); got != db {
			t.Errorf("order %s %s amount %s, database %s", id, side, got, db)
		}
	}
}

func TestQuery(t *testing.T) {
	t.Parallel()
	const revenue = "select sum(amount) as revenue from {{ ref('orders') }}"
	for _, tc := range []struct {
		args   []string
		schema string
		want   string
	}{
		{[]string{"query", "--sql-template", revenue}, "current", demo.RevenueCurrent},
		{[]string{"query", "--sql-template", revenue, "--base"}, "base", demo.RevenueBase},
		{[]string{"query", revenue}, "current", demo.RevenueCurrent}, // positional
	} {
		out := rippleJSON(t, tc.args...)
		if got := get(t, out, "data", 0, 0).(json.Number).String(); got != tc.want {
			t.Errorf("%v: revenue %s, want %s", tc.args, got, tc.want)
		}
		if db := dbString(t, fmt.Sprintf(`select cast(sum(amount) as varchar) from %q.orders`, tc.schema)); db != tc.want {
			t.Errorf("database %s revenue %s, want %s", tc.schema, db, tc.want)
		}
		if s := str(t, out, "sql"); !strings.Contains(s, fmt.Sprintf(`"%s"."orders"`, tc.schema)) || strings.Contains(s, "{{") {
			t.Errorf("%v: resolved sql %q does not name the %s relation", tc.args, s, tc.schema)
		}
		if integer(t, out, "total_row_count") != 1 || boolean(t, out, "more") {
			t.Errorf("%v: total_row_count %v more %v", tc.args, get(t, out, "total_row_count"), boolean(t, out, "more"))
		}
	}

	t.Run("row cap", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "query", "--sql-template", "select * from {{ ref('orders') }}")
		if n := len(get(t, out, "data").([]any)); n != 2000 {
			t.Errorf("%d rows, want the 2,000 cap", n)
		}
		if !boolean(t, out, "more") || integer(t, out, "total_row_count") != demo.NumOrders || integer(t, out, "limit") != 2000 {
			t.Errorf("more=%v total_row_count=%v limit=%v", get(t, out, "more"), get(t, out, "total_row_count"), get(t, out, "limit"))
		}
	})
	t.Run("segments", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "query", "--sql-template", "select segment, count(*) as n from {{ ref('customer_segments') }} group by segment order by segment")
		got := map[string]int64{}
		for _, r := range table(t, out) {
			got[r["segment"].(string)] = integer(t, r, "n")
		}
		want := map[string]int64{"high": demo.SegmentsHigh, "low": demo.SegmentsLow, "medium": demo.SegmentsMedium, "prospect": demo.SegmentsProspect}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("segments %v, want %v", got, want)
		}
	})
}

func TestQueryDiff(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "query-diff", "--sql-template", "select sum(amount) as revenue, count(*) as n from {{ ref('orders') }}")
	for side, want := range map[string]string{"base": demo.RevenueBase, "current": demo.RevenueCurrent} {
		if got := get(t, out, side, "data", 0, 0).(json.Number).String(); got != want {
			t.Errorf("%s revenue %s, want %s", side, got, want)
		}
		if n := integer(t, out, side, "data", 0, 1); n != demo.NumOrders {
			t.Errorf("%s count %d", side, n)
		}
	}
	if get(t, out, "diff") != nil {
		t.Errorf("diff without primary keys: %v, want null", get(t, out, "diff"))
	}

	t.Run("base_sql", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "query-diff", "--sql-template", "select count(*) as n from {{ ref('customer_segments') }}",
			"--base-sql", "select count(*) as n from {{ ref('customer_orders_legacy') }}")
		if b, c := integer(t, out, "base", "data", 0, 0), integer(t, out, "current", "data", 0, 0); b != demo.LegacyRows || c != demo.NumCustomers {
			t.Errorf("base %d current %d, want %d and %d", b, c, demo.LegacyRows, demo.NumCustomers)
		}
	})

	t.Run("primary keys", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "query-diff", "--sql-template", "select order_id, amount from {{ ref('orders') }}", "--primary-keys", "order_id")
		for k, want := range map[string]int64{"added": 0, "removed": 0, "changed": demo.OrdersChanged} {
			if got := integer(t, out, "summary", k); got != want {
				t.Errorf("summary.%s = %d, want %d", k, got, want)
			}
		}
		rows := table(t, get(t, out, "diff"))
		if len(rows) == 0 {
			t.Fatal("no diff rows")
		}
		// The first changed order, base then current, checked in the database.
		r0, r1 := rows[0], rows[1]
		if r0["order_id"].(json.Number) != r1["order_id"].(json.Number) || r0["in_a"] != true || r1["in_b"] != true {
			t.Errorf("first rows %v %v: want one order in base then in current", r0, r1)
		}
		id := r0["order_id"].(json.Number).String()
		for _, r := range []map[string]any{r0, r1} {
			side := "base"
			if r["in_b"] == true {
				side = "current"
			}
			db := dbString(t, fmt.Sprintf(`select cast(amount as varchar) from %q.orders where order_id = %s`, side, id))
			if got := r["amount"].(json.Number).String(); got != db {
				t.Errorf("order %s %s amount %s, database %s", id, side, got, db)
			}
		}
	})
}
