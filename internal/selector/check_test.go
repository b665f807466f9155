package selector

import (
	"errors"
	"testing"
)

// A term that names nothing in the project is refused with the closest
// existing values, spelt as terms of the same method; vocabulary terms
// (state:, resource_type:, test_type:, valid access:) may match nothing.
func TestCheck(t *testing.T) {
	g, st := project(t, grammarProject())
	s := New(g, st, "recce_test")
	const hint = " (" + AllowEmptyHint + ")"
	for _, c := range []struct {
		opts Options
		want string // "" = accepted
	}{
		{sel("ordrs"), `select term "ordrs" matches no node; did you mean "orders"?` + hint},
		{sel("+stg_ordrs+"), `select term "+stg_ordrs+" matches no node; did you mean "stg_orders", "sm_orders" or "orders"?` + hint},
		{sel("orders,tag:dialy"), `select term "tag:dialy" matches no node; did you mean "tag:daily"?` + hint},
		{sel("path:models/stagin"), `select term "path:models/stagin" matches no node; did you mean "path:models/staging", "path:models/marts" or "path:models/sem.yml"?` + hint},
		{sel("models/mart/orders.sql"), `select term "models/mart/orders.sql" matches no node; did you mean "models/marts/orders.sql", "models/marts/customers.sql" or "models/marts/schema.yml"?` + hint},
		{sel("config.materialized:tabel"), `select term "config.materialized:tabel" matches no node; did you mean "config.materialized:table"?` + hint},
		{sel("source:stripe.paymnts"), `select term "source:stripe.paymnts" matches no node; did you mean "source:stripe.payments"?` + hint},
		{sel("package:dbt_util"), `select term "package:dbt_util" matches no node; did you mean "package:dbt_utils"?` + hint},
		{sel("access:pubic"), `select term "access:pubic" matches no node; did you mean "access:public"?` + hint},
		{sel("zzzzzzzz"), `select term "zzzzzzzz" matches no node; run select_nodes (ripple select-nodes) to see what a selector matches` + hint},
		{Options{Select: "orders", Exclude: "custmers"}, `exclude term "custmers" matches no node; did you mean "customers", "dim_customers" or "orders"?` + hint},
		{sel("orders --exclude stg_paymnts"), `exclude term "stg_paymnts" matches no node; did you mean "stg_payments" or "stg_orders"?` + hint},
		// Valid terms, even when the whole selection is empty.
		{sel("orders stg_* tag:daily path:models/staging package:dbt_utils"), ""},
		{sel("state:modified.macros"), ""},
		{sel("resource_type:snapshot"), ""},
		{sel("test_type:unit"), ""},
		{sel("access:private"), ""},
		{sel("orders,stg_orders"), ""},
		// Malformed selectors are Select's to report.
		{sel("state:bogus"), ""},
	} {
		err := s.Check(c.opts)
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, ErrNoMatch) {
				t.Errorf("Check(%+v): %v does not wrap ErrNoMatch", c.opts, err)
			}
		}
		if got != c.want {
			t.Errorf("Check(%+v)\n got %s\nwant %s", c.opts, got, c.want)
		}
	}
}
