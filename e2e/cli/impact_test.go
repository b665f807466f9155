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

// impactModels indexes impacted_models by name.
func impactModels(t *testing.T, out map[string]any) (map[string]map[string]any, []string) {
	t.Helper()
	byName := map[string]map[string]any{}
	var order []string
	for _, m := range get(t, out, "impacted_models").([]any) {
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
}

// demoImpact is the triage the demo's package doc implies for the default
// selection (state:modified.body+ state:modified.macros+ state:modified.contract+):
//   - stg_payments is a modified view: no value diff, so potential, and a
//     query_diff of aggregates is the next step;
//   - customers (modified body) changes customer_lifetime_value for 1,654
//     rows; orders (downstream) changes 4,448 rows: confirmed, profile_diff;
//   - payment_method_summary (downstream of stg_payments) reads none of
//     the columns the change touches (only amount changes; it counts
//     payments and orders per method): column lineage prunes it. Without
//     column lineage it is downstream, has no key, and stays potential;
//   - customer_segments is added (2,000 rows), customer_orders_legacy
//     removed (1,798 rows in base): potential;
//   - daily_orders changed configs only, so it is outside the default
//     selection, like the models upstream of the change.
func demoImpact() map[string]impactWant {
	return map[string]impactWant{
		"customer_orders_legacy": {"modified", "removed", "potential", -1, "", [2]int64{demo.LegacyRows, -1}},
		"customer_segments":      {"modified", "added", "potential", -1, "query", [2]int64{-1, demo.NumCustomers}},
		"customers":              {"modified", "modified", "confirmed", demo.CustomersValueChanged, "profile_diff", [2]int64{demo.NumCustomers, demo.NumCustomers}},
		"stg_payments":           {"modified", "modified", "potential", -1, "query_diff", [2]int64{demo.RawPayments, demo.RawPayments}},
		"orders":                 {"downstream", nil, "confirmed", demo.OrdersChanged, "profile_diff", [2]int64{demo.NumOrders, demo.NumOrders}},
	}
}

// demoImpactWithoutCLL is demoImpact when column lineage is off.
func demoImpactWithoutCLL() map[string]impactWant {
	w := demoImpact()
	w["payment_method_summary"] = impactWant{"downstream", nil, "potential", -1, "query_diff", [2]int64{demo.PaymentMethodRows, demo.PaymentMethodRows}}
	return w
}

func TestImpactAnalysis(t *testing.T) {
	t.Parallel()
	out := rippleJSON(t, "impact-analysis")
	for k, want := range map[string]int64{"modified_count": 4, "downstream_count": 1, "max_affected_row_count": demo.OrdersChanged} {
		if got := integer(t, out, k); got != want {
			t.Errorf("%s = %d, want %d", k, got, want)
		}
	}
	if str(t, out, "classification_source") != "column_lineage" || boolean(t, out, "single_env") {
		t.Errorf("classification_source %v single_env %v", out["classification_source"], out["single_env"])
	}
	var pruned []string
	for _, n := range get(t, out, "not_impacted_by_column_lineage").([]any) {
		pruned = append(pruned, str(t, n, "name"))
		if str(t, n, "unique_id") != pkg+"payment_method_summary" || str(t, n, "reason") == "" {
			t.Errorf("not_impacted_by_column_lineage entry %v", n)
		}
	}
	if !reflect.DeepEqual(pruned, []string{"payment_method_summary"}) {
		t.Errorf("not_impacted_by_column_lineage %v, want [payment_method_summary]", pruned)
	}
	// The three lists partition the models of the current build plus the
	// removed one: a model is impacted, confirmed not impacted, or pruned
	// by column lineage, never two of them.
	confirmed := strs(t, out, "confirmed_not_impacted_models")
	if w := []string{"daily_orders", "order_status_events", "stg_customers", "stg_orders"}; !reflect.DeepEqual(confirmed, w) {
		t.Errorf("confirmed_not_impacted_models %v, want %v (payment_method_summary belongs to not_impacted_by_column_lineage only)", confirmed, w)
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
	if w := []string{"customer_orders_legacy", "customer_segments", "customers", "stg_payments", "orders"}; !reflect.DeepEqual(order, w) {
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
				t.Errorf("data_impact %s, want %s", got, w.dataImpact)
			}
			if got := integer(t, m, "affected_row_count"); got != w.affected {
				t.Errorf("affected_row_count %d, want %d", got, w.affected)
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
		if w := []string{"customers/[customer_id]", "orders/[order_id]"}; !reflect.DeepEqual(vd, w) {
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
		raw, _ := json.Marshal(args)
		if _, err := op.Decode(raw); err != nil {
			t.Errorf("%s: next_action arguments %s do not validate for %s: %v", name, raw, tool, err)
			continue
		}
		res := rippleJSON(t, append([]string{op.CLIName()}, flagsOf(args)...)...)
		switch name {
		case "stg_payments":
			// sum_amount differs by the cents the base dropped.
			for _, side := range []string{"base", "current"} {
				row := table(t, get(t, res, side))[0]
				db := dbString(t, fmt.Sprintf(`select cast(sum(amount) as varchar) from %q.stg_payments`, side))
				if got := row["sum_amount"].(json.Number).String(); got != db {
					t.Errorf("stg_payments %s sum_amount %s, database %s", side, got, db)
				}
				if integer(t, row, "row_count") != demo.RawPayments {
					t.Errorf("stg_payments %s row_count %v", side, row["row_count"])
				}
			}
		case "payment_method_summary":
			if b, c := get(t, res, "base", "data"), get(t, res, "current", "data"); !reflect.DeepEqual(b, c) {
				t.Errorf("payment_method_summary aggregates differ: %v vs %v (the demo says identical)", b, c)
			}
		case "orders", "customers":
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
		case "customer_segments":
			row := table(t, res)[0]
			if integer(t, row, "row_count") != demo.NumCustomers || integer(t, row, "distinct_segment") != 4 || integer(t, row, "distinct_customer_id") != demo.NumCustomers {
				t.Errorf("customer_segments aggregates %v", row)
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
	t.Run("skip value diff", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "impact-analysis", "--skip-value-diff")
		models, _ := impactModels(t, out)
		if len(models) != 5 || integer(t, out, "max_affected_row_count") != 0 {
			t.Errorf("%d models, max_affected_row_count %v; want 5 and 0", len(models), get(t, out, "max_affected_row_count"))
		}
		for name, m := range models {
			if str(t, m, "data_impact") != "potential" || get(t, m, "value_diff") != nil || get(t, m, "affected_row_count") != nil {
				t.Errorf("%s: data_impact %v value_diff %v affected %v; want potential, null, null", name, m["data_impact"], m["value_diff"], m["affected_row_count"])
			}
		}
		// Row counts still run.
		if integer(t, models["orders"], "row_count", "current") != demo.NumOrders {
			t.Errorf("orders row_count %v", get(t, models["orders"], "row_count"))
		}
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
		if integer(t, out, "max_affected_row_count") != demo.CustomersValueChanged {
			t.Errorf("max_affected_row_count %v, want %d", get(t, out, "max_affected_row_count"), demo.CustomersValueChanged)
		}
	})
	t.Run("without column lineage", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "impact-analysis", "--use-column-lineage=false")
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
		testNextActions(t, map[string]map[string]any{"payment_method_summary": models["payment_method_summary"]})
	})
	t.Run("select state:modified+", func(t *testing.T) {
		t.Parallel()
		out := rippleJSON(t, "impact-analysis", "--select", "state:modified+")
		models, _ := impactModels(t, out)
		if integer(t, out, "modified_count") != 5 || integer(t, out, "downstream_count") != 1 {
			t.Errorf("modified %v downstream %v, want 5 and 1", get(t, out, "modified_count"), get(t, out, "downstream_count"))
		}
		d, ok := models["daily_orders"]
		if !ok {
			t.Fatal("daily_orders (configs) not impacted with state:modified+")
		}
		if str(t, d, "data_impact") != "potential" || integer(t, d, "row_count", "current") != demo.DailyOrdersRows {
			t.Errorf("daily_orders %v rows %v", d["data_impact"], d["row_count"])
		}
	})
}
