package sqldiff

import (
	"strings"
	"testing"
)

// change renders a Change as kind|column|scope|before|after (columns
// reached after a slash when more than the one named).
func change(c Change) string {
	s := c.Kind + "|" + c.Column + "|" + c.Scope + "|" + c.Before + "|" + c.After
	if len(c.Columns) > 1 {
		s += "|" + strings.Join(c.Columns, ",")
	}
	return s
}

var cases = []struct {
	name, dialect, base, current string
	// want is nil for a cosmetic edit.
	want []string
}{
	// Cosmetic forms.
	{"layout", "duckdb", "select a, b from t where x = 1", "SELECT\n  a,\n  b\nFROM t\nWHERE x = 1", nil},
	{"comments", "postgres", "select a from t", "-- the model\nselect /* keep */ a -- col\nfrom t", nil},
	{"bigquery hash comment", "bigquery", "select a from t", "# header\nselect a from t", nil},
	{"keyword case", "snowflake", "select sum(a) as s from t group by b having count(*) > 1", "SELECT SUM(a) AS s FROM t GROUP BY b HAVING COUNT(*) > 1", nil},
	{"table alias rename", "duckdb", "select o.id, c.name from orders o join customers c on o.cid = c.id", "select ord.id, cust.name from orders as ord join customers cust on ord.cid = cust.id", nil},
	{"alias to table name", "postgres", "select orders.id from orders", "select o.id from orders o", nil},
	{"cte rename", "duckdb", "with src as (select id from t) select id from src", "with source_rows as (select id from t) select id from source_rows", nil},
	{"cte rename chained", "trino", "with a as (select id from t), b as (select id from a) select id from b", "with x as (select id from t), y as (select id from x) select id from y", nil},
	{"redundant parentheses", "redshift", "select a + b * c as v from t where x = 1 and y = 2", "select (a + (b * c)) as v from (t) where ((x = 1) and (y = 2))", nil},
	{"parenthesised query", "databricks", "select a from t", "(select a from t)", nil},
	{"snowflake quoting folds upper", "snowflake", "select id from orders", `select "ID" from "ORDERS"`, nil},
	{"postgres quoting folds lower", "postgres", "select ID from Orders", `select "id" from "orders"`, nil},
	{"bigquery backticks", "bigquery", "select id from `proj.ds.orders`", "select `id` from proj.ds.orders", nil},
	{"not equal spellings", "trino", "select a from t where b <> 1", "select a from t where b != 1", nil},
	{"optional as", "databricks", "select a as x from t as u", "select a x from t u", nil},
	{"trailing semicolon", "redshift", "select a from t", "select a from t;\n", nil},
	{"all at once", "snowflake", "with base as (select o.id, o.amount from raw.orders o where o.status <> 'x') select id, amount from base",
		"WITH \"BASE\" AS (\n  SELECT ord.ID, ord.AMOUNT -- money\n  FROM RAW.ORDERS ord\n  WHERE (ord.STATUS != 'x')\n)\nSELECT ID, AMOUNT FROM BASE;", nil},

	// column_added / column_removed / column_renamed.
	{"column added", "duckdb", "select id from t", "select id, amount * 2 as dbl from t", []string{"column_added|dbl|final||amount * 2 AS dbl"}},
	{"column added in cte", "postgres", "with a as (select id from t) select * from a", "with a as (select id, name from t) select * from a", []string{"column_added|name|a||name"}},
	{"column added bigquery", "bigquery", "select id from t", "select id, Name from t", []string{"column_added|Name|final||Name"}},
	{"column removed", "snowflake", "select id, name from t", "select id from t", []string{"column_removed|NAME|final|NAME|"}},
	{"column removed in cte", "duckdb", "with a as (select id, x from t) select id, x from a", "with a as (select id from t) select id, x from a", []string{"column_removed|x|a|x|"}},
	{"column removed trino", "trino", "select id, a + b as s from t", "select id from t", []string{"column_removed|s|final|a + b AS s|"}},
	{"column renamed", "duckdb", "select id, amount as amt from t", "select id, amount as total from t", []string{"column_renamed|total|final|amt|total"}},
	{"column renamed redshift", "redshift", "select id, a + b as s from t", "select id, a + b as total from t", []string{"column_renamed|total|final|s|total"}},
	{"column renamed postgres case", "postgres", `select id as "Id" from t`, "select id as id from t", []string{"column_renamed|id|final|Id|id"}},

	// column_expression.
	{"expression changed", "duckdb", "select id, amount * 0.9 as net from t", "select id, amount * 0.8 as net from t", []string{"column_expression|net|final|amount * 0.9 AS net|amount * 0.8 AS net"}},
	{"expression in cte reaches final", "databricks", "with a as (select id, price * qty as total from t) select id, total, total * 2 as dbl from a",
		"with a as (select id, price * qty - discount as total from t) select id, total, total * 2 as dbl from a",
		[]string{"column_expression|total|a|price * qty AS total|(price * qty) - discount AS total|total,dbl"}},
	{"scalar subquery in expression", "postgres", "select id, (select max(x) from u) as m from t", "select id, (select min(x) from u) as m from t",
		[]string{"column_expression|m|final|SCALAR(SELECT MAX(x) FROM u) AS m|SCALAR(SELECT MIN(x) FROM u) AS m"}},
	{"cast type", "snowflake", "select id::int as id from t", "select id::bigint as id from t", []string{"column_expression|ID|final|CAST(ID AS INT) AS ID|CAST(ID AS BIGINT) AS ID"}},

	// filter.
	{"where changed", "duckdb", "select id from orders where order_id not in (1013, 1014)", "select id from orders where order_id not in (777, 15001)",
		[]string{"filter|id|final|order_id NOT IN (1013, 1014)|order_id NOT IN (777, 15001)"}},
	{"where added", "trino", "select id from t", "select id from t where status = 'done'", []string{"filter|id|final||status = 'done'"}},
	{"having removed", "bigquery", "select k, count(*) as n from t group by k having count(*) > 1", "select k, count(*) as n from t group by k",
		[]string{"filter|k|final|HAVING COUNT(*) > 1||k,n"}},
	{"qualify changed", "snowflake", "select id from t qualify row_number() over (partition by id order by ts) = 1", "select id from t qualify row_number() over (partition by id order by ts desc) = 1",
		[]string{"filter|ID|final|QUALIFY ROW_NUMBER() OVER (PARTITION BY ID ORDER BY TS ) = 1|QUALIFY ROW_NUMBER() OVER (PARTITION BY ID ORDER BY TS DESC ) = 1"}},
	{"filter in cte reaches everything", "duckdb", "with o as (select id, amount from orders where id not in (1013, 1014)) select id, amount * 2 as dbl from o",
		"with x as (select id, amount from orders where id not in (777, 15001)) select id, amount * 2 as dbl from x",
		[]string{"filter|id|x|id NOT IN (1013, 1014)|id NOT IN (777, 15001)|id,dbl"}},

	// join.
	{"join type", "duckdb", "select o.id, c.name from orders o join customers c on o.cid = c.id", "select o.id, c.name from orders o left join customers c on o.cid = c.id",
		[]string{"join|id|final|INNER JOIN customers AS c ON o.cid = c.id|LEFT JOIN customers AS c ON o.cid = c.id|id,name"}},
	{"join condition", "postgres", "select o.id from orders o join customers c on o.cid = c.id", "select o.id from orders o join customers c on o.cid = c.id and c.active",
		[]string{"join|id|final|INNER JOIN customers AS c ON o.cid = c.id|INNER JOIN customers AS c ON (o.cid = c.id) AND c.active"}},
	{"join added", "redshift", "select o.id from orders o", "select o.id from orders o join customers c on o.cid = c.id",
		[]string{"join|id|final||INNER JOIN customers AS c ON o.cid = c.id"}},
	{"join removed", "trino", "select o.id from orders o left join customers c on o.cid = c.id", "select o.id from orders o",
		[]string{"join|id|final|LEFT JOIN customers AS c ON o.cid = c.id|"}},
	{"join using", "databricks", "select id from a join b using (id)", "select id from a join b using (id, day)",
		[]string{"join|id|final|INNER JOIN b USING (id)|INNER JOIN b USING (id, day)"}},

	// group_by.
	{"group by changed", "duckdb", "select k, sum(v) as s from t group by k", "select k, sum(v) as s from t group by k, j", []string{"group_by|k|final|GROUP BY k|GROUP BY k, j|k,s"}},
	{"group by all", "duckdb", "select k, sum(v) as s from t group by k", "select k, sum(v) as s from t group by all", []string{"group_by|k|final|GROUP BY k|GROUP BY ALL|k,s"}},
	{"group by in cte", "bigquery", "with g as (select k, count(*) as n from t group by k) select k, n from g", "with g as (select k, count(*) as n from t group by k, day) select k, n from g",
		[]string{"group_by|k|g|GROUP BY k|GROUP BY k, day|k,n"}},

	// source.
	{"source replaced", "duckdb", "select id from orders_v1", "select id from orders_v2", []string{"source|id|final|orders_v1|orders_v2"}},
	{"source schema", "postgres", "select o.id from raw.orders o", "select o.id from staging.orders o", []string{"source|id|final|raw.orders|staging.orders"}},
	{"joined source replaced", "snowflake", "select o.id, c.name from orders o join customers c on o.cid = c.id", "select o.id, c.name from orders o join customers_v2 c on o.cid = c.id",
		[]string{"source|ID|final|CUSTOMERS|CUSTOMERS_V2|ID,NAME"}},
	{"bigquery case-sensitive table", "bigquery", "select id from ds.Orders", "select id from ds.orders", []string{"source|id|final|ds.Orders|ds.orders"}},

	// distinct.
	{"distinct added", "duckdb", "select a from t", "select distinct a from t", []string{"distinct|a|final||DISTINCT"}},
	{"distinct removed", "redshift", "select distinct a, b from t", "select a, b from t", []string{"distinct|a|final|DISTINCT||a,b"}},
	{"distinct on", "postgres", "select distinct on (a) a, b from t", "select distinct on (a, b) a, b from t", []string{"distinct|a|final|DISTINCT ON (a)|DISTINCT ON (a, b)|a,b"}},

	// order_by.
	{"order by added", "duckdb", "select a from t", "select a from t order by a", []string{"order_by|a|final||ORDER BY a"}},
	{"order by direction", "trino", "select a from t order by a", "select a from t order by a desc", []string{"order_by|a|final|ORDER BY a|ORDER BY a DESC"}},
	{"order by in window is an expression", "databricks", "select a, row_number() over (order by b) as rn from t", "select a, row_number() over (order by c) as rn from t",
		[]string{"column_expression|rn|final|ROW_NUMBER() OVER (ORDER BY b ) AS rn|ROW_NUMBER() OVER (ORDER BY c ) AS rn"}},
	{"order by removed", "snowflake", "select a from t order by a", "select a from t", []string{"order_by|A|final|ORDER BY A|"}},

	// limit.
	{"limit changed", "duckdb", "select a from t limit 10", "select a from t limit 20", []string{"limit|a|final|LIMIT 10|LIMIT 20"}},
	{"limit added", "postgres", "select a from t", "select a from t limit 5", []string{"limit|a|final||LIMIT 5"}},
	{"offset added", "trino", "select a from t limit 5", "select a from t limit 5 offset 10", []string{"limit|a|final|LIMIT 5|LIMIT 5 OFFSET 10"}},

	// set_operation.
	{"union all to union", "duckdb", "select a from t union all select a from u", "select a from t union select a from u", []string{"set_operation|a|final|SELECT a FROM t UNION ALL SELECT a FROM u|SELECT a FROM t UNION SELECT a FROM u"}},
	{"union branch added", "bigquery", "select a from t union all select a from u", "select a from t union all select a from u union all select a from v",
		[]string{"set_operation|a|final|SELECT a FROM t UNION ALL SELECT a FROM u|SELECT a FROM t UNION ALL SELECT a FROM u UNION ALL SELECT a FROM v"}},
	{"except to intersect", "postgres", "select a from t except select a from u", "select a from t intersect select a from u", []string{"set_operation|a|final|SELECT a FROM t EXCEPT SELECT a FROM u|SELECT a FROM t INTERSECT SELECT a FROM u"}},
	{"filter inside union branch", "redshift", "select a from t union all select a from u where b = 1", "select a from t union all select a from u where b = 2",
		[]string{"filter|a|final|b = 1|b = 2"}},

	// Attribution through subqueries and nesting.
	{"derived table filter", "duckdb", "select s.id, s.total from (select id, sum(v) as total from t where v > 0 group by id) s", "select s.id, s.total from (select id, sum(v) as total from t where v > 1 group by id) s",
		[]string{"filter|id|final|v > 0|v > 1|id,total"}},
	{"derived table column reaches one output", "trino", "select s.id, s.total, 1 as one from (select id, v as total from t) s", "select s.id, s.total, 1 as one from (select id, v * 2 as total from t) s",
		[]string{"column_expression|total|final|v AS total|v * 2 AS total"}},
	{"cte column unused downstream", "postgres", "with a as (select id, x from t) select id from a", "with a as (select id, x + 1 as x from t) select id from a",
		[]string{"column_expression||a|x|x + 1 AS x"}},
	{"nested cte change", "snowflake", "with a as (select id, v from t), b as (select id, v * 2 as w from a) select id, w from b",
		"with a as (select id, v + 1 as v from t), b as (select id, v * 2 as w from a) select id, w from b",
		[]string{"column_expression|W|A|V|V + 1 AS V"}},
	{"cte renamed and edited", "duckdb", "with a as (select id from t where x) select id from a", "with b as (select id from t where y) select id from b",
		[]string{"filter|id|b|x|y"}},
	{"in subquery filter change", "bigquery", "select id from t where id in (select id from u where ok)", "select id from t where id in (select id from u where not ok)",
		[]string{"filter|id|final|id IN (SELECT id FROM u WHERE ok)|id IN (SELECT id FROM u WHERE NOT ok)"}},
	{"two changes in two ctes", "databricks", "with a as (select id, x from t), b as (select id, y from u) select a.id, a.x, b.y from a join b on a.id = b.id",
		"with a as (select id, x * 2 as x from t), b as (select id, y from u where y > 0) select a.id, a.x, b.y from a join b on a.id = b.id",
		[]string{"column_expression|x|a|x|x * 2 AS x", "filter|id|b||y > 0|id,x,y"}},
}

func TestDiff(t *testing.T) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			r := Diff(tt.dialect, tt.base, tt.current)
			if r.Error != nil {
				t.Fatalf("error: %+v", r.Error)
			}
			var got []string
			for _, c := range r.Changes {
				got = append(got, change(c))
			}
			if r.Cosmetic != (tt.want == nil) || strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("cosmetic=%v\ngot:\n%s\nwant:\n%s", r.Cosmetic, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestEveryDialectAndKindCovered(t *testing.T) {
	dialects := map[string]int{}
	kinds := map[string]int{}
	for _, tt := range cases {
		dialects[tt.dialect]++
		r := Diff(tt.dialect, tt.base, tt.current)
		for _, c := range r.Changes {
			kinds[c.Kind]++
		}
	}
	if len(cases) < 60 {
		t.Errorf("%d cases, want at least 60", len(cases))
	}
	for _, d := range []string{"duckdb", "postgres", "snowflake", "bigquery", "databricks", "redshift", "trino"} {
		if dialects[d] < 3 {
			t.Errorf("dialect %s: %d cases, want at least 3", d, dialects[d])
		}
	}
	for _, k := range []string{ColumnAdded, ColumnRemoved, ColumnRenamed, ColumnExpression, Filter, Join, GroupBy, Source, Distinct, OrderBy, Limit, SetOperation} {
		if kinds[k] < 3 {
			t.Errorf("kind %s: %d changes, want at least 3", k, kinds[k])
		}
	}
}

func TestParseErrorIsNotAGuess(t *testing.T) {
	tests := []struct {
		base, current string
		want          ParseError
	}{
		{"select a from t where", "select a from t", ParseError{Side: "base", Message: "line 1, column 22: unexpected end of input in an expression", Line: 1, Col: 22}},
		{"select a from t", "select a\nfrom t)", ParseError{Side: "current", Message: `line 2, column 7: unexpected ")" after the end of the query`, Line: 2, Col: 7}},
	}
	for _, tt := range tests {
		r := Diff("duckdb", tt.base, tt.current)
		if r.Changes != nil || r.Cosmetic || r.Error == nil || *r.Error != tt.want {
			t.Errorf("%q → %q: got %+v (error %+v), want changes nil and %+v", tt.base, tt.current, r, r.Error, tt.want)
		}
	}
}

func TestSummary(t *testing.T) {
	tests := []struct{ base, current, want string }{
		{"select id from orders where order_id not in (1013, 1014)", "select id from orders where order_id not in (777, 15001)",
			"filter: order_id NOT IN (1013, 1014) → NOT IN (777, 15001)"},
		{"select id from t", "select id from t", "cosmetic only (no structural change)"},
		{"select id, a as x from t", "select id, a * 2 as x, b, c from t where ok",
			"column_expression: a AS x → a * 2 AS x; column_added: b; +2 more"},
		{"with s as (select id, price * (1 - discount) as net from raw) select * from s", "with s as (select id, price * (1 - discount / 100.0) as net from raw) select * from s",
			"column_expression in s: price * (1 - discount) AS net → price * (1 - (discount / 100.0)) AS net"},
	}
	for _, tt := range tests {
		if got := Diff("duckdb", tt.base, tt.current).Summary(); got != tt.want {
			t.Errorf("%q → %q:\ngot  %s\nwant %s", tt.base, tt.current, got, tt.want)
		}
	}
}

func TestCompareCode(t *testing.T) {
	cc := CompareCode("duckdb", "", "select 1 as x", "select id from {{ ref('orders') }}", "select id, amount from {{ ref( 'orders' ) }}\n{# note #}{% if true %}{% endif %}")
	if cc.Compared != ComparedRaw || cc.Note != NoteRaw || cc.Cosmetic || len(cc.Changes) != 1 || change(cc.Changes[0]) != "column_added|amount|final||amount" {
		t.Errorf("raw fallback: %+v", cc)
	}
	cc = CompareCode("duckdb", "select id from orders", "select id from orders -- x", "a", "b")
	if cc.Compared != ComparedCompiled || cc.Note != "" || !cc.Cosmetic || cc.Summary != "cosmetic only (no structural change)" {
		t.Errorf("compiled: %+v", cc)
	}
}

func TestSchemaNamesStarColumns(t *testing.T) {
	base := "with a as (select * from raw where ok) select id, v from a"
	cur := "with a as (select * from raw where not ok) select id, v from a"
	if got := Diff("duckdb", base, cur).Changes[0].Columns; len(got) != 2 {
		t.Errorf("without schema: %v", got)
	}
	r := DiffSchema("duckdb", "select * from raw", "select * from raw where ok", map[string][]string{"RAW": {"id", "v"}})
	if got := strings.Join(r.Changes[0].Columns, ","); got != "id,v" {
		t.Errorf("with schema: got %q, want id,v", got)
	}
	if got := strings.Join(Diff("duckdb", "select * from raw", "select * from raw where ok").Changes[0].Columns, ","); got != "" {
		t.Errorf("star over unknown table: got %q, want nothing named", got)
	}
}
