package cll

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/cputime"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/sqlparse"
)

const (
	synthModels  = 2000
	synthSources = 100
	synthCols    = 20
)

// synthProject builds a dbt project shaped like a large real one: staging
// models over sources, then layers of CTE-heavy models that join 1-4
// upstream models each.
func synthProject(tb testing.TB) *dbt.Env {
	tb.Helper()
	rng := rand.New(rand.NewSource(42))
	cols := make([]string, synthCols)
	cols[0] = "id"
	for i := 1; i < synthCols; i++ {
		cols[i] = fmt.Sprintf("c%d", i)
	}
	nodes := map[string]any{}
	sources := map[string]any{}
	catalog := &dbt.Catalog{Nodes: map[string]*dbt.CatalogEntry{}, Sources: map[string]*dbt.CatalogEntry{}}
	for s := 0; s < synthSources; s++ {
		id := fmt.Sprintf("source.shop.raw.t%d", s)
		sources[id] = map[string]any{"unique_id": id, "name": fmt.Sprintf("t%d", s), "resource_type": "source",
			"database": "db", "schema": "raw", "identifier": fmt.Sprintf("t%d", s), "source_name": "raw",
			"relation_name": fmt.Sprintf(`"db"."raw"."t%d"`, s)}
		ce := &dbt.CatalogEntry{UniqueID: id, Columns: map[string]*dbt.CatalogColumn{}}
		for i, c := range cols {
			ce.Columns[c] = &dbt.CatalogColumn{Name: c, Type: "INTEGER", Index: i + 1}
		}
		catalog.Sources[id] = ce
	}
	rel := func(i int) string { return fmt.Sprintf(`"db"."analytics"."m%d"`, i) }
	for i := 0; i < synthModels; i++ {
		id := fmt.Sprintf("model.shop.m%d", i)
		var deps []string
		var froms []string
		if i < 300 {
			s := i % synthSources
			deps = append(deps, fmt.Sprintf("source.shop.raw.t%d", s))
			froms = append(froms, fmt.Sprintf(`"db"."raw"."t%d"`, s))
		} else {
			n := 1 + rng.Intn(4)
			seen := map[int]bool{}
			for len(froms) < n {
				j := rng.Intn(i)
				if i > 600 && rng.Intn(3) > 0 {
					j = i - 1 - rng.Intn(300)
				}
				if seen[j] {
					continue
				}
				seen[j] = true
				deps = append(deps, fmt.Sprintf("model.shop.m%d", j))
				froms = append(froms, rel(j))
			}
		}
		nodes[id] = map[string]any{"unique_id": id, "name": fmt.Sprintf("m%d", i), "resource_type": "model",
			"package_name": "shop", "database": "db", "schema": "analytics", "alias": fmt.Sprintf("m%d", i),
			"relation_name": rel(i), "language": "sql", "config": map[string]any{"materialized": "table"},
			"depends_on": map[string]any{"nodes": deps}, "compiled_code": synthSQL(i, froms, cols)}
	}
	raw, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json", "adapter_type": "duckdb"},
		"nodes":    nodes, "sources": sources, "macros": map[string]any{}, "exposures": map[string]any{},
		"metrics": map[string]any{}, "parent_map": map[string]any{}, "child_map": map[string]any{},
	})
	if err != nil {
		tb.Fatal(err)
	}
	m, err := dbt.DecodeManifest(raw, "synthetic manifest.json")
	if err != nil {
		tb.Fatal(err)
	}
	return &dbt.Env{Dir: "synthetic", Manifest: m, Catalog: catalog}
}

func synthSQL(i int, froms, cols []string) string {
	var b strings.Builder
	b.WriteString("with ")
	for k, f := range froms {
		fmt.Fprintf(&b, "src_%d as (\n    select * from %s\n),\n\n", k, f)
	}
	b.WriteString("joined as (\n    select\n        src_0.id")
	for c := 1; c < len(cols); c++ {
		k := c % len(froms)
		switch c % 5 {
		case 0:
			fmt.Fprintf(&b, ",\n        src_%d.%s + src_0.%s as %s", k, cols[c], cols[(c+1)%len(cols)], cols[c])
		case 1:
			fmt.Fprintf(&b, ",\n        case when src_%d.%s > %d then src_0.%s else null end as %s", k, cols[c], i%7, cols[c], cols[c])
		case 2:
			fmt.Fprintf(&b, ",\n        coalesce(src_%d.%s, 0)::integer as %s", k, cols[c], cols[c])
		default:
			fmt.Fprintf(&b, ",\n        src_%d.%s", k, cols[c])
		}
	}
	b.WriteString("\n    from src_0")
	for k := 1; k < len(froms); k++ {
		fmt.Fprintf(&b, "\n    left join src_%d on src_0.id = src_%d.id", k, k)
	}
	b.WriteString("\n    where src_0.c1 is not null\n),\n\n")
	b.WriteString("agg as (\n    select id, sum(c2) as total_c2, count(*) as n from joined group by 1\n),\n\n")
	b.WriteString("final as (\n    select joined.*, agg.total_c2 - agg.total_c2 as zero_check\n    from joined\n    left join agg on joined.id = agg.id\n    qualify row_number() over (partition by joined.id order by joined.c3 desc) = 1\n)\n\n")
	b.WriteString("select * exclude (zero_check) from final\n")
	return b.String()
}

func BenchmarkProjectLineage(b *testing.B) {
	env := synthProject(b)
	ctx := context.Background()
	b.Run("cold", func(b *testing.B) {
		c0 := cputime.Now()
		for b.Loop() {
			if _, err := AnalyzeProject(ctx, env, NewCache()); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, c0)
	})
	b.Run("one_model_changed", func(b *testing.B) {
		cache := NewCache()
		if _, err := AnalyzeProject(ctx, env, cache); err != nil {
			b.Fatal(err)
		}
		n := env.Manifest.Nodes["model.shop.m1000"]
		orig := n.CompiledCode
		defer func() { n.CompiledCode = orig }()
		i := 0
		c0 := cputime.Now()
		for b.Loop() {
			i++
			n.CompiledCode = fmt.Sprintf("%s-- edit %d\n", orig, i)
			pl, err := AnalyzeProject(ctx, env, cache)
			if err != nil {
				b.Fatal(err)
			}
			if pl.Stats.Analyzed != 1 {
				b.Fatalf("re-analysed %d models, want 1", pl.Stats.Analyzed)
			}
		}
		reportCPU(b, c0)
	})
	pl, err := AnalyzeProject(ctx, env, NewCache())
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct {
		name string
		col  NodeColumn
	}{
		// A staging value column: flows into a few downstream columns.
		{"impact", NodeColumn{Node: "model.shop.m100", Column: "c3"}},
		// A staging join key: every reader's rows change, ~6,000 columns.
		{"impact_wide", NodeColumn{Node: "model.shop.m100", Column: "id"}},
	} {
		b.Run(q.name, func(b *testing.B) {
			changed := []NodeColumn{q.col}
			r := pl.Impact(changed) // builds the index once
			c0 := cputime.Now()
			for b.Loop() {
				pl.Impact(changed)
			}
			reportCPU(b, c0)
			b.ReportMetric(float64(len(r.Columns)), "cols-reached")
		})
	}
}

// reportCPU adds CPU time per operation (all cores) next to wall time.
func reportCPU(b *testing.B, c0 time.Duration) {
	if d := cputime.Now() - c0; d > 0 && b.N > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
	}
}

func TestSyntheticProject(t *testing.T) {
	env := synthProject(t)
	pl, err := AnalyzeProject(context.Background(), env, NewCache())
	if err != nil {
		t.Fatal(err)
	}
	if pl.Stats.Models != synthModels || pl.Stats.Opaque != 0 {
		t.Fatalf("models=%d opaque=%d %v", pl.Stats.Models, pl.Stats.Opaque, pl.Stats.Reasons)
	}
	imp := pl.Impact([]NodeColumn{{Node: "model.shop.m100", Column: "id"}})
	if len(imp.Columns) == 0 || len(imp.Models) == 0 {
		t.Fatalf("impact of m100.id reached nothing")
	}
	t.Logf("impact of m100.id: %d columns in %d models, %d readers not reached", len(imp.Columns), len(imp.Models), len(imp.NotReached))
	ml := pl.Models["model.shop.m1000"]
	if len(ml.Columns) != synthCols {
		t.Fatalf("m1000 has %d columns, want %d", len(ml.Columns), synthCols)
	}
	for _, c := range ml.Columns {
		for _, d := range c.Deps {
			if d.Node == "" || d.Confidence != Exact {
				t.Fatalf("m1000.%s: unexpected dep %+v", c.Name, d)
			}
		}
	}
}

func BenchmarkAnalyzeSQL(b *testing.B) {
	cols := make([]string, synthCols)
	cols[0] = "id"
	for i := 1; i < synthCols; i++ {
		cols[i] = fmt.Sprintf("c%d", i)
	}
	froms := []string{`"db"."analytics"."m1"`, `"db"."analytics"."m2"`, `"db"."analytics"."m3"`}
	sql := synthSQL(7, froms, cols)
	schema := Schema{}
	for _, f := range froms {
		schema[f] = cols
	}
	b.SetBytes(int64(len(sql)))
	for b.Loop() {
		if _, err := AnalyzeSQL("duckdb", sql, schema); err != nil {
			b.Fatal(err)
		}
	}
}

// wideEnv is a project with one source of n columns, a model selecting
// every column by name (the shape of a wide staging model) and a model
// selecting * from it.
func wideEnv(tb testing.TB, n int) *dbt.Env {
	tb.Helper()
	cols := make([]string, n)
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d", i)
	}
	models := map[string]string{
		"stg_wide":  "select\n    " + strings.Join(cols, ",\n    ") + "\nfrom \"db\".\"raw\".\"events\"",
		"wide_mart": `select * from "db"."main"."stg_wide" where c1 is not null`,
	}
	deps := map[string][]string{"stg_wide": {"events"}, "wide_mart": {"stg_wide"}}
	return testEnv(tb, map[string][]string{"events": cols}, models, deps)
}

// BenchmarkWideModel is column lineage of a model with 40,000 columns
// (issue #19: roughly linear in the number of columns): the cold project
// analysis, the impact of every column, and the comparison of two builds.
func BenchmarkWideModel(b *testing.B) {
	for _, n := range []int{10_000, 40_000} {
		env := wideEnv(b, n)
		ctx := context.Background()
		b.Run(fmt.Sprintf("analyze_%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := AnalyzeProject(ctx, env, NewCache()); err != nil {
					b.Fatal(err)
				}
			}
		})
		pl, err := AnalyzeProject(ctx, env, NewCache())
		if err != nil {
			b.Fatal(err)
		}
		ml := pl.Models["model.p.stg_wide"]
		var all []NodeColumn
		for _, c := range ml.Columns {
			all = append(all, NodeColumn{Node: ml.UniqueID, Column: c.Name})
		}
		b.Run(fmt.Sprintf("impact_%d", n), func(b *testing.B) {
			for b.Loop() {
				if r := pl.Impact(all); len(r.Columns) < n {
					b.Fatalf("reached %d columns", len(r.Columns))
				}
			}
		})
		b.Run(fmt.Sprintf("compare_%d", n), func(b *testing.B) {
			for b.Loop() {
				if ca := CompareModel(ml, ml); ca.Category != NonBreaking {
					b.Fatal(ca.Category)
				}
			}
		})
	}
}

// BenchmarkLargeModel parses and analyses testdata/large_model.sql, a
// synthetic 700-line compiled mart (24 staging CTEs with casts, CASE and
// windows, 12 joins, a 12-way UNION ALL, GROUPING SETS): the issue #26
// target of one large model, parsed and resolved.
func BenchmarkLargeModel(b *testing.B) {
	data, err := os.ReadFile("testdata/large_model.sql")
	if err != nil {
		b.Fatal(err)
	}
	sql := string(data)
	if n := strings.Count(sql, "\n"); n < 500 {
		b.Fatalf("large_model.sql has %d lines, want 500+", n)
	}
	d := sqlparse.LookupDialect("postgres")
	b.Run("parse", func(b *testing.B) {
		var p sqlparse.Parser
		b.SetBytes(int64(len(sql)))
		for b.Loop() {
			p.Reset()
			if _, err := p.Parse(d, sql); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("analyze", func(b *testing.B) {
		b.SetBytes(int64(len(sql)))
		for b.Loop() {
			ql, err := AnalyzeSQL("postgres", sql, Schema{})
			if err != nil || ql.Opaque || len(ql.Columns) != 7 {
				b.Fatalf("%v %s %d columns", err, ql.OpaqueReason, len(ql.Columns))
			}
		}
	})
}
