package demo

import "fmt"

// Exact numbers of the demo (asserted by the package tests).
const (
	RawPayments = 12029 // rows of raw_payments and stg_payments

	PaymentsChanged = 4773 // stg_payments rows whose amount changes (amount % 100 != 0)

	OrdersChanged             = 4448 // orders rows that change (amount differs)
	OrdersCreditCardChanged   = 2040
	OrdersCouponChanged       = 967
	OrdersBankTransferChanged = 978
	OrdersGiftCardChanged     = 673
	RevenueBase               = "363782.00" // sum(orders.amount) in base
	RevenueCurrent            = "366214.35" // sum(orders.amount) in current

	CustomersValueChanged = 1654 // customers rows whose customer_lifetime_value changes
	CustomersWithoutOrder = 202  // customers with a NULL customer_lifetime_value (both sides)

	DailyOrdersRows       = 366
	LegacyRows            = 1798 // customer_orders_legacy (base only)
	StatusEventsDistinct  = 9964 // distinct rows of order_status_events (10,000 rows, no key)
	BaseTests             = 12
	CurrentTests          = 13
	SegmentsHigh          = 290
	SegmentsMedium        = 1246
	SegmentsLow           = 262
	SegmentsProspect      = 202
	PaymentMethodRows     = 4
	OrderStatusEventsRows = NumOrders
)

// RowCounts are the row counts of every relation of the demo per side
// (-1 = the relation does not exist on that side).
func RowCounts() map[string][2]int64 {
	return map[string][2]int64{
		"raw_customers":          {NumCustomers, NumCustomers},
		"raw_orders":             {NumOrders, NumOrders},
		"raw_payments":           {RawPayments, RawPayments},
		"stg_customers":          {NumCustomers, NumCustomers},
		"stg_orders":             {NumOrders, NumOrders},
		"stg_payments":           {RawPayments, RawPayments},
		"customers":              {NumCustomers, NumCustomers},
		"orders":                 {NumOrders, NumOrders},
		"payment_method_summary": {PaymentMethodRows, PaymentMethodRows},
		"daily_orders":           {DailyOrdersRows, DailyOrdersRows},
		"order_status_events":    {OrderStatusEventsRows, OrderStatusEventsRows},
		"customer_segments":      {-1, NumCustomers},
		"customer_orders_legacy": {LegacyRows, -1},
	}
}

// Expectations lists what Ripple's features should find in the demo.
func Expectations() []Expectation {
	return []Expectation{
		{"state:modified", "state:modified", "models customer_segments (new), customer_orders_legacy (removed), customers (body + new documented column), daily_orders (configs), stg_payments (body)"},
		{"state:modified.body", "state:modified.body", "customers, stg_payments, and the added customer_segments and removed customer_orders_legacy (as dbt counts them)"},
		{"state:modified.configs", "state:modified.configs", "daily_orders (tags [] → [finance], persist_docs {} → {relation: true, columns: true})"},
		{"added / removed", "customer_segments, customer_orders_legacy", fmt.Sprintf("customer_segments added (%d rows); customer_orders_legacy removed (%d rows in base)", NumCustomers, LegacyRows)},
		{"impact (downstream)", "stg_payments+", "orders, customers, payment_method_summary, customer_segments; orders and customers change values, payment_method_summary does not"},
		{"row count diff", "all models", fmt.Sprintf("unchanged for every model present on both sides: stg_payments %d, orders %d, customers %d, daily_orders %d, order_status_events %d, payment_method_summary %d", RawPayments, NumOrders, NumCustomers, DailyOrdersRows, OrderStatusEventsRows, PaymentMethodRows)},
		{"schema diff", "customers", "column full_name (VARCHAR) added at position 4, after last_name; no other column added, removed or retyped in any model"},
		{"value diff", "stg_payments", fmt.Sprintf("%d of %d rows change, only column amount (key payment_id)", PaymentsChanged, RawPayments)},
		{"value diff", "orders", fmt.Sprintf("%d of %d rows change (key order_id): amount %d, credit_card_amount %d, coupon_amount %d, bank_transfer_amount %d, gift_card_amount %d; order_id, customer_id, order_date, status unchanged",
			OrdersChanged, NumOrders, OrdersChanged, OrdersCreditCardChanged, OrdersCouponChanged, OrdersBankTransferChanged, OrdersGiftCardChanged)},
		{"value diff", "customers", fmt.Sprintf("%d of %d rows change customer_lifetime_value (key customer_id); first_order, most_recent_order, number_of_orders unchanged; %d customers have no orders (NULL value on both sides)", CustomersValueChanged, NumCustomers, CustomersWithoutOrder)},
		{"value diff", "payment_method_summary, daily_orders", "identical on both sides (downstream or config-only, yet no data change)"},
		{"profile diff", "orders.amount", fmt.Sprintf("sum goes from %s to %s", RevenueBase, RevenueCurrent)},
		{"impact analysis", "default call", fmt.Sprintf("one call gives all 6 reported models a definitive verdict: stg_payments confirmed %d (a view, value-diffed by its unique test's key), customers %d, orders %d, customer_segments %d (added), customer_orders_legacy %d (removed), daily_orders none (config-only change; keyed by its GROUP BY grain order_date); column lineage rules out payment_method_summary",
			PaymentsChanged, CustomersValueChanged, OrdersChanged, NumCustomers, LegacyRows)},
		{"primary key inference", "daily_orders, payment_method_summary", "keyed by the grain of their SQL (group by order_date, group by payment_method), verified unique and not NULL in both builds"},
		{"primary key inference", "order_status_events", fmt.Sprintf("no primary key: %d rows, %d distinct; no unique test, so value diff is skipped (a composite key is rejected as not unique)", OrderStatusEventsRows, StatusEventsDistinct)},
		{"query (added model: no base to diff)", "customer_segments.segment", fmt.Sprintf("medium %d, high %d, low %d, prospect %d", SegmentsMedium, SegmentsHigh, SegmentsLow, SegmentsProspect)},
		{"data tests", "run_results", fmt.Sprintf("%d tests in base and %d in current (new: unique_customer_segments_customer_id); all pass", BaseTests, CurrentTests)},
		{"column lineage", "orders.amount", "derives from stg_payments.amount, which derives from raw_payments.amount; customers.full_name derives from stg_customers.first_name and last_name"},
	}
}
