package sqlparse

import (
	"os"
	"regexp"
	"testing"
)

var fuzzSeeds = []string{
	"select a, b as c from t where x > 1",
	"with a as (select * from t), b as (select a.x from a join u using (id)) select * exclude (x) from b;",
	"from t select x, count(*) group by all qualify row_number() over (partition by x order by y) = 1",
	"select f.value:sku::string, t.* ilike '%a%' from t, lateral flatten(input => t.items) f",
	"select * from `p-1.d.t` cross join unnest(arr) as e with offset o",
	"select * from t pivot (sum(v) for k in ('a', 'b')) p unpivot (x for y in (a, b))",
	"select case when a then 1 else 2 end, cast(x as decimal(10,2)), interval '1' day, [1,2], {'a': 1} from t",
	"(select 1) union all by name (select 2) order by 1 limit 3",
	"select /* c */ 'it''s', $$x$$, e'\\n', x::int[] -- trailing\n from t",
	"select lambda x: x + 1, list_transform(l, y -> y * 2), columns('^a') from t",
	"select exists (select 1 from u where u.id = t.id), x in (select y from v) from t natural join w",
	"with recursive r(n) as (select 1 union all select n + 1 from r where n < 3) select n from r",
	"select * from t pivot (sum(v) as s, count(w) for k in ('a' as x, 'b') y in (1, 2) group by g) as p (a, b)",
	"select * from t pivot (max(v) for (k, j) in (('a', 1) as x)) unpivot ((p, q) for n in ((a, b) as 'u'))",
	"select * from t pivot (sum(v) for k in (any order by k)), u pivot (sum(v) for k in (select k from w))",
	"select * from a semi join b on a.k = b.k left anti join c using (k), d left semi join e using (k)",
	"select max(columns('^a')), columns(c -> c like 'x%' and c <> 'y') * 2, coalesce(*columns(['a', 'b'])) from t",
	"select id, (select as struct a, b), array(select distinct as value c from u) from t",
	"select count(t.*), hash(*), to_json(struct(*)), row_to_json(t) from t",
}

func FuzzLex(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, name := range []string{"generic", "snowflake", "bigquery", "postgres"} {
			toks, err := Lex(LookupDialect(name), src)
			if err == nil && (len(toks) == 0 || toks[len(toks)-1].Kind != EOF) {
				t.Fatalf("token stream does not end with EOF")
			}
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, name := range []string{"generic", "snowflake", "bigquery", "duckdb"} {
			q, err := Parse(LookupDialect(name), src)
			if err == nil && q == nil {
				t.Fatalf("nil query without error")
			}
			if err != nil {
				if ie, ok := err.(*InternalError); ok {
					t.Fatalf("parser bug: %v", ie)
				}
				e, ok := err.(*Error)
				if !ok || e.Pos.Line < 1 {
					t.Fatalf("error without a position: %v", err)
				}
			}
		}
	})
}

// TestKeywordsCoverParser guards the lexer's keyword interning: a keyword
// the parser compares against but the lexer does not intern would never match.
func TestKeywordsCoverParser(t *testing.T) {
	src, err := os.ReadFile("parser.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`"([A-Z][A-Z_]+)"`).FindAllStringSubmatch(string(src), -1) {
		if keywords[m[1]] == 0 {
			t.Errorf("keyword %s used in parser.go is missing from keywordList", m[1])
		}
	}
}
