package static

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/testfixtures"

	"github.com/ripple-data/ripple/internal/golden"
)

// mf builds a manifest (v12) from nodes and sources for rule tests.
type mf struct {
	version string
	nodes   map[string]any
	sources map[string]any
}

func newMF() *mf {
	return &mf{version: "1.9.0", nodes: map[string]any{}, sources: map[string]any{}}
}

func cols(names ...string) map[string]any {
	out := map[string]any{}
	for _, n := range names {
		out[n] = map[string]any{"name": n, "description": "", "data_type": "integer"}
	}
	return out
}

// model adds a model; extra fields (config, constraints, columns...) override defaults.
func (m *mf) model(name string, columns []string, extra map[string]any) string {
	id := "model.p." + name
	n := map[string]any{
		"unique_id": id, "name": name, "resource_type": "model", "package_name": "p",
		"database": "db", "schema": "main", "alias": name, "relation_name": `"db"."main"."` + name + `"`,
		"columns": cols(columns...), "config": map[string]any{"materialized": "table", "enabled": true},
		"depends_on": map[string]any{"nodes": []string{}, "macros": []string{}}, "language": "sql",
	}
	for k, v := range extra {
		n[k] = v
	}
	m.nodes[id] = n
	return id
}

func (m *mf) source(src, name string, columns []string) string {
	id := "source.p." + src + "." + name
	m.sources[id] = map[string]any{
		"unique_id": id, "name": name, "source_name": src, "resource_type": "source", "package_name": "p",
		"database": "db", "schema": src, "identifier": name, "relation_name": `"db"."` + src + `"."` + name + `"`,
		"columns": cols(columns...), "config": map[string]any{"enabled": true},
	}
	return id
}

// test adds a generic test attached to model id on column col.
func (m *mf) test(kind, attached, col string, kwargs map[string]any, config map[string]any) string {
	id := "test.p." + kind + "_" + attached + "_" + col
	for i := 2; m.nodes[id] != nil; i++ {
		id = id + "_" + string(rune('0'+i))
	}
	kw := map[string]any{"column_name": col}
	for k, v := range kwargs {
		kw[k] = v
	}
	if config == nil {
		config = map[string]any{"enabled": true, "severity": "ERROR"}
	}
	ns := any(nil)
	name := kind
	if kind == "unique_combination_of_columns" {
		ns = "dbt_utils"
		delete(kw, "column_name")
		col = ""
	}
	m.nodes[id] = map[string]any{
		"unique_id": id, "name": id, "resource_type": "test", "package_name": "p",
		"column_name": col, "attached_node": attached, "config": config,
		"test_metadata": map[string]any{"name": name, "namespace": ns, "kwargs": kw},
		"depends_on":    map[string]any{"nodes": []string{attached}, "macros": []string{}},
	}
	return id
}

func (m *mf) env(t testing.TB) *dbt.Env {
	t.Helper()
	doc := map[string]any{
		"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json", "dbt_version": m.version,
			"generated_at": "2026-01-01T00:00:00Z", "project_name": "p", "adapter_type": "duckdb"},
		"nodes": m.nodes, "sources": m.sources, "macros": map[string]any{}, "exposures": map[string]any{},
		"metrics": map[string]any{}, "disabled": map[string]any{}, "parent_map": map[string]any{}, "child_map": map[string]any{},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	man, err := dbt.DecodeManifest(data, "test manifest")
	if err != nil {
		t.Fatal(err)
	}
	return &dbt.Env{Dir: t.TempDir(), Manifest: man, ModTime: time.Unix(0, 0)}
}

// fakeLineage is a Lineage built by hand for rule tests.
type fakeLineage struct {
	cols   map[string][]ColumnInputs
	rows   map[string][]RowInput
	joins  map[string][]JoinEvidence
	opaque []OpaqueNode
}

func (f *fakeLineage) ModelColumns(id string) ([]ColumnInputs, bool) {
	c, ok := f.cols[id]
	return c, ok
}
func (f *fakeLineage) RowInputs(id string) []RowInput    { return f.rows[id] }
func (f *fakeLineage) JoinKeys(id string) []JoinEvidence { return f.joins[id] }
func (f *fakeLineage) Opaque() []OpaqueNode              { return f.opaque }

// fixture returns a directory of the vendored real fixtures (testdata/real).
func fixture(t testing.TB, rel string) string {
	return testfixtures.Real(t, rel)
}

func loadFixture(t testing.TB, rel string) *Project {
	t.Helper()
	env, err := dbt.LoadEnv(context.Background(), fixture(t, rel), "current", "dbt docs generate")
	if err != nil {
		t.Fatal(err)
	}
	return New(env, Options{Now: func() time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) }})
}

// assertGolden compares v, as indented JSON, with testdata/name.golden.json.
func assertGolden(t *testing.T, name string, v any) {
	t.Helper()
	golden.AssertJSON(t, filepath.Join("testdata", name+".golden.json"), v)
}
