package sqlparse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dialect"
)

// nonReservedKeywords lists, per dialect, every word the parser knows as a
// keyword (its own and every warehouse record's reserved words) that the
// dialect does not reserve: each must work wherever a name does.
func nonReservedKeywords(d Dialect) []string {
	var out []string
	for _, w := range keywordNames[1:] {
		if !d.IsReserved(w) {
			out = append(out, w)
		}
	}
	return out
}

// TestNonReservedKeywordsAreNames is the generated table of issue #26:
// every non-reserved keyword of every dialect as a column name (bare and
// qualified), a column alias, a table alias and qualifier, a CTE name and
// a table name; without AS too, unless it is a clause word (those never
// are implicit aliases: "from t where").
func TestNonReservedKeywordsAreNames(t *testing.T) {
	for _, name := range dialect.Supported() {
		d := LookupDialect(name)
		words := nonReservedKeywords(d)
		if len(words) < 100 {
			t.Fatalf("%s: only %d non-reserved keywords: the keyword table is broken", name, len(words))
		}
		for _, w := range words {
			lw := strings.ToLower(w)
			folded := d.FoldIdent(lw)
			cases := []struct {
				form, sql string
				check     func(q *Query) string
			}{
				{"column", fmt.Sprintf("select %s from t", lw), func(q *Query) string { return colName(q, 0) }},
				{"qualified column", fmt.Sprintf("select t.%s from t", lw), func(q *Query) string { return colName(q, 0) }},
				{"column in where", fmt.Sprintf("select a from t where %s = 1", lw), func(q *Query) string {
					return colName(&Query{Body: &Select{Items: []*SelectItem{{Expr: q.Body.(*Select).Where.(*Binary).Left}}}}, 0)
				}},
				{"alias", fmt.Sprintf("select a as %s from t", lw), func(q *Query) string { return q.Body.(*Select).Items[0].Alias }},
				{"table alias and qualifier", fmt.Sprintf("select %s.a from t as %s", lw, lw), func(q *Query) string { return q.Body.(*Select).From[0].(*TableRef).Alias }},
				{"cte", fmt.Sprintf("with %s as (select a from t) select %s.a from %s", lw, lw, lw), func(q *Query) string { return q.With.CTEs[0].Name }},
				{"table", fmt.Sprintf("select a from %s where a = 1", lw), func(q *Query) string { return q.Body.(*Select).From[0].(*TableRef).Name.String() }},
				{"joined cte", fmt.Sprintf("with %s as (select a from t) select x.a from t as x left join %s on x.a = %s.a", lw, lw, lw), func(q *Query) string {
					return q.Body.(*Select).From[0].(*Join).Right.(*TableRef).Name.String()
				}},
			}
			if !clauseWords[w] && !operatorKw[keywordIndex(w)] {
				cases = append(cases,
					struct {
						form, sql string
						check     func(q *Query) string
					}{"implicit alias", fmt.Sprintf("select a %s from t", lw), func(q *Query) string { return q.Body.(*Select).Items[0].Alias }},
					struct {
						form, sql string
						check     func(q *Query) string
					}{"implicit table alias", fmt.Sprintf("select %s.a from t %s", lw, lw), func(q *Query) string { return q.Body.(*Select).From[0].(*TableRef).Alias }},
				)
			}
			for _, c := range cases {
				q, err := Parse(d, c.sql)
				if err != nil {
					t.Errorf("%s: %s as a %s: %q: %v", name, w, c.form, c.sql, err)
					continue
				}
				if got := checkSafely(c.check, q); got != folded {
					t.Errorf("%s: %s as a %s: %q read as %q", name, w, c.form, c.sql, got)
				}
			}
		}
	}
}

// checkSafely runs a shape check, turning a wrong AST shape into a result.
func checkSafely(f func(*Query) string, q *Query) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprintf("another shape (%v)", r)
		}
	}()
	return f(q)
}

func colName(q *Query, i int) string {
	c, ok := q.Body.(*Select).Items[i].Expr.(*ColumnRef)
	if !ok {
		return fmt.Sprintf("%T", q.Body.(*Select).Items[i].Expr)
	}
	return c.Name.Parts[len(c.Name.Parts)-1]
}

// TestReservedKeywordsAreRefused: a clause word the dialect reserves is
// not read as a column or a table.
func TestReservedKeywordsAreRefused(t *testing.T) {
	tests := []struct{ dialect, sql, want string }{
		{"snowflake", "select sample.x from t as sample", "unexpected keyword SAMPLE"},
		{"bigquery", "select a from exclude", "expected a table, found keyword EXCLUDE"},
		{"duckdb", "select qualify from t", "unexpected keyword QUALIFY"},
		{"postgres", "select a from t where", "unexpected end of input"},
		{"databricks", "select from t", "unexpected keyword FROM"},
	}
	for _, tt := range tests {
		_, err := Parse(LookupDialect(tt.dialect), tt.sql)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %q: got %v, want %q", tt.dialect, tt.sql, err, tt.want)
		}
	}
}
