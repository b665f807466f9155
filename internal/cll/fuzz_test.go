package cll

import (
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
	} {
		f.Add(s)
	}
	schema := Schema{"t": {"id", "x", "a", "b"}, "u": {"id", "y"}}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, d := range []string{"generic", "snowflake"} {
			ql, _ := AnalyzeSQL(d, sql, schema)
			if ql == nil {
				t.Fatal("nil lineage")
			}
			if ql.InternalError || strings.Contains(ql.OpaqueReason, "internal error") {
				t.Fatalf("resolver bug: %s", ql.OpaqueReason)
			}
		}
	})
}
