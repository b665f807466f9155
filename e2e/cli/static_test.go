package cli_test

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/demo"
)

// Static operations: describe-entity, erd, find-data, plan-query, search,
// state-policies, test-gaps, summary.

func TestDescribeEntity(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "describe-entity", "orders")
	if str(t, out, "grain") != "one row per order_id (tested)" || !reflect.DeepEqual(strs(t, out, "primary_key", "columns"), []string{"order_id"}) {
		t.Errorf("grain %v primary key %v", out["grain"], get(t, out, "primary_key"))
	}
	// The grain holds in the data.
	if n := dbInt(t, `select count(*) - count(distinct order_id) from "current".orders`); n != 0 {
		t.Errorf("orders.order_id has %d duplicates", n)
	}
	refs := get(t, out, "references").([]any)
	if len(refs) != 1 || str(t, refs[0], "entity") != "customers" || str(t, refs[0], "cardinality") != "many_to_one" || str(t, refs[0], "basis") != "tested" {
		t.Fatalf("references %v, want orders → customers many_to_one (tested)", refs)
	}
	// many_to_one in the data: 10,000 orders, 1,798 distinct customers,
	// every one of them in customers.
	if n := dbInt(t, `select count(distinct customer_id) from "current".orders`); n != demo.LegacyRows {
		t.Errorf("%d distinct customers in orders, want %d", n, demo.LegacyRows)
	}
	if n := dbInt(t, `select count(*) from "current".orders o left join "current".customers c using (customer_id) where c.customer_id is null`); n != 0 {
		t.Errorf("%d orders without a customer", n)
	}
	if s := str(t, out, "starter_query"); !strings.Contains(s, "{{ ref('orders') }}") {
		t.Errorf("starter_query %q", s)
	} else {
		q := rippleJSON(t, "query", "--sql", s)
		if n := len(get(t, q, "data").([]any)); n != 10 {
			t.Errorf("starter query returned %d rows, want 10", n)
		}
	}
}

func TestERD(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "erd")
	var ents []string
	for _, e := range get(t, out, "entities").([]any) {
		ents = append(ents, str(t, e, "name"))
	}
	if w := []string{"customer_segments", "customers", "orders", "stg_customers", "stg_orders", "stg_payments"}; !reflect.DeepEqual(ents, w) {
		t.Errorf("entities %v, want %v", ents, w)
	}
	var rels []string
	for _, r := range get(t, out, "relationships").([]any) {
		rels = append(rels, fmt.Sprintf("%s.%s -> %s.%s %s %s", str(t, r, "from"), strings.Join(strs(t, r, "from_columns"), ","),
			str(t, r, "to"), strings.Join(strs(t, r, "to_columns"), ","), str(t, r, "cardinality"), str(t, r, "basis")))
	}
	want := []string{
		"orders.customer_id -> customers.customer_id many_to_one tested",
		"stg_orders.customer_id -> stg_customers.customer_id many_to_one joined",
		"stg_payments.order_id -> stg_orders.order_id many_to_one joined",
	}
	if !reflect.DeepEqual(rels, want) {
		t.Errorf("relationships\n%v\nwant\n%v", rels, want)
	}
	// The many sides really repeat, the one sides are unique.
	for _, q := range []struct {
		sql  string
		want int64
	}{
		{`select count(*) - count(distinct order_id) from "current".stg_payments`, demo.RawPayments - demo.NumOrders},
		{`select count(*) - count(distinct order_id) from "current".stg_orders`, 0},
		{`select count(*) - count(distinct customer_id) from "current".stg_customers`, 0},
	} {
		if got := dbInt(t, q.sql); got != q.want {
			t.Errorf("%s = %d, want %d", q.sql, got, q.want)
		}
	}

	t.Run("mermaid", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "erd", "--format", "mermaid")
		d := str(t, out, "diagram")
		for _, s := range []string{"erDiagram", `customers ||--o{ orders : "customer_id (tested)"`, "BIGINT order_id PK"} {
			if !strings.Contains(d, s) {
				t.Errorf("no %q in\n%s", s, d)
			}
		}
	})
}

func TestFindDataAndSearch(t *testing.T) {
	t.Parallel()
	fd := rippleJSON(t, "find-data", "customer lifetime value")
	if str(t, fd, "tables", 0, "name") != "customers" || str(t, fd, "tables", 0, "grain") != "one row per customer_id (tested)" {
		t.Errorf("first table %v", get(t, fd, "tables", 0))
	}
	sr := rippleJSON(t, "search", "--query", "customer_lifetime")
	hits := get(t, sr, "hits").([]any)
	if len(hits) != 1 || str(t, hits[0], "kind") != "column" || str(t, hits[0], "name") != "customers" || str(t, hits[0], "column") != "customer_lifetime_value" {
		t.Errorf("search customer_lifetime: %v", hits)
	}
	if str(t, hits[0], "type") != dbString(t, `select data_type from information_schema.columns where table_schema='current' and table_name='customers' and column_name='customer_lifetime_value'`) {
		t.Errorf("type %v", get(t, hits[0], "type"))
	}
	// Every term must match.
	sr = rippleJSON(t, "search", "segment customer")
	var got []string
	for _, h := range get(t, sr, "hits").([]any) {
		got = append(got, fmt.Sprint(get(t, h, "kind"), ":", get(t, h, "name")))
	}
	if !contains(got, "model:customer_segments") {
		t.Errorf("search segment customer: %v", got)
	}
	lim := rippleJSON(t, "search", "--query", "id", "--limit", "2")
	if n := len(get(t, lim, "hits").([]any)); n != 2 {
		t.Errorf("--limit 2 returned %d hits", n)
	}
}

func TestPlanQuery(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "plan-query", "--entities", "orders,customers")
	if w := get(t, out, "warnings").([]any); len(w) != 0 {
		t.Errorf("warnings %v", w)
	}
	j := get(t, out, "joins", 0)
	if str(t, j, "cardinality") != "many_to_one" || boolean(t, j, "repeats_rows") {
		t.Errorf("join %v", j)
	}
	sql := str(t, out, "sql")
	// The plan keeps the grain of orders: run it and count.
	res := rippleJSON(t, "query", "--sql", "select count(*) as n, count(distinct order_id) as k from ("+sql+") as plan")
	if n, k := integer(t, res, "data", 0, 0), integer(t, res, "data", 0, 1); n != demo.NumOrders || k != demo.NumOrders {
		t.Errorf("planned query: %d rows, %d distinct orders; want %d both", n, k, demo.NumOrders)
	}

	t.Run("fan-out warning", func(t *testing.T) {
		t.Parallel()
		// customers as the grain, joined to orders: one customer has many orders.
		out := rippleJSON(t, "plan-query", "--entities", "customers,orders")
		warned := len(get(t, out, "warnings").([]any)) > 0
		repeats := false
		for _, j := range get(t, out, "joins").([]any) {
			repeats = repeats || boolean(t, j, "repeats_rows")
		}
		if !warned || !repeats {
			t.Errorf("customers → orders: warnings %v, repeats_rows %v; want a fan-out warning", get(t, out, "warnings"), repeats)
		}
		res := rippleJSON(t, "query", "--sql", "select count(*) from ("+str(t, out, "sql")+") as plan")
		// 10,000 orders + the 202 customers without an order.
		if n := integer(t, res, "data", 0, 0); n != demo.NumOrders+demo.CustomersWithoutOrder {
			t.Errorf("fan-out query: %d rows, want %d", n, demo.NumOrders+demo.CustomersWithoutOrder)
		}
	})
}

func TestStatePolicies(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "state-policies")
	if n := len(get(t, out, "policies").([]any)); n != 0 || str(t, out, "note") == "" {
		t.Errorf("policies %v note %v; the demo configures none", get(t, out, "policies"), out["note"])
	}
}

func TestTestGaps(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "test-gaps")
	gaps := get(t, out, "gaps").([]any)
	var got []string
	for _, g := range gaps {
		got = append(got, fmt.Sprintf("%s.%s %s", str(t, g, "model"), str(t, g, "column"), str(t, g, "test")))
	}
	sort.Strings(got)
	if integer(t, out, "total") != int64(len(gaps)) || boolean(t, out, "truncated") {
		t.Errorf("total %v truncated %v for %d gaps", get(t, out, "total"), boolean(t, out, "truncated"), len(gaps))
	}
	// What the demo's tests leave out: the seeds' keys, and unique keys
	// without not_null (stg_orders.order_id, customer_segments.customer_id).
	for _, w := range []string{
		"raw_customers.id not_null", "raw_customers.id unique",
		"raw_orders.id not_null", "raw_orders.id unique",
		"raw_payments.id not_null", "raw_payments.id unique",
		"stg_orders.order_id not_null", "customer_segments.customer_id not_null",
	} {
		if !contains(got, w) {
			t.Errorf("no %q suggestion in %v", w, got)
		}
	}
	// Nothing the demo already tests.
	for _, tested := range []string{"orders.order_id unique", "orders.order_id not_null", "customers.customer_id unique",
		"customers.customer_id not_null", "orders.customer_id relationships", "stg_payments.payment_id unique", "stg_customers.customer_id unique"} {
		if contains(got, tested) {
			t.Errorf("suggests %q, which the demo already tests", tested)
		}
	}
	// Every suggested test would pass on the data.
	refTarget := regexp.MustCompile(`to: ref\('([a-z_]+)'\)\s+field: ([a-z_]+)`)
	for _, g := range gaps {
		model, col, test := str(t, g, "model"), str(t, g, "column"), str(t, g, "test")
		var q string
		switch test {
		case "unique":
			q = fmt.Sprintf(`select count(*) - count(distinct %q) from "current".%q`, col, model)
		case "not_null":
			q = fmt.Sprintf(`select count(*) from "current".%q where %q is null`, model, col)
		case "relationships":
			m := refTarget.FindStringSubmatch(str(t, g, "yaml"))
			if m == nil {
				t.Errorf("%s.%s relationships: no ref/field in yaml %q", model, col, str(t, g, "yaml"))
				continue
			}
			q = fmt.Sprintf(`select count(*) from "current".%q x where x.%q is not null and not exists (select 1 from "current".%q p where p.%q = x.%q)`,
				model, col, m[1], m[2], col)
		default:
			continue
		}
		if n := dbInt(t, q); n != 0 {
			t.Errorf("suggested %s.%s %s would fail: %s = %d", model, col, test, q, n)
		}
		if y := str(t, g, "yaml"); !strings.Contains(y, "name: "+col) || !strings.Contains(y, "name: "+model) {
			t.Errorf("gap %s.%s: yaml %q does not name the model and column", model, col, y)
		}
	}
	for _, g := range get(t, rippleJSON(t, "test-gaps", "--model", "stg_orders"), "gaps").([]any) {
		if str(t, g, "model") != "stg_orders" {
			t.Errorf("--model stg_orders returned a gap of %s", str(t, g, "model"))
		}
	}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "summary")
	md := str(t, out, "markdown")
	for _, s := range []string{
		"```mermaid\ngraph LR",
		"| customers | modified | 2000 → 2000 | added `full_name` | confirmed | 1654 |",
		"| orders | downstream | 10000 → 10000 | unchanged | confirmed | 4448 |",
		"| stg_payments | modified | 12029 → 12029 | unchanged | confirmed | 4773 |",
		"| customer_segments | added | N/A (not_in_manifest) → 2000 |",
		"| daily_orders | modified | 366 → 366 | unchanged | none | 0 |",
		// The one count sentence of every surface: 3 modified (one of them
		// config-only), the added and the removed model, orders downstream;
		// not impacted: order_status_events, stg_customers, stg_orders and
		// payment_method_summary (ruled out by column lineage).
		"6 impacted (3 modified, 1 added, 1 removed, 1 downstream), 4 not impacted (1 ruled out by column lineage)",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("summary lacks %q", s)
		}
	}
	// The removed model had 1,798 rows in base: the table says so.
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| customer_orders_legacy |") && !strings.Contains(line, "1798") {
			t.Errorf("removed model row %q does not give its 1798 base rows", line)
		}
	}
	if t.Failed() {
		t.Logf("summary:\n%s", md)
	}
}
