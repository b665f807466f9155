package impact

import (
	"reflect"
	"testing"
)

func TestNameCandidates(t *testing.T) {
	for model, want := range map[string][]string{
		"orders":         {"orders_id", "order_id", "id"},
		"stg_payments":   {"stg_payments_id", "payment_id", "id"},
		"dim_customers":  {"dim_customers_id", "customer_id", "id"},
		"fct_categories": {"fct_categories_id", "category_id", "id"},
		"int_addresses":  {"int_addresses_id", "address_id", "id"},
		"customer":       {"customer_id", "id"},
		"Orders":         {"orders_id", "order_id", "id"},
		"status":         {"status_id", "statu_id", "id"},
		"stg_class":      {"stg_class_id", "class_id", "id"},
	} {
		if got := nameCandidates(model); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", model, got, want)
		}
	}
}
