package sqlparse

import (
	"strings"
	"testing"
)

var benchSQL = strings.Repeat(`with src_0 as (select * from "db"."analytics"."m1"),
joined as (
    select src_0.id, case when src_0.c1 > 3 then src_0.c1 else null end as c1,
        coalesce(src_0.c2, 0)::integer as c2, src_0.c3 + src_0.c4 as c5
    from src_0 left join src_1 on src_0.id = src_1.id
    where src_0.c1 is not null
)
select * exclude (c5) from joined
`, 1)

func BenchmarkLex(b *testing.B) {
	d := LookupDialect("duckdb")
	b.SetBytes(int64(len(benchSQL)))
	for b.Loop() {
		if _, err := Lex(d, benchSQL); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	d := LookupDialect("duckdb")
	var p Parser
	b.SetBytes(int64(len(benchSQL)))
	for b.Loop() {
		if _, err := p.Parse(d, benchSQL); err != nil {
			b.Fatal(err)
		}
	}
}
