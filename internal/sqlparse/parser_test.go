package sqlparse

import (
	"strings"
	"testing"
)

func TestParseAccepts(t *testing.T) {
	tests := []struct{ dialect, sql string }{
		{"duckdb", "from t"},
		{"duckdb", "from t select a where b group by all"},
		{"duckdb", "select * exclude (a, b) from t union all by name select * from u"},
		{"duckdb", "select columns('^amount') , {'a': 1} as s, [1, 2][1] as i, list_transform(l, x -> x + 1) from t"},
		{"duckdb", "select lambda_col, list_filter(l, lambda y: y > 1) from t"},
		{"duckdb", "select * from 'data/*.parquet'"},
		{"snowflake", "select f.value:a.b[0]::string, t.* ilike '%x%' from t, lateral flatten(input => t.v) f"},
		{"snowflake", "select * from table(flatten(input => parse_json('[1]')))"},
		{"snowflake", "select * from t at(timestamp => '2024-01-01'::timestamp) as x"},
		{"snowflake", "select id, jan from t pivot (sum(v) for m in ('jan', 'feb')) as p (id, jan, feb)"},
		{"snowflake", "select * from t unpivot include nulls (v for k in (a, b))"},
		{"bigquery", "select * except (a) replace (b as c) from `p.d.t`"},
		{"bigquery", "select s.x from my-project.dataset.t, unnest(arr) as s with offset as o"},
		{"bigquery", "select struct<a int64>(1) as s, array<string>['a'] as arr, date_trunc(d, week(monday)) from t"},
		{"bigquery", "# comment\nselect 1 -- other\n"},
		{"bigquery", "select '''triple\nquoted''' as t"},
		{"postgres", "select distinct on (a) a, b::numeric(10, 2), c->>'k', $$x$$ from t order by a nulls last"},
		{"postgres", "with recursive r(n) as (select 1 union all select n + 1 from r where n < 5) select n from r"},
		{"postgres", "select x from t where a is not distinct from b and c between 1 and 2 and d not ilike 'x%'"},
		{"redshift", "select listagg(a, ',') within group (order by b) from t"},
		{"databricks", "select a from t lateral view explode(arr) e as a cluster by a"},
		{"generic", "select a, from t;;"},
		{"generic", "(select 1) union (select 2) order by 1 limit 3 offset 1"},
		{"generic", "select * from (a join b using (id)) as j"},
		{"generic", "select exists(select 1), cast(x as timestamp with time zone), interval '1' day, extract(year from d) from t"},
		{"generic", "select trim(leading 'x' from a), substring(a from 2 for 3), position('a' in b), count(*) filter (where c) from t"},
		{"generic", "select a /* nested /* comment */ still */ from t"},
		{"generic", "insert overwrite table x partition (d='1') select a from t"},
		{"generic", "create or replace table x as (select a from t)"},
		{"generic", "select sum(x) over (partition by a order by b rows between unbounded preceding and current row) from t window w as (order by c)"},
	}
	for _, tt := range tests {
		if _, err := Parse(LookupDialect(tt.dialect), tt.sql); err != nil {
			t.Errorf("%s: %q: %v", tt.dialect, tt.sql, err)
		}
	}
}

func TestParseErrorsHavePositions(t *testing.T) {
	tests := []struct{ sql, want string }{
		{"select from", "line 1, column 8: unexpected keyword FROM"},
		{"select a\nfrom t\nwhere (b", "line 3, column 9"},
		{"select 'unterminated", "line 1, column 8: unterminated string literal"},
		{"select a from t where", "unexpected end of input"},
		{"", "empty SQL"},
		{"select a from t)", "line 1, column 16"},
	}
	for _, tt := range tests {
		_, err := Parse(LookupDialect("generic"), tt.sql)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want error containing %q", tt.sql, err, tt.want)
		}
	}
}

func TestIdentifierFolding(t *testing.T) {
	tests := []struct{ dialect, want string }{
		{"snowflake", "RAW.Orders.ID"},
		{"postgres", "raw.Orders.id"},
		{"duckdb", "Raw.Orders.Id"},
	}
	for _, tt := range tests {
		q, err := Parse(LookupDialect(tt.dialect), `select Id from Raw."Orders"`)
		if err != nil {
			t.Fatal(err)
		}
		sel := q.Body.(*Select)
		got := sel.From[0].(*TableRef).Name.String() + "." + sel.Items[0].Expr.(*ColumnRef).Name.String()
		if got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.dialect, got, tt.want)
		}
	}
}

func TestFormatIgnoresLayout(t *testing.T) {
	a, _ := Parse(LookupDialect("generic"), "select  COALESCE( a ,0 ) /* c */ + 1 as x from t")
	b, _ := Parse(LookupDialect("generic"), "select coalesce(a, 0)\n  + 1 AS y from t")
	fa := Format(a.Body.(*Select).Items[0].Expr)
	fb := Format(b.Body.(*Select).Items[0].Expr)
	if fa != fb || fa != "(COALESCE(a, 0) + 1)" {
		t.Errorf("got %q and %q", fa, fb)
	}
}

// TestRecoveredPanics: a syntax error raised inside the parser stays an
// *Error; any other panic is an *InternalError, a bug reported apart from
// the user's SQL.
func TestRecoveredPanics(t *testing.T) {
	syntax := &Error{Pos: Pos{Line: 2, Col: 3}, Msg: "expected FROM"}
	if got := recovered(syntax, Pos{Line: 9, Col: 9}); got != error(syntax) {
		t.Fatalf("syntax error became %T %v", got, got)
	}
	got := recovered("index out of range", Pos{Line: 1, Col: 7})
	ie, ok := got.(*InternalError)
	if !ok {
		t.Fatalf("panic became %T, want *InternalError", got)
	}
	if want := "line 1, column 7: internal parser error: index out of range"; ie.Error() != want {
		t.Fatalf("message %q, want %q", ie.Error(), want)
	}
}
