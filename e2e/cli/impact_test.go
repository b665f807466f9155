package cli_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/demo"
	"github.com/ripple-data/ripple/internal/ops"
)

// impactModels indexes confirmed_impacted_models by name.
func impactModels(t *testing.T, out map[string]any) (map[string]map[string]any, []string) {
	t.Helper()
	byName := map[string]map[string]any{}
	var order []string
	for _, m := range get(t, out, "confirmed_impacted_models").([]any) {
		mm := m.(map[string]any)
		name := str(t, mm, "name")
		byName[name] = mm
		order = append(order, name)
	}
	return byName, order
}

// impactWant is the expected triage of one model of the demo.
type impactWant struct {
	classification string // modified / downstream
	changeStatus   any    // added / removed / modified / nil
	dataImpact     string
	affected       int64 // -1 = null
	nextTool       string
	rowCount       [2]int64 // -1 = null
	keySource      string
}

// demoImpact is the triage the demo's package doc implies: every reported
// model gets a definitive verdict in one call.
//   - stg_payments is a modified view keyed by its unique test: value-diffed,
//     4,773 rows change; customers (modified body) changes
//     customer_lifetime_value for 1,654 rows; orders (downstream) changes
//     4,448 rows: confirmed, with a profile_diff of the changed columns
//     (many rows changed at a stable row count);
//   - customer_segments is added (2,000 rows), customer_orders_legacy
//     removed (1,798 rows in base): confirmed, every row affected;
//   - daily_orders changed configs only: it is modified, so it is verified
//     (keyed by its GROUP BY grain order_date) and found unchanged;
//   - payment_method_summary (downstream of stg_payments) reads none of
//     the columns the change touches: column lineage rules it out. Without
//     column lineage it is downstream, keyed by its grain (payment_method),
//     and verified unchanged.
func demoImpact() map[string]impactWant {
	return map[string]impactWant{
		"customer_orders_legacy": {"modified", "removed", "confirmed", demo.LegacyRows, "", [2]int64{demo.LegacyRows, -1}, ""},
		"customer_segments":      {"modified", "added", "confirmed", demo.NumCustomers, "", [2]int64{-1, demo.NumCustomers}, ""},
		"customers":              {"modified", "modified", "confirmed", demo.CustomersValueChanged, "profile_diff", [2]int64{demo.NumCustomers, demo.NumCustomers}, "test"},
		"daily_orders":           {"modified", "modified", "none", 0, "", [2]int64{demo.DailyOrdersRows, demo.DailyOrdersRows}, "grain"},
		"stg_payments":           {"modified", "modified", "confirmed", demo.PaymentsChanged, "profile_diff", [2]int64{demo.RawPayments, demo.RawPayments}, "test"},
		"orders":                 {"downstream", nil, "confirmed", demo.OrdersChanged, "profile_diff", [2]int64{demo.NumOrders, demo.NumOrders}, "test"},
	}
}

// demoImpactWithoutCLL is demoImpact when column lineage is off.
func demoImpactWithoutCLL() map[string]impactWant {
	w := demoImpact()
	w["payment_method_summary"] = impactWant{"downstream", nil, "none", 0, "", [2]int64{demo.PaymentMethodRows, demo.PaymentMethodRows}, "grain"}
	return w
}

func TestImpactAnalysis(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "impact-analysis", "--detail", "full")
	for k, want := range map[string]int64{"modified_count": 5, "downstream_count": 1, "max_affected_row_count": demo.PaymentsChanged, "not_impacted_by_column_lineage_count": 1} {
		if got := integer(t, out, k); got != want {
			t.Errorf("%s = %d, want %d", k, got, want)
		}
	}
	if str(t, out, "classification_source") != "column_lineage" || boolean(t, out, "single_env") || str(t, out, "detail") != "full" {
		t.Errorf("classification_source %v single_env %v detail %v", out["classification_source"], out["single_env"], out["detail"])
	}
	var pruned []string
	for _, n := range get(t, out, "not_impacted_by_column_lineage").([]any) {
		pruned = append(pruned, str(t, n, "name"))
		if str(t, n, "unique_id") != pkg+"payment_method_summary" || str(t, n, "reason") == "" ||
			!reflect.DeepEqual(strs(t, n, "reads_columns"), []string{"stg_payments.order_id", "stg_payments.payment_method"}) ||
			!reflect.DeepEqual(strs(t, n, "checked_against"), []string{"stg_payments.amount"}) {
			t.Errorf("not_impacted_by_column_lineage entry %v", n)
		}
	}
	if !reflect.DeepEqual(pruned, []string{"payment_method_summary"}) {
		t.Errorf("not_impacted_by_column_lineage %v, want [payment_method_summary]", pruned)
	}
	// Every model is impacted or not impacted, never both; the models
	// column lineage rules out are named with the others.
	confirmed := strs(t, out, "confirmed_not_impacted_models")
	if w := []string{"order_status_events", "payment_method_summary", "stg_customers", "stg_orders"}; !reflect.DeepEqual(confirmed, w) {
		t.Errorf("confirmed_not_impacted_models %v, want %v", confirmed, w)
	}
	if e := get(t, out, "errors").([]any); len(e) != 0 {
		t.Errorf("errors %v", e)
	}
	if s := str(t, out, "schema_coverage", "status"); s != "complete" {
		t.Errorf("schema_coverage %s", s)
	}
	models, order := impactModels(t, out)
	want := demoImpact()
	if len(models) != len(want) {
		t.Errorf("impacted models %v, want %d", order, len(want))
	}
	// Modified models first, then downstream ones.
	if w := []string{"customer_orders_legacy", "customer_segments", "customers", "daily_orders", "stg_payments", "orders"}; !reflect.DeepEqual(order, w) {
		t.Errorf("order %v, want %v", order, w)
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			m, ok := models[name]
			if !ok {
				t.Fatalf("%s not impacted", name)
			}
			if got := str(t, m, "classification"); got != w.classification {
				t.Errorf("classification %s, want %s", got, w.classification)
			}
			if got := get(t, m, "change_status"); got != w.changeStatus {
				t.Errorf("change_status %v, want %v", got, w.changeStatus)
			}
			if got := str(t, m, "data_impact"); got != w.dataImpact {
				t.Errorf("data_impact %s, want %s (%v)", got, w.dataImpact, m["value_diff_skipped"])
			}
			if got := integer(t, m, "affected_row_count"); got != w.affected {
				t.Errorf("affected_row_count %d, want %d", got, w.affected)
			}
			if ks, _ := m["key_source"].(string); ks != w.keySource {
				t.Errorf("key_source %q, want %q", ks, w.keySource)
			}
			tool := ""
			if na := get(t, m, "next_action"); na != nil {
				tool = str(t, na, "tool")
			}
			if tool != w.nextTool {
				t.Errorf("next_action.tool %q, want %q", tool, w.nextTool)
			}
			rc := get(t, m, "row_count")
			if rc == nil {
				t.Errorf("row_count is null, want base %d current %d (row-count-diff counts it; the base relation exists)", w.rowCount[0], w.rowCount[1])
				return
			}
			for i, side := range []string{"base", "current"} {
				if got := integer(t, rc, side); got != w.rowCount[i] {
					t.Errorf("row_count.%s = %d, want %d", side, got, w.rowCount[i])
				}
			}
			if w.rowCount[0] >= 0 && w.rowCount[1] >= 0 && (integer(t, rc, "delta") != 0 || float(t, rc, "delta_pct") != 0) {
				t.Errorf("row_count %v: want delta 0", rc)
			}
		})
	}
	for name, basis := range map[string]string{"customer_segments": "added_model", "customer_orders_legacy": "removed_model", "orders": "value_diff"} {
		if got := str(t, models[name], "verdict_basis"); got != basis {
			t.Errorf("%s verdict_basis %s, want %s", name, got, basis)
		}
	}
	if got := strs(t, models["orders"], "impacted_via"); !reflect.DeepEqual(got, []string{"stg_payments.amount"}) {
		t.Errorf("orders impacted_via %v", got)
	}

	t.Run("customers detail", func(t *testing.T) {
		m := models["customers"]
		if sc := get(t, m, "schema_changes").([]any); len(sc) != 1 || !reflect.DeepEqual(sc[0], map[string]any{"column": "full_name", "change_status": "added", "current_type": "VARCHAR"}) {
			t.Errorf("schema_changes %v", sc)
		}
		vd := get(t, m, "value_diff")
		for k, w := range map[string]int64{"rows_added": 0, "rows_removed": 0, "rows_changed": demo.CustomersValueChanged, "affected_row_count": demo.CustomersValueChanged} {
			if got := integer(t, vd, k); got != w {
				t.Errorf("value_diff.%s = %d, want %d", k, got, w)
			}
		}
		cols := get(t, vd, "columns").(map[string]any)
		for c := range cols {
			w := int64(0)
			if c == "customer_lifetime_value" {
				w = demo.CustomersValueChanged
			}
			if got := integer(t, cols, c, "affected_row_count"); got != w {
				t.Errorf("column %s affected %d, want %d", c, got, w)
			}
		}
		if len(cols) != 7 {
			t.Errorf("%d columns diffed, want 7 (full_name exists in current only)", len(cols))
		}
		if got := strs(t, m, "next_action", "columns"); !reflect.DeepEqual(got, []string{"customer_lifetime_value"}) {
			t.Errorf("next_action.columns %v", got)
		}
	})
	t.Run("orders detail", func(t *testing.T) {
		vd := get(t, models["orders"], "value_diff")
		want := map[string]int64{
			"amount": demo.OrdersChanged, "credit_card_amount": demo.OrdersCreditCardChanged, "coupon_amount": demo.OrdersCouponChanged,
			"bank_transfer_amount": demo.OrdersBankTransferChanged, "gift_card_amount": demo.OrdersGiftCardChanged,
			"order_id": 0, "customer_id": 0, "order_date": 0, "status": 0,
		}
		got := map[string]int64{}
		for c := range get(t, vd, "columns").(map[string]any) {
			got[c] = integer(t, vd, "columns", c, "affected_row_count")
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("per-column affected rows %v, want %v", got, want)
		}
		if integer(t, vd, "rows_changed") != demo.OrdersChanged || !reflect.DeepEqual(strs(t, vd, "primary_key"), []string{"order_id"}) {
			t.Errorf("value_diff %v", vd)
		}
		if got := strs(t, models["orders"], "next_action", "columns"); !reflect.DeepEqual(got, []string{"amount", "bank_transfer_amount", "coupon_amount", "credit_card_amount", "gift_card_amount"}) {
			t.Errorf("next_action.columns %v", got)
		}
	})
	t.Run("removed model schema", func(t *testing.T) {
		sc := get(t, models["customer_orders_legacy"], "schema_changes").([]any)
		var got []string
		for _, c := range sc {
			got = append(got, fmt.Sprintf("%s %s %s", get(t, c, "column"), get(t, c, "change_status"), get(t, c, "base_type")))
		}
		if w := []string{"customer_id removed BIGINT", "order_count removed BIGINT"}; !reflect.DeepEqual(got, w) {
			t.Errorf("schema_changes %v, want %v", got, w)
		}
	})
	t.Run("suggested checks", func(t *testing.T) {
		var vd []string
		for _, c := range get(t, out, "suggested_checks").([]any) {
			if str(t, c, "type") == "value_diff" {
				vd = append(vd, fmt.Sprintf("%s/%v", get(t, c, "params", "model"), strs(t, c, "params", "primary_key")))
			}
		}
		sort.Strings(vd)
		if w := []string{"customers/[customer_id]", "orders/[order_id]", "stg_payments/[payment_id]"}; !reflect.DeepEqual(vd, w) {
			t.Errorf("value_diff checks %v, want %v", vd, w)
		}
	})
	t.Run("next actions run", func(t *testing.T) { testNextActions(t, models) })
}

// testNextActions runs every next_action as the CLI command it names and
// checks what it finds independently in the database.
func testNextActions(t *testing.T, models map[string]map[string]any) {
	reg := ops.Default()
	names := make([]string, 0, len(models))
	for n := range models {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		na := get(t, models[name], "next_action")
		if na == nil {
			continue
		}
		tool := str(t, na, "tool")
		args := get(t, na, "arguments").(map[string]any)
		op, ok := reg.Get(tool)
		if !ok {
			t.Errorf("%s: next_action names the tool %q, which is not an operation (agents cannot call it; `ripple %s` does not exist)",
				name, tool, strings.ReplaceAll(tool, "_", "-"))
			continue
		}
		// Until issue #14's rename of query/query_diff's sql to the seed's
		// sql_template lands (the contract branch), the tools take sql. This
		// shim does nothing once the schema has sql_template; delete it then.
		if _, ok := op.InputSchema().Properties["sql_template"]; !ok && args["sql_template"] != nil {
			args = map[string]any{"sql": args["sql_template"], "primary_keys": args["primary_keys"]}
			if args["primary_keys"] == nil {
				delete(args, "primary_keys")
			}
		}
		raw, _ := json.Marshal(args)
		if _, err := op.Decode(raw); err != nil {
			t.Errorf("%s: next_action arguments %s do not validate for %s: %v", name, raw, tool, err)
			continue
		}
		res := rippleJSON(t, append([]string{op.CLIName()}, flagsOf(args)...)...)
		switch {
		case tool == "query_diff":
			// A query_diff by the model's verified key: the changed rows,
			// counted in the warehouse, are the rows the database says changed.
			var changed int64
			for _, k := range strs(t, na, "arguments", "primary_keys") {
				if k == "" {
					t.Fatalf("%s: empty key", name)
				}
			}
			if name == "orders" {
				changed = demo.OrdersChanged
			}
			if got := integer(t, res, "summary", "changed"); got != changed || integer(t, res, "summary", "added") != 0 || integer(t, res, "summary", "removed") != 0 {
				t.Errorf("%s query_diff by key: summary %v, want %d changed", name, get(t, res, "summary"), changed)
			}
		case name == "orders" || name == "customers" || name == "stg_payments":
			// profile_diff of the changed columns: the profiles differ
			// exactly where the database says they do.
			for _, side := range []string{"base", "current"} {
				rows := table(t, get(t, res, side))
				if len(rows) != len(strs(t, na, "columns")) {
					t.Errorf("%s %s: %d profiles for columns %v", name, side, len(rows), strs(t, na, "columns"))
				}
				for _, row := range rows {
					col := row["column_name"].(string)
					db := dbInt(t, fmt.Sprintf(`select count(distinct %q) from %q.%q`, col, side, name))
					if got := integer(t, row, "distinct_count"); got != db {
						t.Errorf("%s.%s %s distinct_count %d, database %d", name, col, side, got, db)
					}
				}
			}
		}
	}
}

// flagsOf turns JSON arguments into CLI flags (flags are the kebab-case of
// the JSON field names).
func flagsOf(args map[string]any) []string {
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []string
	for _, k := range names {
		flag := "--" + strings.ReplaceAll(k, "_", "-")
		switch v := args[k].(type) {
		case []any:
			var parts []string
			for _, e := range v {
				parts = append(parts, fmt.Sprint(e))
			}
			out = append(out, flag, strings.Join(parts, ","))
		case bool:
			out = append(out, fmt.Sprintf("%s=%v", flag, v))
		default:
			out = append(out, flag, fmt.Sprint(v))
		}
	}
	return out
}

func TestImpactAnalysisOptions(t *testing.T) {
	t.Parallel()
	t.Run("compact by default", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "impact-analysis")
		models, _ := impactModels(t, out)
		if w := map[string]any{"name": "daily_orders", "change_status": "modified", "materialized": "table", "data_impact": "none", "affected_row_count": json.Number("0")}; !reflect.DeepEqual(models["daily_orders"], w) {
			t.Errorf("compact row %v, want %v", models["daily_orders"], w)
		}
		// The ruled-out model is named with its evidence at compact detail too.
		ev, _ := out["not_impacted_by_column_lineage"].([]any)
		if len(ev) != 1 || get(t, ev[0], "name") != "payment_method_summary" || integer(t, out, "not_impacted_by_column_lineage_count") != 1 || str(t, out, "detail") != "compact" {
			t.Errorf("compact evidence %v count %v detail %v", out["not_impacted_by_column_lineage"], out["not_impacted_by_column_lineage_count"], out["detail"])
		}
		if get(t, models["orders"], "value_diff") == nil || get(t, models["orders"], "row_count") == nil {
			t.Errorf("a confirmed model keeps its full entry: %v", models["orders"])
		}
	})
	t.Run("skip value diff", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "impact-analysis", "--skip-value-diff")
		models, _ := impactModels(t, out)
		if len(models) != 6 || integer(t, out, "max_affected_row_count") != demo.NumCustomers {
			t.Errorf("%d models, max_affected_row_count %v; want 6 and %d (the added model)", len(models), get(t, out, "max_affected_row_count"), demo.NumCustomers)
		}
		for name, m := range models {
			if name == "customer_segments" || name == "customer_orders_legacy" {
				// Added and removed models need no value diff to be definitive.
				if str(t, m, "data_impact") != "confirmed" {
					t.Errorf("%s: data_impact %v", name, m["data_impact"])
				}
				continue
			}
			if str(t, m, "data_impact") != "potential" || get(t, m, "value_diff") != nil || get(t, m, "affected_row_count") != nil {
				t.Errorf("%s: data_impact %v value_diff %v affected %v; want potential, null, null", name, m["data_impact"], m["value_diff"], m["affected_row_count"])
			}
		}
		// Row counts and key checks still run, so the next step is a query_diff by key.
		if integer(t, models["orders"], "row_count", "current") != demo.NumOrders {
			t.Errorf("orders row_count %v", get(t, models["orders"], "row_count"))
		}
		if str(t, models["orders"], "next_action", "tool") != "query_diff" || !reflect.DeepEqual(strs(t, models["orders"], "next_action", "arguments", "primary_keys"), []string{"order_id"}) {
			t.Errorf("orders next_action %v", get(t, models["orders"], "next_action"))
		}
		testNextActions(t, map[string]map[string]any{"orders": models["orders"]})
	})
	t.Run("skip downstream value diff", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "impact-analysis", "--skip-downstream-value-diff")
		models, _ := impactModels(t, out)
		if str(t, models["customers"], "data_impact") != "confirmed" || integer(t, models["customers"], "affected_row_count") != demo.CustomersValueChanged {
			t.Errorf("customers %v %v", models["customers"]["data_impact"], models["customers"]["affected_row_count"])
		}
		if str(t, models["orders"], "data_impact") != "potential" || get(t, models["orders"], "value_diff") != nil {
			t.Errorf("orders (downstream) %v, want potential without a value diff", models["orders"]["data_impact"])
		}
		if integer(t, out, "max_affected_row_count") != demo.PaymentsChanged {
			t.Errorf("max_affected_row_count %v, want %d", get(t, out, "max_affected_row_count"), demo.PaymentsChanged)
		}
	})
	t.Run("without column lineage", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "impact-analysis", "--use-column-lineage=false", "--detail", "full")
		models, _ := impactModels(t, out)
		want := demoImpactWithoutCLL()
		for name, w := range want {
			m, ok := models[name]
			if !ok || str(t, m, "data_impact") != w.dataImpact || integer(t, m, "affected_row_count") != w.affected || str(t, m, "classification") != w.classification {
				t.Errorf("%s: %v", name, m)
			}
		}
		if len(models) != len(want) || str(t, out, "classification_source") != "lineage_dag" || integer(t, out, "downstream_count") != 2 {
			t.Errorf("%d models, classification_source %v, downstream_count %v; want %d, lineage_dag, 2",
				len(models), out["classification_source"], out["downstream_count"], len(want))
		}
		if n := len(get(t, out, "not_impacted_by_column_lineage").([]any)); n != 0 {
			t.Errorf("not_impacted_by_column_lineage has %d entries without column lineage", n)
		}
	})
	t.Run("select state:modified+", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "impact-analysis", "--select", "state:modified+", "--detail", "full")
		models, _ := impactModels(t, out)
		if integer(t, out, "modified_count") != 5 || integer(t, out, "downstream_count") != 1 {
			t.Errorf("modified %v downstream %v, want 5 and 1 (payment_method_summary is ruled out, so not counted downstream)", get(t, out, "modified_count"), get(t, out, "downstream_count"))
		}
		d, ok := models["daily_orders"]
		if !ok {
			t.Fatal("daily_orders (configs) not impacted with state:modified+")
		}
		if str(t, d, "data_impact") != "none" || integer(t, d, "row_count", "current") != demo.DailyOrdersRows || !reflect.DeepEqual(strs(t, d, "primary_key"), []string{"order_date"}) {
			t.Errorf("daily_orders %v rows %v key %v", d["data_impact"], d["row_count"], d["primary_key"])
		}
		if got := strs(t, out, "confirmed_not_impacted_models"); !reflect.DeepEqual(got, []string{"payment_method_summary"}) {
			t.Errorf("confirmed_not_impacted_models %v: only the selected models are listed", got)
		}
	})
	t.Run("a selector that matches nothing", func(t *testing.T) {
		t.Parallel()
		r := ripple(t, "impact-analysis", "--select", "tag:finanse", "--json")
		if r.code == 0 || !strings.Contains(string(r.stderr), `select term "tag:finanse" matches no node; did you mean "tag:finance"?`) {
			t.Errorf("exit %d:\n%s", r.code, r)
		}
	})
}
