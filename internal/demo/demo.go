// Package demo builds Ripple's demo project: a jaffle-shop-style dbt project
// with generated data, built twice (base and current) into one DuckDB file,
// with a pull-request-like change that gives every Ripple feature something
// to find.
//
// # The data
//
// Seeds (identical on both sides, generated with a fixed-seed PCG):
// raw_customers (2,000 rows), raw_orders (10,000 rows; customers 1801–2000
// never ordered, nor did 2 others) and raw_payments (12,029 rows, amounts in
// cents; 4,773 of them are not whole dollars).
//
// # The change (base → current)
//
//   - stg_payments (view, modified body): base converts cents to dollars with
//     integer division, `amount // 100`, silently dropping the cents; current
//     fixes it with `amount / 100`. Both cast to decimal(18,2), so no type
//     changes. 4,773 of 12,029 rows change amount; the row count is unchanged.
//   - orders (table, unchanged code, downstream): 4,448 of 10,000 rows change:
//     amount (4,448), credit_card_amount (2,040), coupon_amount (967),
//     bank_transfer_amount (978), gift_card_amount (673). Total revenue
//     sum(orders.amount) goes from 363,782.00 to 366,214.35.
//   - customers (table, modified body): adds the column full_name (VARCHAR,
//     position 4, after last_name) and, downstream of the fix,
//     customer_lifetime_value changes for 1,654 of its 2,000 rows; 202
//     customers have no orders (NULL on both sides). Other columns unchanged.
//   - payment_method_summary (table, downstream of stg_payments, unchanged
//     code): counts payments and orders per method, so its 4 rows are
//     identical on both sides.
//   - daily_orders (table, config-only change): current adds tags ["finance"]
//     and persist_docs; its code and its 366 rows do not change.
//   - order_status_events (table, no primary key): 10,000 rows of
//     (order_date, status, customer_id), 9,964 distinct; unchanged.
//   - customer_segments (table): added in current, 2,000 rows (medium 1,246,
//     high 290, low 262, prospect 202).
//   - customer_orders_legacy (table): removed in current; 1,798 rows in base.
//
// Tests: unique + not_null on stg_customers.customer_id, stg_payments.payment_id,
// orders.order_id, customers.customer_id; unique on stg_orders.order_id and
// customer_segments.customer_id (current only); accepted_values on
// stg_orders.status and stg_payments.payment_method; relationships
// orders.customer_id → customers.customer_id. 12 tests in base, 13 in
// current; all pass on both sides.
//
// The exact numbers are in Expectations and asserted by the package tests.
package demo

import (
	"context"
	"fmt"

	"github.com/ripple-data/ripple/internal/dbtfixture"
)

// Result is a built demo project.
type Result struct {
	*dbtfixture.Built
	// Expectations are what Ripple's features should find in it.
	Expectations []Expectation
}

// Expectation is one thing a Ripple feature should find in the demo.
type Expectation struct {
	// Feature is the Ripple capability (e.g. "row count diff").
	Feature string `json:"feature"`
	// Subject is the model or selector concerned.
	Subject string `json:"subject"`
	// Finding is what should be found, with exact numbers.
	Finding string `json:"finding"`
}

// Project returns the demo scenario (useful to tests that want to extend it).
func Project() *dbtfixture.Project {
	customers, orders, payments := rawData()
	p := dbtfixture.New(nil).Name("jaffle_shop")
	p.Seed("raw_customers", customers)
	p.Seed("raw_orders", orders)
	p.Seed("raw_payments", payments)

	p.Model("stg_customers", dbtfixture.View, stgCustomers, stgCustomers).Dir("staging").
		Tests(dbtfixture.Unique("customer_id"), dbtfixture.NotNull("customer_id"))
	p.Model("stg_orders", dbtfixture.View, stgOrders, stgOrders).Dir("staging").
		Tests(dbtfixture.Unique("order_id"),
			dbtfixture.AcceptedValues("status", "placed", "shipped", "completed", "return_pending", "returned"))
	p.Model("stg_payments", dbtfixture.View, stgPaymentsBase, stgPaymentsCurrent).Dir("staging").
		Tests(dbtfixture.Unique("payment_id"), dbtfixture.NotNull("payment_id"),
			dbtfixture.AcceptedValues("payment_method", "credit_card", "coupon", "bank_transfer", "gift_card"))

	p.Model("customers", dbtfixture.Table, fmt.Sprintf(customersTemplate, ""), fmt.Sprintf(customersTemplate, fullNameColumn)).
		Describe("One row per customer with their order history and lifetime value.").
		Columns(dbtfixture.Col("customer_id", "Primary key of a customer"),
			dbtfixture.Col("customer_lifetime_value", "Total paid by the customer (dollars)")).
		Tests(dbtfixture.Unique("customer_id"), dbtfixture.NotNull("customer_id")).
		Current().Columns(dbtfixture.Col("full_name", "First and last name"))
	p.Model("orders", dbtfixture.Table, ordersSQL, ordersSQL).
		Describe("One row per order with its payment amounts.").
		Tests(dbtfixture.Unique("order_id"), dbtfixture.NotNull("order_id"),
			dbtfixture.Relationships("customer_id", "customers", "customer_id"))
	p.Model("payment_method_summary", dbtfixture.Table, paymentMethodSummary, paymentMethodSummary)
	p.Model("daily_orders", dbtfixture.Table, dailyOrders, dailyOrders).
		Current().Tags("finance").Config("persist_docs", map[string]any{"relation": true, "columns": true})
	p.Model("order_status_events", dbtfixture.Table, orderStatusEvents, orderStatusEvents)
	p.Model("customer_segments", dbtfixture.Table, "", customerSegments).
		Tests(dbtfixture.Unique("customer_id"))
	p.Model("customer_orders_legacy", dbtfixture.Table, customerOrdersLegacy, "")
	return p
}

// Build writes the demo project into dir (replacing a previous demo there):
// dir/jaffle_shop.duckdb with schemas "base" and "current", target-base/,
// target/, dbt_project.yml and profiles.yml.
func Build(ctx context.Context, dir string) (*Result, error) {
	b, err := Project().DatabaseFile("jaffle_shop.duckdb").Build(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("building the demo project: %w", err)
	}
	return &Result{Built: b, Expectations: Expectations()}, nil
}

const stgCustomers = `select
    id as customer_id,
    first_name,
    last_name
from {{ ref('raw_customers') }}`

const stgOrders = `select
    id as order_id,
    user_id as customer_id,
    order_date,
    status
from {{ ref('raw_orders') }}`

const stgPaymentsBase = `select
    id as payment_id,
    order_id,
    payment_method,
    -- amount is stored in cents, convert it to dollars
    cast(amount // 100 as decimal(18, 2)) as amount
from {{ ref('raw_payments') }}`

const stgPaymentsCurrent = `select
    id as payment_id,
    order_id,
    payment_method,
    -- amount is stored in cents, convert it to dollars (keeping the cents)
    cast(amount / 100 as decimal(18, 2)) as amount
from {{ ref('raw_payments') }}`

const ordersSQL = `with orders as (
    select * from {{ ref('stg_orders') }}
),

payments as (
    select * from {{ ref('stg_payments') }}
),

order_payments as (
    select
        order_id,
        sum(case when payment_method = 'credit_card' then amount else 0 end) as credit_card_amount,
        sum(case when payment_method = 'coupon' then amount else 0 end) as coupon_amount,
        sum(case when payment_method = 'bank_transfer' then amount else 0 end) as bank_transfer_amount,
        sum(case when payment_method = 'gift_card' then amount else 0 end) as gift_card_amount,
        sum(amount) as total_amount
    from payments
    group by order_id
)

select
    orders.order_id,
    orders.customer_id,
    orders.order_date,
    orders.status,
    order_payments.credit_card_amount,
    order_payments.coupon_amount,
    order_payments.bank_transfer_amount,
    order_payments.gift_card_amount,
    order_payments.total_amount as amount
from orders
left join order_payments
    on orders.order_id = order_payments.order_id`

const customersTemplate = `with customers as (
    select * from {{ ref('stg_customers') }}
),

orders as (
    select * from {{ ref('stg_orders') }}
),

payments as (
    select * from {{ ref('stg_payments') }}
),

customer_orders as (
    select
        customer_id,
        min(order_date) as first_order,
        max(order_date) as most_recent_order,
        count(order_id) as number_of_orders
    from orders
    group by customer_id
),

customer_payments as (
    select
        orders.customer_id,
        sum(payments.amount) as total_amount
    from payments
    left join orders on payments.order_id = orders.order_id
    group by orders.customer_id
)

select
    customers.customer_id,
    customers.first_name,
    customers.last_name,%s
    customer_orders.first_order,
    customer_orders.most_recent_order,
    customer_orders.number_of_orders,
    customer_payments.total_amount as customer_lifetime_value
from customers
left join customer_orders
    on customers.customer_id = customer_orders.customer_id
left join customer_payments
    on customers.customer_id = customer_payments.customer_id`

// fullNameColumn is the column the change adds to customers.
const fullNameColumn = "\n    customers.first_name || ' ' || customers.last_name as full_name,"

const paymentMethodSummary = `select
    payment_method,
    count(*) as payments,
    count(distinct order_id) as orders
from {{ ref('stg_payments') }}
group by payment_method`

const dailyOrders = `select
    order_date,
    count(*) as orders,
    count(distinct customer_id) as customers
from {{ ref('stg_orders') }}
group by order_date`

const orderStatusEvents = `select
    order_date,
    status,
    customer_id
from {{ ref('stg_orders') }}`

const customerSegments = `select
    customer_id,
    case
        when customer_lifetime_value is null then 'prospect'
        when customer_lifetime_value >= 300 then 'high'
        when customer_lifetime_value >= 100 then 'medium'
        else 'low'
    end as segment
from {{ ref('customers') }}`

const customerOrdersLegacy = `select
    customer_id,
    count(*) as order_count
from {{ ref('stg_orders') }}
group by customer_id`
