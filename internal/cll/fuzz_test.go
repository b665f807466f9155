package cll

import (
	"fmt"
	"strings"
	"testing"
)

func FuzzAnalyzeSQL(f *testing.F) {
	for _, s := range []string{
		"with a as (select * from t) select a.x, count(*) from a join u using (id) group by 1",
		"select * exclude (b) from t",
		"select (select max(y) from u where u.id = t.id) as m from t where x in (select 1)",
		"with recursive r as (select 1 as n union all select n + 1 from r) select * from r",
		"select v from t unpivot (v for k in (a, b)) pivot (sum(v) for k in ('a'))",
		"select * from t pivot (sum(a) as s, count(b) for x in ('p' as q, 'r') id in (1, 2) group by id) as p (c, d)",
		"select * from t pivot (sum(a) for x in (any)) unpivot (v for k in (c, d))",
		"select * from t semi join u using (id) join u as w using (id) natural join t as z",
		"select max(columns('^a')), columns(c -> c like 'x%' or c in ('id')) * 2, coalesce(*columns(['a', 'b'])) from t where columns(*) > 0",
		"select id, (select as struct a, b), array(select as value y from u where u.id = t.id) from t",
		"select count(t.*), hash(*), to_json(t), struct(*) from t join u using (id)",
		"select a from (t join u using (id)) join (t as v join u as w using (id)) using (id)",
	} {
		f.Add(s)
	}
	schema := Schema{"t": {"id", "x", "a", "b"}, "u": {"id", "y"}}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, d := range []string{"generic", "snowflake", "duckdb", "bigquery"} {
			ql, _ := AnalyzeSQL(d, sql, schema)
			if ql == nil {
				t.Fatal("nil lineage")
			}
			again, _ := AnalyzeSQL(d, sql, schema)
			if a, b := fmt.Sprint(CorpusShape(ql).MarshalJSON()), fmt.Sprint(CorpusShape(again).MarshalJSON()); a != b {
				t.Fatalf("not deterministic:\n%s\n%s", a, b)
			}
			if ql.InternalError || strings.Contains(ql.OpaqueReason, "internal error") {
				t.Fatalf("resolver bug: %s", ql.OpaqueReason)
			}
		}
	})
}
