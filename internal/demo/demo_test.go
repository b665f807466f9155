package demo

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"

	"github.com/ripple-data/ripple/internal/golden"
)

// TestExpectationsGolden keeps the printed expectations reviewable.
func TestExpectationsGolden(t *testing.T) {
	var b strings.Builder
	for _, e := range Expectations() {
		fmt.Fprintf(&b, "%-22s %-42s %s\n", e.Feature, e.Subject, e.Finding)
	}
	golden.Assert(t, filepath.Join("testdata", "expectations.golden.txt"), []byte(b.String()))
}

func TestDemo(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	// Build twice into the same directory: rebuilding must work and replace
	// the previous demo.
	if _, err := Build(ctx, dir); err != nil {
		t.Fatal(err)
	}
	r, err := Build(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Expectations) == 0 {
		t.Fatal("no expectations")
	}
	proj, err := r.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db, err := r.OpenDB()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	t.Run("row counts", func(t *testing.T) {
		for name, want := range RowCounts() {
			for i, schema := range []string{r.BaseSchema, r.CurrentSchema} {
				got := int64(-1)
				if exists(t, db, schema, name) {
					got = count(t, db, fmt.Sprintf(`select count(*) from %q.%q`, schema, name))
				}
				if got != want[i] {
					t.Errorf("%s.%s: %d rows, want %d", schema, name, got, want[i])
				}
			}
		}
	})

	t.Run("value diffs", func(t *testing.T) {
		changed := func(table, key, col string) string {
			return fmt.Sprintf(`select count(*) from "base".%s b join "current".%s c using (%s) where b.%s is distinct from c.%s`, table, table, key, col, col)
		}
		for _, tc := range []struct {
			name  string
			query string
			want  int64
		}{
			{"stg_payments.amount", changed("stg_payments", "payment_id", "amount"), PaymentsChanged},
			{"orders.amount", changed("orders", "order_id", "amount"), OrdersChanged},
			{"orders.credit_card_amount", changed("orders", "order_id", "credit_card_amount"), OrdersCreditCardChanged},
			{"orders.coupon_amount", changed("orders", "order_id", "coupon_amount"), OrdersCouponChanged},
			{"orders.bank_transfer_amount", changed("orders", "order_id", "bank_transfer_amount"), OrdersBankTransferChanged},
			{"orders.gift_card_amount", changed("orders", "order_id", "gift_card_amount"), OrdersGiftCardChanged},
			{"orders rows", `select count(*) from (select * from "base".orders except select * from "current".orders)`, OrdersChanged},
			{"orders.status", changed("orders", "order_id", "status"), 0},
			{"customers.customer_lifetime_value", changed("customers", "customer_id", "customer_lifetime_value"), CustomersValueChanged},
			{"customers.number_of_orders", changed("customers", "customer_id", "number_of_orders"), 0},
			{"customers without orders", `select count(*) from "current".customers where customer_lifetime_value is null`, CustomersWithoutOrder},
			{"payment_method_summary", `select count(*) from (select * from "base".payment_method_summary except select * from "current".payment_method_summary)`, 0},
			{"daily_orders", `select count(*) from (select * from "base".daily_orders except select * from "current".daily_orders)`, 0},
			{"order_status_events", `select count(*) from (select * from "base".order_status_events except all select * from "current".order_status_events)`, 0},
			{"order_status_events distinct", `select count(*) from (select distinct * from "current".order_status_events)`, StatusEventsDistinct},
			{"segment high", `select count(*) from "current".customer_segments where segment = 'high'`, SegmentsHigh},
			{"segment medium", `select count(*) from "current".customer_segments where segment = 'medium'`, SegmentsMedium},
			{"segment low", `select count(*) from "current".customer_segments where segment = 'low'`, SegmentsLow},
			{"segment prospect", `select count(*) from "current".customer_segments where segment = 'prospect'`, SegmentsProspect},
		} {
			if got := count(t, db, tc.query); got != tc.want {
				t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
			}
		}
		for schema, want := range map[string]string{"base": RevenueBase, "current": RevenueCurrent} {
			var got string
			if err := db.QueryRowContext(ctx, fmt.Sprintf(`select cast(sum(amount) as varchar) from %q.orders`, schema)).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s revenue %s, want %s", schema, got, want)
			}
		}
	})

	t.Run("state", func(t *testing.T) {
		base, cur := proj.Base.Manifest, proj.Current.Manifest
		var added, removed, body, configs []string
		for id, n := range cur.Nodes {
			if n.ResourceType != dbt.Model {
				continue
			}
			b, ok := base.Node(id)
			if !ok {
				added = append(added, n.Name)
				continue
			}
			if b.Checksum != n.Checksum {
				body = append(body, n.Name)
			}
			if !bytes.Equal(b.UnrenderedConfig, n.UnrenderedConfig) {
				configs = append(configs, n.Name)
			}
		}
		for id, n := range base.Nodes {
			if _, ok := cur.Node(id); !ok && n.ResourceType == dbt.Model {
				removed = append(removed, n.Name)
			}
		}
		for _, tc := range []struct {
			name      string
			got, want []string
		}{
			{"added", added, []string{"customer_segments"}},
			{"removed", removed, []string{"customer_orders_legacy"}},
			{"modified.body", body, []string{"customers", "stg_payments"}},
			{"modified.configs", configs, []string{"daily_orders"}},
		} {
			sort.Strings(tc.got)
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
			}
		}
		daily, _ := cur.Node("model.jaffle_shop.daily_orders")
		if !reflect.DeepEqual([]string(daily.Config.Tags), []string{"finance"}) || !daily.Config.PersistDocs.Relation {
			t.Errorf("daily_orders config: %+v", daily.Config)
		}
		if got := cur.ChildMap["model.jaffle_shop.stg_payments"]; len(got) != 6 { // customers, orders, payment_method_summary + 3 tests
			t.Errorf("stg_payments children: %v", got)
		}
	})

	t.Run("schema", func(t *testing.T) {
		for id, ce := range proj.Current.Catalog.Nodes {
			be, ok := proj.Base.Catalog.Entry(id)
			if !ok {
				continue
			}
			got, want := columns(ce), columns(be)
			if id == "model.jaffle_shop.customers" {
				const full = "customer_id BIGINT,first_name VARCHAR,last_name VARCHAR,full_name VARCHAR,first_order DATE,most_recent_order DATE,number_of_orders BIGINT,customer_lifetime_value DECIMAL(38,2)"
				if got != full {
					t.Errorf("current customers columns:\n%s\nwant\n%s", got, full)
				}
				got = strings.Replace(got, "full_name VARCHAR,", "", 1)
			}
			if got != want {
				t.Errorf("%s columns differ:\nbase    %s\ncurrent %s", id, want, got)
			}
		}
		if e, _ := proj.Current.Catalog.Entry("model.jaffle_shop.stg_payments"); e == nil || e.Metadata.Type != "VIEW" || e.Columns["amount"].Type != "DECIMAL(18,2)" {
			t.Errorf("stg_payments catalog: %+v", e)
		}
	})

	t.Run("tests", func(t *testing.T) {
		for _, tc := range []struct {
			env  *dbt.Env
			want int
		}{{proj.Base, BaseTests}, {proj.Current, CurrentTests}} {
			n := 0
			for _, res := range tc.env.RunResults.Results {
				if strings.HasPrefix(res.UniqueID, "test.") {
					n++
					if res.Status != "pass" {
						t.Errorf("%s: %s %s", res.UniqueID, res.Status, res.Message)
					}
				} else if res.Status != "success" {
					t.Errorf("%s: %s", res.UniqueID, res.Status)
				}
			}
			if n != tc.want {
				t.Errorf("%s: %d tests, want %d", tc.env.Dir, n, tc.want)
			}
		}
	})

	t.Run("expectations are JSON", func(t *testing.T) {
		if _, err := json.Marshal(r.Expectations); err != nil {
			t.Fatal(err)
		}
	})
}

func columns(e *dbt.CatalogEntry) string {
	var out []string
	for _, c := range e.SortedColumns() {
		out = append(out, c.Name+" "+c.Type)
	}
	return strings.Join(out, ",")
}

func exists(t *testing.T, db *sql.DB, schema, name string) bool {
	t.Helper()
	return count(t, db, fmt.Sprintf(`select count(*) from information_schema.tables where table_schema = '%s' and table_name = '%s'`, schema, name)) == 1
}

func count(t *testing.T, db *sql.DB, query string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRowContext(context.Background(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
