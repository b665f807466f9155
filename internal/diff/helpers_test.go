package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/warehouse/duckdb"
)

// model describes a manifest node for the hand-written manifests used where
// the fixture builder would be too slow (benchmarks) or cannot express the
// physical layout (upper-case Snowflake-style columns, Postgres schemas).
type model struct {
	name   string
	mat    string // default table
	kind   string // default model
	schema string // overrides the side's schema
}

// manifestJSON writes a minimal dbt v12 manifest placing each model in
// database.schema.
func manifestJSON(t testing.TB, database, schema string, models ...model) *dbt.Manifest {
	t.Helper()
	nodes := map[string]any{}
	for _, m := range models {
		kind := m.kind
		if kind == "" {
			kind = dbt.Model
		}
		mat := m.mat
		if mat == "" {
			mat = "table"
		}
		s := schema
		if m.schema != "" {
			s = m.schema
		}
		id := kind + ".proj." + m.name
		nodes[id] = map[string]any{
			"unique_id": id, "name": m.name, "resource_type": kind, "package_name": "proj",
			"path": m.name + ".sql", "original_file_path": "models/" + m.name + ".sql", "fqn": []string{"proj", m.name},
			"alias": m.name, "database": database, "schema": s,
			"config":   map[string]any{"materialized": mat, "enabled": true},
			"checksum": map[string]any{"name": "sha256", "checksum": "x"},
		}
	}
	doc := map[string]any{
		"metadata": map[string]any{"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json", "dbt_version": "1.8.1", "project_name": "proj", "adapter_type": "duckdb"},
		"nodes":    nodes, "sources": map[string]any{}, "macros": map[string]any{}, "exposures": map[string]any{},
		"metrics": map[string]any{}, "semantic_models": map[string]any{}, "saved_queries": map[string]any{}, "unit_tests": map[string]any{},
		"disabled": map[string]any{}, "parent_map": map[string]any{}, "child_map": map[string]any{},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	m, err := dbt.DecodeManifest(b, "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// handProject builds a dbt.Project whose base models live in baseSchema and
// current models in curSchema.
func handProject(t testing.TB, database, baseSchema, curSchema string, models ...model) *dbt.Project {
	return &dbt.Project{
		Base:    &dbt.Env{Manifest: manifestJSON(t, database, baseSchema, models...)},
		Current: &dbt.Env{Manifest: manifestJSON(t, database, curSchema, models...)},
	}
}

func mustDialect(t testing.TB, name string) dialect.Dialect {
	t.Helper()
	d, err := dialect.ForAdapter(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// memDuckDB opens an in-memory DuckDB and runs the setup statements.
func memDuckDB(t testing.TB, stmts ...string) *duckdb.Conn {
	t.Helper()
	ctx := context.Background()
	c, err := duckdb.OpenWritable(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for _, s := range stmts {
		if err := c.Exec(ctx, s); err != nil {
			t.Fatalf("setup %q: %v", s, err)
		}
	}
	return c
}

func fmtF(f *float64) string {
	if f == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%g", *f)
}
