package impact

import (
	"strings"
	"testing"
)

func TestSQLGrain(t *testing.T) {
	for _, tc := range []struct {
		name, sql, cols, evidence string
	}{
		{"group by column", "select order_date, count(*) as orders from x group by order_date", "order_date", "group by order_date"},
		{"group by position", "select customer_id, count(*) as n from x group by 1", "customer_id", "group by 1"},
		{"group by qualified column renamed", "select o.customer_id as cid, sum(o.amount) as total from o join c on o.id = c.id group by o.customer_id", "cid", "group by o.customer_id"},
		{"group by expression", "select date_trunc('month', d) as month, count(*) as n from x group by date_trunc('month', d)", "month", ""},
		{"group by alias", "select date_trunc('month', d) as month, count(*) as n from x group by month", "month", "group by month"},
		{"group by two columns", "select a, b, sum(c) as s from x group by a, b", "a,b", "group by a, b"},
		{"group by a column not selected", "select count(*) as n from x group by a", "", ""},
		{"group by all", "select a, b, sum(c) as s from x group by all", "a,b", ""},
		{"rollup", "select a, sum(c) as s from x group by rollup(a)", "", ""},
		{"distinct", "select distinct a, b from x", "a,b", "select distinct"},
		{"distinct star", "select distinct * from x", "", ""},
		{"distinct on", "select distinct on (a) a, b from x order by a, b", "a", ""},
		{"qualify", "select id, ts from x qualify row_number() over (partition by id order by ts desc) = 1", "id", ""},
		{"qualify alias", "select id, ts, row_number() over (partition by id order by ts) as rn from x qualify rn = 1", "id", ""},
		{"qualify rank", "select id from x qualify rank() over (partition by id order by ts) = 1", "", ""},
		{"final cte", "with agg as (select day, count(*) as n from x group by day), final as (select * from agg) select * from final", "day", "group by day"},
		{"final cte renamed and filtered", "with agg as (select day, count(*) as n from x group by day) select day as order_day, n from agg where n > 0", "order_day", ""},
		{"row_number subquery", "select id, ts from (select id, ts, row_number() over (partition by id order by ts desc) as rn from x) t where rn = 1", "id", ""},
		{"row_number cte", "with ranked as (select *, row_number() over (partition by user_id order by ts) as rn from ev) select user_id, ts from ranked where rn = 1 and ts is not null", "user_id", ""},
		{"union distinct", "select a from x union select a from y", "a", ""},
		{"union all", "select a from x union all select a from y", "", ""},
		{"join loses the grain", "with agg as (select day, count(*) as n from x group by day) select agg.day, y.v from agg join y on agg.day = y.day", "", ""},
		{"plain select", "select id, amount from x", "", ""},
		{"star excludes the key", "with agg as (select day, count(*) as n from x group by day) select * exclude (day) from agg", "", ""},
		{"unparseable", "select from where", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := sqlGrain("duckdb", tc.sql)
			got := ""
			if g != nil {
				got = strings.Join(g.Columns, ",")
			}
			if got != tc.cols {
				t.Fatalf("grain %q, want %q", got, tc.cols)
			}
			if tc.evidence != "" && g.Evidence != tc.evidence {
				t.Errorf("evidence %q, want %q", g.Evidence, tc.evidence)
			}
		})
	}
}
