package sqlparse

import "testing"

// TestParserReuse checks that a Parser's ASTs survive later calls until
// Reset, and that parsing after Reset gives the same trees as a fresh parse.
func TestParserReuse(t *testing.T) {
	d := LookupDialect("duckdb")
	queries := []string{
		"with a as (select x, case when y > 1 then z else null end as w from t) select * exclude (w) from a",
		"select coalesce(p.a, 0)::integer as a, sum(b) over (partition by c order by d) from s p left join u on p.id = u.id",
		"select f(g(h(1, 2), 3), case when a then b when c then d end) from v where x in (1, 2) qualify row_number() over () = 1",
	}
	render := func(q *Query) string {
		var out string
		var walk func(b QueryBody)
		walk = func(b QueryBody) {
			switch x := b.(type) {
			case *Select:
				for _, it := range x.Items {
					if it.Star != nil {
						out += "*;"
						continue
					}
					out += Format(it.Expr) + " AS " + it.Alias + ";"
				}
				if x.Where != nil {
					out += " WHERE " + Format(x.Where)
				}
				if x.Qualify != nil {
					out += " QUALIFY " + Format(x.Qualify)
				}
			case *Query:
				walk(x.Body)
			}
		}
		if q.With != nil {
			for _, c := range q.With.CTEs {
				out += c.Name + "("
				walk(c.Query.Body)
				out += ")"
			}
		}
		walk(q.Body)
		return out
	}
	want := make([]string, len(queries))
	for i, sql := range queries {
		q, err := Parse(d, sql)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = render(q)
	}
	var p Parser
	// Without Reset, earlier trees stay intact.
	var kept []*Query
	for round := 0; round < 3; round++ {
		for _, sql := range queries {
			q, err := p.Parse(d, sql)
			if err != nil {
				t.Fatal(err)
			}
			kept = append(kept, q)
		}
	}
	for i, q := range kept {
		if got := render(q); got != want[i%len(queries)] {
			t.Fatalf("tree %d changed by later parses:\n got %s\nwant %s", i, got, want[i%len(queries)])
		}
	}
	// With Reset, memory is reused and trees are still right.
	for round := 0; round < 3; round++ {
		for i, sql := range queries {
			p.Reset()
			q, err := p.Parse(d, sql)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(q); got != want[i] {
				t.Fatalf("after Reset: got %s\nwant %s", got, want[i])
			}
		}
	}
	// A failed parse leaves no state behind.
	p.Reset()
	if _, err := p.Parse(d, "select f(a, case when from t"); err == nil {
		t.Fatal("expected a syntax error")
	}
	q, err := p.Parse(d, queries[1])
	if err != nil {
		t.Fatal(err)
	}
	if got := render(q); got != want[1] {
		t.Fatalf("after a failed parse: got %s\nwant %s", got, want[1])
	}
}
