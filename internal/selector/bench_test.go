package selector

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
)

// syntheticPair builds a base and current manifest of n models (plus
// sources, macros and a generic test per model) shaped like a large real
// project: current changes 1% of bodies, 0.5% of configs, one widely used
// macro, adds and removes 10 models, and lives in another schema.
func syntheticPair(tb testing.TB, n int) (base, cur *dbt.Manifest) {
	tb.Helper()
	body := strings.Repeat("select id, amount, status, created_at from somewhere where x > 1\n", 12)
	build := func(current bool) *dbt.Manifest {
		schema := "prod"
		if current {
			schema = "pr_123"
		}
		nodes, sources, macros := obj{}, obj{}, obj{}
		for i := range 1500 {
			id := fmt.Sprintf("macro.pkg.m%d", i)
			sql := fmt.Sprintf("{%% macro m%d() %%}select %d{%% endmacro %%}", i, i)
			if current && i == 7 {
				sql += " -- changed"
			}
			deps := []string{}
			if i > 0 {
				deps = append(deps, fmt.Sprintf("macro.pkg.m%d", i/2))
			}
			macros[id] = obj{"unique_id": id, "name": fmt.Sprintf("m%d", i), "package_name": "pkg", "macro_sql": sql, "depends_on": obj{"macros": deps}}
		}
		for i := range 200 {
			id := fmt.Sprintf("source.pkg.raw.t%d", i)
			sources[id] = obj{"unique_id": id, "name": fmt.Sprintf("t%d", i), "source_name": "raw", "resource_type": "source", "package_name": "pkg",
				"fqn": []string{"pkg", "raw", fmt.Sprintf("t%d", i)}, "schema": "raw", "database": "db", "identifier": fmt.Sprintf("t%d", i),
				"original_file_path": "models/sources.yml", "config": obj{"enabled": true}, "unrendered_config": obj{}}
		}
		for i := range n + 10 {
			if (!current && i >= n) || (current && i < 10) {
				continue // 10 removed in current, 10 added
			}
			name := fmt.Sprintf("model_%d", i)
			id := "model.pkg." + name
			var deps []string
			if i < 200 {
				deps = []string{fmt.Sprintf("source.pkg.raw.t%d", i)}
			} else {
				deps = []string{fmt.Sprintf("model.pkg.model_%d", i/2), fmt.Sprintf("model.pkg.model_%d", i-150)}
			}
			code := body + name
			if current && i%100 == 3 {
				code += " -- edited"
			}
			ucfg := obj{"materialized": "table", "tags": []string{"t"}, "meta": obj{"owner": "team"}}
			if current && i%200 == 5 {
				ucfg["materialized"] = "incremental"
			}
			cols := obj{}
			for c := range 10 {
				cols[fmt.Sprintf("col_%d", c)] = obj{"name": fmt.Sprintf("col_%d", c), "description": "a column", "data_type": "int"}
			}
			nodes[id] = obj{
				"unique_id": id, "name": name, "resource_type": "model", "package_name": "pkg",
				"path": name + ".sql", "original_file_path": fmt.Sprintf("models/layer_%d/%s.sql", i%10, name),
				"fqn": []string{"pkg", fmt.Sprintf("layer_%d", i%10), name}, "schema": schema, "database": "db", "alias": name,
				"raw_code": code, "checksum": obj{"name": "sha256", "checksum": name},
				"config":            obj{"enabled": true, "materialized": ucfg["materialized"], "tags": []string{"t"}, "persist_docs": obj{}},
				"unrendered_config": ucfg, "tags": []string{"t"}, "columns": cols, "description": "a model",
				"depends_on": obj{"nodes": deps, "macros": []string{fmt.Sprintf("macro.pkg.m%d", i%1500)}},
			}
			tid := fmt.Sprintf("test.pkg.not_null_%s_id.%d", name, i)
			nodes[tid] = obj{"unique_id": tid, "name": "not_null_" + name + "_id", "resource_type": "test", "package_name": "pkg",
				"fqn": []string{"pkg", "not_null_" + name + "_id"}, "original_file_path": "models/schema.yml", "raw_code": "{{ test_not_null(**_dbt_generic_test_kwargs) }}",
				"test_metadata": obj{"name": "not_null", "kwargs": obj{"column_name": "id"}}, "config": obj{"enabled": true, "severity": "ERROR"},
				"unrendered_config": obj{}, "depends_on": obj{"nodes": []string{id}, "macros": []string{"macro.pkg.m1"}}}
		}
		data, err := json.Marshal(obj{
			"metadata": obj{"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json", "project_name": "pkg"},
			"nodes":    nodes, "sources": sources, "macros": macros,
		})
		if err != nil {
			tb.Fatal(err)
		}
		m, err := dbt.DecodeManifest(data, "synthetic")
		if err != nil {
			tb.Fatal(err)
		}
		return m
	}
	return build(false), build(true)
}

func TestSyntheticPair(t *testing.T) {
	base, cur := syntheticPair(t, 2000)
	st := dbt.CompareState(base, cur)
	counts := map[string]int{}
	for _, s := range st {
		counts[s.ChangeStatus]++
		for _, m := range s.Modifications {
			counts[string(m)]++
		}
	}
	// Added: 10 models + their tests. Removed: 10 models + tests. Macro m7
	// changed: its users are m14, m15, m28..m31, ... (every macro whose i/2
	// chain reaches 7) and the nodes depending on those macros.
	if counts["added"] != 20 || counts["removed"] != 20 || counts["modified"] == 0 {
		t.Errorf("unexpected state counts %v", counts)
	}
	if counts["relation"] != 20 { // only the added models and their tests
		t.Errorf("resolved schema change leaked into relation: %v", counts)
	}
	g := dbt.NewGraph(base, cur)
	got, err := Select(g, st, "pkg", Options{Select: "state:modified+"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || len(got) > g.Len() {
		t.Errorf("state:modified+ selected %d of %d", len(got), g.Len())
	}
}

func BenchmarkCompareState5000(b *testing.B) {
	base, cur := syntheticPair(b, 5000)
	b.ResetTimer()
	for b.Loop() {
		dbt.CompareState(base, cur)
	}
}

func BenchmarkNewGraph5000(b *testing.B) {
	base, cur := syntheticPair(b, 5000)
	b.ResetTimer()
	for b.Loop() {
		dbt.NewGraph(base, cur)
	}
}

func BenchmarkSelectStateModifiedPlus5000(b *testing.B) {
	base, cur := syntheticPair(b, 5000)
	g, st := dbt.NewGraph(base, cur), dbt.CompareState(base, cur)
	s := New(g, st, "pkg")
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Select(Options{Select: "state:modified+"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStateAndSelect5000 is what a lineage request costs end to end
// once the manifests are loaded.
func BenchmarkStateAndSelect5000(b *testing.B) {
	base, cur := syntheticPair(b, 5000)
	b.ResetTimer()
	for b.Loop() {
		g, st := dbt.NewGraph(base, cur), dbt.CompareState(base, cur)
		if _, err := Select(g, st, "pkg", Options{Select: "state:modified+", ViewMode: ViewChangedModels}); err != nil {
			b.Fatal(err)
		}
	}
}
